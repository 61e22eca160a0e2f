//! The compact reader (`ztensor::compact`) against the full reader
//! (`ztensor::File`), differentially: they must open and refuse the same
//! files (with the same first error), give the same views and the same verification
//! reports. The comparison itself is `fuzz/harness/compact.rs` (shared
//! with the `compact` fuzz target); this file supplies the inputs:
//!
//! - every `.zt` file under `tests/` (v0.1 ones, and v2 sharded files and
//!   data shards, must be refused by the compact reader as unsupported);
//! - deterministic mutations of every v1.x and v2 one (a v2 one's footer
//!   hash rewritten after each) (a seeded xorshift: bit
//!   flips, CBOR heads changed, lengths and integers changed, map entries
//!   duplicated, deleted or added, items spliced, the manifest or the
//!   file truncated, data bytes changed, ...);
//! - the hostile files of `tests/hostile/`: its rule modules are compiled
//!   here again (module `hostile` below) with their harness (`reject`,
//!   `accept`) instrumented to run the comparison, and mutations, on
//!   every file they build. Their own assertions run as well, unchanged.
//!   The helpers below are a copy of `tests/hostile/main.rs`'s, which the
//!   rule modules reach through `use super::*`: a helper added there must
//!   be added here too.
//!
//! The readers are compared by status class and first error (its kind,
//! through the harness's `fault_kinds`, and its manifest byte);
//! `fault_fingerprints` pins the compact reader's exact answers (each fault's kind and manifest byte,
//! the verification reports) against `tests/compact_faults.txt`.
//!
//! A disagreement prints the input (name and mutation, and its bytes in
//! hex when small) with both readers' answers, and fails the test.
//!
//! Run it in every build: `cargo test --test compact` (about 10 s in debug),
//! and `--no-default-features` (the firmware's full reader: few-slot
//! opening compared exactly with `parse_with_scratch`, zstd data refused
//! by both; fewer mutations, about 20 s) and `--no-default-features
//! --features alloc`. `ZT_COMPACT_MUTATIONS=n` for `n` mutations per
//! fixture (`n / 10` per hostile file).

#[path = "common/mod.rs"]
mod common;
#[path = "host_order/mod.rs"]
mod host_order;
#[path = "../fuzz/harness/compact.rs"]
mod diff;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

// ============================================================== inputs

/// Every `.zt` file under `tests/`, sorted.
fn zt_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "zt") {
                out.push(p);
            }
        }
    }
    let mut v = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"), &mut v);
    v.sort();
    v
}

fn short(p: &Path) -> String {
    p.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(p).display().to_string()
}

/// Inputs checked, and those the compact reader opened (all tests of this
/// binary), for the summary lines.
static CHECKED: AtomicUsize = AtomicUsize::new(0);
static OPENED: AtomicUsize = AtomicUsize::new(0);

/// Compare the readers on `bytes`; a disagreement is pushed to `fails`.
fn check(name: &str, bytes: &[u8], fails: &mut Vec<String>) {
    CHECKED.fetch_add(1, Ordering::Relaxed);
    let mut slots = vec![[0u64; 2]; diff::ample(bytes)];
    if ztensor::compact::File::open(bytes, &mut slots).is_ok() {
        OPENED.fetch_add(1, Ordering::Relaxed);
    }
    if let Err(e) = diff::differential(bytes, cfg!(feature = "alloc")) {
        let shown = if bytes.len() <= 2048 { diff::hex(bytes, 2048) } else { format!("({} bytes)", bytes.len()) };
        fails.push(format!("{name}:\n{e}  file: {shown}"));
    }
}

/// Fail with every disagreement (the first few in full).
#[track_caller]
fn report(what: &str, inputs: usize, fails: &[String]) {
    eprintln!(
        "{what}: {inputs} inputs, {} disagreements (so far in this binary: {} inputs, {} opened by the compact reader)",
        fails.len(),
        CHECKED.load(Ordering::Relaxed),
        OPENED.load(Ordering::Relaxed)
    );
    if !fails.is_empty() {
        let shown: Vec<&str> = fails.iter().take(20).map(String::as_str).collect();
        panic!(
            "{} of {inputs} {what} inputs: the compact and full readers disagree{}\n\n{}",
            fails.len(),
            if fails.len() > 20 { " (the first 20 shown)" } else { "" },
            shown.join("\n")
        );
    }
}

// ============================================================== mutations

/// xorshift64: deterministic, seeded per input.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn pick<'t, T>(&mut self, items: &'t [T]) -> Option<&'t T> {
        if items.is_empty() {
            None
        } else {
            Some(&items[self.below(items.len())])
        }
    }
}

/// FNV-1a of the bytes: a seed that depends on the input only.
fn seed_of(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| (h ^ x as u64).wrapping_mul(0x100_0000_01b3))
}

/// One CBOR item of a manifest.
#[derive(Clone, Debug)]
struct Item {
    pos: usize,
    /// Head length (initial byte and argument).
    head: usize,
    major: u8,
    /// `None`: indefinite (or a simple value / float's raw info).
    arg: Option<u64>,
    end: usize,
    /// Child items (maps: key, value, key, value, ...).
    children: Vec<usize>,
}

/// Every item of the well-formed prefix of `m`, in encoded order.
fn items(m: &[u8]) -> Vec<Item> {
    fn head(m: &[u8], pos: usize) -> Option<(u8, u8, Option<u64>, usize)> {
        let ib = *m.get(pos)?;
        let (major, ai) = (ib >> 5, ib & 31);
        let (arg, len) = match ai {
            0..=23 => (Some(ai as u64), 1),
            24..=27 => {
                let n = 1usize << (ai - 24);
                let b = m.get(pos + 1..pos + 1 + n)?;
                (Some(b.iter().fold(0u64, |a, &x| a << 8 | x as u64)), 1 + n)
            }
            31 => (None, 1),
            _ => return None,
        };
        Some((major, ai, arg, len))
    }
    fn walk(m: &[u8], pos: usize, depth: usize, out: &mut Vec<Item>) -> Option<usize> {
        if depth > 64 {
            return None;
        }
        let (major, ai, arg, len) = head(m, pos)?;
        let me = out.len();
        out.push(Item { pos, head: len, major, arg, end: pos + len, children: Vec::new() });
        let mut at = pos + len;
        let mut kids = Vec::new();
        match (major, arg) {
            (0 | 1, Some(_)) => {}
            (2 | 3, Some(n)) => {
                at = at.checked_add(usize::try_from(n).ok()?).filter(|&e| e <= m.len())?;
            }
            (2 | 3, None) => {
                while *m.get(at)? != 0xff {
                    kids.push(out.len());
                    at = walk(m, at, depth + 1, out)?;
                }
                at += 1;
            }
            (4 | 5, Some(n)) => {
                let n = n.checked_mul(if major == 5 { 2 } else { 1 })?;
                for _ in 0..n {
                    kids.push(out.len());
                    at = walk(m, at, depth + 1, out)?;
                }
            }
            (4 | 5, None) => {
                while *m.get(at)? != 0xff {
                    kids.push(out.len());
                    at = walk(m, at, depth + 1, out)?;
                }
                at += 1;
            }
            (6, Some(_)) => {
                kids.push(out.len());
                at = walk(m, at, depth + 1, out)?;
            }
            (7, _) if ai == 31 => return None,
            (7, _) => {}
            _ => return None,
        }
        out[me].end = at;
        out[me].children = kids;
        Some(at)
    }
    let mut out = Vec::new();
    let _ = walk(m, 0, 0, &mut out);
    out
}

/// A minimal head of major type `major` with argument `n`.
fn head_bytes(major: u8, n: u64) -> Vec<u8> {
    let mt = major << 5;
    match n {
        0..=23 => vec![mt | n as u8],
        24..=0xff => vec![mt | 24, n as u8],
        0x100..=0xffff => [vec![mt | 25], (n as u16).to_be_bytes().to_vec()].concat(),
        0x1_0000..=0xffff_ffff => [vec![mt | 26], (n as u32).to_be_bytes().to_vec()].concat(),
        _ => [vec![mt | 27], n.to_be_bytes().to_vec()].concat(),
    }
}

/// `bytes` (a v1.x or v2 file) with its manifest replaced by `m`: the data
/// region kept, the footer's size (v2: and the manifest's XXH3, so that a
/// mutation reaches the manifest's rules) fixed.
fn rewrap(bytes: &[u8], moff: usize, m: &[u8]) -> Vec<u8> {
    let mut f = bytes[..moff].to_vec();
    f.extend_from_slice(m);
    if bytes.starts_with(V2_MAGIC) {
        // The v2 footer (§2.2): offset, length, XXH3-64, version 2, reserved, magic.
        for v in [moff as u64, m.len() as u64, xxhash_rust::xxh3::xxh3_64(m)] {
            f.extend_from_slice(&v.to_le_bytes());
        }
        f.extend_from_slice(&2u32.to_le_bytes());
        f.extend_from_slice(&[0; 4]);
        f.extend_from_slice(V2_MAGIC);
        return f;
    }
    f.extend_from_slice(&(m.len() as u64).to_le_bytes());
    f.extend_from_slice(b"ZTEN1000");
    f
}

/// The v2 magic (§2.1).
const V2_MAGIC: &[u8] = b"\x89ZT2\r\n\x1a\n";

/// The manifest's offset and bytes of a v1.x or v2 file with a manifest.
fn manifest_of(bytes: &[u8]) -> Option<(usize, &[u8])> {
    let tail = ztensor::Tail::from_file(bytes).ok()?;
    if !matches!(tail.layout, ztensor::Layout::V1 | ztensor::Layout::V2) || tail.manifest_len == 0 {
        return None;
    }
    let moff = tail.manifest_offset as usize;
    Some((moff, bytes.get(moff..moff + tail.manifest_len as usize)?))
}

fn splice(m: &[u8], range: std::ops::Range<usize>, with: &[u8]) -> Vec<u8> {
    [&m[..range.start], with, &m[range.end..]].concat()
}

/// Head bytes worth trying: every type's short forms, reserved values,
/// indefinite heads, breaks, simple values and floats.
const HEADS: &[u8] = &[
    0x00, 0x01, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1f, 0x20, 0x38, 0x3b, 0x40, 0x41, 0x58, 0x5b, 0x5f, 0x60, 0x61, 0x63,
    0x78, 0x7b, 0x7f, 0x80, 0x81, 0x98, 0x9b, 0x9f, 0xa0, 0xa1, 0xa2, 0xb8, 0xbb, 0xbf, 0xc0, 0xc2, 0xd8, 0xdb, 0xf4, 0xf5,
    0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xff,
];

/// One mutation of the v1.x file `bytes` (manifest at `moff..moff+mlen`,
/// items `its`): the mutated file and what was done.
fn mutate(bytes: &[u8], moff: usize, m: &[u8], its: &[Item], rng: &mut Rng) -> (Vec<u8>, String) {
    let item = |rng: &mut Rng| rng.pick(its).cloned();
    let maps: Vec<&Item> = its.iter().filter(|i| i.major == 5 && !i.children.is_empty()).collect();
    for _ in 0..8 {
        match rng.below(17) {
            0 if !m.is_empty() => {
                let (at, bit) = (rng.below(m.len()), rng.below(8));
                let mut m2 = m.to_vec();
                m2[at] ^= 1 << bit;
                return (rewrap(bytes, moff, &m2), format!("manifest byte {at} bit {bit} flipped"));
            }
            1 => {
                let Some(it) = item(rng) else { continue };
                let b = HEADS[rng.below(HEADS.len())];
                let mut m2 = m.to_vec();
                m2[it.pos] = b;
                return (rewrap(bytes, moff, &m2), format!("head at {} {:02x} -> {b:02x}", it.pos, m[it.pos]));
            }
            2 => {
                let n = rng.below(bytes.len());
                return (bytes[..n].to_vec(), format!("file truncated to {n} bytes"));
            }
            3 if !m.is_empty() => {
                let n = rng.below(m.len());
                return (rewrap(bytes, moff, &m[..n]), format!("manifest truncated to {n} bytes"));
            }
            4 => {
                // Duplicate a map entry (the count bumped).
                let Some(mp) = rng.pick(&maps) else { continue };
                let Some(n) = mp.arg else { continue };
                let e = rng.below(n as usize);
                let (k, v) = (&its[mp.children[2 * e]], &its[mp.children[2 * e + 1]]);
                let entry = &m[k.pos..v.end];
                let mut m2 = splice(m, v.end..v.end, entry);
                m2 = splice(&m2, mp.pos..mp.pos + mp.head, &head_bytes(5, n.saturating_add(1)));
                return (rewrap(bytes, moff, &m2), format!("map at {} entry {e} (key at {}) duplicated", mp.pos, k.pos));
            }
            5 if m.len() > 1 => {
                let (a, b) = (rng.below(m.len()), rng.below(m.len()));
                let mut m2 = m.to_vec();
                m2.swap(a, b);
                return (rewrap(bytes, moff, &m2), format!("manifest bytes {a} and {b} swapped"));
            }
            6 => {
                // A new value for an integer (offsets, lengths, dimensions).
                let ints: Vec<&Item> = its.iter().filter(|i| i.major == 0).collect();
                let Some(it) = rng.pick(&ints) else { continue };
                let v = it.arg.unwrap_or(0);
                let new = match rng.below(10) {
                    0 => v.wrapping_add(1),
                    1 => v.wrapping_sub(1),
                    2 => v.wrapping_add(64),
                    3 => v.wrapping_sub(64),
                    4 => 0,
                    5 => v.wrapping_mul(2),
                    6 => u32::MAX as u64,
                    7 => u64::MAX,
                    8 => v ^ 1 << rng.below(64),
                    _ => bytes.len() as u64,
                };
                let m2 = splice(m, it.pos..it.end, &head_bytes(0, new));
                return (rewrap(bytes, moff, &m2), format!("integer at {} {v} -> {new}", it.pos));
            }
            7 => {
                // A text, byte string, array or map length changed.
                let sized: Vec<&Item> = its.iter().filter(|i| (2..=5).contains(&i.major) && i.arg.is_some()).collect();
                let Some(it) = rng.pick(&sized) else { continue };
                let n = it.arg.unwrap();
                let new = match rng.below(4) {
                    0 => n.saturating_add(1),
                    1 => n.saturating_sub(1),
                    2 => n.saturating_add(2 + rng.below(30) as u64),
                    _ => 0,
                };
                let m2 = splice(m, it.pos..it.pos + it.head, &head_bytes(it.major, new));
                return (rewrap(bytes, moff, &m2), format!("length at {} (major {}) {n} -> {new}", it.pos, it.major));
            }
            8 if moff > 8 => {
                // A data byte (digests, bool bytes, sparse indices).
                let at = 8 + rng.below(moff - 8);
                let mut f = bytes.to_vec();
                let v = match rng.below(3) {
                    0 => f[at] ^ 1 << rng.below(8),
                    1 => 0xff,
                    _ => 2,
                };
                f[at] = v;
                return (f, format!("data byte {at} {:02x} -> {v:02x}", bytes[at]));
            }
            9 => {
                // A text replaced by another of the manifest (dtypes,
                // formats, roles, names, keys).
                let texts: Vec<&Item> = its.iter().filter(|i| i.major == 3 && i.arg.is_some()).collect();
                let (Some(a), Some(b)) = (rng.pick(&texts), rng.pick(&texts)) else { continue };
                let m2 = splice(m, a.pos..a.end, &m[b.pos..b.end]);
                let shown = String::from_utf8_lossy(&m[b.pos + b.head..b.end]).into_owned();
                return (rewrap(bytes, moff, &m2), format!("text at {} replaced by the one at {} ({shown:?})", a.pos, b.pos));
            }
            10 => {
                // A map entry deleted (the count lowered).
                let Some(mp) = rng.pick(&maps) else { continue };
                let Some(n) = mp.arg else { continue };
                let e = rng.below(n as usize);
                let (k, v) = (&its[mp.children[2 * e]], &its[mp.children[2 * e + 1]]);
                let mut m2 = splice(m, k.pos..v.end, &[]);
                m2 = splice(&m2, mp.pos..mp.pos + mp.head, &head_bytes(5, n - 1));
                let key = String::from_utf8_lossy(&m[k.pos..k.end]).into_owned();
                return (rewrap(bytes, moff, &m2), format!("map at {} entry {e} (key {key:?}) deleted", mp.pos));
            }
            11 => {
                // An item replaced by another (of the same manifest).
                let (Some(a), Some(b)) = (item(rng), item(rng)) else { continue };
                if b.pos <= a.pos && a.end <= b.end {
                    continue;
                }
                let m2 = splice(m, a.pos..a.end, &m[b.pos..b.end]);
                return (rewrap(bytes, moff, &m2), format!("item at {} replaced by the item at {}", a.pos, b.pos));
            }
            12 => {
                // The container: the footer's size or a magic byte.
                let mut f = bytes.to_vec();
                let n = f.len();
                return match rng.below(4) {
                    0 => {
                        let s = (m.len() as u64).wrapping_add(if rng.below(2) == 0 { 1 } else { u64::MAX });
                        f[n - 16..n - 8].copy_from_slice(&s.to_le_bytes());
                        (f, format!("footer size {} -> {s}", m.len()))
                    }
                    1 => {
                        f[n - 1 - rng.below(8)] ^= 0x20;
                        (f, "footer magic changed".into())
                    }
                    2 => {
                        f[..8].copy_from_slice(b"ZTEN0001");
                        (f, "header magic ZTEN0001".into())
                    }
                    _ => {
                        f[rng.below(8)] ^= 1;
                        (f, "header magic changed".into())
                    }
                };
            }
            13 => {
                // An entry added to a map: an unknown key or a known one.
                let Some(mp) = rng.pick(&maps) else { continue };
                let Some(n) = mp.arg else { continue };
                const KEYS: &[&str] = &["x", "version", "objects", "attributes", "shape", "format", "components", "dtype", "offset", "length", "encoding", "digest", "type", "uncompressed_length", "data", ""];
                let key = KEYS[rng.below(KEYS.len())];
                let mut entry = common::ctext(key);
                match item(rng) {
                    Some(v) if rng.below(2) == 0 => entry.extend_from_slice(&m[v.pos..v.end]),
                    _ => entry.push(HEADS[rng.below(HEADS.len())] & 0xe0),
                }
                let at = its[*mp.children.last().unwrap()].end;
                let mut m2 = splice(m, at..at, &entry);
                m2 = splice(&m2, mp.pos..mp.pos + mp.head, &head_bytes(5, n.saturating_add(1)));
                return (rewrap(bytes, moff, &m2), format!("map at {}: entry {key:?} added", mp.pos));
            }
            14 => {
                // A definite container made indefinite.
                let conts: Vec<&Item> = its.iter().filter(|i| (2..=5).contains(&i.major) && i.arg.is_some()).collect();
                let Some(it) = rng.pick(&conts) else { continue };
                if it.major <= 3 {
                    // A string as one chunk of an indefinite one.
                    let mut chunk = m[it.pos..it.end].to_vec();
                    chunk.insert(0, it.major << 5 | 31);
                    chunk.push(0xff);
                    let m2 = splice(m, it.pos..it.end, &chunk);
                    return (rewrap(bytes, moff, &m2), format!("string at {} made indefinite", it.pos));
                }
                let mut m2 = splice(m, it.end..it.end, &[0xff]);
                m2 = splice(&m2, it.pos..it.pos + it.head, &[it.major << 5 | 31]);
                return (rewrap(bytes, moff, &m2), format!("container at {} made indefinite", it.pos));
            }
            16 => {
                // Two entries of a map swapped (names out of order, blobs
                // out of file order, `objects` before `version`, ...).
                let Some(mp) = rng.pick(&maps) else { continue };
                let n = mp.children.len() / 2;
                let (a, b) = (rng.below(n), rng.below(n));
                let (a, b) = (a.min(b), a.max(b));
                if a == b {
                    continue;
                }
                let ea = its[mp.children[2 * a]].pos..its[mp.children[2 * a + 1]].end;
                let eb = its[mp.children[2 * b]].pos..its[mp.children[2 * b + 1]].end;
                let m2 = [&m[..ea.start], &m[eb.clone()], &m[ea.end..eb.start], &m[ea.clone()], &m[eb.end..]].concat();
                return (rewrap(bytes, moff, &m2), format!("map at {}: entries {a} and {b} swapped", mp.pos));
            }
            _ => {
                // An integer or length in a longer head than needed.
                let Some(it) = item(rng) else { continue };
                let (Some(n), true) = (it.arg, it.major <= 6) else { continue };
                let mut h = vec![it.major << 5 | 27];
                h.extend_from_slice(&n.to_be_bytes());
                let m2 = splice(m, it.pos..it.pos + it.head, &h);
                return (rewrap(bytes, moff, &m2), format!("head at {} widened to 9 bytes", it.pos));
            }
        }
    }
    // Nothing else applied: flip a file byte.
    let at = rng.below(bytes.len());
    let mut f = bytes.to_vec();
    f[at] ^= 0x80;
    (f, format!("file byte {at} flipped"))
}

/// `n` mutations of `bytes` (a v1.x or v2 file; none for other files), checked.
fn check_mutations(name: &str, bytes: &[u8], n: usize, fails: &mut Vec<String>) -> usize {
    let Some((moff, m)) = manifest_of(bytes) else { return 0 };
    let its = items(m);
    let mut rng = Rng::new(seed_of(bytes));
    for i in 0..n {
        let (mut f, mut what) = mutate(bytes, moff, m, &its, &mut rng);
        // A third of them mutated again (from the mutation's own items).
        if rng.below(3) == 0 {
            if let Some((f2, what2)) = mutate_again(&f, &mut rng) {
                (f, what) = (f2, format!("{what}; then {what2}"));
            }
        }
        check(&format!("{name}, mutation {i}: {what}"), &f, fails);
    }
    n
}

/// A mutation of a mutated file, when it still has a v1.x or v2 container.
fn mutate_again(bytes: &[u8], rng: &mut Rng) -> Option<(Vec<u8>, String)> {
    let (moff, m) = manifest_of(bytes)?;
    Some(mutate(bytes, moff, m, &items(m), rng))
}

// ============================================================== tests

/// Mutations per v1.x fixture (a few for the 2.8 MB one); fewer without
/// `alloc`, where the full reader's lookups scan. `ZT_COMPACT_MUTATIONS=n`
/// asks for `n` per fixture (and `n / 10` per hostile file) for a longer run.
const MUTATIONS: usize = if cfg!(feature = "alloc") { 1000 } else { 250 };
const MUTATIONS_BIG: usize = 4;

fn mutations(default: usize, per_fixture: bool) -> usize {
    match std::env::var("ZT_COMPACT_MUTATIONS").ok().and_then(|v| v.parse::<usize>().ok()) {
        Some(n) if per_fixture => n,
        Some(n) => n / 10,
        None => default,
    }
}

/// Every `.zt` under `tests/` as it is.
#[test]
fn every_fixture_file() {
    let files = zt_files();
    assert!(files.len() >= 300, "only {} .zt files found under tests/", files.len());
    let mut fails = Vec::new();
    for p in &files {
        check(&short(p), &std::fs::read(p).unwrap(), &mut fails);
    }
    report("fixture", files.len(), &fails);
}

/// Mutations of every v1.x `.zt` under `tests/`.
#[test]
fn fixture_mutations() {
    let (mut inputs, mut fails) = (0, Vec::new());
    for p in zt_files() {
        let bytes = std::fs::read(&p).unwrap();
        let n = if bytes.len() > 1 << 20 { MUTATIONS_BIG } else { mutations(MUTATIONS, true) };
        inputs += check_mutations(&short(&p), &bytes, n, &mut fails);
    }
    assert!(inputs >= 20 * mutations(MUTATIONS, true), "{inputs}");
    report("fixture mutation", inputs, &fails);
}

/// The mutator's own check: most of its mutations keep a sound container,
/// and both outcomes (opened, refused) occur.
#[test]
fn mutations_reach_both_outcomes() {
    let bytes = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v1.2/sparse.zt")).unwrap();
    let tail = ztensor::Tail::from_file(&bytes).unwrap();
    let moff = tail.manifest_offset as usize;
    let m = &bytes[moff..moff + tail.manifest_len as usize];
    let its = items(m);
    assert_eq!(its[0].end, m.len(), "the item walk covers the manifest");
    let mut rng = Rng::new(1);
    let (mut opened, mut refused) = (0, 0);
    for _ in 0..300 {
        let (f, _) = mutate(&bytes, moff, m, &its, &mut rng);
        match ztensor::File::parse(&f) {
            Ok(_) => opened += 1,
            Err(_) => refused += 1,
        }
    }
    assert!(opened > 30 && refused > 100, "opened {opened}, refused {refused}");
}

// ============================================================== faults

/// FNV-1a, continued from `h`.
fn fnv(h: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(h, |h, &x| (h ^ x as u64).wrapping_mul(0x100_0000_01b3))
}

/// What the compact reader says of `bytes`, exactly, folded into `h`: for
/// 0, 1, 8 and ample slots, the fault's kind and manifest byte, or the
/// object count and whether the index is built; with ample slots, the
/// verification report (strict and not).
fn fold_answers(mut h: u64, bytes: &[u8]) -> u64 {
    use ztensor::compact::{File, Report};
    let ample = diff::ample(bytes);
    for n in [0, 1, 8, ample] {
        let mut slots = vec![[0u64; 2]; n];
        match File::open(bytes, &mut slots) {
            Err(e) => h = fnv(h, &[&[1, e.kind as u8][..], &e.at.to_le_bytes()].concat()),
            Ok(f) => {
                h = fnv(h, &[&[2, f.indexed() as u8][..], &(f.len() as u64).to_le_bytes()].concat());
                if n == ample {
                    for strict in [false, true] {
                        let r: Report = f.verify(ztensor::verify::Options { strict, ..ztensor::verify::Options::ALL });
                        let first = r.first.map_or([0; 5], |e| {
                            let a = e.at.to_le_bytes();
                            [e.kind as u8 + 1, a[0], a[1], a[2], a[3]]
                        });
                        let counts = [r.objects, r.components, r.digests_checked, r.unverifiable, r.problems];
                        let counts: Vec<u8> = counts.iter().flat_map(|c| (*c as u64).to_le_bytes()).collect();
                        h = fnv(fnv(h, &counts), &first);
                    }
                }
            }
        }
    }
    h
}

/// The golden answers: `tests/compact_faults.txt`; built without
/// `v1-legacy` (v1.0 and v1.1 refused: the firmware's reader),
/// `tests/compact_faults_v1_2.txt`.
const FAULTS: &str =
    if cfg!(feature = "v1-legacy") { "tests/compact_faults.txt" } else { "tests/compact_faults_v1_2.txt" };

/// Mutations per fixture in the fingerprints (a few for the 2.8 MB one).
const FAULT_MUTATIONS: usize = 1500;

/// The compact reader's exact answers (each fault's kind and manifest
/// byte, at several slot counts, and the verification reports) on every
/// `.zt` under `tests/` and mutations of it, one fingerprint per file,
/// against `tests/compact_faults.txt`. The differential tests compare the
/// readers by status class only; this pins the compact reader's own
/// answers, so a change made for size or speed that moves a fault, or
/// changes its kind, fails here. A deliberate change: say why in the
/// commit, and rewrite the file with `ZT_BLESS=1 cargo test --test compact
/// fault_fingerprints`.
#[test]
fn fault_fingerprints() {
    let mut lines = Vec::new();
    for p in zt_files() {
        let bytes = std::fs::read(&p).unwrap();
        let mut h = fold_answers(0xcbf2_9ce4_8422_2325, &bytes);
        let mut n = 1;
        if let Some((moff, m)) = manifest_of(&bytes) {
            let its = items(m);
            let mut rng = Rng::new(seed_of(&bytes));
            let count = if bytes.len() > 1 << 20 { MUTATIONS_BIG } else { FAULT_MUTATIONS };
            for _ in 0..count {
                let (f, _) = mutate(&bytes, moff, m, &its, &mut rng);
                h = fold_answers(h, &f);
                n += 1;
            }
        }
        lines.push(format!("{:016x} {n:4} {}", h, short(&p)));
    }
    let got = lines.join("\n") + "\n";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(FAULTS);
    if std::env::var_os("ZT_BLESS").is_some() {
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    let want: std::collections::HashMap<&str, &str> = want.lines().filter_map(|l| Some((l.get(22..)?, l.get(..21)?))).collect();
    let changed: Vec<&String> = lines.iter().filter(|l| want.get(&l[22..]) != Some(&&l[..21])).collect();
    assert!(
        changed.is_empty(),
        "the compact reader's answers changed on {} of {} files (or a file is new; {FAULTS} has {}):\n{}\n\
         If deliberate, say why in the commit and rerun with ZT_BLESS=1.",
        changed.len(),
        lines.len(),
        want.len(),
        changed.iter().take(20).map(|l| l.as_str()).collect::<Vec<_>>().join("\n")
    );
    assert_eq!(want.len(), lines.len(), "{FAULTS} lists files no longer under tests/: rerun with ZT_BLESS=1");
}

// ============================================================== findings

/// A v1.x file around the manifest `m` (no data region).
fn v1(m: &[u8]) -> Vec<u8> {
    common::v1_manifest_only(m)
}

/// Finding (fixed): `{"objects": {"\xff": 0}, "version": "2.0.0"}`:
/// `objects` before `version`, a definite text of invalid UTF-8 inside it,
/// and an unsupported major version. The full reader with `alloc` used to
/// skip the deferred `objects` without checking UTF-8 and refuse the file
/// as `UnsupportedVersion`; without `alloc`, and the compact reader, as a
/// format error (`CborInvalidUtf8` / `Utf8`). It now walks it with every
/// check in every build, so all agree on a format error. (Found by the
/// hostile file `objects_before_version` with a bit flipped in a key.)
#[test]
fn deferred_objects_with_invalid_utf8_and_an_unsupported_version() {
    let mut fails = Vec::new();
    for objects in [&b"\xa1\x61\xff\x00"[..], b"\xa1\x61a\x61\xff", b"\x61\xff", b"\xa1\x61a\xa1\x61\xff\x00"] {
        let m = [&b"\xa2\x67objects"[..], objects, b"\x67version\x652.0.0"].concat();
        check(&format!("manifest {}", diff::hex(&m, 100)), &v1(&m), &mut fails);
    }
    report("deferred-UTF-8", 4, &fails);
}

/// Finding (builds without `alloc`: the firmware's): a schema map with an
/// empty text key, e.g. `{"version": "1.2.0", "objects": {}, "": 0}`,
/// panics both readers (index out of bounds in `names!`'s `from_bytes`,
/// src/manifest/schema.rs: `types::position` over the packed list
/// `"version\0attributes\0objects\0"` also matches the empty piece after
/// the last NUL, one past `ALL`). With `alloc` (a `match`, no list) both
/// readers take the key as an unknown field and agree.
#[test]
fn empty_key_in_a_schema_map() {
    let mut fails = Vec::new();
    let cases: [&[u8]; 3] = [
        b"\xa3\x67version\x651.2.0\x67objects\xa0\x60\x00",
        b"\xa2\x67version\x651.2.0\x67objects\xa1\x61w\xa4\x65shape\x80\x66format\x65dense\x6acomponents\xa0\x60\x00",
        b"\xa2\x67version\x651.2.0\x67objects\xa1\x61w\xa3\x65shape\x80\x66format\x63xyz\x6acomponents\xa1\x61c\xa4\x65dtype\x62u8\x66offset\x08\x66length\x00\x60\x00",
    ];
    for m in cases {
        let f = v1(m);
        match std::panic::catch_unwind(|| {
            let mut fails = Vec::new();
            check("", &f, &mut fails);
            fails
        }) {
            Ok(f) => fails.extend(f.into_iter().map(|e| format!("manifest {}{e}", diff::hex(m, 200)))),
            Err(_) => fails.push(format!("manifest {}: a reader panicked", diff::hex(m, 200))),
        }
    }
    report("empty-key", cases.len(), &fails);
}

// ============================================================== hostile

/// Mutations of each hostile file.
const HOSTILE_MUTATIONS: usize = if cfg!(feature = "alloc") { 100 } else { 25 };

/// The comparison, and mutations, of a file a hostile test builds: a
/// disagreement fails that test.
fn observe(bytes: &[u8]) {
    let mut fails = Vec::new();
    check("hostile file", bytes, &mut fails);
    check_mutations("hostile file", bytes, mutations(HOSTILE_MUTATIONS, false), &mut fails);
    if !fails.is_empty() {
        panic!(
            "{} disagreement(s) of the compact and full readers on this hostile file (or its mutations):\n\n{}",
            fails.len(),
            fails.iter().take(10).cloned().collect::<Vec<_>>().join("\n")
        );
    }
}

/// `tests/hostile/`'s rule modules, with its harness instrumented.
mod hostile {
    pub(crate) use super::common::*;
    use super::host_order::{host_can_view, typed_read_and_view, NOT_HOST_ORDER};
    use super::observe;
    use ztensor::{DType, Encoding, Endian, Error, ErrorKind, File, Format, LogicalType, Tail, MAX_DEPTH};

    include!("hostile/harness.rs");

    /// The overlap fault points at the component map of a blob that
    /// overlaps another (blobs out of file order: the sorted check).
    #[test]
    fn overlap_fault_points_at_a_component_map() {
        let bytes = two_blobs(128, 128, 64, 128, 256);
        let mut slots = vec![[0u64; 2]; 64];
        let e = ztensor::compact::File::open(&bytes, &mut slots).err().expect("overlapping blobs refused");
        assert_eq!(e.kind, ztensor::compact::Kind::Overlap);
        let m = manifest_of(&bytes);
        let at = e.at as usize;
        // A component's map: a map head (major type 5) whose entries (the
        // next few dozen bytes) hold `offset` (0x66 "offset"), and not the
        // root's or an object's map.
        assert_eq!(m[at] >> 5, 5, "byte {at} of the manifest is not a map head");
        let entries = &m[at..(at + 40).min(m.len())];
        assert!(entries.windows(7).any(|w| w == b"\x66offset"), "no `offset` in the map at {at}");
        assert!(!entries[1..].starts_with(b"\x65shape"), "the map at {at} is an object's: {entries:02x?}");
    }

    /// A map counting more entries than the bytes left can hold (two bytes
    /// an entry), or an array more items (one byte each), is refused at its
    /// head, before its entries are read.
    #[test]
    fn container_counts_past_the_bytes_left_fault_at_the_head() {
        let open = |m: &[u8]| ztensor::compact::File::open(&v1_file(&Blobs::new(), m), &mut []).err().map(|e| (e.kind, e.at));
        let cbor = ztensor::compact::Kind::Cbor;
        // Three entries, five bytes: at least six needed.
        assert_eq!(open(&[0xa3, 0x61, b'a', 0x01, 0x61, b'b']), Some((cbor, 0)));
        // `shape` an array of three items with two bytes left.
        let mut m = vec![0xa2, 0x67];
        m.extend_from_slice(b"version\x651.2.0\x67objects");
        m.extend_from_slice(&[0xa1, 0x61, b'x', 0xa1, 0x65]);
        m.extend_from_slice(b"shape");
        let at = m.len() as u32;
        m.extend_from_slice(&[0x83, 0x01, 0x01]);
        assert_eq!(open(&m), Some((cbor, at)));
    }

    /// Past eight components, their roles go to the slots: too few slots
    /// point at the role that did not fit (the first, when even the eight
    /// compared directly do not).
    #[test]
    fn too_few_slots_for_roles_point_at_a_role() {
        let mut b = Blobs::new();
        let o = b.add_len(4);
        let comps: Vec<(String, Value)> = (0..10).map(|i| (format!("r{i}"), comp("u8", o, 4))).collect();
        let m = manifest("1.2.0", [("x", obj(&[4], "custom_x", comps.iter().map(|(k, v)| (k.as_str(), v.clone()))))]);
        let bytes = v1_file(&b, &encode(&m));
        let role = |i: u8| manifest_of(&bytes).windows(3).position(|w| w == [0x62, b'r', b'0' + i]).unwrap() as u32;
        for (k, at) in [(0, role(0)), (7, role(7)), (8, role(8)), (9, role(9))] {
            let mut slots = vec![[0u64; 2]; k];
            let e = ztensor::compact::File::open(&bytes, &mut slots).err().expect("too few slots");
            assert_eq!((e.kind, e.at), (ztensor::compact::Kind::Slots, at), "{k} slots");
        }
        assert!(ztensor::compact::File::open(&bytes, &mut [[0u64; 2]; 10]).is_ok());
    }

    mod container;
    mod cbor;
    mod duplicates;
    mod schema;
    mod formats;
    mod data;
    mod accepted;
    mod errors;
    mod v2;
}
