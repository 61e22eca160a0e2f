//! Dtypes, logical types, encodings, zstd, sparse and quantized formats.

use super::*;

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
    let Some(file) = legacy(&f) else { return };
    let d = file.require("c64").unwrap().data().unwrap();
    assert_eq!(
        (d.dtype(), d.logical_type()),
        (DType::F32, Some(LogicalType::Complex64))
    );
    assert_eq!(typed_read_and_view::<f32>(&d).len(), 6);
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
        let Some(file) = legacy(&f) else { continue };
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
    if cfg!(feature = "v1-legacy") {
        reject_kind(
            &zstd_file("1.1.0", Some(uint(20)), &[4], "dense"),
            ErrorKind::LengthMismatch {
                expected: 16,
                actual: 20,
            },
        );
    } else {
        legacy(&zstd_file("1.1.0", Some(uint(20)), &[4], "dense"));
    }
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
        legacy(&f);
    }
    // ... but not a float, nor bool, even in v1.1.
    for dtype in ["f32", "bool"] {
        for v in ["1.1.0", "1.2.0"] {
            let len = if dtype == "bool" { 2 } else { 8 };
            let f = csr_with(v, &[2, 3], |c| c[1] = ("indices", dtype, len));
            if v == "1.1.0" && !cfg!(feature = "v1-legacy") {
                legacy(&f);
                continue;
            }
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
    legacy(&sparse_file(
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
