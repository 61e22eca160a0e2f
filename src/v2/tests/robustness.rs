//! The v2 reader under stress: no allocation on open, mutated and truncated
//! manifests, shards, the name index, messages and nesting limits.

extern crate std;

use std::string::{String, ToString};
use std::vec::Vec;
use std::{format, fs, println};

use super::super::*;
use super::{open, DIR};

/// Counts this thread's heap allocations (other tests run on other threads).
mod counting {
    extern crate std;
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    std::thread_local! {
        static COUNT: Cell<usize> = const { Cell::new(0) };
    }

    pub fn allocs() -> usize {
        COUNT.with(|c| c.get())
    }

    pub struct Counting;

    #[allow(unsafe_code)] // a counting wrapper around the system allocator, for this test only
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
            System.alloc(l)
        }
        unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
            System.dealloc(p, l)
        }
        unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
            System.realloc(p, l, n)
        }
    }

    #[global_allocator]
    static A: Counting = Counting;
}

#[test]
fn open_walk_and_check_allocate_nothing() {
    let names = ["types_canonical.zt", "quant_group.zt", "mx.zt", "coo.zt", "csr_u64.zt", "gguf.zt", "zstd_seekable.zt", "unknown_vocab.zt"];
    let files: Vec<Vec<u8>> = names.iter().map(|n| fs::read(format!("{DIR}/valid/{n}")).unwrap()).collect();
    let mut scratch = [[0u64; 2]; 256];
    let before = counting::allocs();
    let mut sink = 0u64;
    for file in &files {
        let m = Manifest::parse_with(file, &mut scratch).unwrap();
        for o in m.objects() {
            sink += o.name.len() as u64 + o.dims().sum::<u64>() + o.num_elements();
            if let Profile::QuantGroup(q) = o.profile() {
                sink += q.bits;
            }
            for p in o.parts() {
                let p = p.unwrap();
                sink += p.decoded_size() + p.name.len() as u64;
                if p.encoding == Some(seekable::ID) {
                    sink += seekable::SeekTable::parse(p.blob(file).unwrap(), p.decoded_size()).unwrap().len() as u64;
                } else if let Ok(b) = verify::raw_bytes(&p, file) {
                    sink += verify::part(&p, None, b).unwrap() as u64;
                }
            }
            // COO's duplicate check sorts on the heap when there is one.
            let coo_allocates = cfg!(feature = "alloc") && o.layout == "zt.sparse_coo/1";
            if (o.layout == "zt.sparse_coo/1" || o.layout == "zt.sparse_csr/1") && !coo_allocates {
                sink += verify::object(&o, file).unwrap() as u64;
            }
        }
        sink += m.content_digest_xxh3().unwrap_or(0) & 1;
        m.content_value(|b| sink += b.len() as u64);
    }
    assert_eq!(counting::allocs() - before, 0, "allocations in the v2 open/walk/verify path");
    assert!(sink > 0);
    // The counter counts: a Vec allocates.
    let v: Vec<u8> = Vec::with_capacity(8);
    assert_eq!(counting::allocs() - before, 1);
    drop(v);
}

/// Open time of the 20k-object file (run with `--release --ignored --nocapture`).
#[test]
#[ignore]
fn timing_20k_objects() {
    let file = fs::read(format!("{DIR}/valid/objects_20k.zt")).unwrap();
    let mut scratch = std::vec![[0u64; 2]; 40002];
    let mut best = f64::MAX;
    for _ in 0..20 {
        let t = std::time::Instant::now();
        let m = Manifest::parse_with(&file, &mut scratch).unwrap();
        assert_eq!(m.len(), 20_000);
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!("open + validate 20k objects: {:.3} ms", best * 1e3);
    let (f, man) = container::open(&file).unwrap();
    let _ = f;
    let mut best = f64::MAX;
    for _ in 0..20 {
        let t = std::time::Instant::now();
        cbor::validate(man).unwrap();
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!("deterministic-CBOR pass alone ({} bytes): {:.3} ms", man.len(), best * 1e3);
}

/// Rewrite the footer's hash so a mutated manifest is parsed, not refused at the hash.
fn rehash(file: &mut [u8]) {
    let n = file.len();
    if n < 48 {
        return;
    }
    let mo = u64::from_le_bytes(file[n - 40..n - 32].try_into().unwrap()) as usize;
    let ml = u64::from_le_bytes(file[n - 32..n - 24].try_into().unwrap()) as usize;
    if let Some(m) = mo.checked_add(ml).filter(|&e| e <= n - 40).map(|e| &file[mo..e]) {
        let h = xxhash_rust::xxh3::xxh3_64(m);
        file[n - 24..n - 16].copy_from_slice(&h.to_le_bytes());
    }
}

/// Mutated and truncated manifests never panic: every byte of every
/// fixture's manifest flipped in turn (bounded), the hash fixed up.
#[test]
fn mutated_manifests_never_panic() {
    let mut names: Vec<String> = ["valid", "hostile"]
        .iter()
        .flat_map(|d| fs::read_dir(format!("{DIR}/{d}")).unwrap().map(move |e| format!("{d}/{}", e.unwrap().file_name().to_string_lossy())))
        .filter(|n| !n.ends_with("objects_20k.zt"))
        .collect();
    names.sort();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rand = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut opened = 0;
    for name in &names {
        let orig = fs::read(format!("{DIR}/{name}")).unwrap();
        let n = orig.len();
        let mo = u64::from_le_bytes(orig[n - 40..n - 32].try_into().unwrap()) as usize;
        let ml = u64::from_le_bytes(orig[n - 32..n - 24].try_into().unwrap()) as usize;
        if ml == 0 || mo + ml > n - 40 {
            continue;
        }
        for _ in 0..40 {
            let mut f = orig.clone();
            let i = mo + (rand() as usize) % ml;
            f[i] = match rand() % 4 {
                0 => f[i] ^ (1 << (rand() % 8)),
                1 => f[i].wrapping_add(1),
                2 => f[i].wrapping_sub(1),
                _ => rand() as u8,
            };
            rehash(&mut f);
            if let Ok(m) = open(&f) {
                opened += 1;
                for o in m.objects() {
                    let _ = o.profile();
                    let _ = verify::object(&o, &f);
                }
                let _ = m.content_digest_sha256();
            }
        }
    }
    assert!(opened > 100, "mutations that still open: {opened}");
    // Footer fields and truncations: every answer is an error or a valid open, never a panic.
    let orig = fs::read(format!("{DIR}/valid/tied.zt")).unwrap();
    for i in 0..40 {
        for v in [0u8, 1, 0x7f, 0xff] {
            let mut f = orig.clone();
            let n = f.len();
            f[n - 40 + i] = v;
            let _ = open(&f);
            let t = &f[n - 40..];
            let _ = Manifest::parse_tail_with(t, &f[..0], n as u64, &mut [[0u64; 2]; 16]);
        }
    }
    for cut in [0, 1, 8, 47, 48, 4096, orig.len() - 41, orig.len() - 1] {
        let _ = open(&orig[..cut]);
        let _ = open(&orig[cut.min(orig.len())..]);
    }
}

#[cfg(feature = "std")]
#[test]
fn shards_resolve_by_position_and_identity() {
    use super::{hex, json};
    use sha2::{Digest as _, Sha256};

    let want = json("sharded.json");
    let dir = std::path::PathBuf::from(format!("{DIR}/sharded"));
    for root in ["model.zt", "renamed-root.zt"] {
        let path = dir.join(root);
        let file = fs::read(&path).unwrap();
        let m = open(&file).unwrap();
        let shards: Vec<Shard<'_>> = m.shards().collect();
        assert_eq!(shards.len(), 2);
        for o in m.objects() {
            let p = o.part("data").unwrap();
            let w = &want["objects"][o.name];
            assert_eq!(p.shard, w["shard"].as_str(), "{root}/{}", o.name);
            let bytes = match p.shard {
                None => p.blob(&file).unwrap().to_vec(),
                Some(s) => {
                    let sh = shards.iter().find(|x| x.name == s).unwrap();
                    let at = shard::locate(&path, sh).unwrap();
                    if root == "model.zt" {
                        assert_eq!(at, shard::positional_path(&path, s).unwrap());
                    }
                    let sf = fs::read(at).unwrap();
                    shard::check(sh, &sf).unwrap();
                    shard::verify(sh, &sf).unwrap();
                    p.blob(&sf).unwrap().to_vec()
                }
            };
            assert_eq!(hex(&Sha256::digest(&bytes)), w["sha256"].as_str().unwrap(), "{root}/{}", o.name);
            assert!(verify::part(&p, Some(o.num_elements()), &bytes).unwrap());
        }
    }
    // A shard that is nowhere: the root opens; finding the shard fails clearly.
    let path = dir.join("missing.zt");
    let file = fs::read(&path).unwrap();
    let m = open(&file).unwrap();
    let gone = m.shards().find(|s| s.name == "00003-of-00003").unwrap();
    assert_eq!(shard::locate(&path, &gone).unwrap_err().kind, Kind::ShardMissing);
    // A shard file of the wrong size or digest.
    let s1 = m.shards().next().unwrap();
    let other = fs::read(dir.join("model-00002-of-00002.zt")).unwrap();
    assert_eq!(shard::check(&s1, &other).unwrap_err().kind, Kind::ShardMismatch);
    let mut bytes = fs::read(dir.join("model-00001-of-00002.zt")).unwrap();
    shard::check(&s1, &bytes).unwrap();
    bytes[5000] ^= 1;
    assert_eq!(shard::verify(&s1, &bytes).unwrap_err().kind, Kind::DigestMismatch);
}

/// The name index of a v2 file (deterministic CBOR key order: shorter names
/// first) finds every object by name, through every entry point that builds
/// it, and nothing else: no prefix, extension or neighbour of a name.
#[cfg(feature = "alloc")]
#[test]
fn name_index_finds_every_object_and_nothing_else() {
    let mut lengths = std::collections::BTreeSet::new();
    for e in fs::read_dir(format!("{DIR}/valid")).unwrap() {
        let path = e.unwrap().path();
        let file = fs::read(&path).unwrap();
        let name = path.display().to_string();
        let mut scratch = std::vec![[0u64; 2]; file.len() / 4 + 4];
        let whole = crate::File::parse(&file).unwrap();
        let entries = crate::File::parse_with_scratch(&file, &mut scratch).unwrap();
        let tail = whole.tail();
        let m = tail.manifest_offset as usize..(tail.manifest_offset + tail.manifest_len) as usize;
        let from_tail = crate::File::parse_tail(&file[file.len() - 40..], &file[m], file.len() as u64).unwrap();
        for f in [&whole, &entries, &from_tail] {
            let names: Vec<String> = f.objects().map(|o| o.name().to_string()).collect();
            let set: std::collections::HashSet<&String> = names.iter().collect();
            for (i, n) in names.iter().enumerate() {
                lengths.insert(n.len());
                assert_eq!(f.get(n).map(|o| o.index()), Some(i), "{name}: {n}");
                for absent in [format!("{n}\u{1}"), format!("{n}~"), shorter(n), format!("~{n}")] {
                    if !set.contains(&absent) {
                        assert!(f.get(&absent).is_none(), "{name}: {absent:?}");
                    }
                }
            }
            assert!(f.get("").is_none());
        }
    }
    assert!(lengths.len() > 3, "the fixtures mix name lengths: {lengths:?}");
}

#[cfg(feature = "alloc")]
fn shorter(n: &str) -> String {
    let mut s = n.to_string();
    s.pop();
    s
}

/// Every rule's message is a phrase, never the Rust name of its kind
/// (audit "Hardening v2": "BlobOutOfBounds", "DigestMismatch (shard)").
#[test]
fn messages_say_the_rule_in_words() {
    assert_eq!(Error::new(Kind::BlobOutOfBounds).to_string(), "blob lies outside its file's data region");
    assert_eq!(
        Error::field(Kind::BlobOutOfBounds, 77, "blob").to_string(),
        "blob lies outside its file's data region at manifest byte 77"
    );
    let dir = std::path::Path::new(DIR).join("sharded");
    let root = fs::read(dir.join("model.zt")).unwrap();
    let m = open(&root).unwrap();
    let s1 = m.shards().next().unwrap();
    let mut bytes = fs::read(dir.join("model-00001-of-00002.zt")).unwrap();
    bytes[5000] ^= 1;
    assert_eq!(
        shard::verify(&s1, &bytes).unwrap_err().to_string(),
        "the shard file's digest is not the shard table's: the shard is corrupt or another file"
    );
    use Kind::*;
    let all = [
        TooShort, BadMagic, UnsupportedVersion, ManifestTooLarge, ManifestOutOfBounds, BadDataShardFooter,
        ManifestHashMismatch, ManifestLengthMismatch, CborTruncated, CborInvalid, CborNonShortest, CborIndefinite,
        CborTag, CborSimple, CborNonCanonicalFloat, CborUnsortedKeys, CborDuplicateKey, CborTrailingBytes,
        CborTooDeep, CborInvalidUtf8, WrongType, MissingField, BadName, EmptyParts, RankTooLarge, ShapeOverflow,
        UnknownDtype, BlobNotPair, BlobMisaligned, BlobBelowFloor, BlobOutOfBounds, BlobOverlap,
        EncodingLengthPair, BadDigest, UnknownShard, BadShardName, BadShardSize, ShardMismatch, ShardMissing,
        TypeDtypeMismatch, LayoutParts, LayoutPartType, LayoutRank, LayoutAttribute, SizeMismatch, BoolValue,
        F4OddNibble, CsrIndptr, CsrIndices, CooOutOfRange, CooDuplicate, Seekable, DecodedLength, DigestMismatch,
        NotAvailable, ScratchTooSmall, Unsupported,
    ];
    for kind in all {
        for context in ["", "shape", "size", "shard"] {
            let s = Error { kind, offset: Some(9), context }.to_string();
            let name = format!("{kind:?}");
            assert!(!s.contains(&name), "{kind:?}: {s}");
            assert!(s.ends_with(" at manifest byte 9") && !s.contains("``") && !s.contains("0 bytes"), "{kind:?}: {s}");
            assert!(!s.contains(":  ") && !s.contains(": (") && !s.contains("  "), "{kind:?}: {s}");
            assert!(s.contains(context), "{kind:?} does not name {context:?}: {s}");
        }
    }
}

/// A v2 file of manifest `m` alone (at offset 4096, §2).
fn file_of(m: &[u8]) -> Vec<u8> {
    let mut f = std::vec![0u8; 4096];
    f[..8].copy_from_slice(&container::MAGIC);
    f.extend_from_slice(m);
    for v in [4096, m.len() as u64, xxhash_rust::xxh3::xxh3_64(m)] {
        f.extend_from_slice(&v.to_le_bytes());
    }
    f.extend_from_slice(&container::VERSION.to_le_bytes());
    f.extend_from_slice(&[0; 4]);
    f.extend_from_slice(&container::MAGIC);
    f
}

/// §3.1: nesting is limited to 32 levels measured from the manifest root,
/// wherever the item is: an empty array 32 levels below the root reads, 33
/// is refused, in the file's attributes, under an unknown root key and in
/// an object's attributes.
#[test]
fn nesting_is_limited_to_32_levels_from_the_manifest_root() {
    // `k` arrays, the innermost empty, as a value at `level` (the root map is level 0).
    let nested = |k: usize| -> Vec<u8> { [std::vec![0x81u8; k - 1], std::vec![0x80]].concat() };
    let object = |attrs: &[u8]| -> Vec<u8> {
        // "x": {"parts": {"data": {"blob": [4096, 0], "dtype": "f32"}}, "shape": [0],
        // "layout": "dense", "attributes": {"a": ...}} (keys in encoded order)
        let data = b"\xa1\x64data\xa2\x64blob\x82\x19\x10\x00\x00\x65dtype\x63f32";
        [
            &b"\x61x\xa4\x65parts"[..],
            data,
            b"\x65shape\x81\x00\x66layout\x65dense\x6aattributes\xa1\x61a",
            attrs,
        ]
        .concat()
    };
    for (place, below) in [
        ("file attributes", 2),
        ("unknown root key", 1),
        ("object attributes", 4),
    ] {
        for (levels, ok) in [(32, true), (33, false)] {
            let v = nested(levels + 1 - below);
            let m = match place {
                "file attributes" => {
                    [&b"\xa2\x67objects\xa0\x6aattributes\xa1\x61a"[..], &v].concat()
                }
                "unknown root key" => [&b"\xa2\x67objects\xa0\x6azz_unknown"[..], &v].concat(),
                _ => [&b"\xa1\x67objects\xa1"[..], &object(&v)].concat(),
            };
            let f = file_of(&m);
            let r = open(&f);
            match ok {
                true => assert!(r.is_ok(), "{place}, {levels} levels: {:?}", r.err()),
                false => assert_eq!(
                    r.err().map(|e| e.kind),
                    Some(Kind::CborTooDeep),
                    "{place}, {levels} levels"
                ),
            }
        }
    }
}
