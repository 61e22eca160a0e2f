//! The writer's entry points (a v1.2 writer here; v2 in `writer_v2.rs`):
//! each pointer argument NULL in turn, names and keys not UTF-8 or with a
//! NUL inside, shapes, data and index arrays at odd addresses (read
//! unaligned, as the header allows), counts whose byte size overflows,
//! options and attributes through their structs, every attribute setter,
//! `zt_writer_finish` / `zt_writer_abort` (and NULL to both); then the
//! file read back through the C functions.

use super::library::{cpath, temp_dir};
use super::support::*;
use core::ffi::CStr;
use core::ptr::{null, null_mut};
use std::path::Path;
use zt_dtype::*;
use ztensor::*;

/// A new writer at `path` as `options` say (NULL: format v2, canonical).
pub fn create(path: &Path, options: *const zt_writer_options) -> *mut zt_writer {
    let mut w = dangling();
    ok(unsafe { zt_writer_create_with_options(cpath(path).as_ptr(), options, &mut w) });
    w
}

/// A new v1.2 writer at `path` (`ZT_FORMAT_VERSION_1_2`).
pub fn create_v1_2(path: &Path) -> *mut zt_writer {
    let mut o = core::mem::MaybeUninit::<zt_writer_options>::uninit();
    ok(unsafe { zt_writer_options_init(o.as_mut_ptr()) });
    // SAFETY: written by the call.
    let o = zt_writer_options {
        format_version: zt_format_version::ZT_FORMAT_VERSION_1_2 as u32,
        ..unsafe { o.assume_init() }
    };
    create(path, &o)
}

/// A component to write: `role` (NULL when `None`), `dtype`, the bytes.
pub fn comp(role: Option<&[u8]>, dtype: zt_dtype, data: &[u8]) -> zt_write_component {
    let (r, rl) = role.map_or((null(), 0), s);
    zt_write_component {
        role: r,
        role_len: rl,
        dtype: dtype as u32,
        data: data.as_ptr().cast(),
        len: data.len(),
        ..zeroed()
    }
}

/// An attribute `key` of `kind`, its value fields zero.
pub fn attr(key: &[u8], kind: zt_attr_kind) -> zt_write_attribute {
    let (k, kl) = s(key);
    zt_write_attribute { key: k, key_len: kl, kind: kind as u32, ..zeroed() }
}

/// `v`'s elements as little-endian bytes.
pub fn le<T: Copy, const N: usize>(v: [T; N], to: fn(T) -> Vec<u8>) -> Vec<u8> {
    v.into_iter().flat_map(to).collect()
}

/// `zt_writer_add_dense` of `name` with `data` and `opts`.
pub fn dense(
    w: *mut zt_writer,
    name: &[u8],
    dtype: u32,
    shape: *const u64,
    ndim: usize,
    data: (*const u8, usize),
    opts: *const zt_write_options,
) -> zt_status {
    let (n, nl) = s(name);
    unsafe { zt_writer_add_dense(w, n, nl, dtype, shape, ndim, data.0.cast(), data.1, opts) }
}

/// The file attributes every writer test sets through the setters, and
/// the refusals of each.
pub fn file_attributes(w: *mut zt_writer) {
    unsafe {
        ok(zt_writer_set_attribute_text(w, c"framework".as_ptr(), NUL, c"c".as_ptr(), NUL));
        // An explicit length shorter than the buffer: "epoch" of "epochs".
        ok(zt_writer_set_attribute_int(w, b"epochs".as_ptr().cast(), 5, -7));
        ok(zt_writer_set_attribute_uint(w, c"big".as_ptr(), NUL, u64::MAX));
        ok(zt_writer_set_attribute_float(w, c"lr".as_ptr(), NUL, 0.5));
        ok(zt_writer_set_attribute_bool(w, c"ok".as_ptr(), NUL, true));
        ok(zt_writer_set_attribute_cbor(w, c"list".as_ptr(), NUL, [0x82, 0x01, 0xf6].as_ptr(), 3));
        let mut raw = attr(b"raw", zt_attr_kind::ZT_ATTR_BYTES);
        (raw.data, raw.data_len) = ([1u8, 2].as_ptr().cast(), 2);
        ok(zt_writer_set_attribute(w, &raw));
        ok(zt_writer_set_attribute(w, &attr(b"none", zt_attr_kind::ZT_ATTR_NULL)));
        // Set again: replaced in place.
        ok(zt_writer_set_attribute_text(w, c"framework".as_ptr(), NUL, b"c-api!".as_ptr().cast(), 5));
        invalid(zt_writer_set_attribute_int(null_mut(), c"k".as_ptr(), NUL, 1), "`writer` is NULL");
        invalid(zt_writer_set_attribute_int(w, null(), 1, 1), "`key` is NULL or not UTF-8");
        invalid(zt_writer_set_attribute_bool(w, b"\xff".as_ptr().cast(), 1, true), "`key` is NULL or not UTF-8");
        invalid(
            zt_writer_set_attribute_text(w, c"t".as_ptr(), NUL, b"\xff".as_ptr().cast(), 1),
            "`value` is NULL or not UTF-8",
        );
        invalid(zt_writer_set_attribute_text(w, c"t".as_ptr(), NUL, null(), 1), "`value` is NULL or not UTF-8");
        invalid(zt_writer_set_attribute_cbor(w, c"c".as_ptr(), NUL, null(), 2), "`cbor` is NULL");
        invalid(zt_writer_set_attribute_cbor(w, c"c".as_ptr(), NUL, [1u8].as_ptr(), NUL), "`cbor` is NULL");
        // Not exactly one well-formed CBOR item.
        expect(zt_writer_set_attribute_cbor(w, c"c".as_ptr(), NUL, [0x82, 0x01].as_ptr(), 2), ZT_ERR_FORMAT, "");
        expect(zt_writer_set_attribute_cbor(w, c"c".as_ptr(), NUL, [0x01, 0x02].as_ptr(), 2), ZT_ERR_FORMAT, "");
        invalid(zt_writer_set_attribute(w, null()), "`attr` is NULL");
    }
    for bad in bad_attributes() {
        invalid(unsafe { zt_writer_set_attribute(w, &bad.0) }, bad.1);
    }
}

/// Attributes refused, with what the message says.
pub fn bad_attributes() -> Vec<(zt_write_attribute, &'static str)> {
    let mut kind = attr(b"k", zt_attr_kind::ZT_ATTR_INT);
    kind.kind = 99;
    let mut text = attr(b"k", zt_attr_kind::ZT_ATTR_TEXT);
    (text.data, text.data_len) = (b"\xff".as_ptr().cast(), 1);
    let mut bytes = attr(b"k", zt_attr_kind::ZT_ATTR_BYTES);
    bytes.data_len = 3;
    let mut key = attr(b"k", zt_attr_kind::ZT_ATTR_NULL);
    key.key = null();
    vec![
        (kind, "attribute `kind` is not a zt_attr_kind"),
        (text, "attribute text is NULL or not UTF-8"),
        (bytes, "attribute bytes are NULL"),
        (key, "attribute `key` is NULL or not UTF-8"),
        (attr(b"\xff", zt_attr_kind::ZT_ATTR_NULL), "attribute `key` is NULL or not UTF-8"),
    ]
}

/// The file attributes `file_attributes` set, read back from `h`.
pub fn check_file_attributes(h: *const zt_file) {
    let find = |key: &CStr| {
        let mut a = zeroed::<zt_attribute>();
        ok(unsafe { zt_attribute_find(h, null(), key.as_ptr(), NUL, &mut a) });
        a
    };
    let mut n = 0;
    ok(unsafe { zt_attribute_count(h, null(), &mut n) });
    assert_eq!(n, 8);
    let mut first = zeroed::<zt_attribute>();
    ok(unsafe { zt_attribute_at(h, null(), 0, &mut first) });
    let text = |a: &zt_attribute| unsafe { bytes_at(a.data.cast(), a.data_len) }.to_vec();
    assert_eq!(text(&first), b"c-api", "replaced in place, first");
    assert_eq!((find(c"epoch").int_value, find(c"big").uint_value, find(c"lr").float_value), (-7, u64::MAX, 0.5));
    assert!(find(c"ok").bool_value);
    assert_eq!((find(c"list").kind, find(c"list").count), (zt_value_kind::ZT_VALUE_ARRAY, 2));
    assert_eq!((find(c"raw").kind, text(&find(c"raw"))), (zt_value_kind::ZT_VALUE_BYTES, vec![1, 2]));
    assert_eq!(find(c"none").kind, zt_value_kind::ZT_VALUE_NULL);
}

pub fn dense_objects() {
    let dir = temp_dir("writer");
    let path = dir.join("out.zt");
    let w = create_v1_2(&path);
    let f32s = le([1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], |x| x.to_le_bytes().to_vec());
    let (shape, data) = (Shifted::new(&le([2u64, 3], |x| x.to_ne_bytes().to_vec())), Shifted::new(&f32s));
    let shape: *const u64 = shape.bytes().as_ptr().cast();
    let data = (data.bytes().as_ptr(), 24);
    let f32_ = ZT_DTYPE_F32 as u32;
    invalid(dense(null_mut(), b"x", f32_, shape, 2, data, null()), "`writer` is NULL");
    invalid(
        unsafe { zt_writer_add_dense(w, null(), 1, f32_, shape, 2, data.0.cast(), 24, null()) },
        "`name` is NULL or not UTF-8",
    );
    invalid(dense(w, b"\xff", f32_, shape, 2, data, null()), "`name` is NULL or not UTF-8");
    invalid(dense(w, b"x", 13, shape, 2, data, null()), "`dtype` is not a zt_dtype");
    invalid(dense(w, b"x", f32_, null(), 2, data, null()), "`shape` is NULL");
    invalid(dense(w, b"x", f32_, shape, usize::MAX / 4, data, null()), "`ndim` is over ZT_MAX_NDIM (64)");
    invalid(dense(w, b"x", f32_, shape, 2, (null(), 24), null()), "`data` is NULL");
    invalid(dense(w, b"x", f32_, shape, 2, (data.0, NUL), null()), "`data` is NULL");
    expect(dense(w, b"x", f32_, shape, 2, (data.0, 20), null()), ZT_ERR_FORMAT, "");
    expect(dense(w, b"", f32_, shape, 2, data, null()), ZT_ERR_FORMAT, "");
    // Options, each pointer and value refused in turn.
    let mut bad: Vec<(zt_write_options, &str)> = Vec::new();
    bad.push((zt_write_options { attribute_count: 1, ..zeroed() }, "`attributes` is NULL"));
    bad.push((
        zt_write_options { attribute_count: usize::MAX, attributes: dangling(), ..zeroed() },
        "`attribute_count` too large",
    ));
    bad.push((
        zt_write_options { logical_type: b"\xff".as_ptr().cast(), logical_type_len: 1, ..zeroed() },
        "`logical_type` is not UTF-8",
    ));
    bad.push((zt_write_options { encoding: 9, ..zeroed() }, "`encoding` is not a zt_encoding"));
    bad.push((zt_write_options { encoding: 1, zstd_level: 23, ..zeroed() }, "`zstd_level` is out of range"));
    bad.push((zt_write_options { digest: 9, ..zeroed() }, "`digest` is not a zt_digest"));
    bad.push((zt_write_options { digest: zt_digest::ZT_DIGEST_XXH3 as u32, ..zeroed() }, "format v2 digest"));
    bad.push((
        zt_write_options { encoding: zt_encoding::ZT_ENCODING_ZSTD_SEEKABLE as u32, ..zeroed() },
        "format v2 encoding",
    ));
    let bad_attrs = bad_attributes();
    for (a, says) in &bad_attrs {
        bad.push((zt_write_options { attributes: a, attribute_count: 1, ..zeroed() }, says));
    }
    for (o, says) in &bad {
        invalid(dense(w, b"x", f32_, shape, 2, data, o), says);
    }
    let cbor = [attr(b"c", zt_attr_kind::ZT_ATTR_CBOR)];
    expect(
        dense(
            w,
            b"x",
            f32_,
            shape,
            2,
            data,
            &zt_write_options { attributes: cbor.as_ptr(), attribute_count: 1, ..zeroed() },
        ),
        ZT_ERR_FORMAT,
        "",
    );
    // The object, with a digest and attributes of every kind.
    let mut attrs = [
        attr(b"layer", zt_attr_kind::ZT_ATTR_INT),
        attr(b"id", zt_attr_kind::ZT_ATTR_UINT),
        attr(b"scale", zt_attr_kind::ZT_ATTR_FLOAT),
        attr(b"frozen", zt_attr_kind::ZT_ATTR_BOOL),
        attr(b"note", zt_attr_kind::ZT_ATTR_TEXT),
        attr(b"blob", zt_attr_kind::ZT_ATTR_BYTES),
        attr(b"map", zt_attr_kind::ZT_ATTR_CBOR),
    ];
    (attrs[0].int_value, attrs[1].uint_value, attrs[2].float_value, attrs[3].bool_value) = (-3, 1 << 40, 0.25, true);
    (attrs[4].data, attrs[4].data_len) = (c"hé".as_ptr().cast(), NUL);
    (attrs[5].data, attrs[5].data_len) = ([0u8, 0xff].as_ptr().cast(), 2);
    (attrs[6].data, attrs[6].data_len) = ([0xa1u8, 0x61, b'a', 0x01].as_ptr().cast(), 4);
    let o = zt_write_options {
        digest: zt_digest::ZT_DIGEST_SHA256 as u32,
        attributes: attrs.as_ptr(),
        attribute_count: 7,
        ..zeroed()
    };
    ok(dense(w, b"w", f32_, shape, 2, data, &o));
    expect(dense(w, b"w", f32_, shape, 2, data, null()), ZT_ERR_FORMAT, "already added");
    // A name with a NUL inside; a scalar (NULL shape); logical type NUL-terminated.
    ok(dense(w, b"a\0b", ZT_DTYPE_U8 as u32, [2u64].as_ptr(), 1, ([1u8, 2].as_ptr(), 2), null()));
    ok(dense(w, b"scalar", ZT_DTYPE_I32 as u32, null(), 0, (7i32.to_le_bytes().as_ptr(), 4), null()));
    let fp8 = zt_write_options { logical_type: c"f8_e4m3fn".as_ptr(), logical_type_len: NUL, ..zeroed() };
    ok(dense(w, b"fp8", ZT_DTYPE_U8 as u32, [3u64].as_ptr(), 1, ([0x38u8, 0x40, 0xb8].as_ptr(), 3), &fp8));
    file_attributes(w);
    ok(unsafe { zt_writer_finish(w) });
    invalid(unsafe { zt_writer_finish(null_mut()) }, "`writer` is NULL");
    unsafe { zt_writer_abort(null_mut()) };

    // Read back through the C functions.
    let (mut f, mut n) = (dangling(), 0);
    ok(unsafe { zt_open(cpath(&path).as_ptr(), ZT_OPEN_POSITIONAL, &mut f) });
    let h = f as *const zt_file;
    let mut obj = zeroed::<zt_object>();
    let mut got = vec![0u8; 24];
    unsafe {
        assert_eq!(zt_object_count(h), 4);
        ok(zt_find(h, c"w".as_ptr(), NUL, &mut obj));
        ok(zt_component_read(h, &obj, c"data".as_ptr(), NUL, got.as_mut_ptr().cast(), 24, &mut n));
        assert_eq!(got, f32s);
        let mut checked = false;
        ok(zt_component_verify(h, &obj, c"data".as_ptr(), NUL, ZT_VERIFY_STRICT, &mut checked));
        assert!(checked);
        let mut a = zeroed::<zt_attribute>();
        ok(zt_attribute_find(h, &obj, c"note".as_ptr(), NUL, &mut a));
        assert_eq!(bytes_at(a.data.cast(), a.data_len), "hé".as_bytes());
        ok(zt_attribute_find(h, &obj, c"map".as_ptr(), NUL, &mut a));
        assert_eq!((a.kind, a.count), (zt_value_kind::ZT_VALUE_MAP, 1));
        ok(zt_attribute_count(h, &obj, &mut n));
        assert_eq!(n, 7);
        let (nul_inside, len) = s(b"a\0b");
        ok(zt_find(h, nul_inside, len, &mut obj));
        ok(zt_verify(h, 0));
    }
    check_file_attributes(h);
    unsafe { zt_close(f) };
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn abort_leaves_nothing() {
    let dir = temp_dir("abort");
    let path = dir.join("out.zt");
    let mut w = dangling();
    unsafe {
        invalid(zt_writer_create(null(), &mut w), "`path` is NULL");
        assert!(w.is_null());
        invalid(zt_writer_create(cpath(&path).as_ptr(), null_mut()), "`out` is NULL");
        expect(zt_writer_create(cpath(&dir).as_ptr(), &mut w), ZT_ERR_IO, "directory");
        ok(zt_writer_create(cpath(&path).as_ptr(), &mut w));
    }
    ok(dense(w, b"x", ZT_DTYPE_U8 as u32, [1u64].as_ptr(), 1, ([1u8].as_ptr(), 1), null()));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "the temporary file");
    unsafe { zt_writer_abort(w) };
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
