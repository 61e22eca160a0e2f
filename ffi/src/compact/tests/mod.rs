//! The compact build's C functions against the full library's, on every
//! `.zt` file under `tests/`, on files built by hand (`files.rs`) and on
//! byte mutations of the v1.x ones: the same open status (v0.1 and v2:
//! `ZT_ERR_UNSUPPORTED`), and for opened files the same answers from every
//! function the compact build exports. Where the compact build cannot do
//! what the full one does (decode zstd), what it must say instead is
//! derived here, not copied from it. Files are opened with plenty of
//! slots (the status also compared with `File::parse_with_scratch`'s, as
//! the full no-heap build calls it), none, and one per object or half as
//! many (the same, or `ZT_ERR_BUFFER_TOO_SMALL`).

mod args;
mod files;

use crate as s;
use crate::compact as c;
use crate::{zt_attribute, zt_component_info, zt_file_storage, zt_object, zt_object_info, zt_slot, zt_status};
use crate::{ZT_NUL_TERMINATED, ZT_VERIFY_ALL, ZT_VERIFY_ALLOW_UNVERIFIABLE, ZT_VERIFY_DATA, ZT_VERIFY_DIGESTS, ZT_VERIFY_STRICT};
use core::ffi::c_char;
use core::ptr::{null, null_mut};
use std::ffi::CStr;
use std::path::{Path, PathBuf};
use ztensor_core::compact::Kind;
use ztensor_core::{Layout, Tail};
use zt_status::*;

/// A compact handle and the memory it lives in (kept in place).
struct Compact {
    _storage: Box<zt_file_storage>,
    _slots: Vec<zt_slot>,
    f: *mut c::zt_file,
    status: zt_status,
}

fn open_compact(bytes: &[u8], slots: usize) -> Compact {
    // SAFETY: plain integers; all zero is a valid value.
    let mut storage: Box<zt_file_storage> = Box::new(unsafe { core::mem::zeroed() });
    let mut v: Vec<zt_slot> = (0..slots).map(|_| zt_slot { words: [0; 2] }).collect();
    let p = if slots == 0 { null_mut() } else { v.as_mut_ptr() };
    let mut f = 1 as *mut c::zt_file;
    let status = unsafe { c::zt_open_mem_into(bytes.as_ptr(), bytes.len(), &mut *storage, p, slots, &mut f) };
    assert_eq!(f.is_null(), status != ZT_OK, "`*out` is set exactly on success");
    Compact { _storage: storage, _slots: v, f, status }
}

/// A handle of the full library (`zt_open_mem`), closed on drop.
struct Std {
    f: *mut s::zt_file,
    status: zt_status,
}

impl Drop for Std {
    fn drop(&mut self) {
        unsafe { s::zt_close(self.f) }
    }
}

fn open_std(bytes: &[u8]) -> Std {
    let mut f = null_mut();
    let status = unsafe { s::zt_open_mem(bytes.as_ptr(), bytes.len(), &mut f) };
    Std { f, status }
}

/// The full no-heap build's open status with `slots` slots.
fn no_heap_status(bytes: &[u8], slots: usize) -> zt_status {
    match ztensor_core::File::parse_with_scratch(bytes, &mut vec![[0u64; 2]; slots]) {
        Ok(_) => ZT_OK,
        Err(e) => crate::guard::status_of(e.kind(), crate::guard::Phase::Open),
    }
}

/// What `zt_last_error` calls a fault of `kind`: its phrase, or (built without
/// `texts`) its number, the header's `ZT_FAULT_*`.
fn said(kind: Kind) -> String {
    if !cfg!(feature = "texts") {
        format!("fault {}", kind as u32)
    } else {
        kind.message().to_string()
    }
}

/// What `zt_last_error` says of the C refusal `m` whose text is `text`: the
/// text, or (without `texts`) its number, the header's `ZT_REFUSAL_*`.
fn refused(m: c::Msg, text: &str) -> String {
    if !cfg!(feature = "texts") {
        format!("refusal {}", m as u32)
    } else {
        text.to_string()
    }
}

fn last_error() -> String {
    unsafe { CStr::from_ptr(crate::zt_last_error()) }.to_string_lossy().into_owned()
}

/// Bytes at `p` (NULL: none).
unsafe fn text<'a>(p: *const c_char, n: usize) -> Option<&'a [u8]> {
    (!p.is_null()).then(|| unsafe { core::slice::from_raw_parts(p.cast(), n) })
}

type AttrKey<'a> = ((usize, usize, usize, usize, usize, usize), (u32, bool, bool, i64, u64, u64), (usize, usize, usize));

fn attr_key(a: &zt_attribute) -> AttrKey<'static> {
    (
        (a.key as usize, a.key_len, a.key_cbor as usize, a.key_cbor_len, a.cbor as usize, a.cbor_len),
        (a.kind as u32, a.has_int, a.bool_value, a.int_value, a.uint_value, a.float_value.to_bits()),
        (a.data as usize, a.data_len, a.count),
    )
}

fn object_key(i: &zt_object_info) -> impl PartialEq + std::fmt::Debug {
    let format = unsafe { text(i.format, i.format_len) }.map(<[u8]>::to_vec);
    ((i.name as usize, i.name_len), format, i.format_kind, (i.ndim, i.numel, i.component_count, i.attribute_count))
}

fn component_key(c: &zt_component_info) -> impl PartialEq + std::fmt::Debug {
    let t = |p, n| unsafe { text(p, n) }.map(<[u8]>::to_vec);
    (
        (t(c.role, c.role_len), c.dtype, c.encoding, t(c.logical_type, c.logical_type_len)),
        (c.offset, c.length, c.uncompressed_length, c.has_uncompressed_length),
        (c.big_endian, c.has_decoded_length, c.decoded_length),
        (t(c.digest, c.digest_len), c.digest as usize, c.digest_over_decoded),
        (t(c.encoding_id, c.encoding_id_len), c.shard as usize, c.shard_len),
    )
}

fn zeroed<T>() -> T {
    // SAFETY: used for the C structs here (integers, pointers, bools, enums whose 0 is a value).
    unsafe { core::mem::zeroed() }
}

/// The attributes of `so` / `co` (NULL: the file's) say the same.
unsafe fn compare_attributes(l: &str, sf: *mut s::zt_file, so: *const zt_object, cf: *mut c::zt_file, co: *const zt_object) {
    let (mut sn, mut cn) = (usize::MAX, usize::MAX);
    unsafe {
        assert_eq!(s::zt_attribute_count(sf, so, &mut sn), ZT_OK);
        assert_eq!(c::zt_attribute_count(cf, co, &mut cn), ZT_OK, "{l}: attribute count: {}", last_error());
    }
    assert_eq!(sn, cn, "{l}: attribute count");
    for i in 0..=sn {
        let (mut sa, mut ca) = (zeroed::<zt_attribute>(), zeroed::<zt_attribute>());
        let (ss, cs) = unsafe { (s::zt_attribute_at(sf, so, i, &mut sa), c::zt_attribute_at(cf, co, i, &mut ca)) };
        assert_eq!((ss, attr_key(&sa)), (cs, attr_key(&ca)), "{l}: attribute {i}");
        if ss != ZT_OK {
            assert_eq!((i, ss), (sn, ZT_ERR_INVALID_ARGUMENT));
            continue;
        }
        let Some(key) = (unsafe { text(sa.key, sa.key_len) }) else { continue };
        let (ss, cs) = unsafe {
            (
                s::zt_attribute_find(sf, so, key.as_ptr().cast(), key.len(), &mut sa),
                c::zt_attribute_find(cf, co, key.as_ptr().cast(), key.len(), &mut ca),
            )
        };
        assert_eq!((ss, attr_key(&sa)), (cs, attr_key(&ca)), "{l}: attribute {:?}", String::from_utf8_lossy(key));
        assert_eq!(ss, ZT_OK);
    }
    let (mut sa, mut ca) = (zeroed::<zt_attribute>(), zeroed::<zt_attribute>());
    let missing = c"no such key \u{1}";
    unsafe {
        assert_eq!(s::zt_attribute_find(sf, so, missing.as_ptr(), ZT_NUL_TERMINATED, &mut sa), ZT_ERR_NOT_FOUND);
        assert_eq!(c::zt_attribute_find(cf, co, missing.as_ptr(), ZT_NUL_TERMINATED, &mut ca), ZT_ERR_NOT_FOUND, "{l}");
    }
    assert_eq!(attr_key(&ca), attr_key(&zeroed()), "{l}: zeroed on failure");
}

/// What `zt_component_read` answers for component `ci` into `cap` bytes.
unsafe fn compare_read(
    l: &str,
    (sf, so): (*mut s::zt_file, &zt_object),
    (cf, co): (*mut c::zt_file, &zt_object),
    ci: &zt_component_info,
    cap: Option<usize>,
) {
    let role = unsafe { text(ci.role, ci.role_len) }.unwrap();
    let n = cap.unwrap_or(0);
    let (mut sbuf, mut cbuf) = (vec![0xa5u8; n], vec![0x5au8; n]);
    let (sp, cp) = if cap.is_some() { (sbuf.as_mut_ptr().cast(), cbuf.as_mut_ptr().cast()) } else { (null_mut(), null_mut()) };
    let (mut sw, mut cw) = (usize::MAX, usize::MAX);
    let (ss, cs) = unsafe {
        (
            s::zt_component_read(sf, so, role.as_ptr().cast(), role.len(), sp, n, &mut sw),
            c::zt_component_read(cf, co, role.as_ptr().cast(), role.len(), cp, n, &mut cw),
        )
    };
    let l = format!("{l}: read {:?} into {n} bytes", String::from_utf8_lossy(role));
    if ci.encoding == crate::zt_encoding::ZT_ENCODING_RAW {
        // The one allowed difference: the full library checks a part's
        // digest as it reads it (verify on read); the no-heap builds leave
        // that to zt_verify and zt_component_verify (docs/embedded.md).
        // (A malformed digest cannot be checked: a format error there.)
        if ci.digest_len > 0 && matches!(ss, ZT_ERR_DIGEST_MISMATCH | ZT_ERR_FORMAT) && cs == ZT_OK {
            assert_eq!(cw, n, "{l}");
            return;
        }
        assert_eq!((ss, sw), (cs, cw), "{l}: {}", last_error());
        let expected = if n as u64 >= ci.length { ZT_OK } else { ZT_ERR_BUFFER_TOO_SMALL };
        // (v2: a part of an unknown logical type is not decoded, bool and
        // f4_e2m1 bytes are checked: what the full library says, above.)
        let typed = !ci.logical_type.is_null() && matches!(cs, ZT_ERR_UNSUPPORTED | ZT_ERR_CORRUPT_DATA);
        assert!(cs == expected || typed, "{l}: {cs:?}");
        if cs == ZT_OK {
            assert_eq!(sbuf, cbuf, "{l}: bytes");
        }
        return;
    }
    // zstd: what is decided before decoding is the full library's answer;
    // decoding itself is ZT_ERR_UNSUPPORTED.
    let declared = ci.has_decoded_length.then_some(ci.decoded_length);
    let implausible = declared.is_some_and(|d| {
        d > ci.length.saturating_mul(ztensor_core::read::MAX_ZSTD_RATIO).saturating_add(ztensor_core::read::ZSTD_MAX_BLOCK)
    });
    if implausible {
        assert_eq!((cs, cw), (ZT_ERR_CORRUPT_DATA, 0), "{l}");
        assert_eq!((ss, sw), (cs, cw), "{l}: the full library");
    } else if declared.is_some_and(|d| (n as u64) < d) {
        assert_eq!((cs, cw as u64), (ZT_ERR_BUFFER_TOO_SMALL, declared.unwrap()), "{l}");
        assert_eq!((ss, sw), (cs, cw), "{l}: the full library");
    } else {
        assert_eq!((cs, cw), (ZT_ERR_UNSUPPORTED, 0), "{l}: {}", last_error());
        let want = format!("{} (manifest byte ", said(Kind::Zstd));
        assert!(last_error().starts_with(&want), "{l}: {}", last_error());
    }
}

/// Everything the two handles say about the same file agrees; objects at
/// positions that are multiples of `stride` are compared.
unsafe fn compare_open(l: &str, sf: *mut s::zt_file, cf: *mut c::zt_file, stride: usize) {
    let count = unsafe { s::zt_object_count(sf) };
    assert_eq!(unsafe { c::zt_object_count(cf) }, count, "{l}: object count");
    let (mut si, mut ci) = (zeroed::<crate::zt_file_info>(), zeroed::<crate::zt_file_info>());
    unsafe {
        assert_eq!(s::zt_file_get_info(sf, &mut si), ZT_OK);
        assert_eq!(c::zt_file_get_info(cf, &mut ci), ZT_OK);
    }
    let info = |i: &crate::zt_file_info| {
        (i.version_major, i.version_minor, i.version_patch, i.mode, i.object_count, i.attribute_count)
    };
    assert_eq!(info(&si), info(&ci), "{l}: file info");
    assert_eq!((si.file_length, si.manifest_offset, si.manifest_length), (ci.file_length, ci.manifest_offset, ci.manifest_length));
    unsafe { compare_attributes(&format!("{l}: file"), sf, null(), cf, null()) };
    let (mut zstd, mut seekable) = (false, false);
    for i in (0..count).step_by(stride) {
        let (mut so, mut co) = (zt_object { index: 0, owner: 0 }, zt_object { index: 0, owner: 0 });
        unsafe {
            assert_eq!(s::zt_object_at(sf, i, &mut so), ZT_OK);
            assert_eq!(c::zt_object_at(cf, i, &mut co), ZT_OK);
        }
        assert_eq!(co.index, i);
        let (mut sn, mut sl, mut cn, mut cl) = (null(), 0, null(), 0);
        unsafe {
            assert_eq!(s::zt_object_name(sf, &so, &mut sn, &mut sl), ZT_OK);
            assert_eq!(c::zt_object_name(cf, &co, &mut cn, &mut cl), ZT_OK);
        }
        assert_eq!((sn, sl), (cn, cl), "{l}: name of object {i}");
        let name = unsafe { text(sn, sl) }.unwrap();
        let l = format!("{l}: object {i} {:?}", String::from_utf8_lossy(name));
        let l = l.as_str();
        // Found by name (names are unique), at the same position.
        let mut found = zt_object { index: usize::MAX, owner: 0 };
        assert_eq!(unsafe { c::zt_find(cf, sn, sl, &mut found) }, ZT_OK, "{l}: find");
        assert_eq!((found.index, found.owner), (i, co.owner), "{l}: find");
        let (mut soi, mut coi) = (zeroed::<zt_object_info>(), zeroed::<zt_object_info>());
        unsafe {
            assert_eq!(s::zt_object_get_info(sf, &so, &mut soi), ZT_OK);
            assert_eq!(c::zt_object_get_info(cf, &co, &mut coi), ZT_OK);
        }
        assert_eq!(object_key(&soi), object_key(&coi), "{l}: object info");
        // The shape: asked for, too small, whole.
        let (mut snd, mut cnd) = (usize::MAX, usize::MAX);
        let (ss, cs) = unsafe { (s::zt_object_shape(sf, &so, null_mut(), 0, &mut snd), c::zt_object_shape(cf, &co, null_mut(), 0, &mut cnd)) };
        assert_eq!((ss, snd), (cs, cnd), "{l}: shape size");
        let (mut sd, mut cd) = (vec![u64::MAX; snd], vec![u64::MAX - 1; cnd]);
        let (ss, cs) =
            unsafe { (s::zt_object_shape(sf, &so, sd.as_mut_ptr(), snd, &mut snd), c::zt_object_shape(cf, &co, cd.as_mut_ptr(), cnd, null_mut())) };
        assert_eq!((ss, cs, &sd), (ZT_OK, ZT_OK, &cd), "{l}: shape");
        unsafe { compare_attributes(l, sf, &so, cf, &co) };
        for j in 0..=soi.component_count {
            let (mut sci, mut cci) = (zeroed::<zt_component_info>(), zeroed::<zt_component_info>());
            let (ss, cs) = unsafe { (s::zt_component_at(sf, &so, j, &mut sci), c::zt_component_at(cf, &co, j, &mut cci)) };
            assert_eq!((ss, component_key(&sci)), (cs, component_key(&cci)), "{l}: component {j}");
            if ss != ZT_OK {
                assert_eq!((j, ss), (soi.component_count, ZT_ERR_INVALID_ARGUMENT));
                continue;
            }
            zstd |= matches!(cci.encoding, crate::zt_encoding::ZT_ENCODING_ZSTD | crate::zt_encoding::ZT_ENCODING_ZSTD_SEEKABLE);
            // (v2: a zstd-seekable part's digest covers its decoded bytes.)
            seekable |= cci.encoding == crate::zt_encoding::ZT_ENCODING_ZSTD_SEEKABLE;
            let role = unsafe { text(cci.role, cci.role_len) }.unwrap();
            let (rp, rl) = (role.as_ptr().cast::<c_char>(), role.len());
            let (mut sci, mut cci2) = (zeroed::<zt_component_info>(), zeroed::<zt_component_info>());
            let (ss, cs) = unsafe { (s::zt_component(sf, &so, rp, rl, &mut sci), c::zt_component(cf, &co, rp, rl, &mut cci2)) };
            assert_eq!((ss, cs), (ZT_OK, ZT_OK), "{l}: component by role");
            assert_eq!(component_key(&sci), component_key(&cci2), "{l}: component by role");
            let (mut sp, mut sn, mut cp, mut cn) = (null(), 0, null(), 0);
            let (ss, cs) = unsafe {
                (s::zt_component_ptr(sf, &so, rp, rl, &mut sp, &mut sn), c::zt_component_ptr(cf, &co, rp, rl, &mut cp, &mut cn))
            };
            assert_eq!((ss, sp, sn), (cs, cp, cn), "{l}: zero-copy {:?}", String::from_utf8_lossy(role));
            let raw = cci.encoding == crate::zt_encoding::ZT_ENCODING_RAW;
            assert_eq!(cs, if raw { ZT_OK } else { ZT_ERR_NOT_ZERO_COPY });
            let caps = [None, Some(0), Some(cci.decoded_length.saturating_sub(1) as usize), Some(cci.decoded_length as usize)];
            for cap in caps.into_iter().filter(|c| c.map_or(true, |n| n <= 1 << 24)) {
                unsafe { compare_read(l, (sf, &so), (cf, &co), &cci, cap) };
            }
        }
        let missing = c"no such role";
        let (mut sci, mut cci) = (zeroed::<zt_component_info>(), zeroed::<zt_component_info>());
        let (ss, cs) = unsafe {
            (
                s::zt_component(sf, &so, missing.as_ptr(), ZT_NUL_TERMINATED, &mut sci),
                c::zt_component(cf, &co, missing.as_ptr(), ZT_NUL_TERMINATED, &mut cci),
            )
        };
        assert_eq!((ss, cs), (ZT_ERR_NOT_FOUND, ZT_ERR_NOT_FOUND), "{l}: missing role");
    }
    // Names that are not there.
    for name in [&b"no such object"[..], b"", b"\xff\xfe"] {
        let (mut so, mut co) = (zt_object { index: 7, owner: 7 }, zt_object { index: 7, owner: 7 });
        let (ss, cs) = unsafe {
            (s::zt_find(sf, name.as_ptr().cast(), name.len(), &mut so), c::zt_find(cf, name.as_ptr().cast(), name.len(), &mut co))
        };
        assert_eq!((ss, cs), (ZT_ERR_NOT_FOUND, ZT_ERR_NOT_FOUND), "{l}: find {name:?}");
        assert_eq!((co.index, co.owner), (7, 7), "{l}: `*out` untouched");
    }
    let mut co = zt_object { index: 0, owner: 0 };
    assert_eq!(unsafe { c::zt_object_at(cf, count, &mut co) }, ZT_ERR_INVALID_ARGUMENT);
    unsafe { compare_verify(l, sf, cf, zstd, seekable) };
}

/// `zt_verify_report` with every flag set: the same counts and statuses,
/// except that the compact build does not decode zstd (a data problem
/// for each object that has zstd data, `ZT_ERR_UNSUPPORTED`; in v2, whose
/// digests cover the decoded bytes, for each zstd-seekable part when
/// digests are checked too, and those digests are not counted as checked).
unsafe fn compare_verify(l: &str, sf: *mut s::zt_file, cf: *mut c::zt_file, zstd: bool, seekable: bool) {
    let flag_sets = [0, ZT_VERIFY_DIGESTS, ZT_VERIFY_DATA, ZT_VERIFY_ALL, ZT_VERIFY_STRICT, ZT_VERIFY_DIGESTS | ZT_VERIFY_STRICT];
    let more = [ZT_VERIFY_ALL | ZT_VERIFY_STRICT, ZT_VERIFY_ALLOW_UNVERIFIABLE, ZT_VERIFY_ALL | ZT_VERIFY_ALLOW_UNVERIFIABLE];
    // Refused: an unknown flag, and strict with allow-unverifiable.
    let refused = [16, ZT_VERIFY_STRICT | ZT_VERIFY_ALLOW_UNVERIFIABLE];
    for flags in flag_sets.into_iter().chain(more).chain(refused) {
        let bad = refused.contains(&flags);
        let (mut sc, mut cc) = (zeroed::<crate::zt_verify_counts>(), zeroed::<crate::zt_verify_counts>());
        let ss = unsafe { s::zt_verify_report(sf, flags, &mut sc) };
        let cs = unsafe { c::zt_verify_report(cf, flags, &mut cc) };
        let message = last_error();
        assert_eq!(unsafe { c::zt_verify(cf, flags) }, cs, "{l}: zt_verify, flags {flags}");
        let checked = |c: &crate::zt_verify_counts| if seekable { 0 } else { c.digests_checked };
        let counts = |c: &crate::zt_verify_counts| (c.objects, c.components, checked(c), c.unverifiable);
        let l = format!("{l}: verify flags {flags}: std {ss:?} {}, compact {cs:?} {}", sc.problems, cc.problems);
        assert_eq!(counts(&sc), counts(&cc), "{l}: counts (objects, components, digests checked, unverifiable)");
        assert!(cc.digests_checked <= sc.digests_checked, "{l}");
        let data = flags & ZT_VERIFY_ALL == 0 || flags & ZT_VERIFY_DATA != 0;
        let digests = flags & ZT_VERIFY_ALL == 0 || flags & ZT_VERIFY_DIGESTS != 0;
        if zstd && (data || seekable && digests) && !bad {
            assert!(cs != ZT_OK && (cs == ss || cs == ZT_ERR_UNSUPPORTED), "{l}");
            assert!(cc.problems >= sc.problems.max(1), "{l}");
        } else {
            assert_eq!((ss, sc.problems), (cs, cc.problems), "{l}");
        }
        if cs != ZT_OK && !bad {
            let count = format!("{} problem{} found; first: ", cc.problems, if cc.problems == 1 { "" } else { "s" });
            assert!(message.starts_with(&count) && message.ends_with(')'), "{l}: {message}");
        }
    }
}

/// Every comparison on the file `bytes`, opened with plenty of slots, and
/// the open with none; `thorough`: also opened with one slot per object
/// and half as many, and everything compared again.
fn check_file(l: &str, bytes: &[u8], thorough: bool) {
    let st = open_std(bytes);
    let tail = Tail::from_file(bytes).ok();
    let layout = tail.map(|t| t.layout);
    // A v2 sharded file or data shard, which the compact build refuses
    // (its parts lie in other files) once it finds it valid.
    let sharded = layout == Some(Layout::V2)
        && st.status == ZT_OK
        && ztensor_core::v2::Manifest::parse(bytes).is_ok_and(|m| m.is_data_shard() || m.shards().next().is_some());
    // What the compact build reads: v1.x, and v2 but sharded files.
    let readable =
        !matches!(layout, Some(Layout::V0)) && !sharded && (cfg!(feature = "v2") || layout != Some(Layout::V2));
    let plenty = tail.map_or(0, |t| t.manifest_len as usize) + 64;
    let full = open_compact(bytes, plenty);
    // Built without `v1-legacy` (the firmware's), v1.0 and v1.1
    // files are refused as unsupported once their version is read (a fault
    // before it, as the full library says).
    if !cfg!(feature = "v1-legacy") && layout == Some(Layout::V1) {
        let old = (st.status == ZT_OK).then(|| {
            let mut info = zeroed::<crate::zt_file_info>();
            assert_eq!(unsafe { s::zt_file_get_info(st.f, &mut info) }, ZT_OK);
            info.version_minor < 2
        });
        let version = full.status == ZT_ERR_UNSUPPORTED && last_error().starts_with(&said(Kind::Version));
        match (old, version) {
            (Some(true) | None, true) => return,
            (Some(true), false) => panic!("{l}: a v1.0/v1.1 file: {:?} {}, not unsupported (version)", full.status, last_error()),
            _ => {}
        }
    }
    let expected = if readable { st.status } else { ZT_ERR_UNSUPPORTED };
    assert_eq!(full.status, expected, "{l}: open with {plenty} slots (full library: {:?}): {}", st.status, last_error());
    if full.status != ZT_OK {
        let m = last_error();
        assert!(m.contains(" (manifest byte ") && m.ends_with(')'), "{l}: {m}");
        if !readable {
            let kind = if sharded { Kind::Sharded } else { Kind::Generation };
            assert_eq!(m, format!("{} (manifest byte 0)", said(kind)), "{l}");
        }
    }
    if !readable {
        return;
    }
    assert_eq!(full.status, no_heap_status(bytes, plenty), "{l}: the no-heap build with {plenty} slots");
    let count = if full.status == ZT_OK { unsafe { c::zt_object_count(full.f) } } else { 0 };
    if full.status == ZT_OK {
        unsafe { compare_open(l, st.f, full.f, 1) };
    }
    // Fewer slots: the same, or too few slots (what the full no-heap
    // build says of the same files; its scratch needs are the compact
    // reader's, `File::parse_with_scratch` of this std build grows its own).
    let mut opened = false;
    for n in if thorough { vec![0, count / 2, count] } else { vec![0] } {
        let h = open_compact(bytes, n);
        assert!(h.status == st.status || h.status == ZT_ERR_BUFFER_TOO_SMALL, "{l}: open with {n} slots: {h:?}", h = h.status);
        assert!(!opened || h.status == ZT_OK, "{l}: refused with {n} slots, opened with fewer");
        opened = h.status == ZT_OK;
        if h.status == ZT_OK && thorough {
            // Without an index, lookups scan: sample a large file.
            let stride = if n < count { (count / 64).max(1) } else { 1 };
            unsafe { compare_open(&format!("{l} ({n} slots)"), st.f, h.f, stride) };
        }
    }
}

/// Every `.zt` file under `dir`, recursively.
fn zt_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            zt_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "zt") {
            out.push(p);
        }
    }
}

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests");
    let mut paths = Vec::new();
    zt_files(&root, &mut paths);
    paths.sort();
    paths.into_iter().map(|p| (p.strip_prefix(&root).unwrap().display().to_string(), std::fs::read(&p).unwrap())).collect()
}

#[test]
fn every_fixture_says_the_same_through_both_builds() {
    let all = fixtures();
    assert!(all.len() >= 300, "found only {} .zt files under tests/", all.len());
    let mut v1 = 0;
    for (name, bytes) in &all {
        check_file(name, bytes, true);
        v1 += usize::from(bytes.starts_with(b"ZTEN1000"));
    }
    assert!(v1 >= 20, "only {v1} v1.x fixtures");
}

#[test]
fn files_by_hand_say_the_same_through_both_builds() {
    let files = files::by_hand();
    let mut opened = 0;
    for (name, bytes) in &files {
        check_file(name, bytes, true);
        opened += usize::from(open_std(bytes).status == ZT_OK);
    }
    // Most open; the others are refused by both, as intended.
    assert!(opened >= 20, "{opened} of {} opened", files.len());
    let status = |name: &str, slots: usize| {
        let (_, b) = files.iter().find(|(n, _)| n == name).unwrap();
        open_compact(b, slots).status
    };
    // What the files were built to show.
    assert_eq!(status("duplicate names out of order", 8), ZT_ERR_FORMAT);
    assert_eq!(status("duplicate names out of order", 0), ZT_ERR_BUFFER_TOO_SMALL);
    assert_eq!(status("duplicate names in a row", 8), ZT_ERR_FORMAT);
    assert_eq!(status("overlapping blobs", 8), ZT_ERR_FORMAT);
    assert_eq!(status("tied blobs", 8), ZT_OK);
    assert_eq!(status("attributes of many keys", 0), ZT_ERR_BUFFER_TOO_SMALL);
    assert_eq!(status("attributes of many keys", 64), ZT_OK);
    assert_eq!(status("attributes with a key twice", 64), ZT_ERR_FORMAT);
    assert_eq!(status("version 2 in a v1 container", 0), ZT_ERR_UNSUPPORTED);
    for (name, want) in [
        ("digests", ZT_ERR_DIGEST_MISMATCH),
        ("sparse good", ZT_OK),
        ("sparse bad column", ZT_ERR_CORRUPT_DATA),
        ("sparse decreasing indptr", ZT_ERR_CORRUPT_DATA),
        ("sparse bad coordinate", ZT_ERR_CORRUPT_DATA),
        ("sparse negative index", ZT_ERR_CORRUPT_DATA),
        ("bool and formats", ZT_ERR_CORRUPT_DATA),
        ("zstd 1.2.0", ZT_ERR_UNSUPPORTED),
    ] {
        let (_, b) = files.iter().find(|(n, _)| n == name).unwrap();
        let h = open_compact(b, 64);
        // (A v1.1 file, signed indices allowed: refused by a v1.2-only build.)
        if !cfg!(feature = "v1-legacy") && name == "sparse negative index" {
            assert_eq!(h.status, ZT_ERR_UNSUPPORTED, "{name}");
            continue;
        }
        assert_eq!(h.status, ZT_OK, "{name}");
        assert_eq!(unsafe { c::zt_verify(h.f, 0) }, want, "{name}: {}", last_error());
    }
    // The zstd frame made by hand decodes in the full library: the compact
    // build's ZT_ERR_UNSUPPORTED for it is the difference, not a bad frame.
    let (_, b) = files.iter().find(|(n, _)| n == "zstd 1.2.0").unwrap();
    let st = open_std(b);
    let (mut o, mut buf, mut w) = (zt_object { index: 0, owner: 0 }, [0u8; 32], 0);
    unsafe {
        assert_eq!(s::zt_find(st.f, c"dense".as_ptr(), ZT_NUL_TERMINATED, &mut o), ZT_OK);
        let read = s::zt_component_read(st.f, &o, c"data".as_ptr(), ZT_NUL_TERMINATED, buf.as_mut_ptr().cast(), 32, &mut w);
        assert_eq!((read, w), (ZT_OK, 32));
    }
    assert!(buf.iter().enumerate().all(|(i, &x)| x == i as u8));
    // Digests: 2 good, 2 mismatches, 1 malformed, 1 of an unknown algorithm.
    let (_, b) = files.iter().find(|(n, _)| n == "digests").unwrap();
    let h = open_compact(b, 64);
    // The unknown algorithm is a problem unless allowed (strict: the default).
    let allowed = ZT_VERIFY_DIGESTS | ZT_VERIFY_ALLOW_UNVERIFIABLE;
    for (flags, want, problems) in [
        (allowed, ZT_ERR_DIGEST_MISMATCH, 3),
        (ZT_VERIFY_DIGESTS, ZT_ERR_DIGEST_MISMATCH, 4),
        (ZT_VERIFY_DIGESTS | ZT_VERIFY_STRICT, ZT_ERR_DIGEST_MISMATCH, 4),
    ] {
        let mut counts = zeroed::<crate::zt_verify_counts>();
        assert_eq!(unsafe { c::zt_verify_report(h.f, flags, &mut counts) }, want);
        assert_eq!((counts.objects, counts.digests_checked, counts.unverifiable, counts.problems), (6, 2, 1, problems));
        let m = last_error();
        assert!(m.starts_with(&format!("{problems} problems found; first: {} (manifest byte ", said(Kind::DigestMismatch))), "{m}");
    }
}

/// Byte mutations of the manifests of small v1.x files (fixtures and files
/// by hand): whatever the full reader says of each, the compact one says too.
#[test]
fn mutated_manifests_say_the_same_through_both_builds() {
    let mut files = fixtures();
    files.extend(files::by_hand());
    let mut checked = 0;
    for (name, bytes) in files.iter().filter(|(_, b)| b.starts_with(b"ZTEN1000") && b.len() < 8192) {
        let Ok(tail) = Tail::from_file(bytes) else { continue };
        let start = tail.manifest_offset as usize;
        let len = tail.manifest_len as usize;
        // Every byte of a small manifest, every other one of a larger one.
        for at in (start..start + len).step_by(if len <= 512 { 1 } else { 2 }) {
            // Two flips of each byte of a small manifest, one (in turn) of a larger one.
            let flips = if len <= 512 { &[0x01u8, 0x80][..] } else { &[[0x01u8, 0x20, 0x80][at % 3]][..] };
            for &flip in flips {
                let mut b = bytes.clone();
                b[at] ^= flip;
                check_file(&format!("{name}, manifest byte {} ^ {flip:#04x}", at - start), &b, false);
                checked += 1;
            }
        }
    }
    assert!(checked > 5_000, "{checked} mutations");
}
