//! Hostile files: one hand-made file per validation rule, each asserting the
//! specific [`ErrorKind`] (and, where it is known, where it happened), plus
//! edge cases that must NOT be rejected.
//!
//! Every rejected file is checked three ways: [`File::parse`],
//! [`File::parse_with_scratch`] and, when the container is sound,
//! [`File::parse_tail`] from the footer and manifest alone; all three must
//! fail with the same kind.

mod common;

use common::*;
use std::time::{Duration, Instant};
use ztensor::{
    DType, Encoding, Endian, Error, ErrorKind, File, Format, LogicalType, Tail, MAX_DEPTH,
};

// ============================================================== harness

/// Parse `bytes`, which must be refused; returns the error of `File::parse`.
#[track_caller]
fn reject(bytes: &[u8]) -> Error {
    let e = match File::parse(bytes) {
        Ok(f) => panic!("hostile file accepted: {f:?}\nfile bytes: {}", hex(bytes)),
        Err(e) => e,
    };
    let mut scratch = vec![[0u64; 2]; 4096];
    match File::parse_with_scratch(bytes, &mut scratch) {
        Ok(f) => panic!("parse_with_scratch accepted what parse refused ({e}): {f:?}"),
        Err(e2) => assert_eq!(
            e2.kind(),
            e.kind(),
            "parse_with_scratch disagrees with parse"
        ),
    }
    if let Ok(tail) = Tail::from_file(bytes) {
        let m = &bytes
            [tail.manifest_offset as usize..(tail.manifest_offset + tail.manifest_len) as usize];
        let footer = &bytes[bytes.len() - 16..];
        match File::parse_tail(footer, m, bytes.len() as u64) {
            Ok(f) => panic!("parse_tail accepted what parse refused ({e}): {f:?}"),
            Err(e3) => assert_eq!(
                e3.kind(),
                e.kind(),
                "parse_tail disagrees with parse ({e} vs {e3})"
            ),
        }
    }
    e
}

/// Parse `bytes`, which must be refused with exactly `kind`.
#[track_caller]
fn reject_kind(bytes: &[u8], kind: ErrorKind) -> Error {
    let e = reject(bytes);
    assert_eq!(
        e.kind(),
        kind,
        "wrong error kind: {e}\nfile bytes: {}",
        hex(bytes)
    );
    e
}

/// Parse `bytes`, which must be refused with a kind matching a pattern.
macro_rules! reject_match {
    ($bytes:expr, $pat:pat) => {{
        let b: &[u8] = &$bytes;
        let e = reject(b);
        assert!(
            matches!(e.kind(), $pat),
            "expected {}, got {e:?}\nfile bytes: {}",
            stringify!($pat),
            hex(b)
        );
        e
    }};
}

/// Parse `bytes`, which must be accepted.
#[track_caller]
fn accept(bytes: &[u8]) -> File<'_> {
    match File::parse(bytes) {
        Ok(f) => f,
        Err(e) => panic!("valid file rejected: {e}\nfile bytes: {}", hex(bytes)),
    }
}

/// Where an error says it happened: object and role names.
#[track_caller]
fn assert_loc(e: &Error, object: Option<&str>, role: Option<&str>) {
    assert_eq!(e.object().map(|n| n.as_str()), object, "object of {e}");
    assert_eq!(e.role().map(|n| n.as_str()), role, "role of {e}");
}

fn hex(b: &[u8]) -> String {
    if b.len() > 600 {
        return format!("({} bytes) {}…", b.len(), hex(&b[..600]));
    }
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn manifest_of(file: &[u8]) -> &[u8] {
    &file[manifest_range(file)]
}

// ============================================================== builders

/// A data region with one 16-byte blob at 64.
fn blobs16() -> Blobs {
    let mut b = Blobs::new();
    assert_eq!(b.add_len(16), 64);
    b
}

/// The `data` component of a dense object map.
fn data(o: &mut Value) -> &mut Value {
    at(at(o, "components"), "data")
}

/// A file of `version` with one dense f32 `[4]` object `w` (16 bytes at 64),
/// after `edit` has changed the object map.
fn dense_file(version: &str, edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut o = dense("f32", &[4], 64, 16);
    edit(&mut o);
    v1_file(&blobs16(), &encode(&manifest(version, [("w", o)])))
}

/// Same as [`dense_file`] but the edit sees the root map.
fn root_file(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut m = manifest("1.2.0", [("w", dense("f32", &[4], 64, 16))]);
    edit(&mut m);
    v1_file(&blobs16(), &encode(&m))
}

/// The object `w` of [`dense_file`], encoded, with its `attributes` value
/// given as raw CBOR (may be malformed).
fn object_raw_attrs(attrs: &[u8]) -> Cbor {
    Cbor::new()
        .map(4)
        .text("shape")
        .value(&shape(&[4]))
        .text("format")
        .text("dense")
        .text("attributes")
        .raw(attrs)
        .text("components")
        .value(&map([("data", comp("f32", 64, 16))]))
        .take()
}

/// A v1.2 file whose object `w` has raw `attributes`.
fn file_raw_attrs(attrs: &[u8]) -> Vec<u8> {
    let m = Cbor::new()
        .map(2)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .map(1)
        .text("w")
        .raw(&object_raw_attrs(attrs).build())
        .build();
    v1_file(&blobs16(), &m)
}

/// A v1.2 file with an extra root field `x` whose value is raw CBOR.
fn file_raw_root_field(value: &[u8]) -> Vec<u8> {
    let m = Cbor::new()
        .map(3)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .value(&map([("w", dense("f32", &[4], 64, 16))]))
        .text("x")
        .raw(value)
        .build();
    v1_file(&blobs16(), &m)
}

/// A v1.2 file whose component `data` has an extra field `x` with a raw value.
fn file_raw_comp_field(value: &[u8]) -> Vec<u8> {
    let c = Cbor::new()
        .map(4)
        .text("dtype")
        .text("f32")
        .text("offset")
        .uint(64)
        .text("length")
        .uint(16)
        .text("x")
        .raw(value)
        .build();
    let m = Cbor::new()
        .map(2)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .map(1)
        .text("w")
        .map(3)
        .text("shape")
        .value(&shape(&[4]))
        .text("format")
        .text("dense")
        .text("components")
        .map(1)
        .text("data")
        .raw(&c)
        .build();
    v1_file(&blobs16(), &m)
}

/// A v1.2 file whose only object's name is given as raw CBOR.
fn file_raw_object_name(name: &[u8]) -> Vec<u8> {
    let m = Cbor::new()
        .map(2)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .map(1)
        .raw(name)
        .value(&dense("f32", &[4], 64, 16))
        .build();
    v1_file(&blobs16(), &m)
}

/// A v0.1 file with one float32 `[4]` tensor `t` (16 bytes at 64), after `edit`.
fn v0_one(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut t = v0_tensor("t", "float32", &[4], 64, 16);
    edit(&mut t);
    v0_file(&blobs16(), &encode(&arr([t])))
}

// ============================================================== container

#[test]
fn container_bad_header_magic() {
    let good = dense_file("1.2.0", |_| {});
    accept(&good);
    for magic in [
        b"ZTEN2000",
        b"ZTEN1001",
        b"\0\0\0\0\0\0\0\0",
        b"PK\x03\x04\0\0\0\0",
    ] {
        let mut f = good.clone();
        f[..8].copy_from_slice(magic);
        reject_kind(&f, ErrorKind::BadMagic);
    }
}

#[test]
fn container_bad_footer_magic() {
    let good = dense_file("1.2.0", |_| {});
    for magic in [b"ZTEN1001", b"ZTEN2000", b"\0\0\0\0\0\0\0\0", b"ZTEN0001"] {
        let mut f = good.clone();
        let n = f.len();
        f[n - 8..].copy_from_slice(magic);
        reject_kind(&f, ErrorKind::BadMagic);
    }
}

#[test]
fn container_header_footer_version_mismatch() {
    // A v0.1 header on a file with a v1 footer.
    let mut f = dense_file("1.2.0", |_| {});
    f[..8].copy_from_slice(MAGIC_V0);
    reject_kind(&f, ErrorKind::MagicMismatch);
    let tail = Tail::from_footer(&f[f.len() - 16..], f.len() as u64).unwrap();
    assert_eq!(
        tail.check_header(&f[..8]).unwrap_err().kind(),
        ErrorKind::MagicMismatch
    );
}

#[test]
fn container_file_too_small() {
    let full = v1_manifest_only(&encode(&manifest("1.2.0", [])));
    assert_eq!(full.len(), 48, "empty v1 file is 48 bytes (NOTES item 2)");
    for n in [0usize, 1, 7] {
        reject_kind(&full[..n], ErrorKind::FileTooSmall { len: n as u64 });
    }
    for bytes in [
        &b"ZTEN1000"[..],
        b"ZTEN0001",
        b"ZTEN1000ZTEN100",
        b"ZTEN1000ZTEN1000",
    ] {
        reject_kind(
            bytes,
            ErrorKind::FileTooSmall {
                len: bytes.len() as u64,
            },
        );
    }
    // Tail-only: a file length below any valid file.
    let e = File::parse_tail(&full[32..], &full[8..32], 16).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::FileTooSmall { len: 16 });
    // 24 bytes (`ZTEN1000`, size 0, `ZTEN1000`) is one byte short of the
    // smallest v1 file: there is no manifest item at all.
    let mut f = b"ZTEN1000".to_vec();
    f.extend(0u64.to_le_bytes());
    f.extend(b"ZTEN1000");
    reject_match!(f, ErrorKind::FileTooSmall { .. } | ErrorKind::CborEof);
}

#[test]
fn container_manifest_too_large() {
    let good = dense_file("1.2.0", |_| {});
    let n = good.len();
    for size in [(1u64 << 30) + 1, 1 << 40, u64::MAX] {
        let mut f = good.clone();
        f[n - 16..n - 8].copy_from_slice(&size.to_le_bytes());
        reject_kind(&f, ErrorKind::ManifestTooLarge { size });
        assert_eq!(
            Tail::from_footer(&f[n - 16..], 1 << 62).unwrap_err().kind(),
            ErrorKind::ManifestTooLarge { size },
            "tail-only, huge file"
        );
    }
    // Exactly 1 GiB is not "too large"; it just does not fit this file.
    let mut f = good.clone();
    f[n - 16..n - 8].copy_from_slice(&(1u64 << 30).to_le_bytes());
    reject_kind(
        &f,
        ErrorKind::ManifestOutOfBounds {
            size: 1 << 30,
            file_len: n as u64,
        },
    );
}

#[test]
fn container_manifest_out_of_bounds() {
    let good = dense_file("1.2.0", |_| {});
    let n = good.len() as u64;
    // Header (8) + manifest + footer (16) must fit: one byte too many.
    for size in [n - 24 + 1, n - 16, n, n + 1000] {
        let mut f = good.clone();
        f[n as usize - 16..n as usize - 8].copy_from_slice(&size.to_le_bytes());
        reject_kind(&f, ErrorKind::ManifestOutOfBounds { size, file_len: n });
    }
}

/// A v0.1 file (valid `ZTEN0001` header) whose trailer announces an oversized
/// or out-of-bounds manifest: the header is fine, so "bad magic" would be
/// the wrong diagnosis.
#[test]
fn container_v0_manifest_size_checks() {
    let good = v0_one(|_| {});
    accept(&good);
    let n = good.len();
    let mut f = good.clone();
    f[n - 8..].copy_from_slice(&((1u64 << 30) + 1).to_le_bytes());
    reject_kind(
        &f,
        ErrorKind::ManifestTooLarge {
            size: (1 << 30) + 1,
        },
    );
    let mut f = good.clone();
    f[n - 8..].copy_from_slice(&(n as u64).to_le_bytes());
    reject_kind(
        &f,
        ErrorKind::ManifestOutOfBounds {
            size: n as u64,
            file_len: n as u64,
        },
    );
}

#[test]
fn tail_manifest_length_mismatch() {
    let f = dense_file("1.2.0", |_| {});
    let r = manifest_range(&f);
    let footer = &f[f.len() - 16..];
    let e = File::parse_tail(footer, &f[r.start..r.end - 1], f.len() as u64).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::ManifestLengthMismatch {
            expected: r.len() as u64,
            actual: r.len() as u64 - 1
        }
    );
    let e = File::parse_tail(footer, &f[r.start - 1..r.end], f.len() as u64).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::ManifestLengthMismatch {
            expected: r.len() as u64,
            actual: r.len() as u64 + 1
        }
    );
}

// ============================================================== CBOR well-formedness

#[test]
fn cbor_eof() {
    // Root map whose last value is missing.
    let m = Cbor::new()
        .map(2)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .build();
    reject_kind(&v1_manifest_only(&m), ErrorKind::CborEof);
    // A uint head announcing 8 bytes, with 3 behind it.
    let m = Cbor::new()
        .map(3)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .map(0)
        .text("x")
        .raw(&[0x1b, 0, 0, 0])
        .build();
    reject_kind(&v1_manifest_only(&m), ErrorKind::CborEof);
    // The same in a known field (shape element).
    let m = Cbor::new()
        .map(2)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .map(1)
        .text("w")
        .map(1)
        .text("shape")
        .arr(1)
        .raw(&[0x1a, 0])
        .build();
    reject_kind(&v1_manifest_only(&m), ErrorKind::CborEof);
    // An indefinite root map with no break.
    let m = Cbor::new()
        .map_indef()
        .text("version")
        .text("1.2.0")
        .text("objects")
        .map(0)
        .build();
    reject_kind(&v1_manifest_only(&m), ErrorKind::CborEof);
    // An indefinite attribute array that never ends.
    reject_kind(
        &file_raw_root_field(&[0x9f, 0x01, 0x02]),
        ErrorKind::CborEof,
    );
    // A v0.1 manifest cut inside an item head.
    let m = Cbor::new()
        .arr(1)
        .map(1)
        .text("name")
        .raw(&[0x19, 0x01])
        .build();
    reject_kind(&v0_file(&Blobs::new(), &m), ErrorKind::CborEof);
}

#[test]
fn cbor_invalid_initial_bytes() {
    // Reserved additional information 28..30 in every major type, and
    // indefinite length where the major type has none (uint, nint, tag).
    let mut bad: Vec<u8> = Vec::new();
    for major in 0u8..8 {
        for ai in 28u8..=30 {
            bad.push(major << 5 | ai);
        }
    }
    bad.extend([0x1f, 0x3f, 0xdf]);
    for b in bad {
        // ... as a root field value (generic skip),
        reject_kind(
            &file_raw_root_field(&[b, 0, 0, 0, 0, 0, 0, 0, 0]),
            ErrorKind::CborInvalid,
        );
        // ... as an attribute value,
        reject_kind(
            &file_raw_attrs(&[0xa1, 0x61, b'a', b, 0, 0, 0, 0, 0, 0, 0, 0]),
            ErrorKind::CborInvalid,
        );
        // ... as the manifest's root item.
        reject_kind(
            &v1_manifest_only(&[b, 0, 0, 0, 0, 0, 0, 0, 0]),
            ErrorKind::CborInvalid,
        );
    }
    // In a known field: a shape element and an offset.
    let f = dense_file("1.2.0", |o| set(o, "shape", Value::Array(vec![])));
    let m = manifest_of(&f).to_vec();
    let at = find(&m, &ctext("shape")) + 6;
    assert_eq!(m[at], 0x80);
    let mut m2 = m.clone();
    m2.splice(at..at + 1, [0x81, 0x1c]);
    reject_kind(&v1_file(&blobs16(), &m2), ErrorKind::CborInvalid);
    // Two-byte simple values below 32 are not well-formed (RFC 8949 §3.3).
    reject_kind(
        &file_raw_attrs(&[0xa1, 0x61, b'a', 0xf8, 0x10]),
        ErrorKind::CborInvalid,
    );
}

#[test]
fn cbor_bad_indefinite() {
    // A stray break where a root key should be.
    let m = Cbor::new()
        .map(3)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .map(0)
        .brk()
        .uint(0)
        .build();
    reject_kind(&v1_manifest_only(&m), ErrorKind::CborBadIndefinite);
    // A break inside a definite array.
    reject_kind(
        &file_raw_attrs(&[0xa1, 0x61, b'a', 0x82, 0x01, 0xff]),
        ErrorKind::CborBadIndefinite,
    );
    // A break as a whole attribute value.
    reject_kind(
        &file_raw_attrs(&[0xa1, 0x61, b'a', 0xff]),
        ErrorKind::CborBadIndefinite,
    );
    // Indefinite text with a non-text chunk; with a nested indefinite chunk.
    reject_kind(
        &file_raw_attrs(&[0xa1, 0x61, b'a', 0x7f, 0x01, 0xff]),
        ErrorKind::CborBadIndefinite,
    );
    reject_kind(
        &file_raw_attrs(&[0xa1, 0x61, b'a', 0x7f, 0x7f, 0xff, 0xff]),
        ErrorKind::CborBadIndefinite,
    );
    // Indefinite bytes with a text chunk.
    reject_kind(
        &file_raw_attrs(&[0xa1, 0x61, b'a', 0x5f, 0x61, b'x', 0xff]),
        ErrorKind::CborBadIndefinite,
    );
    // Indefinite map closed after a key (odd number of items).
    reject_kind(
        &file_raw_attrs(&[0xbf, 0x61, b'a', 0xff]),
        ErrorKind::CborBadIndefinite,
    );
}

/// A break (`0xff`) outside an indefinite-length item is not well-formed
/// CBOR (RFC 8949 §3.2.1): where the format expects a typed item, the error
/// is still malformed CBOR, not "field has the wrong type".
#[test]
fn cbor_stray_break_where_a_typed_item_is_expected() {
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    // As the manifest's root item.
    cases.push(("v1 root".into(), v1_manifest_only(&[0xff])));
    cases.push(("v0.1 root".into(), v0_file(&Blobs::new(), &[0xff])));
    // As a known field's value.
    let f = dense_file("1.2.0", |_| {});
    let m = manifest_of(&f).to_vec();
    for key in [
        "version",
        "objects",
        "shape",
        "format",
        "components",
        "dtype",
        "offset",
        "length",
    ] {
        let k = ctext(key);
        let at = find(&m, &k) + k.len();
        let mut m2 = m[..at].to_vec();
        m2.push(0xff);
        cases.push((key.into(), v1_file(&blobs16(), &m2)));
    }
    // As an object name / role.
    cases.push(("object name".into(), file_raw_object_name(&[0xff])));
    let wrong: Vec<String> = cases
        .iter()
        .map(|(what, f)| (what, reject(f)))
        .filter(|(_, e)| e.kind() != ErrorKind::CborBadIndefinite)
        .map(|(what, e)| format!("{what}: got {:?}", e.kind()))
        .collect();
    assert!(
        wrong.is_empty(),
        "stray break not reported as CborBadIndefinite: {wrong:#?}"
    );
}

#[test]
fn cbor_invalid_utf8() {
    let bad: [&[u8]; 4] = [
        &[0xff, 0xfe],
        &[0xc0, 0x80],
        &[0xed, 0xa0, 0x80],
        &[b'a', 0xe2, 0x82],
    ];
    for b in bad {
        let t = Cbor::new().text_bytes(b).build();
        // Object name.
        let e = reject_kind(&file_raw_object_name(&t), ErrorKind::CborInvalidUtf8);
        assert!(e.manifest_offset().is_some());
        // Attribute value, attribute key, root unknown key, chunk of indefinite text.
        let mut a = vec![0xa1, 0x61, b'a'];
        a.extend(&t);
        reject_kind(&file_raw_attrs(&a), ErrorKind::CborInvalidUtf8);
        let mut a = vec![0xa1];
        a.extend(&t);
        a.push(0x00);
        reject_kind(&file_raw_attrs(&a), ErrorKind::CborInvalidUtf8);
        let mut a = vec![0xa1, 0x61, b'a', 0x7f, 0x61, b'o', 0x61, b'k'];
        a.extend(&t);
        a.push(0xff);
        reject_kind(&file_raw_attrs(&a), ErrorKind::CborInvalidUtf8);
    }
}

/// Text the format interprets (dtype, encoding, format, roles, unknown keys
/// of schema maps) is still a CBOR text string: invalid UTF-8 there is
/// malformed CBOR, not an unknown dtype / encoding.
#[test]
fn cbor_invalid_utf8_in_interpreted_strings() {
    let t = Cbor::new().text_bytes(&[0xff, 0xfe]).build();
    // A component map with `key: value` given raw.
    let comp_raw = |key: &[u8], val: &[u8]| {
        let mut c = Cbor::new();
        c.map(4).text("offset").uint(64).text("length").uint(16);
        if key != ctext("dtype").as_slice() {
            c.text("dtype").text("f32");
        } else {
            c.text("x").uint(0);
        }
        c.raw(key).raw(val).build()
    };
    let file_with_comp = |c: &[u8], role: &[u8]| {
        let m = Cbor::new()
            .map(2)
            .text("version")
            .text("1.2.0")
            .text("objects")
            .map(1)
            .text("w")
            .map(3)
            .text("shape")
            .value(&shape(&[4]))
            .text("format")
            .text("dense")
            .text("components")
            .map(1)
            .raw(role)
            .raw(c)
            .build();
        v1_file(&blobs16(), &m)
    };
    let data_role = ctext("data");
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    for (what, f) in [
        (
            "dtype",
            file_with_comp(&comp_raw(&ctext("dtype"), &t), &data_role),
        ),
        (
            "encoding",
            file_with_comp(&comp_raw(&ctext("encoding"), &t), &data_role),
        ),
        (
            "type",
            file_with_comp(&comp_raw(&ctext("type"), &t), &data_role),
        ),
        (
            "digest",
            file_with_comp(&comp_raw(&ctext("digest"), &t), &data_role),
        ),
        (
            "unknown component key",
            file_with_comp(&comp_raw(&t, &[0x00]), &data_role),
        ),
        ("role", file_with_comp(&comp_raw(&ctext("y"), &[0x00]), &t)),
    ] {
        cases.push((what.to_string(), f));
    }
    // format
    let m = Cbor::new()
        .map(2)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .map(1)
        .text("w")
        .map(3)
        .text("shape")
        .value(&shape(&[4]))
        .text("format")
        .raw(&t)
        .text("components")
        .value(&map([("data", comp("f32", 64, 16))]))
        .build();
    cases.push(("format".into(), v1_file(&blobs16(), &m)));
    // version
    let m = Cbor::new()
        .map(2)
        .text("version")
        .raw(&t)
        .text("objects")
        .map(0)
        .build();
    cases.push(("version".into(), v1_manifest_only(&m)));
    // v0.1 dtype and encoding
    for key in ["dtype", "encoding", "name"] {
        let mut tm = encode(&v0_tensor("t", "float32", &[4], 64, 16));
        let k = ctext(key);
        let at = find(&tm, &k) + k.len();
        let old_len = 1 + tm[at] as usize - 0x60;
        tm.splice(at..at + old_len, t.iter().copied());
        let mut m = vec![0x81];
        m.extend(tm);
        cases.push((format!("v0.1 {key}"), v0_file(&blobs16(), &m)));
    }
    let wrong: Vec<String> = cases
        .iter()
        .map(|(what, f)| (what, reject(f)))
        .filter(|(_, e)| e.kind() != ErrorKind::CborInvalidUtf8)
        .map(|(what, e)| format!("{what}: got {:?}", e.kind()))
        .collect();
    assert!(
        wrong.is_empty(),
        "invalid UTF-8 not reported as CborInvalidUtf8: {wrong:#?}"
    );
}

#[test]
fn cbor_length_too_large() {
    let big = 1u64 << 36;
    let claim = |major: u8, n: u64| Cbor::new().head8(major, n).build();
    // The shape array claims 2^36 dimensions.
    let m = Cbor::new()
        .map(2)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .map(1)
        .text("w")
        .map(1)
        .text("shape")
        .raw(&claim(4, big))
        .build();
    let e = reject_kind(
        &v1_manifest_only(&m),
        ErrorKind::LengthTooLarge { claimed: big },
    );
    assert_eq!(e.manifest_offset(), Some(find(&m, &claim(4, big)) as u64));
    // The root map, the objects map, an object name, attribute arrays, maps,
    // text and byte strings.
    reject_kind(
        &v1_manifest_only(&claim(5, big)),
        ErrorKind::LengthTooLarge { claimed: big },
    );
    let m = Cbor::new()
        .map(2)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .raw(&claim(5, big))
        .build();
    reject_kind(
        &v1_manifest_only(&m),
        ErrorKind::LengthTooLarge { claimed: big },
    );
    reject_kind(
        &file_raw_object_name(&claim(3, big)),
        ErrorKind::LengthTooLarge { claimed: big },
    );
    for major in [2u8, 3, 4, 5] {
        for n in [big, u64::MAX, 1 << 63] {
            let mut a = vec![0xa1, 0x61, b'a'];
            a.extend(claim(major, n));
            reject_kind(
                &file_raw_attrs(&a),
                ErrorKind::LengthTooLarge { claimed: n },
            );
            reject_kind(
                &file_raw_root_field(&claim(major, n)),
                ErrorKind::LengthTooLarge { claimed: n },
            );
        }
    }
    // A v0.1 manifest array claiming 2^36 tensors.
    reject_kind(
        &v0_file(&Blobs::new(), &claim(4, big)),
        ErrorKind::LengthTooLarge { claimed: big },
    );
}

#[test]
fn cbor_too_deep_is_refused_quickly() {
    const N: usize = 100_000;
    let t0 = Instant::now();
    for indefinite in [false, true] {
        let deep = Cbor::new().nested_arrays(N, indefinite).build();
        let mut attrs = vec![0xa1, 0x61, b'a'];
        attrs.extend(&deep);
        reject_kind(&file_raw_attrs(&attrs), ErrorKind::TooDeep);
        reject_kind(&file_raw_root_field(&deep), ErrorKind::TooDeep);
        reject_kind(&file_raw_comp_field(&deep), ErrorKind::TooDeep);
        // As the key of an unknown root field.
        let m = Cbor::new()
            .map(3)
            .text("version")
            .text("1.2.0")
            .text("objects")
            .map(0)
            .raw(&deep)
            .uint(0)
            .build();
        reject_kind(&v1_manifest_only(&m), ErrorKind::TooDeep);
        // In a custom field of a v0.1 tensor.
        let mut t = encode(&v0_tensor("t", "float32", &[4], 64, 16));
        t[0] += 1; // one more pair
        t.extend(ctext("deep"));
        t.extend(&deep);
        let mut m = vec![0x81];
        m.extend(t);
        reject_kind(&v0_file(&blobs16(), &m), ErrorKind::TooDeep);
    }
    // Deeply nested maps: {"a": {"a": ... }}.
    let mut deep = Vec::with_capacity(3 * N + 1);
    for _ in 0..N {
        deep.extend([0xa1, 0x61, b'a']);
    }
    deep.push(0x00);
    reject_kind(&file_raw_root_field(&deep), ErrorKind::TooDeep);
    let el = t0.elapsed();
    assert!(el < Duration::from_secs(5), "100k-deep nesting took {el:?}");
    // The deepest rejection is reported where the limit was crossed.
    let deep = Cbor::new().nested_arrays(N, false).build();
    let f = file_raw_root_field(&deep);
    let e = reject_kind(&f, ErrorKind::TooDeep);
    let mstart = find(manifest_of(&f), &[0x81, 0x81]) as u64;
    let off = e.manifest_offset().expect("offset");
    assert!(
        off > mstart && off < mstart + MAX_DEPTH as u64,
        "offset {off}"
    );
}

#[test]
fn cbor_trailing_bytes() {
    let m = encode(&manifest("1.2.0", [("w", dense("f32", &[4], 64, 16))]));
    for extra in [&[0x00][..], &[0xa0], &[0xff], &[0, 0, 0, 0, 0, 0, 0, 0]] {
        let mut m2 = m.clone();
        m2.extend_from_slice(extra);
        let e = reject_kind(
            &v1_file(&blobs16(), &m2),
            ErrorKind::TrailingBytes {
                count: extra.len() as u64,
            },
        );
        assert_eq!(e.manifest_offset(), Some(m.len() as u64));
    }
    // v0.1
    let mut m = encode(&arr([v0_tensor("t", "float32", &[4], 64, 16)]));
    m.push(0x80);
    reject_kind(
        &v0_file(&blobs16(), &m),
        ErrorKind::TrailingBytes { count: 1 },
    );
}

/// The library refuses chunked (indefinite-length) text wherever the format
/// interprets the text (names, dtypes, ...): names are borrowed `&str`s.
/// Attribute values may be chunked.
#[test]
fn indefinite_text_in_schema_fields_is_refused_cleanly() {
    let name = Cbor::new().text_indef().text("w").brk().build();
    reject_kind(&file_raw_object_name(&name), ErrorKind::IndefiniteText);
    // ... but fine inside attributes.
    let f = file_raw_attrs(
        &Cbor::new()
            .map(1)
            .text("a")
            .text_indef()
            .text("x")
            .text("y")
            .brk()
            .build(),
    );
    let file = accept(&f);
    assert!(file.get("w").unwrap().attributes().get("a").is_some());
}

// ============================================================== duplicate keys

#[test]
fn duplicate_root_keys() {
    // "version" twice.
    let m = map([
        ("version", text("1.2.0")),
        ("objects", map([])),
        ("version", text("1.2.0")),
    ]);
    let mb = encode(&m);
    let e = reject_kind(&v1_manifest_only(&mb), ErrorKind::DuplicateKey);
    assert_eq!(
        e.manifest_offset(),
        Some(rfind(&mb, &ctext("version")) as u64)
    );
    // "objects" twice, "attributes" twice, an unknown key twice.
    for key in ["objects", "attributes", "x"] {
        let f = root_file(|m| {
            if key != "objects" {
                push(m, [(key, map([]))]);
            }
            push(m, [(key, map([]))]);
        });
        let e = reject_kind(&f, ErrorKind::DuplicateKey);
        assert_loc(&e, None, None);
        assert_eq!(
            e.manifest_offset(),
            Some(rfind(manifest_of(&f), &ctext(key)) as u64),
            "{key}"
        );
    }
    // Non-text keys twice.
    let f = root_file(|m| {
        if let Value::Map(e) = m {
            e.push((uint(7), uint(0)));
            e.push((uint(7), uint(1)));
        }
    });
    reject_kind(&f, ErrorKind::DuplicateKey);
}

#[test]
fn duplicate_root_attribute_keys() {
    let f = root_file(|m| {
        push(
            m,
            [(
                "attributes",
                map([("a", uint(1)), ("b", uint(2)), ("a", uint(3))]),
            )],
        )
    });
    let e = reject_kind(&f, ErrorKind::DuplicateKey);
    assert_eq!(
        e.manifest_offset(),
        Some(rfind(manifest_of(&f), &ctext("a")) as u64)
    );
}

#[test]
fn duplicate_object_keys() {
    for key in ["shape", "format", "components", "attributes", "x"] {
        let f = dense_file("1.2.0", |o| {
            let v = match key {
                "shape" => shape(&[4]),
                "format" => text("dense"),
                "components" => map([("data", comp("f32", 64, 16))]),
                _ => map([]),
            };
            if key == "attributes" || key == "x" {
                push(o, [(key, v.clone())]);
            }
            push(o, [(key, v)]);
        });
        let e = reject_kind(&f, ErrorKind::DuplicateKey);
        assert_loc(&e, Some("w"), None);
        assert_eq!(
            e.manifest_offset(),
            Some(rfind(manifest_of(&f), &ctext(key)) as u64),
            "{key}"
        );
    }
    // Integer keys.
    let f = dense_file("1.2.0", |o| {
        if let Value::Map(e) = o {
            e.push((int(-1), uint(0)));
            e.push((int(-1), uint(0)));
        }
    });
    let e = reject_kind(&f, ErrorKind::DuplicateKey);
    assert_loc(&e, Some("w"), None);
}

#[test]
fn duplicate_component_keys() {
    for (key, v) in [
        ("dtype", text("f32")),
        ("offset", uint(64)),
        ("length", uint(16)),
        ("encoding", text("raw")),
        ("type", null()),
        ("digest", null()),
        ("uncompressed_length", null()),
        ("note", text("x")),
    ] {
        let f = dense_file("1.2.0", |o| {
            if !matches!(key, "dtype" | "offset" | "length") {
                push(data(o), [(key, v.clone())]);
            }
            push(data(o), [(key, v)]);
        });
        let e = reject_kind(&f, ErrorKind::DuplicateKey);
        assert_loc(&e, Some("w"), Some("data"));
        assert_eq!(
            e.manifest_offset(),
            Some(rfind(manifest_of(&f), &ctext(key)) as u64),
            "{key}"
        );
    }
}

#[test]
fn duplicate_attribute_keys_nested() {
    // At the top of the object's attributes.
    let f = dense_file("1.2.0", |o| {
        push(
            o,
            [("attributes", map([("bits", uint(4)), ("bits", uint(8))]))],
        )
    });
    let e = reject_kind(&f, ErrorKind::DuplicateKey);
    assert_loc(&e, Some("w"), None);
    // In a nested map, after other keys (insertion order, like the writer's).
    let f = dense_file("1.2.0", |o| {
        push(
            o,
            [(
                "attributes",
                map([("n", map([("z", uint(1)), ("a", uint(2)), ("z", uint(3))]))]),
            )],
        )
    });
    let e = reject_kind(&f, ErrorKind::DuplicateKey);
    assert_loc(&e, Some("w"), None);
    assert_eq!(
        e.manifest_offset(),
        Some(rfind(manifest_of(&f), &ctext("z")) as u64)
    );
    // In a map inside an array inside a map.
    let f = dense_file("1.2.0", |o| {
        push(
            o,
            [(
                "attributes",
                map([("l", arr([uint(0), map([("k", uint(1)), ("k", uint(1))])]))]),
            )],
        )
    });
    reject_kind(&f, ErrorKind::DuplicateKey);
    // Same key in sibling maps is fine.
    let f = dense_file("1.2.0", |o| {
        push(
            o,
            [(
                "attributes",
                map([("p", map([("k", uint(1))])), ("q", map([("k", uint(1))]))]),
            )],
        )
    });
    accept(&f);
    // Many keys (more than a small linear scan handles), one duplicate.
    let mut entries: Vec<(String, Value)> =
        (0..40).map(|i| (format!("k{i:02}"), uint(i))).collect();
    entries.push(("k17".into(), uint(0)));
    let attrs = Value::Map(
        entries
            .into_iter()
            .map(|(k, v)| (Value::Text(k), v))
            .collect(),
    );
    let f = dense_file("1.2.0", |o| push(o, [("attributes", attrs)]));
    reject_kind(&f, ErrorKind::DuplicateKey);
    // In an indefinite-length map.
    let a = Cbor::new()
        .map_indef()
        .text("a")
        .uint(1)
        .text("b")
        .uint(2)
        .text("a")
        .uint(3)
        .brk()
        .build();
    reject_kind(&file_raw_attrs(&a), ErrorKind::DuplicateKey);
    // In a component's unknown field.
    let a = Cbor::new()
        .map(2)
        .text("a")
        .uint(1)
        .text("a")
        .uint(3)
        .build();
    let e = reject_kind(&file_raw_comp_field(&a), ErrorKind::DuplicateKey);
    assert_loc(&e, Some("w"), Some("data"));
    // In the root attributes, nested.
    let f = root_file(|m| {
        push(
            m,
            [(
                "attributes",
                map([("m", map([("x", null()), ("x", null())]))]),
            )],
        )
    });
    reject_kind(&f, ErrorKind::DuplicateKey);
}

/// The same key spelled with a non-minimal head, or as chunked text, is the
/// same CBOR data-model value (RFC 8949 §5.6): still a duplicate. Otherwise
/// two readers of one file disagree on an attribute's value.
#[test]
fn duplicate_attribute_keys_in_different_encodings() {
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "text key with a non-minimal head",
            Cbor::new()
                .map(2)
                .text("x")
                .uint(1)
                .raw(&[0x78, 0x01, b'x'])
                .uint(2)
                .build(),
        ),
        (
            "text key as chunked text",
            Cbor::new()
                .map(2)
                .text("x")
                .uint(1)
                .text_indef()
                .text("x")
                .brk()
                .uint(2)
                .build(),
        ),
        (
            "text key split into two chunks",
            Cbor::new()
                .map(2)
                .text("xy")
                .uint(1)
                .text_indef()
                .text("x")
                .text("y")
                .brk()
                .uint(2)
                .build(),
        ),
        (
            "integer key with a non-minimal head",
            Cbor::new()
                .map(2)
                .uint(1)
                .uint(1)
                .raw(&[0x18, 0x01])
                .uint(2)
                .build(),
        ),
        (
            "byte-string key as chunked bytes",
            Cbor::new()
                .map(2)
                .bytes(b"k")
                .uint(1)
                .bytes_indef()
                .bytes(b"k")
                .brk()
                .uint(2)
                .build(),
        ),
    ];
    let accepted: Vec<&str> = cases
        .iter()
        .filter(|(_, a)| File::parse(&file_raw_attrs(a)).is_ok())
        .map(|(what, _)| *what)
        .collect();
    assert!(
        accepted.is_empty(),
        "duplicate keys accepted: {accepted:#?}"
    );
    for (what, a) in &cases {
        let e = reject(&file_raw_attrs(a));
        assert_eq!(e.kind(), ErrorKind::DuplicateKey, "{what}: {e}");
    }
}

#[test]
fn duplicate_object_names_unsorted() {
    let mut b = Blobs::new();
    let (o1, o2, o3) = (b.add_len(16), b.add_len(16), b.add_len(16));
    let m = manifest(
        "1.2.0",
        [
            ("b", dense("f32", &[4], o1, 16)),
            ("a", dense("f32", &[4], o2, 16)),
            ("b", dense("f32", &[4], o3, 16)),
        ],
    );
    let e = reject_kind(&v1_file(&b, &encode(&m)), ErrorKind::DuplicateKey);
    assert_loc(&e, Some("b"), None);
    // Many objects, unsorted, one duplicate far from its twin.
    let mut b = Blobs::new();
    let mut objs: Vec<(String, Value)> = Vec::new();
    for i in (0..30).rev() {
        objs.push((format!("t{i}"), dense("u8", &[1], b.add_len(1), 1)));
    }
    objs.push(("t12".into(), dense("u8", &[1], b.add_len(1), 1)));
    let m = map([
        ("version", text("1.2.0")),
        (
            "objects",
            map(objs.iter().map(|(k, v)| (k.as_str(), v.clone()))),
        ),
    ]);
    let e = reject_kind(&v1_file(&b, &encode(&m)), ErrorKind::DuplicateKey);
    assert_loc(&e, Some("t12"), None);
}

#[test]
fn duplicate_object_names_adjacent() {
    let mut b = Blobs::new();
    let (o1, o2) = (b.add_len(16), b.add_len(16));
    let m = manifest(
        "1.2.0",
        [
            ("a", dense("f32", &[4], o1, 16)),
            ("a", dense("f32", &[4], o2, 16)),
        ],
    );
    let e = reject_kind(&v1_file(&b, &encode(&m)), ErrorKind::DuplicateKey);
    assert_loc(&e, Some("a"), None);
    // Sorted names with one adjacent duplicate in the middle.
    let mut b = Blobs::new();
    let names = ["a", "b", "c", "c", "d"];
    let objs: Vec<_> = names
        .iter()
        .map(|&n| (n, dense("u8", &[1], b.add_len(1), 1)))
        .collect();
    let e = reject_kind(
        &v1_file(&b, &encode(&manifest("1.2.0", objs))),
        ErrorKind::DuplicateKey,
    );
    assert_loc(&e, Some("c"), None);
    // Same name, same blob (a tied duplicate is still a duplicate).
    let m = manifest(
        "1.2.0",
        [
            ("a", dense("f32", &[4], 64, 16)),
            ("a", dense("f32", &[4], 64, 16)),
        ],
    );
    reject_kind(&v1_file(&blobs16(), &encode(&m)), ErrorKind::DuplicateKey);
}

#[test]
fn duplicate_component_roles() {
    let f = dense_file("1.2.0", |o| {
        push(at(o, "components"), [("data", comp("f32", 64, 16))])
    });
    let e = reject_kind(&f, ErrorKind::DuplicateKey);
    assert_eq!(e.object().map(|n| n.as_str()), Some("w"));
    assert_eq!(
        e.manifest_offset(),
        Some(rfind(manifest_of(&f), &ctext("data")) as u64)
    );
    // Unknown format, several roles, one repeated.
    let mut b = Blobs::new();
    let (x, y) = (b.add_len(4), b.add_len(4));
    let o = obj(
        &[4],
        "x_fmt",
        [
            ("p", comp("u8", x, 4)),
            ("q", comp("u8", y, 4)),
            ("p", comp("u8", x, 4)),
        ],
    );
    let e = reject_kind(
        &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
        ErrorKind::DuplicateKey,
    );
    assert_eq!(e.object().map(|n| n.as_str()), Some("w"));
}

#[test]
fn v0_duplicate_names() {
    let mut b = Blobs::new();
    let (o1, o2) = (b.add_len(16), b.add_len(16));
    let m = arr([
        v0_tensor("t", "float32", &[4], o1, 16),
        v0_tensor("t", "float32", &[4], o2, 16),
    ]);
    let e = reject_kind(&v0_file(&b, &encode(&m)), ErrorKind::DuplicateKey);
    assert_loc(&e, Some("t"), None);
    // Duplicate keys inside a v0.1 tensor map.
    let f = v0_one(|t| push(t, [("name", text("u"))]));
    reject_kind(&f, ErrorKind::DuplicateKey);
    let f = v0_one(|t| push(t, [("layout", text("dense")), ("layout", text("dense"))]));
    reject_kind(&f, ErrorKind::DuplicateKey);
}

// ============================================================== missing fields

#[test]
fn missing_root_fields() {
    for field in ["version", "objects"] {
        let f = root_file(|m| remove(m, field));
        let e = reject_kind(&f, ErrorKind::MissingField { field });
        assert_loc(&e, None, None);
        assert_eq!(e.manifest_offset(), Some(0));
    }
}

#[test]
fn missing_object_fields() {
    for field in ["shape", "format", "components"] {
        let f = dense_file("1.2.0", |o| remove(o, field));
        let e = reject_kind(&f, ErrorKind::MissingField { field });
        assert_loc(&e, Some("w"), None);
    }
}

#[test]
fn missing_component_fields() {
    for field in ["dtype", "offset", "length"] {
        let f = dense_file("1.2.0", |o| remove(data(o), field));
        let e = reject_kind(&f, ErrorKind::MissingField { field });
        assert_loc(&e, Some("w"), Some("data"));
        assert!(e.manifest_offset().is_some());
    }
}

#[test]
fn v0_missing_fields() {
    let e = reject_kind(
        &v0_one(|t| remove(t, "name")),
        ErrorKind::MissingField { field: "name" },
    );
    assert_loc(&e, None, None);
    for field in ["offset", "size", "dtype", "shape", "encoding"] {
        let e = reject_kind(
            &v0_one(|t| remove(t, field)),
            ErrorKind::MissingField { field },
        );
        assert_loc(&e, Some("t"), None);
    }
}

// ============================================================== wrong CBOR types

#[test]
fn wrong_types() {
    type Edit = Box<dyn Fn(&mut Value)>;
    /// (field, expected, edit of the root map, object, role)
    type Case = (
        &'static str,
        &'static str,
        Edit,
        Option<&'static str>,
        Option<&'static str>,
    );
    let cases: Vec<Case> = vec![
        // (field, expected, edit of the root map, object, role)
        (
            "version",
            "a text string",
            Box::new(|m: &mut Value| set(m, "version", uint(1))),
            None,
            None,
        ),
        (
            "version",
            "a text string",
            Box::new(|m: &mut Value| set(m, "version", Value::Float(1.2))),
            None,
            None,
        ),
        (
            "objects",
            "a map",
            Box::new(|m: &mut Value| set(m, "objects", arr([]))),
            None,
            None,
        ),
        (
            "attributes",
            "a map",
            Box::new(|m: &mut Value| push(m, [("attributes", arr([]))])),
            None,
            None,
        ),
        (
            "attributes",
            "a map",
            Box::new(|m: &mut Value| push(m, [("attributes", text("x"))])),
            None,
            None,
        ),
        (
            "object",
            "a map",
            Box::new(|m: &mut Value| set(at(m, "objects"), "w", text("x"))),
            Some("w"),
            None,
        ),
        (
            "shape",
            "an array",
            Box::new(|m: &mut Value| set(at(at(m, "objects"), "w"), "shape", map([]))),
            Some("w"),
            None,
        ),
        (
            "shape",
            "an array",
            Box::new(|m: &mut Value| set(at(at(m, "objects"), "w"), "shape", uint(4))),
            Some("w"),
            None,
        ),
        (
            "shape",
            "an unsigned integer",
            Box::new(|m: &mut Value| set(at(at(m, "objects"), "w"), "shape", arr([int(-4)]))),
            Some("w"),
            None,
        ),
        (
            "shape",
            "an unsigned integer",
            Box::new(|m: &mut Value| set(at(at(m, "objects"), "w"), "shape", arr([text("4")]))),
            Some("w"),
            None,
        ),
        (
            "shape",
            "an unsigned integer",
            Box::new(|m: &mut Value| {
                set(at(at(m, "objects"), "w"), "shape", arr([Value::Float(4.0)]))
            }),
            Some("w"),
            None,
        ),
        (
            "format",
            "a text string",
            Box::new(|m: &mut Value| set(at(at(m, "objects"), "w"), "format", uint(0))),
            Some("w"),
            None,
        ),
        (
            "format",
            "a text string",
            Box::new(|m: &mut Value| set(at(at(m, "objects"), "w"), "format", null())),
            Some("w"),
            None,
        ),
        (
            "components",
            "a map",
            Box::new(|m: &mut Value| {
                set(
                    at(at(m, "objects"), "w"),
                    "components",
                    arr([comp("f32", 64, 16)]),
                )
            }),
            Some("w"),
            None,
        ),
        (
            "attributes",
            "a map",
            Box::new(|m: &mut Value| push(at(at(m, "objects"), "w"), [("attributes", arr([]))])),
            Some("w"),
            None,
        ),
        (
            "component",
            "a map",
            Box::new(|m: &mut Value| {
                set(at(at(at(m, "objects"), "w"), "components"), "data", uint(1))
            }),
            Some("w"),
            Some("data"),
        ),
        (
            "dtype",
            "a text string",
            Box::new(|m: &mut Value| set(data(at(at(m, "objects"), "w")), "dtype", uint(4))),
            Some("w"),
            Some("data"),
        ),
        (
            "dtype",
            "a text string",
            Box::new(|m: &mut Value| set(data(at(at(m, "objects"), "w")), "dtype", null())),
            Some("w"),
            Some("data"),
        ),
        (
            "offset",
            "an unsigned integer",
            Box::new(|m: &mut Value| set(data(at(at(m, "objects"), "w")), "offset", text("64"))),
            Some("w"),
            Some("data"),
        ),
        (
            "offset",
            "an unsigned integer",
            Box::new(|m: &mut Value| set(data(at(at(m, "objects"), "w")), "offset", int(-64))),
            Some("w"),
            Some("data"),
        ),
        (
            "offset",
            "an unsigned integer",
            Box::new(|m: &mut Value| set(data(at(at(m, "objects"), "w")), "offset", null())),
            Some("w"),
            Some("data"),
        ),
        (
            "length",
            "an unsigned integer",
            Box::new(|m: &mut Value| {
                set(
                    data(at(at(m, "objects"), "w")),
                    "length",
                    Value::Float(16.0),
                )
            }),
            Some("w"),
            Some("data"),
        ),
        (
            "uncompressed_length",
            "an unsigned integer",
            Box::new(|m: &mut Value| {
                push(
                    data(at(at(m, "objects"), "w")),
                    [("uncompressed_length", text("16"))],
                )
            }),
            Some("w"),
            Some("data"),
        ),
        (
            "encoding",
            "a text string",
            Box::new(|m: &mut Value| {
                push(data(at(at(m, "objects"), "w")), [("encoding", uint(0))])
            }),
            Some("w"),
            Some("data"),
        ),
        (
            "digest",
            "a text string",
            Box::new(|m: &mut Value| push(data(at(at(m, "objects"), "w")), [("digest", uint(0))])),
            Some("w"),
            Some("data"),
        ),
        (
            "type",
            "a text string",
            Box::new(|m: &mut Value| push(data(at(at(m, "objects"), "w")), [("type", arr([]))])),
            Some("w"),
            Some("data"),
        ),
    ];
    for (field, expected, edit, object, role) in cases {
        let f = root_file(|m| edit(m));
        let e = reject(&f);
        assert_eq!(e.kind(), ErrorKind::WrongType { field, expected }, "{e}");
        assert_loc(&e, object, role);
        assert!(e.manifest_offset().is_some(), "{e}");
    }
    // The root is not a map.
    let m = encode(&arr([text("1.2.0"), map([])]));
    let e = reject_match!(
        v1_manifest_only(&m),
        ErrorKind::WrongType {
            expected: "a map",
            ..
        }
    );
    assert_eq!(e.manifest_offset(), Some(0));
    // An object name that is not text.
    let e = reject_match!(
        file_raw_object_name(&[0x01]),
        ErrorKind::WrongType {
            expected: "a text string",
            ..
        }
    );
    assert_eq!(
        e.manifest_offset(),
        Some(find(manifest_of(&file_raw_object_name(&[0x01])), &[0xa1, 0x01]) as u64 + 1)
    );
    // A component role that is not text.
    let f = root_file(|m| {
        if let Value::Map(e) = at(at(at(m, "objects"), "w"), "components") {
            e.push((uint(1), comp("f32", 64, 16)));
        }
    });
    reject_match!(
        f,
        ErrorKind::WrongType {
            expected: "a text string",
            ..
        }
    );
}

#[test]
fn v0_wrong_types() {
    // The v0.1 manifest is an array, not a map.
    let m = encode(&map([("t", v0_tensor("t", "float32", &[4], 64, 16))]));
    reject_match!(
        v0_file(&blobs16(), &m),
        ErrorKind::WrongType {
            expected: "an array",
            ..
        }
    );
    // A tensor entry that is not a map.
    let m = encode(&arr([text("t")]));
    reject_match!(
        v0_file(&blobs16(), &m),
        ErrorKind::WrongType {
            expected: "a map",
            ..
        }
    );
    for (field, v, expected) in [
        ("name", uint(1), "a text string"),
        ("offset", text("64"), "an unsigned integer"),
        ("size", int(-16), "an unsigned integer"),
        ("dtype", uint(1), "a text string"),
        ("shape", uint(4), "an array"),
        ("encoding", null(), "a text string"),
        ("data_endianness", uint(0), "a text string"),
    ] {
        let e = reject(&v0_one(|t| set(t, field, v)));
        assert_eq!(e.kind(), ErrorKind::WrongType { field, expected }, "{e}");
    }
}

// ============================================================== versions

#[test]
fn bad_version() {
    for v in [
        "1",
        "x.y",
        "",
        "1.",
        ".1",
        "1.2.3.4",
        "v1.2",
        "1.2.0-rc1",
        " 1.2",
        "1.x",
        "-1.2",
        "１.２",
    ] {
        let f = root_file(|m| set(m, "version", text(v)));
        let e = reject_kind(&f, ErrorKind::BadVersion);
        assert_eq!(
            e.manifest_offset(),
            Some(find(manifest_of(&f), &ctext(v)) as u64),
            "{v:?}"
        );
    }
}

#[test]
fn unsupported_version() {
    for (v, major) in [
        ("2.0.0", 2),
        ("0.9", 0),
        ("0.1.0", 0),
        ("3.1", 3),
        ("10.0.0", 10),
    ] {
        let f = root_file(|m| set(m, "version", text(v)));
        reject_kind(&f, ErrorKind::UnsupportedVersion { major });
    }
}

#[test]
fn supported_versions_accepted() {
    for v in ["1.0", "1.0.0", "1.1.0", "1.2.0", "1.2", "1.3.0", "1.99.7"] {
        let f = root_file(|m| set(m, "version", text(v)));
        let file = accept(&f);
        assert_eq!(file.version().major, 1);
    }
}

// ============================================================== dtypes, types, encodings

#[test]
fn unknown_dtype() {
    for d in [
        "f128",
        "float32",
        "F32",
        "",
        "complex64",
        "complex128",
        "f8_e4m3",
        "f8_e5m2",
        "f8_e4m3fn",
        "int4",
    ] {
        let f = dense_file("1.2.0", |o| set(data(o), "dtype", text(d)));
        let e = reject_kind(&f, ErrorKind::UnknownDType);
        assert_loc(&e, Some("w"), Some("data"));
        assert_eq!(
            e.manifest_offset(),
            Some(rfind(manifest_of(&f), &ctext(d)) as u64),
            "{d}"
        );
    }
    // The v1.1 spellings are refused in 1.2 files whatever the length.
    let mut b = Blobs::new();
    let off = b.add_len(24);
    let o = obj(&[3], "dense", [("data", comp("complex64", off, 24))]);
    reject_kind(
        &v1_file(&b, &encode(&manifest("1.2.0", [("c", o)]))),
        ErrorKind::UnknownDType,
    );
}

#[test]
fn v1_1_legacy_dtypes_are_normalized() {
    let mut b = Blobs::new();
    let c64 = b.add_len(24);
    let c128 = b.add_len(64);
    let f8 = b.add_len(5);
    let f8b = b.add_len(5);
    let m = manifest(
        "1.1.0",
        [
            (
                "c128",
                obj(&[2, 2], "dense", [("data", comp("complex128", c128, 64))]),
            ),
            (
                "c64",
                obj(&[3], "dense", [("data", comp("complex64", c64, 24))]),
            ),
            (
                "f8a",
                obj(&[5], "dense", [("data", comp("f8_e4m3", f8, 5))]),
            ),
            (
                "f8b",
                obj(&[5], "dense", [("data", comp("f8_e5m2", f8b, 5))]),
            ),
        ],
    );
    let f = v1_file(&b, &encode(&m));
    let file = accept(&f);
    let d = file.require("c64").unwrap().data().unwrap();
    assert_eq!(
        (d.dtype(), d.logical_type()),
        (DType::F32, Some(LogicalType::Complex64))
    );
    assert_eq!(d.as_slice::<f32>().unwrap().len(), 6);
    let d = file.require("c128").unwrap().data().unwrap();
    assert_eq!(
        (d.dtype(), d.logical_type()),
        (DType::F64, Some(LogicalType::Complex128))
    );
    let d = file.require("f8a").unwrap().data().unwrap();
    assert_eq!(
        (d.dtype(), d.logical_type()),
        (DType::U8, Some(LogicalType::F8E4M3Fn))
    );
    let d = file.require("f8b").unwrap().data().unwrap();
    assert_eq!(
        (d.dtype(), d.logical_type()),
        (DType::U8, Some(LogicalType::F8E5M2))
    );
    // Also in 1.0 files.
    let f = v1_file(
        &b,
        &encode(&manifest(
            "1.0",
            [(
                "c64",
                obj(&[3], "dense", [("data", comp("complex64", c64, 24))]),
            )],
        )),
    );
    accept(&f);
    // The ×2 applies to the v1.1 spelling too.
    let f = v1_file(
        &b,
        &encode(&manifest(
            "1.1.0",
            [(
                "c64",
                obj(&[3], "dense", [("data", comp("complex64", c64, 12))]),
            )],
        )),
    );
    let e = reject_kind(
        &f,
        ErrorKind::LengthMismatch {
            expected: 24,
            actual: 12,
        },
    );
    assert_loc(&e, Some("c64"), Some("data"));
}

#[test]
fn unknown_encoding() {
    for enc in ["lz4", "RAW", "Zstd", "gzip", ""] {
        let f = dense_file("1.2.0", |o| push(data(o), [("encoding", text(enc))]));
        let e = reject_kind(&f, ErrorKind::UnknownEncoding);
        assert_loc(&e, Some("w"), Some("data"));
    }
    reject_kind(
        &v0_one(|t| set(t, "encoding", text("lz4"))),
        ErrorKind::UnknownEncoding,
    );
}

#[test]
fn logical_type_with_wrong_storage_dtype() {
    for (ty, dtype, len) in [
        ("f8_e4m3fn", "f32", 16),
        ("f8_e5m2", "i8", 4),
        ("f8_e4m3fnuz", "bool", 4),
        ("f8_e5m2fnuz", "u16", 8),
        ("complex64", "f64", 64),
        ("complex128", "f32", 32),
        ("complex64", "u8", 8),
    ] {
        let mut b = Blobs::new();
        let off = b.add_len(len);
        let o = obj(
            &[4],
            "dense",
            [(
                "data",
                comp_with(dtype, off, len as u64, [("type", text(ty))]),
            )],
        );
        let e = reject_match!(
            v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
            ErrorKind::WrongType { field: "type", .. }
        );
        assert_loc(&e, Some("w"), Some("data"));
    }
}

// ============================================================== placement

#[test]
fn misaligned_offset() {
    let mut b = Blobs::new();
    b.add_len(200);
    for off in [8u64, 16, 65, 72, 100, 127] {
        let o = dense("u8", &[4], off, 4);
        let e = reject_kind(
            &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
            ErrorKind::Misaligned { offset: off },
        );
        assert_loc(&e, Some("w"), Some("data"));
    }
    // Zero-length blobs must be aligned too.
    let o = dense("u8", &[0], 72, 0);
    reject_kind(
        &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
        ErrorKind::Misaligned { offset: 72 },
    );
}

#[test]
fn blob_overlapping_header() {
    let mut b = Blobs::new();
    b.add_len(16);
    let limit = b.end();
    for (off, len) in [(0u64, 8u64), (0, 16), (0, 0)] {
        let o = dense("u8", &[len], off, len);
        let e = reject_kind(
            &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
            ErrorKind::OutOfBounds {
                offset: off,
                length: len,
                limit,
            },
        );
        assert_loc(&e, Some("w"), Some("data"));
    }
}

#[test]
fn blob_reaching_into_manifest() {
    let mut b = Blobs::new();
    let off = b.add_len(16);
    let limit = b.end();
    assert_eq!(limit, 80);
    for len in [17u64, 100, 1 << 20] {
        let o = dense("u8", &[len], off, len);
        let f = v1_file(&b, &encode(&manifest("1.2.0", [("w", o)])));
        let e = reject_kind(
            &f,
            ErrorKind::OutOfBounds {
                offset: off,
                length: len,
                limit,
            },
        );
        assert_loc(&e, Some("w"), Some("data"));
    }
    // A blob entirely past the manifest / the end of the file.
    for off in [128u64, 1 << 40] {
        let o = dense("u8", &[4], off, 4);
        reject_kind(
            &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
            ErrorKind::OutOfBounds {
                offset: off,
                length: 4,
                limit,
            },
        );
    }
    // A zero-length blob well past the manifest start.
    let o = dense("u8", &[0], 192, 0);
    reject_kind(
        &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
        ErrorKind::OutOfBounds {
            offset: 192,
            length: 0,
            limit,
        },
    );
}

/// NOTES.md item 1: a zero-length blob sits at or before the manifest start
/// (`offset + length <= manifest_start` always holds for reference files);
/// one pointing past the manifest start is outside the data region
/// (DESIGN: "blobs live strictly between the header and the manifest").
#[test]
fn zero_length_blob_past_unaligned_manifest_start() {
    let mut b = Blobs::new();
    b.add_len(16);
    assert_eq!(b.end(), 80);
    let o = dense("u8", &[0], 128, 0);
    reject_kind(
        &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
        ErrorKind::OutOfBounds {
            offset: 128,
            length: 0,
            limit: 80,
        },
    );
}

#[test]
fn offset_plus_length_overflows() {
    let b = blobs16();
    let limit = b.end();
    for (off, len) in [
        (u64::MAX - 63, 64u64),
        (u64::MAX - 63, u64::MAX),
        (64, u64::MAX),
        (!63u64, 1 << 63),
    ] {
        let o = obj(&[len], "x_fmt", [("data", comp("u8", off, len))]);
        let e = reject_kind(
            &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
            ErrorKind::OutOfBounds {
                offset: off,
                length: len,
                limit,
            },
        );
        assert_loc(&e, Some("w"), Some("data"));
    }
}

// ============================================================== overlap

/// Two objects `a` and `b` with blobs `[oa, oa+la)` and `[ob, ob+lb)` in a
/// data region of `region` bytes (from 64), listed in manifest order a, b.
fn two_blobs(oa: u64, la: u64, ob: u64, lb: u64, region: usize) -> Vec<u8> {
    let mut b = Blobs::new();
    b.add_len(region);
    let m = manifest(
        "1.2.0",
        [
            ("a", dense("u8", &[la], oa, la)),
            ("b", dense("u8", &[lb], ob, lb)),
        ],
    );
    v1_file(&b, &encode(&m))
}

#[track_caller]
fn assert_overlap(f: &[u8], spans: &[(&str, u64, u64)]) {
    let e = reject_match!(f, ErrorKind::Overlap { .. });
    let ErrorKind::Overlap { offset, length } = e.kind() else {
        unreachable!()
    };
    let hit = spans.iter().find(|s| (s.1, s.2) == (offset, length));
    let (name, ..) =
        hit.unwrap_or_else(|| panic!("overlap reported for a blob that is not involved: {e}"));
    assert_loc(&e, Some(name), Some("data"));
}

#[test]
fn partial_overlap_ascending_order() {
    // a = [64, 192), b = [128, 192)
    assert_overlap(
        &two_blobs(64, 128, 128, 64, 128),
        &[("a", 64, 128), ("b", 128, 64)],
    );
    // a = [64, 129), b = [128, 256)
    assert_overlap(
        &two_blobs(64, 65, 128, 128, 192),
        &[("a", 64, 65), ("b", 128, 128)],
    );
}

#[test]
fn partial_overlap_descending_order() {
    // a = [128, 256), b = [64, 192): b comes first in the file.
    assert_overlap(
        &two_blobs(128, 128, 64, 128, 192),
        &[("a", 128, 128), ("b", 64, 128)],
    );
    // Containment, larger one listed second: a = [128, 192), b = [64, 320).
    assert_overlap(
        &two_blobs(128, 64, 64, 256, 256),
        &[("a", 128, 64), ("b", 64, 256)],
    );
}

#[test]
fn overlap_containment_and_same_start() {
    // a = [64, 320) contains b = [128, 192).
    assert_overlap(
        &two_blobs(64, 256, 128, 64, 256),
        &[("a", 64, 256), ("b", 128, 64)],
    );
    // Same start, different lengths.
    assert_overlap(
        &two_blobs(64, 128, 64, 64, 128),
        &[("a", 64, 128), ("b", 64, 64)],
    );
    assert_overlap(
        &two_blobs(64, 64, 64, 128, 128),
        &[("a", 64, 64), ("b", 64, 128)],
    );
}

#[test]
fn overlap_among_many_blobs_and_within_one_object() {
    // Ten ascending blobs; the last object's blob overlaps the fourth.
    let mut b = Blobs::new();
    let offs: Vec<u64> = (0..10).map(|_| b.add_len(40)).collect();
    let mut objs: Vec<(String, Value)> = offs
        .iter()
        .enumerate()
        .map(|(i, &o)| (format!("o{i}"), dense("u8", &[40], o, 40)))
        .collect();
    // identical to o3: weight tying, fine...
    objs.push(("z".into(), dense("u8", &[40], offs[3], 40)));
    let m = map([
        ("version", text("1.2.0")),
        (
            "objects",
            map(objs.iter().map(|(k, v)| (k.as_str(), v.clone()))),
        ),
    ]);
    accept(&v1_file(&b, &encode(&m)));
    // ... but shifted by nothing and one byte longer is not.
    objs.last_mut().unwrap().1 = dense("u8", &[41], offs[3], 41);
    let m = map([
        ("version", text("1.2.0")),
        (
            "objects",
            map(objs.iter().map(|(k, v)| (k.as_str(), v.clone()))),
        ),
    ]);
    assert_overlap(
        &v1_file(&b, &encode(&m)),
        &[("o3", offs[3], 40), ("z", offs[3], 41)],
    );
    // Two components of one object (unknown format).
    let mut b = Blobs::new();
    b.add_len(128);
    let o = obj(
        &[1],
        "x_fmt",
        [("p", comp("u8", 64, 128)), ("q", comp("u8", 128, 16))],
    );
    let e = reject_match!(
        v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
        ErrorKind::Overlap { .. }
    );
    assert_eq!(e.object().map(|n| n.as_str()), Some("w"));
    assert!(e.role().is_some());
}

#[test]
fn weight_tying_and_zero_length_sharing_are_accepted() {
    // Identical ranges, adjacent in the manifest.
    accept(&two_blobs(64, 128, 64, 128, 128));
    // Identical ranges, not adjacent, not ascending: a, c tied; b before them.
    let mut b = Blobs::new();
    let (x, y) = (b.add_len(64), b.add_len(64));
    let m = manifest(
        "1.2.0",
        [
            ("a", dense("u8", &[64], y, 64)),
            ("b", dense("u8", &[64], x, 64)),
            ("c", dense("u8", &[64], y, 64)),
        ],
    );
    let f = v1_file(&b, &encode(&m));
    let file = accept(&f);
    assert_eq!(
        file.require("a")
            .unwrap()
            .data()
            .unwrap()
            .stored_bytes()
            .unwrap(),
        file.require("c")
            .unwrap()
            .data()
            .unwrap()
            .stored_bytes()
            .unwrap()
    );
    // Zero-length blobs at another blob's offset, and inside another blob.
    let mut b = Blobs::new();
    let (x, y) = (b.add_len(128), b.add_len(64));
    let m = manifest(
        "1.2.0",
        [
            ("a", dense("u8", &[128], x, 128)),
            ("b", dense("f32", &[0], x, 0)),
            ("c", dense("u8", &[64], y, 64)),
            ("d", dense("i16", &[3, 0], x + 64, 0)),
            ("e", dense("u8", &[0], y, 0)),
        ],
    );
    accept(&v1_file(&b, &encode(&m)));
    // Touching blobs.
    accept(&two_blobs(64, 64, 128, 64, 128));
    accept(&two_blobs(128, 64, 64, 64, 128));
}

// ============================================================== shapes and lengths

#[test]
fn shape_product_overflow() {
    let b = blobs16();
    for dims in [&[1u64 << 32, 1 << 32][..], &[u64::MAX, 2], &[5, 1 << 62, 1]] {
        let o = obj(dims, "dense", [("data", comp("u8", 64, 16))]);
        let e = reject_kind(
            &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
            ErrorKind::ShapeOverflow,
        );
        assert_loc(&e, Some("w"), None);
    }
    // numel fits, numel × width does not.
    let o = obj(&[1 << 61], "dense", [("data", comp("f64", 64, 16))]);
    let e = reject_kind(
        &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
        ErrorKind::ShapeOverflow,
    );
    assert_eq!(e.object().map(|n| n.as_str()), Some("w"));
    // numel × width fits, × 2 for complex does not.
    let o = obj(
        &[1 << 60],
        "dense",
        [(
            "data",
            comp_with("f64", 64, 16, [("type", text("complex128"))]),
        )],
    );
    reject_kind(
        &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
        ErrorKind::ShapeOverflow,
    );
    // v0.1
    let f = v0_one(|t| set(t, "shape", shape(&[1 << 40, 1 << 40])));
    reject_kind(&f, ErrorKind::ShapeOverflow);
}

#[test]
fn dense_length_mismatch() {
    for (dims, dtype, len, expected) in [
        (&[4u64][..], "f32", 12u64, 16u64),
        (&[2, 2], "f32", 20, 16),
        (&[], "f64", 0, 8),
        (&[0], "f32", 4, 0),
        (&[3, 0], "i16", 2, 0),
        (&[5], "bool", 4, 5),
    ] {
        let mut b = Blobs::new();
        let off = b.add_len(len as usize);
        let o = obj(dims, "dense", [("data", comp(dtype, off, len))]);
        let e = reject_kind(
            &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
            ErrorKind::LengthMismatch {
                expected,
                actual: len,
            },
        );
        assert_loc(&e, Some("w"), Some("data"));
    }
    // complex64 needs × 2: 3 elements are 24 bytes, not 12.
    let mut b = Blobs::new();
    let off = b.add_len(24);
    let c = |len| {
        obj(
            &[3],
            "dense",
            [(
                "data",
                comp_with("f32", off, len, [("type", text("complex64"))]),
            )],
        )
    };
    reject_kind(
        &v1_file(&b, &encode(&manifest("1.2.0", [("c", c(12))]))),
        ErrorKind::LengthMismatch {
            expected: 24,
            actual: 12,
        },
    );
    let f = v1_file(&b, &encode(&manifest("1.2.0", [("c", c(24))])));
    let file = accept(&f);
    assert_eq!(
        file.require("c").unwrap().data().unwrap().logical_type(),
        Some(LogicalType::Complex64)
    );
    // v0.1
    let e = reject_kind(
        &v0_one(|t| set(t, "size", uint(12))),
        ErrorKind::LengthMismatch {
            expected: 16,
            actual: 12,
        },
    );
    assert_loc(&e, Some("t"), Some("data"));
}

#[test]
fn partial_element_in_unknown_format() {
    let mut b = Blobs::new();
    let off = b.add_len(6);
    for (dtype, len, width) in [("f32", 6u64, 4u64), ("f64", 4, 8), ("u16", 5, 2)] {
        let o = obj(&[1], "block_sparse_x", [("blocks", comp(dtype, off, len))]);
        let e = reject_kind(
            &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
            ErrorKind::PartialElement { length: len, width },
        );
        assert_loc(&e, Some("w"), Some("blocks"));
    }
}

// ============================================================== zstd

fn zstd_file(version: &str, ulen: Option<Value>, dims: &[u64], format: &str) -> Vec<u8> {
    let mut b = Blobs::new();
    let off = b.add_len(10);
    let mut c = comp_with("f32", off, 10, [("encoding", text("zstd"))]);
    if let Some(u) = ulen {
        push(&mut c, [("uncompressed_length", u)]);
    }
    let o = obj(dims, format, [("data", c)]);
    v1_file(&b, &encode(&manifest(version, [("z", o)])))
}

#[test]
fn zstd_without_uncompressed_length() {
    for v in ["1.2.0", "1.3.0"] {
        let e = reject_kind(
            &zstd_file(v, None, &[4], "dense"),
            ErrorKind::MissingUncompressedLength,
        );
        assert_loc(&e, Some("z"), Some("data"));
        // null means absent.
        reject_kind(
            &zstd_file(v, Some(null()), &[4], "dense"),
            ErrorKind::MissingUncompressedLength,
        );
    }
    // v1.1 (and 1.0) never wrote it: accepted.
    for v in ["1.1.0", "1.0.0"] {
        let f = zstd_file(v, None, &[4], "dense");
        let file = accept(&f);
        let d = file.require("z").unwrap().data().unwrap();
        assert_eq!(
            (d.encoding(), d.uncompressed_length(), d.length()),
            (Encoding::Zstd, None, 10)
        );
    }
    accept(&zstd_file("1.2.0", Some(uint(16)), &[4], "dense"));
}

#[test]
fn zstd_uncompressed_length_mismatch() {
    let e = reject_kind(
        &zstd_file("1.2.0", Some(uint(12)), &[4], "dense"),
        ErrorKind::LengthMismatch {
            expected: 16,
            actual: 12,
        },
    );
    assert_loc(&e, Some("z"), Some("data"));
    reject_kind(
        &zstd_file("1.1.0", Some(uint(20)), &[4], "dense"),
        ErrorKind::LengthMismatch {
            expected: 16,
            actual: 20,
        },
    );
    // Not a whole number of elements (unknown format: no shape rule).
    reject_kind(
        &zstd_file("1.2.0", Some(uint(6)), &[4], "x_fmt"),
        ErrorKind::PartialElement {
            length: 6,
            width: 4,
        },
    );
    // Compressed data larger than decoded (NOTES item 5) is fine.
    accept(&zstd_file("1.2.0", Some(uint(8)), &[2], "dense"));
}

// ============================================================== sparse and quantized

/// A CSR object `s` of shape `dims` with components (role, dtype, bytes),
/// each blob its own 64-aligned range.
fn sparse_file(version: &str, format: &str, dims: &[u64], comps: &[(&str, &str, u64)]) -> Vec<u8> {
    let mut b = Blobs::new();
    let cs: Vec<(&str, Value)> = comps
        .iter()
        .map(|&(r, d, n)| (r, comp(d, b.add_len(n as usize), n)))
        .collect();
    let o = obj(dims, format, cs);
    v1_file(&b, &encode(&manifest(version, [("s", o)])))
}

const CSR_OK: [(&str, &str, u64); 3] = [
    ("values", "f32", 8),
    ("indices", "u64", 16),
    ("indptr", "u64", 24),
];

fn csr_with(
    version: &str,
    dims: &[u64],
    edit: impl FnOnce(&mut Vec<(&'static str, &'static str, u64)>),
) -> Vec<u8> {
    let mut c = CSR_OK.to_vec();
    edit(&mut c);
    sparse_file(version, "sparse_csr", dims, &c)
}

#[test]
fn sparse_csr_baseline_accepted() {
    let f = csr_with("1.2.0", &[2, 3], |_| {});
    let file = accept(&f);
    assert_eq!(file.require("s").unwrap().format(), Format::SparseCsr);
    // nnz = 0.
    accept(&sparse_file(
        "1.2.0",
        "sparse_csr",
        &[2, 3],
        &[
            ("values", "f64", 0),
            ("indices", "u64", 0),
            ("indptr", "u64", 24),
        ],
    ));
}

#[test]
fn sparse_csr_missing_component() {
    for role in ["values", "indices", "indptr"] {
        let f = csr_with("1.2.0", &[2, 3], |c| c.retain(|x| x.0 != role));
        let e = reject_kind(&f, ErrorKind::MissingComponent { role });
        assert_eq!(e.object().map(|n| n.as_str()), Some("s"));
    }
}

#[test]
fn sparse_index_dtype() {
    // v1.2: indices and indptr MUST be u64.
    for (role, dtype, len) in [
        ("indices", "i32", 8u64),
        ("indices", "u32", 8),
        ("indices", "i64", 16),
        ("indptr", "i64", 24),
        ("indptr", "u16", 6),
    ] {
        let f = csr_with("1.2.0", &[2, 3], |c| {
            let x = c.iter_mut().find(|x| x.0 == role).unwrap();
            (x.1, x.2) = (dtype, len);
        });
        let e = reject_kind(&f, ErrorKind::IndexDType);
        assert_loc(&e, Some("s"), Some(role));
        // v1.1 allowed any integer type.
        let f = csr_with("1.1.0", &[2, 3], |c| {
            let x = c.iter_mut().find(|x| x.0 == role).unwrap();
            (x.1, x.2) = (dtype, len);
        });
        accept(&f);
    }
    // ... but not a float, nor bool, even in v1.1.
    for dtype in ["f32", "bool"] {
        for v in ["1.1.0", "1.2.0"] {
            let len = if dtype == "bool" { 2 } else { 8 };
            let f = csr_with(v, &[2, 3], |c| c[1] = ("indices", dtype, len));
            let e = reject_kind(&f, ErrorKind::IndexDType);
            assert_loc(&e, Some("s"), Some("indices"));
        }
    }
    // COO coords.
    let f = sparse_file(
        "1.2.0",
        "sparse_coo",
        &[3, 4],
        &[("values", "f32", 8), ("coords", "i64", 32)],
    );
    let e = reject_kind(&f, ErrorKind::IndexDType);
    assert_loc(&e, Some("s"), Some("coords"));
    accept(&sparse_file(
        "1.1.0",
        "sparse_coo",
        &[3, 4],
        &[("values", "f32", 8), ("coords", "i64", 32)],
    ));
}

#[test]
fn sparse_csr_bad_shape() {
    for dims in [&[6u64][..], &[1, 2, 3], &[]] {
        // indptr sized for the first dimension + 1 where there is one.
        let f = csr_with("1.2.0", dims, |_| {});
        let e = reject_kind(&f, ErrorKind::BadShape);
        assert_eq!(e.object().map(|n| n.as_str()), Some("s"));
    }
}

#[test]
fn sparse_csr_count_mismatch() {
    // indptr must have rows + 1 = 3 entries.
    for (len, actual) in [(16u64, 2u64), (32, 4), (0, 0)] {
        let f = csr_with("1.2.0", &[2, 3], |c| c[2].2 = len);
        let e = reject_kind(
            &f,
            ErrorKind::CountMismatch {
                expected: 3,
                actual,
            },
        );
        assert_loc(&e, Some("s"), Some("indptr"));
    }
    // indices must have one entry per value (2).
    for (len, actual) in [(8u64, 1u64), (24, 3), (0, 0)] {
        let f = csr_with("1.2.0", &[2, 3], |c| c[1].2 = len);
        let e = reject_kind(
            &f,
            ErrorKind::CountMismatch {
                expected: 2,
                actual,
            },
        );
        assert_loc(&e, Some("s"), Some("indices"));
    }
}

#[test]
fn sparse_coo_rules() {
    let ok = sparse_file(
        "1.2.0",
        "sparse_coo",
        &[3, 4],
        &[("values", "f32", 8), ("coords", "u64", 32)],
    );
    accept(&ok);
    // coords must hold ndim × nnz = 4 entries.
    for (len, actual) in [(24u64, 3u64), (40, 5), (16, 2)] {
        let f = sparse_file(
            "1.2.0",
            "sparse_coo",
            &[3, 4],
            &[("values", "f32", 8), ("coords", "u64", len)],
        );
        let e = reject_kind(
            &f,
            ErrorKind::CountMismatch {
                expected: 4,
                actual,
            },
        );
        assert_loc(&e, Some("s"), Some("coords"));
    }
    // 3-D: 3 × 2 = 6.
    let f = sparse_file(
        "1.2.0",
        "sparse_coo",
        &[2, 2, 2],
        &[("values", "f16", 4), ("coords", "u64", 32)],
    );
    reject_kind(
        &f,
        ErrorKind::CountMismatch {
            expected: 6,
            actual: 4,
        },
    );
    for role in ["values", "coords"] {
        let comps: Vec<_> = [("values", "f32", 8u64), ("coords", "u64", 32)]
            .into_iter()
            .filter(|c| c.0 != role)
            .collect();
        let f = sparse_file("1.2.0", "sparse_coo", &[3, 4], &comps);
        reject_kind(&f, ErrorKind::MissingComponent { role });
    }
}

#[test]
fn quantized_group_missing_component() {
    let all = [
        ("packed_weight", "i32", 16u64),
        ("scales", "f16", 4),
        ("zeros", "f16", 4),
    ];
    let mut b = Blobs::new();
    let cs: Vec<(&str, Value)> = all
        .iter()
        .map(|&(r, d, n)| (r, comp(d, b.add_len(n as usize), n)))
        .collect();
    let attrs = map([
        ("bits", uint(4)),
        ("group_size", uint(128)),
        ("packing", text("8_per_i32")),
    ]);
    let mut o = obj(&[8, 16], "quantized_group", cs.clone());
    push(&mut o, [("attributes", attrs.clone())]);
    accept(&v1_file(&b, &encode(&manifest("1.2.0", [("q", o)]))));
    for role in ["packed_weight", "scales", "zeros"] {
        let mut o = obj(
            &[8, 16],
            "quantized_group",
            cs.iter().filter(|c| c.0 != role).cloned(),
        );
        push(&mut o, [("attributes", attrs.clone())]);
        let e = reject_kind(
            &v1_file(&b, &encode(&manifest("1.2.0", [("q", o)]))),
            ErrorKind::MissingComponent { role },
        );
        assert_eq!(e.object().map(|n| n.as_str()), Some("q"));
    }
}

#[test]
fn dense_missing_data_component() {
    let f = dense_file("1.2.0", |o| {
        set(o, "components", map([("values", comp("f32", 64, 16))]))
    });
    let e = reject_kind(&f, ErrorKind::MissingComponent { role: "data" });
    assert_eq!(e.object().map(|n| n.as_str()), Some("w"));
    let f = dense_file("1.2.0", |o| set(o, "components", map([])));
    reject_kind(&f, ErrorKind::MissingComponent { role: "data" });
}

// ============================================================== names

#[test]
fn empty_names() {
    let m = manifest("1.2.0", [("", dense("f32", &[4], 64, 16))]);
    let mb = encode(&m);
    let e = reject_kind(&v1_file(&blobs16(), &mb), ErrorKind::EmptyName);
    assert_eq!(
        e.manifest_offset(),
        Some(find(&mb, &[0xa1, 0x60]) as u64 + 1)
    );
    // Empty among others.
    let mut b = Blobs::new();
    let (x, y) = (b.add_len(16), b.add_len(16));
    let m = manifest(
        "1.2.0",
        [
            ("a", dense("f32", &[4], x, 16)),
            ("", dense("f32", &[4], y, 16)),
        ],
    );
    reject_kind(&v1_file(&b, &encode(&m)), ErrorKind::EmptyName);
    // Empty role.
    let f = dense_file("1.2.0", |o| {
        push(at(o, "components"), [("", comp("u8", 64, 1))])
    });
    let e = reject_kind(&f, ErrorKind::EmptyName);
    assert_eq!(e.object().map(|n| n.as_str()), Some("w"));
    // v0.1
    reject_kind(&v0_one(|t| set(t, "name", text(""))), ErrorKind::EmptyName);
}

// ============================================================== v0.1

#[test]
fn v0_rules() {
    accept(&v0_one(|_| {}));
    for d in ["f32", "float128", "complex64", "", "Float32"] {
        reject_kind(
            &v0_one(|t| set(t, "dtype", text(d))),
            ErrorKind::UnknownDType,
        );
    }
    for en in ["middle", "LITTLE", "", "native"] {
        reject_kind(
            &v0_one(|t| push(t, [("data_endianness", text(en))])),
            ErrorKind::BadEndianness,
        );
    }
    for off in [72u64, 8, 65] {
        let e = reject_kind(
            &v0_one(|t| set(t, "offset", uint(off))),
            ErrorKind::Misaligned { offset: off },
        );
        assert_eq!(e.object().map(|n| n.as_str()), Some("t"));
    }
    let limit = blobs16().end();
    let e = reject_kind(
        &v0_one(|t| {
            set(t, "size", uint(1000));
            set(t, "shape", shape(&[250]));
        }),
        ErrorKind::OutOfBounds {
            offset: 64,
            length: 1000,
            limit,
        },
    );
    assert_eq!(e.object().map(|n| n.as_str()), Some("t"));
    reject_kind(
        &v0_one(|t| set(t, "offset", uint(0))),
        ErrorKind::OutOfBounds {
            offset: 0,
            length: 16,
            limit,
        },
    );
    // Overlap between two v0.1 tensors.
    let mut b = Blobs::new();
    b.add_len(128);
    let m = arr([
        v0_tensor("a", "uint8", &[128], 64, 128),
        v0_tensor("b", "uint8", &[64], 128, 64),
    ]);
    reject_match!(v0_file(&b, &encode(&m)), ErrorKind::Overlap { .. });
}

/// Errors found inside a v0.1 tensor map after its `name` was read name the
/// tensor, as v1.x errors name their object.
#[test]
fn v0_field_errors_name_the_tensor() {
    let cases: Vec<(Vec<u8>, ErrorKind)> = vec![
        (
            v0_one(|t| set(t, "dtype", text("f32"))),
            ErrorKind::UnknownDType,
        ),
        (
            v0_one(|t| push(t, [("data_endianness", text("middle"))])),
            ErrorKind::BadEndianness,
        ),
        (
            v0_one(|t| set(t, "encoding", text("lz4"))),
            ErrorKind::UnknownEncoding,
        ),
        (
            v0_one(|t| set(t, "size", text("16"))),
            ErrorKind::WrongType {
                field: "size",
                expected: "an unsigned integer",
            },
        ),
        (
            v0_one(|t| set(t, "shape", shape(&[1 << 40, 1 << 40]))),
            ErrorKind::ShapeOverflow,
        ),
        (
            v0_one(|t| push(t, [("layout", text("dense")), ("layout", text("dense"))])),
            ErrorKind::DuplicateKey,
        ),
    ];
    for (f, kind) in cases {
        let e = reject_kind(&f, kind);
        assert_eq!(e.object().map(|n| n.as_str()), Some("t"), "{e}");
    }
}

#[test]
fn v0_accepted_edge_cases() {
    // Big-endian data; absent endianness means little; custom fields exposed.
    let f = v0_one(|t| {
        push(
            t,
            [
                ("data_endianness", text("big")),
                ("layout", text("dense")),
                ("note", uint(5)),
            ],
        )
    });
    let file = accept(&f);
    let t = file.require("t").unwrap();
    assert_eq!(t.data().unwrap().endian(), Endian::Big);
    assert_eq!(t.attributes().get("note").and_then(|v| v.as_u64()), Some(5));
    assert!(
        t.attributes().get("name").is_none(),
        "known v0.1 keys are not attributes"
    );
    let f = v0_one(|_| {});
    assert_eq!(
        accept(&f).require("t").unwrap().data().unwrap().endian(),
        Endian::Little
    );
    // The reference writer's style: indefinite-length maps in a definite array,
    // and a zero-length tensor at the (64-aligned) manifest start.
    let mut b = Blobs::new();
    let off = b.add_len(16);
    let z = b.add_empty();
    let tensor = |name: &str, dtype: &str, dims: &[u64], off: u64, size: u64| {
        Cbor::new()
            .map_indef()
            .text("name")
            .text(name)
            .text("offset")
            .uint(off)
            .text("size")
            .uint(size)
            .text("dtype")
            .text(dtype)
            .text("layout")
            .text("dense")
            .text("shape")
            .value(&shape(dims))
            .text("encoding")
            .text("raw")
            .brk()
            .build()
    };
    let m = Cbor::new()
        .arr(2)
        .raw(&tensor("x", "float32", &[4], off, 16))
        .raw(&tensor("zero_last", "float64", &[0, 4], z, 0))
        .build();
    let f = v0_file(&b, &m);
    assert_eq!(manifest_range(&f).start as u64, z);
    let file = accept(&f);
    assert_eq!(file.len(), 2);
    assert_eq!(
        file.require("zero_last")
            .unwrap()
            .data()
            .unwrap()
            .stored_bytes()
            .unwrap(),
        &[] as &[u8]
    );
    // Empty v0.1 file: 17 bytes.
    let f = v0_file(&Blobs::new(), &[0x80]);
    assert_eq!(f.len(), 17);
    assert!(accept(&f).is_empty());
}

// ============================================================== positive edge cases

#[test]
fn unknown_format_type_and_fields_are_exposed() {
    let mut b = Blobs::new();
    let (x, y, z) = (b.add_len(4), b.add_len(8), b.add_len(7));
    let mut o = obj(
        &[4],
        "block_sparse_x",
        [
            (
                "blocks",
                comp_with(
                    "u8",
                    x,
                    4,
                    [("type", text("int4_packed_x")), ("y", text("hello"))],
                ),
            ),
            ("block_index", comp("u64", y, 8)),
        ],
    );
    push(
        &mut o,
        [("x", uint(7)), ("attributes", map([("k", text("v"))]))],
    );
    // An unknown logical type on a dense object: no length rule applies.
    let d = obj(
        &[4],
        "dense",
        [(
            "data",
            comp_with("u8", z, 7, [("type", text("int4_packed_x"))]),
        )],
    );
    let mut m = manifest("1.2.0", [("d", d), ("w", o)]);
    push(
        &mut m,
        [
            ("producer", text("hand")),
            ("extra", map([("deep", arr([uint(1), null()]))])),
        ],
    );
    let f = v1_file(&b, &encode(&m));
    let file = accept(&f);
    assert_eq!(file.fields().get("producer").and_then(|v| v.as_str()), Some("hand"));
    assert!(file.fields().get("extra").and_then(|v| v.as_map()).is_some());
    let w = file.require("w").unwrap();
    assert_eq!(w.format(), Format::Other("block_sparse_x"));
    assert_eq!(w.fields().get("x").and_then(|v| v.as_u64()), Some(7));
    assert_eq!(w.attributes().get("k").and_then(|v| v.as_str()), Some("v"));
    assert_eq!(w.component_count(), 2);
    let blocks = w.require("blocks").unwrap();
    assert_eq!(
        blocks.logical_type(),
        Some(LogicalType::Other("int4_packed_x"))
    );
    assert_eq!(
        blocks.fields().get("y").and_then(|v| v.as_str()),
        Some("hello")
    );
    assert_eq!(blocks.stored_bytes().unwrap(), &[1, 2, 3, 4]);
    assert_eq!(
        w.require("block_index")
            .unwrap()
            .as_slice::<u64>()
            .unwrap()
            .len(),
        1
    );
    let d = file.require("d").unwrap().data().unwrap();
    assert_eq!(d.logical_type(), Some(LogicalType::Other("int4_packed_x")));
    assert_eq!(d.length(), 7);
}

#[test]
fn indefinite_length_containers_are_accepted() {
    let mut b = Blobs::new();
    let off = b.add_len(24);
    let s_off = b.add_len(1);
    let comp_map = Cbor::new()
        .map_indef()
        .text("dtype")
        .text("f32")
        .text("offset")
        .uint(off)
        .text("length")
        .uint(24)
        .brk()
        .build();
    let object = Cbor::new()
        .map_indef()
        .text("shape")
        .arr_indef()
        .uint(2)
        .uint(3)
        .brk()
        .text("format")
        .text("dense")
        .text("attributes")
        .map_indef()
        .text("list")
        .arr_indef()
        .uint(1)
        .map_indef()
        .brk()
        .brk()
        .text("s")
        .text_indef()
        .text("ab")
        .text("c")
        .brk()
        .brk()
        .text("components")
        .map_indef()
        .text("data")
        .raw(&comp_map)
        .brk()
        .brk()
        .build();
    let m = Cbor::new()
        .map_indef()
        .text("version")
        .text("1.2.0")
        .text("attributes")
        .map_indef()
        .brk()
        .text("objects")
        .map_indef()
        .text("m")
        .raw(&object)
        .text("scalar")
        .value(&dense("u8", &[], s_off, 1))
        .brk()
        .brk()
        .build();
    let b2 = b;
    let f = v1_file(&b2, &m);
    let file = accept(&f);
    assert_eq!(file.len(), 2);
    let o = file.require("m").unwrap();
    assert_eq!(o.shape().dims().collect::<Vec<_>>(), [2, 3]);
    assert_eq!(o.shape().numel(), 6);
    assert_eq!(o.component_count(), 1);
    assert_eq!(o.data().unwrap().offset(), off);
    assert_eq!(o.data().unwrap().as_slice::<f32>().unwrap().len(), 6);
    assert_eq!(o.attributes().len(), 2);
    assert!(o.attributes().get("list").unwrap().as_array().is_some());
    assert_eq!(file.require("scalar").unwrap().shape().ndim(), 0);
    assert!(file.attributes().is_empty());
    // Tail-only parse agrees.
    let r = manifest_range(&f);
    let t = File::parse_tail(&f[f.len() - 16..], &f[r], f.len() as u64).unwrap();
    assert_eq!(
        t.require("m").unwrap().shape().dims().collect::<Vec<_>>(),
        [2, 3]
    );
}

#[test]
fn nulls_mean_absent() {
    let f = dense_file("1.2.0", |o| {
        push(
            data(o),
            [
                ("type", null()),
                ("digest", null()),
                ("encoding", null()),
                ("uncompressed_length", null()),
            ],
        );
        push(o, [("attributes", null())]);
    });
    let file = accept(&f);
    let w = file.require("w").unwrap();
    let d = w.data().unwrap();
    assert_eq!(d.logical_type(), None);
    assert_eq!(d.digest(), None);
    assert_eq!(d.encoding(), Encoding::Raw);
    assert_eq!(d.uncompressed_length(), None);
    assert!(w.attributes().is_empty());
    let f = root_file(|m| push(m, [("attributes", null())]));
    accept(&f);
    // A `type` equal to the dtype is no logical type.
    let f = dense_file("1.2.0", |o| push(data(o), [("type", text("f32"))]));
    assert_eq!(
        accept(&f)
            .require("w")
            .unwrap()
            .data()
            .unwrap()
            .logical_type(),
        None
    );
    // Explicit "raw".
    let f = dense_file("1.2.0", |o| push(data(o), [("encoding", text("raw"))]));
    assert_eq!(
        accept(&f).require("w").unwrap().data().unwrap().encoding(),
        Encoding::Raw
    );
}

#[test]
fn zero_length_component_at_manifest_start() {
    // NOTES item 1: a zero-length blob written last, the manifest at its offset.
    let mut b = Blobs::new();
    let x = b.add_len(64);
    let z = b.add_empty();
    assert_eq!(z, 128);
    let m = manifest(
        "1.2.0",
        [
            ("x", dense("u8", &[64], x, 64)),
            ("zero_written_last_f64", dense("f64", &[0, 4], z, 0)),
        ],
    );
    let f = v1_file(&b, &encode(&m));
    assert_eq!(manifest_range(&f).start as u64, z);
    let file = accept(&f);
    let d = file
        .require("zero_written_last_f64")
        .unwrap()
        .data()
        .unwrap();
    assert_eq!(d.offset(), z);
    assert_eq!(d.stored_bytes().unwrap(), &[] as &[u8]);
    // Tail-only too.
    let r = manifest_range(&f);
    File::parse_tail(&f[f.len() - 16..], &f[r], f.len() as u64).unwrap();
    // And with 16 data bytes (manifest at 80, zero-length at 64 sharing x's offset).
    let mut b = Blobs::new();
    let x = b.add_len(16);
    let m = manifest(
        "1.2.0",
        [
            ("x", dense("u8", &[16], x, 16)),
            ("z", dense("u8", &[0], x, 0)),
        ],
    );
    accept(&v1_file(&b, &encode(&m)));
    // Empty file: manifest at 8, nothing else.
    let f = v1_manifest_only(&encode(&manifest("1.2.0", [])));
    assert!(accept(&f).is_empty());
}

#[test]
fn objects_before_version() {
    // v1.1 rules must apply even though "objects" comes first.
    let mut b = Blobs::new();
    let c = b.add_len(24);
    let z = b.add_len(10);
    let objects = map([
        (
            "c",
            obj(&[3], "dense", [("data", comp("complex64", c, 24))]),
        ),
        (
            "z",
            obj(
                &[4],
                "dense",
                [(
                    "data",
                    comp_with("f32", z, 10, [("encoding", text("zstd"))]),
                )],
            ),
        ),
    ]);
    let m = map([
        ("objects", objects.clone()),
        ("attributes", map([("a", uint(1))])),
        ("version", text("1.1.0")),
    ]);
    let f = v1_file(&b, &encode(&m));
    let file = accept(&f);
    assert_eq!(file.version().minor, 1);
    assert_eq!(file.len(), 2);
    let d = file.require("c").unwrap().data().unwrap();
    assert_eq!(
        (d.dtype(), d.logical_type()),
        (DType::F32, Some(LogicalType::Complex64))
    );
    assert_eq!(file.object(1).unwrap().name(), "z");
    assert_eq!(file.attributes().get("a").and_then(|v| v.as_u64()), Some(1));
    // ... and v1.2 rules: the same objects are refused in a 1.2 file.
    let m = map([("objects", objects.clone()), ("version", text("1.2.0"))]);
    reject_kind(&v1_file(&b, &encode(&m)), ErrorKind::UnknownDType);
    let m = map([
        (
            "objects",
            map([(
                "z",
                obj(
                    &[4],
                    "dense",
                    [(
                        "data",
                        comp_with("f32", z, 10, [("encoding", text("zstd"))]),
                    )],
                ),
            )]),
        ),
        ("version", text("1.2.0")),
    ]);
    let e = reject_kind(
        &v1_file(&b, &encode(&m)),
        ErrorKind::MissingUncompressedLength,
    );
    assert_loc(&e, Some("z"), Some("data"));
    // Deferred validation still checks everything else.
    let m = map([("objects", objects.clone()), ("version", text("2.0.0"))]);
    reject_kind(
        &v1_file(&b, &encode(&m)),
        ErrorKind::UnsupportedVersion { major: 2 },
    );
    let m = map([
        ("objects", map([("a", dense("u8", &[1], 72, 1))])),
        ("version", text("1.2.0")),
    ]);
    reject_kind(
        &v1_file(&b, &encode(&m)),
        ErrorKind::Misaligned { offset: 72 },
    );
    let m = map([
        (
            "objects",
            map([("a", map([("shape", arr([])), ("shape", arr([]))]))]),
        ),
        ("version", text("1.2.0")),
    ]);
    reject_kind(&v1_file(&b, &encode(&m)), ErrorKind::DuplicateKey);
    let mut b2 = Blobs::new();
    let (p, q) = (b2.add_len(8), b2.add_len(8));
    let m = map([
        (
            "objects",
            map([
                ("b", dense("u8", &[8], q, 8)),
                ("a", dense("u8", &[8], p, 8)),
                ("b", dense("u8", &[8], p, 8)),
            ]),
        ),
        ("version", text("1.2.0")),
    ]);
    reject_kind(&v1_file(&b2, &encode(&m)), ErrorKind::DuplicateKey);
}

#[test]
fn tail_only_parse_matches_full_parse() {
    let mut b = Blobs::new();
    let (x, y, z) = (b.add_len(16), b.add_len(24), b.add_len(8));
    let m = manifest(
        "1.2.0",
        [
            ("b", dense("f32", &[4], x, 16)),
            (
                "a",
                obj(
                    &[3],
                    "dense",
                    [(
                        "data",
                        comp_with("f32", y, 24, [("type", text("complex64"))]),
                    )],
                ),
            ),
            ("c", obj(&[2], "x_fmt", [("p", comp("u32", z, 8))])),
        ],
    );
    let f = v1_file(&b, &encode(&m));
    let full = accept(&f);
    let r = manifest_range(&f);
    let tail = Tail::from_footer(&f[f.len() - 16..], f.len() as u64).unwrap();
    assert_eq!(tail.manifest_offset as usize, r.start);
    let t = File::parse_tail(&f[f.len() - 16..], &f[r.clone()], f.len() as u64).unwrap();
    assert_eq!(t.len(), full.len());
    assert_eq!(t.version(), full.version());
    assert!(t.bytes().is_none());
    for (a, b) in full.objects().zip(t.objects()) {
        assert_eq!(a.name(), b.name());
        assert_eq!(a.format(), b.format());
        assert_eq!(
            a.shape().dims().collect::<Vec<_>>(),
            b.shape().dims().collect::<Vec<_>>()
        );
        for (ca, cb) in a.components().zip(b.components()) {
            assert_eq!(
                (
                    ca.role(),
                    ca.dtype(),
                    ca.logical_type(),
                    ca.offset(),
                    ca.length()
                ),
                (
                    cb.role(),
                    cb.dtype(),
                    cb.logical_type(),
                    cb.offset(),
                    cb.length()
                )
            );
            assert_eq!(ca.stored_bytes().unwrap().len() as u64, ca.length());
            let e = cb.stored_bytes().unwrap_err();
            assert_eq!(e.kind(), ErrorKind::NoData);
            assert_eq!(e.role().map(|n| n.as_str()), Some(cb.role()));
        }
    }
    assert_eq!(
        t.require("b")
            .unwrap()
            .data()
            .unwrap()
            .as_slice::<f32>()
            .unwrap_err()
            .kind(),
        ErrorKind::NoData
    );
    // The whole file also works as the "footer" argument (its last 16 bytes count).
    let t2 = File::parse_tail(&f, &f[r], f.len() as u64).unwrap();
    assert_eq!(t2.len(), 3);
}

#[test]
fn names_with_nul_and_unicode_are_accepted() {
    let mut b = Blobs::new();
    let names = ["\0", "a\0b", "A", "a", ".", "日本語", "🦀/x y\t", "é"];
    let objs: Vec<_> = names
        .iter()
        .map(|&n| (n, dense("u8", &[1], b.add_len(1), 1)))
        .collect();
    let f = v1_file(&b, &encode(&manifest("1.2.0", objs)));
    let file = accept(&f);
    for n in names {
        assert_eq!(file.require(n).unwrap().name(), n);
    }
}

#[test]
fn edge_shapes_are_accepted() {
    let mut b = Blobs::new();
    let (s, one) = (b.add_len(8), b.add_len(4));
    let z = b.add_empty();
    let m = manifest(
        "1.2.0",
        [
            ("scalar", dense("f64", &[], s, 8)),
            ("one", dense("f32", &[1], one, 4)),
            ("zero", dense("f32", &[0], z, 0)),
            ("zero2", dense("i16", &[3, 0], z, 0)),
            ("zero3", dense("u8", &[0, 5, 2], z, 0)),
            ("huge_zero", dense("u8", &[u64::MAX, 0], z, 0)),
            // The prefix overflows, but a zero dimension makes the product 0.
            ("overflow_then_zero", dense("u8", &[1 << 32, 1 << 32, 0], z, 0)),
        ],
    );
    let f = v1_file(&b, &encode(&m));
    let file = accept(&f);
    assert_eq!(file.require("scalar").unwrap().shape().numel(), 1);
    assert_eq!(file.require("zero3").unwrap().shape().numel(), 0);
    assert_eq!(file.require("overflow_then_zero").unwrap().shape().numel(), 0);
}

#[test]
fn duplicate_role_past_the_first_eight_components() {
    // Roles beyond the first eight are checked through the scratch's sort.
    let mut b = Blobs::new();
    let o = b.add_len(4);
    let mut comps: Vec<(String, Value)> = (0..10).map(|i| (format!("r{i}"), comp("u8", o, 4))).collect();
    comps.push(("r3".to_string(), comp("u8", o, 4)));
    let m = manifest("1.2.0", [("x", obj(&[4], "custom_x", comps.iter().map(|(k, v)| (k.as_str(), v.clone()))))]);
    let e = reject_kind(&v1_file(&b, &encode(&m)), ErrorKind::DuplicateKey);
    assert_eq!(e.object().unwrap().as_str(), "x");
    comps.pop();
    let m = manifest("1.2.0", [("x", obj(&[4], "custom_x", comps.iter().map(|(k, v)| (k.as_str(), v.clone()))))]);
    assert_eq!(accept(&v1_file(&b, &encode(&m))).require("x").unwrap().component_count(), 10);
}

#[test]
fn nesting_and_tag_chains_within_the_limit_are_accepted() {
    let ok = Cbor::new()
        .map(1)
        .text("a")
        .nested_arrays(32, false)
        .build();
    accept(&file_raw_attrs(&ok));
    let ok = Cbor::new().map(1).text("a").nested_arrays(32, true).build();
    accept(&file_raw_attrs(&ok));
    // Tags nest their content: a chain counts toward the depth limit.
    let mut tags = vec![0xa1, 0x61, b'a'];
    tags.extend(std::iter::repeat(0xc1).take(32));
    tags.push(0x00);
    accept(&file_raw_attrs(&tags));
    let mut tags = vec![0xa1, 0x61, b'a'];
    tags.extend(std::iter::repeat(0xc1).take(10_000));
    tags.push(0x00);
    reject_kind(&file_raw_attrs(&tags), ErrorKind::TooDeep);
    // Floats of every width, negative ints, bytes, simple values in attributes.
    let a = Cbor::new()
        .map(7)
        .text("h")
        .raw(&[0xf9, 0x3e, 0x00])
        .text("s")
        .raw(&[0xfa, 0x50, 0x15, 0x02, 0xf9])
        .text("d")
        .raw(&[0xfb, 0x3f, 0xb9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a])
        .text("n")
        .raw(&[0x3b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])
        .text("b")
        .bytes(&[1, 2, 3])
        .text("u")
        .raw(&[0xf7])
        .text("t")
        .bool(true)
        .build();
    let f = file_raw_attrs(&a);
    let file = accept(&f);
    let at = file.require("w").unwrap().attributes();
    assert_eq!(at.get("h").and_then(|v| v.as_f64()), Some(1.5));
    assert_eq!(at.get("n").and_then(|v| v.as_i64()), Some(i64::MIN));
}

#[test]
fn sparse_nonconformant_v1_1_and_complex_values() {
    // v1.1 CSR with i32 indices/indptr (the 1.1 spec allowed mixed integer types).
    let f = sparse_file(
        "1.1.0",
        "sparse_csr",
        &[2, 3],
        &[
            ("values", "f32", 8),
            ("indices", "i32", 8),
            ("indptr", "i32", 12),
        ],
    );
    accept(&f);
    // Complex values count logical elements: 2 complex64 values = 16 bytes, 2 indices.
    let mut b = Blobs::new();
    let (v, i, p) = (b.add_len(16), b.add_len(16), b.add_len(24));
    let o = obj(
        &[2, 3],
        "sparse_csr",
        [
            (
                "values",
                comp_with("f32", v, 16, [("type", text("complex64"))]),
            ),
            ("indices", comp("u64", i, 16)),
            ("indptr", comp("u64", p, 24)),
        ],
    );
    accept(&v1_file(&b, &encode(&manifest("1.2.0", [("s", o)]))));
}

// ============================================================== scratch

/// Running out of caller scratch is an error, never a silently skipped check.
#[test]
fn tiny_scratch_never_skips_a_check() {
    // Non-ascending, partially overlapping blobs: the slow overlap path needs scratch.
    let f = two_blobs(128, 128, 64, 128, 192);
    for n in [0usize, 1] {
        let mut scratch = vec![[0u64; 2]; n];
        let e = File::parse_with_scratch(&f, &mut scratch).unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::Overlap { .. } | ErrorKind::ScratchTooSmall { .. }
            ),
            "{e}"
        );
    }
    // Unknown keys duplicated in a component.
    let f = dense_file("1.2.0", |o| push(data(o), [("n", uint(0)), ("n", uint(1))]));
    let mut scratch = vec![[0u64; 2]; 1];
    let e = File::parse_with_scratch(&f, &mut scratch).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::DuplicateKey | ErrorKind::ScratchTooSmall { .. }
        ),
        "{e}"
    );
}

// ============================================================== Display

#[test]
fn display_is_one_line_and_names_the_object() {
    let name = "layer.0.weight";
    let mut b = Blobs::new();
    let off = b.add_len(16);
    let files = [
        v1_file(
            &b,
            &encode(&manifest(
                "1.2.0",
                [(name, dense("f32", &[4], off + 8, 16))],
            )),
        ),
        v1_file(
            &b,
            &encode(&manifest("1.2.0", [(name, dense("f32", &[5], off, 16))])),
        ),
        v1_file(
            &b,
            &encode(&manifest(
                "1.2.0",
                [
                    (name, dense("f32", &[4], off, 16)),
                    (name, dense("f32", &[4], off, 16)),
                ],
            )),
        ),
        v1_file(
            &b,
            &encode(&manifest(
                "1.2.0",
                [(name, obj(&[4], "dense", [("x", comp("f32", off, 16))]))],
            )),
        ),
        v1_file(
            &b,
            &encode(&manifest("1.2.0", [(name, dense("f128", &[4], off, 16))])),
        ),
        v1_file(
            &b,
            &encode(&manifest("1.2.0", [(name, map([("shape", shape(&[4]))]))])),
        ),
    ];
    for f in &files {
        let e = reject(f);
        let s = e.to_string();
        assert!(!s.contains('\n') && !s.contains('\r'), "{s:?}");
        assert!(s.contains("\"layer.0.weight\""), "{s:?}");
        assert!(!format!("{e:?}").contains('\n'));
    }
    let s = reject(&files[0]).to_string();
    assert!(s.contains("offset 72") && s.contains("\"data\""), "{s}");
    // A long name is cut, and says so.
    let long = "n".repeat(200);
    let e = reject(&v1_file(
        &b,
        &encode(&manifest(
            "1.2.0",
            [(long.as_str(), dense("f32", &[5], off, 16))],
        )),
    ));
    assert!(e.object().unwrap().is_truncated());
    assert!(e.to_string().contains('…'));
}
