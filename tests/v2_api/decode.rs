//! Appendix A's byte rules (`bool` bytes 0/1; the zero final nibble of an
//! odd-length `f4_e2m1` part) refused on every read path of a v2 part, in
//! memory and through `fs::Reader` in both modes, with the error `verify`
//! gives ([`ErrorKind::BadData`]).

use crate::build::*;
use ztensor::verify::Options;
use ztensor::{Component, ErrorKind, File};

/// Whether `e` is the rule's error for part `role`.
fn is_rule(e: &ztensor::Error, rule: &str, role: &str) -> bool {
    matches!(e.kind(), ErrorKind::BadData { what } if what.contains(rule)) && e.role().map(|r| r.as_str()) == Some(role)
}

/// Every in-memory read of `c`: `Ok` when all succeed, else each path's error.
fn memory_reads(c: &Component<'_>) -> Vec<Result<(), ztensor::Error>> {
    let n = c.decoded_len().unwrap() as usize;
    let mut out = vec![0u8; n];
    vec![
        c.read_into(&mut out).map(drop),
        c.to_vec().map(drop),
        c.read_elements::<u8>(&mut out).map(drop),
        c.to_vec_of::<u8>().map(drop),
        c.read_range_into(0, &mut out).map(drop),
    ]
    .into_iter()
    .chain((c.encoding() == ztensor::Encoding::Raw).then(|| c.as_slice::<u8>().map(drop)))
    .collect()
}

/// Every read of `object`/`role` in `bytes`, in memory and from disk, fails
/// with `rule` (or, `rule` empty, succeeds); `verify` agrees.
fn every_path(bytes: &[u8], object: &str, role: &str, rule: &str) {
    let f = File::parse(bytes).unwrap();
    let c = f.require(object).unwrap().require(role).unwrap();
    let (_dir, readers) = readers(bytes);
    let mut results = memory_reads(&c);
    for r in &readers {
        let c = r.file().require(object).unwrap().require(role).unwrap();
        let mut out = vec![0u8; c.decoded_len().unwrap() as usize];
        results.push(r.read_into(&c, &mut out).map(drop).map_err(fs_err));
        results.push(r.to_vec(&c).map(drop).map_err(fs_err));
        results.push(r.read_range_into(&c, 0, &mut out).map(drop).map_err(fs_err));
    }
    for (i, res) in results.iter().enumerate() {
        match (rule, res) {
            ("", Ok(())) => {}
            ("", Err(e)) => panic!("read {i}: {e}"),
            (_, Ok(())) => panic!("read {i} accepted bytes breaking the {rule} rule"),
            (_, Err(e)) => assert!(is_rule(e, rule, role), "read {i}: {e}"),
        }
    }
    let report = f.verify_with(Options::ALL, |_| {});
    match report.first_problem {
        None => assert_eq!(rule, ""),
        Some(e) => assert!(is_rule(&e, rule, role), "verify: {e}"),
    }
}

pub fn fs_err(e: ztensor::fs::Error) -> ztensor::Error {
    match e {
        ztensor::fs::Error::Format(e) => e,
        ztensor::fs::Error::Io(e) => panic!("{e}"),
    }
}

#[test]
fn bool_bytes_are_0_or_1_on_every_read() {
    let ok = file("flags", &[3], "dense", vec![raw("data", DType::U8, Some("bool"), vec![0, 1, 1])]);
    every_path(&ok, "flags", "data", "");
    every_path(&patch(ok.clone(), "flags", "data", 1, 2), "flags", "data", "bool");
    every_path(&patch(ok, "flags", "data", 2, 0xff), "flags", "data", "bool");
}

#[test]
fn seekable_bool_bytes_are_checked_once_decoded() {
    let mk = |v: Vec<u8>| file("flags", &[300], "dense", vec![seekable("data", DType::U8, Some("bool"), v, 64)]);
    let mut v = vec![1u8; 300];
    every_path(&mk(v.clone()), "flags", "data", "");
    v[299] = 7;
    every_path(&mk(v), "flags", "data", "bool");
}

#[test]
fn odd_f4_e2m1_parts_end_in_a_zero_nibble_on_every_read() {
    let mk = |shape: &[u64], v: Vec<u8>| file("w", shape, "dense", vec![raw("data", DType::U8, Some("f4_e2m1"), v)]);
    // Three elements: the high nibble of the second byte is padding.
    every_path(&mk(&[3], vec![0xff, 0x0f]), "w", "data", "");
    every_path(&mk(&[3], vec![0xff, 0x1f]), "w", "data", "f4_e2m1");
    every_path(&mk(&[1, 3], vec![0x00, 0x80]), "w", "data", "f4_e2m1");
    // Four elements: no padding, every nibble is data.
    every_path(&mk(&[4], vec![0xff, 0xff]), "w", "data", "");
}

#[test]
fn sparse_f4_e2m1_values_count_nnz() {
    // COO over [8]: three non-zeros, so `values` holds 3 nibbles in 2 bytes.
    let coords: Vec<u8> = [1u32, 4, 6].iter().flat_map(|x| x.to_le_bytes()).collect();
    let mk = |v: Vec<u8>| {
        file("s", &[8], "zt.sparse_coo/1", vec![raw("coords", DType::U32, None, coords.clone()), raw("values", DType::U8, Some("f4_e2m1"), v)])
    };
    every_path(&mk(vec![0x21, 0x03]), "s", "values", "");
    every_path(&mk(vec![0x21, 0x43]), "s", "values", "f4_e2m1");
}

#[test]
fn structural_access_stays_unchecked() {
    let bad = patch(file("flags", &[3], "dense", vec![raw("data", DType::U8, Some("bool"), vec![0, 1, 1])]), "flags", "data", 0, 9);
    let f = File::parse(&bad).unwrap();
    let c = f.require("flags").unwrap().data().unwrap();
    assert_eq!(c.stored_bytes().unwrap(), [9, 1, 1]);
    assert_eq!(c.zero_copy_bytes().unwrap(), [9, 1, 1]);
}
