//! Whole-model load (`ztensor::load`): every part into the caller's
//! buffers on 1 and 2 threads, mapped and positional, v1.2 and v2 (raw,
//! zstd, zstd-seekable, sharded); parts big enough to be read in pieces;
//! a corrupt part fails its request alone.
#![cfg(feature = "std")]

use std::path::Path;
use ztensor::fs::{Error, Mode, Reader};
use ztensor::load::{load, Options, Request, PIECE};
use ztensor::write::{v1_2, v2 as w2};
use ztensor::v2::types::DType;
use ztensor::ErrorKind;

const MIB: usize = 1 << 20;

/// Deterministic bytes, compressible enough for zstd to matter.
fn bytes(seed: u8, n: usize) -> Vec<u8> {
    (0..n).map(|i| ((i / 7) as u8).wrapping_mul(31).wrapping_add(seed) ^ (i % 5) as u8).collect()
}

/// What a test file holds: (object, part, decoded bytes).
type Want = Vec<(String, String, Vec<u8>)>;

/// A v2 file: a raw part of 2.5 pieces (read in pieces), a seekable part
/// of 1 MiB frames over 2 pieces (read in runs of frames), small raw and
/// seekable parts, a `bool` part (Appendix A's byte rule on each piece).
fn write_v2(path: &Path, opts: w2::Options) -> Want {
    let big = bytes(1, 2 * PIECE as usize + PIECE as usize / 2 + 12);
    let seek = bytes(2, 2 * PIECE as usize + 3 * MIB + 100);
    let small = bytes(3, 4096);
    let flags: Vec<u8> = (0..1000).map(|i| (i % 3 == 0) as u8).collect();
    let mut w = w2::Writer::create_with(path, opts).unwrap();
    w.add_dense("big", &[big.len() as u64 / 4], DType::F32, &big[..]).unwrap();
    let enc = w2::Encoding::ZstdSeekable { level: 1, frame: MIB as u32 };
    let part = w2::NewPart::new("data", DType::U8, &seek[..]).encoding(enc);
    w.add(w2::NewObject::new("seek", &[seek.len() as u64], "dense").part(part)).unwrap();
    let part = w2::NewPart::new("data", DType::U8, &small[..]).encoding(enc);
    w.add(w2::NewObject::new("seek_small", &[small.len() as u64], "dense").part(part)).unwrap();
    w.add_dense("small", &[small.len() as u64], DType::U8, &small[..]).unwrap();
    w.add_dense("flags", &[flags.len() as u64], DType::Bool, &flags[..]).unwrap();
    w.finish().unwrap();
    [("big", big), ("seek", seek), ("seek_small", small.clone()), ("small", small), ("flags", flags)]
        .into_iter()
        .map(|(o, b)| (o.to_owned(), "data".to_owned(), b))
        .collect()
}

/// A v1.2 file (crc32c digests): a raw part read in pieces, a zstd one, a
/// small raw one.
fn write_v1(path: &Path) -> Want {
    let big = bytes(4, 2 * PIECE as usize + 40);
    let z = bytes(5, 300_000);
    let small = bytes(6, 100);
    let mut w = v1_2::Writer::create(path).unwrap();
    w.add_dense("big", &[big.len() as u64], ztensor::DType::U8, &big).unwrap();
    let obj = v1_2::NewObject::dense("z", &[z.len() as u64], ztensor::DType::U8, &z[..]);
    w.add(obj.compression(v1_2::Compression::ZSTD)).unwrap();
    w.add_dense("small", &[small.len() as u64], ztensor::DType::U8, &small).unwrap();
    w.finish().unwrap();
    [("big", big), ("z", z), ("small", small)].into_iter().map(|(o, b)| (o.to_owned(), "data".to_owned(), b)).collect()
}

/// Load every part of `want` from `r` into fresh buffers; the results and buffers.
fn load_all(r: &Reader, want: &Want, options: Options) -> (Vec<Result<(), Error>>, Vec<Vec<u8>>) {
    let objects: Vec<_> = want.iter().map(|(o, _, _)| r.file().get(o).unwrap()).collect();
    let mut bufs: Vec<Vec<u8>> = want.iter().map(|(_, _, b)| vec![0xAA; b.len()]).collect();
    let mut reqs: Vec<Request<'_>> = objects
        .iter()
        .zip(want)
        .zip(&mut bufs)
        .map(|((o, (_, role, _)), b)| Request { object: *o, role, dst: &mut b[..] })
        .collect();
    let results = r.load(&mut reqs, options);
    drop(reqs);
    (results, bufs)
}

fn check_all(r: &Reader, want: &Want, what: &str) {
    for threads in [1, 2] {
        for verify in [true, false] {
            let (results, bufs) = load_all(r, want, Options { threads, verify });
            for (((o, _, b), res), got) in want.iter().zip(&results).zip(&bufs) {
                assert!(res.is_ok(), "{what} {threads} threads: {o}: {}", res.as_ref().unwrap_err());
                assert!(got == b, "{what} {threads} threads: {o}: bytes differ");
            }
        }
    }
}

fn tmp() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("zt-load-").tempdir().unwrap()
}

#[test]
fn v2_parts_load_whole_and_in_pieces_in_every_mode() {
    let dir = tmp();
    let path = dir.path().join("m.zt");
    let want = write_v2(&path, w2::Options::non_canonical(4096));
    for mode in [Mode::Mmap, Mode::Positional] {
        let r = Reader::open_with(&path, mode).unwrap();
        assert!(r.file().get("big").unwrap().data().unwrap().digest().is_some());
        check_all(&r, &want, &format!("v2 {mode:?}"));
    }
    // Through a caller's source (issue 33 item 1): the file as an open
    // `std::fs::File`, read by position.
    let r = Reader::from_source(std::fs::File::open(&path).unwrap()).unwrap();
    check_all(&r, &want, "v2 from_source");
    // A file held in memory loads through the same code.
    let bytes = std::fs::read(&path).unwrap();
    let f = ztensor::File::parse(&bytes).unwrap();
    let objects: Vec<_> = want.iter().map(|(o, _, _)| f.get(o).unwrap()).collect();
    let mut bufs: Vec<Vec<u8>> = want.iter().map(|(_, _, b)| vec![0; b.len()]).collect();
    let mut reqs: Vec<_> =
        objects.iter().zip(&mut bufs).map(|(o, b)| Request { object: *o, role: "data", dst: &mut b[..] }).collect();
    assert!(load(&f, &mut reqs, Options { threads: 2, verify: true }).iter().all(Result::is_ok));
    drop(reqs);
    assert!(bufs.iter().zip(&want).all(|(b, w)| *b == w.2));
}

#[test]
fn v1_2_parts_load_in_every_mode() {
    let dir = tmp();
    let path = dir.path().join("m.zt");
    let want = write_v1(&path);
    for mode in [Mode::Mmap, Mode::Positional] {
        let r = Reader::open_with(&path, mode).unwrap();
        assert!(r.file().get("big").unwrap().data().unwrap().digest().unwrap().starts_with("crc32c:"));
        check_all(&r, &want, &format!("v1.2 {mode:?}"));
    }
    let r = Reader::from_source(std::fs::File::open(&path).unwrap()).unwrap();
    check_all(&r, &want, "v1.2 from_source");
}

#[test]
fn sharded_v2_parts_load_from_their_shards() {
    let dir = tmp();
    let path = dir.path().join("m.zt");
    let want = write_v2(&path, w2::Options::non_canonical(4096).shards(PIECE));
    let r = Reader::open(&path).unwrap();
    assert!(r.file().get("big").unwrap().data().unwrap().shard().is_some());
    for mode in [Mode::Mmap, Mode::Positional] {
        check_all(&Reader::open_with(&path, mode).unwrap(), &want, &format!("sharded {mode:?}"));
    }
    // The shipped sharded fixture (upstream's layout), against whole reads.
    let r = Reader::open("tests/fixtures/v2/sharded/model.zt").unwrap();
    let want: Want = r
        .file()
        .objects()
        .map(|o| (o.name().to_owned(), "data".to_owned(), r.to_vec(&o.data().unwrap()).unwrap()))
        .collect();
    check_all(&r, &want, "sharded fixture");
}

/// Flip one byte of `object`'s stored data, `at` bytes into it.
fn corrupt(path: &Path, object: &str, at: u64) {
    let off = Reader::open(path).unwrap().file().get(object).unwrap().data().unwrap().offset() + at;
    let mut b = std::fs::read(path).unwrap();
    b[off as usize] ^= 0x40;
    std::fs::write(path, b).unwrap();
}

fn format_kind(e: &Error) -> ErrorKind {
    match e {
        Error::Format(e) => e.kind(),
        Error::Io(e) => panic!("I/O: {e}"),
    }
}

#[test]
fn a_corrupt_part_fails_its_request_alone() {
    let dir = tmp();
    let (p2, p1) = (dir.path().join("v2.zt"), dir.path().join("v1.zt"));
    let want2 = write_v2(&p2, w2::Options::non_canonical(4096));
    let want1 = write_v1(&p1);
    // v2: the pieced raw part (its digest checked after its pieces), a
    // small raw part (checked by its read), a seekable frame (its zstd
    // content checksum); v1.2: the pieced raw part (crc32c).
    corrupt(&p2, "big", PIECE + 5);
    corrupt(&p2, "small", 7);
    corrupt(&p2, "seek", 200);
    corrupt(&p1, "big", 3);
    for (path, want, bad) in [(&p2, &want2, &["big", "small", "seek"][..]), (&p1, &want1, &["big"][..])] {
        for mode in [Mode::Mmap, Mode::Positional] {
            let r = Reader::open_with(path, mode).unwrap();
            for threads in [1, 2] {
                let (results, bufs) = load_all(&r, want, Options { threads, verify: true });
                for (((o, _, b), res), got) in want.iter().zip(&results).zip(&bufs) {
                    let what = format!("{} {mode:?} {threads}: {o}", path.display());
                    match res {
                        Err(e) => {
                            assert!(bad.contains(&o.as_str()), "{what}: {e}");
                            let text = e.to_string();
                            assert!(text.contains(&format!("{o:?}")) && text.contains("\"data\""), "{what}: {text}");
                            if o != "seek" {
                                assert_eq!(format_kind(e), ErrorKind::DigestMismatch, "{what}");
                            }
                        }
                        Ok(()) => {
                            assert!(!bad.contains(&o.as_str()), "{what}: loaded");
                            assert!(got == b, "{what}: bytes differ");
                        }
                    }
                }
                // Without verification the raw parts load, corrupt bytes and all.
                let (results, bufs) = load_all(&r, want, Options { threads, verify: false });
                let big = want.iter().position(|w| w.0 == "big").unwrap();
                assert!(results[big].is_ok());
                assert!(bufs[big] != want[big].2);
            }
        }
    }
}

#[test]
fn bad_requests_fail_alone_and_duplicates_both_load() {
    let dir = tmp();
    let path = dir.path().join("m.zt");
    let want = write_v2(&path, w2::Options::non_canonical(4096));
    let r = Reader::open(&path).unwrap();
    let (big, small) = (r.file().get("big").unwrap(), r.file().get("small").unwrap());
    let n = want[0].2.len();
    let (mut a, mut b, mut short, mut long, mut unknown) = (vec![0; n], vec![0; n], vec![0; 4095], vec![0; 4097], vec![0; 4096]);
    let mut reqs = vec![
        Request { object: big, role: "data", dst: &mut a },
        Request { object: small, role: "data", dst: &mut short },
        Request { object: small, role: "weights", dst: &mut unknown },
        Request { object: big, role: "data", dst: &mut b },
        Request { object: small, role: "data", dst: &mut long },
    ];
    for threads in [1, 2] {
        let results = r.load(&mut reqs, Options { threads, verify: true });
        assert!(results[0].is_ok() && results[3].is_ok(), "{results:?}");
        assert_eq!(format_kind(results[1].as_ref().unwrap_err()), ErrorKind::BufferSize { needed: 4096, given: 4095 });
        assert_eq!(format_kind(results[4].as_ref().unwrap_err()), ErrorKind::BufferSize { needed: 4096, given: 4097 });
        let e = results[2].as_ref().unwrap_err();
        assert_eq!(format_kind(e), ErrorKind::NotFound);
        assert!(e.to_string().contains("\"small\"") && e.to_string().contains("\"weights\""), "{e}");
    }
    drop(reqs);
    assert!(a == want[0].2 && b == want[0].2);
    assert!(short.iter().chain(&long).all(|&x| x == 0), "failed requests leave their buffers alone");
    // No requests: nothing to do.
    assert!(r.load(&mut [], Options::default()).is_empty());
}
