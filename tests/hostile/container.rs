//! The container: magic, footer, manifest size and placement; v0.1 files.

use super::*;

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
