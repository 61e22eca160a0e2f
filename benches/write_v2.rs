//! Write canonical zTensor v2 files, side by side, on the same tensors.
//!
//! Three workloads shaped like upstream's published ones (generated at
//! startup, nothing is committed; names sorted, as canonical form adds
//! objects in name order):
//!
//! * `large`: 4 dense `f32` tensors of 256 MiB (1 GiB);
//! * `mixed`: a model-like mix, 110 tensors, 357 MiB: a 32000 × 1024 `f16`
//!   embedding, then 12 layers of four 1024 × 1024 `f16` attention
//!   matrices, three 1024 × 2816 `f16` MLP matrices and two 1024-`f32` norms;
//! * `small`: 50,000 `f32` tensors of 4 KiB (195 MiB).
//!
//! Contestants, each writing one whole file into the same temp directory
//! (under `std::env::temp_dir()`; the destination is removed before each
//! round, untimed):
//!
//! * `ours`: `ztensor::write::v2::Writer::create(path)` (canonical, a
//!   `FileSink`: temp file beside the destination, 256 KiB buffer; `finish`
//!   fsyncs, renames, fsyncs the directory), `add_dense` per tensor.
//! * `upstream`: ztensor 2.1.1's `Writer::create(path)` (canonical, 1 MiB
//!   `BufWriter`; `finish` fsyncs), `add` per tensor.
//! * `safetensors`: `safetensors::serialize_to_file` (0.6; 8 KiB
//!   `BufWriter`, no fsync).
//! * `plain+xxh3`: `File::create` + 256 KiB `BufWriter`, every tensor's bytes
//!   back to back and the XXH3-64 of each, flush, fsync: the floor for a
//!   writer that digests every tensor and makes the file durable.
//!
//! Before timing, every contestant writes once and the files are checked:
//! ours and upstream's are byte-identical (canonical form promises it, so
//! both did the same work), ours parses with our reader with every tensor's
//! bytes, the safetensors file deserializes, the plain file has the
//! tensor bytes.
//!
//! Timing: `ZT_BENCH_ROUNDS` interleaved rounds (default 5) of every
//! contestant, the order rotating each round, one whole file per run, the
//! thread's CPU time (user + system: the copy into the page cache and the
//! fsync's write-out submission count, waiting for the disk does not) and
//! the wall time. GB/s = tensor bytes (10^9) / median CPU time.
//! `ZT_BENCH_CASES=large,small` picks workloads, `ZT_BENCH_ONLY=ours,upstream`
//! times only the contestants named (the check still runs every one;
//! `ZT_BENCH_CHECK=0` skips it, for profiling only).

use std::fs::{self, File};
use std::hint::black_box;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[path = "cpu_time.rs"]
#[allow(dead_code)]
mod cpu_time;

use cpu_time::thread_cpu_ns;
use ztensor::v2::types::DType;

/// One tensor: name, shape, dtype, little-endian bytes.
struct Tensor {
    name: String,
    shape: Vec<u64>,
    f16: bool,
    bytes: Vec<u8>,
}

struct Case {
    id: &'static str,
    tensors: Vec<Tensor>,
}

impl Case {
    fn bytes(&self) -> u64 {
        self.tensors.iter().map(|t| t.bytes.len() as u64).sum()
    }
}

/// Distinct bytes for tensor `seed` (no two tensors share a blob).
fn fill(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut v = Vec::with_capacity(len);
    while v.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.truncate(len);
    v
}

fn tensor(name: String, shape: &[u64], f16: bool, seed: u64) -> Tensor {
    let len = shape.iter().product::<u64>() * if f16 { 2 } else { 4 };
    Tensor { name, shape: shape.to_vec(), f16, bytes: fill(len as usize, seed) }
}

fn case(id: &'static str) -> Case {
    let mut tensors = Vec::new();
    match id {
        "large" => {
            for i in 0..4 {
                tensors.push(tensor(format!("weight.{i}"), &[64 << 20], false, i));
            }
        }
        "mixed" => {
            tensors.push(tensor("embed.weight".into(), &[32000, 1024], true, 0));
            for l in 0..12u64 {
                let s = l * 16 + 1;
                for (j, p) in ["q", "k", "v", "o"].iter().enumerate() {
                    tensors.push(tensor(format!("layers.{l:02}.attn.{p}.weight"), &[1024, 1024], true, s + j as u64));
                }
                for (j, p) in ["gate", "up", "down"].iter().enumerate() {
                    let shape: &[u64] = if *p == "down" { &[1024, 2816] } else { &[2816, 1024] };
                    tensors.push(tensor(format!("layers.{l:02}.mlp.{p}.weight"), shape, true, s + 4 + j as u64));
                }
                tensors.push(tensor(format!("layers.{l:02}.norm1.weight"), &[1024], false, s + 7));
                tensors.push(tensor(format!("layers.{l:02}.norm2.weight"), &[1024], false, s + 8));
            }
            tensors.push(tensor("norm.weight".into(), &[1024], false, 999));
        }
        "small" => {
            for i in 0..50_000u64 {
                tensors.push(tensor(format!("t.{i:05}"), &[1024], false, i));
            }
        }
        other => panic!("unknown case {other}"),
    }
    tensors.sort_by(|a, b| a.name.cmp(&b.name));
    Case { id, tensors }
}

// --- contestants -----------------------------------------------------------

fn ours(c: &Case, path: &Path) {
    let mut w = ztensor::write::v2::Writer::create(path).unwrap();
    for t in &c.tensors {
        let d = if t.f16 { DType::F16 } else { DType::F32 };
        w.add_dense(&t.name, &t.shape, d, &t.bytes[..]).unwrap();
    }
    drop(w.finish().unwrap());
}

fn upstream(c: &Case, path: &Path) {
    let mut w = ztensor_up2::Writer::create(path).unwrap();
    for t in &c.tensors {
        let d = if t.f16 { ztensor_up2::DType::F16 } else { ztensor_up2::DType::F32 };
        w.add(t.name.as_str(), t.shape.clone(), d, &t.bytes).unwrap();
    }
    w.finish().unwrap();
}

fn safetensors_file(c: &Case, path: &Path) {
    let views = c.tensors.iter().map(|t| {
        let d = if t.f16 { safetensors::Dtype::F16 } else { safetensors::Dtype::F32 };
        let shape = t.shape.iter().map(|&x| x as usize).collect();
        (t.name.as_str(), safetensors::tensor::TensorView::new(d, shape, &t.bytes).unwrap())
    });
    safetensors::serialize_to_file(views, None, path).unwrap();
}

fn plain_xxh3(c: &Case, path: &Path) {
    let mut f = BufWriter::with_capacity(256 * 1024, File::create(path).unwrap());
    for t in &c.tensors {
        black_box(xxhash_rust::xxh3::xxh3_64(&t.bytes));
        f.write_all(&t.bytes).unwrap();
    }
    f.into_inner().unwrap().sync_all().unwrap();
}

type Contestant = (&'static str, fn(&Case, &Path));

const CONTESTANTS: &[Contestant] =
    &[("ours", ours), ("upstream", upstream), ("safetensors", safetensors_file), ("plain+xxh3", plain_xxh3)];

// --- setup and check -------------------------------------------------------

/// The temp dir, removed with everything in it at the end.
struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn path_of(dir: &Path, c: &Case, k: usize) -> PathBuf {
    dir.join(format!("{}.{}", c.id, CONTESTANTS[k].0.replace('+', "-")))
}

/// Two files hold the same bytes (read in 8 MiB steps: the large files are 1 GiB).
fn same_file(a: &Path, b: &Path) -> bool {
    let (mut fa, mut fb) = (File::open(a).unwrap(), File::open(b).unwrap());
    if fa.metadata().unwrap().len() != fb.metadata().unwrap().len() {
        return false;
    }
    let (mut ba, mut bb) = (vec![0u8; 8 << 20], vec![0u8; 8 << 20]);
    loop {
        let n = fa.read(&mut ba).unwrap();
        if n == 0 {
            return true;
        }
        fb.read_exact(&mut bb[..n]).unwrap();
        if ba[..n] != bb[..n] {
            return false;
        }
    }
}

fn check(dir: &Path, c: &Case) {
    for k in 0..CONTESTANTS.len() {
        (CONTESTANTS[k].1)(c, &path_of(dir, c, k));
    }
    let (o, u) = (path_of(dir, c, 0), path_of(dir, c, 1));
    assert!(same_file(&o, &u), "{}: ours and upstream's files differ", c.id);
    let bytes = fs::read(&o).unwrap();
    let r = ztensor::v2::Manifest::parse(&bytes).expect("ours: parse");
    assert_eq!(r.len(), c.tensors.len());
    let st_bytes = fs::read(path_of(dir, c, 2)).unwrap();
    let st = safetensors::SafeTensors::deserialize(&st_bytes).expect("safetensors: deserialize");
    assert_eq!(st.len(), c.tensors.len());
    let last = c.tensors.last().unwrap();
    assert_eq!(st.tensor(&last.name).unwrap().data(), &last.bytes[..]);
    let plain = fs::metadata(path_of(dir, c, 3)).unwrap().len();
    assert_eq!(plain, c.bytes());
    eprintln!(
        "write_v2/{}: {} tensors, {} tensor bytes; ours = upstream {} bytes (manifest offset {}), safetensors {} bytes",
        c.id,
        c.tensors.len(),
        c.bytes(),
        bytes.len(),
        u64::from_le_bytes(bytes[bytes.len() - 40..bytes.len() - 32].try_into().unwrap()),
        st_bytes.len()
    );
    drop(bytes);
    for k in 0..CONTESTANTS.len() {
        let _ = fs::remove_file(path_of(dir, c, k));
    }
}

// --- interleaved rounds ----------------------------------------------------

fn rounds() -> usize {
    std::env::var("ZT_BENCH_ROUNDS").ok().map_or(5, |v| v.parse().expect("ZT_BENCH_ROUNDS: an integer"))
}

/// Per contestant: sorted CPU and wall times (ns) of its rounds.
fn run(dir: &Path, c: &Case) -> Vec<(Vec<f64>, Vec<f64>)> {
    let n = CONTESTANTS.len();
    let only = std::env::var("ZT_BENCH_ONLY").ok();
    let on = |k: usize| only.as_deref().is_none_or(|o| o.split(',').any(|x| x == CONTESTANTS[k].0));
    let mut times = vec![(Vec::new(), Vec::new()); n];
    for r in 0..rounds() {
        for i in 0..n {
            let k = (i + r) % n;
            if !on(k) {
                continue;
            }
            let path = path_of(dir, c, k);
            let _ = fs::remove_file(&path);
            let (t, w) = (thread_cpu_ns(), Instant::now());
            (CONTESTANTS[k].1)(black_box(c), &path);
            times[k].0.push((thread_cpu_ns() - t) as f64);
            times[k].1.push(w.elapsed().as_nanos() as f64);
            let _ = fs::remove_file(&path);
        }
    }
    for t in &mut times {
        t.0.sort_by(f64::total_cmp);
        t.1.sort_by(f64::total_cmp);
    }
    times
}

fn main() {
    let dir = Dir(std::env::temp_dir().join(format!("zt-bench-write-v2-{}", std::process::id())));
    fs::create_dir_all(&dir.0).expect("create temp dir");
    let only = std::env::var("ZT_BENCH_CASES").ok();
    let ids: Vec<&'static str> =
        ["large", "mixed", "small"].into_iter().filter(|id| only.as_deref().is_none_or(|o| o.split(',').any(|x| x == *id))).collect();
    assert!(!ids.is_empty(), "ZT_BENCH_CASES matches no case (large, mixed, small)");
    let mut rows = Vec::new();
    for id in ids {
        let t = Instant::now();
        let c = case(id);
        if std::env::var("ZT_BENCH_CHECK").as_deref() != Ok("0") {
            check(&dir.0, &c);
        }
        let times = run(&dir.0, &c);
        eprintln!("write_v2/{id}: {:.1?}", t.elapsed());
        rows.push((id, c.bytes(), times));
    }
    let med = |v: &Vec<f64>| v.get(v.len() / 2).copied().unwrap_or(f64::NAN);
    println!("\n{} interleaved rounds, thread CPU time (GB/s = 10^9 tensor bytes / median CPU s; wall: median):\n", rounds());
    println!("| workload | tensor bytes | ours | upstream 2.1.1 | safetensors | plain+xxh3 | ours/upstream | ours/plain+xxh3 | ours/safetensors |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for (id, bytes, times) in &rows {
        let gbs: Vec<f64> = times.iter().map(|t| *bytes as f64 / med(&t.0)).collect();
        let cell = |k: usize| format!("{:.2} GB/s ({:.0} ms; wall {:.0} ms)", gbs[k], med(&times[k].0) / 1e6, med(&times[k].1) / 1e6);
        println!(
            "| {id} | {bytes} | {} | {} | {} | {} | {:.2} | {:.2} | {:.2} |",
            cell(0),
            cell(1),
            cell(2),
            cell(3),
            gbs[0] / gbs[1],
            gbs[0] / gbs[3],
            gbs[0] / gbs[2]
        );
    }
    println!("\nFastest rounds (CPU): ");
    for (id, bytes, times) in &rows {
        let s: Vec<String> =
            times.iter().zip(CONTESTANTS).map(|(t, k)| format!("{} {:.2} GB/s", k.0, t.0.first().map_or(f64::NAN, |&x| *bytes as f64 / x))).collect();
        println!("  {id}: {}", s.join(", "));
    }
}
