//! The Rust side of the find benchmark: the same work as
//! `examples-c/bench_find.c`, through the Rust API directly.
//!
//!     cargo run --release --manifest-path ffi/Cargo.toml --example bench_find -- FILE [N] [ITERS]
//!
//! FILE is the one `bench_find` (C) wrote. K times: open it (mmap), look
//! every object up by name in the same shuffled order, drop it. Prints
//! `RESULT lang=rust clock=cpu objects=N iters=K min_ns=... median_ns=... open_min_ns=...
//! find_min_ns=... per_find_ns=...` (fields as in bench_find.c).

use std::hint::black_box;
use ztensor_core::fs::Reader;

/// CPU time of this thread (as bench_find.c), or wall-clock time with
/// `ZT_BENCH_WALL=1`, in nanoseconds.
fn now_ns(wall: bool) -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    let clock = if wall { libc::CLOCK_MONOTONIC } else { libc::CLOCK_THREAD_CPUTIME_ID };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: bench_find FILE [N] [ITERS]");
        std::process::exit(2);
    };
    let n: usize = args.get(1).map_or(100_000, |s| s.parse().expect("N"));
    let iters: usize = args.get(2).map_or(10, |s| s.parse().expect("ITERS"));

    let stride = if n % 7919 == 0 { 1 } else { 7919 };
    let names: Vec<String> = (0..n).map(|j| format!("layers.{}.weight", (j * stride + 13) % n)).collect();

    let wall = std::env::var("ZT_BENCH_WALL").is_ok_and(|v| v == "1");
    let (mut times, mut open_times, mut find_times) = (Vec::new(), Vec::new(), Vec::new());
    let mut check = 0u64;
    for _ in 0..iters {
        let t0 = now_ns(wall);
        let r = Reader::open(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let t1 = now_ns(wall);
        let file = r.file();
        assert_eq!(file.len(), n, "{path} has another object count: regenerate it");
        for name in &names {
            let o = file.get(black_box(name)).unwrap_or_else(|| panic!("{name} not found"));
            check += o.index() as u64;
        }
        let t2 = now_ns(wall);
        drop(r);
        times.push(now_ns(wall) - t0);
        open_times.push(t1 - t0);
        find_times.push(t2 - t1);
    }
    assert_eq!(check, iters as u64 * (n as u64 * (n as u64 - 1) / 2), "wrong objects found");
    times.sort_unstable();
    open_times.sort_unstable();
    find_times.sort_unstable();
    println!(
        "RESULT lang=rust clock={} objects={n} iters={iters} min_ns={} median_ns={} open_min_ns={} find_min_ns={} per_find_ns={:.1}",
        if wall { "wall" } else { "cpu" },
        times[0],
        times[iters / 2],
        open_times[0],
        find_times[0],
        find_times[0] as f64 / n as f64
    );
}
