//! Issue 30's "How we will know", as tests of the `zt` command run as a
//! separate process:
//! - `zt verify` of a ~143 KB `zt.zstd-seekable/1` bomb (4.2 GiB decoded)
//!   under `ulimit -v 2000000` ends with a status, not an abort, and its
//!   peak RSS stays under 512 MiB (the kernel's account of the child,
//!   `wait4`; no clock involved);
//! - a writer SIGKILLed right after its first shard rename, rewriting a
//!   sharded model in place: the model at the final path verifies and is
//!   the old one, whole; the next writer to that path removes what the
//!   killed one left.
#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn zt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zt")).args(args).output().expect("run zt")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

// ============================================================ seekable bomb

/// A CBOR head (RFC 8949 §3), shortest form, as §3.1's deterministic CBOR requires.
fn head(major: u8, n: u64) -> Vec<u8> {
    let m = major << 5;
    match n {
        0..=23 => vec![m | n as u8],
        24..=0xff => vec![m | 24, n as u8],
        0x100..=0xffff => [&[m | 25][..], &(n as u16).to_be_bytes()].concat(),
        0x1_0000..=0xffff_ffff => [&[m | 26][..], &(n as u32).to_be_bytes()].concat(),
        _ => [&[m | 27][..], &n.to_be_bytes()].concat(),
    }
}

fn text(s: &str) -> Vec<u8> {
    [head(3, s.len() as u64), s.as_bytes().to_vec()].concat()
}

/// A map from entries already in deterministic key order (shorter keys first, then bytewise).
fn map(entries: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut v = head(5, entries.len() as u64);
    for (k, val) in entries {
        v.extend(text(k));
        v.extend_from_slice(val);
    }
    v
}

/// Decoded bytes of each frame: the most `zt.zstd-seekable/1` allows.
const FRAME: u64 = 16 << 20;

/// One zstd frame of FRAME zero bytes (RFC 8878): single segment, a 4-byte
/// Frame_Content_Size, a content checksum; 128 RLE blocks of 128 KiB.
fn zero_frame() -> Vec<u8> {
    let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0xa4];
    f.extend_from_slice(&(FRAME as u32).to_le_bytes());
    let blocks = FRAME / (128 << 10);
    for b in 0..blocks {
        let h = (128u32 << 10) << 3 | 1 << 1 | u32::from(b + 1 == blocks);
        f.extend_from_slice(&h.to_le_bytes()[..3]);
        f.push(0);
    }
    let sum = xxhash_rust::xxh64::xxh64(&vec![0u8; FRAME as usize], 0) as u32;
    f.extend_from_slice(&sum.to_le_bytes());
    f
}

/// A v2 file whose one dense `u8` object is a `zt.zstd-seekable/1` part of
/// `frames` copies of [`zero_frame`] and its seek table; no digest.
fn seekable_bomb(frames: u32) -> Vec<u8> {
    let frame = zero_frame();
    let mut blob: Vec<u8> = frame.iter().copied().cycle().take(frame.len() * frames as usize).collect();
    // The seek table: a skippable frame of (compressed, decompressed) sizes, then its footer.
    blob.extend_from_slice(&0x184D_2A5Eu32.to_le_bytes());
    blob.extend_from_slice(&(frames * 8 + 9).to_le_bytes());
    for _ in 0..frames {
        blob.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        blob.extend_from_slice(&(FRAME as u32).to_le_bytes());
    }
    blob.extend_from_slice(&frames.to_le_bytes());
    blob.push(0);
    blob.extend_from_slice(&0x8F92_EAB1u32.to_le_bytes());
    let decoded = FRAME * u64::from(frames);
    let part = map(&[
        ("blob", [head(4, 2), head(0, 4096), head(0, blob.len() as u64)].concat()),
        ("dtype", text("u8")),
        ("encoding", text("zt.zstd-seekable/1")),
        ("decoded_length", head(0, decoded)),
    ]);
    let object = map(&[
        ("parts", map(&[("data", part)])),
        ("shape", [head(4, 1), head(0, decoded)].concat()),
        ("layout", text("dense")),
    ]);
    let manifest = map(&[("objects", map(&[("bomb", object)]))]);
    // Container (§2): magic, the blob at 4096, the manifest at the next multiple of 4096, the footer.
    let mut file = b"\x89ZT2\r\n\x1a\n".to_vec();
    file.resize(4096, 0);
    file.extend_from_slice(&blob);
    file.resize(file.len().next_multiple_of(4096), 0);
    let at = file.len() as u64;
    file.extend_from_slice(&manifest);
    file.extend_from_slice(&at.to_le_bytes());
    file.extend_from_slice(&(manifest.len() as u64).to_le_bytes());
    file.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&manifest).to_le_bytes());
    file.extend_from_slice(&2u32.to_le_bytes());
    file.extend_from_slice(&0u32.to_le_bytes());
    file.extend_from_slice(b"\x89ZT2\r\n\x1a\n");
    file
}

/// Run `zt ARGS` under `ulimit -v KB` (a shell sets it, then execs zt) and
/// reap it with `wait4` (not `Child::wait`: it gives no resource usage):
/// its wait status and peak RSS in KiB.
#[allow(clippy::zombie_processes)]
fn run_limited(limit_kb: u64, args: &[&str]) -> (i32, i64) {
    let script = format!("ulimit -v {limit_kb} && exec \"$0\" \"$@\"");
    let child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_zt"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run sh");
    let mut status = 0;
    // SAFETY: `rusage` is plain data; wait4 fills it and the status for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32, "wait4: {}", std::io::Error::last_os_error());
    (status, usage.ru_maxrss)
}

#[test]
fn verify_of_a_seekable_bomb_under_a_2_gb_address_space_limit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bomb.zt");
    let bytes = seekable_bomb(268);
    std::fs::write(&path, &bytes).unwrap();
    let kb = bytes.len() / 1000;
    assert!((140..=150).contains(&kb), "the bomb is ~143 KB: {kb} KB");
    let (status, maxrss_kb) = run_limited(2_000_000, &["verify", s(&path)]);
    println!("zt verify of a {kb} KB seekable bomb (4.2 GiB decoded) under ulimit -v 2000000: peak RSS {maxrss_kb} KiB");
    assert!(libc::WIFEXITED(status), "zt verify ended by signal {} (an abort?)", libc::WTERMSIG(status));
    // Valid, if absurd: every frame decodes to its table size.
    assert_eq!(libc::WEXITSTATUS(status), 0, "zt verify of a valid bomb");
    assert!(maxrss_kb < 512 * 1024, "peak RSS {maxrss_kb} KiB");
    // The same bomb's seek table lying about one frame: refused with status 1, as bounded.
    let mut lying = bytes.clone();
    let table = 4096 + zero_frame().len() * 268 + 8;
    lying[table + 4..table + 8].copy_from_slice(&(FRAME as u32 - 1).to_le_bytes());
    std::fs::write(&path, &lying).unwrap();
    let (status, maxrss_kb) = run_limited(2_000_000, &["verify", s(&path)]);
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 1, "status {status:#x}");
    assert!(maxrss_kb < 512 * 1024, "peak RSS {maxrss_kb} KiB");
}

// ======================================================== killed sharded writer

/// A `.safetensors` of four f32 tensors of 64 Ki elements, every byte `fill`.
fn safetensors(path: &Path, fill: u8) {
    let n = 64 * 1024 * 4;
    let mut header = String::from("{");
    for i in 0..4 {
        let sep = if i > 0 { "," } else { "" };
        header += &format!(r#"{sep}"t{i}":{{"dtype":"F32","shape":[65536],"data_offsets":[{},{}]}}"#, i * n, (i + 1) * n);
    }
    header += "}";
    let mut b = (header.len() as u64).to_le_bytes().to_vec();
    b.extend_from_slice(header.as_bytes());
    b.resize(b.len() + 4 * n, fill);
    std::fs::write(path, b).unwrap();
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    v.sort();
    v
}

/// The first byte of tensor `t0` of the model at `path` (each model here is one `fill`).
fn fill_of(path: &Path) -> u8 {
    let r = ztensor::fs::Reader::open(path).unwrap();
    let o = r.file().require("t0").unwrap();
    r.to_vec(&o.require("data").unwrap()).unwrap()[0]
}

#[test]
fn a_sharded_rewrite_killed_after_its_first_shard_rename() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let inputs = d.join("in");
    std::fs::create_dir(&inputs).unwrap();
    let out = d.join("out");
    std::fs::create_dir(&out).unwrap();
    let model = out.join("model.zt");
    let (a, b, c) = (inputs.join("a.safetensors"), inputs.join("b.safetensors"), inputs.join("c.safetensors"));
    safetensors(&a, 0xaa);
    safetensors(&b, 0xbb);
    safetensors(&c, 0xcc);
    let convert = |input: &Path| zt(&["convert", "-q", "--shard-size", "300000", s(input), s(&model)]);
    assert!(convert(&a).status.success());
    let old = listing(&out);
    assert!(old.len() >= 3, "a root and several shards: {old:?}");

    // The rewrite, stopped right after its first shard rename (the test hook), then SIGKILLed.
    let mut w = Command::new(env!("CARGO_BIN_EXE_zt"))
        .args(["convert", "-q", "--shard-size", "300000", s(&b), s(&model)])
        .env("ZT_TEST_PAUSE_AFTER_SHARD_RENAMES", "1")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(w.stderr.take().unwrap()).read_line(&mut line).unwrap();
    assert!(line.contains("paused after 1 shard renames"), "{line:?}");
    // SAFETY: a signal to our own child, still running (paused).
    assert_eq!(unsafe { libc::kill(w.id() as i32, libc::SIGKILL) }, 0);
    assert!(!w.wait().unwrap().success());
    let killed = listing(&out);
    let left: Vec<&String> = killed.iter().filter(|f| !old.contains(f)).collect();
    assert!(left.iter().any(|f| f.ends_with(".tmp")), "the killed writer left its temporary files: {killed:?}");
    assert!(left.iter().any(|f| !f.starts_with('.')), "and its first renamed shard: {killed:?}");

    // At the final path: the old model, whole.
    let v = zt(&["verify", s(&model)]);
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
    assert_eq!(fill_of(&model), 0xaa);

    // The next writer removes what the killed one left; its model is whole.
    assert!(convert(&c).status.success());
    let after = listing(&out);
    assert!(after.iter().all(|f| !f.starts_with('.')), "temporary files left: {after:?}");
    assert!(zt(&["verify", s(&model)]).status.success());
    assert_eq!(fill_of(&model), 0xcc);
    let r = ztensor::fs::Reader::open(&model).unwrap();
    let named: Vec<String> = r.file().v2().unwrap().shards().map(|s| format!("model-{}.zt", s.name)).collect();
    let mut expected = named.clone();
    expected.push("model.zt".into());
    expected.sort();
    assert_eq!(after, expected, "only the root and the shards it names");
}

// ============================================================ messages in words

/// Words of `text` that look like a Rust identifier in CamelCase
/// ("BlobOutOfBounds", "DigestMismatch"): a lowercase letter followed by an
/// uppercase one; the format's own spelling and binary units excepted.
fn camel_case_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.as_bytes().windows(2).any(|p| p[0].is_ascii_lowercase() && p[1].is_ascii_uppercase()))
        .filter(|w| !matches!(*w, "zTensor" | "KiB" | "MiB" | "GiB" | "TiB"))
        .map(String::from)
        .collect()
}

/// Issue 30 ("Smaller"): what `zt verify` and `zt info` say of every
/// hostile v2 fixture is in words, never a Rust enum's name.
#[test]
fn messages_about_hostile_v2_files_are_in_words() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/v2");
    let mut seen = 0;
    for dir in ["hostile", "sharded"] {
        for e in std::fs::read_dir(fixtures.join(dir)).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_none_or(|x| x != "zt") {
                continue;
            }
            for cmd in ["verify", "info"] {
                let o = zt(&[cmd, s(&path)]);
                let err = String::from_utf8_lossy(&o.stderr);
                assert!(camel_case_words(&err).is_empty(), "zt {cmd} {path:?}: {err}");
                seen += usize::from(!err.is_empty());
            }
        }
    }
    assert!(seen > 100, "only {seen} messages");
    assert_eq!(camel_case_words("zt: f: BlobOutOfBounds (MiB)"), ["BlobOutOfBounds"]);
}

/// `zt convert` of a seekable bomb streams it, a frame at a time, with the
/// same limits as reads (issue 30, H1: it asked for the whole part at
/// once): 12 frames of 16 MiB (192 MiB decoded) under a 150 MB
/// address-space limit, the last frame's checksum broken: refused with
/// status 1 once the frames before it have streamed through, peak RSS
/// bounded, nothing left beside OUT.
#[test]
fn convert_of_a_seekable_bomb_streams_under_an_address_space_limit() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bomb.zt");
    let mut bytes = seekable_bomb(12);
    let last = 4096 + zero_frame().len() * 12 - 1;
    bytes[last] ^= 1;
    std::fs::write(&input, &bytes).unwrap();
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("out.zt");
    for version in ["2", "1.2"] {
        let (status, maxrss_kb) = run_limited(150_000, &["convert", "-q", "--format-version", version, s(&input), s(&out)]);
        println!("zt convert --format-version {version} of a 192 MiB seekable bomb under ulimit -v 150000: peak RSS {maxrss_kb} KiB");
        assert!(libc::WIFEXITED(status), "zt convert ended by signal {}", libc::WTERMSIG(status));
        assert_eq!(libc::WEXITSTATUS(status), 1, "the broken last frame is refused");
        assert!(maxrss_kb < 256 * 1024, "peak RSS {maxrss_kb} KiB");
        assert_eq!(listing(&out_dir), Vec::<String>::new(), "nothing left beside OUT");
    }
}
