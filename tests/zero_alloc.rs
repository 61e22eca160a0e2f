//! Opening a file and walking every object and accessor performs no heap
//! allocation in the `no_std` build (`--no-default-features`); with `alloc`,
//! only `File::parse` allocates (its name index), walking does not.
//!
//! Run: `cargo test --no-default-features --test zero_alloc`.

use std::alloc::{GlobalAlloc, Layout, System};
use ztensor::{File, ValueRef};

struct Counting;

thread_local! {
    // Per thread: the test harness runs other tests (which allocate) in parallel.
    static COUNT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn allocs() -> usize {
    COUNT.with(|c| c.get())
}

fn bump() {
    let _ = COUNT.try_with(|c| c.set(c.get() + 1));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        bump();
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        bump();
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static A: Counting = Counting;

fn walk_value(v: ztensor::Value<'_>, sink: &mut u64) {
    match v.get() {
        ValueRef::Map(m) => m.iter().for_each(|(k, v)| {
            walk_value(k, sink);
            walk_value(v, sink)
        }),
        ValueRef::Array(a) => a.iter().for_each(|v| walk_value(v, sink)),
        ValueRef::Tag(t, v) => {
            *sink += t;
            walk_value(v, sink)
        }
        ValueRef::Text(c) | ValueRef::Bytes(c) => *sink += c.len() as u64,
        ValueRef::Float(f) => *sink += f as u64,
        _ => *sink += 1,
    }
}

/// Touch every accessor of every object; returns a checksum so nothing is optimized out.
fn walk(file: &File<'_>) -> u64 {
    let mut sink = file.version().minor as u64;
    sink += file.names().map(str::len).sum::<usize>() as u64;
    walk_value_map(file.attributes(), &mut sink);
    for o in file.objects() {
        sink += o.name().len() as u64 + o.shape().dims().sum::<u64>() + o.shape().numel();
        sink += o.format().name().len() as u64;
        walk_value_map(o.attributes(), &mut sink);
        walk_value_map(o.fields(), &mut sink);
        for c in o.components() {
            sink += c.role().len() as u64 + c.dtype().width() + c.offset() + c.length();
            sink += c.uncompressed_length().unwrap_or(0) + c.digest().map_or(0, str::len) as u64;
            sink += c.logical_type().map_or(0, |t| t.name().len()) as u64 + c.encoding().name().len() as u64;
            if let Ok(b) = c.stored_bytes() {
                sink += b.iter().map(|&x| x as u64).sum::<u64>();
            }
            if let Ok(s) = c.as_slice::<u8>() {
                sink += s.len() as u64;
            }
            // A raw part's digest is checked in place; a v2 seekable part's
            // covers its decoded bytes (§6.3): checking it decodes, and
            // decoding needs a decoder and a frame's buffer.
            if c.encoding() == ztensor::Encoding::Raw {
                let _ = c.verify_digest();
            }
        }
        sink += file.get(o.name()).map_or(0, |x| x.index()) as u64;
    }
    sink
}

fn walk_value_map(m: ztensor::Map<'_>, sink: &mut u64) {
    for (k, v) in m.iter() {
        walk_value(k, sink);
        walk_value(v, sink);
    }
}

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    for v in ["v0.1", "v1.1", "v1.2", "v2/valid"] {
        for e in std::fs::read_dir(root.join(v)).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".zt") && name != "many_objects.zt" && name != "objects_20k.zt" && !name.contains("nonconformant") && name != "names_edge.zt" {
                out.push((format!("{v}/{name}"), std::fs::read(&p).unwrap()));
            }
        }
    }
    assert!(out.len() > 20);
    assert!(out.iter().filter(|(n, _)| n.starts_with("v2/")).count() >= 15);
    out
}

#[test]
fn open_and_walk_allocate_nothing() {
    let files = fixtures();
    let mut scratch = [[0u64; 2]; 4096];
    for (name, bytes) in &files {
        let before = allocs();
        let file = File::parse_with_scratch(bytes, &mut scratch).unwrap_or_else(|e| panic!("{name}: {e}"));
        let opened = allocs();
        let sink = walk(&file);
        let walked = allocs();
        assert!(sink > 0);
        assert_eq!(walked - opened, 0, "{name}: walking allocated");
        if cfg!(not(feature = "alloc")) {
            assert_eq!(opened - before, 0, "{name}: opening allocated in the no_std build");
        }
    }
}

#[cfg(not(feature = "alloc"))]
#[test]
fn default_scratch_suffices_for_small_files_and_says_when_not() {
    for (name, bytes) in fixtures() {
        let before = allocs();
        match File::parse(&bytes) {
            Ok(f) => assert!(walk(&f) > 0),
            Err(e) => assert!(matches!(e.kind(), ztensor::ErrorKind::ScratchTooSmall { .. }), "{name}: {e}"),
        }
        assert_eq!(allocs() - before, 0, "{name}");
    }
}

#[test]
fn name_index_over_caller_storage_finds_every_name_without_allocating() {
    let files = fixtures();
    let mut scratch = [[0u64; 2]; 4096];
    let mut slots = [[0u32; 4]; 4096];
    for (name, bytes) in &files {
        let file = File::parse_with_scratch(bytes, &mut scratch).unwrap();
        let before = allocs();
        let index = ztensor::NameIndex::build(&file, &mut slots).unwrap();
        let mut found = 0;
        for n in file.names() {
            assert_eq!(index.get(n).map(|o| o.name()), Some(n), "{name}");
            found += 1;
        }
        assert!(index.get("\u{0}no such object").is_none());
        assert_eq!(found, file.len());
        assert_eq!(allocs() - before, 0, "{name}: the name index allocated");
    }
}

/// A positional read of a raw part (v1.2 and v2 alike) goes straight into
/// the caller's buffer: no temporary copy on the heap (issue #32).
#[test]
#[cfg(feature = "std")]
fn positional_raw_reads_allocate_nothing() {
    use ztensor::fs::{Mode, Reader};
    let dir = env!("CARGO_MANIFEST_DIR");
    for path in [
        "tests/fixtures/v2/valid/types_canonical.zt",
        "tests/fixtures/v1.2/dense_all_dtypes.zt",
    ] {
        let r = Reader::open_with(format!("{dir}/{path}"), Mode::Positional).unwrap();
        let mut read = 0;
        for o in r.file().objects() {
            for c in o.components() {
                if c.encoding() != ztensor::Encoding::Raw || c.endian() != ztensor::Endian::Little {
                    continue;
                }
                let mut out = vec![0u8; c.length() as usize];
                let before = allocs();
                let n = r.read_into(&c, &mut out).unwrap();
                assert_eq!(allocs(), before, "{path}: {}/{}", o.name(), c.role());
                assert_eq!(
                    out,
                    r.to_vec(&c).unwrap(),
                    "{path}: {}/{}",
                    o.name(),
                    c.role()
                );
                read += n;
            }
        }
        assert!(read > 0, "{path}: no raw part read");
    }
}
