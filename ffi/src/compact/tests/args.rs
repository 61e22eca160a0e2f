//! Argument errors (NULLs, objects of other handles, indices, flags): the
//! compact build refuses what the full library refuses, with its texts.

use super::{last_error, object_key, open_compact, open_std, refused, said, zeroed};
use crate as s;
use crate::compact as c;
use crate::{zt_attribute, zt_component_info, zt_file_storage, zt_object, zt_object_info, zt_slot, zt_status};
use crate::{ZT_NUL_TERMINATED, ZT_VERIFY_ALL, ZT_VERIFY_STRICT};
use core::ptr::{null, null_mut};
use ztensor_core::compact::Kind;
use zt_status::*;

#[test]
fn arguments_are_checked_as_by_the_full_library() {
    let bytes = ztensor_core::doc_example_file();
    let st = open_std(bytes);
    let h = open_compact(bytes, 4);
    let other = open_compact(bytes, 4);
    assert_eq!((st.status, h.status, other.status), (ZT_OK, ZT_OK, ZT_OK));
    let (sf, cf) = (st.f, h.f);
    let inv = ZT_ERR_INVALID_ARGUMENT;
    assert_eq!(c::zt_file_storage_size(), core::mem::size_of::<zt_file_storage>());

    // Opening: NULLs and sizes, `*out` NULL after a refusal.
    let mut storage: zt_file_storage = zeroed();
    let mut slots: Vec<zt_slot> = (0..4).map(|_| zt_slot { words: [0; 2] }).collect();
    let mut out = 1 as *mut c::zt_file;
    let (p, n) = (bytes.as_ptr(), bytes.len());
    unsafe {
        assert_eq!(c::zt_open_mem_into(p, n, &mut storage, slots.as_mut_ptr(), 4, null_mut()), inv);
        assert_eq!(last_error(), refused(c::Msg::OutNull, "`out` is NULL"));
        assert_eq!(c::zt_open_mem_into(p, n, null_mut(), slots.as_mut_ptr(), 4, &mut out), inv);
        assert!(out.is_null());
        out = 1 as *mut _;
        assert_eq!(c::zt_open_mem_into(null(), n, &mut storage, slots.as_mut_ptr(), 4, &mut out), inv);
        assert!(out.is_null());
        assert_eq!(c::zt_open_mem_into(p, n, &mut storage, null_mut(), 4, &mut out), inv);
        assert_eq!(c::zt_open_mem_into(p, usize::MAX, &mut storage, null_mut(), 0, &mut out), inv);
        assert_eq!(c::zt_open_mem_into(null(), 0, &mut storage, null_mut(), 0, &mut out), ZT_ERR_FORMAT);
        assert_eq!(last_error(), format!("{} (manifest byte 0)", said(Kind::Container)));
        // Its names are not in order: their check needs a slot each.
        assert_eq!(c::zt_open_mem_into(p, n, &mut storage, null_mut(), 0, &mut out), ZT_ERR_BUFFER_TOO_SMALL);
        assert_eq!(last_error(), format!("{} (manifest byte 27)", said(Kind::Slots)));
        assert_eq!(c::zt_open_mem_into(p, n, &mut storage, slots.as_mut_ptr(), 2, &mut out), ZT_OK);
        assert!(!out.is_null());
    }

    // Every function: a NULL handle.
    let mut o = zt_object { index: 0, owner: 0 };
    let (mut cn, mut n) = (null(), 0usize);
    let mut oi = zeroed::<zt_object_info>();
    let mut fi = zeroed::<crate::zt_file_info>();
    let mut ci = zeroed::<zt_component_info>();
    let mut a = zeroed::<zt_attribute>();
    let mut dims = [0u64; 4];
    let (mut ptr, mut written) = (null(), 0usize);
    let data = c"data".as_ptr();
    let nul = ZT_NUL_TERMINATED;
    unsafe {
        assert_eq!(c::zt_object_count(null()), 0);
        assert_eq!(c::zt_file_get_info(null(), &mut fi), inv);
        assert_eq!(c::zt_object_at(null(), 0, &mut o), inv);
        assert_eq!(c::zt_find(null(), c"bias".as_ptr(), nul, &mut o), inv);
        assert_eq!(last_error(), refused(c::Msg::FileNull, "`file` is NULL"));
        assert_eq!(c::zt_attribute_count(null(), null(), &mut n), inv);
        assert_eq!(c::zt_attribute_at(null(), null(), 0, &mut a), inv);
        assert_eq!(c::zt_attribute_find(null(), null(), c"framework".as_ptr(), nul, &mut a), inv);
        assert_eq!(c::zt_verify(null(), 0), inv);
        assert_eq!(c::zt_verify_report(null(), 0, null_mut()), inv);
    }

    // Objects: from zt_find, from the full library's handle, from another
    // compact handle, a forged one, NULL.
    unsafe {
        assert_eq!(c::zt_find(cf, c"bias".as_ptr(), nul, &mut o), ZT_OK);
        assert_eq!(o.index, 1);
        let mut so = zt_object { index: 0, owner: 0 };
        assert_eq!(s::zt_find(sf, c"bias".as_ptr(), nul, &mut so), ZT_OK);
        let mut oo = zt_object { index: 0, owner: 0 };
        assert_eq!(c::zt_find(other.f, c"bias".as_ptr(), nul, &mut oo), ZT_OK);
        let forged = zt_object { index: 1, owner: 0 };
        let past = zt_object { index: 2, owner: o.owner };
        for (what, bad) in [("std", &so as *const zt_object), ("other", &oo), ("forged", &forged), ("past", &past), ("NULL", null())] {
            assert_eq!(c::zt_object_name(cf, bad, &mut cn, &mut n), inv, "{what}");
            assert_eq!(s::zt_object_name(sf, if what == "std" { null() } else { bad }, &mut cn, &mut n), inv, "{what}");
            assert_eq!(c::zt_object_get_info(cf, bad, &mut oi), inv, "{what}");
            assert_eq!(object_key(&oi), object_key(&zeroed()), "{what}: zeroed");
            assert_eq!(c::zt_object_shape(cf, bad, dims.as_mut_ptr(), 4, &mut n), inv, "{what}");
            assert_eq!(c::zt_component(cf, bad, data, nul, &mut ci), inv, "{what}");
            assert_eq!(c::zt_component_at(cf, bad, 0, &mut ci), inv, "{what}");
            assert_eq!(c::zt_component_ptr(cf, bad, data, nul, &mut ptr, &mut n), inv, "{what}");
            assert!(ptr.is_null() && n == 0);
            assert_eq!(c::zt_component_read(cf, bad, data, nul, null_mut(), 0, &mut written), inv, "{what}");
            if !bad.is_null() {
                assert_eq!(c::zt_attribute_count(cf, bad, &mut n), inv, "{what}");
                assert_eq!(c::zt_attribute_at(cf, bad, 0, &mut a), inv, "{what}");
            }
        }
        assert_eq!(c::zt_object_name(cf, &so, &mut cn, &mut n), inv);
        assert_eq!(last_error(), refused(c::Msg::ForeignObject, "a zt_object from another file (or not from zt_object_at / zt_find)"));
        assert_eq!(c::zt_object_name(cf, &past, &mut cn, &mut n), inv);
        assert_eq!(last_error(), refused(c::Msg::ObjectIndex, "object index out of range"));
    }

    // Out-parameters, names, indices and flags, each also asked of the full library.
    let so = {
        let mut so = zt_object { index: 0, owner: 0 };
        assert_eq!(unsafe { s::zt_find(sf, c"bias".as_ptr(), nul, &mut so) }, ZT_OK);
        so
    };
    let (o, so) = (&o as *const zt_object, &so as *const zt_object);
    let pairs: Vec<(&str, zt_status, zt_status)> = unsafe {
        vec![
            ("file info", c::zt_file_get_info(cf, null_mut()), s::zt_file_get_info(sf, null_mut())),
            ("object at", c::zt_object_at(cf, 0, null_mut()), s::zt_object_at(sf, 0, null_mut())),
            ("object at 2", c::zt_object_at(cf, 2, &mut zt_object { index: 0, owner: 0 }), s::zt_object_at(sf, 2, &mut zt_object { index: 0, owner: 0 })),
            ("find out", c::zt_find(cf, c"bias".as_ptr(), nul, null_mut()), s::zt_find(sf, c"bias".as_ptr(), nul, null_mut())),
            ("find NULL", c::zt_find(cf, null(), 3, &mut zt_object { index: 0, owner: 0 }), s::zt_find(sf, null(), 3, &mut zt_object { index: 0, owner: 0 })),
            ("find NULL nul", c::zt_find(cf, null(), nul, &mut zt_object { index: 0, owner: 0 }), s::zt_find(sf, null(), nul, &mut zt_object { index: 0, owner: 0 })),
            ("find empty", c::zt_find(cf, null(), 0, &mut zt_object { index: 0, owner: 0 }), s::zt_find(sf, null(), 0, &mut zt_object { index: 0, owner: 0 })),
            ("find huge", c::zt_find(cf, data, usize::MAX - 1, &mut zt_object { index: 0, owner: 0 }), s::zt_find(sf, data, usize::MAX - 1, &mut zt_object { index: 0, owner: 0 })),
            ("name", c::zt_object_name(cf, o, null_mut(), &mut n), s::zt_object_name(sf, so, null_mut(), &mut n)),
            ("name len", c::zt_object_name(cf, o, &mut cn, null_mut()), s::zt_object_name(sf, so, &mut cn, null_mut())),
            ("info", c::zt_object_get_info(cf, o, null_mut()), s::zt_object_get_info(sf, so, null_mut())),
            ("shape small", c::zt_object_shape(cf, o, dims.as_mut_ptr(), 0, null_mut()), s::zt_object_shape(sf, so, dims.as_mut_ptr(), 0, null_mut())),
            ("shape dims", c::zt_object_shape(cf, o, null_mut(), 4, null_mut()), s::zt_object_shape(sf, so, null_mut(), 4, null_mut())),
            ("attr count", c::zt_attribute_count(cf, o, null_mut()), s::zt_attribute_count(sf, so, null_mut())),
            ("attr at", c::zt_attribute_at(cf, null(), 0, null_mut()), s::zt_attribute_at(sf, null(), 0, null_mut())),
            ("attr at 1", c::zt_attribute_at(cf, null(), 1, &mut a), s::zt_attribute_at(sf, null(), 1, &mut a)),
            ("attr find", c::zt_attribute_find(cf, null(), c"framework".as_ptr(), nul, null_mut()), s::zt_attribute_find(sf, null(), c"framework".as_ptr(), nul, null_mut())),
            ("attr find ok", c::zt_attribute_find(cf, null(), c"framework".as_ptr(), nul, &mut a), s::zt_attribute_find(sf, null(), c"framework".as_ptr(), nul, &mut a)),
            ("attr key", c::zt_attribute_find(cf, null(), null(), 2, &mut a), s::zt_attribute_find(sf, null(), null(), 2, &mut a)),
            ("attr missing", c::zt_attribute_find(cf, o, c"x".as_ptr(), nul, &mut a), s::zt_attribute_find(sf, so, c"x".as_ptr(), nul, &mut a)),
            ("component", c::zt_component(cf, o, data, nul, null_mut()), s::zt_component(sf, so, data, nul, null_mut())),
            ("component role", c::zt_component(cf, o, null(), 4, &mut ci), s::zt_component(sf, so, null(), 4, &mut ci)),
            ("component empty role", c::zt_component(cf, o, null(), 0, &mut ci), s::zt_component(sf, so, null(), 0, &mut ci)),
            ("component bad role", c::zt_component(cf, o, c"\xff".as_ptr(), nul, &mut ci), s::zt_component(sf, so, c"\xff".as_ptr(), nul, &mut ci)),
            ("component at", c::zt_component_at(cf, o, 1, &mut ci), s::zt_component_at(sf, so, 1, &mut ci)),
            ("component at info", c::zt_component_at(cf, o, 0, null_mut()), s::zt_component_at(sf, so, 0, null_mut())),
            ("ptr", c::zt_component_ptr(cf, o, data, nul, null_mut(), &mut n), s::zt_component_ptr(sf, so, data, nul, null_mut(), &mut n)),
            ("ptr len", c::zt_component_ptr(cf, o, data, nul, &mut ptr, null_mut()), s::zt_component_ptr(sf, so, data, nul, &mut ptr, null_mut())),
            ("ptr role", c::zt_component_ptr(cf, o, c"values".as_ptr(), nul, &mut ptr, &mut n), s::zt_component_ptr(sf, so, c"values".as_ptr(), nul, &mut ptr, &mut n)),
            ("read written", c::zt_component_read(cf, o, data, nul, null_mut(), 0, null_mut()), s::zt_component_read(sf, so, data, nul, null_mut(), 0, null_mut())),
            ("read dst", c::zt_component_read(cf, o, data, nul, null_mut(), 8, &mut written), s::zt_component_read(sf, so, data, nul, null_mut(), 8, &mut written)),
            ("read cap", c::zt_component_read(cf, o, data, nul, dims.as_mut_ptr().cast(), usize::MAX, &mut written), s::zt_component_read(sf, so, data, nul, dims.as_mut_ptr().cast(), usize::MAX, &mut written)),
            ("read", c::zt_component_read(cf, o, data, nul, dims.as_mut_ptr().cast(), 32, &mut written), s::zt_component_read(sf, so, data, nul, dims.as_mut_ptr().cast(), 32, &mut written)),
            ("verify flags", c::zt_verify(cf, 16), s::zt_verify(sf, 16)),
            ("verify", c::zt_verify(cf, ZT_VERIFY_ALL | ZT_VERIFY_STRICT), s::zt_verify(sf, ZT_VERIFY_ALL | ZT_VERIFY_STRICT)),
        ]
    };
    for (what, compact, full) in pairs {
        assert_eq!(compact, full, "{what}");
    }
    let expected = [("find empty", ZT_ERR_NOT_FOUND), ("attr missing", ZT_ERR_NOT_FOUND), ("read", ZT_OK), ("shape small", ZT_ERR_BUFFER_TOO_SMALL)];
    unsafe {
        for (what, want) in expected {
            let got = match what {
                "find empty" => c::zt_find(cf, null(), 0, &mut zt_object { index: 0, owner: 0 }),
                "attr missing" => c::zt_attribute_find(cf, o, c"x".as_ptr(), nul, &mut a),
                "read" => c::zt_component_read(cf, o, data, nul, dims.as_mut_ptr().cast(), 32, &mut written),
                _ => c::zt_object_shape(cf, o, dims.as_mut_ptr(), 0, &mut n),
            };
            assert_eq!(got, want, "{what}");
        }
        assert_eq!((written, n), (8, 1));
        // Counts are zeroed when the arguments are refused.
        let mut counts = crate::zt_verify_counts { objects: 9, components: 9, digests_checked: 9, unverifiable: 9, problems: 9 };
        assert_eq!(c::zt_verify_report(cf, 16, &mut counts), inv);
        assert_eq!((counts.objects, counts.problems), (0, 0));
        assert_eq!(last_error(), refused(c::Msg::VerifyFlag, "unknown `zt_verify` flag"));
        assert_eq!(c::zt_verify_report(cf, ZT_VERIFY_ALL | ZT_VERIFY_STRICT, &mut counts), ZT_OK);
        assert_eq!((counts.objects, counts.components, counts.problems), (2, 2, 0));
    }
}

#[test]
fn each_message_has_its_status_and_text() {
    // The texts in `Msg` order.
    let texts = [
        "`file` is NULL",
        "`obj` is NULL",
        "`storage` is NULL",
        "`ptr` is NULL",
        "`info` is NULL",
        "`dims` is NULL",
        "`attr` is NULL",
        "`written` is NULL",
        "`dst` is NULL",
        "`out` is NULL",
        "`name` is NULL",
        "`key` is NULL",
        "`role` is NULL",
        "a zt_object from another file (or not from zt_object_at / zt_find)",
        "object index out of range",
        "`len` or `slot_count` out of range",
        "`name` or `len` is NULL",
        "`ptr` or `len` is NULL",
        "`cap` is over PTRDIFF_MAX",
        "unknown `zt_verify` flag",
        "a string length is over PTRDIFF_MAX (and is not ZT_NUL_TERMINATED)",
        "no object with that name",
        "no attribute with that key",
        "no component with that role",
        "buffer too small for the shape",
        "buffer too small for the component",
        "no zero-copy view: the component is compressed",
        "declared size exceeds what the zstd data can hold",
    ];
    assert_eq!(c::ALL.len(), texts.len());
    for (&(m, status), text) in c::ALL.iter().zip(texts) {
        assert_eq!((m.status(), c::Fail::Text(m).record(), last_error()), (status, status, refused(m, text)));
    }
}

/// The header's ZT_FAULT_* and ZT_REFUSAL_* (what `zt_last_error` names in
/// a build without `texts`) are the kinds' and the C
/// refusals' numbers, all of them, and each one's comment quotes its phrase.
#[test]
fn fault_numbers() {
    use crate::fault_numbers as n;
    let faults = [(n::ZT_FAULT_CONTAINER, Kind::Container), (n::ZT_FAULT_GENERATION, Kind::Generation), (n::ZT_FAULT_CBOR, Kind::Cbor), (n::ZT_FAULT_UTF8, Kind::Utf8), (n::ZT_FAULT_DEEP, Kind::Deep), (n::ZT_FAULT_DUPLICATE_KEY, Kind::DuplicateKey), (n::ZT_FAULT_SLOTS, Kind::Slots), (n::ZT_FAULT_TRAILING, Kind::Trailing), (n::ZT_FAULT_WRONG_TYPE, Kind::WrongType), (n::ZT_FAULT_MISSING, Kind::Missing), (n::ZT_FAULT_BAD_VERSION, Kind::BadVersion), (n::ZT_FAULT_VERSION, Kind::Version), (n::ZT_FAULT_EMPTY_NAME, Kind::EmptyName), (n::ZT_FAULT_DTYPE, Kind::DType), (n::ZT_FAULT_ENCODING, Kind::Encoding), (n::ZT_FAULT_LOGICAL_TYPE, Kind::LogicalType), (n::ZT_FAULT_MISALIGNED, Kind::Misaligned), (n::ZT_FAULT_OUT_OF_BOUNDS, Kind::OutOfBounds), (n::ZT_FAULT_NO_DECODED_SIZE, Kind::NoDecodedSize), (n::ZT_FAULT_PARTIAL_ELEMENT, Kind::PartialElement), (n::ZT_FAULT_MISSING_COMPONENT, Kind::MissingComponent), (n::ZT_FAULT_INDEX_DTYPE, Kind::IndexDType), (n::ZT_FAULT_COUNT, Kind::Count), (n::ZT_FAULT_LENGTH, Kind::Length), (n::ZT_FAULT_OVERFLOW, Kind::Overflow), (n::ZT_FAULT_SHAPE, Kind::Shape), (n::ZT_FAULT_QUANT_ATTRIBUTE, Kind::QuantAttribute), (n::ZT_FAULT_OVERLAP, Kind::Overlap), (n::ZT_FAULT_BAD_DIGEST, Kind::BadDigest), (n::ZT_FAULT_DIGEST_MISMATCH, Kind::DigestMismatch), (n::ZT_FAULT_UNVERIFIABLE, Kind::Unverifiable), (n::ZT_FAULT_ZSTD, Kind::Zstd), (n::ZT_FAULT_BOOL, Kind::Bool), (n::ZT_FAULT_INDPTR, Kind::Indptr), (n::ZT_FAULT_COLUMN, Kind::Column), (n::ZT_FAULT_COORDINATE, Kind::Coordinate), (n::ZT_FAULT_MANIFEST_HASH, Kind::ManifestHash), (n::ZT_FAULT_NOT_DETERMINISTIC, Kind::NotDeterministic), (n::ZT_FAULT_NAME, Kind::Name), (n::ZT_FAULT_RANK, Kind::Rank), (n::ZT_FAULT_SHARD, Kind::Shard), (n::ZT_FAULT_LAYOUT, Kind::Layout), (n::ZT_FAULT_SHARDED, Kind::Sharded), (n::ZT_FAULT_F4_NIBBLE, Kind::F4Nibble), (n::ZT_FAULT_COO_DUPLICATE, Kind::CooDuplicate), (n::ZT_FAULT_SEEKABLE, Kind::Seekable), (n::ZT_FAULT_DECODED_LENGTH, Kind::DecodedLength), (n::ZT_FAULT_UNKNOWN_TYPE, Kind::UnknownType)];
    let refusals = [(n::ZT_REFUSAL_FILE_NULL, c::Msg::FileNull), (n::ZT_REFUSAL_OBJ_NULL, c::Msg::ObjNull), (n::ZT_REFUSAL_STORAGE_NULL, c::Msg::StorageNull), (n::ZT_REFUSAL_PTR_NULL, c::Msg::PtrNull), (n::ZT_REFUSAL_INFO_NULL, c::Msg::InfoNull), (n::ZT_REFUSAL_DIMS_NULL, c::Msg::DimsNull), (n::ZT_REFUSAL_ATTR_NULL, c::Msg::AttrNull), (n::ZT_REFUSAL_WRITTEN_NULL, c::Msg::WrittenNull), (n::ZT_REFUSAL_DST_NULL, c::Msg::DstNull), (n::ZT_REFUSAL_OUT_NULL, c::Msg::OutNull), (n::ZT_REFUSAL_NAME_NULL, c::Msg::NameNull), (n::ZT_REFUSAL_KEY_NULL, c::Msg::KeyNull), (n::ZT_REFUSAL_ROLE_NULL, c::Msg::RoleNull), (n::ZT_REFUSAL_FOREIGN_OBJECT, c::Msg::ForeignObject), (n::ZT_REFUSAL_OBJECT_INDEX, c::Msg::ObjectIndex), (n::ZT_REFUSAL_LEN_OR_SLOTS, c::Msg::LenOrSlots), (n::ZT_REFUSAL_NAME_OR_LEN_NULL, c::Msg::NameOrLenNull), (n::ZT_REFUSAL_PTR_OR_LEN_NULL, c::Msg::PtrOrLenNull), (n::ZT_REFUSAL_CAP_OVER, c::Msg::CapOver), (n::ZT_REFUSAL_VERIFY_FLAG, c::Msg::VerifyFlag), (n::ZT_REFUSAL_TOO_LONG, c::Msg::TooLong), (n::ZT_REFUSAL_NO_OBJECT, c::Msg::NoObject), (n::ZT_REFUSAL_NO_ATTRIBUTE, c::Msg::NoAttribute), (n::ZT_REFUSAL_NO_COMPONENT, c::Msg::NoComponent), (n::ZT_REFUSAL_SHAPE_TOO_SMALL, c::Msg::ShapeTooSmall), (n::ZT_REFUSAL_COMPONENT_TOO_SMALL, c::Msg::ComponentTooSmall), (n::ZT_REFUSAL_COMPRESSED, c::Msg::Compressed), (n::ZT_REFUSAL_DECLARED_SIZE, c::Msg::DeclaredSize)];
    assert_eq!((faults.len(), refusals.len()), (Kind::COUNT, c::ALL.len()));
    let src = include_str!("../../fault_numbers.rs");
    // Each constant's comment starts with its phrase in quotes.
    let phrase = |name: &str| {
        let at = src.find(&format!("pub const {name}:")).unwrap();
        let doc = src[..at].trim_end().rsplit('\n').next().unwrap();
        doc.strip_prefix("/// \"").unwrap().split('"').next().unwrap().to_string()
    };
    for (i, (value, kind)) in faults.into_iter().enumerate() {
        assert_eq!((value, kind as u32), (i as u32, i as u32));
        let name = src.lines().filter_map(|l| l.strip_prefix("pub const ")).nth(i).unwrap().split(':').next().unwrap();
        assert_eq!(phrase(name), kind.message(), "{name}");
        c::Fail::Fault(0, ztensor_core::compact::Fault { kind, at: 156 }).record();
        assert_eq!(last_error(), format!("{} (manifest byte 156)", said(kind)));
        assert_eq!(said(kind), if !cfg!(feature = "texts") { format!("fault {i}") } else { phrase(name) });
    }
    for (i, (value, m)) in refusals.into_iter().enumerate() {
        assert_eq!((value, m as u32, c::ALL[i].0 as u32), (i as u32, i as u32, i as u32));
        let name = src.lines().filter_map(|l| l.strip_prefix("pub const ")).nth(faults.len() + i).unwrap().split(':').next().unwrap();
        assert_eq!(c::Fail::Text(m).record(), c::ALL[i].1);
        assert_eq!(last_error(), refused(m, &phrase(name)), "{name}");
        assert_eq!(refused(m, ""), if !cfg!(feature = "texts") { format!("refusal {i}") } else { String::new() });
    }
}
