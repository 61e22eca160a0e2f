//! Format v2: open + validate of 1k / 10k / 100k-object files (16 `f32`
//! each, 4 KiB placement, written by upstream's own writer), this crate
//! (`fs::Reader::open`: map, then the v2 validating pass and the name
//! index) against upstream's Rust crate `ztensor = "=2.1.1"`
//! (`Source::open`). Thread CPU time, the minimum of several runs each.
//!
//!     cargo bench -p ztensor-benches --bench v2 [-- N...]

#[path = "cpu_time.rs"]
#[allow(dead_code)]
mod cpu_time;

use cpu_time::thread_cpu_ns;
use std::path::Path;

/// Upstream writes the file: 16 floats per object, 4 KiB placement.
fn write(path: &Path, n: usize) {
    let mut w = ztensor_up2::write::Options::default().canonical(false).align(4096).create(path).unwrap();
    let data: Vec<u8> = (0..16).flat_map(|i| (i as f32).to_le_bytes()).collect();
    for i in 0..n {
        w.add(format!("t{i:06}"), [16u64], ztensor_up2::DType::F32, &data).unwrap();
    }
    w.finish().unwrap();
}

/// Minimum thread CPU time of `runs` calls, in milliseconds.
fn min_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    (0..runs)
        .map(|_| {
            let t = thread_cpu_ns();
            f();
            (thread_cpu_ns() - t) as f64 / 1e6
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![1_000, 10_000, 100_000] } else { sizes };
    let dir = tempfile::tempdir().unwrap();
    println!("| objects | ztensor (this) ms | upstream 2.1.1 ms | ratio |");
    println!("| ---: | ---: | ---: | ---: |");
    for n in sizes {
        let path = dir.path().join(format!("v2-{n}.zt"));
        write(&path, n);
        let runs = if n >= 100_000 { 5 } else { 15 };
        let ours = min_ms(runs, || {
            let r = ztensor::fs::Reader::open(&path).unwrap();
            assert_eq!(r.file().len(), n);
        });
        let theirs = min_ms(runs, || {
            let s = ztensor_up2::Source::open(&path).unwrap();
            assert_eq!(s.len(), n);
        });
        println!("| {n} | {ours:.2} | {theirs:.2} | {:.1}x |", theirs / ours);
        std::fs::remove_file(&path).unwrap();
    }
}
