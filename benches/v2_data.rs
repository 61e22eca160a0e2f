//! Format v2 data paths, each against the library it wraps and against
//! upstream's Rust crate (`ztensor = "=2.1.1"`), on the same bytes, in one
//! run, interleaved:
//!
//! * `verify` — a canonical v2 file of about 1 GiB (written by our
//!   `write::v2::Writer`: an `xxh3` digest on every part; 12 parts of 64 MiB,
//!   48 of 4 MiB, 60 of 1 MiB and 2000 small ones of 256 B to 16 KiB), in a
//!   temp dir under `std::env::temp_dir()`, opened once and in the page cache.
//!   Ours: `File::verify_with` on the mapped file (`fs::Reader`, mmap mode),
//!   `File::verify_from(&reader)` (mmap and positional). Against:
//!   `xxhash_rust::xxh3::xxh3_64` over every part's bytes in the same mapping
//!   (and over `read_exact_at` into one reused buffer, for positional), and
//!   upstream's deep verify (`Tensor::verify` of every tensor, then
//!   `Source::verify_shards`) on a `Source` opened once (mapped, and with
//!   `map(false)`). Also open + verify, each opened anew.
//! * `seekable` — a 256 MiB `zt.zstd-seekable/1` part (written by our v2
//!   writer, level 3, 1 MiB and 16 MiB frames): `Component::read_into` into a
//!   caller buffer and `Component::to_vec` (libzstd backend) against the
//!   `zstd` crate decoding the very same frames: one `ZSTD_decompressDCtx`
//!   over the whole encoded part into the same buffer (libzstd skips the seek
//!   table's skippable frame and checks every frame's content checksum), and
//!   `zstd::bulk::decompress` into a new `Vec`; `to_vec` against upstream's
//!   Rust reader (`Part::bytes`, a new `Vec`), and against upstream's Python
//!   package (`Tensor.tobytes()` of ztensor 2.1.2, timed in its own process,
//!   when `ZT_REFERENCE_V2_PYTHON` names its Python).
//!
//! * `positional` — the same 64 f32 tensors of 4 MiB (256 MiB) in a
//!   canonical v2 file and in a v1.2 file (our writers), read by position
//!   (`fs::Reader` in `Mode::Positional`, `read_into` every part into one
//!   pre-touched page-aligned buffer): v2 against v1.2, goal ≥ 0.9 (issue
//!   #32). A second pair reads into a buffer 16 bytes past a page boundary,
//!   where `malloc` puts large blocks: the kernel's copy from v2's
//!   page-aligned blobs would meet 4K aliasing there, so the file source
//!   reads through a bounce buffer (benches/README.md).
//!
//! * `read_verify` — verify on read: the same tensors (v2 with xxh3, v1.2
//!   with crc32c), `Reader::read_into` of every part, mapped and positional,
//!   digest checked against `unverified()`; goal ≥ 0.8 (≤ 25% more time).
//!
//! Every contestant's result is checked against the others once before
//! anything is timed. Each pair runs alternately (ours, theirs, theirs, ours,
//! ...; `ZT_BENCH_ROUNDS` rounds each, default 15), timed with the thread's
//! CPU clock (`ZT_BENCH_CLOCK=cpu`, the default; `wall` for wall time).
//! `ZT_BENCH_VERIFY_MIB` (default 1024), `ZT_BENCH_SEEKABLE_MIB` (default
//! 256) and `ZT_BENCH_POSITIONAL_MIB` (default 256) shrink the inputs for a
//! quick run; `ZT_BENCH_ONLY=verify|seekable|positional|read_verify` runs one section.
//!
//!     cargo bench -p ztensor-benches --bench v2_data

use std::hint::black_box;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

#[path = "signal.rs"]
mod signal;
use signal::{f32_signal, Rng};
/// The seed of every input here (as in `data.rs`).
const SEED: u64 = 0x9e37_79b9_7f4a_7c15;
#[path = "cpu_time.rs"]
#[allow(dead_code)]
mod cpu_time;

use ztensor::fs::{Mode, Reader};
use ztensor::v2::types::DType;
use ztensor::verify::Options;
use ztensor::write::v2 as w2;

const MIB: usize = 1 << 20;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().map_or(default, |v| {
        v.parse().unwrap_or_else(|_| panic!("{name}: an integer"))
    })
}

fn rounds() -> usize {
    env_usize("ZT_BENCH_ROUNDS", 15)
}

fn cpu_clock() -> bool {
    match std::env::var("ZT_BENCH_CLOCK").as_deref() {
        Ok("cpu") | Err(_) => true,
        Ok("wall") => false,
        Ok(other) => panic!("ZT_BENCH_CLOCK={other}: expected `cpu` or `wall`"),
    }
}

fn now_ns() -> u64 {
    if cpu_clock() {
        cpu_time::thread_cpu_ns()
    } else {
        use std::sync::OnceLock;
        static T0: OnceLock<std::time::Instant> = OnceLock::new();
        T0.get_or_init(std::time::Instant::now).elapsed().as_nanos() as u64
    }
}

/// One interleaved comparison.
struct Pair {
    what: String,
    ours: &'static str,
    theirs: &'static str,
    goal: &'static str,
    bytes: u64,
    /// Fastest and median round of each side, ns.
    min: (f64, f64),
    median: (f64, f64),
}

/// Time `ours` and `theirs` alternately, `rounds()` times each (one call
/// per round: every call here takes tens of milliseconds or more).
fn paired(
    pairs: &mut Vec<Pair>,
    what: &str,
    bytes: u64,
    (ours_name, mut ours): (&'static str, impl FnMut()),
    (theirs_name, mut theirs): (&'static str, impl FnMut()),
    goal: &'static str,
) {
    let rounds = rounds().max(1);
    let time = |f: &mut dyn FnMut()| {
        let t = now_ns();
        f();
        (now_ns() - t) as f64
    };
    let (a, b) = cpu_time::interleaved(rounds, &mut (&mut ours as &mut dyn FnMut()), &mut (&mut theirs as &mut dyn FnMut()), |f| {
        time(&mut **f)
    });
    let p = Pair {
        what: what.to_owned(),
        ours: ours_name,
        theirs: theirs_name,
        goal,
        bytes,
        min: (a[0], b[0]),
        median: (a[rounds / 2], b[rounds / 2]),
    };
    eprintln!(
        "{what}: {ours_name} {:.2} ms vs {theirs_name} {:.2} ms (fastest): theirs/ours {:.3} (fastest), {:.3} (median)",
        p.min.0 / 1e6,
        p.min.1 / 1e6,
        p.min.1 / p.min.0,
        p.median.1 / p.median.0
    );
    pairs.push(p);
}

fn gib_s(bytes: u64, ns: f64) -> f64 {
    bytes as f64 / ns / 1.073_741_824
}

fn print_pairs(pairs: &[Pair]) {
    let clock = if cpu_clock() {
        "thread CPU time"
    } else {
        "wall time"
    };
    println!("\nInterleaved pairs ({} rounds each, {clock}; ratio = theirs / ours, ≥ 1: ours is as fast):\n", rounds());
    println!("| what | ours | theirs | ours (fastest) | theirs (fastest) | theirs/ours fastest | theirs/ours median | goal |");
    println!("|---|---|---|---|---|---|---|---|");
    for p in pairs {
        println!(
            "| {} | `{}` | `{}` | {:.1} ms ({:.2} GiB/s) | {:.1} ms ({:.2} GiB/s) | {:.3} | {:.3} | {} |",
            p.what,
            p.ours,
            p.theirs,
            p.min.0 / 1e6,
            gib_s(p.bytes, p.min.0),
            p.min.1 / 1e6,
            gib_s(p.bytes, p.min.1),
            p.min.1 / p.min.0,
            p.median.1 / p.median.0,
            p.goal
        );
    }
}

// ------------------------------------------------------------- verify

/// The parts of the verify file: (name, bytes), in name order.
fn verify_parts(total_mib: usize) -> Vec<(String, usize)> {
    let scale = |n: usize| (n * total_mib).div_ceil(1024).max(1);
    let mut v = Vec::new();
    for i in 0..scale(12) {
        v.push((format!("blk.{i:03}.ffn_up.weight"), 64 * MIB));
    }
    for i in 0..scale(48) {
        v.push((format!("blk.{i:03}.attn_qkv.weight"), 4 * MIB));
    }
    for i in 0..scale(60) {
        v.push((format!("blk.{i:03}.attn_out.weight"), MIB));
    }
    let small = [256, 1024, 4096, 16384];
    for i in 0..scale(2000) {
        v.push((
            format!("blk.{:03}.norm.{}.weight", i / 20, i % 20),
            small[i % small.len()],
        ));
    }
    v.sort();
    v
}

/// Write the canonical file (xxh3 on every part: the canonical default).
fn write_verify_file(path: &Path, parts: &[(String, usize)]) {
    let mut buf = vec![0u8; parts.iter().map(|p| p.1).max().unwrap()];
    let mut rng = Rng(SEED);
    let mut w = w2::Writer::create(path).unwrap();
    for (name, len) in parts {
        rng.fill(&mut buf[..*len]);
        w.add_dense(name, &[(*len / 4) as u64], DType::F32, &buf[..*len])
            .unwrap();
    }
    w.finish().unwrap();
}

/// (offset, length, xxh3) of every part, from our parse (untimed).
fn part_table(r: &Reader) -> Vec<(u64, usize, u64)> {
    let mut t = Vec::new();
    for o in r.file().objects() {
        for c in o.components() {
            let hex = c.digest().unwrap().strip_prefix("xxh3:").unwrap();
            t.push((
                c.offset(),
                c.length() as usize,
                u64::from_str_radix(hex, 16).unwrap(),
            ));
        }
    }
    t
}

fn ours_verify(r: &Reader, n: usize) {
    let report = r.file().verify_with(Options::ALL, |f| panic!("{f:?}"));
    assert_eq!((report.problems, report.digests_checked), (0, n));
}

fn ours_verify_from(r: &Reader, n: usize) {
    let report = r.file().verify_from(r, Options::ALL, |f| panic!("{f:?}"));
    assert_eq!((report.problems, report.digests_checked), (0, n));
}

fn xxh3_mapped(map: &[u8], table: &[(u64, usize, u64)]) {
    let bad = table
        .iter()
        .filter(|&&(o, l, h)| xxhash_rust::xxh3::xxh3_64(&map[o as usize..o as usize + l]) != h)
        .count();
    assert_eq!(black_box(bad), 0);
}

fn xxh3_streaming(map: &[u8], table: &[(u64, usize, u64)]) {
    let bad = table
        .iter()
        .filter(|&&(o, l, h)| {
            let mut x = xxhash_rust::xxh3::Xxh3Default::new();
            x.update(&map[o as usize..o as usize + l]);
            x.digest() != h
        })
        .count();
    assert_eq!(black_box(bad), 0);
}

/// The memory-read floor: a sum of every part's bytes as `u64`s (no hash).
fn read_floor(map: &[u8], table: &[(u64, usize, u64)]) {
    let mut sum = 0u64;
    for &(o, l, _) in table {
        let b = &map[o as usize..o as usize + l];
        let words = b.chunks_exact(8).fold(0u64, |a, c| {
            a.wrapping_add(u64::from_le_bytes(c.try_into().unwrap()))
        });
        sum = sum.wrapping_add(words).wrapping_add(
            b.chunks_exact(8)
                .remainder()
                .iter()
                .map(|&x| x as u64)
                .sum::<u64>(),
        );
    }
    black_box(sum);
}

fn xxh3_pread(f: &std::fs::File, buf: &mut [u8], table: &[(u64, usize, u64)]) {
    let mut bad = 0;
    for &(o, l, h) in table {
        f.read_exact_at(&mut buf[..l], o).unwrap();
        bad += usize::from(xxhash_rust::xxh3::xxh3_64(&buf[..l]) != h);
    }
    assert_eq!(black_box(bad), 0);
}

fn upstream_verify(s: &ztensor_up2::Source, n: usize) {
    let mut checked = 0;
    for t in s.tensors() {
        checked += usize::from(t.verify().unwrap() == ztensor_up2::Verified::Digest);
    }
    s.verify_shards().unwrap();
    assert_eq!(checked, n);
}

fn bench_verify(dir: &Path, pairs: &mut Vec<Pair>) {
    let total_mib = env_usize("ZT_BENCH_VERIFY_MIB", 1024);
    let parts = verify_parts(total_mib);
    let n = parts.len();
    let bytes: u64 = parts.iter().map(|p| p.1 as u64).sum();
    let path = dir.join("verify.zt");
    let t = std::time::Instant::now();
    write_verify_file(&path, &parts);
    let size = std::fs::metadata(&path).unwrap().len();
    eprintln!(
        "verify: {n} parts, {bytes} part bytes ({:.3} GiB), file {size} bytes, written in {:.1?} to {}",
        bytes as f64 / (1u64 << 30) as f64,
        t.elapsed(),
        path.display()
    );

    let map = Reader::open(&path).unwrap();
    let pos = Reader::open_with(&path, Mode::Positional).unwrap();
    let file = std::fs::File::open(&path).unwrap();
    // SAFETY: a read-only map of a file nobody modifies during the benchmark.
    let raw = unsafe { memmap2::Mmap::map(&file) }.unwrap();
    let table = part_table(&map);
    assert_eq!(table.len(), n);
    let up_map = ztensor_up2::Source::open(&path).unwrap();
    let up_pos = ztensor_up2::Source::options()
        .map(false)
        .open(&path)
        .unwrap();
    let mut buf = vec![1u8; parts.iter().map(|p| p.1).max().unwrap()];

    // Everyone agrees (and the page cache is warm).
    ours_verify(&map, n);
    ours_verify_from(&map, n);
    ours_verify_from(&pos, n);
    xxh3_mapped(&raw, &table);
    xxh3_mapped(map.file().bytes().unwrap(), &table);
    xxh3_pread(&file, &mut buf, &table);
    xxh3_streaming(&raw, &table);
    upstream_verify(&up_map, n);
    upstream_verify(&up_pos, n);

    let mapped = map.file().bytes().unwrap();
    let what = format!(
        "verify {:.2} GiB, {n} parts",
        bytes as f64 / (1u64 << 30) as f64
    );
    paired(
        pairs,
        &what,
        bytes,
        ("ours/verify_with (mmap)", || ours_verify(&map, n)),
        ("xxhash-rust/xxh3_64 (same mapping)", || {
            xxh3_mapped(mapped, &table)
        }),
        "≥ 0.9",
    );
    paired(
        pairs,
        &what,
        bytes,
        ("xxhash-rust/Xxh3Default::update (same mapping)", || {
            xxh3_streaming(mapped, &table)
        }),
        ("xxhash-rust/xxh3_64 (same mapping)", || {
            xxh3_mapped(mapped, &table)
        }),
        "(the two floors)",
    );
    paired(
        pairs,
        &what,
        bytes,
        ("ours/verify_from(reader, mmap)", || {
            ours_verify_from(&map, n)
        }),
        ("xxhash-rust/xxh3_64 (same mapping)", || {
            xxh3_mapped(mapped, &table)
        }),
        "≥ 0.9",
    );
    paired(
        pairs,
        &what,
        bytes,
        ("ours/verify_with (mmap)", || ours_verify(&map, n)),
        ("upstream/Tensor::verify (mmap)", || {
            upstream_verify(&up_map, n)
        }),
        "≥ 1.5",
    );
    paired(
        pairs,
        &what,
        bytes,
        ("ours/verify_with (mmap)", || ours_verify(&map, n)),
        ("read floor: u64 sum over the same mapping", || {
            read_floor(mapped, &table)
        }),
        "(ceiling)",
    );
    paired(
        pairs,
        &what,
        bytes,
        ("ours/verify_from(reader, positional)", || {
            ours_verify_from(&pos, n)
        }),
        ("read_exact_at+xxh3_64 (one buffer)", || {
            xxh3_pread(&file, &mut buf, &table)
        }),
        "≥ 0.9",
    );
    paired(
        pairs,
        &what,
        bytes,
        ("ours/verify_from(reader, positional)", || {
            ours_verify_from(&pos, n)
        }),
        ("upstream/Tensor::verify (map(false))", || {
            upstream_verify(&up_pos, n)
        }),
        "≥ 1.5",
    );
    paired(
        pairs,
        &what,
        bytes,
        ("ours/open+verify_with (mmap)", || {
            ours_verify(&Reader::open(&path).unwrap(), n)
        }),
        ("upstream/open+Tensor::verify (mmap)", || {
            upstream_verify(&ztensor_up2::Source::open(&path).unwrap(), n)
        }),
        "≥ 1.5",
    );
    drop((map, pos, raw, up_map, up_pos));
    std::fs::remove_file(&path).unwrap();
}

// ----------------------------------------------------------- seekable

fn bench_seekable(dir: &Path, pairs: &mut Vec<Pair>) {
    assert_eq!(
        ztensor::zstd::BACKEND,
        "libzstd",
        "the bench crate enables ztensor's `libzstd` feature"
    );
    let size = env_usize("ZT_BENCH_SEEKABLE_MIB", 256) * MIB;
    let data = f32_signal(size, SEED);
    for frame in [MIB as u32, 16 * MIB as u32] {
        let path = dir.join(format!("seekable-{frame}.zt"));
        let mut w = w2::Writer::create_with(&path, w2::Options::non_canonical(4096)).unwrap();
        let enc = w2::Encoding::ZstdSeekable { level: 3, frame };
        w.add(
            w2::NewObject::new("x", &[(size / 4) as u64], "dense")
                .part(w2::NewPart::new("data", DType::F32, &data[..]).encoding(enc)),
        )
        .unwrap();
        w.finish().unwrap();
        let r = Reader::open(&path).unwrap();
        let c = r.file().require("x").unwrap().data().unwrap();
        let encoded = c.stored_bytes().unwrap();
        let t = ztensor::v2::seekable::SeekTable::parse(encoded, size as u64).unwrap();
        let what = format!(
            "seekable {} MiB, {} frames of {} MiB",
            size / MIB,
            t.len(),
            frame as usize / MIB
        );
        eprintln!(
            "{what}: encoded {} bytes, ratio {:.2}",
            encoded.len(),
            size as f64 / encoded.len() as f64
        );

        // Everyone decodes the same frames to the same bytes.
        let mut out = vec![0u8; size];
        let mut o2 = vec![0u8; size];
        assert_eq!(c.read_into(&mut out).unwrap(), size);
        assert!(out == data);
        assert!(c.to_vec().unwrap() == data);
        let mut dctx = zstd::zstd_safe::DCtx::create();
        assert_eq!(dctx.decompress(&mut o2[..], encoded).unwrap(), size);
        assert!(o2 == data);
        assert!(zstd::bulk::decompress(encoded, size).unwrap() == data);

        paired(
            pairs,
            &what,
            size as u64,
            ("ours/read_into", || {
                _ = black_box(c.read_into(black_box(&mut out[..])).unwrap())
            }),
            (
                "libzstd/decompressDCtx (one call, same buffer size)",
                || {
                    _ = black_box(
                        dctx.decompress(black_box(&mut o2[..]), black_box(encoded))
                            .unwrap(),
                    )
                },
            ),
            "≥ 0.95",
        );
        paired(
            pairs,
            &what,
            size as u64,
            ("ours/to_vec", || drop(black_box(c.to_vec().unwrap()))),
            ("zstd::bulk::decompress (new Vec)", || {
                drop(black_box(
                    zstd::bulk::decompress(black_box(encoded), size).unwrap(),
                ))
            }),
            "≥ 0.95",
        );
        let up = ztensor_up2::Source::open(&path).unwrap();
        let up_part = up.tensor("x").unwrap().data().unwrap();
        assert!(*up_part.bytes().unwrap() == data[..]);
        paired(
            pairs,
            &what,
            size as u64,
            ("ours/to_vec", || drop(black_box(c.to_vec().unwrap()))),
            ("upstream/Part::bytes (mmap)", || {
                drop(black_box(up_part.bytes().unwrap()))
            }),
            "≥ 1.1",
        );
        python_pair(pairs, &what, &path, size, || {
            drop(black_box(c.to_vec().unwrap()))
        });
        drop(r);
        std::fs::remove_file(&path).unwrap();
    }
}

/// Upstream's Python package (`ZT_REFERENCE_V2_PYTHON`, ztensor 2.1.2)
/// decoding the part `x` of `path` (`Tensor.tobytes()`), timed inside
/// Python (process CPU time, or wall time with `ZT_BENCH_CLOCK=wall`),
/// against `ours` timed here for as many rounds: not interleaved (another
/// process), so run it on a quiet machine. Skipped, with a line, without
/// the variable.
fn python_pair(
    pairs: &mut Vec<Pair>,
    what: &str,
    path: &Path,
    size: usize,
    mut ours: impl FnMut(),
) {
    let Ok(python) = std::env::var("ZT_REFERENCE_V2_PYTHON") else {
        eprintln!("{what}: upstream Python SKIPPED (set ZT_REFERENCE_V2_PYTHON to a Python with ztensor==2.1.2)");
        return;
    };
    const SCRIPT: &str = "
import sys, time, ztensor
path, rounds, size, cpu = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == 'cpu'
clock = time.process_time_ns if cpu else time.perf_counter_ns
t = ztensor.open(path).get('x')
assert len(t.tobytes()) == size
ts = []
for _ in range(rounds):
    c = clock(); b = t.tobytes(); ts.append(clock() - c); del b
print(' '.join(map(str, ts)))
";
    let rounds = rounds().max(1);
    let out = std::process::Command::new(&python)
        .args(["-c", SCRIPT])
        .arg(path)
        .args([rounds.to_string(), size.to_string()])
        .arg(if cpu_clock() { "cpu" } else { "wall" })
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut theirs: Vec<f64> = String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect();
    ours();
    let mut mine: Vec<f64> = (0..rounds)
        .map(|_| {
            let t = now_ns();
            ours();
            (now_ns() - t) as f64
        })
        .collect();
    mine.sort_by(f64::total_cmp);
    theirs.sort_by(f64::total_cmp);
    let p = Pair {
        what: what.to_owned(),
        ours: "ours/to_vec",
        theirs: "upstream Python 2.1.2/Tensor.tobytes",
        goal: "≥ 1.5",
        bytes: size as u64,
        min: (mine[0], theirs[0]),
        median: (mine[rounds / 2], theirs[rounds / 2]),
    };
    eprintln!(
        "{what}: ours/to_vec {:.2} ms vs upstream Python {:.2} ms (fastest): theirs/ours {:.3}",
        p.min.0 / 1e6,
        p.min.1 / 1e6,
        p.min.1 / p.min.0
    );
    pairs.push(p);
}

/// `len` pre-touched bytes starting `shift` bytes past a page boundary.
fn buffer_at(storage: &mut Vec<u8>, len: usize, shift: usize) -> &mut [u8] {
    *storage = vec![1u8; len + 8192];
    let at = storage.as_ptr().align_offset(4096) + shift;
    &mut storage[at..at + len]
}

/// The same f32 tensors of 4 MiB (`ZT_BENCH_POSITIONAL_MIB` in all, 256 by
/// default) in a canonical v2 file (xxh3 digests) and a v1.2 file (crc32c,
/// its writer's default): `(v2, v1.2, total bytes, bytes per tensor)`.
fn v2_v1_pair(dir: &Path, stem: &str) -> (PathBuf, PathBuf, usize, usize) {
    let total = env_usize("ZT_BENCH_POSITIONAL_MIB", 256) * MIB;
    let each = 4 * MIB;
    let data = f32_signal(total, SEED);
    let (p2, p1) = (dir.join(format!("{stem}_v2.zt")), dir.join(format!("{stem}_v1.zt")));
    let mut w = w2::Writer::create(&p2).unwrap();
    let mut w1 = ztensor::write::v1_2::Writer::create(&p1).unwrap();
    for (i, chunk) in data.chunks(each).enumerate() {
        let name = format!("t{i:03}");
        let shape = [(chunk.len() / 4) as u64];
        w.add_dense(&name, &shape, DType::F32, chunk).unwrap();
        w1.add(ztensor::write::v1_2::NewObject::dense(&name, &shape, ztensor::DType::F32, chunk)).unwrap();
    }
    w.finish().unwrap();
    w1.finish().unwrap();
    (p2, p1, total, each)
}

/// Positional `read_into` of every part, v2 against v1.2 on the same tensors.
fn bench_positional(dir: &Path, pairs: &mut Vec<Pair>) {
    let (p2, p1, total, each) = v2_v1_pair(dir, "positional");
    let v2 = Reader::open_with(&p2, Mode::Positional).unwrap();
    let v1 = Reader::open_with(&p1, Mode::Positional).unwrap();
    let read_all = |r: &Reader, out: &mut [u8]| {
        let mut sum = 0u64;
        for o in r.file().objects() {
            let c = o.data().unwrap();
            let n = r.read_into(&c, out).unwrap();
            sum = sum.wrapping_add(black_box(out[n - 1]) as u64);
        }
        sum
    };
    let what = format!(
        "positional read_into, {} MiB in {} parts",
        total / MIB,
        total / each
    );
    for (shift, label, goal) in [
        (0, "page-aligned buffer", "≥ 0.9"),
        (16, "buffer at page + 16", "≥ 0.9"),
    ] {
        let (mut s2, mut s1) = (Vec::new(), Vec::new());
        let (o2, o1) = (
            buffer_at(&mut s2, each, shift),
            buffer_at(&mut s1, each, shift),
        );
        assert_eq!(read_all(&v2, o2), read_all(&v1, o1));
        paired(
            pairs,
            &format!("{what}, {label}"),
            total as u64,
            ("ours/v2 Reader::read_into (positional)", || {
                black_box(read_all(&v2, o2));
            }),
            ("ours/v1.2 Reader::read_into (positional)", || {
                black_box(read_all(&v1, o1));
            }),
            goal,
        );
    }
}

/// Verify on read: `read_into` of every part (the digest checked over the
/// bytes read) against the same reads `unverified()`, v2 (xxh3, canonical
/// default) and v1.2 (crc32c), mapped and positional.
fn bench_read_verify(dir: &Path, pairs: &mut Vec<Pair>) {
    let (p2, p1, total, each) = v2_v1_pair(dir, "verify");
    let read_all = |r: &Reader, out: &mut [u8], verify: bool| {
        let mut sum = 0u64;
        for o in r.file().objects() {
            let c = o.data().unwrap();
            assert!(c.digest().is_some());
            let c = if verify { c } else { c.unverified() };
            let n = r.read_into(&c, out).unwrap();
            sum = sum.wrapping_add(black_box(out[n - 1]) as u64);
        }
        sum
    };
    for (label, path) in [("v2 xxh3", &p2), ("v1.2 crc32c", &p1)] {
        for mode in [Mode::Mmap, Mode::Positional] {
            let r = Reader::open_with(path, mode).unwrap();
            let (mut s1, mut s2) = (Vec::new(), Vec::new());
            let (o1, o2) = (buffer_at(&mut s1, each, 0), buffer_at(&mut s2, each, 0));
            assert_eq!(read_all(&r, o1, true), read_all(&r, o2, false));
            paired(
                pairs,
                &format!("read_into {} MiB in {} parts, {label}, {mode:?}", total / MIB, total / each),
                total as u64,
                ("ours/read_into, digest checked", || {
                    black_box(read_all(&r, o1, true));
                }),
                ("ours/read_into, unverified()", || {
                    black_box(read_all(&r, o2, false));
                }),
                "≥ 0.8",
            );
        }
    }
}

fn main() {
    let dir = tempfile::Builder::new()
        .prefix("zt-bench-v2data-")
        .tempdir()
        .unwrap();
    eprintln!("temp dir: {}", dir.path().display());
    let mut pairs = Vec::new();
    let only = std::env::var("ZT_BENCH_ONLY").unwrap_or_default();
    if only.is_empty() || only == "verify" {
        bench_verify(dir.path(), &mut pairs);
    }
    if only.is_empty() || only == "seekable" {
        bench_seekable(dir.path(), &mut pairs);
    }
    if only.is_empty() || only == "positional" {
        bench_positional(dir.path(), &mut pairs);
    }
    if only.is_empty() || only == "read_verify" {
        bench_read_verify(dir.path(), &mut pairs);
    }
    print_pairs(&pairs);
}
