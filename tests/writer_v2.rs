#![cfg(feature = "std")]
//! The v2 writer against upstream (PyPI `ztensor` 2.1.2):
//!
//! - byte identity: the same tensors fed to upstream's `ztensor.Writer(path)`
//!   (its `add` for dense objects, `add_object` otherwise) and to our
//!   canonical [`Writer`] give the same file, byte for byte;
//! - upstream's reader opens every kind of file we write (canonical, 4 KiB,
//!   zstd-seekable, sha256 and no digests, every layout profile) and reads
//!   every part bit-identically, and `ztensor.verify(path, deep=True)` passes;
//! - round trips through our own v2 reader (`ztensor::v2`).
//!
//! The interpreter is `$ZT_REFERENCE_V2_PYTHON`, else `python3`; it must
//! import `ztensor` 2.1.2. If it cannot, these tests FAIL: they never pass
//! without having run the reference (`/work/venv-212/bin/python` here).

use serde_json::{json, Value as Json};
use sha2::{Digest as _, Sha256};
use std::path::{Path, PathBuf};
use ztensor::v2::types::DType;
use ztensor::v2::Manifest;
use ztensor::write::v2::{DigestAlg, Encoding, NewObject, NewPart, Options, Writer};
use ztensor::write::AttrValue;

#[path = "common/reference_v2.rs"]
mod reference_v2;
use reference_v2::{python, run_python, REFERENCE_VERSION};



fn require_reference() {
    let v = run_python(
        "import importlib.metadata as m, sys\n\
         try:\n    import ztensor\n\
         except Exception as e:\n    print('IMPORT-FAILED', repr(e)); sys.exit(0)\n\
         print(m.version('ztensor'))",
        &[],
    );
    assert!(
        v.trim() == REFERENCE_VERSION,
        "\n\nREFERENCE NOT AVAILABLE: `{}` gives {:?}, expected ztensor {REFERENCE_VERSION}.\n\
         Set ZT_REFERENCE_V2_PYTHON to a Python with `pip install ztensor=={REFERENCE_VERSION} numpy`.\n\n",
        python(),
        v.trim()
    );
}

/// Deterministic bytes (xorshift64*).
fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            (s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
        })
        .collect()
}

fn le<T: Copy, const N: usize>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    v.iter().flat_map(|&x| f(x)).collect()
}

/// A part: name, dtype, logical type, bytes.
#[derive(Clone)]
struct Part {
    name: &'static str,
    dtype: DType,
    logical: Option<&'static str>,
    data: Vec<u8>,
}

fn part(name: &'static str, dtype: DType, data: Vec<u8>) -> Part {
    Part { name, dtype, logical: None, data }
}

/// Attributes in both languages: the Python literal upstream gets, and ours.
#[derive(Clone)]
struct Attrs {
    py: &'static str,
    ours: Vec<(&'static str, AttrValue)>,
}

#[derive(Clone)]
struct Obj {
    name: String,
    shape: Vec<u64>,
    layout: &'static str,
    attrs: Option<Attrs>,
    parts: Vec<Part>,
    /// Our encoding of every part (upstream's files are written raw or, where
    /// upstream is given one, with the same encoding).
    encoding: Encoding,
}

fn dense(name: &str, shape: &[u64], dtype: DType, data: Vec<u8>) -> Obj {
    Obj { name: name.into(), shape: shape.to_vec(), layout: "dense", attrs: None, parts: vec![part("data", dtype, data)], encoding: Encoding::Raw }
}

fn with_type(mut o: Obj, t: &'static str) -> Obj {
    o.parts[0].logical = Some(t);
    o
}

/// The tensors of the issue's byte-identity list: f32, f16, bf16, i64, i8,
/// bool, an empty tensor, a scalar and two identical tensors.
fn issue_tensors() -> Vec<Obj> {
    let tied = le(&[0.25f32, -1.0, 3.5, 1e-3, 7.0, -0.0, 2.0, 9.5], f32::to_le_bytes);
    vec![
        dense("bf16", &[3, 5], DType::BF16, bytes(1, 30)),
        with_type(dense("bool", &[7], DType::U8, vec![0, 1, 1, 0, 1, 0, 0]), "bool"),
        dense("empty", &[0, 4], DType::F32, vec![]),
        dense("f16", &[4, 4], DType::F16, bytes(2, 32)),
        dense("f32", &[2, 3], DType::F32, le(&[1.5f32, -2.0, f32::INFINITY, 0.1, f32::MIN_POSITIVE, 3.0], f32::to_le_bytes)),
        dense("i64", &[5], DType::I64, le(&[i64::MIN, -1, 0, 1, i64::MAX], i64::to_le_bytes)),
        dense("i8", &[9], DType::I8, bytes(3, 9)),
        dense("scalar", &[], DType::F32, 1.5f32.to_le_bytes().to_vec()),
        dense("tied.a", &[2, 4], DType::F32, tied.clone()),
        dense("tied.b", &[2, 4], DType::F32, tied),
    ]
}

fn u32s(v: &[u32]) -> Vec<u8> {
    le(v, u32::to_le_bytes)
}
fn u64s(v: &[u64]) -> Vec<u8> {
    le(v, u64::to_le_bytes)
}

/// One object of each registered layout profile.
fn layout_objects() -> Vec<Obj> {
    let obj = |name: &str, shape: &[u64], layout, attrs, parts| Obj {
        name: name.into(),
        shape: shape.to_vec(),
        layout,
        attrs,
        parts,
        encoding: Encoding::Raw,
    };
    let mut scales = part("scales", DType::U8, bytes(10, 4));
    scales.logical = Some("f8_e8m0");
    let mut mxdata = part("data", DType::U8, bytes(11, 64));
    mxdata.logical = Some("f4_e2m1");
    let mut coo_values = part("values", DType::U8, vec![1, 0, 1]);
    coo_values.logical = Some("bool");
    vec![
        obj(
            "coo",
            &[5, 2, 3],
            "zt.sparse_coo/1",
            None,
            vec![part("coords", DType::U64, u64s(&[1, 0, 4, 0, 0, 1, 2, 1, 0])), coo_values],
        ),
        obj(
            "csr",
            &[4, 6],
            "zt.sparse_csr/1",
            None,
            vec![
                part("indices", DType::U32, u32s(&[0, 5, 1, 2, 4, 3])),
                part("indptr", DType::U32, u32s(&[0, 2, 2, 5, 6])),
                part("values", DType::F32, bytes(12, 24)),
            ],
        ),
        obj(
            "gguf",
            &[2, 64],
            "gguf.q8_0/1",
            Some(Attrs { py: "{'elems_per_block': 32, 'block_bytes': 34}", ours: vec![("elems_per_block", 32.into()), ("block_bytes", 34.into())] }),
            vec![part("data", DType::U8, bytes(13, 4 * 34))],
        ),
        obj(
            "mx",
            &[2, 64],
            "zt.mx/1",
            Some(Attrs {
                py: "{'block_size': 32, 'scale_form': 'e8m0_exponent'}",
                ours: vec![("block_size", 32.into()), ("scale_form", "e8m0_exponent".into())],
            }),
            vec![mxdata, scales],
        ),
        obj(
            "quant",
            &[256, 8],
            "zt.quant_group/1",
            Some(Attrs {
                py: "{'bits': 4, 'group_size': 128, 'axis': 0, \
                     'packing': {'word': 'u32', 'order': 'lsb_first', 'per_word': 8}, \
                     'scale_form': 'f16_factors', 'zero_point': {'form': 'tensor', 'packing': 'same_as_data'}}",
                ours: vec![
                    ("bits", 4.into()),
                    ("group_size", 128.into()),
                    ("axis", 0.into()),
                    ("packing", AttrValue::map([("word", "u32".into()), ("order", "lsb_first".into()), ("per_word", 8.into())])),
                    ("scale_form", "f16_factors".into()),
                    ("zero_point", AttrValue::map([("form", "tensor".into()), ("packing", "same_as_data".into())])),
                ],
            }),
            vec![part("data", DType::U32, bytes(14, 1024)), part("scales", DType::F16, bytes(15, 32)), part("zeros", DType::U32, bytes(16, 8))],
        ),
    ]
}

fn file_attrs() -> Attrs {
    Attrs {
        py: "{'int': -7, 'big': 2**40, 'neg': -2**40, 'float': 0.1, 'half': 1.5, 'single': 0.15625e-3, 'nan': float('nan'), \
             'inf': float('-inf'), 'none': None, 'yes': True, 'no': False, 'list': [1, 'two', [True, False]], \
             'map': {'k': 'v', 'aa': 1, 'b': 2}, 'text': '\\u00fc'}",
        ours: vec![
            ("int", (-7).into()),
            ("big", (1u64 << 40).into()),
            ("neg", (-(1i64 << 40)).into()),
            ("float", 0.1f64.into()),
            ("half", 1.5f64.into()),
            ("single", 0.15625e-3f64.into()),
            ("nan", f64::NAN.into()),
            ("inf", f64::NEG_INFINITY.into()),
            ("none", AttrValue::Null),
            ("yes", true.into()),
            ("no", false.into()),
            ("list", vec![AttrValue::from(1), "two".into(), vec![AttrValue::from(true), false.into()].into()].into()),
            ("map", AttrValue::map([("k", "v".into()), ("aa", 1.into()), ("b", 2.into())])),
            ("text", "\u{fc}".into()),
        ],
    }
}

/// A file to write: its objects, file attributes and options.
struct Case {
    file: String,
    objects: Vec<Obj>,
    attrs: Option<Attrs>,
    opts: Options,
}

fn case(file: &str, mut objects: Vec<Obj>, attrs: Option<Attrs>, opts: Options) -> Case {
    if opts.is_canonical() {
        // Canonical form takes objects in ascending bytewise name order.
        objects.sort_by(|a, b| a.name.cmp(&b.name));
    }
    Case { file: file.into(), objects, attrs, opts }
}

fn write_ours(c: &Case, path: &Path) {
    let mut w = Writer::create_with(path, c.opts).unwrap();
    if let Some(a) = &c.attrs {
        for (k, v) in &a.ours {
            w.set_attribute(k, v.clone()).unwrap();
        }
    }
    for o in &c.objects {
        let mut n = NewObject::new(o.name.clone(), &o.shape, o.layout);
        for (k, v) in o.attrs.iter().flat_map(|a| a.ours.iter()) {
            n = n.attribute(*k, v.clone());
        }
        for p in &o.parts {
            let mut np = NewPart::new(p.name, p.dtype, &p.data[..]).encoding(o.encoding);
            if let Some(t) = p.logical {
                np = np.logical(t);
            }
            n = n.part(np);
        }
        w.add(n).unwrap_or_else(|e| panic!("{}: {e}", c.file));
    }
    w.finish().unwrap();
}

/// The cases as JSON for the upstream writer script.
fn spec(cases: &[Case], dir: &Path) -> Json {
    Json::Array(
        cases
            .iter()
            .map(|c| {
                json!({
                    "path": dir.join(&c.file),
                    "canonical": c.opts.is_canonical(),
                    "attrs": c.attrs.as_ref().map(|a| a.py),
                    "objects": c.objects.iter().map(|o| json!({
                        "name": o.name,
                        "shape": o.shape,
                        "layout": o.layout,
                        "attrs": o.attrs.as_ref().map(|a| a.py),
                        "encoding": match o.encoding { Encoding::Raw => Json::Null, _ => "zt.zstd-seekable/1".into() },
                        "parts": o.parts.iter().map(|p| json!({
                            "name": p.name, "dtype": p.dtype.name(), "logical": p.logical, "hex": hex::encode(&p.data),
                        })).collect::<Vec<_>>(),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}

/// Writes every case with upstream's `ztensor.Writer`.
const UPSTREAM_WRITE: &str = r#"
import json, sys, ztensor
for f in json.load(open(sys.argv[1])):
    kw = {} if f["canonical"] else {"canonical": False, "align": 4096}
    w = ztensor.Writer(f["path"], **kw)
    if f["attrs"] is not None:
        w.set_attributes(eval(f["attrs"]))
    for o in f["objects"]:
        parts = {}
        for p in o["parts"]:
            d = {"dtype": p["dtype"], "data": bytes.fromhex(p["hex"])}
            if p["logical"]:
                d["logical"] = p["logical"]
            if o["encoding"]:
                d["encoding"] = o["encoding"]
            parts[p["name"]] = d
        attrs = eval(o["attrs"]) if o["attrs"] else None
        if o["layout"] == "dense" and attrs is None and list(parts) == ["data"]:
            d = parts["data"]
            w.add(o["name"], d["data"], o["shape"], d["dtype"], logical=d.get("logical"), encoding=d.get("encoding"))
        else:
            w.add_object(o["name"], o["shape"], parts, layout=o["layout"], attributes=attrs)
    w.finish()
"#;

/// Reads every file with upstream's reader: sha256 of every part's decoded
/// bytes, and `verify(deep=True)`.
const UPSTREAM_READ: &str = r#"
import hashlib, json, sys, ztensor
out = {}
for path in sys.argv[1:]:
    s = ztensor.open(path)
    objs = {}
    for name in s.keys():
        t = s.get(name)
        objs[name] = {"layout": t.layout, "shape": list(t.shape),
                      "parts": {p: hashlib.sha256(t[p].tobytes()).hexdigest() for p in t.parts}}
    v = ztensor.verify(path, deep=True)
    out[path] = {"objects": objs, "checked": v.checked, "undigested": v.undigested}
print(json.dumps(out))
"#;

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn canonical_cases() -> Vec<Case> {
    let c = Options::canonical();
    let mut cases = vec![
        case("issue.zt", issue_tensors(), None, c),
        case("layouts.zt", layout_objects(), None, c),
        case("attrs.zt", vec![dense("x", &[2], DType::F32, bytes(20, 8))], Some(file_attrs()), c),
        case("empty_file.zt", vec![], None, c),
        case(
            "big.zt",
            vec![
                dense("a", &[300, 100], DType::F32, bytes(21, 120_000)),
                dense("b", &[65536], DType::U8, bytes(22, 65536)),
                dense("c", &[65537], DType::I8, bytes(23, 65537)),
                dense("d", &[3], DType::U16, bytes(24, 6)),
                dense("e", &[65536], DType::U8, bytes(22, 65536)),
            ],
            None,
            c,
        ),
        // Bytewise name order ("aa" < "b") differs from encoded-key order ("b" < "aa"); NFC "é".
        case(
            "names.zt",
            vec![
                dense("b", &[1], DType::U8, vec![1]),
                dense("aa", &[1], DType::U8, vec![2]),
                dense("\u{e9}", &[1], DType::U8, vec![3]),
                dense("Z", &[1], DType::U8, vec![1]),
            ],
            None,
            c,
        ),
        // Identical parts within one object share a blob too.
        case(
            "object_attrs.zt",
            vec![Obj {
                name: "w".into(),
                shape: vec![4],
                layout: "x.custom/1",
                attrs: Some(Attrs { py: "{'origin': 'test', 'n': 3}", ours: vec![("origin", "test".into()), ("n", 3.into())] }),
                parts: vec![part("p", DType::F32, bytes(25, 16)), part("q", DType::F32, bytes(25, 16)), part("r", DType::F32, bytes(26, 16))],
                encoding: Encoding::Raw,
            }],
            None,
            c,
        ),
    ];
    // Each of the issue's tensors alone.
    for o in issue_tensors() {
        cases.push(case(&format!("one.{}.zt", o.name), vec![o], None, c));
    }
    cases
}

#[test]
fn canonical_files_are_byte_identical_to_upstream() {
    require_reference();
    let (ours, theirs) = (tmp(), tmp());
    let cases = canonical_cases();
    let spec_path = theirs.path().join("spec.json");
    std::fs::write(&spec_path, serde_json::to_vec(&spec(&cases, theirs.path())).unwrap()).unwrap();
    run_python(UPSTREAM_WRITE, &[&spec_path]);
    let mut compared = 0;
    for c in &cases {
        let (a, b) = (ours.path().join(&c.file), theirs.path().join(&c.file));
        write_ours(c, &a);
        let (a, b) = (std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
        if a != b {
            let at = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
            panic!("{}: ours ({} bytes) and upstream's ({} bytes) differ from byte {at}", c.file, a.len(), b.len());
        }
        // And our reader opens it.
        Manifest::parse(&a).unwrap_or_else(|e| panic!("{}: {e}", c.file));
        compared += 1;
    }
    assert_eq!(compared, cases.len());
    assert!(compared >= 17);
}

#[test]
fn non_canonical_4k_raw_files_are_byte_identical_to_upstream() {
    require_reference();
    let (ours, theirs) = (tmp(), tmp());
    let o = Options::non_canonical(4096);
    let cases = vec![case("issue_4k.zt", issue_tensors(), None, o), case("layouts_4k.zt", layout_objects(), Some(file_attrs()), o)];
    let spec_path = theirs.path().join("spec.json");
    std::fs::write(&spec_path, serde_json::to_vec(&spec(&cases, theirs.path())).unwrap()).unwrap();
    run_python(UPSTREAM_WRITE, &[&spec_path]);
    for c in &cases {
        let (a, b) = (ours.path().join(&c.file), theirs.path().join(&c.file));
        write_ours(c, &a);
        assert!(std::fs::read(a).unwrap() == std::fs::read(b).unwrap(), "{} differs from upstream's", c.file);
    }
}

fn sha(b: &[u8]) -> String {
    hex::encode(Sha256::digest(b))
}

/// Files of every kind we write, read back by upstream part by part.
#[test]
fn upstream_reads_every_kind_of_file_we_write() {
    require_reference();
    let dir = tmp();
    let seek = |mut objs: Vec<Obj>, frame| {
        for o in &mut objs {
            o.encoding = Encoding::ZstdSeekable { level: 3, frame };
        }
        objs
    };
    let mut big = dense("big", &[3_000_000], DType::U8, (0..3_000_000u32).map(|i| (i % 251) as u8).collect());
    big.encoding = Encoding::ZSTD_SEEKABLE;
    let nc = Options::non_canonical;
    let cases = vec![
        case("canonical.zt", issue_tensors(), Some(file_attrs()), Options::canonical()),
        case("layouts.zt", layout_objects(), None, Options::canonical()),
        case("4k.zt", issue_tensors(), None, nc(4096)),
        case("16k_sha256.zt", issue_tensors(), None, nc(16384).digest(DigestAlg::Sha256)),
        case("no_digest.zt", layout_objects(), None, nc(4096).digest(DigestAlg::None)),
        case("seekable.zt", seek(issue_tensors(), 8), None, nc(4096)),
        case("seekable_layouts.zt", seek(layout_objects(), 16), None, nc(4096).digest(DigestAlg::Sha256)),
        case("seekable_big.zt", vec![big], None, nc(4096)),
    ];
    let mut expected = serde_json::Map::new();
    let mut paths = Vec::new();
    for c in &cases {
        let path = dir.path().join(&c.file);
        write_ours(c, &path);
        // Our own reader first: every part verified (digest, data rules).
        let bytes = std::fs::read(&path).unwrap();
        let m = Manifest::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", c.file));
        let digests = c.opts.digest_alg() != DigestAlg::None;
        for o in m.objects() {
            let n = ztensor::v2::verify::object(&o, &bytes).unwrap_or_else(|e| panic!("{} {}: {e}", c.file, o.name));
            assert_eq!(n, if digests { o.num_parts() } else { 0 }, "{} {}", c.file, o.name);
        }
        let mut objs = serde_json::Map::new();
        for o in &c.objects {
            let parts: serde_json::Map<String, Json> = o.parts.iter().map(|p| (p.name.to_owned(), Json::from(sha(&p.data)))).collect();
            objs.insert(o.name.clone(), json!({"layout": o.layout, "shape": o.shape, "parts": parts}));
        }
        let n_parts: usize = c.objects.iter().map(|o| o.parts.len()).sum();
        let (checked, undigested) = if digests { (n_parts, 0) } else { (0, n_parts) };
        expected.insert(path.to_str().unwrap().to_owned(), json!({"objects": objs, "checked": checked, "undigested": undigested}));
        paths.push(path);
    }
    let args: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let got: Json = serde_json::from_str(&run_python(UPSTREAM_READ, &args)).unwrap();
    for (path, want) in &expected {
        assert_eq!(&got[path], want, "upstream's reading of {path}");
    }
}

#[test]
fn streamed_parts_round_trip_and_match_in_memory_ones() {
    // A chunked source gives the same file as the same bytes in memory
    // (no identical parts here; streamed duplicates: src/write/v2/tests.rs).
    let data = bytes(30, 200_000);
    let mut a = Writer::new(Vec::new());
    a.add(NewObject::new("s", &[200_000], "dense").part(NewPart::new("data", DType::U8, ztensor::write::Data::from_chunks(200_000, data.chunks(7777))))).unwrap();
    let mut b = Writer::new(Vec::new());
    b.add_dense("s", &[200_000], DType::U8, &data[..]).unwrap();
    let (a, b) = (a.finish().unwrap(), b.finish().unwrap());
    assert!(a == b);
    // A source shorter than declared fails the object, not the writer.
    let mut w = Writer::new(Vec::new());
    let e = w.add(NewObject::new("s", &[10], "dense").part(NewPart::new("data", DType::U8, ztensor::write::Data::from_chunks(10, [vec![1u8; 9]])))).unwrap_err();
    assert!(matches!(e.kind, ztensor::write::v2::Kind::Core(ztensor::ErrorKind::LengthMismatch { expected: 10, actual: 9 })), "{e:?}");
    w.add_dense("t", &[1], DType::U8, &[5u8][..]).unwrap();
    let bytes = w.finish().unwrap();
    let m = Manifest::parse(&bytes).unwrap();
    assert_eq!(m.len(), 1);
    assert_eq!(ztensor::v2::verify::raw_bytes(&m.object("t").unwrap().part("data").unwrap(), &bytes).unwrap(), [5]);
}

/// Appends a generation with upstream's `Writer(path, append=True, canonical=False, align=A)`.
const UPSTREAM_APPEND: &str = r#"
import sys, ztensor
path, align = sys.argv[1], int(sys.argv[2])
x = bytes.fromhex(sys.argv[3])
w = ztensor.Writer(path, append=True, canonical=False, align=align)
w.add("a", x[:8], [2], "f32")
w.add("c", x, [len(x) // 4], "f32")
w.finish()
"#;

#[test]
fn appended_generations_are_byte_identical_to_upstream_and_read_by_it() {
    require_reference();
    let dir = tmp();
    let x = bytes(40, 128);
    for align in [4096u64, 65536] {
        // The first generation: canonical, with a file attribute.
        let mut w = Writer::new(Vec::new());
        w.set_attribute("k", 1).unwrap();
        w.add_dense("b", &[32], DType::F32, &x[..]).unwrap();
        let first = w.finish().unwrap();
        let theirs = dir.path().join(format!("theirs_{align}.zt"));
        std::fs::write(&theirs, &first).unwrap();
        let a = align.to_string();
        let h = hex::encode(&x);
        run_python(UPSTREAM_APPEND, &[&theirs, Path::new(&a), Path::new(&h)]);

        let mut w = Writer::append_to_vec(first.clone(), Options::non_canonical(align)).unwrap();
        w.add_dense("a", &[2], DType::F32, &x[..8]).unwrap();
        w.add_dense("c", &[32], DType::F32, &x[..]).unwrap();
        let ours = w.finish().unwrap();
        assert!(ours.starts_with(&first), "the old generation's bytes are untouched");
        assert!(ours == std::fs::read(&theirs).unwrap(), "appended file at {align} differs from upstream's");

        // Through a file, published atomically: the same bytes.
        let path = dir.path().join(format!("ours_{align}.zt"));
        std::fs::write(&path, &first).unwrap();
        let mut w = Writer::append(&path, Options::non_canonical(align)).unwrap();
        w.add_dense("a", &[2], DType::F32, &x[..8]).unwrap();
        w.add_dense("c", &[32], DType::F32, &x[..]).unwrap();
        assert!(std::fs::read(&path).unwrap() == first, "untouched until finish");
        w.finish().unwrap();
        assert!(std::fs::read(&path).unwrap() == ours);

        let m = Manifest::parse(&ours).unwrap();
        assert_eq!(m.len(), 3);
        assert!(m.attributes().unwrap().get("k").is_some());
        let got: Json = serde_json::from_str(&run_python(UPSTREAM_READ, &[&path])).unwrap();
        let p = path.to_str().unwrap();
        assert_eq!(got[p]["objects"]["c"]["parts"]["data"], Json::from(sha(&x)));
        assert_eq!(got[p]["objects"]["a"]["parts"]["data"], Json::from(sha(&x[..8])));
        assert_eq!(got[p]["checked"], 3);
    }
    // Canonical form cannot be appended to (as upstream refuses).
    assert!(matches!(Writer::append_to_vec(Writer::new(Vec::new()).finish().unwrap(), Options::canonical()).unwrap_err().kind, ztensor::write::v2::Kind::Option(_)));
}

/// Objects that break a rule are refused with the reader's own error,
/// before any byte of them is written.
#[test]
fn every_profile_rule_is_checked_before_writing() {
    use ztensor::v2::Kind as R;
    use ztensor::write::v2::Kind;
    let obj = |layout: &'static str, shape: &[u64], parts: Vec<(&'static str, DType, Option<&'static str>, Vec<u8>)>| {
        let mut o = NewObject::new("x", shape, layout);
        for (n, d, t, b) in parts {
            let mut p = NewPart::new(n, d, b);
            if let Some(t) = t {
                p = p.logical(t);
            }
            o = o.part(p);
        }
        o
    };
    let qg = |bits: u64| {
        AttrValue::map([
            ("bits", bits.into()),
            ("group_size", 0.into()),
            ("axis", 0.into()),
            ("packing", AttrValue::map([("word", "u8".into()), ("order", "lsb_first".into()), ("per_word", (8 / bits.max(1)).into())])),
            ("scale_form", "f32_factors".into()),
            ("zero_point", AttrValue::map([("form", "none".into())])),
        ])
    };
    let with = |o: NewObject<'static>, a: AttrValue| match a {
        AttrValue::Map(entries) => entries.into_iter().fold(o, |o, (k, v)| match k {
            AttrValue::Text(k) => o.attribute(k, v),
            _ => unreachable!(),
        }),
        _ => unreachable!(),
    };
    let cases = || -> Vec<(NewObject<'static>, R)> { vec![
        (obj("dense", &[2], vec![("data", DType::F32, None, vec![0; 4])]), R::SizeMismatch),
        (obj("dense", &[2], vec![("data", DType::U8, Some("complex64"), vec![0; 16])]), R::TypeDtypeMismatch),
        (obj("dense", &[2], vec![("values", DType::U8, None, vec![0; 2])]), R::LayoutParts),
        (obj("dense", &[1; 65], vec![("data", DType::U8, None, vec![0])]), R::RankTooLarge),
        (obj("dense", &[1], vec![("", DType::U8, None, vec![0])]), R::BadName),
        (
            obj("zt.sparse_csr/1", &[2, 2, 1], vec![("indices", DType::U32, None, vec![]), ("indptr", DType::U32, None, vec![0; 12]), ("values", DType::F32, None, vec![])]),
            R::LayoutRank,
        ),
        (
            obj("zt.sparse_csr/1", &[2, 2], vec![("indices", DType::U32, None, vec![]), ("indptr", DType::U32, None, vec![0; 8]), ("values", DType::F32, None, vec![])]),
            R::SizeMismatch,
        ),
        (
            obj("zt.sparse_csr/1", &[2, 2], vec![("indices", DType::U16, None, vec![]), ("indptr", DType::U16, None, vec![0; 6]), ("values", DType::F32, None, vec![])]),
            R::LayoutPartType,
        ),
        (obj("zt.sparse_coo/1", &[], vec![("coords", DType::U32, None, vec![]), ("values", DType::F32, None, vec![])]), R::LayoutRank),
        (obj("zt.sparse_coo/1", &[3], vec![("coords", DType::U32, None, vec![0; 4])]), R::LayoutParts),
        (with(obj("zt.quant_group/1", &[8], vec![("data", DType::U8, None, vec![0; 8]), ("scales", DType::F32, None, vec![0; 32])]), qg(7)), R::LayoutAttribute),
        (with(obj("zt.quant_group/1", &[8], vec![("data", DType::U8, None, vec![0; 3]), ("scales", DType::F32, None, vec![0; 32])]), qg(4)), R::SizeMismatch),
        (
            with(
                obj("zt.mx/1", &[32], vec![("data", DType::U8, Some("f4_e2m1"), vec![0; 16]), ("scales", DType::U8, Some("f8_e8m0"), vec![0])]),
                AttrValue::map([("block_size", 32.into()), ("scale_form", "f32".into())]),
            ),
            R::LayoutAttribute,
        ),
        (
            with(
                obj("zt.mx/1", &[32], vec![("data", DType::U8, Some("f4_e2m1"), vec![0; 16]), ("scales", DType::U8, None, vec![0])]),
                AttrValue::map([("block_size", 32.into()), ("scale_form", "e8m0_exponent".into())]),
            ),
            R::LayoutPartType,
        ),
        (
            with(obj("gguf.q8_0/1", &[32], vec![("data", DType::U8, None, vec![0; 34])]), AttrValue::map([("elems_per_block", 32.into()), ("block_bytes", 0.into())])),
            R::LayoutAttribute,
        ),
        (obj("gguf.q8_0/1", &[32], vec![("data", DType::U8, None, vec![0; 34])]), R::LayoutAttribute),
    ] };
    for opts in [Options::canonical(), Options::non_canonical(4096)] {
        let mut w = Writer::with_options(Vec::new(), opts).unwrap();
        w.add_dense("a", &[1], DType::U8, vec![7u8]).unwrap();
        let written = w.position();
        for (n, (o, want)) in cases().into_iter().enumerate() {
            let e = w.add(o).unwrap_err();
            assert!(matches!(&e.kind, Kind::Rule(r) if r.kind == want), "case {n}: want {want:?}, got {e:?}");
            assert_eq!(e.object.as_deref(), Some("x"));
            assert_eq!(w.position(), written, "case {n}: nothing written");
        }
        let bytes = w.finish().unwrap();
        assert_eq!(Manifest::parse(&bytes).unwrap().len(), 1);
    }
}

/// Sharded output: data shards `NNNNN-of-NNNNN` beside the root, read back
/// by our reader (shard size, digest, every part) and by upstream's.
#[test]
fn sharded_output_is_read_back_by_us_and_by_upstream() {
    require_reference();
    let dir = tmp();
    let root = dir.path().join("model.zt");
    let tensors = vec![
        dense("a", &[30000], DType::F32, bytes(50, 120_000)),
        dense("b", &[65536], DType::U8, bytes(51, 65536)),
        dense("c", &[65537], DType::I8, bytes(52, 65537)),
        dense("d", &[100000], DType::U16, bytes(53, 200_000)),
        dense("e", &[400000], DType::U8, bytes(54, 400_000)), // larger than a shard: its own
        dense("f", &[3], DType::F32, bytes(55, 12)),
        dense("g", &[30000], DType::F32, bytes(50, 120_000)), // identical to "a", in another shard
    ];
    let mut layouts = layout_objects();
    layouts[0].encoding = Encoding::ZstdSeekable { level: 3, frame: 8 };
    let mut objects = tensors.clone();
    objects.extend(layouts);
    let c = case("model.zt", objects, Some(file_attrs()), Options::non_canonical(4096).shards(300_000));
    write_ours(&c, &root);

    let bytes = std::fs::read(&root).unwrap();
    let m = Manifest::parse(&bytes).unwrap();
    let shards: Vec<_> = m.shards().collect();
    assert!(shards.len() >= 4, "{} shards", shards.len());
    let n = shards.len();
    let mut files = std::collections::BTreeMap::new();
    for (i, s) in shards.iter().enumerate() {
        assert_eq!(s.name, format!("{:05}-of-{n:05}", i + 1));
        let path = ztensor::v2::shard::positional_path(&root, s.name).unwrap();
        let f = std::fs::read(&path).unwrap();
        assert!(f.len() as u64 <= 300_000 || f.len() > 400_000, "{}: {} bytes", s.name, f.len());
        ztensor::v2::shard::check(s, &f).unwrap();
        ztensor::v2::shard::verify(s, &f).unwrap();
        // A data shard: no manifest.
        assert!(Manifest::parse(&f).unwrap().is_data_shard());
        files.insert(s.name, f);
    }
    // Nothing else left in the directory (temporary files are renamed or gone).
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), n + 1);
    for o in &c.objects {
        let mo = m.object(&o.name).unwrap();
        for p in &o.parts {
            let mp = mo.part(p.name).unwrap();
            let shard = mp.shard.expect("every blob in a data shard");
            let blob = mp.blob(&files[shard]).unwrap();
            if mp.is_raw() {
                assert!(blob == &p.data[..], "{} {}", o.name, p.name);
            } else {
                let mut out = vec![0u8; p.data.len()];
                ztensor::v2::seekable::decode_into(blob, mp.decoded_size(), &mut out).unwrap();
                assert!(out == p.data);
            }
        }
    }
    assert_ne!(m.object("a").unwrap().part("data").unwrap().shard, m.object("g").unwrap().part("data").unwrap().shard);

    let got: Json = serde_json::from_str(&run_python(UPSTREAM_READ, &[&root])).unwrap();
    let got = &got[root.to_str().unwrap()];
    for o in &c.objects {
        for p in &o.parts {
            assert_eq!(got["objects"][&o.name]["parts"][p.name], Json::from(sha(&p.data)), "upstream: {} {}", o.name, p.name);
        }
    }
    assert_eq!(got["undigested"], 0);

    use ztensor::write::v2::Kind;
    assert!(matches!(Writer::create_with(dir.path().join("x.zt"), Options::canonical().shards(1 << 20)).unwrap_err().kind, Kind::Option(_)));
    assert!(matches!(Writer::with_options(Vec::new(), Options::non_canonical(4096).shards(1 << 20)).unwrap_err().kind, Kind::Option(_)));
}

mod round_trip {
    use super::*;
    use proptest::prelude::*;

    fn opts(mode: u8) -> Options {
        match mode {
            0 => Options::canonical(),
            1 => Options::non_canonical(4096).digest(DigestAlg::Sha256),
            _ => Options::non_canonical(8192).digest(DigestAlg::None),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Random dense objects (every dtype, empty and scalar shapes,
        /// repeated contents) written in each mode read back bit-identically
        /// through our reader, with every digest and type rule verified.
        #[test]
        fn dense_objects_round_trip(
            objs in prop::collection::vec((0..13usize, prop::collection::vec(0..6u64, 0..4), 0..4u64, any::<bool>()), 0..8),
            mode in 0..3u8,
        ) {
            let o = opts(mode);
            let mut w = Writer::with_options(Vec::new(), o).unwrap();
            let mut want = Vec::new();
            for (i, (d, shape, seed, seekable)) in objs.iter().enumerate() {
                let dtype = DType::ALL[*d];
                let n = shape.iter().product::<u64>() as usize;
                let mut data = bytes(*seed, n * dtype.width() as usize);
                if dtype == DType::Bool {
                    data.iter_mut().for_each(|b| *b &= 1);
                }
                let enc = if *seekable && !o.is_canonical() { Encoding::ZstdSeekable { level: 1, frame: 64 } } else { Encoding::Raw };
                let name = format!("t{i:02}");
                w.add(NewObject::new(name.clone(), shape, "dense").part(NewPart::new("data", dtype, data.clone()).encoding(enc))).unwrap();
                want.push((name, data));
            }
            let file = w.finish().unwrap();
            let m = Manifest::parse(&file).unwrap();
            prop_assert_eq!(m.len(), want.len());
            for (name, data) in &want {
                let obj = m.object(name).unwrap();
                let digested = ztensor::v2::verify::object(&obj, &file).unwrap();
                prop_assert_eq!(digested, if o.digest_alg() == DigestAlg::None { 0 } else { 1 });
                let p = obj.part("data").unwrap();
                let got = if p.is_raw() {
                    ztensor::v2::verify::raw_bytes(&p, &file).unwrap().to_vec()
                } else {
                    let mut out = vec![0u8; data.len()];
                    ztensor::v2::seekable::decode_into(p.blob(&file).unwrap(), p.decoded_size(), &mut out).unwrap();
                    out
                };
                prop_assert!(&got == data);
            }
        }
    }
}

/// Streams the same tensors with upstream's `Writer.stream()` (chunked).
const UPSTREAM_STREAM: &str = r#"
import sys, ztensor
path = sys.argv[1]
x = bytes.fromhex(sys.argv[2])
w = ztensor.Writer(path)
w.add("a", x, [len(x)], "u8")
with w.stream("b", [len(x)], {"data": {"dtype": "u8", "nbytes": len(x)}}) as s:
    for i in range(0, len(x), 1000):
        s.write(x[i:i + 1000])
w.add("c", x, [len(x)], "u8")
with w.stream("d", [len(x) // 2], {"data": {"dtype": "u16", "nbytes": len(x)}}) as s:
    s.write(x)
w.finish()
"#;

/// A sink that reads back but cannot rewind (as upstream's `Writer.stream`,
/// it then leaves a streamed duplicate unshared).
struct NoRewind(Vec<u8>);

impl ztensor::write::Sink for NoRewind {
    fn write_all(&mut self, b: &[u8]) -> ztensor::Result<()> {
        self.0.write_all(b)
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> ztensor::Result<bool> {
        self.0.read_at(offset, buf)
    }
}

/// Upstream's streamed objects: the same bytes from chunked sources when
/// the sink cannot rewind (upstream never shares a streamed part with an
/// identical earlier blob; in-memory parts are shared). A sink that can
/// rewind shares streamed duplicates too: canonical (§6.3 rule 3), the same
/// bytes as for those tensors in memory, and not upstream's.
#[test]
fn streamed_objects_are_byte_identical_to_upstream() {
    use ztensor::write::{Data, Sink};
    require_reference();
    let dir = tmp();
    let x = bytes(60, 5000);
    let theirs = dir.path().join("theirs.zt");
    run_python(UPSTREAM_STREAM, &[&theirs, Path::new(&hex::encode(&x))]);
    let theirs = std::fs::read(&theirs).unwrap();
    fn objects<S: Sink>(mut w: Writer<S>, x: &[u8], memory: bool) -> S {
        let n = x.len() as u64;
        w.add_dense("a", &[n], DType::U8, x).unwrap();
        let b = if memory { Data::bytes(x) } else { Data::from_chunks(n, x.chunks(1000)) };
        w.add(NewObject::new("b", &[n], "dense").part(NewPart::new("data", DType::U8, b))).unwrap();
        w.add_dense("c", &[n], DType::U8, x).unwrap();
        let d = if memory { Data::bytes(x) } else { Data::from_reader(n, x) };
        w.add(NewObject::new("d", &[n / 2], "dense").part(NewPart::new("data", DType::U16, d))).unwrap();
        w.finish().unwrap()
    }
    let ours = objects(Writer::new(NoRewind(Vec::new())), &x, false).0;
    assert!(ours == theirs, "streamed file differs from upstream's");
    let m = Manifest::parse(&ours).unwrap();
    let off = |o: &str| m.object(o).unwrap().part("data").unwrap().offset;
    assert_eq!(off("c"), off("a"));
    assert_ne!(off("b"), off("a"));

    let canonical = objects(Writer::new(Vec::new()), &x, false);
    assert!(canonical == objects(Writer::new(Vec::new()), &x, true), "streamed duplicates not shared as in memory");
    assert!(canonical != theirs);
    let m = Manifest::parse(&canonical).unwrap();
    let off = |o: &str| m.object(o).unwrap().part("data").unwrap().offset;
    assert!(["b", "c", "d"].iter().all(|o| off(o) == off("a")));
}

/// Atomic publication: nothing under the final names until `finish`; a
/// writer dropped unfinished leaves no file behind (root or shards).
#[test]
fn files_appear_only_at_finish() {
    let dir = tmp();
    let path = dir.path().join("m.zt");
    for opts in [Options::canonical(), Options::non_canonical(4096).shards(10_000)] {
        let mut w = Writer::create_with(&path, opts).unwrap();
        w.add_dense("a", &[20_000], DType::U8, bytes(70, 20_000)).unwrap();
        w.add_dense("b", &[20_000], DType::U8, bytes(71, 20_000)).unwrap();
        assert!(!path.exists());
        drop(w);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "{opts:?}: temporary files left");

        let mut w = Writer::create_with(&path, opts).unwrap();
        w.add_dense("a", &[20_000], DType::U8, bytes(70, 20_000)).unwrap();
        assert!(!path.exists());
        w.finish().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let m = Manifest::parse(&bytes).unwrap();
        assert_eq!(m.len(), 1);
        let n = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(n, 1 + m.shards().count());
        for e in std::fs::read_dir(dir.path()).unwrap() {
            std::fs::remove_file(e.unwrap().path()).unwrap();
        }
    }
}
