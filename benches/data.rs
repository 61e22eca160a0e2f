//! Data paths, each against the library it wraps, on the same bytes:
//!
//! * `zstd/<data>-<size>` — decoding one zstd component: ours through
//!   `Component::read_into` / `to_vec` (libzstd backend, this crate enables
//!   ztensor's `libzstd` feature) and through `ztensor::zstd::pure::decode_into`
//!   (the ruzstd backend, what `read_into` runs without the feature), against
//!   `zstd::bulk::decompress_to_buffer` / `zstd::bulk::decompress` and raw
//!   `ruzstd::decoding::FrameDecoder::decode_all`, all on the component's own
//!   frame (written by our `Writer`, zstd level 3).
//! * `sha256/<size>` — `Component::verify_digest` against
//!   `sha2::Sha256::digest` of the same stored bytes.
//! * `read/64MiB` — a raw 64 MiB component into a caller buffer through
//!   `Reader::read_into` in `Mode::Positional`, against `read_exact_at` of
//!   the same range on a `std::fs::File` (page cache), plus `Mode::Mmap`.
//! * `open/<size>` — `Reader::open` (mmap) and `Reader::open_with(..,
//!   Positional)` of sparse files of 64 MiB, 1 GiB and 4 GiB (valid files
//!   whose blobs are holes), then drop; and as a floor, `raw/mmap`:
//!   `File::open`, `memmap2::Mmap::map`, read the first and last byte, drop.
//!
//! Every contestant's output is checked against the others once before
//! anything is timed. `ZT_BENCH_CLOCK=cpu` measures the benchmark thread's
//! CPU time (user + system) instead of wall time, as in `open.rs`.
//! `ZT_BENCH_BIG=0` skips the 256 MiB digest and the 1 GiB / 4 GiB opens.
//!
//! Ratios: before each criterion group, every (ours, theirs) pair is also
//! run interleaved (ours, theirs, theirs, ours, ...; `ZT_BENCH_ROUNDS`
//! rounds each, default 15, 0 to skip), timed with the thread's CPU clock,
//! so load that drifts during a run hits both sides alike. At the end a
//! table gives `theirs / ours` time (≥ 1: ours is as fast) from the
//! fastest and the median round. On a shared machine these are the numbers
//! to trust; criterion's medians come from runs minutes apart.

use std::hint::black_box;
use std::io::Read;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[path = "signal.rs"]
mod signal;
use signal::{f32_signal, Rng};
/// The seed of every f32 signal here (and in `v2_data.rs`).
const SEED: u64 = 0x9e37_79b9_7f4a_7c15;
#[path = "cpu_time.rs"]
#[allow(dead_code)]
mod cpu_time;

use cpu_time::{thread_cpu_ns, CpuTime};
use criterion::measurement::Measurement;
use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use sha2::Digest as _;
use ztensor::fs::{Mode, Reader};
use ztensor::write::{Data, Sink};
use ztensor::write::v1_2::{Checksum, Compression, NewObject, Writer};
use ztensor::DType;

const MIB: usize = 1 << 20;

fn big() -> bool {
    std::env::var("ZT_BENCH_BIG").map_or(true, |v| v != "0")
}

fn rounds() -> usize {
    std::env::var("ZT_BENCH_ROUNDS").ok().map_or(15, |v| v.parse().expect("ZT_BENCH_ROUNDS: an integer"))
}

/// One interleaved comparison: `theirs / ours` time.
struct Pair {
    what: String,
    ours: &'static str,
    theirs: &'static str,
    goal: &'static str,
    /// Fastest round of each side.
    min: (f64, f64),
    /// Median round of each side.
    median: (f64, f64),
}

/// Time `ours` and `theirs` alternately, `rounds()` times each, with the
/// thread CPU clock; each timing runs a closure `batch` times (enough for
/// about 5 ms), so tiny operations are not lost in clock resolution.
fn paired(
    pairs: &mut Vec<Pair>,
    what: &str,
    (ours_name, mut ours): (&'static str, impl FnMut()),
    (theirs_name, mut theirs): (&'static str, impl FnMut()),
    goal: &'static str,
) {
    let rounds = rounds();
    if rounds == 0 {
        return;
    }
    fn time(f: &mut impl FnMut(), batch: usize) -> f64 {
        let t = thread_cpu_ns();
        for _ in 0..batch {
            f();
        }
        (thread_cpu_ns() - t) as f64 / batch as f64
    }
    // Warm up both; size the batch on the slower.
    let one = time(&mut ours, 1).max(time(&mut theirs, 1)).max(1.0);
    let batch = ((5e6 / one) as usize).clamp(1, 10_000);
    let (mut a, mut b) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    for i in 0..rounds {
        if i % 2 == 0 {
            a.push(time(&mut ours, batch));
            b.push(time(&mut theirs, batch));
        } else {
            b.push(time(&mut theirs, batch));
            a.push(time(&mut ours, batch));
        }
    }
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let p = Pair {
        what: what.to_owned(),
        ours: ours_name,
        theirs: theirs_name,
        goal,
        min: (a[0], b[0]),
        median: (a[rounds / 2], b[rounds / 2]),
    };
    eprintln!(
        "paired {what}: {ours_name} vs {theirs_name}: theirs/ours {:.3} (fastest), {:.3} (median)",
        p.min.1 / p.min.0,
        p.median.1 / p.median.0
    );
    pairs.push(p);
}

fn fmt_ns(ns: f64) -> String {
    match ns {
        n if n >= 1e9 => format!("{:.3} s", n / 1e9),
        n if n >= 1e6 => format!("{:.3} ms", n / 1e6),
        n if n >= 1e3 => format!("{:.2} µs", n / 1e3),
        n => format!("{n:.0} ns"),
    }
}

fn print_pairs(pairs: &[Pair]) {
    if pairs.is_empty() {
        return;
    }
    println!("\nInterleaved pairs ({} rounds each, thread CPU time):\n", rounds());
    println!("| what | ours | theirs | ours (fastest) | theirs (fastest) | theirs/ours fastest | theirs/ours median | goal |");
    println!("|---|---|---|---|---|---|---|---|");
    for p in pairs {
        println!(
            "| {} | `{}` | `{}` | {} | {} | {:.3} | {:.3} | {} |",
            p.what,
            p.ours,
            p.theirs,
            fmt_ns(p.min.0),
            fmt_ns(p.min.1),
            p.min.1 / p.min.0,
            p.median.1 / p.median.0,
            p.goal
        );
    }
}

// ---------------------------------------------------------------- inputs

/// xorshift64*: deterministic, no dependency.
/// English-like text: words drawn with a skewed distribution from a small
/// vocabulary, with punctuation and line breaks.
fn text(bytes: usize) -> Vec<u8> {
    const WORDS: &[&str] = &[
        "the",
        "of",
        "and",
        "to",
        "a",
        "in",
        "is",
        "that",
        "for",
        "it",
        "as",
        "was",
        "with",
        "be",
        "by",
        "on",
        "not",
        "he",
        "this",
        "are",
        "or",
        "his",
        "from",
        "at",
        "which",
        "but",
        "have",
        "an",
        "had",
        "they",
        "you",
        "were",
        "their",
        "one",
        "all",
        "we",
        "can",
        "her",
        "has",
        "there",
        "been",
        "if",
        "more",
        "when",
        "will",
        "would",
        "who",
        "so",
        "no",
        "tensor",
        "file",
        "manifest",
        "component",
        "offset",
        "length",
        "encoding",
        "compressed",
        "weights",
        "layer",
        "attention",
        "model",
        "training",
        "gradient",
        "shape",
        "memory",
        "mapped",
        "reader",
        "writer",
        "format",
        "version",
        "object",
        "checksum",
        "digest",
        "header",
        "footer",
        "alignment",
        "little",
        "endian",
        "sparse",
        "dense",
        "quantized",
        "scale",
        "zero",
        "point",
        "between",
        "through",
        "without",
        "another",
        "because",
        "however",
        "therefore",
        "although",
        "during",
    ];
    let mut r = Rng(0x1234_5678_9abc_def1);
    let mut out = Vec::with_capacity(bytes + 16);
    let mut n = 0;
    while out.len() < bytes {
        // Product of two uniforms: small indices (common words) win.
        let a = (r.next() % WORDS.len() as u64) as usize;
        let b = (r.next() % WORDS.len() as u64) as usize;
        out.extend_from_slice(WORDS[a * b / WORDS.len()].as_bytes());
        n += 1;
        let sep: &[u8] = match r.next() % 40 {
            0 => b".\n",
            1 | 2 => b", ",
            3 => b". ",
            _ => b" ",
        };
        out.extend_from_slice(if n % 97 == 0 { b"\n\n" } else { sep });
    }
    out.truncate(bytes);
    out
}

/// An in-memory `.zt` file holding one object `x` (dense `dtype` over
/// `bytes`), written by our `Writer`.
fn zt_file(dtype: DType, bytes: &[u8], c: Compression, sum: Checksum) -> Vec<u8> {
    let n = bytes.len() as u64 / dtype.width() as u64;
    let mut w = Writer::new(Vec::new());
    w.add(NewObject::dense("x", &[n], dtype, bytes).compression(c).checksum(sum)).unwrap();
    w.finish().unwrap()
}

// ------------------------------------------------------------ (a) zstd

fn bench_zstd<M: Measurement>(c: &mut Criterion<M>, pairs: &mut Vec<Pair>) {
    assert_eq!(ztensor::zstd::BACKEND, "libzstd", "the bench crate enables ztensor's `libzstd` feature");
    let sets: [(&str, usize, fn(usize) -> Vec<u8>, DType); 4] = [
        ("f32", MIB, |n| f32_signal(n, SEED), DType::F32),
        ("f32", 16 * MIB, |n| f32_signal(n, SEED), DType::F32),
        ("text", MIB, text, DType::U8),
        ("text", 16 * MIB, text, DType::U8),
    ];
    for (kind, size, make, dtype) in sets {
        let data = make(size);
        let zt = zt_file(dtype, &data, Compression::ZSTD, Checksum::None);
        let file = ztensor::File::parse(&zt).unwrap();
        let comp = file.require("x").unwrap().data().unwrap();
        let frame = comp.stored_bytes().unwrap();
        let name = format!("zstd/{kind}-{}MiB", size / MIB);
        eprintln!("{name}: frame {} bytes, ratio {:.2}", frame.len(), size as f64 / frame.len() as f64);

        // Everyone decodes the same frame to the same bytes.
        let mut out = vec![0u8; size];
        assert_eq!(comp.read_into(&mut out).unwrap(), size);
        assert!(out == data);
        assert!(comp.to_vec().unwrap() == data);
        out.fill(0);
        assert_eq!(ztensor::zstd::pure::decode_into(frame, &mut out).unwrap(), size);
        assert!(out == data);
        out.fill(0);
        assert_eq!(ruzstd::decoding::FrameDecoder::new().decode_all(frame, &mut out).unwrap(), size);
        assert!(out == data);
        out.fill(0);
        assert_eq!(zstd::bulk::decompress_to_buffer(frame, &mut out[..]).unwrap(), size);
        assert!(out == data);
        assert!(zstd::bulk::decompress(frame, size).unwrap() == data);

        let mut o2 = vec![0u8; size];
        paired(
            pairs,
            &name,
            ("ours/read_into", || _ = black_box(comp.read_into(black_box(&mut out[..])).unwrap())),
            ("libzstd/decompress_to_buffer", || {
                _ = black_box(zstd::bulk::decompress_to_buffer(black_box(frame), black_box(&mut o2[..])).unwrap())
            }),
            "≥ 0.95",
        );
        paired(
            pairs,
            &name,
            ("ours/to_vec", || drop(black_box(comp.to_vec().unwrap()))),
            ("libzstd/decompress", || drop(black_box(zstd::bulk::decompress(black_box(frame), size).unwrap()))),
            "≥ 0.95",
        );
        paired(
            pairs,
            &name,
            ("ours-ruzstd/decode_into", || {
                _ = black_box(ztensor::zstd::pure::decode_into(black_box(frame), black_box(&mut out[..])).unwrap())
            }),
            ("ruzstd/decode_all", || {
                _ = black_box(
                    ruzstd::decoding::FrameDecoder::new().decode_all(black_box(frame), black_box(&mut o2[..])).unwrap(),
                )
            }),
            "≈ 1",
        );
        drop(o2);

        let mut g = c.benchmark_group(&name);
        g.throughput(Throughput::Bytes(size as u64));
        if size > MIB {
            g.sample_size(10).sampling_mode(SamplingMode::Flat);
        } else {
            g.sample_size(30);
        }
        g.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));

        g.bench_function(BenchmarkId::new("ours", "read_into"), |b| {
            b.iter(|| black_box(&comp).read_into(black_box(&mut out[..])).unwrap())
        });
        g.bench_function(BenchmarkId::new("ours", "to_vec"), |b| b.iter(|| black_box(&comp).to_vec().unwrap()));
        g.bench_function(BenchmarkId::new("libzstd", "decompress_to_buffer"), |b| {
            b.iter(|| zstd::bulk::decompress_to_buffer(black_box(frame), black_box(&mut out[..])).unwrap())
        });
        g.bench_function(BenchmarkId::new("libzstd", "decompress"), |b| {
            b.iter(|| zstd::bulk::decompress(black_box(frame), size).unwrap())
        });
        g.bench_function(BenchmarkId::new("ours-ruzstd", "decode_into"), |b| {
            b.iter(|| ztensor::zstd::pure::decode_into(black_box(frame), black_box(&mut out[..])).unwrap())
        });
        g.bench_function(BenchmarkId::new("ruzstd", "decode_all"), |b| {
            b.iter(|| {
                ruzstd::decoding::FrameDecoder::new().decode_all(black_box(frame), black_box(&mut out[..])).unwrap()
            })
        });
        g.finish();
    }
}

// ---------------------------------------------------------- (b) sha256

fn bench_sha256<M: Measurement>(c: &mut Criterion<M>, pairs: &mut Vec<Pair>) {
    let mut sizes = vec![16 * MIB];
    if big() {
        sizes.push(256 * MIB);
    }
    for size in sizes {
        let mut r = Rng(size as u64);
        let data: Vec<u8> = (0..size / 8).flat_map(|_| r.next().to_le_bytes()).collect();
        let zt = zt_file(DType::U8, &data, Compression::Raw, Checksum::Sha256);
        drop(data);
        let file = ztensor::File::parse(&zt).unwrap();
        let comp = file.require("x").unwrap().data().unwrap();
        let stored = comp.stored_bytes().unwrap();
        assert_eq!(comp.verify_digest().unwrap(), ztensor::digest::Verified::Ok);
        let hex: String = sha2::Sha256::digest(stored).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(comp.digest().unwrap(), format!("sha256:{hex}"));
        paired(
            pairs,
            &format!("sha256/{}MiB", size / MIB),
            ("ours/verify_digest", || _ = black_box(comp.verify_digest().unwrap())),
            ("sha2/digest", || _ = black_box(sha2::Sha256::digest(black_box(stored)))),
            "≥ 0.9",
        );

        let mut g = c.benchmark_group(format!("sha256/{}MiB", size / MIB));
        g.throughput(Throughput::Bytes(size as u64));
        g.sample_size(10).sampling_mode(SamplingMode::Flat);
        g.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(if size > 16 * MIB {
            6
        } else {
            3
        }));
        g.bench_function(BenchmarkId::new("ours", "verify_digest"), |b| {
            b.iter(|| black_box(&comp).verify_digest().unwrap())
        });
        g.bench_function(BenchmarkId::new("sha2", "digest"), |b| b.iter(|| sha2::Sha256::digest(black_box(stored))));
        g.finish();
    }
}

// ----------------------------------------------------- (c) positional read

fn bench_read<M: Measurement>(c: &mut Criterion<M>, dir: &Path, pairs: &mut Vec<Pair>) {
    let size = 64 * MIB;
    let data = f32_signal(size, SEED);
    let path = dir.join("read.zt");
    let mut w = Writer::create(&path).unwrap();
    w.add(NewObject::dense("x", &[(size / 4) as u64], DType::F32, &data[..])).unwrap();
    w.finish().unwrap();

    let pos = Reader::open_with(&path, Mode::Positional).unwrap();
    let map = Reader::open(&path).unwrap();
    let pc = pos.file().require("x").unwrap().data().unwrap();
    let mc = map.file().require("x").unwrap().data().unwrap();
    let (offset, len) = (pc.offset(), pc.length() as usize);
    assert_eq!(len, size);
    let f = std::fs::File::open(&path).unwrap();

    // Output buffer touched once, so no contestant pays its page faults.
    let mut out = vec![1u8; size];
    assert_eq!(pos.read_into(&pc, &mut out).unwrap(), size);
    assert!(out == data);
    out.fill(0);
    f.read_exact_at(&mut out, offset).unwrap();
    assert!(out == data);
    out.fill(0);
    assert_eq!(map.read_into(&mc, &mut out).unwrap(), size);
    assert!(out == data);
    drop(data);

    let mut o2 = vec![1u8; size];
    paired(
        pairs,
        "read/64MiB",
        ("ours/positional_read_into", || {
            _ = black_box(pos.read_into(black_box(&pc), black_box(&mut out[..])).unwrap())
        }),
        ("std/read_exact_at", || f.read_exact_at(black_box(&mut o2[..]), black_box(offset)).unwrap()),
        "≥ 0.9",
    );
    drop(o2);

    let mut g = c.benchmark_group("read/64MiB");
    g.throughput(Throughput::Bytes(size as u64));
    g.sample_size(20).sampling_mode(SamplingMode::Flat);
    g.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    g.bench_function(BenchmarkId::new("ours", "positional_read_into"), |b| {
        b.iter(|| pos.read_into(black_box(&pc), black_box(&mut out[..])).unwrap())
    });
    g.bench_function(BenchmarkId::new("std", "read_exact_at"), |b| {
        b.iter(|| f.read_exact_at(black_box(&mut out[..]), black_box(offset)).unwrap())
    });
    g.bench_function(BenchmarkId::new("ours", "mmap_read_into"), |b| {
        b.iter(|| map.read_into(black_box(&mc), black_box(&mut out[..])).unwrap())
    });
    g.finish();
}

// ------------------------------------------------------ (d) open, sparse

/// A file sink that leaves all-zero writes as holes.
struct SparseSink {
    f: std::fs::File,
    pos: u64,
}

impl Sink for SparseSink {
    fn write_all(&mut self, bytes: &[u8]) -> ztensor::Result<()> {
        if bytes.iter().any(|&b| b != 0) {
            self.f.write_all_at(bytes, self.pos).expect("write");
        }
        self.pos += bytes.len() as u64;
        Ok(())
    }
    fn finish(&mut self) -> ztensor::Result<()> {
        self.f.set_len(self.pos).expect("set_len");
        Ok(())
    }
}

/// A valid `.zt` of about `size` bytes: four raw u8 objects of `size / 4`
/// zeros each, written as holes.
fn sparse_file(path: &Path, size: u64) {
    let f = std::fs::File::create(path).unwrap();
    let mut w = Writer::new(SparseSink { f, pos: 0 });
    let part = size / 4;
    for i in 0..4 {
        let zeros = std::io::repeat(0).take(part);
        w.add(NewObject::dense(format!("layer.{i}.weight"), &[part], DType::U8, Data::from_reader(part, zeros)))
            .unwrap();
    }
    w.finish().unwrap();
}

/// The floor of a mapped open: map the file, touch its first and last page.
fn raw_mmap(path: &Path) -> u8 {
    let f = std::fs::File::open(path).unwrap();
    let len = f.metadata().unwrap().len() as usize;
    // SAFETY: a read-only map of a file nobody modifies during the benchmark.
    let map = unsafe { memmap2::Mmap::map(&f) }.unwrap();
    map[0] ^ map[len - 1]
}

fn bench_open<M: Measurement>(c: &mut Criterion<M>, dir: &Path, pairs: &mut Vec<Pair>) {
    let mut sizes = vec![(64u64 << 20, "64MiB")];
    if big() {
        sizes.extend([(1u64 << 30, "1GiB"), (4u64 << 30, "4GiB")]);
    }
    let mut paths: Vec<PathBuf> = Vec::new();
    for &(size, label) in &sizes {
        let path = dir.join(format!("sparse-{label}.zt"));
        let t = std::time::Instant::now();
        sparse_file(&path, size);
        let m = std::fs::metadata(&path).unwrap();
        eprintln!(
            "open/{label}: {} bytes, {} KiB allocated on disk, written in {:.1?}",
            m.len(),
            m.blocks() * 512 / 1024,
            t.elapsed()
        );
        for mode in [Mode::Mmap, Mode::Positional] {
            let r = Reader::open_with(&path, mode).unwrap();
            assert_eq!(r.file().len(), 4);
            let d = r.file().require("layer.3.weight").unwrap().data().unwrap();
            assert_eq!(d.length(), size / 4);
            assert!(d.offset() + d.length() > size * 3 / 4);
        }
        paths.push(path);
    }
    // Size independence: each size against the smaller ones (`theirs`).
    for (i, (&(_, label), path)) in sizes.iter().zip(&paths).enumerate() {
        for (&(_, small), small_path) in sizes.iter().zip(&paths).take(i) {
            for mode in [Mode::Mmap, Mode::Positional] {
                let m = if mode == Mode::Mmap { "mmap" } else { "positional" };
                paired(
                    pairs,
                    &format!("open {m}: {label} vs {small}"),
                    (label, || drop(black_box(Reader::open_with(black_box(path), mode).unwrap()))),
                    (small, || drop(black_box(Reader::open_with(black_box(small_path), mode).unwrap()))),
                    "≈ 1",
                );
            }
        }
    }
    for (&(_, label), path) in sizes.iter().zip(&paths) {
        let mut g = c.benchmark_group(format!("open/{label}"));
        g.sample_size(50);
        g.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
        g.bench_function(BenchmarkId::new("ours", "mmap"), |b| b.iter(|| Reader::open(black_box(path)).unwrap()));
        g.bench_function(BenchmarkId::new("ours", "positional"), |b| {
            b.iter(|| Reader::open_with(black_box(path), Mode::Positional).unwrap())
        });
        g.bench_function(BenchmarkId::new("raw", "mmap"), |b| b.iter(|| raw_mmap(black_box(path))));
        g.finish();
    }
    for p in paths {
        std::fs::remove_file(p).unwrap();
    }
}

// ----------------------------------------------------------------- main

fn bench_all<M: Measurement>(c: &mut Criterion<M>) {
    let dir = tempfile::Builder::new().prefix("zt-bench-data-").tempdir().unwrap();
    let mut pairs = Vec::new();
    bench_zstd(c, &mut pairs);
    bench_sha256(c, &mut pairs);
    bench_read(c, dir.path(), &mut pairs);
    bench_open(c, dir.path(), &mut pairs);
    print_pairs(&pairs);
}

fn main() {
    match std::env::var("ZT_BENCH_CLOCK").as_deref() {
        Ok("cpu") => {
            let mut c = Criterion::default().with_measurement(CpuTime::new()).configure_from_args();
            bench_all(&mut c);
            c.final_summary();
        }
        Ok("wall") | Err(_) => {
            let mut c = Criterion::default().configure_from_args();
            bench_all(&mut c);
            c.final_summary();
        }
        Ok(other) => panic!("ZT_BENCH_CLOCK={other}: expected `cpu` or `wall`"),
    }
}
