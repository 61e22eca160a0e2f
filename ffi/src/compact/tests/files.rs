//! Files built for the differential tests: v1.x files by hand (CBOR
//! written here, item by item, so that they can break rules a writer
//! refuses to) and a rich valid one from the core's writer.

use ztensor_core::write::Data;

use ztensor_core::write::v1_2::{Checksum, Compression, NewObject, Writer};
use ztensor_core::DType;

/// A CBOR item.
#[derive(Clone)]
pub enum V {
    U(u64),
    /// `-1 - n`.
    N(u64),
    T(String),
    B(Vec<u8>),
    A(Vec<V>),
    M(Vec<(V, V)>),
    F(f64),
    Bool(bool),
    Null,
    /// Already encoded bytes.
    Raw(Vec<u8>),
}

pub fn t(s: &str) -> V {
    V::T(s.to_string())
}

/// A map with text keys.
pub fn m(entries: &[(&str, V)]) -> V {
    V::M(entries.iter().map(|(k, v)| (t(k), v.clone())).collect())
}

fn head(out: &mut Vec<u8>, major: u8, n: u64) {
    let mt = major << 5;
    match n {
        0..=23 => out.push(mt | n as u8),
        24..=0xff => out.extend([mt | 24, n as u8]),
        0x100..=0xffff => {
            out.push(mt | 25);
            out.extend((n as u16).to_be_bytes());
        }
        0x1_0000..=0xffff_ffff => {
            out.push(mt | 26);
            out.extend((n as u32).to_be_bytes());
        }
        _ => {
            out.push(mt | 27);
            out.extend(n.to_be_bytes());
        }
    }
}

pub fn enc(v: &V, out: &mut Vec<u8>) {
    match v {
        V::U(n) => head(out, 0, *n),
        V::N(n) => head(out, 1, *n),
        V::B(b) => {
            head(out, 2, b.len() as u64);
            out.extend(b);
        }
        V::T(s) => {
            head(out, 3, s.len() as u64);
            out.extend(s.as_bytes());
        }
        V::A(items) => {
            head(out, 4, items.len() as u64);
            items.iter().for_each(|i| enc(i, out));
        }
        V::M(entries) => {
            head(out, 5, entries.len() as u64);
            for (k, v) in entries {
                enc(k, out);
                enc(v, out);
            }
        }
        V::F(f) => {
            out.push(0xfb);
            out.extend(f.to_be_bytes());
        }
        V::Bool(b) => out.push(if *b { 0xf5 } else { 0xf4 }),
        V::Null => out.push(0xf6),
        V::Raw(b) => out.extend(b),
    }
}

/// The data region of a v1.x file under construction.
pub struct Blobs(Vec<u8>);

impl Blobs {
    pub fn new() -> Self {
        Blobs(vec![0; 8])
    }

    /// `bytes` at the next multiple of 64; returns the offset.
    pub fn add(&mut self, bytes: &[u8]) -> u64 {
        self.0.resize(self.0.len().next_multiple_of(64), 0);
        let at = self.0.len() as u64;
        self.0.extend_from_slice(bytes);
        at
    }

    /// `ZTEN1000`, the blobs, the manifest, its size, `ZTEN1000`.
    pub fn file(&self, manifest: &V) -> Vec<u8> {
        let mut cbor = Vec::new();
        enc(manifest, &mut cbor);
        let mut f = b"ZTEN1000".to_vec();
        f.extend_from_slice(&self.0[8..]);
        f.extend_from_slice(&cbor);
        f.extend((cbor.len() as u64).to_le_bytes());
        f.extend_from_slice(b"ZTEN1000");
        f
    }
}

/// A raw component map.
pub fn comp(dtype: &str, offset: u64, length: u64, extra: &[(&str, V)]) -> V {
    let mut e = vec![("dtype", t(dtype)), ("offset", V::U(offset)), ("length", V::U(length)), ("encoding", t("raw"))];
    e.extend(extra.iter().cloned());
    m(&e)
}

/// An object map.
pub fn obj(format: &str, shape: &[u64], components: Vec<(&str, V)>, attributes: Option<V>) -> V {
    let mut e = vec![
        ("shape", V::A(shape.iter().map(|&d| V::U(d)).collect())),
        ("format", t(format)),
        ("components", m(&components)),
    ];
    if let Some(a) = attributes {
        e.push(("attributes", a));
    }
    m(&e)
}

/// A root map (objects in the order given, duplicates kept).
pub fn root(version: &str, objects: Vec<(&str, V)>, attributes: Option<V>) -> V {
    let mut e = vec![("version", t(version)), ("objects", V::M(objects.into_iter().map(|(k, v)| (t(k), v)).collect()))];
    if let Some(a) = attributes {
        e.push(("attributes", a));
    }
    m(&e)
}

fn u64s(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// One dense `u8` object per name, in the order given.
fn dense_u8s(names: &[&str]) -> Vec<u8> {
    let mut b = Blobs::new();
    let objects = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let at = b.add(&[i as u8 + 1]);
            (*n, obj("dense", &[1], vec![("data", comp("u8", at, 1, &[]))], None))
        })
        .collect();
    b.file(&root("1.2.0", objects, None))
}

/// A single zstd frame of one raw block holding `content` (< 256 bytes),
/// with its size declared.
fn zstd_frame(content: &[u8]) -> Vec<u8> {
    assert!(content.len() < 256);
    let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0x20, content.len() as u8];
    let block = ((content.len() as u32) << 3) | 1; // last block, raw
    f.extend(&block.to_le_bytes()[..3]);
    f.extend_from_slice(content);
    f
}

/// Files by hand, named: each takes a rule of the format (or its edge).
pub fn by_hand() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    let mut add = |name: &str, bytes: Vec<u8>| out.push((name.to_string(), bytes));

    add("names in order", dense_u8s(&["a", "b", "c"]));
    add("names out of order", dense_u8s(&["c", "a", "b"]));
    add("duplicate names out of order", dense_u8s(&["b", "a", "b"]));
    add("duplicate names in a row", dense_u8s(&["a", "a"]));
    let many: Vec<String> = (0..40).rev().map(|i| format!("t{i:02}")).collect();
    add("many names out of order", dense_u8s(&many.iter().map(String::as_str).collect::<Vec<_>>()));

    // Blobs: out of file order, tied (identical ranges), partly overlapping.
    for (name, second) in [("blobs out of order", 64u64), ("tied blobs", 128), ("overlapping blobs", 160)] {
        let mut b = Blobs::new();
        let a = b.add(&[7u8; 64]);
        let c = b.add(&[9u8; 64]);
        assert_eq!((a, c), (64, 128));
        let objects = vec![
            ("x", obj("dense", &[64], vec![("data", comp("u8", c, 64, &[]))], None)),
            ("y", obj("dense", &[64], vec![("data", comp("u8", second, 64, &[]))], None)),
        ];
        add(name, b.file(&root("1.2.0", objects, None)));
    }

    // Digests: good, bad, malformed, unknown algorithm.
    {
        let mut b = Blobs::new();
        let data = [1u8, 2, 3, 4];
        let crc = format!("crc32c:0x{:08x}", ztensor_core::digest::crc32c(&data));
        let mut objects = Vec::new();
        for (n, d) in [
            ("good", crc.clone()),
            ("bad", "crc32c:0x00000000".to_string()),
            ("bad_sha", format!("sha256:{}", "0".repeat(64))),
            ("malformed", "sha256:zz".to_string()),
            ("unknown", "md5:00".to_string()),
            ("upper", crc.to_uppercase().replace("CRC32C:0X", "crc32c:0x")),
        ] {
            let at = b.add(&data);
            objects.push((n, obj("dense", &[4], vec![("data", comp("u8", at, 4, &[("digest", V::T(d))]))], None)));
        }
        add("digests", b.file(&root("1.2.0", objects, None)));
    }

    // Sparse objects: a good CSR, bad column index, decreasing indptr (and
    // one that still ends at nnz), indptr not starting at 0 or not ending
    // at nnz, a COO coordinate out of range, and (v1.1, signed indices
    // allowed) a negative index.
    for (name, indices, indptr, coords, version, index_dtype) in [
        ("sparse good", vec![0u64, 2], vec![0u64, 1, 2], vec![0u64, 1, 1, 0], "1.2.0", "u64"),
        ("sparse bad column", vec![0, 3], vec![0, 1, 2], vec![0, 1, 1, 0], "1.2.0", "u64"),
        ("sparse decreasing indptr", vec![0, 1], vec![0, 2, 1], vec![0, 1, 1, 0], "1.2.0", "u64"),
        ("sparse indptr falls back", vec![0, 1], vec![0, 3, 2], vec![0, 1, 1, 0], "1.2.0", "u64"),
        ("sparse indptr start", vec![0, 1], vec![1, 1, 2], vec![0, 1, 1, 0], "1.2.0", "u64"),
        ("sparse indptr end", vec![0, 1], vec![0, 1, 1], vec![0, 1, 1, 0], "1.2.0", "u64"),
        ("sparse bad coordinate", vec![0, 1], vec![0, 1, 2], vec![0, 2, 1, 0], "1.2.0", "u64"),
        ("sparse negative index", vec![0, u64::MAX], vec![0, 1, 2], vec![0, 1, 1, 0], "1.1.0", "i64"),
    ] {
        let mut b = Blobs::new();
        let v = b.add(&[1, 0, 0, 0, 2, 0, 0, 0]);
        let i = b.add(&u64s(&indices));
        let p = b.add(&u64s(&indptr));
        let cv = b.add(&[3, 4]);
        let cc = b.add(&u64s(&coords));
        let objects = vec![
            (
                "csr",
                obj(
                    "sparse_csr",
                    &[2, 3],
                    vec![
                        ("values", comp("f32", v, 8, &[])),
                        ("indices", comp(index_dtype, i, 16, &[])),
                        ("indptr", comp(index_dtype, p, 24, &[])),
                    ],
                    None,
                ),
            ),
            (
                "coo",
                obj("sparse_coo", &[2, 2], vec![("values", comp("u8", cv, 2, &[])), ("coords", comp(index_dtype, cc, 32, &[]))], None),
            ),
        ];
        add(name, b.file(&root(version, objects, None)));
    }

    // Attribute maps of many keys (unsorted; sorting them needs a slot
    // each), on the file and an object, of every value kind; one with a
    // key twice.
    for dup in [false, true] {
        let mut attrs: Vec<(V, V)> = (0..40u64).rev().map(|i| (V::T(format!("k{i:02}")), V::U(i * 1000))).collect();
        attrs.extend([
            (t("neg"), V::N(41)),
            (t("float"), V::F(-2.5)),
            (t("yes"), V::Bool(true)),
            (t("nothing"), V::Null),
            (t("text"), t("héllo")),
            (t("bytes"), V::B(vec![0, 1, 2])),
            (t("list"), V::A(vec![V::U(1), t("two")])),
            (t("map"), m(&[("a", V::U(1))])),
            (t("tagged"), V::Raw(vec![0xc1, 0x1a, 0x5f, 0x5e, 0x10, 0x00])),
            (t("chunked"), V::Raw(vec![0x7f, 0x61, b'a', 0x62, b'b', b'c', 0xff])),
            (t("half"), V::Raw(vec![0xf9, 0x3c, 0x00])),
            (t("big"), V::U(u64::MAX)),
            (t("undefined"), V::Raw(vec![0xf7])),
            (t("simple"), V::Raw(vec![0xf0])),
            (V::U(7), t("integer key")),
        ]);
        if dup {
            attrs.push((t("k07"), V::U(0)));
        }
        let mut b = Blobs::new();
        let at = b.add(&[5]);
        let o = obj("dense", &[], vec![("data", comp("u8", at, 1, &[]))], Some(V::M(attrs.clone())));
        let name = if dup { "attributes with a key twice" } else { "attributes of many keys" };
        add(name, b.file(&root("1.2.0", vec![("scalar", o)], Some(V::M(attrs)))));
    }

    // Bool data other than 0/1; a dense size mismatch; an unknown format
    // (listed, readable); a logical type.
    {
        let mut b = Blobs::new();
        let good = b.add(&[0, 1, 1]);
        let bad = b.add(&[0, 2, 1]);
        let other = b.add(&[1, 2, 3, 4]);
        let fp8 = b.add(&[0x38, 0x40]);
        let objects = vec![
            ("good", obj("dense", &[3], vec![("data", comp("bool", good, 3, &[]))], None)),
            ("bad", obj("dense", &[3], vec![("data", comp("bool", bad, 3, &[]))], None)),
            ("other", obj("my_format", &[2], vec![("payload", comp("u16", other, 4, &[("x", V::U(1))]))], None)),
            ("fp8", obj("dense", &[2], vec![("data", comp("u8", fp8, 2, &[("type", t("f8_e4m3fn"))]))], None)),
        ];
        add("bool and formats", b.file(&root("1.2.0", objects, None)));
        let mut b = Blobs::new();
        let at = b.add(&[1, 2, 3]);
        let objects = vec![("short", obj("dense", &[4], vec![("data", comp("u8", at, 3, &[]))], None))];
        add("dense length mismatch", b.file(&root("1.2.0", objects, None)));
        // A 0 after dimensions whose product overflows: no elements.
        let mut b = Blobs::new();
        let at = b.add(&[]);
        let objects = vec![("zero", obj("dense", &[1 << 40, 1 << 40, 0], vec![("data", comp("u8", at, 0, &[]))], None))];
        add("0 after huge dimensions", b.file(&root("1.2.0", objects, None)));
    }

    // zstd: a real frame (decodable by the std library, not by the compact
    // build), an implausible declared size, and v1.1 without a declared
    // size (implied by the shape for dense data, unknown elsewhere).
    {
        let content: Vec<u8> = (0..32u8).collect();
        let frame = zstd_frame(&content);
        let n = frame.len() as u64;
        let z = |len: Option<u64>| {
            let mut e = vec![("encoding", t("zstd"))];
            if let Some(l) = len {
                e.push(("uncompressed_length", V::U(l)));
            }
            e
        };
        let zcomp = |dtype: &str, at: u64, len: Option<u64>| {
            let mut c = comp(dtype, at, n, &[]);
            if let V::M(entries) = &mut c {
                entries.retain(|(k, _)| !matches!(k, V::T(s) if s == "encoding"));
                entries.extend(z(len).into_iter().map(|(k, v)| (t(k), v)));
            }
            c
        };
        for version in ["1.2.0", "1.1.0"] {
            let mut b = Blobs::new();
            let a = b.add(&frame);
            let c = b.add(&frame);
            let d = b.add(&frame);
            let declared = if version == "1.2.0" { Some(32) } else { None };
            let mut objects = vec![
                ("dense", obj("dense", &[8], vec![("data", zcomp("f32", a, declared))], None)),
                ("huge", obj("dense", &[1 << 40], vec![("data", zcomp("u8", b.add(&frame), Some(1 << 40)))], None)),
                ("other", obj("blob", &[32], vec![("payload", zcomp("u8", c, declared))], None)),
                ("wrong", obj("dense", &[4], vec![("data", zcomp("u8", d, Some(4)))], None)),
            ];
            if declared.is_none() {
                // Implied sizes of 2^63 bytes and (overflowing: unknown)
                // 2^64, by 8 and by 16 bytes per element.
                let huge = [(1 << 60, "f64", None), (1 << 61, "f32", Some("complex64")), (1 << 60, "f64", Some("complex128"))];
                for (i, (n, dtype, logical)) in huge.into_iter().enumerate() {
                    let mut c = zcomp(dtype, b.add(&frame), None);
                    if let (V::M(entries), Some(l)) = (&mut c, logical) {
                        entries.push((t("type"), t(l)));
                    }
                    objects.push((["2^63", "2^64", "2^64 by 16"][i], obj("dense", &[n], vec![("data", c)], None)));
                }
            }
            add(&format!("zstd {version}"), b.file(&root(version, objects, None)));
        }
    }

    // Edge cases of the container and the root.
    add("empty objects", Blobs::new().file(&root("1.0.0", vec![], None)));
    add("version 2 in a v1 container", Blobs::new().file(&root("2.0.0", vec![], None)));
    add("no version", Blobs::new().file(&m(&[("objects", V::M(vec![]))])));
    add("objects before version", Blobs::new().file(&m(&[("objects", V::M(vec![])), ("version", t("1.2"))])));
    add("unknown root field", Blobs::new().file(&m(&[("version", t("1.2.0")), ("objects", V::M(vec![])), ("x", V::A(vec![]))])));
    add("truncated", dense_u8s(&["a"])[..30].to_vec());
    add("nothing", Vec::new());
    out.push(("writer".to_string(), written()));
    out
}

/// A valid v1.2 file from the core's writer: dtypes, zstd, digests,
/// sparse and quantized objects, attributes.
fn written() -> Vec<u8> {
    let mut w = Writer::new(Vec::new());
    w.set_attribute("framework", "compact-tests").unwrap();
    w.set_attribute("layers", 3u64).unwrap();
    let floats: Vec<f32> = (0..64).map(|i| i as f32 * 0.25).collect();
    let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    for (i, (dtype, compression, checksum)) in [
        (DType::F32, Compression::Raw, Checksum::Sha256),
        (DType::F32, Compression::Zstd(3), Checksum::Crc32c),
        (DType::I16, Compression::Raw, Checksum::Crc32c),
        (DType::U8, Compression::Zstd(1), Checksum::Sha256),
        (DType::F64, Compression::Raw, Checksum::None),
        (DType::BF16, Compression::Zstd(3), Checksum::None),
    ]
    .into_iter()
    .enumerate()
    {
        let n = 256 / dtype.width() as usize;
        let o = NewObject::dense(format!("w{}", 9 - i), &[n as u64], dtype, Data::owned(bytes[..256].to_vec()))
            .compression(compression)
            .checksum(checksum)
            .attribute("index", i as u64);
        w.add(o).unwrap();
    }
    w.add(NewObject::sparse_csr_slices("csr", [2, 3], &[1.0f32, 2.0], &[0u64, 2], &[0u64, 1, 2]).checksum(Checksum::Sha256))
        .unwrap();
    w.add(NewObject::sparse_coo_slices("coo", &[4, 4], &[7i32, 8, 9], &[0u64, 1, 3, 3, 2, 0])).unwrap();
    w.add(
        NewObject::quantized_group(
            "q",
            &[4, 32],
            (DType::U8, Data::owned(vec![0x21; 64])),
            (DType::F16, Data::owned(vec![0; 8])),
            (DType::U8, Data::owned(vec![8; 4])),
            4,
            32,
            "u8_low_first",
        )
        .compression(Compression::Zstd(3)),
    )
    .unwrap();
    w.add(NewObject::dense("scalar", &[], DType::I64, Data::owned((-5i64).to_le_bytes().to_vec()))).unwrap();
    w.add(NewObject::dense("empty", &[0, 3], DType::U32, Data::owned(Vec::new()))).unwrap();
    w.finish().unwrap()
}
