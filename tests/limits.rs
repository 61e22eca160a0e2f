#![cfg(feature = "std")]
//! Limits at scale: hostile sizes are refused, or handled, in bounded work
//! and memory.
//!
//! Memory is measured two ways:
//! - a counting global allocator (this test binary only) records the peak
//!   heap while a file is opened from memory; the manifest is borrowed, so
//!   the bound is a small constant plus a few words per object;
//! - a child process (this binary re-invoked with `ZT_LIMITS_CHILD`) reads
//!   its peak RSS (`VmHWM` from /proc/self/status) after opening a file from
//!   disk with `ztensor::fs::Reader`; positional mode holds the manifest, so
//!   the bound there is a constant plus the manifest size.
//!
//! The tests take a lock for their whole run so that one test's
//! allocations never show in another's measurement. No test reads a clock:
//! work is bounded by where a refusal stopped and by the heap (see
//! `measure`); the measured figures are printed (`cargo test --test limits
//! -- --nocapture`).

#![allow(clippy::result_large_err)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;
use ztensor::{ErrorKind, File, Tail};

// ============================================================== counting allocator

struct Counting;

static CUR: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = CUR.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(now, Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        CUR.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new >= l.size() {
                grew(new - l.size());
            } else {
                CUR.fetch_sub(l.size() - new, Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static A: Counting = Counting;

static LOCK: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Run `f`; returns its result and the peak heap above the starting point.
///
/// No test here reads a clock (a timed assertion fails on a slow or emulated
/// host though nothing is wrong): a refusal's work is bounded by where the
/// single-pass reader stopped (`stopped_within`), an open's by its heap, and
/// open times are measured in `benches/`.
fn measure<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let base = CUR.load(Relaxed);
    PEAK.store(base, Relaxed);
    let r = f();
    (r, PEAK.load(Relaxed).saturating_sub(base))
}

/// The refusal came within the manifest's first `bound` bytes: the reader,
/// one pass that stops at the first fault, did not walk what follows.
#[track_caller]
fn stopped_within(name: &str, e: &ztensor::Error, bound: u64) {
    let off = e.manifest_offset().unwrap_or_else(|| panic!("{name}: no manifest offset: {e}"));
    assert!(off < bound, "{name}: refused at manifest byte {off}, past {bound}: {e}");
}

// ============================================================== builders

#[path = "common/cbor.rs"]
mod cbor;
use cbor::Cbor;

/// A v1 file: `ZTEN1000`, `data` (from offset 8), manifest, size, `ZTEN1000`.
fn v1(data_after_header: &[u8], manifest: &[u8]) -> Vec<u8> {
    let mut f = b"ZTEN1000".to_vec();
    f.extend_from_slice(data_after_header);
    f.extend_from_slice(manifest);
    f.extend((manifest.len() as u64).to_le_bytes());
    f.extend(b"ZTEN1000");
    f
}

/// `n` objects, each a dense u8 `[64]` whose data is the one blob at 64
/// (weight tying), in manifest order `names(i)`.
fn many_objects(n: usize, names: impl Fn(usize) -> String) -> Vec<u8> {
    let mut e = Cbor::new();
    e.head(5, 2).text("version").text("1.2.0").text("objects").head(5, n as u64);
    let mut obj = Cbor::new();
    obj.head(5, 3).text("shape").head(4, 1).uint(64).text("format").text("dense");
    obj.text("components").head(5, 1).text("data").head(5, 3);
    obj.text("dtype").text("u8").text("offset").uint(64).text("length").uint(64);
    let obj = obj.0;
    for i in 0..n {
        e.text(&names(i)).raw(&obj);
    }
    let mut data = vec![0u8; 56];
    data.extend((0..64u8).collect::<Vec<_>>());
    v1(&data, &e.0)
}

/// A manifest whose root map has an extra field `x` holding `value`.
fn root_with(value: &[u8]) -> Vec<u8> {
    let mut e = Cbor::new();
    e.head(5, 3).text("version").text("1.2.0").text("objects").head(5, 0).text("x").raw(value);
    v1(&[], &e.0)
}

/// A one-object manifest whose object attribute `k` is `value`.
fn attrs_with(value: &[u8]) -> Vec<u8> {
    let mut e = Cbor::new();
    e.head(5, 2).text("version").text("1.2.0").text("objects").head(5, 1).text("w");
    e.head(5, 4).text("shape").head(4, 1).uint(0).text("format").text("dense");
    e.text("attributes").head(5, 1).text("k").raw(value);
    e.text("components").head(5, 1).text("data").head(5, 3);
    e.text("dtype").text("u8").text("offset").uint(64).text("length").uint(0);
    v1(&[0u8; 56], &e.0)
}

/// Heap reserved at open for object positions: one 12-byte entry per 64
/// manifest bytes, at most 2^20 entries.
fn reserved(file: &[u8]) -> usize {
    Tail::from_file(file).map_or(0, |t| (t.manifest_len as usize / 64).min(1 << 20) * 12)
}

fn kind(bytes: &[u8]) -> ErrorKind {
    File::parse(bytes).map(|f| panic!("accepted: {f:?}")).unwrap_err().kind()
}

// ============================================================== tests

/// Footer claims of 1 GiB (the spec's cap) and beyond.
#[test]
fn one_gib_manifest_claim() {
    let _g = serial();
    let good = v1(&[], &[0xa2, 0x67, b'v', b'e', b'r', b's', b'i', b'o', b'n', 0x65, b'1', b'.', b'2', b'.', b'0', 0x67, b'o', b'b', b'j', b'e', b'c', b't', b's', 0xa0]);
    File::parse(&good).unwrap();
    let n = good.len();
    for (size, want) in [
        (1u64 << 30, ErrorKind::ManifestOutOfBounds { size: 1 << 30, file_len: n as u64 }),
        ((1 << 30) + 1, ErrorKind::ManifestTooLarge { size: (1 << 30) + 1 }),
        (u64::MAX, ErrorKind::ManifestTooLarge { size: u64::MAX }),
    ] {
        let mut f = good.clone();
        f[n - 16..n - 8].copy_from_slice(&size.to_le_bytes());
        // Refused from the footer, before any manifest byte is read.
        let (k, heap) = measure(|| kind(&f));
        assert_eq!(k, want);
        assert!(heap < 4096, "{heap} bytes");
    }
    // From the footer alone, a 1 GiB manifest in a large enough file is
    // located (the spec's cap), one byte more is refused.
    let footer = |size: u64| {
        let mut b = size.to_le_bytes().to_vec();
        b.extend(b"ZTEN1000");
        b
    };
    let t = Tail::from_footer(&footer(1 << 30), (1 << 30) + 24).unwrap();
    assert_eq!((t.manifest_offset, t.manifest_len), (8, 1 << 30));
    assert_eq!(
        Tail::from_footer(&footer((1 << 30) + 1), 1 << 40).unwrap_err().kind(),
        ErrorKind::ManifestTooLarge { size: (1 << 30) + 1 }
    );
}

/// A real file on disk whose footer claims a 1 GiB manifest (a sparse file
/// of zeros): refused at the first manifest byte. The memory map touches
/// nothing; positional mode reads the claimed manifest into memory, so its
/// peak RSS is the manifest size plus a constant.
#[test]
#[cfg(target_os = "linux")]
fn one_gib_manifest_on_disk() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("claim.zt");
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(b"ZTEN1000").unwrap();
        f.seek(SeekFrom::Start(8 + (1 << 30))).unwrap();
        f.write_all(&(1u64 << 30).to_le_bytes()).unwrap();
        f.write_all(b"ZTEN1000").unwrap();
    }
    let base = child_hwm("open-mmap", &path.with_file_name("absent")); // baseline: nothing opened
    let mmap = child_hwm("open-mmap", &path);
    let pos = child_hwm("open-positional", &path);
    println!("1 GiB manifest claim on disk: baseline {base} KiB, mmap {mmap} KiB, positional {pos} KiB (peak RSS)");
    assert!(mmap < base + 8 * 1024, "mmap: {mmap} KiB vs baseline {base} KiB");
    assert!(pos < base + (1 << 20) + 8 * 1024, "positional: {pos} KiB: more than the manifest plus 8 MiB");
}

/// One million objects: opens, lookups work, and the heap
/// used to open it is a constant plus a few words per object.
#[test]
fn one_million_objects() {
    let _g = serial();
    let n = 1_000_000;
    // Names in descending order, so the unordered paths (sort, overlap check) run.
    let bytes = many_objects(n, |i| format!("t{:07}", n - 1 - i));
    let manifest_len = Tail::from_file(&bytes).unwrap().manifest_len as usize;
    let (f, heap) = measure(|| File::parse(&bytes).unwrap());
    println!(
        "1M objects: manifest {} MiB, peak heap {} MiB = {:.1} bytes/object",
        manifest_len >> 20,
        heap >> 20,
        heap as f64 / n as f64
    );
    assert_eq!(f.len(), n);
    assert_eq!(f.get("t0000000").unwrap().index(), n - 1);
    assert_eq!(f.get("t0999999").unwrap().index(), 0);
    assert_eq!(f.object(123_456).unwrap().name(), format!("t{:07}", n - 1 - 123_456));
    assert!(f.get("t1000000").is_none());
    // Per object: 12-byte position + 16-byte (hash, index) entry, and 16
    // bytes of blob span per non-empty component, with Vec doubling slack.
    let bound = 64 * 1024 + 80 * n;
    assert!(heap <= bound, "peak heap {heap} > {bound}");
}

/// 100 000 levels of nesting, in every place a value can be: refused as
/// too deep where the limit is crossed (within the manifest's first bytes),
/// without recursion (no stack overflow), without heap.
#[test]
fn deep_nesting() {
    let _g = serial();
    let depth = 100_000;
    let rep = |b: &[u8]| -> Vec<u8> { b.iter().copied().cycle().take(depth * b.len()).collect() };
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    let mut arrays = rep(&[0x81]);
    arrays.push(0);
    let mut indef = rep(&[0x9f]);
    indef.push(0);
    indef.extend(rep(&[0xff]));
    let mut maps = rep(&[0xa1, 0x00]);
    maps.push(0);
    let mut mixed = rep(&[0x81, 0xa1, 0x61, b'k', 0xd8, 0x20]);
    mixed.push(0);
    for (name, v) in [("arrays", &arrays), ("indefinite", &indef), ("maps", &maps), ("mixed", &mixed)] {
        cases.push((name, root_with(v)));
        cases.push((name, attrs_with(v)));
    }
    // As the objects map itself and as a shape.
    let mut e = Cbor::new();
    e.head(5, 2).text("version").text("1.2.0").text("objects").raw(&arrays);
    cases.push(("objects", v1(&[], &e.0)));
    for (name, file) in &cases {
        let (r, heap) = measure(|| File::parse(file).map(|_| ()));
        let e = r.expect_err(name);
        let objects_case = *name == "objects";
        assert!(
            e.kind() == ErrorKind::TooDeep || (objects_case && matches!(e.kind(), ErrorKind::WrongType { .. })),
            "{name}: {e}"
        );
        // A level takes at most 6 bytes (`mixed`); what stands before the
        // nesting, under 128.
        stopped_within(name, &e, 128 + 6 * (ztensor::MAX_DEPTH as u64 + 1));
        // Nothing grows with the depth: only the name positions reserved
        // from the manifest size (see `peak_heap_of_hostile_files`).
        assert!(heap <= 64 * 1024 + reserved(file), "{name}: {heap} bytes of heap");
    }
    println!("100k-deep nesting: {} cases refused", cases.len());
}

/// A chain of 100 000 tags. `MAX_DEPTH` is documented as the "deepest
/// nesting of arrays, maps and tags accepted anywhere in a manifest", but
/// the validating walk gives tags no frame, so such a chain is accepted;
/// then anything that recurses through `ValueRef::Tag`, such as the
/// library's own `impl Debug for Value`, overflows the stack (process
/// abort). Finding reported; this test asserts the documented limit.
/// (Reproduction: fuzz/regressions/open_walk/deep-tag-chain-100k.zt.)
#[test]
fn deep_tag_chain_is_refused() {
    let _g = serial();
    let mut tags = vec![0xc6u8; 100_000];
    tags.push(0);
    for (name, file) in [("root field", root_with(&tags)), ("attribute", attrs_with(&tags))] {
        let (r, heap) = measure(|| File::parse(&file).map(|_| ()));
        assert!(heap <= 64 * 1024 + reserved(&file), "{name}: {heap} bytes");
        let e = r.expect_err(&format!("a 100k-deep tag chain in a {name} was accepted (MAX_DEPTH = {})", ztensor::MAX_DEPTH));
        assert_eq!(e.kind(), ErrorKind::TooDeep, "{name}: {e}");
        stopped_within(name, &e, 128 + ztensor::MAX_DEPTH as u64 + 1);
    }
}

/// Lengths of 2^36 (and 2^64 - 1) with nothing behind them: refused before
/// anything is allocated or iterated.
#[test]
fn huge_claimed_lengths() {
    let _g = serial();
    let claim = |major: u8, n: u64| {
        let mut e = Cbor::new();
        e.head(major, n);
        e.0
    };
    for n in [1u64 << 36, u64::MAX] {
        let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
        for (major, what) in [(2, "bytes"), (3, "text"), (4, "array"), (5, "map")] {
            cases.push((format!("root field {what}"), root_with(&claim(major, n))));
            cases.push((format!("attribute {what}"), attrs_with(&claim(major, n))));
        }
        // The objects map, a shape, a name.
        let mut e = Cbor::new();
        e.head(5, 2).text("version").text("1.2.0").text("objects").head(5, n);
        cases.push(("objects".into(), v1(&[], &e.0)));
        let mut e = Cbor::new();
        e.head(5, 2).text("version").text("1.2.0").text("objects").head(5, 1).text("w").head(5, 3).text("shape").head(4, n);
        cases.push(("shape".into(), v1(&[], &e.0)));
        let mut e = Cbor::new();
        e.head(5, 2).text("version").text("1.2.0").text("objects").head(5, 1).head(3, n);
        cases.push(("name".into(), v1(&[], &e.0)));
        // The root map itself, and a v0.1 array of tensors.
        cases.push(("root".into(), v1(&[], &claim(5, n))));
        let mut v0 = b"ZTEN0001".to_vec();
        let a = claim(4, n);
        v0.extend(&a);
        v0.extend((a.len() as u64).to_le_bytes());
        cases.push(("v0 tensors".into(), v0));
        for (name, file) in &cases {
            // The files are a few dozen bytes: a reader that consumed input
            // per claimed item stops at their end; the heap bound shows that
            // nothing was sized from the claim.
            let (k, heap) = measure(|| kind(file));
            assert!(
                matches!(k, ErrorKind::LengthTooLarge { .. } | ErrorKind::CborEof),
                "{name} ({n}): {k:?}"
            );
            assert!(heap < 4096, "{name}: {heap} bytes");
        }
    }
}

/// Peak heap while opening hostile files from memory is a small constant
/// plus a few words per object, whatever the manifest claims.
#[test]
fn peak_heap_of_hostile_files() {
    let _g = serial();
    let mut rows = Vec::new();
    // `keys`: entries of the largest map (the duplicate-key check keeps one
    // 16-byte entry per key of the maps being checked).
    let mut check = |name: &str, bytes: &[u8], keys: usize| {
        let (r, heap) = measure(|| File::parse(bytes).map(|f| f.len()));
        let objects = *r.as_ref().unwrap_or(&0);
        let manifest = Tail::from_file(bytes).map_or(0, |t| t.manifest_len as usize);
        // positions are preallocated from the manifest size (1 per 64 bytes,
        // at most 2^20 of 12 bytes); the rest grows with objects and keys
        // (Vec doubling: up to twice the entries, plus the copy while growing).
        let bound = 64 * 1024 + 80 * objects + reserved(bytes) + 48 * keys;
        rows.push(format!("{name:<28} manifest {manifest:>9} B  objects {objects:>7}  peak heap {heap:>9} B"));
        assert!(heap <= bound, "{name}: peak heap {heap} > {bound}");
    };
    check("empty", &many_objects(0, |_| unreachable!()), 0);
    check("1k objects", &many_objects(1000, |i| format!("o{i}")), 0);
    check("100k objects", &many_objects(100_000, |i| format!("o{i}")), 0);
    check("100k objects, unsorted", &many_objects(100_000, |i| format!("o{}", 99_999 - i)), 0);
    // 1 MiB of text in one attribute.
    let mut big = Cbor::new();
    big.text(&"x".repeat(1 << 20));
    check("1 MiB attribute", &attrs_with(&big.0), 0);
    // 200k attribute keys in one map (duplicate-key scratch).
    let mut m = Cbor::new();
    m.head(5, 200_000);
    for i in 0..200_000u64 {
        m.uint(i).uint(i);
    }
    check("200k attribute keys", &attrs_with(&m.0), 200_000);
    let mut m = Cbor::new();
    m.head(5, 200_000);
    for i in 0..200_000u64 {
        m.uint(i % 1000).uint(i);
    }
    check("200k keys, duplicates", &attrs_with(&m.0), 200_000);
    // 200k-element shape.
    let mut e = Cbor::new();
    e.head(5, 2).text("version").text("1.2.0").text("objects").head(5, 1).text("w").head(5, 3).text("shape").head(4, 200_000);
    for _ in 0..200_000 {
        e.uint(1);
    }
    e.text("format").text("x").text("components").head(5, 0);
    check("200k-dim shape", &v1(&[], &e.0), 0);
    println!("{}", rows.join("\n"));
}

// ============================================================== child process

/// Run this test binary again as a child doing `what` on `path`, and return
/// its peak RSS in KiB.
fn child_hwm(what: &str, path: &std::path::Path) -> u64 {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_entry", "--nocapture", "--test-threads=1"])
        .env("ZT_LIMITS_CHILD", what)
        .env("ZT_LIMITS_PATH", path)
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    let line = s.lines().find_map(|l| l.strip_prefix("VMHWM_KB=")).unwrap_or_else(|| {
        panic!(
            "child {what}: no VMHWM line ({}; under an emulator such as qemu-user the test binary \
             cannot re-run itself, and scripts/test-s390x.sh skips this test)\n{s}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
    });
    line.trim().parse().unwrap()
}

fn vm_hwm_kb() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    let l = s.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    l.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Entry point of the child process (does nothing in a normal run).
#[test]
fn child_entry() {
    let Ok(what) = std::env::var("ZT_LIMITS_CHILD") else { return };
    let path = std::env::var_os("ZT_LIMITS_PATH").unwrap();
    use ztensor::fs::{Mode, Reader};
    let r = match what.as_str() {
        "open-mmap" => Reader::open_with(&path, Mode::Mmap).map(|_| ()),
        "open-positional" => Reader::open_with(&path, Mode::Positional).map(|_| ()),
        other => panic!("unknown child task {other}"),
    };
    println!("result: {:?}", r.err().map(|e| e.to_string()));
    println!("VMHWM_KB={}", vm_hwm_kb());
}

/// Peak RSS of opening the 1M-object file from disk, both modes.
#[test]
#[cfg(target_os = "linux")]
fn one_million_objects_rss() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("million.zt");
    let n = 1_000_000;
    let bytes = many_objects(n, |i| format!("t{i:07}"));
    let manifest_kb = Tail::from_file(&bytes).unwrap().manifest_len / 1024;
    std::fs::write(&path, &bytes).unwrap();
    drop(bytes);
    let base = child_hwm("open-mmap", &dir.path().join("absent"));
    let mmap = child_hwm("open-mmap", &path);
    let pos = child_hwm("open-positional", &path);
    println!(
        "1M objects on disk (manifest {manifest_kb} KiB): baseline {base} KiB, mmap {mmap} KiB, positional {pos} KiB (peak RSS)"
    );
    // Mapped pages of the manifest count in RSS once touched: both modes are
    // bounded by the manifest plus ~80 bytes per object plus a constant.
    let per_object_kb = 80 * n as u64 / 1024;
    assert!(mmap <= base + manifest_kb + per_object_kb + 8 * 1024, "mmap {mmap} KiB");
    assert!(pos <= base + manifest_kb + per_object_kb + 8 * 1024, "positional {pos} KiB");
}

// ============================================================== bounded verify

/// Decoded bytes of each frame of [`seekable_bomb`] (the format allows up
/// to 16 MiB; smaller keeps the test quick in a debug build).
const BOMB_FRAME: u64 = 1 << 20;

/// A v2 file whose one `u8` part is `frames` seekable frames of
/// [`BOMB_FRAME`] zeros each (a few hundred bytes apiece once compressed: a
/// decompression bomb by ratio), streamed to the writer without holding it
/// decoded.
fn seekable_bomb(frames: u64) -> Vec<u8> {
    use ztensor::v2::types::DType;
    use ztensor::write::v2::{Encoding, NewObject, NewPart, Options, Writer};
    use ztensor::write::Data;
    const FRAME: u64 = BOMB_FRAME;
    let len = frames * FRAME;
    let mut w = Writer::with_options(Vec::new(), Options::non_canonical(4096)).unwrap();
    let zeros = Data::from_reader(len, std::io::Read::take(std::io::repeat(0), len));
    let part =
        NewPart::new("data", DType::U8, zeros).encoding(Encoding::ZstdSeekable { level: 1, frame: FRAME as u32 });
    w.add(NewObject::new("bomb", &[len], "dense").part(part)).unwrap();
    w.finish().unwrap()
}

/// Issue 30, H1: verifying a seekable part decodes it a frame at a time
/// into one running hash: the peak heap is about one frame, not the part's
/// decoded size; a frame whose table entry lies is a status.
#[test]
fn verify_of_a_seekable_bomb_holds_one_frame() {
    use ztensor::verify::Options;
    const FRAMES: u64 = 32;
    // Before writing the bomb too: the writer's buffers must not show in another test's measurement.
    let _g = serial();
    let bytes = seekable_bomb(FRAMES);
    assert!(bytes.len() < 16 * 1024, "{} bytes", bytes.len());
    let f = File::parse(&bytes).unwrap();
    let c = f.get("bomb").unwrap().component("data").unwrap();
    let (r, whole) = measure(|| f.verify_with(Options::ALL, |_| {}));
    assert!(r.is_ok() && r.digests_checked == 1, "{:?}", r.first_problem);
    let (v, part) = measure(|| c.verify_digest());
    assert_eq!(v.unwrap(), ztensor::digest::Verified::Ok);
    println!("seekable bomb, {FRAMES} frames of {BOMB_FRAME} B: peak heap {whole} B (file), {part} B (part)");
    // One frame's buffer and the decoder's state; the part is 32 frames.
    for heap in [whole, part] {
        assert!(heap < 4 * BOMB_FRAME as usize, "peak heap {heap} B for a part of {} B", FRAMES * BOMB_FRAME);
    }
    // The first frame's table entry says 4 GiB: refused, in bounded memory.
    let m = ztensor::v2::Manifest::parse(&bytes).unwrap();
    let p = m.objects().next().unwrap().part("data").unwrap();
    let end = (p.offset + p.length) as usize;
    let frames = u32::from_le_bytes(bytes[end - 9..end - 5].try_into().unwrap()) as usize;
    let stride = if bytes[end - 5] & 0x80 != 0 { 12 } else { 8 };
    let first = end - 9 - frames * stride;
    let mut lying = bytes.clone();
    lying[first + 4..first + 8].copy_from_slice(&u32::MAX.to_le_bytes());
    let f = File::parse(&lying).unwrap();
    let (r, heap) = measure(|| f.verify_with(Options::ALL, |_| {}));
    let e = r.first_problem.expect("a lying seek table is a problem");
    assert_eq!(e.kind(), ErrorKind::Seekable { what: "frame over 16 MiB" }, "{e}");
    assert!(heap < 1 << 20, "peak heap {heap} B");
}
