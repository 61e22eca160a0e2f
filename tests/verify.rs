#![cfg(feature = "std")]
//! `File::verify_with` / `File::verify_from`: the one verification the CLI
//! and the C ABI call, from memory and through positional reads.

mod common;

use common::*;
use std::io::Write;
use ztensor::fs::{Mode, Reader};
use ztensor::verify::{Finding, Options, Report};
use ztensor::{ErrorKind, File};

fn le_u64(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A 2×4 CSR object (`m`) and a dense `u8` object (`d`) with the given digest.
fn two_objects(indices: &[u64], digest: &str) -> Vec<u8> {
    let mut b = Blobs::new();
    let v: Vec<u8> = [1.0f32, 2.0].iter().flat_map(|x| x.to_le_bytes()).collect();
    let (i, p) = (le_u64(indices), le_u64(&[0, 1, 2]));
    let (ov, oi, op) = (b.add(&v), b.add(&i), b.add(&p));
    let m = obj(
        &[2, 4],
        "sparse_csr",
        [
            ("values", comp("f32", ov, v.len() as u64)),
            ("indices", comp("u64", oi, i.len() as u64)),
            ("indptr", comp("u64", op, p.len() as u64)),
        ],
    );
    let od = b.add(b"abcd");
    let d = obj(&[4], "dense", [("data", comp_with("u8", od, 4, [("digest", text(digest))]))]);
    v1_file(&b, &encode(&manifest("1.2.0", [("m", m), ("d", d)])))
}

const ABCD_CRC: &str = "crc32c:0x92c80a31";

fn collect(f: impl FnOnce(&mut dyn FnMut(Finding<'_, '_>)) -> Report) -> (Report, Vec<String>, usize) {
    let (mut problems, mut unverifiable) = (Vec::new(), 0);
    let r = f(&mut |x| match x {
        Finding::Problem(e) => problems.push(e.to_string()),
        Finding::Unverifiable { .. } => unverifiable += 1,
    });
    (r, problems, unverifiable)
}

#[test]
fn a_good_file_reports_its_counts() {
    let bytes = two_objects(&[0, 3], ABCD_CRC);
    let f = File::parse(&bytes).unwrap();
    let (r, problems, _) = collect(|on| f.verify_with(Options::ALL, on));
    assert!(r.is_ok(), "{problems:?}");
    assert_eq!((r.objects, r.components, r.digests_checked, r.unverifiable, r.problems), (2, 4, 1, 0, 0));
    assert_eq!(r.first_problem, None);
}

#[test]
fn problems_are_counted_and_the_first_kept() {
    let mut bytes = two_objects(&[0, 9], ABCD_CRC);
    let at = find(&bytes, b"abcd");
    bytes[at] = b'X';
    let f = File::parse(&bytes).unwrap();
    let (r, problems, _) = collect(|on| f.verify_with(Options::ALL, on));
    assert_eq!(r.problems, 2, "{problems:?}");
    assert_eq!(problems.len(), 2);
    let first = r.first_problem.unwrap();
    assert_eq!(first.kind(), ErrorKind::BadData { what: "CSR column index out of range" });
    assert_eq!(first.object().unwrap().as_str(), "m");
    // Options select the checks.
    let digests = Options { data: false, ..Options::ALL };
    let r = f.verify_with(digests, |_| {});
    assert_eq!((r.problems, r.first_problem.unwrap().kind()), (1, ErrorKind::DigestMismatch));
    let data = Options { digests: false, ..Options::ALL };
    assert_eq!(f.verify_with(data, |_| {}).problems, 1);
    let none = Options { digests: false, data: false, strict: false };
    assert!(f.verify_with(none, |_| {}).is_ok());
    // The callback form counts the same.
    assert_eq!(f.verify(|_| {}, |_, _| {}), 2);
}

/// The default (`Options::ALL`) never reports a file with an unknown digest
/// algorithm as verified; `allow_unverifiable` makes it a count only.
fn unverifiable_is_a_problem_unless_allowed(f: &File<'_>, object: &str, role: &str) {
    for opts in [Options::ALL, Options::default(), Options { strict: true, ..Options::ALL }] {
        let (r, problems, unverifiable) = collect(|on| f.verify_with(opts, on));
        assert!(!r.is_ok(), "{opts:?}");
        assert_eq!((r.problems, r.unverifiable, unverifiable), (1, 1, 1));
        let e = r.first_problem.unwrap();
        assert_eq!(e.kind(), ErrorKind::UnverifiableDigest);
        assert_eq!((e.object().unwrap().as_str(), e.role().unwrap().as_str()), (object, role));
        assert_eq!(problems.len(), 1);
    }
    // The callback form: a problem too, and the part handed to `unverifiable`.
    let (mut problems, mut unverifiable) = (Vec::new(), Vec::new());
    let n = f.verify(|e| problems.push(e.kind()), |o, c| unverifiable.push((o.name().to_string(), c.role().to_string())));
    assert_eq!((n, problems), (1, vec![ErrorKind::UnverifiableDigest]));
    assert_eq!(unverifiable, vec![(object.to_string(), role.to_string())]);
    let (r, problems, unverifiable) = collect(|on| f.verify_with(Options::ALL.allow_unverifiable(), on));
    assert!(r.is_ok(), "{problems:?}");
    assert_eq!((r.unverifiable, unverifiable), (1, 1));
}

#[test]
fn unknown_v1_digest_is_counted_and_a_problem_unless_allowed() {
    let bytes = two_objects(&[0, 3], "md5:0123456789abcdef0123456789abcdef");
    let f = File::parse(&bytes).unwrap();
    // The file opens and its data reads.
    assert_eq!(f.require("d").unwrap().data().unwrap().to_vec().unwrap(), b"abcd");
    unverifiable_is_a_problem_unless_allowed(&f, "d", "data");
}

#[test]
fn unregistered_v2_digest_is_counted_and_a_problem_unless_allowed() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/v2/hostile/s_digest_other_alg.zt");
    let bytes = std::fs::read(path).unwrap();
    let f = File::parse(&bytes).unwrap();
    // The file opens and its data reads.
    assert_eq!(f.require("w").unwrap().data().unwrap().to_vec().unwrap().len(), 8);
    unverifiable_is_a_problem_unless_allowed(&f, "w", "data");
    // Through a positional reader too.
    let r = Reader::open_with(path, Mode::Positional).unwrap();
    let report = r.file().verify_from(&r, Options::ALL, |_| {});
    assert_eq!((report.problems, report.unverifiable), (1, 1));
    let report = r.file().verify_from(&r, Options::ALL.allow_unverifiable(), |_| {});
    assert_eq!((report.problems, report.unverifiable), (0, 1));
}

#[test]
fn a_tail_parsed_file_verifies_through_a_slice_source() {
    let mut bytes = two_objects(&[0, 9], ABCD_CRC);
    let at = find(&bytes, b"abcd");
    bytes[at] = b'X';
    let r = manifest_range(&bytes);
    let f = File::parse_tail(&bytes[bytes.len() - 16..], &bytes[r], bytes.len() as u64).unwrap();
    let from = f.verify_from(&bytes[..], Options::ALL, |_| {});
    let whole = File::parse(&bytes).unwrap().verify_with(Options::ALL, |_| {});
    assert_eq!(from, whole);
    assert_eq!(from.problems, 2);
    // Without a source, every component's bytes are missing.
    assert_eq!(f.verify_with(Options::ALL, |_| {}).first_problem.unwrap().kind(), ErrorKind::NoData);
}

#[test]
fn a_positional_reader_is_verified_through_its_descriptor() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.zt");
    let good = two_objects(&[0, 3], ABCD_CRC);
    let mut bad = two_objects(&[0, 9], ABCD_CRC);
    let at = find(&bad, b"abcd");
    bad[at] = b'X';
    std::fs::write(&path, &bad).unwrap();
    for mode in [Mode::Positional, Mode::Mmap] {
        let r = Reader::open_with(&path, mode).unwrap();
        let report = r.file().verify_from(&r, Options::ALL, |_| {});
        assert_eq!(report.problems, 2, "{mode:?}");
        assert_eq!(report, File::parse(&bad).unwrap().verify_with(Options::ALL, |_| {}));
    }
    // A good file with the same manifest put in place under a positional
    // handle does not change what the handle verifies: it holds the old file.
    let r = Reader::open_with(&path, Mode::Positional).unwrap();
    let other = dir.path().join("good.zt");
    std::fs::File::create(&other).unwrap().write_all(&good).unwrap();
    std::fs::rename(&other, &path).unwrap();
    assert_eq!(r.file().verify_from(&r, Options::ALL, |_| {}).problems, 2);
    assert!(Reader::open(&path).unwrap().file().verify_with(Options::ALL, |_| {}).is_ok());
}

#[test]
fn a_short_source_is_a_problem_not_a_panic() {
    let bytes = two_objects(&[0, 3], ABCD_CRC);
    let f = File::parse(&bytes).unwrap();
    let r = f.verify_from(&bytes[..100], Options::ALL, |_| {});
    assert!(r.problems > 0);
    assert!(matches!(r.first_problem.unwrap().kind(), ErrorKind::OutOfBounds { .. }));
}

// ---- v2: one per-part check for every caller (issue 30, H2 and L1) ----

use ztensor::digest::Verified;
use ztensor::v2::types::DType;
use ztensor::write::v2::{DigestAlg, Encoding, NewObject, NewPart, Options as WriteOptions, Writer};

/// A v2 file of one `u8` object `x` (content 0..n, deterministic), its
/// part stored as `enc` with the digest `alg`.
fn v2_file(enc: Encoding, alg: DigestAlg, n: usize) -> (Vec<u8>, Vec<u8>) {
    let content: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
    let mut w = Writer::with_options(Vec::new(), WriteOptions::non_canonical(4096).digest(alg)).unwrap();
    let part = NewPart::new("data", DType::U8, &content[..]).encoding(enc);
    w.add(NewObject::new("x", &[n as u64], "dense").part(part)).unwrap();
    (w.finish().unwrap(), content)
}

const SEEKABLE: Encoding = Encoding::ZstdSeekable { level: 3, frame: 4096 };

/// The good and corrupt v2 files the entry points must agree on: a raw
/// part's data byte flipped (its digest no longer matches), a seekable
/// part's frame byte flipped (the frame no longer decodes).
fn v2_cases() -> Vec<(String, Vec<u8>, bool)> {
    let mut cases = Vec::new();
    for (enc, ename) in [(Encoding::Raw, "raw"), (SEEKABLE, "seekable")] {
        for (alg, aname) in [(DigestAlg::Xxh3, "xxh3"), (DigestAlg::Sha256, "sha256"), (DigestAlg::None, "none")] {
            let (good, content) = v2_file(enc, alg, 20_000);
            let name = format!("{ename}/{aname}");
            let mut bad = good.clone();
            let at = match enc {
                Encoding::Raw => bad.windows(64).position(|w| w == &content[..64]).unwrap() + 100,
                _ => 4096 + 40, // inside the first frame's compressed bytes
            };
            bad[at] ^= 0x10;
            // A raw part without a digest: the flipped byte is still a valid `u8`.
            let detectable = !(enc == Encoding::Raw && alg == DigestAlg::None);
            cases.push((format!("{name} good"), good, true));
            cases.push((format!("{name} corrupt"), bad, !detectable));
        }
    }
    cases
}

/// Every part's check (in memory, and through a reader in both modes).
fn each_part(bytes: &[u8], path: &std::path::Path) -> Vec<[Result<Verified, String>; 3]> {
    let f = File::parse(bytes).unwrap();
    let (mapped, positional) = (Reader::open(path).unwrap(), Reader::open_with(path, Mode::Positional).unwrap());
    let mut out = Vec::new();
    for o in f.objects() {
        for c in o.components() {
            let by = |r: &Reader| r.verify_digest(&r.file().get(o.name()).unwrap().component(c.role()).unwrap());
            out.push([
                c.verify_digest().map_err(|e| e.to_string()),
                by(&mapped).map_err(|e| e.to_string()),
                by(&positional).map_err(|e| e.to_string()),
            ]);
        }
    }
    out
}

#[test]
fn a_v2_parts_check_is_the_whole_files_check_for_every_caller() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    for (name, bytes, ok) in v2_cases() {
        let path = dir.join("f.zt");
        std::fs::write(&path, &bytes).unwrap();
        let f = File::parse(&bytes).unwrap();
        let whole = f.verify_with(Options::ALL, |_| {});
        let positional = Reader::open_with(&path, Mode::Positional).unwrap();
        let by_reader = positional.verify_with(Options::ALL, |_| {});
        assert_eq!(whole.is_ok(), ok, "{name}: {:?}", whole.first_problem);
        assert_eq!(by_reader, whole, "{name}");
        for [mem, mapped, pos] in each_part(&bytes, &path) {
            assert_eq!(mem, mapped, "{name}");
            assert_eq!(mem, pos, "{name}");
            // A digest that is there is checked: over the decoded bytes.
            let digested = !name.contains("none");
            match (&mem, ok) {
                // Nothing to check as a part is loaded (the whole file's data rules still decode it).
                _ if !digested => assert_eq!(mem, Ok(Verified::NoDigest), "{name}"),
                (Ok(v), true) => assert_eq!(*v, Verified::Ok, "{name}"),
                (Err(e), false) => {
                    let first = whole.first_problem.unwrap().to_string();
                    assert_eq!(first, e.replace("(component", "(object \"x\", component"), "{name}");
                }
                _ => panic!("{name}: the part says {mem:?}, the whole file {:?}", whole.first_problem),
            }
        }
    }
}

#[test]
fn a_v2_digest_mismatch_names_the_algorithm_and_the_decoded_bytes() {
    for (alg, name) in [(DigestAlg::Xxh3, "xxh3"), (DigestAlg::Sha256, "sha256")] {
        let (mut bytes, content) = v2_file(Encoding::Raw, alg, 300);
        let at = bytes.windows(64).position(|w| w == &content[..64]).unwrap();
        bytes[at] ^= 1;
        let f = File::parse(&bytes).unwrap();
        let e = f.get("x").unwrap().component("data").unwrap().verify_digest().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::DigestMismatch);
        let want = format!("digest mismatch: the {name} of the decoded bytes differs");
        assert!(e.to_string().starts_with(&want), "{e}");
    }
}

#[test]
fn a_v1_digest_mismatch_names_the_stored_bytes() {
    let mut bytes = two_objects(&[0, 3], ABCD_CRC);
    let at = bytes.windows(4).position(|w| w == b"abcd").unwrap();
    bytes[at] = b'x';
    let f = File::parse(&bytes).unwrap();
    let e = f.get("d").unwrap().component("data").unwrap().verify_digest().unwrap_err();
    assert!(e.to_string().starts_with("digest mismatch: the crc32c of the stored bytes differs"), "{e}");
}
