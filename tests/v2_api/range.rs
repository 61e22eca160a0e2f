//! Byte ranges of a part through the common API: raw parts copy the slice,
//! `zt.zstd-seekable/1` parts decode only the frames covering the range
//! (shown by corrupting frames outside and inside it), in memory and
//! through `fs::Reader` in both modes.

use crate::build::*;
use crate::decode::fs_err;
use ztensor::v2::seekable::SeekTable;
use ztensor::{ErrorKind, File};

const N: usize = 1000;
const FRAME: u32 = 100;

fn pattern() -> Vec<u8> {
    (0..N).map(|i| (i * 7 % 251) as u8).collect()
}

/// Object `s` (seekable, 10 frames of 100 bytes) and `r` (raw), same bytes.
fn two_parts() -> Vec<u8> {
    let opts = ztensor::write::v2::Options::non_canonical(4096).digest(ztensor::write::v2::DigestAlg::None);
    let mut w = ztensor::write::v2::Writer::with_options(Vec::new(), opts).unwrap();
    for (name, p) in [("r", raw("data", DType::U8, None, pattern())), ("s", seekable("data", DType::U8, None, pattern(), FRAME))] {
        let P(n, d, _, data, e) = p;
        let part = ztensor::write::v2::NewPart::new(n, d, data).encoding(e);
        w.add(ztensor::write::v2::NewObject::new(name, &[N as u64], "dense").part(part)).unwrap();
    }
    w.finish().unwrap()
}

/// Reads of `name`'s bytes `start..start + len` in memory and from disk (both modes).
fn ranges(bytes: &[u8], name: &str, start: u64, len: usize) -> Vec<Result<Vec<u8>, ztensor::Error>> {
    let f = File::parse(bytes).unwrap();
    let c = f.require(name).unwrap().data().unwrap();
    let mut out = vec![0u8; len];
    let mut res = vec![c.read_range_into(start, &mut out).map(|n| out[..n].to_vec())];
    let (_dir, readers) = readers(bytes);
    for r in &readers {
        let c = r.file().require(name).unwrap().data().unwrap();
        let mut out = vec![0xaa; len];
        res.push(r.read_range_into(&c, start, &mut out).map(|n| out[..n].to_vec()).map_err(fs_err));
    }
    res
}

#[test]
fn ranges_read_the_right_bytes() {
    let bytes = two_parts();
    let want = pattern();
    // Inside one frame, across frames, at both ends, the whole part, empty ones.
    for (start, len) in [(120, 50), (150, 300), (0, 10), (990, 10), (99, 2), (0, N), (500, 0), (N as u64, 0)] {
        for name in ["r", "s"] {
            for (i, got) in ranges(&bytes, name, start, len).into_iter().enumerate() {
                let got = got.unwrap_or_else(|e| panic!("{name} {start}+{len} read {i}: {e}"));
                assert_eq!(got, want[start as usize..start as usize + len], "{name} {start}+{len} read {i}");
            }
        }
    }
}

#[test]
fn ranges_past_the_end_are_refused() {
    let bytes = two_parts();
    for (start, len) in [(995, 10), (N as u64 + 1, 0), (N as u64, 1), (u64::MAX, 1)] {
        for name in ["r", "s"] {
            for (i, got) in ranges(&bytes, name, start, len).into_iter().enumerate() {
                let e = got.expect_err("past the end");
                let want = ErrorKind::RangeOutOfBounds { start, length: len as u64, size: N as u64 };
                assert_eq!(e.kind(), want, "{name} {start}+{len} read {i}");
                assert!(e.to_string().contains("past the 1000 decoded bytes"), "{e}");
            }
        }
    }
}

/// Where frame `i` of `s`'s part lies in the file.
fn frame_in_file(bytes: &[u8], i: usize) -> (usize, usize) {
    let f = File::parse(bytes).unwrap();
    let c = f.require("s").unwrap().data().unwrap();
    let t = SeekTable::parse(c.stored_bytes().unwrap(), N as u64).unwrap();
    assert_eq!(t.len(), 10);
    let fr = t.frame(i);
    ((c.offset() + fr.offset) as usize, fr.len as usize)
}

fn is_seekable_error(r: &Result<Vec<u8>, ztensor::Error>) -> bool {
    matches!(r, Err(e) if matches!(e.kind(), ErrorKind::Seekable { .. }))
}

#[test]
fn only_the_covering_frames_are_decoded() {
    let mut bytes = two_parts();
    // Frame 7 (bytes 700..800) keeps a valid header; its checksum is broken.
    let (at, len) = frame_in_file(&bytes, 7);
    bytes[at + len - 1] ^= 0xff;
    let want = pattern();
    for (start, len) in [(120, 50), (650, 50), (800, 200)] {
        for (i, got) in ranges(&bytes, "s", start, len).into_iter().enumerate() {
            assert_eq!(got.unwrap(), want[start as usize..start as usize + len], "{start}+{len} read {i}");
        }
    }
    for (start, len) in [(750, 10), (699, 2), (0, N)] {
        for (i, got) in ranges(&bytes, "s", start, len).into_iter().enumerate() {
            assert!(is_seekable_error(&got), "{start}+{len} read {i}: {got:?}");
        }
    }
    let f = File::parse(&bytes).unwrap();
    assert!(f.require("s").unwrap().data().unwrap().to_vec().is_err());
}

#[test]
fn positional_reads_read_only_the_covering_frames() {
    // Frame 7 zeroed whole: a positional range elsewhere never reads it
    // (in memory the seek table's check of every frame header refuses it).
    let mut bytes = two_parts();
    let (at, len) = frame_in_file(&bytes, 7);
    bytes[at..at + len].fill(0);
    let (_dir, readers) = readers(&bytes);
    let r = &readers[1];
    assert_eq!(r.mode(), ztensor::fs::Mode::Positional);
    let c = r.file().require("s").unwrap().data().unwrap();
    let mut out = vec![0u8; 300];
    assert_eq!(r.read_range_into(&c, 100, &mut out).unwrap(), 300);
    assert_eq!(out, pattern()[100..400]);
    let e = fs_err(r.read_range_into(&c, 690, &mut out[..20]).unwrap_err());
    assert!(matches!(e.kind(), ErrorKind::Seekable { .. }), "{e}");
    assert!(c.read_range_into(100, &mut out).is_err());
}

#[test]
fn v1_components_read_ranges_too() {
    let f = File::parse(ztensor::doc_example_file()).unwrap();
    let c = f.require("weight").unwrap().data().unwrap();
    let mut out = [0u8; 8];
    assert_eq!(c.read_range_into(4, &mut out).unwrap(), 8);
    assert_eq!(out, [2.0f32.to_le_bytes(), 3.0f32.to_le_bytes()].concat()[..]);
    let e = c.read_range_into(12, &mut out).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RangeOutOfBounds { start: 12, length: 8, size: 16 });
}

/// The hand-made seekable files of `tests/fixtures/v2/hostile.json`: a
/// range covering the whole part is refused (or read) in memory and by
/// position alike, with the same error kind as the whole-part read, and
/// every one-byte range of the valid ones matches the part.
#[test]
fn hostile_seekable_parts_fail_range_reads_as_whole_reads() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/v2");
    let table: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(format!("{dir}/hostile.json")).unwrap()).unwrap();
    let mut seen = 0;
    for (name, rec) in table["files"].as_object().unwrap().iter().filter(|(n, _)| n.starts_with("z_")) {
        let bytes = std::fs::read(format!("{dir}/hostile/{name}")).unwrap();
        let f = File::parse(&bytes).unwrap();
        let c = f.require("z").unwrap().data().unwrap();
        let whole = c.to_vec();
        let n = c.decoded_len().unwrap() as usize;
        let mut out = vec![0u8; n];
        let mem = c.read_range_into(0, &mut out).map(|_| out.clone());
        let (_dir, readers) = readers(&bytes);
        let pos = &readers[1];
        let pc = pos.file().require("z").unwrap().data().unwrap();
        let by_pos = pos.read_range_into(&pc, 0, &mut out).map(|_| out.clone()).map_err(fs_err);
        match (rec["error"].as_str().unwrap(), &whole) {
            // The digest is verify's business: reads do not check it.
            ("ok" | "DigestMismatch", Ok(w)) => {
                assert_eq!(mem.as_ref().unwrap(), w, "{name}");
                assert_eq!(by_pos.as_ref().unwrap(), w, "{name}");
                for i in 0..n {
                    let mut b = [0u8; 1];
                    pos.read_range_into(&pc, i as u64, &mut b).unwrap();
                    assert_eq!(b[0], w[i], "{name} byte {i}");
                }
            }
            (rule, Err(e)) => {
                let (m, p) = (mem.unwrap_err(), by_pos.unwrap_err());
                let same = |x: &ztensor::Error| std::mem::discriminant(&x.kind()) == std::mem::discriminant(&e.kind());
                assert!(same(&m) && same(&p), "{name} ({rule}): whole {e}, memory {m}, positional {p}");
            }
            (rule, Ok(_)) => panic!("{name}: whole read accepted, want {rule}"),
        }
        seen += 1;
    }
    assert!(seen >= 16);
}
