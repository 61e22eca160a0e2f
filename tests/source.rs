//! `fs::Reader::from_source`: a file read through a caller's positional
//! [`Source`] (issue #33): the tail alone at open (≤ 2 reads for v1.2 and
//! v2), a part's own bytes when it is read, and errors (never a panic)
//! when the source fails, reads short or changes size.

use std::io;
use std::sync::{Arc, Mutex};
use ztensor::fs::{Error, Reader};
use ztensor::source::{Source, SPECULATIVE_TAIL};
use ztensor::ErrorKind;

const FIX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// Bytes in memory that log every read and can be made to fail.
#[derive(Clone, Default)]
struct Logged {
    bytes: Arc<Mutex<Vec<u8>>>,
    /// The size it announces (the bytes' length unless set).
    size: Option<u64>,
    reads: Arc<Mutex<Vec<(u64, usize)>>>,
    /// Fail every read from this one on (counted from 0), with this code.
    fail_from: Option<(usize, i32)>,
    /// Shards, by name.
    shards: Vec<(String, Vec<u8>)>,
}

impl Logged {
    fn new(bytes: Vec<u8>) -> Logged {
        Logged { bytes: Arc::new(Mutex::new(bytes)), ..Logged::default() }
    }
    fn file(path: &str) -> Logged {
        Logged::new(std::fs::read(format!("{FIX}/{path}")).unwrap())
    }
    fn take(&self) -> Vec<(u64, usize)> {
        std::mem::take(&mut *self.reads.lock().unwrap())
    }
}

impl Source for Logged {
    fn size(&self) -> u64 {
        self.size.unwrap_or(self.bytes.lock().unwrap().len() as u64)
    }

    fn read_at(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        let mut reads = self.reads.lock().unwrap();
        reads.push((offset, out.len()));
        if let Some((n, code)) = self.fail_from {
            if reads.len() > n {
                return Err(io::Error::other(format!("read callback returned {code}")));
            }
        }
        self.bytes.lock().unwrap().as_slice().read_at(offset, out)
    }

    fn open_shard(&self, name: &str) -> io::Result<Box<dyn Source>> {
        let (_, b) = self.shards.iter().find(|(n, _)| n == name).ok_or(io::ErrorKind::NotFound)?;
        Ok(Box::new(b.clone()))
    }
}

fn fixtures(dir: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(format!("{FIX}/{dir}"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".zt"))
        .map(|n| format!("{dir}/{n}"))
        .collect();
    v.sort();
    v
}

fn names(r: &Reader) -> Vec<String> {
    r.file().objects().map(|o| o.name().to_string()).collect()
}

#[test]
fn opening_reads_the_tail_in_at_most_two_reads() {
    let mut files = fixtures("v1.2");
    files.extend(fixtures("v2/valid")); // written by upstream ztensor 2.1.2
    let (mut one, mut two) = (0, 0);
    for path in files {
        let Ok(mapped) = Reader::open(format!("{FIX}/{path}")) else {
            continue; // names_edge.zt breaks v1.2's rules
        };
        let src = Logged::file(&path);
        let len = src.size();
        let r = Reader::from_source(src.clone()).unwrap_or_else(|e| panic!("{path}: {e}"));
        let reads = src.take();
        let tail = ztensor::Tail::from_footer(&src.bytes.lock().unwrap()[len as usize - 40..], len).unwrap();
        // One read of the last 64 KiB when they hold the manifest, else one more for it.
        let fits = tail.manifest_offset >= len.saturating_sub(SPECULATIVE_TAIL);
        assert_eq!(reads.len(), if fits { 1 } else { 2 }, "{path}: {reads:?}");
        assert_eq!(reads[0], (len.saturating_sub(SPECULATIVE_TAIL), SPECULATIVE_TAIL.min(len) as usize), "{path}");
        if !fits {
            assert_eq!(reads[1], (tail.manifest_offset, tail.manifest_len as usize), "{path}");
        }
        if fits { one += 1 } else { two += 1 }
        assert_eq!(names(&r), names(&mapped), "{path}");
        assert_eq!(r.size(), len);
    }
    // Both cases were seen (many_objects.zt and objects_20k.zt have large manifests).
    assert!(one > 10 && two >= 2, "{one} {two}");
}

#[test]
fn a_v0_1_file_is_opened_in_as_few_reads_as_its_layout_allows() {
    for path in fixtures("v0.1") {
        let src = Logged::file(&path);
        let r = Reader::from_source(src.clone()).unwrap();
        // These files are under 64 KiB: one read holds the header, the manifest and its size.
        assert_eq!(src.take().len(), 1, "{path}");
        assert_eq!(names(&r), names(&Reader::open(format!("{FIX}/{path}")).unwrap()));
    }
    // A larger v0.1 file has no footer magic: its header is read to tell it from garbage.
    let mut big = std::fs::read(format!("{FIX}/v0.1/names.zt")).unwrap();
    let t = ztensor::Tail::from_file(&big).unwrap();
    let tail = big.split_off(t.manifest_offset as usize);
    big.resize(big.len() + 2 * SPECULATIVE_TAIL as usize, 0);
    big.extend_from_slice(&tail);
    let w = Logged::new(big);
    let r = Reader::from_source(w.clone()).unwrap();
    let reads = w.take();
    assert_eq!(reads.len(), 2, "{reads:?}");
    assert!(reads.contains(&(0, 8)), "{reads:?}");
    assert_eq!(names(&r), names(&Reader::open(format!("{FIX}/v0.1/names.zt")).unwrap()));
}

#[test]
fn reading_a_part_reads_only_its_bytes() {
    for path in ["v1.2/dense_all_dtypes.zt", "v2/valid/types_canonical.zt", "v1.2/zstd.zt"] {
        let src = Logged::file(&path);
        let r = Reader::from_source(src.clone()).unwrap();
        let mapped = Reader::open(format!("{FIX}/{path}")).unwrap();
        for o in r.file().objects() {
            for c in o.components() {
                src.take();
                let v = r.to_vec(&c).unwrap_or_else(|e| panic!("{path}/{}: {e}", o.name()));
                let reads = src.take();
                let want = if c.length() == 0 { vec![] } else { vec![(c.offset(), c.length() as usize)] };
                assert_eq!(reads, want, "{path}/{}", o.name());
                let m = mapped.file().get(o.name()).unwrap().component(c.role()).unwrap();
                assert_eq!(v, mapped.to_vec(&m).unwrap(), "{path}/{}", o.name());
            }
        }
        // Reads, typed reads and verify all work; zero-copy is refused.
        let report = r.verify_with(ztensor::verify::Options::ALL.allow_unverifiable(), |_| {});
        assert_eq!(report, mapped.verify_with(ztensor::verify::Options::ALL.allow_unverifiable(), |_| {}), "{path}");
        let c = r.file().objects().find(|o| o.data().is_ok_and(|c| c.length() > 0)).unwrap().data().unwrap();
        match r.zero_copy(&c) {
            Err(Error::Format(e)) => {
                assert!(matches!(e.kind(), ErrorKind::NotZeroCopy { .. }), "{e}");
                assert!(e.to_string().contains("positional reads"), "{e}");
            }
            other => panic!("{path}: {other:?}"),
        }
    }
}

#[test]
fn a_range_of_a_seekable_part_reads_only_its_covering_frames() {
    let src = Logged::file("v2/valid/zstd_seekable.zt");
    let r = Reader::from_source(src.clone()).unwrap();
    let c = r.file().get("big").unwrap().data().unwrap();
    let mut all = vec![0u8; 2621440];
    r.read_into(&c, &mut all).unwrap();
    src.take();
    // 16 bytes in the second 1 MiB frame.
    let mut out = [0u8; 16];
    r.read_range_into(&c, (1 << 20) + 100, &mut out).unwrap();
    assert_eq!(out[..], all[(1 << 20) + 100..(1 << 20) + 116]);
    let reads = src.take();
    let (lo, hi) = (c.offset(), c.offset() + c.length());
    let bytes: usize = reads.iter().map(|r| r.1).sum();
    assert!(reads.iter().all(|&(o, n)| o >= lo && o + n as u64 <= hi), "{reads:?}");
    assert!(bytes < c.length() as usize, "{bytes} of {}: {reads:?}", c.length());
}

#[test]
fn v2_shards_come_from_the_source() {
    let mut src = Logged::file("v2/sharded/model.zt");
    for n in ["00001-of-00002", "00002-of-00002"] {
        src.shards.push((n.into(), std::fs::read(format!("{FIX}/v2/sharded/model-{n}.zt")).unwrap()));
    }
    let r = Reader::from_source(src.clone()).unwrap();
    let mapped = Reader::open(format!("{FIX}/v2/sharded/model.zt")).unwrap();
    let mut sharded = 0;
    for o in r.file().objects() {
        let c = o.data().unwrap();
        sharded += c.shard().is_some() as usize;
        assert_eq!(r.to_vec(&c).unwrap(), mapped.to_vec(&mapped.file().get(o.name()).unwrap().data().unwrap()).unwrap());
    }
    assert!(sharded > 0);
    assert!(r.verify_with(ztensor::verify::Options::ALL, |f| panic!("{f:?}")).is_ok());
    // A source that finds no shards fails the reads of sharded parts, not the open.
    src.shards.clear();
    let r = Reader::from_source(src).unwrap();
    let c = r.file().objects().find_map(|o| o.data().ok().filter(|c| c.shard().is_some())).unwrap();
    match r.to_vec(&c) {
        Err(Error::Format(e)) => assert_eq!(e.kind(), ErrorKind::ShardMissing),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_failing_source_gives_an_error_with_its_message() {
    let path = "v2/valid/types_canonical.zt";
    // At open.
    let mut src = Logged::file(path);
    src.fail_from = Some((0, 7));
    match Reader::from_source(src) {
        Err(Error::Io(e)) => assert!(e.to_string().contains("returned 7"), "{e}"),
        other => panic!("{other:?}"),
    }
    // After open: a read, and verify (the message names the part and the code).
    let mut src = Logged::file(path);
    src.fail_from = Some((1, 9));
    let r = Reader::from_source(src).unwrap();
    let c = r.file().objects().find_map(|o| o.data().ok().filter(|c| c.length() > 0)).unwrap();
    match r.to_vec(&c) {
        Err(Error::Io(e)) => assert!(e.to_string().contains("returned 9"), "{e}"),
        other => panic!("{other:?}"),
    }
    let report = r.verify_with(ztensor::verify::Options::ALL, |_| {});
    let e = report.first_problem.unwrap();
    assert_eq!(e.kind(), ErrorKind::Io);
    assert!(e.to_string().contains("returned 9") && e.object().is_some(), "{e}");
}

#[test]
fn a_source_that_lies_about_its_size_or_shrinks_gives_errors() {
    for path in ["v1.2/many_objects.zt", "v2/valid/types_canonical.zt", "v1.2/zstd.zt", "v0.1/names.zt"] {
        let bytes = std::fs::read(format!("{FIX}/{path}")).unwrap();
        let len = bytes.len() as u64;
        // Announces more bytes than it has: every read past its end fails short.
        for size in [len + 1, len + 100_000, u64::MAX] {
            let mut src = Logged::new(bytes.clone());
            src.size = Some(size);
            assert!(Reader::from_source(src).is_err(), "{path} {size}");
        }
        // Announces fewer: its end is no footer.
        for size in [len - 1, len / 2, 20, 3] {
            let mut src = Logged::new(bytes.clone());
            src.size = Some(size);
            assert!(Reader::from_source(src).is_err(), "{path} {size}");
        }
        // Shrinks after open: reads and verify fail, nothing panics or hangs.
        let src = Logged::new(bytes.clone());
        let r = Reader::from_source(src.clone()).unwrap();
        src.bytes.lock().unwrap().truncate(64);
        let mut failed = 0;
        for o in r.file().objects() {
            for c in o.components().filter(|c| c.length() > 0) {
                failed += r.to_vec(&c).is_err() as usize;
            }
        }
        assert!(failed > 0, "{path}");
        assert!(!r.verify_with(ztensor::verify::Options::ALL, |_| {}).is_ok(), "{path}");
    }
}

#[test]
fn verify_checks_the_header_the_open_did_not_read() {
    let mut bytes = std::fs::read(format!("{FIX}/v2/valid/types_canonical.zt")).unwrap();
    bytes[0] ^= 0xff;
    let r = Reader::from_source(bytes).unwrap();
    let report = r.verify_with(ztensor::verify::Options::ALL, |_| {});
    assert_eq!(report.problems, 1);
    assert_eq!(report.first_problem.unwrap().kind(), ErrorKind::BadMagic);
}

#[test]
fn a_file_is_a_source_and_positional_mode_reads_through_it() {
    let path = format!("{FIX}/v1.2/many_objects.zt");
    let f = std::fs::File::open(&path).unwrap();
    let r = Reader::from_source(f).unwrap();
    let p = Reader::open_with(&path, ztensor::fs::Mode::Positional).unwrap();
    assert_eq!(names(&r), names(&p));
    assert_eq!(r.mode(), ztensor::fs::Mode::Positional);
}

/// A file read at every distance between the buffer and the file offset
/// modulo a page (those the kernel's copy stalls at go through a bounce
/// buffer, `source.rs`): the same bytes each time, in pieces and with a
/// tail, and a read past the end still fails rather than filling part.
#[test]
fn a_file_reads_the_same_bytes_at_every_buffer_alignment() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bytes");
    let bytes: Vec<u8> = (0..2_000_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8).collect();
    std::fs::write(&path, &bytes).unwrap();
    let f = std::fs::File::open(&path).unwrap();
    let len = 600 * 1024 + 123;
    let mut storage = vec![0u8; len + 2 * 4096];
    let page = storage.as_ptr().align_offset(4096);
    for offset in [4096u64, 8192 + 5, 300_001] {
        for distance in (0..70).chain([2048, 4090]) {
            // The buffer starts `distance` bytes past the offset, modulo a page.
            let at = page + (offset as usize + distance) % 4096;
            let out = &mut storage[at..at + len];
            out.fill(0);
            f.read_at(offset, out).unwrap();
            assert!(out == &bytes[offset as usize..offset as usize + len], "offset {offset}, distance {distance}");
        }
    }
    let at = page + 16;
    let past = &mut storage[at..at + len];
    let e = f.read_at(bytes.len() as u64 - 100_000, past).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
}
