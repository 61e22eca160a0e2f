#![cfg(feature = "std")]
//! Replays the fuzz corpus and every saved crash / regression input through
//! the same harness functions the cargo-fuzz targets run (`fuzz/harness/`),
//! on the stable toolchain, so CI guards against regressions without nightly.
//!
//! - `fuzz/corpus/<target>/*`: seeds and the (minimized) campaign corpus;
//!   each target's directory must exist and hold files, or the test fails.
//! - `fuzz/regressions/<target>/*`: inputs that once crashed, hung or blew
//!   the memory limit; each must now pass.
//!
//! `cargo test --test fuzz_replay -- --ignored write_seeds` regenerates the
//! hand-made seeds (`seed-*` files) from the fixtures and the builders of
//! `tests/common`.

mod common;

#[path = "../fuzz/harness/mod.rs"]
mod harness;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

// ------------------------------------------------------------ memory cap

/// Peak heap allowed while one input is replayed. The campaign runs with
/// `-rss_limit_mb=2048` on inputs of tens of KB; the harness itself needs
/// little (`to_vec_with_limit` is capped at 16 MiB), so a small regression
/// file that makes the library allocate much more shows up here. The bound
/// leaves room for one zstd window: `check_data` streams a component, but a
/// zstd frame may legitimately ask its decoder for a window of up to 100 MiB
/// (ruzstd's cap; libzstd's default is 128 MiB), which
/// `regressions/open_walk/zstd-check-data-bomb-256m.zt` does, repeatedly.
const HEAP_CAP: usize = 512 << 20;

thread_local! {
    static CUR: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

/// Counts heap per thread (the replay tests run in parallel threads).
struct PerThread;

fn grew(n: usize) {
    let _ = CUR.try_with(|c| {
        let now = c.get() + n;
        c.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

fn shrank(n: usize) {
    let _ = CUR.try_with(|c| c.set(c.get().saturating_sub(n)));
}

unsafe impl GlobalAlloc for PerThread {
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
        shrank(l.size());
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new >= l.size() {
                grew(new - l.size());
            } else {
                shrank(l.size() - new);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: PerThread = PerThread;

/// Run `f`, returning the peak heap of this thread above its start.
fn peak_heap(f: impl FnOnce()) -> usize {
    let base = CUR.with(Cell::get);
    PEAK.with(|p| p.set(base));
    f();
    PEAK.with(Cell::get).saturating_sub(base)
}

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut v: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')))
        .collect();
    v.sort();
    v
}

/// Run `f` on every file; returns the failures (path, message).
fn replay(f: fn(&[u8]), files: &[PathBuf]) -> Vec<(String, String)> {
    let mut failures = Vec::new();
    for p in files {
        let bytes = std::fs::read(p).unwrap();
        let mut outcome = Ok(());
        let peak = peak_heap(|| outcome = catch_unwind(AssertUnwindSafe(|| f(&bytes))));
        let name = p.strip_prefix(fuzz_dir()).unwrap_or(p).display().to_string();
        if let Err(e) = outcome {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push((name, msg));
        } else if peak > HEAP_CAP {
            failures.push((name, format!("peak heap {} MiB > {} MiB", peak >> 20, HEAP_CAP >> 20)));
        }
    }
    failures
}

/// One line per distinct message (its first line), with a few example inputs.
fn summarize(failures: &[(String, String)]) -> String {
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for (name, msg) in failures {
        let key: String = msg.lines().next().unwrap_or("").chars().take(200).collect();
        // Group messages that differ only in numbers and quoted names.
        let norm: String = key.split('"').step_by(2).collect::<Vec<_>>().join("\"…\"").chars().filter(|c| !c.is_ascii_digit()).collect();
        match groups.iter_mut().find(|(k, _)| *k == norm) {
            Some((_, v)) => v.push(name),
            None => groups.push((norm, vec![name])),
        }
    }
    groups
        .iter()
        .map(|(k, v)| format!("  {} input(s): {k}\n    e.g. {}", v.len(), v.iter().take(3).copied().collect::<Vec<_>>().join(", ")))
        .collect::<Vec<_>>()
        .join("\n")
}

fn replay_target(name: &str) {
    install_hook();
    let (_, f) = harness::TARGETS.iter().find(|(n, _)| *n == name).expect("target");
    let corpus = fuzz_dir().join("corpus").join(name);
    let files = files_in(&corpus);
    assert!(
        !files.is_empty(),
        "corpus directory {} is missing or empty: the replay would prove nothing",
        corpus.display()
    );
    let regressions = files_in(&fuzz_dir().join("regressions").join(name));
    // Quiet panics: the failures are summarized below.
    let quiet = std::env::var_os("ZT_REPLAY_VERBOSE").is_none();
    if quiet {
        QUIET.with(|q| q.set(true));
    }
    let mut failures = replay(*f, &files);
    failures.extend(replay(*f, &regressions));
    QUIET.with(|q| q.set(false));
    eprintln!("{name}: replayed {} corpus + {} regression inputs", files.len(), regressions.len());
    assert!(
        failures.is_empty(),
        "{} of the {name} inputs fail (ZT_REPLAY_VERBOSE=1 for every panic in full; \
         ZT_FUZZ_KNOWN lists reported findings to tolerate, see fuzz/harness/mod.rs):\n{}",
        failures.len(),
        summarize(&failures)
    );
}

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Install (once) a panic hook that stays silent on quiet replay threads.
fn install_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                default(info);
            }
        }));
    });
}

#[test]
fn replay_open_walk() {
    replay_target("open_walk");
}

#[test]
fn replay_tail_only() {
    replay_target("tail_only");
}

#[test]
fn replay_legacy_v0() {
    replay_target("legacy_v0");
}

#[test]
fn replay_structured() {
    replay_target("structured");
}

#[test]
fn replay_writer_roundtrip() {
    replay_target("writer_roundtrip");
}

#[test]
fn replay_read_modes() {
    replay_target("read_modes");
}

#[test]
fn replay_v2_open() {
    replay_target("v2_open");
}

#[test]
fn replay_gguf() {
    replay_target("gguf");
}

#[test]
fn replay_compact() {
    replay_target("compact");
}

/// The v2 target's generator reaches valid files (not only refusals), and
/// random inputs run through it without a finding.
#[test]
fn v2_open_generates_files_that_open() {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let (mut built, mut opened, mut with_parts) = (0, 0, 0);
    for i in 0..3000 {
        let input: Vec<u8> = (0..64 + i % 400)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s as u8
            })
            .collect();
        harness::v2_open(&input);
        if let Some(file) = harness::v2_file(&input) {
            built += 1;
            if let Ok(f) = ztensor::File::parse(&file) {
                opened += 1;
                with_parts += f.objects().any(|o| o.component_count() > 0) as usize;
            }
        }
    }
    assert!(built > 2000, "{built}");
    assert!(opened > 50 && with_parts > 20, "built {built}, opened {opened}, with parts {with_parts}");
}

/// Every target has a corpus directory and the harness lists every target.
#[test]
fn every_target_has_a_corpus() {
    let targets: Vec<&str> = harness::TARGETS.iter().map(|(n, _)| *n).collect();
    for t in &targets {
        assert!(!files_in(&fuzz_dir().join("corpus").join(t)).is_empty(), "no corpus for {t}");
    }
    for e in std::fs::read_dir(fuzz_dir().join("fuzz_targets")).unwrap() {
        let p = e.unwrap().path();
        let stem = p.file_stem().unwrap().to_string_lossy().to_string();
        assert!(targets.contains(&stem.as_str()), "fuzz target {stem} is not in harness::TARGETS");
    }
}

/// How far the structured inputs of a corpus get (`-- --ignored --nocapture`).
#[test]
#[ignore = "statistics; run by hand"]
fn structured_corpus_stats() {
    for dir in ["corpus-full", "corpus"] {
        let files = files_in(&fuzz_dir().join(dir).join("structured"));
        let (mut valid, mut opened, mut invalid_opened, mut none) = (0, 0, 0, 0);
        for p in &files {
            match harness::structured_outcome(&std::fs::read(p).unwrap()) {
                None => none += 1,
                Some((true, ok)) => {
                    valid += 1;
                    opened += ok as usize;
                }
                Some((false, ok)) => invalid_opened += ok as usize,
            }
        }
        println!(
            "{dir}: {} inputs, {none} describe nothing, {valid} valid-mode ({opened} opened), {} free-form ({invalid_opened} opened)",
            files.len(),
            files.len() - none - valid
        );
    }
}

// ============================================================== seeds

mod seeds {
    use super::common::*;
    use super::harness;
    use ztensor::write::AttrValue;
    use ztensor::write::v1_2::{Checksum, Compression, NewObject, Writer};
    use ztensor::{DType, LogicalType};

    fn fixtures() -> Vec<(String, Vec<u8>)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut out = Vec::new();
        for v in ["v0.1", "v1.1", "v1.2"] {
            for p in super::files_in(&root.join(v)) {
                let name = p.file_name().unwrap().to_string_lossy().to_string();
                if !name.ends_with(".zt") || name == "many_objects.zt" {
                    continue; // 2.8 MB: too big for a seed
                }
                out.push((format!("{v}-{}", name.trim_end_matches(".zt")), std::fs::read(&p).unwrap()));
            }
        }
        out
    }

    fn blobs16() -> Blobs {
        let mut b = Blobs::new();
        b.add_len(16);
        b
    }

    /// Hand-made v1 files in the style of tests/hostile/: valid edge cases
    /// and one instance of most refusal rules.
    fn hostile_v1() -> Vec<(String, Vec<u8>)> {
        let d = |v: &str, o: Value| v1_file(&blobs16(), &encode(&manifest(v, [("w", o)])));
        let mut out = vec![
            ("empty12".into(), v1_manifest_only(&encode(&manifest("1.2.0", [])))),
            ("dense".into(), d("1.2.0", dense("f32", &[4], 64, 16))),
            ("dense11".into(), d("1.1.0", dense("f32", &[4], 64, 16))),
            ("misaligned".into(), d("1.2.0", dense("f32", &[4], 65, 16))),
            ("oob".into(), d("1.2.0", dense("f32", &[4], 64, 1 << 40))),
            ("overflow".into(), d("1.2.0", dense("f32", &[4], u64::MAX - 63, 16))),
            ("shape_overflow".into(), d("1.2.0", dense("f32", &[1 << 32, 1 << 32], 64, 16))),
            ("len_mismatch".into(), d("1.2.0", dense("f32", &[5], 64, 16))),
            ("unknown_dtype".into(), d("1.2.0", dense("f31", &[4], 64, 16))),
            ("big_array_claim".into(), {
                let m = Cbor::new().map(2).text("version").text("1.2.0").text("objects").map(1).text("w")
                    .map(1).text("shape").head(4, 1 << 36).build();
                v1_manifest_only(&m)
            }),
            ("deep".into(), {
                let m = Cbor::new().map(3).text("version").text("1.2.0").text("objects").map(0)
                    .text("x").nested_arrays(200, false).build();
                v1_manifest_only(&m)
            }),
            ("deep_indef".into(), {
                let m = Cbor::new().map(3).text("version").text("1.2.0").text("objects").map(0)
                    .text("x").nested_arrays(60, true).build();
                v1_manifest_only(&m)
            }),
            ("indef_everything".into(), {
                let m = Cbor::new().map_indef().text("version").text("1.2.0").text("attributes").map_indef()
                    .text("t").text_indef().text("ab").text("c").brk().text("b").bytes_indef().bytes(b"x").brk()
                    .brk().text("objects").map_indef().text("w").map_indef().text("shape").arr_indef().uint(4)
                    .brk().text("format").text("dense").text("components").map_indef().text("data")
                    .value(&comp("f32", 64, 16)).brk().brk().brk().brk().build();
                v1_file(&blobs16(), &m)
            }),
            ("dup_names".into(), {
                let m = manifest("1.2.0", [("w", dense("f32", &[4], 64, 16)), ("w", dense("f32", &[4], 64, 16))]);
                v1_file(&blobs16(), &encode(&m))
            }),
            ("tied_unordered".into(), {
                let mut b = Blobs::new();
                b.add_len(16);
                b.add_len(16);
                let m = manifest(
                    "1.2.0",
                    [("z", dense("f32", &[4], 128, 16)), ("a", dense("f32", &[4], 64, 16)), ("b", dense("f32", &[4], 64, 16))],
                );
                v1_file(&b, &encode(&m))
            }),
            ("overlap".into(), {
                let mut b = Blobs::new();
                b.add_len(200);
                let m = manifest("1.2.0", [("a", dense("f32", &[32], 64, 128)), ("b", dense("f32", &[4], 128, 16))]);
                v1_file(&b, &encode(&m))
            }),
            ("zstd_bomb_claim".into(), {
                let mut b = Blobs::new();
                let frame = harness::zstd_rle_frame(7, 1 << 20, 1 << 20);
                let off = b.add(&frame);
                let c = comp_with("u8", off, frame.len() as u64, [("encoding", text("zstd")), ("uncompressed_length", uint(1 << 40))]);
                v1_file(&b, &encode(&manifest("1.2.0", [("z", obj(&[1 << 40], "dense", [("data", c)]))])))
            }),
            ("zstd_ok".into(), {
                let mut b = Blobs::new();
                let content: Vec<u8> = (0..64u8).collect();
                let frame = harness::zstd_raw_frame(&content);
                let off = b.add(&frame);
                let c = comp_with("f32", off, frame.len() as u64, [("encoding", text("zstd")), ("uncompressed_length", uint(64))]);
                v1_file(&b, &encode(&manifest("1.2.0", [("z", obj(&[16], "dense", [("data", c)]))])))
            }),
            ("zstd11_no_len".into(), {
                let mut b = Blobs::new();
                let frame = harness::zstd_rle_frame(1, 4096, 4096);
                let off = b.add(&frame);
                let c = comp_with("u8", off, frame.len() as u64, [("encoding", text("zstd"))]);
                v1_file(&b, &encode(&manifest("1.1.0", [("z", obj(&[4096], "dense", [("data", c)]))])))
            }),
            ("digests".into(), {
                let mut b = Blobs::new();
                b.add_len(16);
                b.add_len(16);
                let m = manifest(
                    "1.2.0",
                    [
                        ("c", obj(&[4], "dense", [("data", comp_with("f32", 64, 16, [("digest", text("crc32c:0x1234"))]))])),
                        ("s", obj(&[4], "dense", [("data", comp_with("f32", 128, 16, [("digest", text("md5:00"))]))])),
                    ],
                );
                v1_file(&b, &encode(&m))
            }),
            ("sparse_bad".into(), {
                let mut b = Blobs::new();
                let v = b.add_len(8);
                let i = b.add(&[9u8; 16]);
                let p = b.add(&[0xffu8; 24]);
                let o = obj(
                    &[2, 3],
                    "sparse_csr",
                    [("values", comp("f32", v, 8)), ("indices", comp("u64", i, 16)), ("indptr", comp("u64", p, 24))],
                );
                v1_file(&b, &encode(&manifest("1.2.0", [("m", o)])))
            }),
            ("coo_bad".into(), {
                let mut b = Blobs::new();
                let v = b.add_len(8);
                let c = b.add(&[0xeeu8; 32]);
                let o = obj(&[2, 3], "sparse_coo", [("values", comp("f32", v, 8)), ("coords", comp("u64", c, 32))]);
                v1_file(&b, &encode(&manifest("1.2.0", [("m", o)])))
            }),
            ("bool_bad".into(), {
                let mut b = Blobs::new();
                let v = b.add(&[0, 1, 2, 3]);
                v1_file(&b, &encode(&manifest("1.2.0", [("b", dense("bool", &[4], v, 4))])))
            }),
            ("unknown_format".into(), {
                let o = obj(&[3], "my_format", [("blob", comp_with("u8", 64, 16, [("type", text("int4"))]))]);
                v1_file(&blobs16(), &encode(&manifest("1.2.0", [("x", o)])))
            }),
            ("zero_len_at_manifest".into(), {
                let b = blobs16();
                let end = b.end().next_multiple_of(64);
                let mut b2 = b.clone();
                b2.pad();
                let m = manifest("1.2.0", [("w", dense("f32", &[4], 64, 16)), ("e", dense("f32", &[0], end, 0))]);
                v1_file(&b2, &encode(&m))
            }),
        ];
        let mut many = Vec::new();
        for i in 0..300 {
            many.push((format!("o{:03}", 299 - i), dense("u8", &[0], 64, 0)));
        }
        let names: Vec<(String, Value)> = many;
        let m = map_any([
            (text("version"), text("1.2.0")),
            (text("objects"), map_any(names.into_iter().map(|(k, v)| (text(&k), v)))),
        ]);
        out.push(("unsorted_300".into(), v1_manifest_only(&encode(&m))));
        out
    }

    fn hostile_v0() -> Vec<(String, Vec<u8>)> {
        let one = |t: Value| v0_file(&blobs16(), &encode(&arr([t])));
        let mut big = v0_tensor("t", "float32", &[4], 64, 16);
        push(&mut big, [("data_endianness", text("big")), ("checksum", text("crc32c:0x0")), ("note", text("x"))]);
        let mut z = Blobs::new();
        let frame = harness::zstd_raw_frame(&[1, 2, 3, 4, 5, 6, 7, 8]);
        let off = z.add(&frame);
        let mut zt = v0_tensor("z", "int16", &[4], off, frame.len() as u64);
        set(&mut zt, "encoding", text("zstd"));
        vec![
            ("v0_empty".into(), v0_file(&Blobs::new(), &encode(&arr([])))),
            ("v0_one".into(), one(v0_tensor("t", "float32", &[4], 64, 16))),
            ("v0_big_endian".into(), one(big)),
            ("v0_zstd".into(), v0_file(&z, &encode(&arr([zt])))),
            ("v0_dup".into(), v0_file(&blobs16(), &encode(&arr([v0_tensor("t", "uint8", &[16], 64, 16), v0_tensor("t", "uint8", &[16], 64, 16)])))),
            ("v0_bad_dtype".into(), one(v0_tensor("t", "f32", &[4], 64, 16))),
        ]
    }

    /// Valid files from the writer: every format, zstd, digests, attributes.
    fn written() -> Vec<(String, Vec<u8>)> {
        let mut w = Writer::new(Vec::new());
        w.set_attribute("framework", "seed").unwrap();
        w.set_attribute("nested", AttrValue::map([("a", AttrValue::from(vec![AttrValue::from(1.5), AttrValue::Null])), ("b", AttrValue::NegInt(7))])).unwrap();
        w.add_slice("bias", &[2], &[0.5f32, -0.5]).unwrap();
        w.add(NewObject::sparse_csr_slices("csr", [2, 3], &[1.0f64, 2.0], &[0, 2], &[0, 1, 2]).compression(Compression::ZSTD).checksum(Checksum::Crc32c)).unwrap();
        w.add(NewObject::sparse_coo_slices("coo", &[2, 2], &[1i32, 2], &[0, 1, 1, 0]).checksum(Checksum::Sha256)).unwrap();
        w.add(NewObject::dense("fp8", &[3], DType::U8, &[0x38u8, 0x40, 0xb8][..]).logical_type(LogicalType::F8E4M3Fn)).unwrap();
        w.add(NewObject::dense_slice("c64", &[1], &[1.0f32, 2.0]).logical_type(LogicalType::Complex64)).unwrap();
        w.add(NewObject::dense("zeros", &[256], DType::U8, vec![0u8; 256]).compression(Compression::ZSTD)).unwrap();
        w.add(NewObject::dense("scalar", &[], DType::Bool, &[1u8][..]).attribute("k", "v")).unwrap();
        vec![("written".into(), w.finish().unwrap())]
    }

    fn tiny_bytes() -> Vec<(String, Vec<u8>)> {
        // Deterministic pseudo-random inputs for the arbitrary-driven targets.
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut out = Vec::new();
        for (i, n) in [0usize, 8, 32, 64, 128, 256, 512, 1024, 2048, 4096].into_iter().enumerate() {
            let b: Vec<u8> = (0..n)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    s as u8
                })
                .collect();
            out.push((format!("random{i}"), b));
        }
        out
    }

    #[test]
    #[ignore = "writes fuzz/corpus/*/seed-*; run by hand"]
    fn write_seeds() {
        let corpus = super::fuzz_dir().join("corpus");
        let write = |target: &str, name: &str, bytes: &[u8]| {
            let dir = corpus.join(target);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(format!("seed-{name}")), bytes).unwrap();
        };
        let mut files = fixtures();
        files.extend(hostile_v1());
        files.extend(hostile_v0());
        files.extend(written());
        for (name, bytes) in &files {
            write("open_walk", name, bytes);
            write("tail_only", name, bytes);
            write("compact", name, bytes);
            if let Some(input) = harness::legacy_v0_input(bytes) {
                write("legacy_v0", name, &input);
            }
        }
        for (name, bytes) in tiny_bytes() {
            write("structured", &name, &bytes);
            write("writer_roundtrip", &name, &bytes);
            write("legacy_v0", &name, &bytes);
            write("v2_open", &name, &bytes);
        }
        // v2: whole files (one per rule group, and small valid ones).
        let v2 = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v2");
        for rel in V2_SEEDS {
            write("v2_open", &rel.replace('/', "-"), &std::fs::read(v2.join(rel)).unwrap());
        }
    }

    /// The v2 files the `v2_open` corpus starts from.
    const V2_SEEDS: &[&str] = &[
        "valid/appended.zt",
        "valid/zstd_seekable.zt",
        "hostile/c_valid.zt",
        "hostile/c_data_shard.zt",
        "hostile/cbor_floats_ok.zt",
        "hostile/cbor_depth_32.zt",
        "hostile/s_tied.zt",
        "hostile/s_unknown_fields.zt",
        "hostile/s_unknown_encoding.zt",
        "hostile/sh_valid.zt",
        "hostile/t_f4_odd_ok.zt",
        "hostile/t_unknown_type.zt",
        "hostile/coo_ok.zt",
        "hostile/csr_cols_unsorted.zt",
        "hostile/z_ok.zt",
        "hostile/z_ok_table_checksums.zt",
        "hostile/t_bool_value.zt",
    ];
}
