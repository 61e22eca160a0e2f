//! Verify on read (issue #32): every read of a whole component checks the
//! digest it has over the bytes it produces (v1.x: stored, v2: decoded),
//! mapped or positional; `Component::unverified` skips it; a range that is
//! not the whole component, and zero-copy views, are not checked.

use ztensor::fs::{Mode, Reader};
use ztensor::write::v1_2::{Checksum, NewObject, Writer};
use ztensor::write::v2 as w2;
use ztensor::{DType, ErrorKind, File};

const N: usize = 1 << 12;

fn data() -> Vec<u8> {
    (0..N as u32).flat_map(|i| (i as f32 * 0.5).to_le_bytes()).collect()
}

/// A file of one dense f32 object `w` with a digest, as `(name, bytes)`.
fn files() -> Vec<(&'static str, Vec<u8>)> {
    let d = data();
    let v1 = |c: Checksum| {
        let mut w = Writer::new(Vec::new());
        w.add(NewObject::dense("w", &[N as u64], DType::F32, &d[..]).checksum(c)).unwrap();
        w.finish().unwrap()
    };
    let v2 = |alg: w2::DigestAlg, enc: Option<w2::Encoding>| {
        let mut w = w2::Writer::with_options(Vec::new(), w2::Options::non_canonical(4096).digest(alg)).unwrap();
        let mut p = w2::NewPart::new("data", ztensor::v2::types::DType::F32, &d[..]);
        if let Some(e) = enc {
            p = p.encoding(e);
        }
        w.add(w2::NewObject::new("w", &[N as u64], "dense").part(p)).unwrap();
        w.finish().unwrap()
    };
    vec![
        ("v1.2 crc32c", v1(Checksum::Crc32c)),
        ("v1.2 sha256", v1(Checksum::Sha256)),
        ("v2 xxh3", v2(w2::DigestAlg::Xxh3, None)),
        ("v2 sha256", v2(w2::DigestAlg::Sha256, None)),
        ("v2 seekable xxh3", v2(w2::DigestAlg::Xxh3, Some(w2::Encoding::ZstdSeekable { level: 3, frame: 4096 }))),
    ]
}

/// `bytes` with one byte of `w`'s data flipped (a raw part: the value changes, nothing else).
fn corrupt(bytes: &[u8]) -> Vec<u8> {
    let f = File::parse(bytes).unwrap();
    let at = f.require("w").unwrap().data().unwrap().offset() as usize + 100;
    let mut b = bytes.to_vec();
    b[at] ^= 0x40;
    b
}

fn is_mismatch(e: &ztensor::Error, what: &str) {
    assert_eq!(e.kind(), ErrorKind::DigestMismatch, "{what}: {e}");
    assert_eq!(e.role().map(|r| r.as_str()), Some("data"), "{what}: {e}");
}

#[test]
fn good_files_read_and_say_nothing() {
    for (what, bytes) in files() {
        let f = File::parse(&bytes).unwrap();
        let c = f.require("w").unwrap().data().unwrap();
        assert!(c.digest().is_some(), "{what}");
        assert_eq!(c.to_vec().unwrap(), data(), "{what}");
        let mut out = vec![0u8; 4 * N];
        assert_eq!(c.read_into(&mut out).unwrap(), 4 * N, "{what}");
        assert_eq!(c.read_range_into(0, &mut out).unwrap(), 4 * N, "{what}");
        assert_eq!(c.to_vec_of::<f32>().unwrap().len(), N, "{what}");
    }
}

#[test]
fn a_flipped_byte_fails_every_whole_read_in_memory() {
    for (what, bytes) in files().into_iter().filter(|(w, _)| !w.contains("seekable")) {
        let bad = corrupt(&bytes);
        let f = File::parse(&bad).unwrap();
        let c = f.require("w").unwrap().data().unwrap();
        let mut out = vec![0u8; 4 * N];
        is_mismatch(&c.to_vec().unwrap_err(), what);
        is_mismatch(&c.read_into(&mut out).unwrap_err(), what);
        is_mismatch(&c.read_range_into(0, &mut out).unwrap_err(), what);
        is_mismatch(&c.to_vec_of::<f32>().unwrap_err(), what);
        is_mismatch(&c.read_elements(&mut vec![0f32; N]).unwrap_err(), what);
        // Not the whole component: no digest to check it against.
        assert_eq!(c.read_range_into(0, &mut out[..64]).unwrap(), 64, "{what}");
        // Asked not to: the corrupt bytes come back as they are.
        let v = c.unverified().to_vec().unwrap();
        assert_ne!(v, data(), "{what}");
        assert_eq!(c.unverified().read_into(&mut out).unwrap(), 4 * N, "{what}");
    }
}

#[test]
fn a_flipped_byte_fails_reads_through_fs_reader_in_both_modes() {
    let dir = tempfile::tempdir().unwrap();
    for (what, bytes) in files().into_iter().filter(|(w, _)| !w.contains("seekable")) {
        let p = dir.path().join("bad.zt");
        std::fs::write(&p, corrupt(&bytes)).unwrap();
        for mode in [Mode::Mmap, Mode::Positional] {
            let r = Reader::open_with(&p, mode).unwrap();
            let c = r.file().require("w").unwrap().data().unwrap();
            let mut out = vec![0u8; 4 * N];
            let e = r.read_into(&c, &mut out).unwrap_err();
            assert!(e.to_string().contains("digest mismatch"), "{what} {mode:?}: {e}");
            assert!(r.to_vec(&c).is_err(), "{what} {mode:?}");
            assert!(r.read_range_into(&c, 0, &mut out).is_err(), "{what} {mode:?}");
            assert_eq!(r.read_into(&c.unverified(), &mut out).unwrap(), 4 * N, "{what} {mode:?}");
        }
    }
}

#[test]
fn verify_on_read_checks_the_decoded_bytes_of_a_seekable_part() {
    // The digest covers the decoded bytes (§6.3): a digest that does not
    // match them fails the read, though every frame decodes.
    let (_, bytes) = files().pop().unwrap();
    let f = File::parse(&bytes).unwrap();
    let c = f.require("w").unwrap().data().unwrap();
    let digest = c.digest().unwrap();
    let at = bytes.windows(digest.len()).position(|w| w == digest.as_bytes()).unwrap();
    let mut bad = bytes.clone();
    // The last hex digit of the digest, changed: the manifest's XXH3 in the
    // footer must follow, so rewrite it (v2 §2).
    let last = at + digest.len() - 1;
    bad[last] = if bad[last] == b'0' { b'1' } else { b'0' };
    let n = bad.len();
    let (off, len) = (u64::from_le_bytes(bad[n - 40..n - 32].try_into().unwrap()) as usize, u64::from_le_bytes(bad[n - 32..n - 24].try_into().unwrap()) as usize);
    let h = xxhash_rust::xxh3::xxh3_64(&bad[off..off + len]);
    bad[n - 24..n - 16].copy_from_slice(&h.to_le_bytes());
    let f = File::parse(&bad).unwrap();
    let c = f.require("w").unwrap().data().unwrap();
    is_mismatch(&c.to_vec().unwrap_err(), "seekable");
    is_mismatch(&c.read_into(&mut vec![0u8; 4 * N]).unwrap_err(), "seekable");
    assert_eq!(c.unverified().to_vec().unwrap(), data());
}

/// A raw part is hashed while it is copied or read, a chunk at a time: a
/// flipped byte in any chunk (the first, a middle one, the last byte of a
/// part whose length is no multiple of the chunk or the XXH3 block) fails
/// the read with the same words as `verify_digest`, for XXH3 (v2) and
/// CRC-32C (v1.2), in memory and through `fs::Reader` in both modes.
#[test]
fn the_digest_checked_while_copying_covers_every_chunk() {
    let n = 70_001usize;
    let d: Vec<u8> = (0..n as u32).flat_map(|i| (i as f32 * 0.25).to_le_bytes()).collect();
    let mut w = Writer::new(Vec::new());
    w.add(NewObject::dense("w", &[n as u64], DType::F32, &d[..]).checksum(Checksum::Crc32c)).unwrap();
    let v1 = w.finish().unwrap();
    let mut w = w2::Writer::with_options(Vec::new(), w2::Options::non_canonical(4096).digest(w2::DigestAlg::Xxh3)).unwrap();
    w.add(w2::NewObject::new("w", &[n as u64], "dense").part(w2::NewPart::new("data", ztensor::v2::types::DType::F32, &d[..])))
        .unwrap();
    let v2 = w.finish().unwrap();
    for (what, bytes) in [("v1.2 crc32c", v1), ("v2 xxh3", v2)] {
        let mut out = vec![0u8; d.len()];
        let f = File::parse(&bytes).unwrap();
        assert_eq!(f.require("w").unwrap().data().unwrap().read_into(&mut out).unwrap(), d.len(), "{what}");
        assert_eq!(out, d, "{what}");
        let start = f.require("w").unwrap().data().unwrap().offset() as usize;
        for at in [0, 65_536 + 7, 3 * 65_536 + 1_000, d.len() - 1] {
            let mut bad = bytes.clone();
            bad[start + at] ^= 0x01;
            let f = File::parse(&bad).unwrap();
            let c = f.require("w").unwrap().data().unwrap();
            let e = c.read_into(&mut out).unwrap_err();
            is_mismatch(&e, what);
            let words = c.verify_digest().unwrap_err().to_string();
            assert_eq!(e.to_string(), words, "{what}, byte {at}");
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("bad.zt"), &bad).unwrap();
            for mode in [Mode::Mmap, Mode::Positional] {
                let r = Reader::open_with(dir.path().join("bad.zt"), mode).unwrap();
                let c = r.file().require("w").unwrap().data().unwrap();
                let e = r.read_into(&c, &mut out).unwrap_err();
                assert!(e.to_string().contains(&words), "{what}, byte {at}, {mode:?}: {e}");
                assert_eq!(r.read_into(&c.unverified(), &mut out).unwrap(), d.len(), "{what}, byte {at}, {mode:?}");
            }
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("good.zt"), &bytes).unwrap();
        for mode in [Mode::Mmap, Mode::Positional] {
            let r = Reader::open_with(dir.path().join("good.zt"), mode).unwrap();
            let c = r.file().require("w").unwrap().data().unwrap();
            out.fill(0);
            assert_eq!(r.read_into(&c, &mut out).unwrap(), d.len(), "{what}, {mode:?}");
            assert_eq!(out, d, "{what}, {mode:?}");
        }
    }
}
