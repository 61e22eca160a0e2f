//! Format v2: open + validate of N-object files (16 `f32` each, 4 KiB
//! placement, written by upstream's own writer), this crate
//! (`fs::Reader::open`: map, then the v2 validating pass and the name
//! index) against upstream's Rust crate `ztensor = "=2.1.1"`
//! (`Source::open`) on the same path.
//!
//! The two run interleaved (ours, theirs, theirs, ours, ...), each timed on
//! the thread's CPU time, so load from other jobs on a shared machine hits
//! both alike; the table gives the fastest and the median round of each,
//! their ratios, and the time per object.
//!
//!     ZT_BENCH_CLOCK=cpu cargo bench -p ztensor-benches --bench v2
//!
//! - `ZT_BENCH_SIZES=1000,10000,100000,1000000` picks the sizes (default
//!   1k, 10k, 100k; 1M is opt-in: upstream needs ~5 s and ~1 GB per open).
//!   Sizes given as arguments (`-- 1000 10000`) work too.
//! - `ZT_BENCH_ROUNDS=N`: rounds per size (each round one open of each,
//!   twice: default 15; 3 at ≥ 100k objects, 1 at ≥ 1M).
//! - `ZT_BENCH_CLOCK=wall` times wall-clock instead (default `cpu`).
//! - `ZT_BENCH_SETTLE=0`: leave out the step that ends each timed call
//!   (see [`settle`]).
//! - `ZT_BENCH_PROFILE=K`: only open ours K times per size (for `perf`).
//! - `ZT_BENCH_KEEP=dir`: keep a copy of each input file in `dir`.

#[path = "cpu_time.rs"]
#[allow(dead_code)]
mod cpu_time;

use cpu_time::thread_cpu_ns;
use std::path::Path;
use std::time::Instant;

/// Upstream writes the file: 16 floats per object, 4 KiB placement.
fn write(path: &Path, n: usize) {
    let mut w = ztensor_up2::write::Options::default().canonical(false).align(4096).create(path).unwrap();
    let data: Vec<u8> = (0..16).flat_map(|i| (i as f32).to_le_bytes()).collect();
    for i in 0..n {
        w.add(format!("t{i:06}"), [16u64], ztensor_up2::DType::F32, &data).unwrap();
    }
    w.finish().unwrap();
}

fn ours(path: &Path, n: usize) {
    let r = ztensor::fs::Reader::open(path).unwrap();
    assert_eq!(r.file().len(), n);
}

fn theirs(path: &Path, n: usize) {
    let s = ztensor_up2::Source::open(path).unwrap();
    assert_eq!(s.len(), n);
}

/// One 4 KiB allocation, freed at once. glibc defers part of the work of
/// `free` for small blocks (its fastbins) until the next allocation of
/// ≥ 1 KiB consolidates them: without this step, the tens of thousands of
/// small blocks upstream frees when its `Source` drops were consolidated in
/// the *next* contestant's timed call (+7 ms for ours at 10k objects, seen
/// with `perf`: `malloc_consolidate`, `unlink_chunk`). Ending every timed
/// call with it charges each contestant for its own frees.
fn settle() {
    if SETTLE.load(std::sync::atomic::Ordering::Relaxed) {
        std::hint::black_box(Vec::<u8>::with_capacity(std::hint::black_box(4096)));
    }
}

/// `ZT_BENCH_SETTLE=0` leaves [`settle`] out (to see its effect).
static SETTLE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Time of one call (and [`settle`]), in nanoseconds, on the chosen clock.
fn time(cpu: bool, f: impl FnOnce()) -> f64 {
    if cpu {
        let t = thread_cpu_ns();
        f();
        settle();
        (thread_cpu_ns() - t) as f64
    } else {
        let t = Instant::now();
        f();
        settle();
        t.elapsed().as_nanos() as f64
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn fmt_ms(ns: f64) -> String {
    format!("{:.3}", ns / 1e6)
}

fn env_list(name: &str) -> Option<Vec<usize>> {
    let v = std::env::var(name).ok()?;
    Some(v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = match env_list("ZT_BENCH_SIZES") {
        Some(s) if !s.is_empty() => s,
        _ if !args.is_empty() => args,
        _ => vec![1_000, 10_000, 100_000],
    };
    let cpu = match std::env::var("ZT_BENCH_CLOCK").as_deref() {
        Ok("wall") => false,
        Ok("cpu") | Err(_) => true,
        Ok(other) => panic!("ZT_BENCH_CLOCK={other}: expected `cpu` or `wall`"),
    };
    let rounds: Option<usize> = std::env::var("ZT_BENCH_ROUNDS").ok().and_then(|v| v.parse().ok());
    let profile: Option<usize> = std::env::var("ZT_BENCH_PROFILE").ok().and_then(|v| v.parse().ok());
    if std::env::var("ZT_BENCH_SETTLE").as_deref() == Ok("0") {
        SETTLE.store(false, std::sync::atomic::Ordering::Relaxed);
    }
    let dir = tempfile::tempdir().unwrap();
    if profile.is_none() {
        println!("clock: {}", if cpu { "thread CPU time" } else { "wall" });
        println!(
            "| objects | rounds | ours fastest ms | upstream fastest ms | ratio (fastest) | ours median ms | upstream median ms | ratio (median) | ours ns/object | upstream ns/object |"
        );
        println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    }
    for n in sizes {
        let path = dir.path().join(format!("v2-{n}.zt"));
        write(&path, n);
        if let Ok(keep) = std::env::var("ZT_BENCH_KEEP") {
            std::fs::copy(&path, Path::new(&keep).join(format!("v2-{n}.zt"))).unwrap();
        }
        if let Some(k) = profile {
            for _ in 0..k {
                ours(&path, n);
            }
            std::fs::remove_file(&path).unwrap();
            continue;
        }
        let rounds = rounds.unwrap_or(if n >= 1_000_000 {
            1
        } else if n >= 100_000 {
            3
        } else {
            15
        });
        // Warm-up: one of each (page cache, allocator).
        time(cpu, || ours(&path, n));
        time(cpu, || theirs(&path, n));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            a.push(time(cpu, || ours(&path, n)));
            b.push(time(cpu, || theirs(&path, n)));
            b.push(time(cpu, || theirs(&path, n)));
            a.push(time(cpu, || ours(&path, n)));
        }
        let (fa, fb) = (a.iter().copied().fold(f64::INFINITY, f64::min), b.iter().copied().fold(f64::INFINITY, f64::min));
        let (ma, mb) = (median(&mut a), median(&mut b));
        println!(
            "| {n} | {rounds} | {} | {} | {:.1}x | {} | {} | {:.1}x | {:.0} | {:.0} |",
            fmt_ms(fa),
            fmt_ms(fb),
            fb / fa,
            fmt_ms(ma),
            fmt_ms(mb),
            mb / ma,
            fa / n as f64,
            fb / n as f64
        );
        std::fs::remove_file(&path).unwrap();
    }
}
