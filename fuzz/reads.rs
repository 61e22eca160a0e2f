//! The `read_modes` target: the same bytes read three ways (a memory map, positional reads
//! through a descriptor, and `File::parse` over memory) must give the same
//! answers: the same open outcome, the same stored and decoded bytes of
//! every component (or the same error), the same zero-copy bytes, and the
//! same verification report. Included by `harness.rs`.

use std::path::PathBuf;
use ztensor::fs::{Mode, Reader};
use ztensor::verify::{Options, Report};
use ztensor::{Component, ErrorKind, File};

/// Largest declared decoded size read (larger ones compare their size only).
const READ_LIMIT: u64 = 16 << 20;

/// A file of this process and thread to hold the input.
fn scratch_path() -> PathBuf {
    let id = format!("{:?}", std::thread::current().id()).replace(|c: char| !c.is_ascii_alphanumeric(), "");
    std::env::temp_dir().join(format!("zt-fuzz-reads-{}-{id}.zt", std::process::id()))
}

/// An outcome compared across modes: the error kind, I/O errors as `Io`.
fn kind(e: ztensor::fs::Error) -> ErrorKind {
    match e {
        ztensor::fs::Error::Io(_) => ErrorKind::Io,
        ztensor::fs::Error::Format(e) => e.kind(),
    }
}

/// A component's stored bytes, and its decoded bytes when its size is declared and small.
type Bytes = (Result<Vec<u8>, ErrorKind>, Option<Result<Vec<u8>, ErrorKind>>);

/// One component's [`Bytes`] through a reader.
fn from_reader(r: &Reader, c: &Component<'_>) -> Bytes {
    let mut stored = vec![0u8; c.length().min(READ_LIMIT) as usize];
    let stored = match c.length() <= READ_LIMIT {
        true => r.read_stored_into(c, &mut stored).map(|n| stored[..n].to_vec()).map_err(kind),
        false => Err(ErrorKind::Io),
    };
    let decoded = match c.plausible_len() {
        Ok(Some(n)) if n <= READ_LIMIT => {
            let mut out = vec![0u8; n as usize];
            Some(r.read_into(c, &mut out).map(|k| out[..k].to_vec()).map_err(kind))
        }
        _ => None,
    };
    (stored, decoded)
}

/// One component's [`Bytes`] from a file parsed from memory.
fn from_memory(c: &Component<'_>) -> Bytes {
    let stored = match c.length() <= READ_LIMIT {
        true => c.stored_bytes().map(<[u8]>::to_vec).map_err(|e| e.kind()),
        false => Err(ErrorKind::Io),
    };
    let decoded = match c.plausible_len() {
        Ok(Some(n)) if n <= READ_LIMIT => {
            let mut out = vec![0u8; n as usize];
            Some(c.read_into(&mut out).map(|k| out[..k].to_vec()).map_err(|e| e.kind()))
        }
        _ => None,
    };
    (stored, decoded)
}

/// What a report says, comparably.
fn summary(r: &Report) -> (usize, usize, usize, usize, usize, Option<ErrorKind>) {
    (r.objects, r.components, r.digests_checked, r.unverifiable, r.problems, r.first_problem.map(|e| e.kind()))
}

/// Read `data` as a file three ways and compare everything.
pub fn read_modes(data: &[u8]) {
    // Format v2 has its own invariants (shards, decoded digests): its target's.
    if super::v2::is_v2(data) {
        return super::v2_open(data);
    }
    let path = scratch_path();
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let mapped = Reader::open_with(&path, Mode::Mmap);
    let positional = Reader::open_with(&path, Mode::Positional);
    let memory = File::parse(data);
    let opened = (mapped.as_ref().err().map(|_| ()), positional.as_ref().err().map(|_| ()), memory.as_ref().err().map(|_| ()));
    match (mapped, positional, memory) {
        (Ok(m), Ok(p), Ok(f)) => compare(&m, &p, &f),
        (Err(m), Err(p), Err(f)) => {
            let (m, p, f) = (kind(m), kind(p), f.kind());
            // Positional mode reads only the tail: it may accept a file
            // whose blobs the others find out of place, never the reverse.
            assert_eq!(m, f, "mmap and memory refuse differently");
            let _ = p;
        }
        (Err(m), Ok(_), Err(f)) => assert_eq!(kind(m), f.kind(), "mmap and memory refuse differently"),
        _ => panic!("the modes disagree on opening: {opened:?}"),
    }
    let _ = std::fs::remove_file(&path);
}

fn compare(m: &Reader, p: &Reader, f: &File<'_>) {
    let (fm, fp) = (m.file(), p.file());
    assert_eq!((fm.len(), fp.len()), (f.len(), f.len()), "object counts differ");
    for ((om, op), of) in fm.objects().zip(fp.objects()).zip(f.objects()) {
        assert!(om.name() == of.name() && op.name() == of.name(), "names differ");
        for ((cm, cp), cf) in om.components().zip(op.components()).zip(of.components()) {
            let want = from_memory(&cf);
            assert_eq!(from_reader(m, &cm), want, "mmap and memory read {:?}/{} differently", of.name(), cf.role());
            assert_eq!(from_reader(p, &cp), want, "positional and memory read {:?}/{} differently", of.name(), cf.role());
            let (zm, zf) = (m.zero_copy(&cm).map_err(kind), cf.zero_copy_bytes().map_err(|e| e.kind()));
            assert_eq!(zm, zf, "zero-copy differs");
            assert!(p.zero_copy(&cp).is_err(), "positional mode lent memory");
        }
    }
    let options = Options { digests: true, data: true, strict: false };
    let rf = summary(&f.verify_with(options, |_| {}));
    assert_eq!(summary(&fm.verify_from(m, options, |_| {})), rf, "mmap and memory verify differently");
    assert_eq!(summary(&fp.verify_from(p, options, |_| {})), rf, "positional and memory verify differently");
}
