//! Whole-model load (issue #33), side by side in one run, warm page cache,
//! wall time (the contestants use several threads):
//!
//! A model of about 1 GiB in 299 f32 tensors (12 of 32 MiB, 100 of 4 MiB,
//! 100 of 2 MiB, 87 of 512 KiB; a smooth signal with noise, as `data.rs`),
//! written at startup by our v2 writer into a temp dir (`$TMPDIR`), raw
//! (canonical: xxh3 on every part) and `zt.zstd-seekable/1` (1 MiB frames,
//! level 3, xxh3), and as a `.safetensors` file. Every timed call opens its
//! file anew (a cold start with the bytes in the page cache: the mapping's
//! page faults count) and reads every tensor. Before any is timed, each
//! file is brought into the page cache as a reader would bring it (see
//! [`recache`]), whichever writer made it:
//!
//! * ours: `fs::Reader::open` (mapped or positional) + `load` into the
//!   caller's pre-touched buffers (one page-aligned arena), 1 and 2 threads, digests
//!   checked (the default) or not;
//! * upstream `ztensor = "=2.1.1"`: `Source::open` + `Part::bytes` of every
//!   tensor into owned memory (`into_owned`), on 1 thread and on 2 threads
//!   of the caller's (half the tensors each);
//! * `safetensors` 0.6: `File::open` + mmap + `SafeTensors::deserialize` +
//!   a copy of every tensor into the same arena;
//! * plain `read()`: `File::open` + `read_exact` of the whole raw file into
//!   one pre-touched page-aligned buffer (the limit).
//!
//! Each pair runs alternately (ours, theirs, theirs, ours, ...;
//! `ZT_BENCH_ROUNDS` rounds, default 5); the table gives fastest and median.
//! `ZT_BENCH_LOAD_MIB` (default 1024) scales the model. `ZT_BENCH_CLOCK=cpu`
//! times the process's CPU time (user + system, every thread) instead of
//! wall time: on a shared machine, time spent waiting for a core is then
//! not counted. It is a speed for one-thread pairs only; for a pair with
//! threads it is the total work, which says nothing of the speed-up.
//!
//!     cargo bench -p ztensor-benches --bench load

#[path = "signal.rs"]
mod signal;
#[path = "cpu_time.rs"]
#[allow(dead_code)]
mod cpu_time;

use std::hint::black_box;
use std::io::Read;
use std::path::Path;
use std::time::Instant;

use ztensor::fs::{Mode, Reader};
use ztensor::load::{Options, Request};
use ztensor::v2::types::DType;
use ztensor::write::v2 as w2;

const MIB: usize = 1 << 20;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().map_or(default, |v| v.parse().unwrap_or_else(|_| panic!("{name}: an integer")))
}

/// xorshift64*.
/// Tensor sizes in bytes: 12 × 32 MiB, 100 × 4 MiB, 100 × 2 MiB, 87 × 512 KiB at 1 GiB.
fn sizes(total_mib: usize) -> Vec<usize> {
    let scale = |n: usize| (n * total_mib).div_ceil(1024).max(1);
    let mut v = Vec::new();
    for (n, each) in [(12, 32 * MIB), (100, 4 * MIB), (100, 2 * MIB), (87, MIB / 2)] {
        v.extend(std::iter::repeat(each).take(scale(n)));
    }
    v
}

struct Model {
    names: Vec<String>,
    sizes: Vec<usize>,
    total: usize,
}

fn write_models(dir: &Path, total_mib: usize) -> Model {
    let sizes = sizes(total_mib);
    let names: Vec<String> = (0..sizes.len()).map(|i| format!("blk.{:03}.weight", i)).collect();
    let base = signal::f32_signal(64 * MIB, 0x9e37_79b9);
    let mut raw = w2::Writer::create(dir.join("raw.zt")).unwrap();
    let mut seek = w2::Writer::create_with(dir.join("seekable.zt"), w2::Options::non_canonical(4096)).unwrap();
    let mut st: Vec<(String, Vec<u8>, usize)> = Vec::new();
    for (i, (name, &len)) in names.iter().zip(&sizes).enumerate() {
        // A window of the signal (distinct for every tensor), its first word the index.
        let at = (i * 4099 * 4) % (base.len() - len);
        let mut data = base[at..at + len].to_vec();
        data[..4].copy_from_slice(&(i as u32).to_le_bytes());
        raw.add_dense(name, &[(len / 4) as u64], DType::F32, &data[..]).unwrap();
        let part = w2::NewPart::new("data", DType::F32, &data[..]).encoding(w2::Encoding::ZSTD_SEEKABLE);
        seek.add(w2::NewObject::new(name.as_str(), &[(len / 4) as u64], "dense").part(part)).unwrap();
        st.push((name.clone(), data, len));
    }
    raw.finish().unwrap();
    seek.finish().unwrap();
    let views: Vec<(String, safetensors::tensor::TensorView<'_>)> = st
        .iter()
        .map(|(n, d, len)| (n.clone(), safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![len / 4], d).unwrap()))
        .collect();
    safetensors::serialize_to_file(views, None, &dir.join("model.safetensors")).unwrap();
    let total = sizes.iter().sum();
    Model { names, sizes, total }
}

/// `len` pre-touched bytes of `storage`, starting on a page boundary, as
/// an engine's aligned allocation would. (`malloc` puts large blocks 16
/// bytes past one, where the kernel's copy from page-aligned file offsets
/// meets 4K aliasing: "Positional reads" in benches/README.md.)
fn aligned(storage: &mut Vec<u8>, len: usize) -> &mut [u8] {
    *storage = vec![1u8; len + 4096];
    let at = storage.as_ptr().align_offset(4096);
    &mut storage[at..at + len]
}

fn slices<'a>(m: &Model, arena: &'a mut [u8]) -> Vec<&'a mut [u8]> {
    let mut out = Vec::with_capacity(m.sizes.len());
    let mut rest = arena;
    for &n in &m.sizes {
        let (a, b) = rest.split_at_mut(n);
        out.push(a);
        rest = b;
    }
    out
}

fn ours(path: &Path, mode: Mode, m: &Model, arena: &mut [u8], threads: usize, verify: bool) {
    let r = Reader::open_with(path, mode).unwrap();
    let objects: Vec<_> = m.names.iter().map(|n| r.file().get(n).unwrap()).collect();
    let mut reqs: Vec<Request<'_>> =
        objects.iter().zip(slices(m, arena)).map(|(o, dst)| Request { object: *o, role: "data", dst }).collect();
    for res in r.load(&mut reqs, Options { threads, verify }) {
        res.unwrap();
    }
}

fn upstream(path: &Path, m: &Model, threads: usize) {
    let s = ztensor_up2::Source::open(path).unwrap();
    let read = |names: &[String]| {
        let mut sum = 0usize;
        for n in names {
            let v = s.tensor(n).unwrap().data().unwrap().bytes().unwrap().into_owned();
            sum += black_box(&v).len();
        }
        sum
    };
    let n = if threads == 1 {
        read(&m.names)
    } else {
        let half = m.names.len() / 2;
        std::thread::scope(|sc| {
            let t = sc.spawn(|| read(&m.names[half..]));
            read(&m.names[..half]) + t.join().unwrap()
        })
    };
    assert_eq!(n, m.total);
}

fn safetensors_copy(path: &Path, m: &Model, arena: &mut [u8]) {
    let f = std::fs::File::open(path).unwrap();
    // SAFETY: a read-only map of a file nobody modifies during the benchmark.
    let map = unsafe { memmap2::Mmap::map(&f) }.unwrap();
    let st = safetensors::SafeTensors::deserialize(&map).unwrap();
    for (name, dst) in m.names.iter().zip(slices(m, arena)) {
        dst.copy_from_slice(st.tensor(name).unwrap().data());
    }
}

/// Bring the file into the page cache as a plain reader of it would: its
/// cached pages dropped (`POSIX_FADV_DONTNEED`, once written back), then
/// the whole file read once. How a file entered the cache decides how its
/// mapping is copied: pages left by the writer that made the file are mapped
/// in smaller pieces than pages read back, and copying out of the mapping
/// of the same bytes measured 89 against 132 ms per GiB between the two (a
/// `cp` of a file against the file read back). Each contestant's file
/// then starts from the same state, whichever writer made it.
fn recache(path: &Path) {
    use std::os::fd::AsRawFd;
    let mut f = std::fs::File::open(path).unwrap();
    f.sync_all().unwrap();
    // SAFETY: a valid descriptor for the whole call; advice only.
    let rc = unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    assert_eq!(rc, 0, "posix_fadvise");
    std::io::copy(&mut f, &mut std::io::sink()).unwrap();
}

fn plain_read(path: &Path, buf: &mut [u8]) {
    let mut f = std::fs::File::open(path).unwrap();
    f.read_exact(buf).unwrap();
}

struct Pair {
    what: String,
    ours: String,
    theirs: String,
    goal: &'static str,
    bytes: usize,
    min: (f64, f64),
    median: (f64, f64),
}

fn paired(
    pairs: &mut Vec<Pair>,
    what: &str,
    bytes: usize,
    (ours_name, mut ours): (&str, impl FnMut()),
    (theirs_name, mut theirs): (&str, impl FnMut()),
    goal: &'static str,
) {
    let rounds = env_usize("ZT_BENCH_ROUNDS", 5).max(1);
    let time = |f: &mut dyn FnMut()| {
        let (t, cpu) = (Instant::now(), process_cpu_ns());
        f();
        match cpu_clock() {
            true => (process_cpu_ns() - cpu) as f64,
            false => t.elapsed().as_nanos() as f64,
        }
    };
    let (a, b) = cpu_time::interleaved(rounds, &mut (&mut ours as &mut dyn FnMut()), &mut (&mut theirs as &mut dyn FnMut()), |f| {
        time(&mut **f)
    });
    let p = Pair {
        what: what.to_owned(),
        ours: ours_name.to_owned(),
        theirs: theirs_name.to_owned(),
        goal,
        bytes,
        min: (a[0], b[0]),
        median: (a[rounds / 2], b[rounds / 2]),
    };
    eprintln!(
        "{what}: {ours_name} {:.0} MB/s vs {theirs_name} {:.0} MB/s (median): theirs/ours {:.3}",
        mb_s(bytes, p.median.0),
        mb_s(bytes, p.median.1),
        p.median.1 / p.median.0
    );
    pairs.push(p);
}

fn cpu_clock() -> bool {
    match std::env::var("ZT_BENCH_CLOCK").as_deref() {
        Ok("wall") | Err(_) => false,
        Ok("cpu") => true,
        Ok(other) => panic!("ZT_BENCH_CLOCK={other}: expected `cpu` or `wall`"),
    }
}

/// The process's CPU time (user + system, every thread), in nanoseconds.
fn process_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn mb_s(bytes: usize, ns: f64) -> f64 {
    bytes as f64 / ns * 1e3
}

fn main() {
    let total_mib = env_usize("ZT_BENCH_LOAD_MIB", 1024);
    let dir = tempfile::Builder::new().prefix("zt-bench-load-").tempdir().unwrap();
    let t = Instant::now();
    let m = write_models(dir.path(), total_mib);
    let (raw, seek, st) = (dir.path().join("raw.zt"), dir.path().join("seekable.zt"), dir.path().join("model.safetensors"));
    let len = |p: &Path| std::fs::metadata(p).unwrap().len();
    eprintln!(
        "{} tensors, {} bytes; raw.zt {} bytes, seekable.zt {} bytes, model.safetensors {} bytes; written in {:.1?} to {}",
        m.names.len(),
        m.total,
        len(&raw),
        len(&seek),
        len(&st),
        t.elapsed(),
        dir.path().display()
    );
    for p in [&raw, &seek, &st] {
        recache(p);
    }
    // The arenas (every tensor's buffer) and the plain read's buffer.
    let (mut s1, mut s2, mut s3) = (Vec::new(), Vec::new(), Vec::new());
    let mut a1 = aligned(&mut s1, m.total);
    let mut a2 = aligned(&mut s2, m.total);
    let mut whole = aligned(&mut s3, len(&raw) as usize);
    // Everyone reads the same bytes (and the page cache is warm).
    ours(&raw, Mode::Mmap, &m, &mut a1, 2, true);
    safetensors_copy(&st, &m, &mut a2);
    assert!(a1 == a2);
    a1.fill(0);
    ours(&seek, Mode::Positional, &m, &mut a1, 1, true);
    assert!(a1 == a2);
    upstream(&raw, &m, 2);
    upstream(&seek, &m, 2);
    plain_read(&raw, &mut whole);

    let n = m.total;
    let mut pairs = Vec::new();
    let only = std::env::var("ZT_BENCH_ONLY").unwrap_or_default();
    // `ZT_BENCH_ONLY=raw` or `seekable`: one half.
    if only != "seekable" {
        let what = format!("raw, {} MiB in {} tensors", n / MIB, m.names.len());
        for (mode, threads) in [(Mode::Positional, 1), (Mode::Positional, 2), (Mode::Mmap, 1), (Mode::Mmap, 2)] {
            paired(
                &mut pairs,
                &what,
                n,
                (&format!("ours load {mode:?} {threads}t"), || ours(&raw, mode, &m, &mut a1, threads, true)),
                ("plain read() of the file", || plain_read(&raw, &mut whole)),
                "≥ 0.9",
            );
        }
        paired(
            &mut pairs,
            &what,
            n,
            ("ours load Positional 1t, no verify", || ours(&raw, Mode::Positional, &m, &mut a1, 1, false)),
            ("plain read() of the file", || plain_read(&raw, &mut whole)),
            "",
        );
        for threads in [1, 2] {
            paired(
                &mut pairs,
                &what,
                n,
                (&format!("ours load Mmap {threads}t"), || ours(&raw, Mode::Mmap, &m, &mut a1, threads, true)),
                (&format!("upstream Part::bytes {threads}t"), || upstream(&raw, &m, threads)),
                "",
            );
        }
        paired(
            &mut pairs,
            &what,
            n,
            ("ours load Mmap 1t", || ours(&raw, Mode::Mmap, &m, &mut a1, 1, true)),
            ("safetensors mmap + copy", || safetensors_copy(&st, &m, &mut a2)),
            "",
        );
        for mode in [Mode::Positional, Mode::Mmap] {
            paired(
                &mut pairs,
                &what,
                n,
                (&format!("ours load {mode:?} 1t, verify"), || ours(&raw, mode, &m, &mut a1, 1, true)),
                (&format!("ours load {mode:?} 1t, no verify"), || ours(&raw, mode, &m, &mut a2, 1, false)),
                "≥ 0.83 (verify ≤ 20%)",
            );
        }
    }
    if only != "raw" {
        let what = format!("zstd-seekable, {} MiB in {} tensors", n / MIB, m.names.len());
        for threads in [1, 2] {
            paired(
                &mut pairs,
                &what,
                n,
                (&format!("ours load Mmap {threads}t"), || ours(&seek, Mode::Mmap, &m, &mut a1, threads, true)),
                (&format!("upstream Part::bytes {threads}t"), || upstream(&seek, &m, threads)),
                "≥ 1.1",
            );
        }
        paired(
            &mut pairs,
            &what,
            n,
            ("ours load Mmap 2t", || ours(&seek, Mode::Mmap, &m, &mut a1, 2, true)),
            ("ours load Mmap 1t", || ours(&seek, Mode::Mmap, &m, &mut a2, 1, true)),
            "≥ 1.8",
        );
        paired(
            &mut pairs,
            &what,
            n,
            ("ours load Mmap 1t, verify", || ours(&seek, Mode::Mmap, &m, &mut a1, 1, true)),
            ("ours load Mmap 1t, no verify", || ours(&seek, Mode::Mmap, &m, &mut a2, 1, false)),
            "≥ 0.83 (verify ≤ 20%)",
        );
    }

    let clock = if cpu_clock() { "process CPU time" } else { "wall time" };
    println!("\nInterleaved pairs ({} rounds each, {clock}; ratio = theirs / ours time, ≥ 1: ours is as fast):\n", env_usize("ZT_BENCH_ROUNDS", 5));
    println!("| what | ours | theirs | ours MB/s (median) | theirs MB/s (median) | theirs/ours median | theirs/ours fastest | goal |");
    println!("|---|---|---|---|---|---|---|---|");
    for p in &pairs {
        println!(
            "| {} | {} | {} | {:.0} | {:.0} | {:.3} | {:.3} | {} |",
            p.what,
            p.ours,
            p.theirs,
            mb_s(p.bytes, p.median.0),
            mb_s(p.bytes, p.median.1),
            p.median.1 / p.median.0,
            p.min.1 / p.min.0,
            p.goal
        );
    }
}
