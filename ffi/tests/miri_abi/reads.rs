//! Files, objects, names, shapes and attributes through the C functions of
//! every build (the full library, and the no-heap ones in
//! `miri_no_heap.rs`): each pointer argument NULL in turn, lengths
//! explicit and `ZT_NUL_TERMINATED`, names with a NUL inside or not
//! UTF-8, out-parameters read back (and zeroed or untouched on failure, as
//! the header says), strings borrowed from the file's own bytes.

use super::support::*;
use core::ptr::{null, null_mut};
use ztensor::*;

/// The names in `ATTRIBUTES`.
const NAMES: [&[u8]; 5] =
    [b"csr_with_attrs", b"dense_empty_attrs", b"dense_no_attrs", b"dense_single_attr", b"dense_with_attrs"];

pub fn file_info() {
    let h = open(ATTRIBUTES);
    let mut info: zt_file_info = zeroed();
    info.object_count = 99;
    unsafe {
        invalid(zt_file_get_info(null(), &mut info), "`file` is NULL");
        assert_eq!(info.object_count, 0, "zeroed on failure");
        invalid(zt_file_get_info(h.ptr(), null_mut()), "`info` is NULL");
        ok(zt_file_get_info(h.ptr(), &mut info));
    }
    assert_eq!((info.version_major, info.version_minor, info.version_patch), (1, 2, 0));
    assert_eq!(info.mode, zt_mode::ZT_MODE_MEMORY);
    assert_eq!((info.object_count, info.attribute_count), (5, 0));
    assert_eq!((info.file_length, info.manifest_offset, info.manifest_length), (1339, 480, 843));
}

pub fn objects_by_position() {
    let h = open(ATTRIBUTES);
    let mut o = zt_object { index: 7, owner: 7 };
    let (mut p, mut n) = (null(), 0);
    let mut seen = Vec::new();
    unsafe {
        assert_eq!(zt_object_count(null()), 0);
        assert_eq!(zt_object_count(h.ptr()), 5);
        invalid(zt_object_at(null(), 0, &mut o), "`file` is NULL");
        invalid(zt_object_at(h.ptr(), 5, &mut o), "object index out of range");
        invalid(zt_object_at(h.ptr(), usize::MAX, &mut o), "object index out of range");
        invalid(zt_object_at(h.ptr(), 0, null_mut()), "`out` is NULL");
        assert_eq!((o.index, o.owner), (7, 7), "untouched by refusals");
        for i in 0..5 {
            ok(zt_object_at(h.ptr(), i, &mut o));
            assert_eq!(o.index, i);
            ok(zt_object_name(h.ptr(), &o, &mut p, &mut n));
            assert!(inside(ATTRIBUTES, p, n), "the name is borrowed from the file");
            let name = bytes_at(p, n);
            // zt_find gives the same object back.
            let f = find(&h, name);
            assert_eq!((f.index, f.owner), (o.index, o.owner));
            seen.push(name.to_vec());
        }
        invalid(zt_object_name(h.ptr(), &o, null_mut(), &mut n), "`name` or `len` is NULL");
        invalid(zt_object_name(h.ptr(), &o, &mut p, null_mut()), "`name` or `len` is NULL");
        invalid(zt_object_name(h.ptr(), null(), &mut p, &mut n), "`obj` is NULL");
        invalid(zt_object_name(null(), &o, &mut p, &mut n), "`file` is NULL");
    }
    seen.sort();
    assert_eq!(seen, NAMES);
}

pub fn objects_by_name() {
    let file = named_objects(&[b"A", b"nul\0inside", "é".as_bytes()]);
    let h = open(&file);
    let untouched = zt_object { index: 7, owner: 7 };
    let (mut o, mut p, mut n) = (untouched, null(), 0);
    unsafe {
        ok(zt_find(h.ptr(), c"A".as_ptr(), NUL, &mut o));
        let a = o;
        // An explicit length is honoured: one byte of "Ab".
        ok(zt_find(h.ptr(), b"Ab".as_ptr().cast(), 1, &mut o));
        assert_eq!(o.index, a.index);
        // A name with a NUL inside: found with its length; NUL-terminated,
        // it stops at the NUL ("nul", which no object is called).
        let (nul_inside, len) = s(b"nul\0inside");
        ok(zt_find(h.ptr(), nul_inside, len, &mut o));
        ok(zt_object_name(h.ptr(), &o, &mut p, &mut n));
        assert_eq!(bytes_at(p, n), b"nul\0inside");
        o = untouched;
        expect(zt_find(h.ptr(), nul_inside, NUL, &mut o), ZT_ERR_NOT_FOUND, "");
        ok(zt_find(h.ptr(), c"é".as_ptr(), NUL, &mut o));
        ok(zt_object_name(h.ptr(), &o, &mut p, &mut n));
        assert_eq!((bytes_at(p, n), inside(&file, p, n)), ("é".as_bytes(), true));
        // Refusals and misses leave `*out` as it was: the empty name (NULL
        // with length 0, or ""), half of "é", not UTF-8, absent.
        o = untouched;
        expect(zt_find(h.ptr(), null(), 0, &mut o), ZT_ERR_NOT_FOUND, "");
        expect(zt_find(h.ptr(), c"".as_ptr(), NUL, &mut o), ZT_ERR_NOT_FOUND, "");
        expect(zt_find(h.ptr(), c"é".as_ptr(), 1, &mut o), ZT_ERR_NOT_FOUND, "");
        invalid(zt_find(h.ptr(), null(), 1, &mut o), "`name` is NULL");
        invalid(zt_find(h.ptr(), null(), NUL, &mut o), "`name` is NULL");
        invalid(zt_find(h.ptr(), c"A".as_ptr(), isize::MAX as usize + 1, &mut o), "PTRDIFF_MAX");
        invalid(zt_find(null(), c"A".as_ptr(), NUL, &mut o), "`file` is NULL");
        invalid(zt_find(h.ptr(), c"A".as_ptr(), NUL, null_mut()), "`out` is NULL");
        expect(zt_find(h.ptr(), b"\xff\xfe".as_ptr().cast(), 2, &mut o), ZT_ERR_NOT_FOUND, "");
        expect(zt_find(h.ptr(), c"B".as_ptr(), NUL, &mut o), ZT_ERR_NOT_FOUND, "");
        assert_eq!((o.index, o.owner), (7, 7));
    }
}

pub fn object_info_and_shape() {
    let h = open(ATTRIBUTES);
    let csr = find(&h, b"csr_with_attrs");
    let mut info: zt_object_info = zeroed();
    info.ndim = 99;
    let mut ndim = 0;
    unsafe {
        invalid(zt_object_get_info(h.ptr(), &csr, null_mut()), "`info` is NULL");
        invalid(zt_object_get_info(h.ptr(), null(), &mut info), "`obj` is NULL");
        assert_eq!(info.ndim, 0, "zeroed on failure");
        ok(zt_object_get_info(h.ptr(), &csr, &mut info));
        assert!(inside(ATTRIBUTES, info.name, info.name_len));
        assert_eq!(bytes_at(info.name, info.name_len), b"csr_with_attrs");
        assert_eq!(bytes_at(info.format, info.format_len), b"sparse_csr");
        assert_eq!(info.format_kind, zt_format::ZT_FORMAT_SPARSE_CSR);
        assert_eq!((info.ndim, info.numel, info.component_count, info.attribute_count), (2, 12, 3, 2));
        #[cfg(not(feature = "compact"))]
        {
            let (mut p, mut n) = (null(), 0);
            invalid(zt_object_format(h.ptr(), &csr, null_mut(), &mut n), "`format` or `len` is NULL");
            invalid(zt_object_format(h.ptr(), &csr, &mut p, null_mut()), "`format` or `len` is NULL");
            ok(zt_object_format(h.ptr(), &csr, &mut p, &mut n));
            assert_eq!(bytes_at(p, n), b"sparse_csr");
        }
        // The shape: asked with NULL, too short (untouched), exact, larger.
        expect(zt_object_shape(h.ptr(), &csr, null_mut(), 0, &mut ndim), ZT_ERR_BUFFER_TOO_SMALL, "");
        assert_eq!(ndim, 2);
        let mut one = vec![7u64; 1];
        ndim = 0;
        expect(zt_object_shape(h.ptr(), &csr, one.as_mut_ptr(), 1, &mut ndim), ZT_ERR_BUFFER_TOO_SMALL, "");
        assert_eq!((one[0], ndim), (7, 2));
        invalid(zt_object_shape(h.ptr(), &csr, null_mut(), 2, &mut ndim), "`dims` is NULL");
        let mut two = vec![0u64; 2];
        ok(zt_object_shape(h.ptr(), &csr, two.as_mut_ptr(), 2, null_mut()));
        assert_eq!(two, [3, 4]);
        let mut four = vec![9u64; 4];
        ok(zt_object_shape(h.ptr(), &csr, four.as_mut_ptr(), 4, &mut ndim));
        assert_eq!((four, ndim), (vec![3, 4, 9, 9], 2));
    }
    // A scalar has no dimension: NULL dims are fine.
    let h = open(SCALARS);
    let scalar = find(&h, b"scalar_f64");
    ndim = 9;
    unsafe {
        ok(zt_object_shape(h.ptr(), &scalar, null_mut(), 0, &mut ndim));
        assert_eq!(ndim, 0);
        ok(zt_object_get_info(h.ptr(), &scalar, &mut info));
    }
    assert_eq!((info.ndim, info.numel, info.component_count), (0, 1, 1));
}

/// The attribute `key` of `obj` in `h`.
#[track_caller]
fn attribute(h: &Handle<'_>, obj: &zt_object, key: &[u8]) -> zt_attribute {
    let mut a = zeroed();
    let (k, n) = s(key);
    ok(unsafe { zt_attribute_find(h.ptr(), obj, k, n, &mut a) });
    a
}

pub fn attributes() {
    let h = open(ATTRIBUTES);
    let many = find(&h, b"dense_with_attrs");
    let mut n = 99;
    let mut a: zt_attribute = zeroed();
    unsafe {
        // Of the file (NULL object) and of objects.
        ok(zt_attribute_count(h.ptr(), null(), &mut n));
        assert_eq!(n, 0);
        for (name, want) in [(&b"dense_with_attrs"[..], 19), (b"dense_no_attrs", 0), (b"dense_empty_attrs", 0)] {
            ok(zt_attribute_count(h.ptr(), &find(&h, name), &mut n));
            assert_eq!(n, want);
        }
        invalid(zt_attribute_count(h.ptr(), &many, null_mut()), "`count` is NULL");
        invalid(zt_attribute_count(null(), &many, &mut n), "`file` is NULL");
        // By position (the first, the last, two between): each found again
        // by its key (explicit length).
        for i in [0, 7, 13, 18] {
            ok(zt_attribute_at(h.ptr(), &many, i, &mut a));
            assert!(inside(ATTRIBUTES, a.key, a.key_len) && inside(ATTRIBUTES, a.cbor.cast(), a.cbor_len));
            let mut b = zeroed::<zt_attribute>();
            ok(zt_attribute_find(h.ptr(), &many, a.key, a.key_len, &mut b));
            assert_eq!((b.cbor, b.cbor_len), (a.cbor, a.cbor_len));
        }
        a.key_len = 99;
        invalid(zt_attribute_at(h.ptr(), &many, 19, &mut a), "attribute index out of range");
        assert_eq!((a.key, a.key_len), (null(), 0), "zeroed on failure");
        invalid(zt_attribute_at(h.ptr(), null(), 0, &mut a), "attribute index out of range");
        invalid(zt_attribute_at(h.ptr(), &many, 0, null_mut()), "`attr` is NULL");
        // By key: refusals and misses zero `*attr`.
        invalid(zt_attribute_find(h.ptr(), &many, null(), 3, &mut a), "`key` is NULL");
        invalid(zt_attribute_find(h.ptr(), &many, c"str".as_ptr(), NUL, null_mut()), "`attr` is NULL");
        for (key, len) in [(c"nope".as_ptr(), NUL), (null(), 0), (b"\xff".as_ptr().cast(), 1)] {
            a.key_len = 99;
            expect(zt_attribute_find(h.ptr(), &many, key, len, &mut a), ZT_ERR_NOT_FOUND, "");
            assert_eq!(a.key_len, 0);
        }
        ok(zt_attribute_find(h.ptr(), &many, c"str".as_ptr(), NUL, &mut a));
    }
    // The values, decoded (text borrowed from the file).
    assert_eq!((a.kind, unsafe { bytes_at(a.data.cast(), a.data_len) }), (zt_value_kind::ZT_VALUE_TEXT, &b"text"[..]));
    // An explicit length shorter than the buffer: "str" of "strX".
    let a = attribute(&h, &many, &b"strX"[..3]);
    assert!(inside(ATTRIBUTES, a.data.cast(), a.data_len) && a.data_len == 4);
    let a = attribute(&h, &many, "unicode".as_bytes());
    assert_eq!(unsafe { bytes_at(a.data.cast(), a.data_len) }, "héllo wörld ✓".as_bytes());
    let a = attribute(&h, &many, b"neg");
    assert_eq!((a.kind, a.has_int, a.int_value), (zt_value_kind::ZT_VALUE_NEGINT, true, -7));
    let a = attribute(&h, &many, b"half");
    assert_eq!((a.kind, a.float_value), (zt_value_kind::ZT_VALUE_FLOAT, 1.5));
    let a = attribute(&h, &many, b"true");
    assert_eq!((a.kind, a.bool_value), (zt_value_kind::ZT_VALUE_BOOL, true));
    let a = attribute(&h, &many, b"list");
    assert_eq!((a.kind, a.count), (zt_value_kind::ZT_VALUE_ARRAY, 5));
    let a = attribute(&h, &many, b"empty_str");
    assert_eq!((a.kind, a.data_len), (zt_value_kind::ZT_VALUE_TEXT, 0));
    let a = attribute(&h, &find(&h, b"dense_single_attr"), b"note");
    assert_eq!(unsafe { bytes_at(a.data.cast(), a.data_len) }, b"hello");
}
