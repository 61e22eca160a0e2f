//! Format v2, structure-aware (`v2_open`): the input describes a v2 file
//! (objects, layouts, parts with dtypes, types, encodings, digests, blob
//! placement, shards, attributes) that is written with deterministic CBOR
//! and a correct manifest hash, then mutated at a few chosen bytes (the
//! hash recomputed or not). Inputs that start with the v2 magic are taken
//! as whole files instead (the seeds: fixtures and hand-made hostile files).
//!
//! Invariants: [`File::parse`], `parse_with_scratch` and the v2 reader agree;
//! `parse_tail` from the 40-byte footer agrees with `parse`; every view,
//! read, verification and the content digest run without panicking; raw
//! parts read back as their stored bytes; a file built without mutation
//! from well-formed parts opens.

use arbitrary::{Arbitrary, Unstructured};
use ztensor::verify::Options;
use ztensor::{Encoding, ErrorKind, File, Tail};

const MAGIC: [u8; 8] = [0x89, b'Z', b'T', b'2', 0x0d, 0x0a, 0x1a, 0x0a];
const ALIGN: u64 = 4096;

const NAMES: [&str; 6] = ["w", "b", "emb", "m", "x.y", ""];
const LAYOUTS: [&str; 8] =
    ["dense", "dense", "zt.sparse_csr/1", "zt.sparse_coo/1", "zt.mx/1", "zt.quant_group/1", "gguf.q8_0/1", "vendor.x/1"];
const ROLES: [&str; 9] = ["data", "data", "values", "indices", "indptr", "coords", "scales", "zeros", "extra"];
const DTYPES: [&str; 14] =
    ["f32", "f16", "bf16", "f64", "u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "bool", "c64"];
const TYPES: [&str; 7] = ["bool", "f4_e2m1", "f8_e8m0", "f8_e4m3fn", "complex64", "complex128", "vendor.t"];
const ENCODINGS: [&str; 2] = ["zt.zstd-seekable/1", "vendor.lz/1"];

#[derive(Arbitrary, Debug)]
struct Spec {
    objects: Vec<Obj>,
    shards: Vec<(u8, u16)>,
    attributes: Option<(u8, i16)>,
    /// Byte flips after writing: (position, xor).
    flips: Vec<(u16, u8)>,
    /// Recompute the manifest hash after the flips.
    rehash: bool,
}

#[derive(Arbitrary, Debug)]
struct Obj {
    name: u8,
    shape: Vec<u8>,
    layout: u8,
    parts: Vec<PartSpec>,
}

#[derive(Arbitrary, Debug)]
struct PartSpec {
    role: u8,
    dtype: u8,
    ty: Option<u8>,
    len: u8,
    fill: u8,
    /// 0: none, 1: right xxh3, 2: wrong xxh3, 3: right sha256, 4: other algorithm.
    digest: u8,
    encoding: Option<u8>,
    /// Reuse the previous part's blob (weight tying), or misplace this one.
    placement: u8,
    shard: Option<u8>,
    /// A dense `data` part that fits its shape (no type, a storage dtype).
    fit: bool,
}

/// Deterministic CBOR: shortest heads, definite lengths, keys sorted by their encodings.
enum C {
    U(u64),
    N(i64),
    T(String),
    A(Vec<C>),
    M(Vec<(C, C)>),
}

fn head(out: &mut Vec<u8>, major: u8, v: u64) {
    let m = major << 5;
    match v {
        0..=23 => out.push(m | v as u8),
        24..=0xff => out.extend([m | 24, v as u8]),
        0x100..=0xffff => {
            out.push(m | 25);
            out.extend((v as u16).to_be_bytes())
        }
        0x1_0000..=0xffff_ffff => {
            out.push(m | 26);
            out.extend((v as u32).to_be_bytes())
        }
        _ => {
            out.push(m | 27);
            out.extend(v.to_be_bytes())
        }
    }
}

impl C {
    fn enc(&self, out: &mut Vec<u8>) {
        match self {
            C::U(v) => head(out, 0, *v),
            C::N(v) if *v >= 0 => head(out, 0, *v as u64),
            C::N(v) => head(out, 1, (-1 - *v) as u64),
            C::T(s) => {
                head(out, 3, s.len() as u64);
                out.extend(s.as_bytes())
            }
            C::A(items) => {
                head(out, 4, items.len() as u64);
                items.iter().for_each(|i| i.enc(out))
            }
            C::M(entries) => {
                let mut enc: Vec<(Vec<u8>, Vec<u8>)> = entries
                    .iter()
                    .map(|(k, v)| {
                        let (mut a, mut b) = (Vec::new(), Vec::new());
                        k.enc(&mut a);
                        v.enc(&mut b);
                        (a, b)
                    })
                    .collect();
                enc.sort();
                enc.dedup_by(|a, b| a.0 == b.0);
                head(out, 5, enc.len() as u64);
                for (k, v) in enc {
                    out.extend(k);
                    out.extend(v);
                }
            }
        }
    }
}

fn t(s: &str) -> C {
    C::T(s.to_owned())
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Write the file a spec describes.
fn build(spec: &Spec) -> Vec<u8> {
    let mut file = MAGIC.to_vec();
    file.resize(ALIGN as usize, 0);
    let shard_names: Vec<String> = spec.shards.iter().take(3).map(|(n, _)| format!("s{}", n % 4)).collect();
    let mut objects = Vec::new();
    let mut last_blob = None;
    for o in spec.objects.iter().take(8) {
        let mut parts = Vec::new();
        let dims: Vec<u64> = o.shape.iter().take(4).map(|&d| d as u64 % 9).collect();
        for p in o.parts.iter().take(4) {
            let dtype = DTYPES[p.dtype as usize % if p.fit { 12 } else { DTYPES.len() }];
            let width = [4, 2, 2, 8, 1, 1, 2, 2, 4, 4, 8, 8, 1, 1][p.dtype as usize % DTYPES.len()];
            let len = if p.fit { dims.iter().product::<u64>() * width } else { p.len as u64 };
            let bytes = vec![p.fill; len as usize];
            let (mut offset, len) = (file.len() as u64, bytes.len() as u64);
            match (p.placement % 8, last_blob) {
                // The previous blob again: tying when the lengths agree, else a partial overlap.
                (0, Some((off, _))) => offset = off,
                (1, _) => offset += 8, // misaligned
                _ => {
                    file.extend(&bytes);
                    let pad = (ALIGN - file.len() as u64 % ALIGN) % ALIGN;
                    file.resize(file.len() + pad as usize, 0);
                }
            }
            last_blob = Some((offset, len));
            let mut m = vec![(t("dtype"), t(dtype)), (t("blob"), C::A(vec![C::U(offset), C::U(len)]))];
            if let (Some(ty), false) = (p.ty, p.fit) {
                m.push((t("type"), t(TYPES[ty as usize % TYPES.len()])));
            }
            if let Some(e) = p.encoding {
                m.push((t("encoding"), t(ENCODINGS[e as usize % ENCODINGS.len()])));
                m.push((t("decoded_length"), C::U(e as u64 * 4)));
            }
            let digest = match p.digest % 5 {
                1 => Some(format!("xxh3:{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes))),
                2 => Some(format!("xxh3:{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes) ^ 1)),
                3 => {
                    use sha2::Digest as _;
                    Some(format!("sha256:{}", hex(&sha2::Sha256::digest(&bytes))))
                }
                4 => Some("blake3:00ff".to_owned()),
                _ => None,
            };
            if let Some(d) = digest {
                m.push((t("digest"), C::T(d)));
            }
            if let (Some(s), false) = (p.shard, shard_names.is_empty()) {
                m.push((t("shard"), C::T(shard_names[s as usize % shard_names.len()].clone())));
            }
            let role = if p.fit { "data" } else { ROLES[p.role as usize % ROLES.len()] };
            parts.push((t(role), C::M(m)));
        }
        let shape = dims.iter().map(|&d| C::U(d)).collect();
        let obj = C::M(vec![
            (t("shape"), C::A(shape)),
            (t("layout"), t(LAYOUTS[o.layout as usize % LAYOUTS.len()])),
            (t("parts"), C::M(parts)),
        ]);
        objects.push((t(NAMES[o.name as usize % NAMES.len()]), obj));
    }
    let mut root = vec![(t("objects"), C::M(objects))];
    if !shard_names.is_empty() {
        let table = spec
            .shards
            .iter()
            .zip(&shard_names)
            .map(|((_, size), n)| {
                let s = C::M(vec![(t("size"), C::U(*size as u64)), (t("digest"), C::T(format!("xxh3:{:016x}", size)))]);
                (C::T(n.clone()), s)
            })
            .collect();
        root.push((t("shards"), C::M(table)));
    }
    if let Some((k, v)) = spec.attributes {
        root.push((t("attributes"), C::M(vec![(t(NAMES[k as usize % NAMES.len()]), C::N(v as i64))])));
    }
    let mut manifest = Vec::new();
    C::M(root).enc(&mut manifest);
    let offset = file.len() as u64;
    file.extend(&manifest);
    footer(&mut file, offset, manifest.len() as u64);
    file
}

/// Append the 40-byte footer of a manifest at `offset`.
fn footer(file: &mut Vec<u8>, offset: u64, len: u64) {
    let hash = xxhash_rust::xxh3::xxh3_64(&file[offset as usize..(offset + len) as usize]);
    file.extend(offset.to_le_bytes());
    file.extend(len.to_le_bytes());
    file.extend(hash.to_le_bytes());
    file.extend(2u32.to_le_bytes());
    file.extend(0u32.to_le_bytes());
    file.extend(MAGIC);
}

/// Flip bytes; with `rehash`, recompute the manifest hash the footer holds.
fn mutate(file: &mut [u8], flips: &[(u16, u8)], rehash: bool) {
    for &(at, x) in flips.iter().take(4) {
        let n = file.len();
        file[at as usize % n] ^= x;
    }
    let n = file.len();
    if rehash && n >= 48 {
        let le = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap());
        let (off, len) = (le(&file[n - 40..n - 32]), le(&file[n - 32..n - 24]));
        if let Some(m) = off.checked_add(len).filter(|&e| e <= (n - 40) as u64).map(|e| &file[off as usize..e as usize]) {
            let h = xxhash_rust::xxh3::xxh3_64(m);
            file[n - 24..n - 16].copy_from_slice(&h.to_le_bytes());
        }
    }
}

/// Whether `data` has the v2 magic at either end: the v1.x targets hand
/// such inputs to [`v2_open`] (their invariants are v1.x's).
pub fn is_v2(data: &[u8]) -> bool {
    data.starts_with(&MAGIC) || data.ends_with(&MAGIC)
}

/// The file an input describes, before its mutations (`None`: not enough bytes).
pub fn v2_file(data: &[u8]) -> Option<Vec<u8>> {
    Spec::arbitrary(&mut Unstructured::new(data)).ok().map(|s| build(&s))
}

/// The fuzz target: build (or take) a v2 file, then open and walk it.
pub fn v2_open(data: &[u8]) {
    if is_v2(data) {
        v2_check(data);
        return;
    }
    let Ok(spec) = Spec::arbitrary(&mut Unstructured::new(data)) else { return };
    let mut file = build(&spec);
    let clean = spec.flips.is_empty();
    mutate(&mut file, &spec.flips, spec.rehash);
    let opened = v2_check(&file);
    if clean && !opened {
        // Without mutation, only the spec's own choices can break a rule.
        let e = File::parse(&file).unwrap_err();
        assert!(!matches!(e.kind(), ErrorKind::ManifestHashMismatch | ErrorKind::NotDeterministic { .. }), "{e}");
    }
}

/// Open `data` every way and walk what opens; returns whether it opened.
fn v2_check(data: &[u8]) -> bool {
    let parsed = File::parse(data);
    let mut scratch = vec![[0u64; 2]; 4096];
    match (&parsed, File::parse_with_scratch(data, &mut scratch)) {
        (Ok(_), Ok(_)) => {}
        (_, Err(e)) if matches!(e.kind(), ErrorKind::ScratchTooSmall { .. }) => {}
        (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "parse vs parse_with_scratch: {a} / {b}"),
        (a, b) => panic!("parse {:?} vs parse_with_scratch {:?}", a.as_ref().err(), b.err()),
    }
    let direct = ztensor::v2::Manifest::parse(data);
    if data.starts_with(&MAGIC) {
        assert_eq!(parsed.is_ok(), direct.is_ok(), "File::parse vs v2::Manifest::parse: {:?}", parsed.as_ref().err());
    }
    if let (Ok(tail), true) = (Tail::from_file(data), data.len() >= 40) {
        let m = &data[tail.manifest_offset as usize..(tail.manifest_offset + tail.manifest_len) as usize];
        let t = File::parse_tail(&data[data.len() - 40..], m, data.len() as u64);
        match (&parsed, &t) {
            (Ok(a), Ok(b)) => assert!(a.names().eq(b.names())),
            (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "parse vs parse_tail: {a} / {b}"),
            (a, b) => panic!("parse {:?} vs parse_tail {:?}", a.as_ref().err(), b.as_ref().err()),
        }
    }
    let Ok(f) = parsed else { return false };
    let _ = format!("{f:?}");
    super::cbor::walk_map(f.attributes(), 1);
    let _ = f.content_digest();
    for (i, o) in f.objects().enumerate() {
        assert_eq!(f.get(o.name()).map(|x| x.index()), Some(i));
        assert_eq!(o.shape().dims().count(), o.shape().ndim());
        super::cbor::walk_map(o.attributes(), 1);
        super::cbor::walk_map(o.fields(), 1);
        for c in o.components() {
            assert!(c.digest_covers_decoded());
            assert_eq!(o.require(c.role()).map(|x| x.offset()).ok(), Some(c.offset()));
            super::cbor::walk_map(c.fields(), 1);
            let _ = (c.encoding_id(), c.shard(), c.logical_type(), c.decoded_len(), c.v2_part());
            let v = c.to_vec_with_limit(super::DECODE_LIMIT);
            let stored = c.stored_bytes();
            match (&v, &stored) {
                (Ok(v), Ok(s)) if c.encoding() == Encoding::Raw => assert_eq!(&v[..], *s),
                (Ok(_), _) => assert!(c.is_decodable()),
                _ => {}
            }
            if c.shard().is_some() {
                assert!(stored.is_err());
            }
            let mut buf = vec![0u8; 4096];
            if let (Ok(n), Ok(v)) = (c.read_into(&mut buf), &v) {
                assert_eq!(&buf[..n], &v[..]);
            }
            let _ = c.as_slice::<u8>();
        }
    }
    let r = f.verify_with(Options::ALL, |_| {});
    assert_eq!(r.objects, f.len());
    true
}
