//! Write a file to disk, side by side, on the same tensors.
//!
//! Three cases (criterion group `write-{clock}/{case}`), every tensor a
//! dense f32 vector, generated at startup (nothing is committed):
//!
//! * `1x256MiB`    — 1 tensor of 64 Mi f32 (256 MiB), named `weight`;
//! * `10000x16KiB` — 10,000 tensors of 4,096 f32 (16 KiB each, 160 MiB);
//! * `100000x64B`  — 100,000 tensors of 16 f32 (64 bytes each, 6.1 MiB),
//!   named `layer.{i}.weight` (so are the 10k).
//!
//! Contestants, each writing a whole file, file creation and close included,
//! into a temp dir under `std::env::temp_dir()` (the destination is removed
//! before each iteration, untimed, so no iteration truncates or renames over
//! an old file):
//!
//! * `ours/create` — `ztensor::write::v1_2::Writer::create(path)`, `add_slice` per
//!   tensor, `finish`: what users get. A `FileSink`: a temp file beside the
//!   destination behind a 256 KiB `BufWriter`; `finish` flushes, **fsyncs
//!   the file, renames it, fsyncs the directory**.
//! * `ours/iosink` — `Writer::new(IoSink::new(BufWriter::with_capacity(256 KiB,
//!   File::create(path))))`, same calls, **no fsync** (`finish` flushes).
//! * `ref/create` — ztensor 1.2.3 (`ztensor_ref`): `Writer::create(path)`
//!   (`File::create` + 256 KiB `BufWriter`), `add` per tensor, `finish`
//!   (flush, **no fsync**).
//! * `safetensors/serialize_to_file` — safetensors 0.6: builds a `TensorView`
//!   per tensor, `serialize_to_file(views, None, path)` (`File::create` +
//!   default 8 KiB `BufWriter`, **no fsync**).
//! * `plain/bufwriter` — the floor: `File::create` + 256 KiB `BufWriter`,
//!   `write_all` of exactly the bytes our file holds before its manifest
//!   (8-byte magic, zero padding to 64-byte alignment before each tensor,
//!   the tensor bytes), one `write_all` per padding and per tensor, flush,
//!   **no fsync**, no manifest.
//! * `plain/bufwriter+fsync+rename` — the same bytes into a temp name,
//!   `sync_all`, `rename`, fsync of the directory: the floor for
//!   `ours/create`.
//! * `plain/bufwriter+manifest` — `plain/bufwriter`, then our file's
//!   manifest, size and footer (encoded once at startup, untimed) in one
//!   `write_all`: a file byte-identical to ours, written with no per-object
//!   work at all. `plain/bufwriter` is the floor the goal names; this one
//!   tells apart our per-object work from writing a bigger file (for tiny
//!   tensors the manifest outweighs the data).
//!
//! Before timing, every contestant writes once and the files are checked:
//! both of ours are byte-identical, ours and the reference file parse with
//! our reader with the same tensors, the safetensors file deserializes, and
//! the plain files are exactly as long as our file's pre-manifest part, and
//! `plain/bufwriter+manifest` is byte-identical to ours.
//!
//! Ratios: before the criterion groups, each (ours, theirs) pair below runs
//! interleaved on every case (ours, theirs, theirs, ours, ...;
//! `ZT_BENCH_ROUNDS` rounds each, default 11, 0 to skip), one whole file per
//! round timed with the thread's CPU clock, so load that drifts during the
//! run hits both sides alike. The table printed at the end gives
//! `theirs / ours` from the fastest and the median round: on a shared
//! machine these are the numbers to trust (criterion's medians for two
//! contestants come from runs seconds or minutes apart).
//!
//! `ZT_BENCH_CASES=10000x16KiB,...` runs only the cases named.
//!
//! `ZT_BENCH_CLOCK=cpu` measures the benchmark thread's CPU time (user +
//! system, `CLOCK_THREAD_CPUTIME_ID`): the copy into the page cache is
//! counted (system time), waiting for the disk in `fsync` is not, and
//! neither is the kernel's background writeback. `wall` (the default) is
//! criterion's wall-clock time. `both` runs the two, one after the other.

use std::fs::{self, File};
use std::hint::black_box;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[path = "cpu_time.rs"]
#[allow(dead_code)]
mod cpu_time;

use cpu_time::{thread_cpu_ns, CpuTime};
use criterion::measurement::Measurement;
use criterion::{BatchSize, BenchmarkId, Criterion, SamplingMode, Throughput};
use ztensor::write::{IoSink, Sink};
use ztensor::write::v1_2::Writer;

/// `BufWriter` capacity for ours/iosink and the plain floor: the same as
/// ztensor 1.2.3's `Writer::create` and our `FileSink`.
const BUF: usize = 256 * 1024;
const ALIGN: u64 = 64;
const HEADER: u64 = 8;
/// The file header (v1 magic): the plain files are our file's prefix.
const MAGIC: &[u8; HEADER as usize] = b"ZTEN1000";

struct Case {
    id: &'static str,
    names: Vec<String>,
    elems: usize,
    data: Vec<f32>,
    /// Our file's bytes after the last blob: manifest, size, footer.
    tail: Vec<u8>,
}

impl Case {
    fn new(id: &'static str, count: usize, elems: usize) -> Case {
        let names = if count == 1 { vec!["weight".to_string()] } else { (0..count).map(|i| format!("layer.{i}.weight")).collect() };
        let data = (0..count * elems).map(|i| (i % 16_777_213) as f32 * 0.5).collect();
        let mut c = Case { id, names, elems, data, tail: Vec::new() };
        let mut file = add_all(&c, Writer::new(Vec::new()));
        c.tail = file.split_off(c.data_end() as usize);
        c
    }

    fn tensors(&self) -> impl Iterator<Item = (&str, &[f32])> {
        self.names.iter().map(String::as_str).zip(self.data.chunks_exact(self.elems))
    }

    /// Bytes before the manifest in a file of ours (or ztensor 1.2.3's).
    fn data_end(&self) -> u64 {
        let len = (self.elems * 4) as u64;
        self.names.iter().fold(HEADER, |pos, _| pos.next_multiple_of(ALIGN) + len)
    }
}

fn bytes(t: &[f32]) -> &[u8] {
    // SAFETY: f32 has no padding and every bit pattern is a valid u8; same
    // length in bytes, alignment 1 is weaker than f32's.
    unsafe { std::slice::from_raw_parts(t.as_ptr().cast::<u8>(), std::mem::size_of_val(t)) }
}

// --- contestants -----------------------------------------------------------

/// Every tensor of the case through our writer, `add_slice` each, then `finish`.
fn add_all<S: Sink>(c: &Case, mut w: Writer<S>) -> S {
    let shape = [c.elems as u64];
    for (name, t) in c.tensors() {
        w.add_slice(name, &shape, t).unwrap();
    }
    w.finish().unwrap()
}

fn ours_create(c: &Case, path: &Path) {
    drop(add_all(c, Writer::create(path).unwrap()));
}

fn ours_iosink(c: &Case, path: &Path) {
    let f = File::create(path).unwrap();
    drop(add_all(c, Writer::new(IoSink::new(BufWriter::with_capacity(BUF, f)))));
}

fn ref_create(c: &Case, path: &Path) {
    let shape = [c.elems as u64];
    let mut w = ztensor_ref::Writer::create(path).unwrap();
    for (name, t) in c.tensors() {
        w.add(name, &shape, t).unwrap();
    }
    w.finish().unwrap();
}

fn safetensors_file(c: &Case, path: &Path) {
    let views = c
        .tensors()
        .map(|(name, t)| (name, safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![c.elems], bytes(t)).unwrap()));
    safetensors::serialize_to_file(views, None, path).unwrap();
}

fn plain_bytes(c: &Case, f: &mut BufWriter<File>) {
    static ZERO: [u8; ALIGN as usize] = [0; ALIGN as usize];
    f.write_all(MAGIC).unwrap();
    let mut pos = HEADER;
    for (_, t) in c.tensors() {
        let pad = pos.next_multiple_of(ALIGN) - pos;
        f.write_all(&ZERO[..pad as usize]).unwrap();
        let b = bytes(t);
        f.write_all(b).unwrap();
        pos += pad + b.len() as u64;
    }
}

fn plain(c: &Case, path: &Path) {
    let mut f = BufWriter::with_capacity(BUF, File::create(path).unwrap());
    plain_bytes(c, &mut f);
    f.flush().unwrap();
}

fn plain_manifest(c: &Case, path: &Path) {
    let mut f = BufWriter::with_capacity(BUF, File::create(path).unwrap());
    plain_bytes(c, &mut f);
    f.write_all(&c.tail).unwrap();
    f.flush().unwrap();
}

fn plain_durable(c: &Case, path: &Path) {
    let tmp = path.with_extension("tmp");
    let mut f = BufWriter::with_capacity(BUF, File::create(&tmp).unwrap());
    plain_bytes(c, &mut f);
    let f = f.into_inner().unwrap();
    f.sync_all().unwrap();
    drop(f);
    fs::rename(&tmp, path).unwrap();
    File::open(path.parent().unwrap()).unwrap().sync_all().unwrap();
}

type Contestant = (&'static str, &'static str, &'static str, fn(&Case, &Path));

const CONTESTANTS: &[Contestant] = &[
    ("ours", "create", "zt", ours_create),
    ("ours", "iosink", "zt", ours_iosink),
    ("ref", "create", "zt", ref_create),
    ("safetensors", "serialize_to_file", "safetensors", safetensors_file),
    ("plain", "bufwriter", "bin", plain),
    ("plain", "bufwriter+fsync+rename", "bin", plain_durable),
    ("plain", "bufwriter+manifest", "zt", plain_manifest),
];

// --- setup and check -------------------------------------------------------

/// The temp dir, removed with everything in it at the end.
struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn path_of(dir: &Path, case: &Case, (f, p, ext, _): &Contestant) -> PathBuf {
    dir.join(format!("{}.{f}.{}.{ext}", case.id, p.replace('+', "-")))
}

/// Every contestant writes once; the files must hold the same tensors.
fn check(dir: &Path, c: &Case) {
    let n = c.names.len();
    let (last_name, last) = c.tensors().last().unwrap();
    for k in CONTESTANTS {
        (k.3)(c, &path_of(dir, c, k));
    }
    let read = |i: usize| fs::read(path_of(dir, c, &CONTESTANTS[i])).unwrap();

    let ours = read(0);
    assert!(ours == read(1), "ours/create and ours/iosink differ");
    let ours_file = ztensor::File::parse(&ours).expect("ours: parse");
    assert_eq!(ours_file.len(), n);
    assert_eq!(ours_file.require(last_name).unwrap().data().unwrap().as_slice::<f32>().unwrap(), last);
    let mlen = u64::from_le_bytes(ours[ours.len() - 16..ours.len() - 8].try_into().unwrap());
    let ours_end = ours.len() as u64 - 16 - mlen;
    assert_eq!(ours_end, c.data_end());

    let r = read(2);
    let ref_file = ztensor::File::parse(&r).expect("ours: parse ztensor 1.2.3's file");
    assert_eq!(ref_file.len(), n);
    assert_eq!(ref_file.require(last_name).unwrap().data().unwrap().as_slice::<f32>().unwrap(), last);
    let rmlen = u64::from_le_bytes(r[r.len() - 16..r.len() - 8].try_into().unwrap());

    let s = read(3);
    let st = safetensors::SafeTensors::deserialize(&s).expect("safetensors: deserialize");
    assert_eq!(st.len(), n);
    assert_eq!(st.tensor(last_name).unwrap().data(), bytes(last));

    for i in [4, 5] {
        assert_eq!(fs::metadata(path_of(dir, c, &CONTESTANTS[i])).unwrap().len(), ours_end);
    }
    assert!(read(6) == ours, "plain/bufwriter+manifest differs from ours");
    eprintln!(
        "write/{}: {n} tensors; ours {} bytes (manifest {mlen}), ztensor 1.2.3 {} bytes (manifest {rmlen}), \
         safetensors {} bytes, plain {ours_end} bytes",
        c.id,
        ours.len(),
        r.len(),
        s.len()
    );
    for k in CONTESTANTS {
        let _ = fs::remove_file(path_of(dir, c, k));
    }
}

// --- interleaved pairs -----------------------------------------------------

/// (ours, theirs, goal) by index in `CONTESTANTS`.
const PAIRS: &[(usize, usize, &str)] = &[(1, 4, "≥ 0.9"), (0, 5, "≥ 0.9"), (1, 6, ""), (1, 2, ""), (1, 3, "")];

fn rounds() -> usize {
    std::env::var("ZT_BENCH_ROUNDS").ok().map_or(11, |v| v.parse().expect("ZT_BENCH_ROUNDS: an integer"))
}

/// One interleaved comparison: times in ns of the fastest and median rounds.
struct Pair {
    case: &'static str,
    ours: usize,
    theirs: usize,
    goal: &'static str,
    min: (f64, f64),
    median: (f64, f64),
}

fn paired(dir: &Path, case: &Case, pairs: &mut Vec<Pair>) {
    let rounds = rounds();
    if rounds == 0 {
        return;
    }
    let time = |k: usize| -> f64 {
        let c = &CONTESTANTS[k];
        let path = path_of(dir, case, c);
        let _ = fs::remove_file(&path);
        let t = thread_cpu_ns();
        (c.3)(black_box(case), &path);
        let ns = (thread_cpu_ns() - t) as f64;
        let _ = fs::remove_file(&path);
        ns
    };
    for &(ours, theirs, goal) in PAIRS {
        let (a, b) = cpu_time::interleaved(rounds, &mut { ours }, &mut { theirs }, |k: &mut usize| time(*k));
        let p = Pair { case: case.id, ours, theirs, goal, min: (a[0], b[0]), median: (a[rounds / 2], b[rounds / 2]) };
        eprintln!(
            "paired {}: {} vs {}: theirs/ours {:.3} (fastest), {:.3} (median)",
            case.id,
            label(ours),
            label(theirs),
            p.min.1 / p.min.0,
            p.median.1 / p.median.0
        );
        pairs.push(p);
    }
}

fn label(k: usize) -> String {
    format!("{}/{}", CONTESTANTS[k].0, CONTESTANTS[k].1)
}

fn print_pairs(pairs: &[Pair]) {
    if pairs.is_empty() {
        return;
    }
    println!("\nInterleaved pairs ({} rounds each, thread CPU time):\n", rounds());
    println!("| case | ours | theirs | ours (fastest) | theirs (fastest) | theirs/ours fastest | theirs/ours median | goal |");
    println!("|---|---|---|---|---|---|---|---|");
    for p in pairs {
        println!(
            "| {} | `{}` | `{}` | {:.2} ms | {:.2} ms | {:.3} | {:.3} | {} |",
            p.case,
            label(p.ours),
            label(p.theirs),
            p.min.0 / 1e6,
            p.min.1 / 1e6,
            p.min.1 / p.min.0,
            p.median.1 / p.median.0,
            p.goal
        );
    }
}

// --- benchmark -------------------------------------------------------------

fn bench_write<M: Measurement>(c: &mut Criterion<M>, clock: &str, dir: &Path, cases: &[Case]) {
    for case in cases {
        let t = std::time::Instant::now();
        let mut g = c.benchmark_group(format!("write-{clock}/{}", case.id));
        g.throughput(Throughput::Bytes(case.data_end()));
        // Flat samples, one run each when a run takes more than 0.1 s (so
        // criterion may say it needs longer). 20 for the big writes, whose
        // single runs vary a lot on a busy machine; 10 for the CPU-bound
        // 100k-tensor case. Fewer bootstrap resamples keep the analysis short.
        let big = case.data_end() > 64 << 20;
        g.sample_size(if big { 20 } else { 10 })
            .nresamples(20_000)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        for k in CONTESTANTS {
            let path = path_of(dir, case, k);
            let f = k.3;
            g.bench_function(BenchmarkId::new(k.0, k.1), |b| {
                b.iter_batched(
                    || {
                        // Untimed: no old file to truncate or rename over.
                        let _ = fs::remove_file(&path);
                    },
                    |()| f(black_box(case), &path),
                    BatchSize::PerIteration,
                )
            });
            let _ = fs::remove_file(&path);
        }
        g.finish();
        eprintln!("write-{clock}/{}: {:.1?}", case.id, t.elapsed());
    }
}

fn main() {
    let clocks: &[&str] = match std::env::var("ZT_BENCH_CLOCK").as_deref() {
        Ok("cpu") => &["cpu"],
        Ok("wall") | Err(_) => &["wall"],
        Ok("both") => &["cpu", "wall"],
        Ok("none") => &[],
        Ok(other) => panic!("ZT_BENCH_CLOCK={other}: expected `cpu`, `wall`, `both` or `none` (interleaved pairs only)"),
    };
    let dir = Dir(std::env::temp_dir().join(format!("zt-bench-write-{}", std::process::id())));
    fs::create_dir_all(&dir.0).expect("create temp dir");

    let t = std::time::Instant::now();
    let only = std::env::var("ZT_BENCH_CASES").ok();
    let cases: Vec<Case> = [("1x256MiB", 1, 64 << 20), ("10000x16KiB", 10_000, 4096), ("100000x64B", 100_000, 16)]
        .into_iter()
        .filter(|(id, ..)| only.as_deref().is_none_or(|o| o.split(',').any(|x| x == *id)))
        .map(|(id, count, elems)| Case::new(id, count, elems))
        .collect();
    assert!(!cases.is_empty(), "ZT_BENCH_CASES matches no case (1x256MiB, 10000x16KiB, 100000x64B)");
    for c in &cases {
        check(&dir.0, c);
    }
    eprintln!("write: setup + check {:.1?} in {}", t.elapsed(), dir.0.display());

    let mut pairs = Vec::new();
    for c in &cases {
        paired(&dir.0, c, &mut pairs);
    }

    for &clock in clocks {
        if clock == "cpu" {
            let mut c = Criterion::default().with_measurement(CpuTime::new()).configure_from_args();
            bench_write(&mut c, clock, &dir.0, &cases);
            c.final_summary();
        } else {
            let mut c = Criterion::default().configure_from_args();
            bench_write(&mut c, clock, &dir.0, &cases);
            c.final_summary();
        }
    }
    print_pairs(&pairs);
}
