#![cfg(feature = "std")]
//! Interoperability: files written by this crate's writer, covering every
//! kind of object, are read by the reference implementation (Python
//! `ztensor` 1.2.3 from PyPI), and every array it returns is compared bit
//! for bit with what was written (by SHA-256 of the decoded bytes).
//!
//! The interpreter is `$ZT_REFERENCE_PYTHON`, else `python3`; it must be
//! able to `import ztensor` (version 1.2.3) and `numpy`. If it cannot, this
//! test FAILS: it never passes without having run the reference.
//! `.ci/run` sets up a virtual environment with `pip install ztensor==1.2.3 numpy`.
//!
//! What the Python side uses: `Reader.keys()`, `Reader.read_numpy()` (dense,
//! except bf16, which would need `ml_dtypes`), `Reader.read()` (every
//! format, same exception), `Reader.metadata()`, and for the raw decoded
//! bytes of every component (bf16 included) the private
//! `Reader._inner._read_component_raw()`, which is what `read()` calls.
//! The reference verifies digests of zstd components when it reads them
//! (proved below with corrupted files); for raw components it does not, so
//! the Python side hashes the bytes itself (hashlib SHA-256 and its own
//! CRC-32C) and the Rust side compares with the digest strings written.

use serde_json::Value as Json;
use sha2::{Digest as _, Sha256};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use ztensor::write::{AttrValue, Data};
use ztensor::write::v1_2::{Checksum, Compression, NewComponent, NewObject, Writer};
use ztensor::{DType, File, Format, LogicalType};

const REFERENCE_VERSION: &str = "1.2.3";

fn python() -> String {
    std::env::var("ZT_REFERENCE_PYTHON").ok().filter(|s| !s.is_empty()).unwrap_or_else(|| "python3".to_owned())
}

/// Run the reference interpreter; panic loudly if it is not usable.
fn run_python(script: &str, args: &[&Path]) -> String {
    let py = python();
    let out = Command::new(&py)
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("\n\nREFERENCE NOT AVAILABLE: cannot run `{py}` ({e}).\nSet ZT_REFERENCE_PYTHON to a Python with `pip install ztensor=={REFERENCE_VERSION} numpy`.\n\n"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        panic!("\n\nreference run with `{py}` failed ({}):\n{stderr}\n", out.status);
    }
    String::from_utf8(out.stdout).unwrap()
}

fn require_reference() {
    let v = run_python(
        "import importlib.metadata as m, sys\n\
         try:\n    import ztensor, numpy\n\
         except Exception as e:\n    print('IMPORT-FAILED', repr(e)); sys.exit(0)\n\
         print(m.version('ztensor'))",
        &[],
    );
    let v = v.trim();
    assert!(
        v == REFERENCE_VERSION,
        "\n\nREFERENCE NOT AVAILABLE: `{}` gives {v:?}, expected ztensor {REFERENCE_VERSION}.\n\
         Set ZT_REFERENCE_PYTHON to a Python with `pip install ztensor=={REFERENCE_VERSION} numpy`.\n\n",
        python()
    );
}

/// Reads a file with the reference and prints what it sees as JSON.
const READ_SCRIPT: &str = r#"
import hashlib, json, struct, sys
import numpy as np
import ztensor

_T = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    _T.append(c)

def crc32c(b):
    c = 0xFFFFFFFF
    for x in b:
        c = (c >> 8) ^ _T[(c ^ x) & 0xFF]
    return c ^ 0xFFFFFFFF

def conv(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"float": struct.pack(">d", v).hex()}
    if isinstance(v, str):
        return {"text": v}
    if isinstance(v, (bytes, bytearray)):
        return {"bytes": bytes(v).hex()}
    if isinstance(v, list):
        return [conv(x) for x in v]
    if isinstance(v, dict):
        return {"map": [[conv(k), conv(x)] for k, x in v.items()]}
    return {"unknown": repr(v)}

def sha(b):
    return hashlib.sha256(bytes(b)).hexdigest()

r = ztensor.Reader(sys.argv[1])
out = {"format": r.format, "keys": list(r.keys()), "objects": {}}
for name in r.keys():
    meta = r._inner._get_metadata(name)
    md = r.metadata(name)
    o = {"shape": list(meta["shape"]), "format": meta["format"], "attributes": conv(meta["attributes"]),
         "metadata": {"dtype": md.dtype, "type": md.type, "shape": list(md.shape), "format": md.format},
         "components": {}}
    bf16 = False
    for role, c in meta["components"].items():
        buf, dt = r._inner._read_component_raw(name, role)
        b = bytes(np.asarray(buf).tobytes())
        bf16 |= dt == "bfloat16"
        o["components"][role] = {"dtype": dt, "numpy_dtype": c["dtype"], "type": c["type"], "encoding": c["encoding"],
                                 "offset": c["offset"], "length": c["length"], "nbytes": len(b), "sha256": sha(b),
                                 "crc32c": crc32c(b)}
    if not bf16:
        try:
            t = r.read(name)
            o["read"] = {role: sha(np.ascontiguousarray(a).tobytes()) for role, a in t.components.items()}
        except Exception as e:
            o["read_error"] = repr(e)
        if meta["format"] == "dense":
            try:
                a = r.read_numpy(name)
                o["numpy"] = {"shape": list(a.shape), "sha256": sha(np.ascontiguousarray(a).tobytes())}
            except Exception as e:
                o["numpy_error"] = repr(e)
    out["objects"][name] = o
print(json.dumps(out))
"#;

/// Reads every component of every object; prints the error of each failure.
const CORRUPT_SCRIPT: &str = r#"
import json, sys, ztensor
r = ztensor.Reader(sys.argv[1])
res = {}
for name in r.keys():
    try:
        r.read(name)
        res[name] = "ok"
    except Exception as e:
        res[name] = repr(e)
print(json.dumps(res))
"#;

// ------------------------------------------------------------- the model

/// One component as written: its decoded bytes and how it was stored.
struct Written {
    role: String,
    dtype: DType,
    ltype: Option<String>,
    bytes: Vec<u8>,
    zstd: bool,
}

struct Obj {
    name: String,
    format: String,
    shape: Vec<u64>,
    attrs: Vec<(String, AttrValue)>,
    comps: Vec<Written>,
    checksum: Checksum,
    compression: Compression,
    /// Feed the components in chunks (0: from memory).
    chunk: usize,
}

fn le<T: Copy, const N: usize>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    v.iter().flat_map(|&x| f(x)).collect()
}

fn obj(name: &str, format: &str, shape: &[u64], comps: Vec<(&str, DType, Option<&str>, Vec<u8>)>) -> Obj {
    Obj {
        name: name.to_owned(),
        format: format.to_owned(),
        shape: shape.to_vec(),
        attrs: Vec::new(),
        comps: comps
            .into_iter()
            .map(|(r, d, t, b)| Written { role: r.to_owned(), dtype: d, ltype: t.map(str::to_owned), bytes: b, zstd: false })
            .collect(),
        checksum: Checksum::None,
        compression: Compression::Raw,
        chunk: 0,
    }
}

fn dense(name: &str, shape: &[u64], d: DType, t: Option<&str>, b: Vec<u8>) -> Obj {
    obj(name, "dense", shape, vec![("data", d, t, b)])
}

impl Obj {
    fn zstd(mut self, level: i32) -> Self {
        self.compression = Compression::Zstd(level);
        for c in &mut self.comps {
            c.zstd = true;
        }
        self
    }
    fn sum(mut self, c: Checksum) -> Self {
        self.checksum = c;
        self
    }
    fn attr(mut self, k: &str, v: impl Into<AttrValue>) -> Self {
        self.attrs.push((k.to_owned(), v.into()));
        self
    }
    fn chunked(mut self, n: usize) -> Self {
        self.chunk = n;
        self
    }

    fn to_new(&self) -> NewObject<'_> {
        let mut o = NewObject::new(self.name.as_str(), Format::parse(&self.format), &self.shape)
            .compression(self.compression)
            .checksum(self.checksum);
        for (k, v) in &self.attrs {
            o = o.attribute(k, v.clone());
        }
        for c in &self.comps {
            let data = match self.chunk {
                0 => Data::bytes(&c.bytes),
                n => Data::from_chunks(c.bytes.len() as u64, c.bytes.chunks(n)),
            };
            let mut nc = NewComponent::new(c.role.as_str(), c.dtype, data);
            if let Some(t) = &c.ltype {
                nc = nc.logical_type(LogicalType::parse(t));
            }
            o = o.component(nc);
        }
        o
    }
}

fn rnd(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn rich_attrs() -> Vec<(&'static str, AttrValue)> {
    vec![
        ("int", 4u8.into()),
        ("neg", (-7i64).into()),
        ("big", (1u64 << 40).into()),
        ("u64_max", u64::MAX.into()),
        ("i64_min", i64::MIN.into()),
        ("neg_2_64", AttrValue::NegInt(u64::MAX)),
        ("half", 1.5.into()),
        ("single", 1e10.into()),
        ("double", 0.1.into()),
        ("inf", f64::NEG_INFINITY.into()),
        ("neg_zero", (-0.0).into()),
        ("tiny", 5e-324.into()),
        ("str", "text".into()),
        ("unicode", "héllo wörld ✓ 🚀".into()),
        ("empty_str", "".into()),
        ("true", true.into()),
        ("false", false.into()),
        ("null", AttrValue::Null),
        ("bytes", AttrValue::Bytes(vec![0, 1, 0xfe, 0xff])),
        ("list", vec![AttrValue::from(1u8), "two".into(), 3.0.into(), AttrValue::Null, vec![AttrValue::from(4u8)].into()].into()),
        ("empty_list", AttrValue::Array(vec![])),
        ("nested", AttrValue::map([("z", 1u8.into()), ("a", AttrValue::map([("b", vec![AttrValue::from(1u8), 2u8.into()].into()), ("c", "d".into())]))])),
        ("empty_map", AttrValue::Map(vec![])),
        ("int_keys", AttrValue::Map(vec![(1u8.into(), "one".into()), ((-2i8).into(), "minus two".into())])),
        ("tagged", AttrValue::Tag(1, Box::new(1_700_000_000u64.into()))),
        ("raw_cbor", AttrValue::Cbor(vec![0x82, 0x01, 0x61, b'x'])),
    ]
}

/// Every kind of object the format has.
fn catalogue() -> Vec<Obj> {
    let mut v = Vec::new();
    // The 13 dtypes, with edge values.
    let f64s = [0.0, -0.0, 1.5, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, f64::MIN_POSITIVE / 4.0, f64::MAX];
    v.push(dense("dense_f64", &[2, 4], DType::F64, None, le(&f64s, f64::to_le_bytes)));
    let f32s = [0.0f32, -0.0, 1.5, f32::INFINITY, f32::NAN, 1e-40, f32::MAX, -3.25];
    v.push(dense("dense_f32", &[8], DType::F32, None, le(&f32s, f32::to_le_bytes)));
    v.push(dense("dense_f16", &[2, 2, 2], DType::F16, None, le(&[0x0000u16, 0x8000, 0x3c00, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x7bff], u16::to_le_bytes)));
    v.push(dense("dense_bf16", &[2, 3], DType::BF16, None, le(&[0x3f80u16, 0xbf80, 0x7f80, 0x7fc0, 0x0001, 0x0000], u16::to_le_bytes)));
    v.push(dense("dense_i64", &[4], DType::I64, None, le(&[i64::MIN, -1, 0, i64::MAX], i64::to_le_bytes)));
    v.push(dense("dense_i32", &[4], DType::I32, None, le(&[i32::MIN, -1, 0, i32::MAX], i32::to_le_bytes)));
    v.push(dense("dense_i16", &[4], DType::I16, None, le(&[i16::MIN, -1, 0, i16::MAX], i16::to_le_bytes)));
    v.push(dense("dense_i8", &[4], DType::I8, None, le(&[i8::MIN, -1, 0, i8::MAX], i8::to_le_bytes)));
    v.push(dense("dense_u64", &[3], DType::U64, None, le(&[0, 1, u64::MAX], u64::to_le_bytes)));
    v.push(dense("dense_u32", &[3], DType::U32, None, le(&[0, 1, u32::MAX], u32::to_le_bytes)));
    v.push(dense("dense_u16", &[3], DType::U16, None, le(&[0, 1, u16::MAX], u16::to_le_bytes)));
    v.push(dense("dense_u8", &[3], DType::U8, None, vec![0, 1, 255]));
    v.push(dense("dense_bool", &[2, 2], DType::Bool, None, vec![0, 1, 1, 0]));
    // Logical types: FP8 and complex.
    for t in ["f8_e4m3fn", "f8_e5m2", "f8_e4m3fnuz", "f8_e5m2fnuz"] {
        v.push(dense(t, &[9], DType::U8, Some(t), vec![0x00, 0x80, 0x38, 0x40, 0xb8, 0x7e, 0x01, 0x7f, 0xff]));
    }
    v.push(dense("complex64", &[3], DType::F32, Some("complex64"), le(&[1.0f32, -1.0, 0.5, 2.0, 0.0, -0.0], f32::to_le_bytes)));
    v.push(dense("complex128", &[2, 2], DType::F64, Some("complex128"), le(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], f64::to_le_bytes)));
    v.push(dense("fp8_zstd_sha256", &[72], DType::U8, Some("f8_e4m3fn"), [0x38u8, 0x40, 0x44].repeat(24)).zstd(3).sum(Checksum::Sha256));
    // Scalars and zero sizes.
    v.push(dense("scalar_f64", &[], DType::F64, None, std::f64::consts::E.to_le_bytes().to_vec()));
    v.push(dense("scalar_bool", &[], DType::Bool, None, vec![1]));
    v.push(dense("zero_1d_f32", &[0], DType::F32, None, vec![]));
    v.push(dense("zero_3x0_i16", &[3, 0], DType::I16, None, vec![]).sum(Checksum::Crc32c));
    v.push(dense("zero_size_zstd", &[0], DType::F32, None, vec![]).zstd(3).sum(Checksum::Crc32c));
    v.push(dense("odd_len_u8", &[3], DType::U8, None, vec![1, 2, 3]));
    // zstd: levels, compressible and not, multi-block frames, digests.
    v.push(dense("zeros_f32_1024", &[1024], DType::F32, None, vec![0; 4096]).zstd(3));
    v.push(dense("ramp_i64_sha256", &[256], DType::I64, None, le(&(0..256i64).collect::<Vec<_>>(), i64::to_le_bytes)).zstd(3).sum(Checksum::Sha256));
    v.push(dense("random_u8_level19_crc32c", &[300], DType::U8, None, rnd(300, 1)).zstd(19).sum(Checksum::Crc32c));
    v.push(dense("f16_level1", &[64], DType::F16, None, le(&(0..64u16).map(|i| 0x3c00 + i).collect::<Vec<_>>(), u16::to_le_bytes)).zstd(1));
    v.push(dense("scalar_f64_zstd", &[], DType::F64, None, 1.25f64.to_le_bytes().to_vec()).zstd(3));
    v.push(dense("bf16_zstd", &[8, 8], DType::BF16, None, le(&(0x3f80..0x3f80 + 64u16).collect::<Vec<_>>(), u16::to_le_bytes)).zstd(3));
    let big: Vec<f32> = (0..400_000).map(|i| ((i % 1000) as f32).sqrt()).collect();
    v.push(dense("big_f32_zstd_chunked", &[400, 1000], DType::F32, None, le(&big, f32::to_le_bytes)).zstd(3).sum(Checksum::Sha256).chunked(12_345));
    v.push(dense("big_random_raw_chunked", &[1 << 18], DType::U8, None, rnd(1 << 18, 2)).sum(Checksum::Crc32c).chunked(1000));
    // Digests on raw data.
    v.push(dense("sha256_f32", &[3], DType::F32, None, le(&[1.0f32, 2.0, 3.0], f32::to_le_bytes)).sum(Checksum::Sha256));
    v.push(dense("crc32c_u8_leading_zero", &[1], DType::U8, None, vec![67]).sum(Checksum::Crc32c));
    // Sparse.
    let csr = |name: &str, vals: Vec<u8>, d: DType, idx: &[u64], ptr: &[u64], shape: [u64; 2]| {
        obj(name, "sparse_csr", &shape, vec![("values", d, None, vals), ("indices", DType::U64, None, le(idx, u64::to_le_bytes)), ("indptr", DType::U64, None, le(ptr, u64::to_le_bytes))])
    };
    v.push(csr("csr_f32", le(&[1.0f32, 2.0, 3.0, 4.0], f32::to_le_bytes), DType::F32, &[0, 2, 1, 3], &[0, 2, 3, 4], [3, 4]));
    v.push(csr("csr_f64_empty", vec![], DType::F64, &[], &[0, 0, 0], [2, 5]));
    v.push(csr("csr_zstd_sha256", le(&[1.0f32, 2.0, 3.0, 4.0], f32::to_le_bytes), DType::F32, &[0, 2, 1, 3], &[0, 2, 3, 4], [3, 4]).zstd(3).sum(Checksum::Sha256));
    v.push(csr("csr_with_attrs", le(&[5i32, -6], i32::to_le_bytes), DType::I32, &[1, 0], &[0, 1, 2], [2, 2]).attr("origin", "scipy").attr("nnz", 2u8));
    let coo = |name: &str, vals: Vec<u8>, d: DType, coords: &[u64], shape: &[u64]| {
        obj(name, "sparse_coo", shape, vec![("values", d, None, vals), ("coords", DType::U64, None, le(coords, u64::to_le_bytes))])
    };
    v.push(coo("coo_i32_2d", le(&[7i32, 8, 9], i32::to_le_bytes), DType::I32, &[0, 1, 3, 2, 0, 4], &[4, 5]));
    v.push(coo("coo_f16_3d", le(&[0x3c00u16, 0x4000], u16::to_le_bytes), DType::F16, &[0, 1, 2, 0, 3, 1], &[2, 4, 3]).sum(Checksum::Crc32c));
    v.push(coo("coo_fp8_values", vec![0x38, 0x40], DType::U8, &[0, 5], &[8]).zstd(3));
    if let Some(c) = v.last_mut() {
        c.comps[0].ltype = Some("f8_e5m2".into());
    }
    // Quantized.
    let q = |name: &str, p: (DType, Vec<u8>), s: (DType, Vec<u8>), z: (DType, Vec<u8>), bits: u8, packing: &str| {
        obj(name, "quantized_group", &[64, 16], vec![("packed_weight", p.0, None, p.1), ("scales", s.0, None, s.1), ("zeros", z.0, None, z.1)])
            .attr("bits", bits)
            .attr("group_size", 32u8)
            .attr("packing", packing)
    };
    v.push(q("gptq_4bit", (DType::I32, rnd(64 * 16 / 2, 3)), (DType::F16, rnd(2 * 16 * 2, 4)), (DType::F16, rnd(2 * 16 * 2, 5)), 4, "8_per_i32"));
    v.push(q("int8_zstd_crc", (DType::U8, rnd(64 * 16, 6)), (DType::F32, rnd(2 * 16 * 4, 7)), (DType::U8, rnd(32, 8)), 8, "1_per_u8").zstd(3).sum(Checksum::Crc32c));
    // Formats and logical types the spec leaves open.
    v.push(obj("block_sparse_x", "block_sparse_x", &[8, 8], vec![("blocks", DType::F16, None, rnd(32, 9)), ("block_index", DType::I32, None, le(&[0i32, 3], i32::to_le_bytes))]));
    v.push(dense("int4_packed_x", &[4], DType::U8, Some("int4_packed_x"), vec![0x12, 0x34, 0x56, 0x78]));
    // Attributes of every kind.
    let mut with = dense("dense_with_attrs", &[4], DType::F32, None, le(&[0.0f32, 1.0, 2.0, 3.0], f32::to_le_bytes));
    for (k, a) in rich_attrs() {
        with = with.attr(k, a);
    }
    v.push(with);
    v.push(dense("dense_empty_attr_value", &[1], DType::U8, None, vec![1]).attr("note", "hello"));
    // Names.
    for (i, n) in ["名前", "emoji 🚀", "a/b.c d\te", "Ωμέγα", "é", &"x".repeat(300)].iter().enumerate() {
        v.push(dense(n, &[1], DType::I32, None, (i as i32).to_le_bytes().to_vec()));
    }
    v
}

fn sha(b: &[u8]) -> String {
    hex::encode(Sha256::digest(b))
}

/// What the reference must report for an attribute value (tags are
/// dropped to None by it; maps are lists of pairs; ints as decimal text;
/// floats as big-endian f64 bits).
fn expect_attr(v: &AttrValue) -> Json {
    use serde_json::json;
    match v {
        AttrValue::Uint(n) => json!({ "int": n.to_string() }),
        AttrValue::NegInt(n) => json!({ "int": (-1 - *n as i128).to_string() }),
        AttrValue::Float(f) => json!({ "float": format!("{:016x}", f.to_bits()) }),
        AttrValue::Text(s) => json!({ "text": s }),
        AttrValue::Bytes(b) => json!({ "bytes": hex::encode(b) }),
        AttrValue::Bool(b) => json!({ "bool": b }),
        AttrValue::Null | AttrValue::Tag(..) => Json::Null,
        AttrValue::Array(a) => Json::Array(a.iter().map(expect_attr).collect()),
        AttrValue::Map(m) => json!({ "map": m.iter().map(|(k, v)| json!([expect_attr(k), expect_attr(v)])).collect::<Vec<_>>() }),
        AttrValue::Cbor(b) if b == &[0x82, 0x01, 0x61, b'x'] => json!([{ "int": "1" }, { "text": "x" }]),
        AttrValue::Cbor(_) => panic!("no expectation for this raw CBOR"),
    }
}

fn numpy_name(d: DType) -> &'static str {
    match d {
        DType::F64 => "float64",
        DType::F32 => "float32",
        DType::F16 => "float16",
        DType::BF16 => "bfloat16",
        DType::I64 => "int64",
        DType::I32 => "int32",
        DType::I16 => "int16",
        DType::I8 => "int8",
        DType::U64 => "uint64",
        DType::U32 => "uint32",
        DType::U16 => "uint16",
        DType::U8 => "uint8",
        DType::Bool => "bool",
    }
}

/// Compare the reference's report with what was written.
fn compare(path: &Path, objs: &[Obj], report: &Json) -> usize {
    let ours = std::fs::read(path).unwrap();
    let file = File::parse(&ours).unwrap();
    let mut keys: Vec<&str> = objs.iter().map(|o| o.name.as_str()).collect();
    keys.sort();
    let got: Vec<&str> = report["keys"].as_array().unwrap().iter().map(|k| k.as_str().unwrap()).collect();
    assert_eq!(got, keys, "object names");
    assert_eq!(report["format"], "zt");
    let mut arrays = 0;
    for o in objs {
        let r = &report["objects"][&o.name];
        let at = &o.name;
        assert_eq!(r["shape"], serde_json::json!(o.shape), "{at}");
        assert_eq!(r["format"], o.format.as_str(), "{at}");
        // Attributes: the reference keeps top-level keys sorted.
        let mut attrs: BTreeMap<&str, Json> = BTreeMap::new();
        for (k, v) in &o.attrs {
            attrs.insert(k, expect_attr(v));
        }
        let want = if attrs.is_empty() {
            Json::Null
        } else {
            serde_json::json!({ "map": attrs.iter().map(|(k, v)| serde_json::json!([{ "text": k }, v])).collect::<Vec<_>>() })
        };
        assert_eq!(r["attributes"], want, "{at}: attributes");
        let ours_obj = file.require(&o.name).unwrap();
        // The reference's public reads need `ml_dtypes` for bf16, and
        // reshape complex data to the logical shape with the storage dtype
        // (a reference limitation): for those, the raw bytes only.
        let public = o.comps.iter().all(|c| c.dtype != DType::BF16 && !c.ltype.as_deref().is_some_and(|t| t.starts_with("complex")));
        let comps = r["components"].as_object().unwrap();
        assert_eq!(comps.len(), o.comps.len(), "{at}");
        for c in &o.comps {
            let rc = &comps[&c.role];
            let at = format!("{}/{}", o.name, c.role);
            let want_sha = sha(&c.bytes);
            assert_eq!(rc["sha256"], want_sha.as_str(), "{at}: decoded bytes differ");
            assert_eq!(rc["nbytes"], c.bytes.len(), "{at}");
            assert_eq!(rc["numpy_dtype"], numpy_name(c.dtype), "{at}");
            assert_eq!(rc["type"].as_str(), c.ltype.as_deref(), "{at}");
            assert_eq!(rc["encoding"], if c.zstd { "zstd" } else { "raw" }, "{at}");
            let oc = ours_obj.require(&c.role).unwrap();
            assert_eq!(rc["offset"], oc.offset(), "{at}");
            assert_eq!(rc["length"], oc.length(), "{at}");
            // Digests of raw components, against the reference's own hashes.
            if !c.zstd {
                match o.checksum {
                    Checksum::Sha256 => assert_eq!(oc.digest().unwrap(), format!("sha256:{want_sha}"), "{at}"),
                    Checksum::Crc32c => {
                        let crc = rc["crc32c"].as_u64().unwrap();
                        assert_eq!(oc.digest().unwrap(), format!("crc32c:0x{crc:08X}"), "{at}");
                    }
                    Checksum::None => assert!(oc.digest().is_none()),
                }
            }
            if public {
                assert_eq!(r["read"][&c.role], want_sha.as_str(), "{at}: Reader.read(): {}", r["read_error"]);
            }
            arrays += 1;
        }
        // Public API: read_numpy for dense objects.
        if public && o.format == "dense" {
            let n = &r["numpy"];
            assert_eq!(n["sha256"], sha(&o.comps[0].bytes).as_str(), "{at}: read_numpy: {}", r["numpy_error"]);
            // The reference skips the reshape for shape [] and returns [1].
            let shape = if o.shape.is_empty() { vec![1] } else { o.shape.clone() };
            assert_eq!(n["shape"], serde_json::json!(shape), "{at}: read_numpy shape");
            let md = &r["metadata"];
            assert_eq!(md["dtype"], numpy_name(o.comps[0].dtype), "{at}");
            assert_eq!(md["type"].as_str(), o.comps[0].ltype.as_deref(), "{at}");
        }
    }
    arrays
}

fn write(path: &Path, objs: &[Obj], attrs: bool) {
    let mut w = Writer::create(path).unwrap();
    if attrs {
        for (k, v) in rich_attrs() {
            w.set_attribute(k, v).unwrap();
        }
    }
    for o in objs {
        w.add(o.to_new()).unwrap_or_else(|e| panic!("{}: {e}", o.name));
    }
    w.finish().unwrap();
}

#[test]
fn reference_reads_everything_we_write() {
    require_reference();
    let dir = tempfile::tempdir().unwrap();
    let objs = catalogue();
    let path = dir.path().join("catalogue.zt");
    write(&path, &objs, true);
    let report: Json = serde_json::from_str(&run_python(READ_SCRIPT, &[&path])).unwrap();
    let n = compare(&path, &objs, &report);
    assert_eq!(n, objs.iter().map(|o| o.comps.len()).sum::<usize>());
    assert!(n >= 70, "only {n} arrays compared");
    eprintln!("reference ztensor {REFERENCE_VERSION} read {} objects, {n} arrays bit-identical", objs.len());
}

#[test]
fn reference_reads_appended_files() {
    require_reference();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("appended.zt");
    let mut objs = catalogue();
    let later = objs.split_off(objs.len() / 2);
    write(&path, &objs, false);
    for round in later.chunks(7) {
        let mut w = Writer::append(&path).unwrap();
        w.set_attribute("round", objs.len() as u64).unwrap();
        for o in round {
            w.add(o.to_new()).unwrap();
        }
        w.finish().unwrap();
        objs.extend(round.iter().map(|o| Obj {
            name: o.name.clone(),
            format: o.format.clone(),
            shape: o.shape.clone(),
            attrs: o.attrs.clone(),
            comps: o
                .comps
                .iter()
                .map(|c| Written { role: c.role.clone(), dtype: c.dtype, ltype: c.ltype.clone(), bytes: c.bytes.clone(), zstd: c.zstd })
                .collect(),
            checksum: o.checksum,
            compression: o.compression,
            chunk: o.chunk,
        }));
    }
    let report: Json = serde_json::from_str(&run_python(READ_SCRIPT, &[&path])).unwrap();
    compare(&path, &objs, &report);
}

/// The reference checks our zstd digests: corrupting a stored byte of a
/// digested zstd blob makes it refuse the object with a checksum mismatch.
#[test]
fn reference_verifies_our_digests() {
    require_reference();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("digests.zt");
    let data: Vec<u8> = (0..4000u32).map(|i| (i % 97) as u8).collect();
    let mut w = Writer::create(&path).unwrap();
    for (name, sum) in [("sha", Checksum::Sha256), ("crc", Checksum::Crc32c), ("none", Checksum::None)] {
        w.add(NewObject::dense(name, &[4000], DType::U8, &data).compression(Compression::ZSTD).checksum(sum)).unwrap();
    }
    w.finish().unwrap();
    let clean: Json = serde_json::from_str(&run_python(CORRUPT_SCRIPT, &[&path])).unwrap();
    assert_eq!(clean, serde_json::json!({ "sha": "ok", "crc": "ok", "none": "ok" }));

    let mut bytes = std::fs::read(&path).unwrap();
    let offsets: Vec<(String, u64, u64)> = {
        let f = File::parse(&bytes).unwrap();
        f.objects().map(|o| (o.name().to_owned(), o.data().unwrap().offset(), o.data().unwrap().length())).collect()
    };
    for (name, off, len) in &offsets {
        if name != "none" {
            // Flip a byte in the middle of the compressed blob.
            bytes[(off + len / 2) as usize] ^= 0x55;
        }
    }
    std::fs::write(&path, &bytes).unwrap();
    let dirty: Json = serde_json::from_str(&run_python(CORRUPT_SCRIPT, &[&path])).unwrap();
    for name in ["sha", "crc"] {
        let e = dirty[name].as_str().unwrap();
        assert!(e.contains("Checksum mismatch"), "{name}: {e}");
    }
    assert_eq!(dirty["none"], "ok");
}
