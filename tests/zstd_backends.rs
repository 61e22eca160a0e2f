//! Both zstd backends refuse the same frames (issue 30): a frame whose
//! content checksum is wrong, or whose declared `Frame_Content_Size` is not
//! what it decodes to. libzstd checks both itself; the ruzstd backend
//! (`ztensor::zstd::pure`) checks them as its frames pass.
//!
//! Run in the default build (the top-level functions are libzstd's, and
//! `pure` is ruzstd) and in the pure-Rust one, where both are ruzstd:
//! `cargo test -p ztensor --no-default-features --features std --test zstd_backends`.

mod common;

use common::*;
use ztensor::verify::Options;
use ztensor::{ErrorKind, File};

/// `printf 'hello hello hello hello\n' | zstd -c`: with a content checksum.
const HELLO: &[u8] = &[
    0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x6d, 0x00, 0x00, 0x38, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x20, 0x0a, 0x01, 0x00,
    0x99, 0x4b, 0x11, 0xa8, 0x7c, 0x2e, 0xa8,
];
const TEXT: &[u8] = b"hello hello hello hello\n";

/// HELLO with its checksum's last byte changed.
fn bad_checksum() -> Vec<u8> {
    let mut f = HELLO.to_vec();
    *f.last_mut().unwrap() ^= 1;
    f
}

/// HELLO as a single-segment frame declaring `size` bytes of content
/// (RFC 8878 §3.1.1.1: descriptor 0x20, a 1-byte Frame_Content_Size, no
/// window byte), no checksum.
fn declaring(size: u8) -> Vec<u8> {
    let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0x20, size];
    f.extend_from_slice(&HELLO[6..HELLO.len() - 4]);
    f
}

type Decode = fn(&[u8]) -> ztensor::Result<Vec<u8>>;

/// Each decoding function of both backends (the top-level ones are
/// libzstd's in the default build, ruzstd's in the pure-Rust one).
fn decoders() -> Vec<(String, Decode)> {
    use ztensor::zstd::{self as z, pure};
    let b = z::BACKEND;
    let into: Decode = |f| {
        let mut out = vec![0u8; 64];
        let n = ztensor::zstd::decode_into(f, &mut out)?;
        Ok(out[..n].to_vec())
    };
    let frame: Decode = |f| {
        let mut out = vec![0u8; 64];
        let n = ztensor::zstd::FrameDecoder::new()?.decode_into(f, &mut out)?;
        Ok(out[..n].to_vec())
    };
    let chunks: Decode = |f| {
        let mut v = Vec::new();
        ztensor::zstd::for_each_chunk(f, 64, |c| {
            v.extend_from_slice(c);
            Ok(())
        })?;
        Ok(v)
    };
    let pure_into: Decode = |f| {
        let mut out = vec![0u8; 64];
        let n = pure::decode_into(f, &mut out)?;
        Ok(out[..n].to_vec())
    };
    let pure_frame: Decode = |f| {
        let mut out = vec![0u8; 64];
        let n = pure::decode_frame_into(f, &mut out)?;
        Ok(out[..n].to_vec())
    };
    vec![
        (format!("{b} decode_into"), into),
        (format!("{b} decode_sized"), |f| ztensor::zstd::decode_sized(f, 64)),
        (format!("{b} decode_to_vec"), |f| ztensor::zstd::decode_to_vec(f, 64)),
        (format!("{b} for_each_chunk"), chunks),
        (format!("{b} FrameDecoder"), frame),
        ("ruzstd decode_into".into(), pure_into),
        ("ruzstd decode_sized".into(), |f| pure::decode_sized(f, 64)),
        ("ruzstd decode_to_vec".into(), |f| pure::decode_to_vec(f, 64)),
        ("ruzstd decode_frame_into".into(), pure_frame),
    ]
}

#[test]
fn valid_frames_decode_on_both_backends() {
    for (name, d) in decoders() {
        assert_eq!(d(HELLO).unwrap(), TEXT, "{name}");
        assert_eq!(d(&declaring(24)).unwrap(), TEXT, "{name}");
    }
}

#[test]
fn a_wrong_content_checksum_is_refused_by_both_backends() {
    for (name, d) in decoders() {
        assert_eq!(d(&bad_checksum()).unwrap_err().kind(), ErrorKind::ZstdChecksum, "{name}");
    }
}

#[test]
fn a_lying_frame_content_size_is_refused_by_both_backends() {
    for size in [23, 25, 30, 0] {
        for (name, d) in decoders() {
            assert!(d(&declaring(size)).is_err(), "{name}: a frame declaring {size} bytes decodes (to 24)");
        }
    }
}

/// A v1.2 file with one zstd component holding `frame` (24 bytes declared).
fn v1_2_zstd(frame: &[u8]) -> Vec<u8> {
    let mut b = Blobs::new();
    let o = b.add(frame);
    let c = comp_with("u8", o, frame.len() as u64, [("encoding", text("zstd")), ("uncompressed_length", uint(24))]);
    v1_file(&b, &encode(&manifest("1.2.0", [("z", obj(&[24], "dense", [("data", c)]))])))
}

#[test]
fn v1_files_with_such_frames_neither_read_nor_verify() {
    let good = v1_2_zstd(HELLO);
    let file = File::parse(&good).unwrap();
    assert_eq!(file.require("z").unwrap().data().unwrap().to_vec().unwrap(), TEXT);
    assert!(file.verify_with(Options::ALL, |_| {}).is_ok());
    for (what, frame) in [("checksum", bad_checksum()), ("content size 30", declaring(30)), ("content size 23", declaring(23))]
    {
        let bytes = v1_2_zstd(&frame);
        let file = File::parse(&bytes).unwrap();
        let c = file.require("z").unwrap().data().unwrap();
        assert!(c.to_vec().is_err(), "{what}: read");
        let mut out = [0u8; 24];
        assert!(c.read_into(&mut out).is_err(), "{what}: read_into");
        let report = file.verify_with(Options::ALL, |_| {});
        assert_eq!(report.problems, 1, "{what}: verify");
    }
}
