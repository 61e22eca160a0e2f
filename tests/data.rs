#![cfg(feature = "std")]
//! The data layer: decoding, digests, deep checks, endianness, and files on
//! disk in both read modes.

mod common;
mod host_order;

use common::*;
use host_order::{typed_read, zero_copy, NOT_HOST_ORDER};
use std::path::Path;
use ztensor::fs::{Mode, Reader};
use ztensor::{ErrorKind, File};

fn le_u64(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn le_f32(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A 3×4 CSR object with the given parts.
fn csr_file(indptr: &[u64], indices: &[u64], values: &[f32]) -> Vec<u8> {
    let mut b = Blobs::new();
    let (v, i, p) = (le_f32(values), le_u64(indices), le_u64(indptr));
    let (ov, oi, op) = (b.add(&v), b.add(&i), b.add(&p));
    let o = obj(
        &[3, 4],
        "sparse_csr",
        [
            ("values", comp("f32", ov, v.len() as u64)),
            ("indices", comp("u64", oi, i.len() as u64)),
            ("indptr", comp("u64", op, p.len() as u64)),
        ],
    );
    v1_file(&b, &encode(&manifest("1.2.0", [("m", o)])))
}

fn deep(bytes: &[u8]) -> Result<(), ztensor::Error> {
    let f = File::parse(bytes)?;
    let mut first = None;
    f.verify(
        |e| {
            first.get_or_insert(e);
        },
        |_, _| {},
    );
    first.map_or(Ok(()), Err)
}

fn bad_data(bytes: &[u8]) -> &'static str {
    match deep(bytes).unwrap_err().kind() {
        ErrorKind::BadData { what } => what,
        other => panic!("expected BadData, got {other:?}"),
    }
}

#[test]
fn csr_data_checks() {
    assert!(deep(&csr_file(&[0, 1, 1, 2], &[0, 3], &[1.0, 2.0])).is_ok());
    assert_eq!(bad_data(&csr_file(&[1, 1, 1, 2], &[0, 3], &[1.0, 2.0])), "CSR indptr does not start at 0");
    assert_eq!(bad_data(&csr_file(&[0, 2, 1, 2], &[0, 3], &[1.0, 2.0])), "CSR indptr decreases");
    assert_eq!(
        bad_data(&csr_file(&[0, 1, 1, 1], &[0, 3], &[1.0, 2.0])),
        "CSR indptr does not end at the number of values"
    );
    assert_eq!(bad_data(&csr_file(&[0, 1, 1, 2], &[0, 4], &[1.0, 2.0])), "CSR column index out of range");
    // The error names object and component.
    let e = deep(&csr_file(&[0, 1, 1, 2], &[0, 4], &[1.0, 2.0])).unwrap_err();
    assert_eq!((e.object().unwrap().as_str(), e.role().unwrap().as_str()), ("m", "indices"));
}

fn coo_file(dims: &[u64], coords: &[u64], nnz: usize) -> Vec<u8> {
    let mut b = Blobs::new();
    let v = le_f32(&vec![1.0; nnz]);
    let c = le_u64(coords);
    let (ov, oc) = (b.add(&v), b.add(&c));
    let o = obj(dims, "sparse_coo", [("values", comp("f32", ov, v.len() as u64)), ("coords", comp("u64", oc, c.len() as u64))]);
    v1_file(&b, &encode(&manifest("1.2.0", [("m", o)])))
}

#[test]
fn coo_data_checks() {
    // rows first, then columns (structure of arrays)
    assert!(deep(&coo_file(&[2, 5], &[0, 1, 4, 0], 2)).is_ok());
    assert_eq!(bad_data(&coo_file(&[2, 5], &[0, 2, 4, 0], 2)), "COO coordinate out of range");
    assert_eq!(bad_data(&coo_file(&[2, 5], &[0, 1, 5, 0], 2)), "COO coordinate out of range");
}

#[test]
fn bool_bytes_must_be_0_or_1() {
    let mk = |data: &[u8]| {
        let mut b = Blobs::new();
        let o = b.add(data);
        v1_file(&b, &encode(&manifest("1.2.0", [("flags", dense("bool", &[3], o, 3))])))
    };
    assert!(deep(&mk(&[0, 1, 1])).is_ok());
    assert_eq!(bad_data(&mk(&[0, 2, 1])), "bool byte other than 0 or 1");
}

/// `printf 'hello hello hello hello\n' | zstd --no-check` (24 bytes decoded).
const HELLO: &[u8] = &[
    0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58, 0x6d, 0x00, 0x00, 0x38, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x20, 0x0a, 0x01, 0x00,
    0x99, 0x4b, 0x11,
];

fn zstd_file(frame: &[u8], dims: &[u64], ulen: Option<u64>, version: &str, digest: Option<&str>) -> Vec<u8> {
    let mut b = Blobs::new();
    let o = b.add(frame);
    let mut extra = vec![("encoding", text("zstd"))];
    if let Some(u) = ulen {
        extra.push(("uncompressed_length", uint(u)));
    }
    if let Some(d) = digest {
        extra.push(("digest", text(d)));
    }
    let c = comp_with("u8", o, frame.len() as u64, extra);
    v1_file(&b, &encode(&manifest(version, [("z", obj(dims, "dense", [("data", c)]))])))
}

#[test]
fn zstd_decodes_exactly_the_declared_length() {
    let f = zstd_file(HELLO, &[24], Some(24), "1.2.0", None);
    let file = File::parse(&f).unwrap();
    assert_eq!(file.require("z").unwrap().data().unwrap().to_vec().unwrap(), b"hello hello hello hello\n");
    assert!(deep(&f).is_ok());
    // v1.1 without uncompressed_length: the shape implies it.
    let f = zstd_file(HELLO, &[24], None, "1.1.0", None);
    assert_eq!(File::parse(&f).unwrap().require("z").unwrap().data().unwrap().to_vec().unwrap().len(), 24);
    // Frame decodes to more than declared: stopped at the limit.
    let f = zstd_file(HELLO, &[20], Some(20), "1.2.0", None);
    let c = File::parse(&f).unwrap().require("z").unwrap().data().unwrap();
    assert_eq!(c.to_vec().unwrap_err().kind(), ErrorKind::DecodedTooLarge { limit: 20 });
    // Frame decodes to less than declared.
    let f = zstd_file(HELLO, &[30], Some(30), "1.2.0", None);
    let c = File::parse(&f).unwrap().require("z").unwrap().data().unwrap();
    assert_eq!(c.to_vec().unwrap_err().kind(), ErrorKind::LengthMismatch { expected: 30, actual: 24 });
    assert!(deep(&f).is_err());
    // Truncated frame.
    let f = zstd_file(&HELLO[..HELLO.len() - 4], &[24], Some(24), "1.2.0", None);
    let c = File::parse(&f).unwrap().require("z").unwrap().data().unwrap();
    assert_eq!(c.to_vec().unwrap_err().kind(), ErrorKind::Decompress);
}

#[test]
fn decompression_bomb_is_refused_before_allocating() {
    // Declares 2^40 bytes from 22 stored bytes: impossible for zstd, refused up front.
    let f = zstd_file(HELLO, &[1 << 40], Some(1 << 40), "1.2.0", None);
    let c = File::parse(&f).unwrap().require("z").unwrap().data().unwrap();
    assert!(matches!(c.to_vec().unwrap_err().kind(), ErrorKind::DecodedTooLarge { .. }));
    let mut small = [0u8; 16];
    assert!(matches!(c.read_into(&mut small).unwrap_err().kind(), ErrorKind::DecodedTooLarge { .. }));
    // Undeclared size (unknown format): the caller's limit holds.
    let mut b = Blobs::new();
    let o = b.add(HELLO);
    let comp = comp_with("u8", o, HELLO.len() as u64, [("encoding", text("zstd"))]);
    let f = v1_file(&b, &encode(&manifest("1.1.0", [("z", obj(&[1], "custom_x", [("blob", comp)]))])));
    let c = File::parse(&f).unwrap().require("z").unwrap().require("blob").unwrap();
    assert_eq!(c.to_vec_with_limit(10).unwrap_err().kind(), ErrorKind::DecodedTooLarge { limit: 10 });
    assert_eq!(c.to_vec_with_limit(24).unwrap().len(), 24);
}

#[test]
fn digests_wrong_malformed_unknown() {
    let sha = "sha256:b9e4a4d9a2c3e4a7b8d3f7e6c8a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3";
    let f = zstd_file(HELLO, &[24], Some(24), "1.2.0", Some(sha));
    let c = File::parse(&f).unwrap().require("z").unwrap().data().unwrap();
    assert_eq!(c.verify_digest().unwrap_err().kind(), ErrorKind::DigestMismatch);
    let crc = format!("crc32c:0x{:08x}", ztensor::digest::crc32c(HELLO));
    let f = zstd_file(HELLO, &[24], Some(24), "1.2.0", Some(&crc));
    let c = File::parse(&f).unwrap().require("z").unwrap().data().unwrap();
    assert_eq!(c.verify_digest().unwrap(), ztensor::digest::Verified::Ok);
    let f = zstd_file(HELLO, &[24], Some(24), "1.2.0", Some("sha256:xyz"));
    let c = File::parse(&f).unwrap().require("z").unwrap().data().unwrap();
    assert_eq!(c.verify_digest().unwrap_err().kind(), ErrorKind::BadDigest);
    let f = zstd_file(HELLO, &[24], Some(24), "1.2.0", Some("blake3:00"));
    let c = File::parse(&f).unwrap().require("z").unwrap().data().unwrap();
    assert_eq!(c.verify_digest().unwrap(), ztensor::digest::Verified::Unverifiable);
    let file = File::parse(&f).unwrap();
    // Unknown algorithm: not verified (a problem), and handed to `unverifiable`.
    let mut unverifiable = 0;
    assert_eq!(file.verify(|e| assert_eq!(e.kind(), ErrorKind::UnverifiableDigest), |_, _| unverifiable += 1), 1);
    assert_eq!(unverifiable, 1);
}

#[test]
fn v0_big_endian_data_is_converted() {
    let mut b = Blobs::new();
    let be: Vec<u8> = [1.5f32, -2.0, 3.25].iter().flat_map(|x| x.to_be_bytes()).collect();
    let o = b.add(&be);
    let mut t = v0_tensor("w", "float32", &[3], o, 12);
    push(&mut t, [("data_endianness", text("big"))]);
    let f = v0_file(&b, &encode(&arr([t])));
    let file = File::parse(&f).unwrap();
    let c = file.require("w").unwrap().data().unwrap();
    assert_eq!(c.endian(), ztensor::Endian::Big);
    assert_eq!(c.to_vec_of::<f32>().unwrap(), [1.5, -2.0, 3.25]);
    let mut out = [0f32; 3];
    c.read_elements(&mut out).unwrap();
    assert_eq!(out, [1.5, -2.0, 3.25]);
    // Big-endian elements are not in host order on any host (the core does
    // not special-case a big-endian host reading big-endian data).
    assert_eq!(c.as_slice::<f32>().unwrap_err().kind(), NOT_HOST_ORDER);
}

fn fixtures() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut v = Vec::new();
    for d in ["v0.1", "v1.1", "v1.2"] {
        for e in std::fs::read_dir(root.join(d)).unwrap() {
            let p = e.unwrap().path();
            let n = p.file_name().unwrap().to_string_lossy().to_string();
            if n.ends_with(".zt") && !n.contains("nonconformant") && n != "names_edge.zt" {
                v.push(p);
            }
        }
    }
    v
}

#[test]
fn reference_fixtures_pass_the_deep_check() {
    for p in fixtures() {
        let bytes = std::fs::read(&p).unwrap();
        deep(&bytes).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    }
}

#[test]
fn both_read_modes_give_the_same_bytes() {
    for p in fixtures() {
        let mapped = Reader::open(&p).unwrap();
        let positional = Reader::open_with(&p, Mode::Positional).unwrap();
        assert_eq!(positional.mode(), Mode::Positional);
        assert_eq!(mapped.file().len(), positional.file().len());
        for (a, b) in mapped.file().objects().zip(positional.file().objects()) {
            for (ca, cb) in a.components().zip(b.components()) {
                let va = mapped.to_vec(&ca).unwrap();
                assert_eq!(va, positional.to_vec(&cb).unwrap(), "{}: {}", p.display(), a.name());
                let mut buf = vec![0u8; va.len()];
                assert_eq!(positional.read_into(&cb, &mut buf).unwrap(), va.len());
                assert_eq!(buf, va);
                // Positional mode never maps the data.
                assert_eq!(cb.stored_bytes().unwrap_err().kind(), ErrorKind::NoData);
            }
        }
    }
}

#[test]
fn mapped_raw_components_are_64_byte_aligned() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v1.2/dense_all_dtypes.zt");
    let r = Reader::open(p).unwrap();
    for o in r.file().objects() {
        let b = o.data().unwrap().stored_bytes().unwrap();
        assert_eq!(b.as_ptr() as usize % 64, 0, "{}", o.name());
    }
}

#[test]
fn file_errors_are_clear() {
    let dir = std::env::temp_dir().join(format!("zt-data-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("short.zt");
    std::fs::write(&p, b"ZTEN1000").unwrap();
    for mode in [Mode::Mmap, Mode::Positional] {
        match Reader::open_with(&p, mode).unwrap_err() {
            ztensor::fs::Error::Format(e) => assert!(matches!(e.kind(), ErrorKind::FileTooSmall { .. })),
            other => panic!("{other}"),
        }
    }
    assert!(matches!(Reader::open(dir.join("missing.zt")).unwrap_err(), ztensor::fs::Error::Io(_)));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sparse_parts_and_quant_params() {
    let f = csr_file(&[0, 1, 1, 2], &[0, 3], &[1.0, 2.0]);
    let file = File::parse(&f).unwrap();
    let m = file.require("m").unwrap();
    let csr = m.csr().unwrap();
    assert_eq!((csr.rows, csr.cols), (3, 4));
    // Blobs in a Vec may not be 8-aligned in memory: typed reads always work.
    assert_eq!(csr.indptr.to_vec_of::<u64>().unwrap(), [0, 1, 1, 2]);
    assert!(matches!(m.coo().unwrap_err().kind(), ErrorKind::WrongType { field: "format", .. }));
    let f = coo_file(&[2, 5], &[0, 1, 4, 0], 2);
    let file = File::parse(&f).unwrap();
    let coo = file.require("m").unwrap().coo().unwrap();
    assert_eq!(coo.ndim, 2);
    assert_eq!(coo.coords.to_vec_of::<u64>().unwrap(), [0, 1, 4, 0]);

    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v1.2/quantized.zt");
    let r = Reader::open(p).unwrap();
    let q = r.file().objects().find(|o| o.format() == ztensor::Format::QuantizedGroup).unwrap();
    let params = q.quant_params();
    assert!(params.bits.is_some() && params.group_size.is_some() && params.packing.is_some(), "{params:?}");
    // Mapped files are aligned: zero-copy CSR and COO parts on a
    // little-endian host, the byte-order refusal on a big-endian one; the
    // typed reads of the same parts on both.
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v1.2/sparse.zt");
    let r = Reader::open(p).unwrap();
    let csr = r.file().objects().find(|o| o.format() == ztensor::Format::SparseCsr).unwrap().csr().unwrap();
    let indptr = typed_read::<u64>(&csr.indptr);
    assert_eq!(indptr.len() as u64, csr.rows + 1);
    if let Some(view) = zero_copy(csr.indptr_u64()) {
        assert_eq!(view, indptr);
    }
    let indices = typed_read::<u64>(&csr.indices);
    assert_eq!(indices.len() as u64, indptr[indptr.len() - 1]);
    if let Some(view) = zero_copy(csr.indices_u64()) {
        assert_eq!(view, indices);
    }
    let coo = r.file().objects().find(|o| o.format() == ztensor::Format::SparseCoo).unwrap().coo().unwrap();
    let coords = typed_read::<u64>(&coo.coords);
    assert_eq!(coords.len() % coo.ndim, 0);
    if let Some(view) = zero_copy(coo.coords_u64()) {
        assert_eq!(view, coords);
    }
    let nnz = coords.len() / coo.ndim;
    for d in 0..coo.ndim {
        if let Some(view) = zero_copy(coo.dim_u64(d)) {
            assert_eq!(view, &coords[d * nnz..(d + 1) * nnz]);
        }
    }
}

#[test]
fn quantized_group_params_are_type_checked_at_open() {
    let mut b = Blobs::new();
    let (p, s, z) = (b.add_len(8), b.add_len(4), b.add_len(4));
    let mk = |attrs: Value| {
        let mut o = obj(&[4, 4], "quantized_group", [("packed_weight", comp("i32", p, 8)), ("scales", comp("f16", s, 4)), ("zeros", comp("f16", z, 4))]);
        push(&mut o, [("attributes", attrs)]);
        v1_file(&b, &encode(&manifest("1.2.0", [("q", o)])))
    };
    let good = mk(map([("bits", uint(4)), ("group_size", uint(2)), ("packing", text("8_per_i32"))]));
    let file = File::parse(&good).unwrap();
    assert_eq!(
        file.require("q").unwrap().quant_params(),
        ztensor::QuantParams { bits: Some(4), group_size: Some(2), packing: Some("8_per_i32") }
    );
    let bad = mk(map([("bits", text("four"))]));
    assert_eq!(
        File::parse(&bad).unwrap_err().kind(),
        ErrorKind::WrongType { field: "bits", expected: "an unsigned integer" }
    );
    let bad = mk(map([("packing", uint(8))]));
    assert_eq!(File::parse(&bad).unwrap_err().kind(), ErrorKind::WrongType { field: "packing", expected: "a text string" });
}

#[test]
fn v1_1_csr_with_undeclared_zstd_values_checks_against_decoded_count() {
    use ztensor::write::v1_2::{Compression, NewObject, Writer};
    // Get a real zstd frame of 2 f32 values from our writer.
    let mut w = Writer::new(Vec::new());
    w.add(NewObject::dense_slice("v", &[2], &[1.0f32, 2.0]).compression(Compression::ZSTD)).unwrap();
    let bytes = w.finish().unwrap();
    let frame = File::parse(&bytes).unwrap().require("v").unwrap().data().unwrap().stored_bytes().unwrap().to_vec();

    let mk = |indptr: &[u64]| {
        let mut b = Blobs::new();
        let (i, p) = (le_u64(&[0, 3]), le_u64(indptr));
        let (ov, oi, op) = (b.add(&frame), b.add(&i), b.add(&p));
        let values = comp_with("f32", ov, frame.len() as u64, [("encoding", text("zstd"))]);
        let o = obj(
            &[3, 4],
            "sparse_csr",
            [("values", values), ("indices", comp("u64", oi, 16)), ("indptr", comp("u64", op, p.len() as u64))],
        );
        v1_file(&b, &encode(&manifest("1.1.0", [("m", o)])))
    };
    assert!(deep(&mk(&[0, 1, 1, 2])).is_ok());
    assert_eq!(bad_data(&mk(&[0, 1, 1, 1])), "CSR indptr does not end at the number of values");
}

#[test]
fn undeclared_zstd_size_must_be_whole_elements() {
    use ztensor::write::v1_2::{Compression, NewObject, Writer};
    // A real zstd frame of 6 bytes, from our writer.
    let mut w = Writer::new(Vec::new());
    w.add(NewObject::dense("v", &[6], ztensor::DType::U8, &b"hello\n"[..]).compression(Compression::ZSTD)).unwrap();
    let bytes = w.finish().unwrap();
    let frame = File::parse(&bytes).unwrap().require("v").unwrap().data().unwrap().stored_bytes().unwrap().to_vec();
    // v1.1, a format of its own, no uncompressed_length: nothing declares the size.
    let mk = |dtype: &str| {
        let mut b = Blobs::new();
        let o = b.add(&frame);
        let comp = comp_with(dtype, o, frame.len() as u64, [("encoding", text("zstd"))]);
        v1_file(&b, &encode(&manifest("1.1.0", [("z", obj(&[1], "custom_x", [("blob", comp)]))])))
    };
    let f = mk("u16");
    let c = File::parse(&f).unwrap().require("z").unwrap().require("blob").unwrap();
    assert_eq!(c.to_vec().unwrap(), b"hello\n");
    // 6 bytes are not whole f32 elements: refused, by every decoding path.
    let f = mk("f32");
    let file = File::parse(&f).unwrap();
    let c = file.require("z").unwrap().require("blob").unwrap();
    assert_eq!(c.to_vec().unwrap_err().kind(), ErrorKind::PartialElement { length: 6, width: 4 });
    let mut buf = [0u8; 64];
    assert_eq!(c.read_into(&mut buf).unwrap_err().kind(), ErrorKind::PartialElement { length: 6, width: 4 });
    assert_eq!(
        file.require("z").unwrap().check_data().unwrap_err().kind(),
        ErrorKind::PartialElement { length: 6, width: 4 }
    );
}

/// Sparse indices have a decoded path that works on any host (big-endian
/// hosts refuse the zero-copy views), any encoding and any integer dtype.
#[test]
fn sparse_indices_decode_on_any_host() {
    let f = csr_file(&[0, 1, 1, 2], &[0, 3], &[1.0, 2.0]);
    let file = File::parse(&f).unwrap();
    let csr = file.require("m").unwrap().csr().unwrap();
    assert_eq!(csr.indptr_to_vec().unwrap(), [0, 1, 1, 2]);
    assert_eq!(csr.indices_to_vec().unwrap(), [0, 3]);
    if cfg!(target_endian = "big") {
        assert_eq!(
            csr.indices_u64().unwrap_err().kind(),
            ErrorKind::NotZeroCopy { reason: "elements are not in host byte order" }
        );
    } else if let Ok(view) = csr.indices_u64() {
        // (A Vec may leave the blob unaligned for u64: then there is no view.)
        assert_eq!(view, csr.indices_to_vec().unwrap());
    }
    let f = coo_file(&[2, 5], &[0, 1, 4, 0], 2);
    let file = File::parse(&f).unwrap();
    let coo = file.require("m").unwrap().coo().unwrap();
    assert_eq!(coo.coords_to_vec().unwrap(), [0, 1, 4, 0]);
    assert_eq!((coo.dim_to_vec(0).unwrap(), coo.dim_to_vec(1).unwrap()), (vec![0, 1], vec![4, 0]));
    assert_eq!(coo.dim_to_vec(2).unwrap_err().kind(), ErrorKind::NotFound);

    // v1.1 allows other integer dtypes: i32 indices decode to u64, a negative one is bad data.
    let mut b = Blobs::new();
    let v: Vec<u8> = [1.0f32, 2.0].iter().flat_map(|x| x.to_le_bytes()).collect();
    let i: Vec<u8> = [3i32, -1].iter().flat_map(|x| x.to_le_bytes()).collect();
    let p: Vec<u8> = [0i32, 1, 2].iter().flat_map(|x| x.to_le_bytes()).collect();
    let (ov, oi, op) = (b.add(&v), b.add(&i), b.add(&p));
    let o = obj(
        &[2, 4],
        "sparse_csr",
        [
            ("values", comp("f32", ov, 8)),
            ("indices", comp("i32", oi, 8)),
            ("indptr", comp("i32", op, 12)),
        ],
    );
    let f = v1_file(&b, &encode(&manifest("1.1.0", [("m", o)])));
    let file = File::parse(&f).unwrap();
    let csr = file.require("m").unwrap().csr().unwrap();
    assert_eq!(csr.indptr_to_vec().unwrap(), [0, 1, 2]);
    assert_eq!(csr.indices_to_vec().unwrap_err().kind(), ErrorKind::BadData { what: "negative index" });
    assert_eq!(csr.indices_u64().unwrap_err().kind(), ErrorKind::TypeMismatch);
}

/// The bound on a declared zstd size and the zero-copy refusals are public,
/// so callers (the C ABI) use the core's rule instead of a copy.
#[test]
fn plausible_len_and_zero_copy_refusal_are_the_cores_rules() {
    let f = zstd_file(HELLO, &[24], Some(24), "1.2.0", None);
    let file = File::parse(&f).unwrap();
    let c = file.require("z").unwrap().data().unwrap();
    assert_eq!(c.plausible_len().unwrap(), Some(24));
    assert_eq!(c.zero_copy_refusal(), Some("the component is compressed"));
    assert_eq!(c.zero_copy_bytes().unwrap_err().kind(), ErrorKind::NotZeroCopy { reason: "the component is compressed" });
    // A declared size the stored bytes cannot produce is refused before any allocation.
    let max = HELLO.len() as u64 * ztensor::read::MAX_ZSTD_RATIO + ztensor::read::ZSTD_MAX_BLOCK;
    let f = zstd_file(HELLO, &[max + 1], Some(max + 1), "1.2.0", None);
    let file = File::parse(&f).unwrap();
    let c = file.require("z").unwrap().data().unwrap();
    assert_eq!(c.plausible_len().unwrap_err().kind(), ErrorKind::DecodedTooLarge { limit: max });
    assert_eq!(c.to_vec().unwrap_err().kind(), ErrorKind::DecodedTooLarge { limit: max });
    // A raw little-endian f32 component is viewable in place on little-endian hosts only.
    let f = File::parse(ztensor::doc_example_file()).unwrap();
    let w = f.require("weight").unwrap().data().unwrap();
    assert_eq!(w.zero_copy_refusal().is_none(), cfg!(target_endian = "little"));
    assert_eq!(w.zero_copy_bytes().is_ok(), cfg!(target_endian = "little"));
}
