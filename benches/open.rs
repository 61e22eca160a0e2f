//! Open + validate, side by side, on the same tensors.
//!
//! For each size N (objects), every object a dense f32 tensor of shape [16]
//! named `layer.{i}.weight`, the setup builds (nothing is committed):
//!
//! * one `.zt` file written by the reference crate's own `Writer`
//!   (ztensor 1.2.3), kept both on disk and in memory, so both zTensor
//!   readers open byte-identical files;
//! * one `.safetensors` buffer from `safetensors::serialize`.
//!
//! Contestants (criterion group `open/N`):
//!
//! * `ours/parse` — `ztensor::File::parse(&bytes)` on the in-memory file:
//!   the whole validating pass over the manifest, plus (default `alloc`
//!   feature) the name index.
//! * `ours/parse+names` — the same, then walking `file.objects()` and
//!   touching every name.
//! * `ours/compact_open` — `ztensor::compact::File::open(&bytes, slots)`:
//!   the compact reader (the firmware's; no heap) on the same file, with
//!   one slot per object as its name index (plus room for its scratch).
//! * `ref/open_path` — `ztensor_ref::Reader::open(path)`: `File::open`,
//!   a `BufReader`, read magic + footer, read the manifest into a `Vec`,
//!   `ciborium::from_reader` into `Manifest { objects: BTreeMap<String,
//!   Object> }`. The file is in the page cache (it was just written).
//! * `ref/new_mem` — `ztensor_ref::Reader::new(Cursor::new(&bytes[..]))`:
//!   the same steps on the in-memory file (no syscalls), the closest
//!   equivalent to `ours/parse`.
//! * `safetensors/deserialize` — `SafeTensors::deserialize(&bytes)`:
//!   `serde_json` header into a `HashMap`, sort by offset, offset/size
//!   checks.
//! * `minicbor/skip` — `minicbor::Decoder::new(manifest).skip()` over the
//!   very manifest bytes of the `.zt` file: a floor for "touch every CBOR
//!   item once" with no checks.
//!
//! * `walk/hand` — the validating CBOR walk alone (`Reader::walk` of
//!   `src/cbor.rs`: well-formedness, UTF-8, depth) over the manifest bytes,
//!   through `ztensor::__bench_walk`.
//! * `walk/minicbor` — the same walk with minicbor's `Decoder` as the token
//!   layer (`minicbor_walk.rs`), the same checks: the measurement behind
//!   keeping the hand-written token layer.
//! * `walk+keys/hand`, `walk+keys/minicbor` — the same, also checking every
//!   map's keys pairwise different (a preallocated key list each; the
//!   10k-key `objects` map is sorted, which dominates).
//!
//! Two more files of the same N tensors, each opened by `ours/parse` and
//! `ours/compact_open` (criterion groups `open_v1.2_unordered/N` and
//! `open_v2/N`):
//!
//! * v1.2 written by this crate's writer (`ztensor::write::v1_2`): names in
//!   insertion order, which is not byte order (`layer.10.weight` comes
//!   before `layer.2.weight` in byte order), so both readers sort names
//!   for the duplicate-name check and the name index;
//! * v2 written by upstream's writer (`ztensor = "=2.1.1"`,
//!   `canonical(false)`, 4 KiB placement), as `v2.rs` writes it.
//!
//! Last, a table of `ours/compact_open` against `ours/parse` on each of
//! the three files, interleaved (`cpu_time::interleaved`, thread CPU
//! time): the median and fastest of `ZT_BENCH_ROUNDS` rounds (default 101).
//! A criterion filter that matches nothing (`-- none`) leaves only the
//! table. `ZT_BENCH_PROFILE=K` opens each file with the compact reader K
//! times instead (for `perf`), and nothing else; `ZT_BENCH_PROFILE_FILE`
//! keeps the files whose label (`v1.2 ordered`, ...) contains it, and
//! `ZT_BENCH_PROFILE_PARSE=1` opens them with `File::parse` instead.
//!
//! Sizes default to 1k, 10k, 100k and 1M objects; set
//! `ZT_BENCH_SIZES=1000,10000` (comma-separated) to choose others.
//!
//! `ZT_BENCH_CLOCK=cpu` measures the benchmark thread's CPU time (user +
//! system, `CLOCK_THREAD_CPUTIME_ID`) instead of wall time: on a shared
//! machine, time spent descheduled is then not counted.

use std::hint::black_box;
use std::io::Cursor;
use std::path::PathBuf;
use std::time::Duration;

#[path = "cpu_time.rs"]
#[allow(dead_code)]
mod cpu_time;
#[path = "minicbor_walk.rs"]
mod minicbor_walk;

use cpu_time::CpuTime;
use criterion::measurement::Measurement;
use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};

const ELEMS: usize = 16;

fn name(i: usize) -> String {
    format!("layer.{i}.weight")
}

fn values(i: usize) -> [f32; ELEMS] {
    core::array::from_fn(|j| (i * ELEMS + j) as f32)
}

fn sizes() -> Vec<usize> {
    match std::env::var("ZT_BENCH_SIZES") {
        Ok(s) if !s.trim().is_empty() => s
            .split(',')
            .map(|t| t.trim().replace('_', "").parse().expect("ZT_BENCH_SIZES: comma-separated integers"))
            .collect(),
        _ => vec![1_000, 10_000, 100_000, 1_000_000],
    }
}

struct Inputs {
    zt_path: PathBuf,
    zt: Vec<u8>,
    /// Byte range of the CBOR manifest inside `zt`.
    manifest: std::ops::Range<usize>,
    st: Vec<u8>,
}

impl Drop for Inputs {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.zt_path);
    }
}

fn build(n: usize) -> Inputs {
    let dir = std::env::temp_dir();
    let zt_path = dir.join(format!("zt-bench-open-{}-{n}.zt", std::process::id()));

    // .zt through the reference writer.
    let mut w = ztensor_ref::Writer::create(&zt_path).expect("create .zt");
    for i in 0..n {
        w.add(&name(i), &[ELEMS as u64], &values(i)).expect("add");
    }
    w.finish().expect("finish .zt");
    let zt = std::fs::read(&zt_path).expect("read .zt back");
    let len = zt.len();
    let mlen = u64::from_le_bytes(zt[len - 16..len - 8].try_into().unwrap()) as usize;
    let manifest = len - 16 - mlen..len - 16;

    // .safetensors with the same names, shapes and bytes.
    let blobs: Vec<u8> = (0..n).flat_map(values).flat_map(f32::to_le_bytes).collect();
    let views = blobs.chunks_exact(ELEMS * 4).enumerate().map(|(i, bytes)| {
        (name(i), safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![ELEMS], bytes).unwrap())
    });
    let st = safetensors::serialize(views, None).expect("serialize .safetensors");
    drop(blobs);

    let inputs = Inputs { zt_path, zt, manifest, st };
    check(n, &inputs);
    inputs
}

/// Slots for the compact reader: one per object for its name index, and
/// as scratch (a v1.x file's names out of byte order are sorted in them;
/// a v2 file's blobs take two each): three per object, so that a v2 pass
/// notes the names for the index beside its blobs (else the index is
/// built with another walk of the objects).
fn compact_slots(n: usize) -> Vec<[u64; 2]> {
    vec![[0u64; 2]; 3 * n + 64]
}

/// The same N tensors in the two other files: v1.2 from this crate's
/// writer (names out of byte order), and v2 from upstream's.
fn build_more(n: usize) -> (Vec<u8>, Vec<u8>) {
    let mut w = ztensor::write::v1_2::Writer::new(Vec::new());
    for i in 0..n {
        w.add_slice(&name(i), &[ELEMS as u64], &values(i)).expect("add v1.2");
    }
    let unordered = w.finish().expect("finish v1.2");

    let path = std::env::temp_dir().join(format!("zt-bench-open-{}-{n}-v2.zt", std::process::id()));
    let mut w = ztensor_up2::write::Options::default().canonical(false).align(4096).create(&path).expect("create v2");
    for i in 0..n {
        let data: Vec<u8> = values(i).iter().flat_map(|x| x.to_le_bytes()).collect();
        w.add(name(i), [ELEMS as u64], ztensor_up2::DType::F32, &data).expect("add v2");
    }
    w.finish().expect("finish v2");
    let v2 = std::fs::read(&path).expect("read v2 back");
    let _ = std::fs::remove_file(&path);

    for bytes in [&unordered, &v2] {
        let ours = ztensor::File::parse(bytes).expect("ours: parse");
        let mut slots = compact_slots(n);
        let compact = ztensor::compact::File::open(bytes, &mut slots).expect("compact: open");
        assert_eq!((ours.len(), compact.len()), (n, n));
        let (i, _) = compact.find(name(n - 1).as_bytes()).expect("compact: last object");
        assert_eq!(compact.object(i).unwrap().name(), name(n - 1));
    }
    // (The v1.2 file's names are out of byte order, as the group says.)
    assert!(n < 11 || name(10) < name(2));
    (unordered, v2)
}

/// Every contestant agrees on the same N tensors before anything is timed.
fn check(n: usize, inp: &Inputs) {
    let last = name(n - 1);
    let want: Vec<u8> = values(n - 1).iter().flat_map(|x| x.to_le_bytes()).collect();

    let ours = ztensor::File::parse(&inp.zt).expect("ours: parse reference-written file");
    assert_eq!(ours.len(), n);
    assert_eq!(ours.objects().count(), n);
    let o = ours.get(&last).expect("ours: last object");
    assert_eq!(o.data().unwrap().as_slice::<f32>().unwrap(), &values(n - 1)[..]);

    let mut slots = compact_slots(n);
    let compact = ztensor::compact::File::open(&inp.zt, &mut slots).expect("compact: open");
    assert_eq!(compact.len(), n);
    let (_, o) = compact.find(last.as_bytes()).expect("compact: last object");
    assert_eq!(compact.stored(&o.component(b"data").unwrap()), &want[..]);

    let r = ztensor_ref::Reader::open(&inp.zt_path).expect("ref: open");
    assert_eq!(r.tensors().len(), n);
    assert_eq!(r.read(&last, false).unwrap(), want);
    let r = ztensor_ref::Reader::new(Cursor::new(&inp.zt[..])).expect("ref: new");
    assert_eq!(r.tensors().len(), n);

    let st = safetensors::SafeTensors::deserialize(&inp.st).expect("safetensors: deserialize");
    assert_eq!(st.len(), n);
    assert_eq!(st.tensor(&last).unwrap().data(), &want[..]);

    let mut d = minicbor::Decoder::new(&inp.zt[inp.manifest.clone()]);
    d.skip().expect("minicbor: skip");
    assert_eq!(d.position(), inp.manifest.len());

    // Both walks take the whole manifest, and both find a duplicate key.
    let m = &inp.zt[inp.manifest.clone()];
    let mut scratch = vec![[0u64; 2]; n + 64];
    let hand = ztensor::__bench_walk(m, Some(&mut ztensor::scratch::Scratch::new(&mut scratch))).expect("walk/hand");
    let mini = minicbor_walk::walk(m, Some(&mut Vec::new())).expect("walk/minicbor");
    assert_eq!((hand, mini), (m.len(), m.len()));
    let hand = ztensor::__bench_walk(m, None).expect("walk/hand");
    let mini = minicbor_walk::walk(m, None).expect("walk/minicbor");
    assert_eq!((hand, mini), (m.len(), m.len()));
    let dup = [0xa2, 0x61, b'a', 0x01, 0x61, b'a', 0x02];
    let e = ztensor::__bench_walk(&dup, Some(&mut ztensor::scratch::Scratch::new(&mut scratch))).unwrap_err();
    assert_eq!(e.kind(), ztensor::ErrorKind::DuplicateKey);
    assert_eq!(minicbor_walk::walk(&dup, Some(&mut Vec::new())), Err(minicbor_walk::WalkError::DuplicateKey));
}

/// `ours/compact_open` against `ours/parse` on each file, interleaved, on
/// the thread's CPU time: a row per file.
fn table(n: usize, files: &[(&str, &[u8])]) {
    let rounds = std::env::var("ZT_BENCH_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(101);
    let mut slots = compact_slots(n);
    for &(label, bytes) in files {
        let mut time = |compact: &mut bool| {
            let t = cpu_time::thread_cpu_ns();
            if *compact {
                black_box(ztensor::compact::File::open(black_box(bytes), &mut slots).unwrap().len());
            } else {
                black_box(ztensor::File::parse(black_box(bytes)).unwrap().len());
            }
            (cpu_time::thread_cpu_ns() - t) as f64
        };
        let (a, b) = cpu_time::interleaved(rounds, &mut true, &mut false, &mut time);
        let ms = |v: &[f64], i: usize| v[i] / 1e6;
        let mid = rounds / 2;
        eprintln!(
            "open/{n} {label:<16} compact_open median {:.3} ms (min {:.3}), parse median {:.3} ms (min {:.3}): compact/parse {:.2}",
            ms(&a, mid),
            ms(&a, 0),
            ms(&b, mid),
            ms(&b, 0),
            a[mid] / b[mid]
        );
    }
}

fn bench_open<M: Measurement>(c: &mut Criterion<M>) {
    for n in sizes() {
        let t = std::time::Instant::now();
        let inp = build(n);
        let (unordered, v2) = build_more(n);
        let files: [(&str, &[u8]); 3] = [("v1.2 ordered", &inp.zt), ("v1.2 unordered", &unordered), ("v2", &v2)];
        if let Some(k) = std::env::var("ZT_BENCH_PROFILE").ok().and_then(|s| s.parse::<usize>().ok()) {
            let mut slots = compact_slots(n);
            let only = std::env::var("ZT_BENCH_PROFILE_FILE").unwrap_or_default();
            for (_, bytes) in files.iter().filter(|(label, _)| label.contains(&*only)) {
                for _ in 0..k {
                    if std::env::var_os("ZT_BENCH_PROFILE_PARSE").is_some() {
                        black_box(ztensor::File::parse(black_box(bytes)).unwrap().len());
                    } else {
                        black_box(ztensor::compact::File::open(black_box(bytes), &mut slots).unwrap().len());
                    }
                }
            }
            continue;
        }
        eprintln!(
            "open/{n}: setup {:.1?}; .zt {} bytes (manifest {} bytes), .safetensors {} bytes",
            t.elapsed(),
            inp.zt.len(),
            inp.manifest.len(),
            inp.st.len()
        );

        let mut g = c.benchmark_group(format!("open/{n}"));
        g.throughput(Throughput::Elements(n as u64));
        if n >= 100_000 {
            // Big sizes: few, flat samples (criterion's linear sampling
            // would need 55 runs for 10 samples).
            g.sample_size(10)
                .sampling_mode(SamplingMode::Flat)
                .warm_up_time(Duration::from_millis(500))
                .measurement_time(Duration::from_secs(if n >= 1_000_000 { 4 } else { 2 }));
        } else {
            g.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
        }

        let zt = &inp.zt[..];
        g.bench_function(BenchmarkId::new("ours", "parse"), |b| {
            b.iter(|| ztensor::File::parse(black_box(zt)).unwrap())
        });
        let mut slots = compact_slots(n);
        g.bench_function(BenchmarkId::new("ours", "compact_open"), |b| {
            b.iter(|| ztensor::compact::File::open(black_box(zt), &mut slots).unwrap().len())
        });
        g.bench_function(BenchmarkId::new("ours", "parse+names"), |b| {
            b.iter(|| {
                let f = ztensor::File::parse(black_box(zt)).unwrap();
                f.objects().map(|o| o.name().len()).sum::<usize>()
            })
        });
        g.bench_function(BenchmarkId::new("ref", "open_path"), |b| {
            b.iter(|| ztensor_ref::Reader::open(black_box(&inp.zt_path)).unwrap())
        });
        g.bench_function(BenchmarkId::new("ref", "new_mem"), |b| {
            b.iter(|| ztensor_ref::Reader::new(Cursor::new(black_box(zt))).unwrap())
        });
        let st = &inp.st[..];
        g.bench_function(BenchmarkId::new("safetensors", "deserialize"), |b| {
            b.iter(|| safetensors::SafeTensors::deserialize(black_box(st)).unwrap())
        });
        let manifest = &inp.zt[inp.manifest.clone()];
        g.bench_function(BenchmarkId::new("minicbor", "skip"), |b| {
            b.iter(|| {
                let mut d = minicbor::Decoder::new(black_box(manifest));
                d.skip().unwrap();
                d.position()
            })
        });
        g.bench_function(BenchmarkId::new("walk", "hand"), |b| {
            b.iter(|| ztensor::__bench_walk(black_box(manifest), None).unwrap())
        });
        g.bench_function(BenchmarkId::new("walk", "minicbor"), |b| {
            b.iter(|| minicbor_walk::walk(black_box(manifest), None).unwrap())
        });
        let mut scratch = vec![[0u64; 2]; n + 64];
        g.bench_function(BenchmarkId::new("walk+keys", "hand"), |b| {
            b.iter(|| {
                let mut keys = ztensor::scratch::Scratch::new(&mut scratch);
                ztensor::__bench_walk(black_box(manifest), Some(&mut keys)).unwrap()
            })
        });
        let mut keys = Vec::with_capacity(n + 64);
        g.bench_function(BenchmarkId::new("walk+keys", "minicbor"), |b| {
            b.iter(|| {
                keys.clear();
                minicbor_walk::walk(black_box(manifest), Some(&mut keys)).unwrap()
            })
        });
        g.finish();

        for (group, bytes) in [("open_v1.2_unordered", &unordered), ("open_v2", &v2)] {
            let mut g = c.benchmark_group(format!("{group}/{n}"));
            g.throughput(Throughput::Elements(n as u64));
            g.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
            if n >= 100_000 {
                g.sample_size(10).sampling_mode(SamplingMode::Flat);
            }
            let bytes = &bytes[..];
            g.bench_function(BenchmarkId::new("ours", "parse"), |b| {
                b.iter(|| ztensor::File::parse(black_box(bytes)).unwrap())
            });
            let mut slots = compact_slots(n);
            g.bench_function(BenchmarkId::new("ours", "compact_open"), |b| {
                b.iter(|| ztensor::compact::File::open(black_box(bytes), &mut slots).unwrap().len())
            });
            g.finish();
        }
        table(n, &files);
    }
}

fn main() {
    match std::env::var("ZT_BENCH_CLOCK").as_deref() {
        Ok("cpu") => {
            let mut c = Criterion::default().with_measurement(CpuTime::new()).configure_from_args();
            bench_open(&mut c);
            c.final_summary();
        }
        Ok("wall") | Err(_) => {
            let mut c = Criterion::default().configure_from_args();
            bench_open(&mut c);
            c.final_summary();
        }
        Ok(other) => panic!("ZT_BENCH_CLOCK={other}: expected `cpu` or `wall`"),
    }
}
