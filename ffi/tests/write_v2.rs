//! The format v2 writer through its C entry points (issue 14, point 3):
//! - a canonical file written through `zt_writer_*` is byte-identical to
//!   the same tensors written through the Rust `write::v2::Writer`;
//! - files of every layout, canonical and not (4 KiB, sha256, no digest,
//!   zt.zstd-seekable/1, sharded), are read back bit for bit through
//!   `zt_open` and by upstream's reader, PyPI `ztensor` 2.1.2, whose
//!   `verify(deep=True)` passes on each;
//! - options that do not go together are refused by name.
//!
//! The reference interpreter is `$ZT_REFERENCE_V2_PYTHON`, else `python3`;
//! it must import `ztensor` 2.1.2. If it cannot, the upstream test FAILS:
//! it never passes without having run the reference
//! (`/work/venv-212/bin/python` here).

use core::ffi::c_char;
use core::ptr::{null, null_mut};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use ztensor::*;
use ztensor_core::write::v2::{NewObject, NewPart, Writer};
use ztensor_core::write::AttrValue;
use ztensor_core::DType;

mod common;
use common::*;

#[path = "../../tests/common/reference_v2.rs"]
mod reference_v2;
use reference_v2::{python, run_python, REFERENCE_VERSION};

fn temp_dir(tag: &str) -> PathBuf {
    common::temp_dir("write-v2", tag)
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

fn le32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn le64(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn options() -> zt_writer_options {
    let mut o = core::mem::MaybeUninit::<zt_writer_options>::uninit();
    ok(unsafe { zt_writer_options_init(o.as_mut_ptr()) });
    unsafe { o.assume_init() }
}

fn v2_options() -> zt_writer_options {
    zt_writer_options { format_version: zt_format_version::ZT_FORMAT_VERSION_2 as u32, ..options() }
}

fn comp(role: &'static str, dtype: zt_dtype, logical: Option<&'static str>, data: &[u8]) -> zt_write_component {
    let (l, ll) = logical.map_or((null(), 0), s);
    zt_write_component {
        role: role.as_ptr().cast(),
        role_len: role.len(),
        dtype: dtype as u32,
        logical_type: l,
        logical_type_len: ll,
        data: data.as_ptr().cast(),
        len: data.len(),
    }
}

/// The tensors every file holds: name -> the bytes of each part, as the
/// reader must give them back.
struct Model {
    bf16: Vec<u8>,
    coo_values: Vec<u8>,
    coo_coords: Vec<u64>,
    coo32_values: Vec<u8>,
    csr_values: Vec<u8>,
    csr_indices: Vec<u64>,
    csr_indptr: Vec<u64>,
    csr32_values: Vec<u8>,
    f32: Vec<u8>,
    gguf: Vec<u8>,
    mx_data: Vec<u8>,
    mx_scales: Vec<u8>,
    quant_data: Vec<u8>,
    quant_scales: Vec<u8>,
    quant_zeros: Vec<u8>,
    tied: Vec<u8>,
    custom: Vec<u8>,
}

const BOOL: [u8; 7] = [0, 1, 1, 0, 1, 0, 0];
const FP8: [u8; 3] = [0x38, 0x40, 0xb8];

/// Objects in ascending bytewise name order (canonical form's).
const NAMES: [&str; 16] = [
    "bf16", "bool", "coo", "coo32", "csr", "csr32", "empty", "f32", "fp8", "gguf", "mx", "quant", "scalar", "tied.a",
    "tied.b", "x.custom",
];

fn model() -> Model {
    Model {
        bf16: bytes(1, 30),
        coo_values: bytes(2, 12),
        coo_coords: vec![1, 0, 4, 0, 0, 1, 2, 1, 0],
        coo32_values: bytes(3, 6),
        csr_values: bytes(4, 24),
        csr_indices: vec![0, 5, 1, 2, 4, 3],
        csr_indptr: vec![0, 2, 2, 5, 6],
        csr32_values: bytes(5, 48),
        f32: [1.5f32, -2.0, f32::INFINITY, 0.1, f32::MIN_POSITIVE, -0.0].iter().flat_map(|x| x.to_le_bytes()).collect(),
        gguf: bytes(6, 4 * 34),
        mx_data: bytes(7, 64),
        mx_scales: bytes(8, 4),
        quant_data: bytes(9, 1024),
        quant_scales: bytes(10, 32),
        quant_zeros: bytes(11, 8),
        tied: bytes(12, 32),
        custom: bytes(13, 16),
    }
}

impl Model {
    /// Every object's parts and the bytes each reads back as.
    fn expected(&self) -> BTreeMap<&'static str, Vec<(&'static str, Vec<u8>)>> {
        let idx32 = |v: &[u64]| le32(&v.iter().map(|&x| x as u32).collect::<Vec<_>>());
        BTreeMap::from([
            ("bf16", vec![("data", self.bf16.clone())]),
            ("bool", vec![("data", BOOL.to_vec())]),
            ("coo", vec![("coords", le64(&self.coo_coords)), ("values", self.coo_values.clone())]),
            ("coo32", vec![("coords", idx32(&self.coo_coords)), ("values", self.coo32_values.clone())]),
            (
                "csr",
                vec![
                    ("indices", le64(&self.csr_indices)),
                    ("indptr", le64(&self.csr_indptr)),
                    ("values", self.csr_values.clone()),
                ],
            ),
            (
                "csr32",
                vec![
                    ("indices", idx32(&self.csr_indices)),
                    ("indptr", idx32(&self.csr_indptr)),
                    ("values", self.csr32_values.clone()),
                ],
            ),
            ("empty", vec![("data", vec![])]),
            ("f32", vec![("data", self.f32.clone())]),
            ("fp8", vec![("data", FP8.to_vec())]),
            ("gguf", vec![("data", self.gguf.clone())]),
            ("mx", vec![("data", self.mx_data.clone()), ("scales", self.mx_scales.clone())]),
            (
                "quant",
                vec![
                    ("data", self.quant_data.clone()),
                    ("scales", self.quant_scales.clone()),
                    ("zeros", self.quant_zeros.clone()),
                ],
            ),
            ("scalar", vec![("data", 1.5f32.to_le_bytes().to_vec())]),
            ("tied.a", vec![("data", self.tied.clone())]),
            ("tied.b", vec![("data", self.tied.clone())]),
            ("x.custom", vec![("p", self.custom.clone()), ("q", self.custom.clone()), ("r", BOOL.to_vec())]),
        ])
    }

    /// Write `names` (in that order) through the C ABI with `wopts`;
    /// `seekable_f32`: the object `f32` asks for zt.zstd-seekable itself.
    fn write_c(&self, path: &Path, wopts: &zt_writer_options, names: &[&str], seekable_f32: bool) {
        use zt_dtype::*;
        unsafe {
            let mut w = null_mut();
            ok(zt_writer_create_with_options(cpath(path).as_ptr(), wopts, &mut w));
            for &name in names {
                let (n, nl) = s(name);
                let st = match name {
                    "bf16" => zt_writer_add_dense(
                        w,
                        n,
                        nl,
                        ZT_DTYPE_BF16 as u32,
                        [3u64, 5].as_ptr(),
                        2,
                        self.bf16.as_ptr().cast(),
                        30,
                        null(),
                    ),
                    "bool" => zt_writer_add_dense(
                        w,
                        n,
                        nl,
                        ZT_DTYPE_BOOL as u32,
                        [7u64].as_ptr(),
                        1,
                        BOOL.as_ptr().cast(),
                        7,
                        null(),
                    ),
                    "coo" => zt_writer_add_sparse_coo(
                        w,
                        n,
                        nl,
                        ZT_DTYPE_F32 as u32,
                        [5u64, 2, 3].as_ptr(),
                        3,
                        self.coo_values.as_ptr().cast(),
                        12,
                        self.coo_coords.as_ptr(),
                        9,
                        null(),
                    ),
                    "coo32" => {
                        let c: Vec<u32> = self.coo_coords.iter().map(|&x| x as u32).collect();
                        zt_writer_add_sparse_coo_u32(
                            w,
                            n,
                            nl,
                            ZT_DTYPE_I16 as u32,
                            [5u64, 2, 3].as_ptr(),
                            3,
                            self.coo32_values.as_ptr().cast(),
                            6,
                            c.as_ptr(),
                            9,
                            null(),
                        )
                    }
                    "csr" => zt_writer_add_sparse_csr(
                        w,
                        n,
                        nl,
                        ZT_DTYPE_F32 as u32,
                        4,
                        6,
                        self.csr_values.as_ptr().cast(),
                        24,
                        self.csr_indices.as_ptr(),
                        6,
                        self.csr_indptr.as_ptr(),
                        5,
                        null(),
                    ),
                    "csr32" => {
                        let i: Vec<u32> = self.csr_indices.iter().map(|&x| x as u32).collect();
                        let p: Vec<u32> = self.csr_indptr.iter().map(|&x| x as u32).collect();
                        zt_writer_add_sparse_csr_u32(
                            w,
                            n,
                            nl,
                            ZT_DTYPE_F64 as u32,
                            4,
                            6,
                            self.csr32_values.as_ptr().cast(),
                            48,
                            i.as_ptr(),
                            6,
                            p.as_ptr(),
                            5,
                            null(),
                        )
                    }
                    "empty" => {
                        zt_writer_add_dense(w, n, nl, ZT_DTYPE_F32 as u32, [0u64, 4].as_ptr(), 2, null(), 0, null())
                    }
                    "f32" => {
                        let mut a = [attr("origin", zt_attr_kind::ZT_ATTR_TEXT), attr("n", zt_attr_kind::ZT_ATTR_INT)];
                        a[0].data = "c".as_ptr().cast();
                        a[0].data_len = 1;
                        a[1].int_value = 3;
                        let mut o = zeroed_options();
                        o.attributes = a.as_ptr();
                        o.attribute_count = 2;
                        if seekable_f32 {
                            o.encoding = zt_encoding::ZT_ENCODING_ZSTD_SEEKABLE as u32;
                            o.zstd_level = 1;
                        }
                        zt_writer_add_dense(
                            w,
                            n,
                            nl,
                            ZT_DTYPE_F32 as u32,
                            [2u64, 3].as_ptr(),
                            2,
                            self.f32.as_ptr().cast(),
                            24,
                            &o,
                        )
                    }
                    "fp8" => {
                        let mut o = zeroed_options();
                        o.logical_type = c"f8_e4m3fn".as_ptr();
                        o.logical_type_len = ZT_NUL_TERMINATED;
                        zt_writer_add_dense(
                            w,
                            n,
                            nl,
                            ZT_DTYPE_U8 as u32,
                            [3u64].as_ptr(),
                            1,
                            FP8.as_ptr().cast(),
                            3,
                            &o,
                        )
                    }
                    "gguf" => zt_writer_add_gguf(
                        w,
                        n,
                        nl,
                        c"q8_0".as_ptr(),
                        ZT_NUL_TERMINATED,
                        [2u64, 64].as_ptr(),
                        2,
                        32,
                        34,
                        self.gguf.as_ptr().cast(),
                        self.gguf.len(),
                        null(),
                    ),
                    "mx" => {
                        let d = comp("data", ZT_DTYPE_U8, Some("f4_e2m1"), &self.mx_data);
                        let sc = comp("scales", ZT_DTYPE_U8, Some("f8_e8m0"), &self.mx_scales);
                        zt_writer_add_mx(w, n, nl, [2u64, 64].as_ptr(), 2, 32, -1, &d, &sc, null())
                    }
                    "quant" => {
                        let p = zt_quant_group_params {
                            bits: 4,
                            group_size: 128,
                            axis: 0,
                            word: ZT_DTYPE_U32 as u32,
                            order: zt_quant_order::ZT_QUANT_LSB_FIRST as u32,
                            scale_form: zt_quant_scale_form::ZT_QUANT_F16_FACTORS as u32,
                            zero_point: zt_quant_zero_point::ZT_QUANT_ZERO_SAME_AS_DATA as u32,
                            zero_value: 0,
                        };
                        let d = comp("data", ZT_DTYPE_U32, None, &self.quant_data);
                        let sc = comp("scales", ZT_DTYPE_F16, None, &self.quant_scales);
                        let z = comp("zeros", ZT_DTYPE_U32, None, &self.quant_zeros);
                        zt_writer_add_quant_group(w, n, nl, [256u64, 8].as_ptr(), 2, &p, &d, &sc, &z, null())
                    }
                    "scalar" => zt_writer_add_dense(
                        w,
                        n,
                        nl,
                        ZT_DTYPE_F32 as u32,
                        null(),
                        0,
                        1.5f32.to_le_bytes().as_ptr().cast(),
                        4,
                        null(),
                    ),
                    "tied.a" | "tied.b" => zt_writer_add_dense(
                        w,
                        n,
                        nl,
                        ZT_DTYPE_F32 as u32,
                        [2u64, 4].as_ptr(),
                        2,
                        self.tied.as_ptr().cast(),
                        32,
                        null(),
                    ),
                    "x.custom" => {
                        let parts = [
                            comp("r", ZT_DTYPE_BOOL, None, &BOOL),
                            comp("p", ZT_DTYPE_F32, None, &self.custom),
                            comp("q", ZT_DTYPE_F32, None, &self.custom),
                        ];
                        zt_writer_add_object(
                            w,
                            n,
                            nl,
                            c"x.custom/1".as_ptr(),
                            ZT_NUL_TERMINATED,
                            [4u64].as_ptr(),
                            1,
                            parts.as_ptr(),
                            3,
                            null(),
                        )
                    }
                    _ => unreachable!("{name}"),
                };
                assert_eq!(st, zt_status::ZT_OK, "{name}: {}", last_error());
            }
            let key = |k: &str| (k.as_ptr().cast::<c_char>(), k.len());
            let (k, kl) = key("int");
            ok(zt_writer_set_attribute_int(w, k, kl, -7));
            let (k, kl) = key("big");
            ok(zt_writer_set_attribute_uint(w, k, kl, 1 << 40));
            let (k, kl) = key("float");
            ok(zt_writer_set_attribute_float(w, k, kl, 0.1));
            let (k, kl) = key("yes");
            ok(zt_writer_set_attribute_bool(w, k, kl, true));
            let (k, kl) = key("text");
            ok(zt_writer_set_attribute_text(w, k, kl, c"\u{fc}".as_ptr(), ZT_NUL_TERMINATED));
            let (k, kl) = key("list");
            ok(zt_writer_set_attribute_cbor(w, k, kl, [0x82, 0x01, 0xf6].as_ptr(), 3));
            ok(zt_writer_set_attribute(w, &attr("none", zt_attr_kind::ZT_ATTR_NULL)));
            let mut a = attr("raw", zt_attr_kind::ZT_ATTR_BYTES);
            a.data = [1u8, 2].as_ptr().cast();
            a.data_len = 2;
            ok(zt_writer_set_attribute(w, &a));
            ok(zt_writer_finish(w));
        }
    }

    /// The same canonical file through the Rust writer.
    fn write_rust(&self, path: &Path) {
        let part = |n: &'static str, d: DType, b: &[u8]| NewPart::new(n, d, b.to_vec());
        let mut w = Writer::create(path).unwrap();
        let idx32 = |v: &[u64]| le32(&v.iter().map(|&x| x as u32).collect::<Vec<_>>());
        let objects = vec![
            NewObject::dense("bf16", &[3, 5], DType::BF16, self.bf16.clone()),
            NewObject::dense("bool", &[7], DType::Bool, BOOL.to_vec()),
            NewObject::new("coo", &[5, 2, 3], "zt.sparse_coo/1")
                .part(part("values", DType::F32, &self.coo_values))
                .part(part("coords", DType::U64, &le64(&self.coo_coords))),
            NewObject::new("coo32", &[5, 2, 3], "zt.sparse_coo/1")
                .part(part("values", DType::I16, &self.coo32_values))
                .part(part("coords", DType::U32, &idx32(&self.coo_coords))),
            NewObject::new("csr", &[4, 6], "zt.sparse_csr/1")
                .part(part("values", DType::F32, &self.csr_values))
                .part(part("indices", DType::U64, &le64(&self.csr_indices)))
                .part(part("indptr", DType::U64, &le64(&self.csr_indptr))),
            NewObject::new("csr32", &[4, 6], "zt.sparse_csr/1")
                .part(part("values", DType::F64, &self.csr32_values))
                .part(part("indices", DType::U32, &idx32(&self.csr_indices)))
                .part(part("indptr", DType::U32, &idx32(&self.csr_indptr))),
            NewObject::dense("empty", &[0, 4], DType::F32, Vec::new()),
            NewObject::dense("f32", &[2, 3], DType::F32, self.f32.clone()).attribute("origin", "c").attribute("n", 3),
            NewObject::new("fp8", &[3], "dense").part(part("data", DType::U8, &FP8).logical("f8_e4m3fn")),
            NewObject::new("gguf", &[2, 64], "gguf.q8_0/1")
                .part(part("data", DType::U8, &self.gguf))
                .attribute("elems_per_block", 32)
                .attribute("block_bytes", 34),
            NewObject::new("mx", &[2, 64], "zt.mx/1")
                .part(part("data", DType::U8, &self.mx_data).logical("f4_e2m1"))
                .part(part("scales", DType::U8, &self.mx_scales).logical("f8_e8m0"))
                .attribute("block_size", 32)
                .attribute("scale_form", "e8m0_exponent"),
            NewObject::new("quant", &[256, 8], "zt.quant_group/1")
                .part(part("data", DType::U32, &self.quant_data))
                .part(part("scales", DType::F16, &self.quant_scales))
                .part(part("zeros", DType::U32, &self.quant_zeros))
                .attribute("bits", 4)
                .attribute("group_size", 128)
                .attribute("axis", 0)
                .attribute(
                    "packing",
                    AttrValue::map([("word", "u32".into()), ("order", "lsb_first".into()), ("per_word", 8.into())]),
                )
                .attribute("scale_form", "f16_factors")
                .attribute(
                    "zero_point",
                    AttrValue::map([("form", "tensor".into()), ("packing", "same_as_data".into())]),
                ),
            NewObject::dense("scalar", &[], DType::F32, 1.5f32.to_le_bytes().to_vec()),
            NewObject::dense("tied.a", &[2, 4], DType::F32, self.tied.clone()),
            NewObject::dense("tied.b", &[2, 4], DType::F32, self.tied.clone()),
            NewObject::new("x.custom", &[4], "x.custom/1")
                .part(part("p", DType::F32, &self.custom))
                .part(part("q", DType::F32, &self.custom))
                .part(part("r", DType::Bool, &BOOL)),
        ];
        for o in objects {
            w.add(o).unwrap();
        }
        w.set_attribute("int", -7).unwrap();
        w.set_attribute("big", 1u64 << 40).unwrap();
        w.set_attribute("float", 0.1f64).unwrap();
        w.set_attribute("yes", true).unwrap();
        w.set_attribute("text", "\u{fc}").unwrap();
        w.set_attribute("list", AttrValue::Array(vec![1.into(), AttrValue::Null])).unwrap();
        w.set_attribute("none", AttrValue::Null).unwrap();
        w.set_attribute("raw", AttrValue::Bytes(vec![1, 2])).unwrap();
        w.finish().unwrap();
    }
}

/// Read every part back through `zt_open` (mapped and positional) and
/// compare it with `want`; `zt_verify` checks digests and data rules.
fn read_back_through_the_c_abi(path: &Path, want: &BTreeMap<&str, Vec<(&str, Vec<u8>)>>) {
    for flags in [0, ZT_OPEN_POSITIONAL] {
        unsafe {
            let mut f = null_mut();
            ok(zt_open(cpath(path).as_ptr(), flags, &mut f));
            assert_eq!(zt_object_count(f), want.len(), "{}", path.display());
            for (name, parts) in want {
                let mut o = zt_object { index: 0, owner: 0 };
                let (n, nl) = s(name);
                ok(zt_find(f, n, nl, &mut o));
                for (role, bytes) in parts {
                    let (r, rl) = s(role);
                    let mut buf = vec![0u8; bytes.len() + 1];
                    let mut got = 0;
                    let st = zt_component_read(f, &o, r, rl, buf.as_mut_ptr().cast(), buf.len(), &mut got);
                    assert_eq!(st, zt_status::ZT_OK, "{}: {name}/{role}: {}", path.display(), last_error());
                    assert!(buf[..got] == bytes[..], "{}: {name}/{role} reads back differently", path.display());
                }
            }
            assert_eq!(zt_verify(f, 0), zt_status::ZT_OK, "{}: {}", path.display(), last_error());
            zt_close(f);
        }
    }
}

#[test]
#[cfg_attr(target_endian = "big", ignore = "test data assumes a little-endian host")]
fn canonical_file_from_c_is_byte_identical_to_rusts() {
    let dir = temp_dir("canonical");
    let m = model();
    let (c, rust) = (dir.join("c.zt"), dir.join("rust.zt"));
    // The default of v2 is canonical form; saying so changes nothing.
    m.write_c(&c, &v2_options(), &NAMES, false);
    m.write_rust(&rust);
    let (a, b) = (std::fs::read(&c).unwrap(), std::fs::read(&rust).unwrap());
    assert!(a == b, "the C ABI's canonical file differs from the Rust writer's ({} vs {} bytes)", a.len(), b.len());
    let explicit = dir.join("explicit.zt");
    let o = zt_writer_options { canonical: zt_canonical::ZT_CANONICAL_YES as u32, alignment: 65536, ..v2_options() };
    m.write_c(&explicit, &o, &NAMES, false);
    assert!(std::fs::read(&explicit).unwrap() == a);
    // Every option 0 (`format_version` DEFAULT) is the same canonical v2 file (issue 29).
    let default = dir.join("default.zt");
    m.write_c(&default, &options(), &NAMES, false);
    assert!(std::fs::read(&default).unwrap() == a, "the default writer is canonical v2");
    // And so is `zt_writer_create`'s (no options at all).
    let (plain, rust1) = (dir.join("plain.zt"), dir.join("rust1.zt"));
    unsafe {
        let mut w = null_mut();
        ok(zt_writer_create(cpath(&plain).as_ptr(), &mut w));
        let v = [1.5f32, -2.0];
        ok(zt_writer_add_dense(
            w,
            c"w".as_ptr(),
            1,
            zt_dtype::ZT_DTYPE_F32 as u32,
            [2u64].as_ptr(),
            1,
            v.as_ptr().cast(),
            8,
            null(),
        ));
        ok(zt_writer_finish(w));
    }
    let mut w = Writer::create(&rust1).unwrap();
    w.add(NewObject::new("w", &[2], "dense").part(NewPart::from_slice("data", &[1.5f32, -2.0]))).unwrap();
    w.finish().unwrap();
    assert!(std::fs::read(&plain).unwrap() == std::fs::read(&rust1).unwrap(), "zt_writer_create writes canonical v2");
    read_back_through_the_c_abi(&c, &m.expected());
    // Canonical form: objects in ascending name order, no encoded parts.
    unsafe {
        let mut w = null_mut();
        ok(zt_writer_create_with_options(cpath(&dir.join("x.zt")).as_ptr(), &v2_options(), &mut w));
        let one = [1u8];
        ok(zt_writer_add_dense(
            w,
            c"b".as_ptr(),
            1,
            zt_dtype::ZT_DTYPE_U8 as u32,
            [1u64].as_ptr(),
            1,
            one.as_ptr().cast(),
            1,
            null(),
        ));
        let st = zt_writer_add_dense(
            w,
            c"a".as_ptr(),
            1,
            zt_dtype::ZT_DTYPE_U8 as u32,
            [1u64].as_ptr(),
            1,
            one.as_ptr().cast(),
            1,
            null(),
        );
        assert_eq!(st, zt_status::ZT_ERR_FORMAT);
        assert!(last_error().contains("ascending"), "{}", last_error());
        let mut o = zeroed_options();
        o.encoding = zt_encoding::ZT_ENCODING_ZSTD_SEEKABLE as u32;
        let st = zt_writer_add_dense(
            w,
            c"c".as_ptr(),
            1,
            zt_dtype::ZT_DTYPE_U8 as u32,
            [1u64].as_ptr(),
            1,
            one.as_ptr().cast(),
            1,
            &o,
        );
        assert_eq!(st, zt_status::ZT_ERR_INVALID_ARGUMENT);
        assert!(last_error().contains("canonical"), "{}", last_error());
        // v1.2-only calls are refused on a v2 writer, and the writer stays usable.
        let mut c3 = comp("", zt_dtype::ZT_DTYPE_I32, None, &[0; 4]);
        c3.role = null(); // implied by position
        let st = zt_writer_add_quantized_group(
            w,
            c"q".as_ptr(),
            1,
            [8u64].as_ptr(),
            1,
            &c3,
            &c3,
            &c3,
            4,
            8,
            c"8_per_i32".as_ptr(),
            ZT_NUL_TERMINATED,
            null(),
        );
        assert_eq!(st, zt_status::ZT_ERR_INVALID_ARGUMENT);
        assert!(last_error().contains("zt_writer_add_quant_group"), "{}", last_error());
        ok(zt_writer_finish(w));
    }
}

/// The non-canonical files: name, options, objects in an order of their own.
fn non_canonical_cases() -> Vec<(&'static str, zt_writer_options, bool)> {
    let v2 = v2_options();
    vec![
        // The issue's combination: 4 KiB + sha256 + zstd-seekable + sharded.
        (
            "4k_sha256_seekable_sharded.zt",
            zt_writer_options {
                alignment: 4096,
                digest: zt_writer_digest::ZT_WRITER_DIGEST_SHA256 as u32,
                compression: zt_encoding::ZT_ENCODING_ZSTD_SEEKABLE as u32,
                frame_size: 64,
                shard_size: 12288,
                ..v2
            },
            false,
        ),
        ("4k.zt", zt_writer_options { canonical: zt_canonical::ZT_CANONICAL_NO as u32, ..v2 }, false),
        (
            "16k_no_digest.zt",
            zt_writer_options { alignment: 16384, digest: zt_writer_digest::ZT_WRITER_DIGEST_NONE as u32, ..v2 },
            true,
        ),
        (
            "sha256_seekable.zt",
            zt_writer_options {
                digest: zt_writer_digest::ZT_WRITER_DIGEST_SHA256 as u32,
                compression: zt_encoding::ZT_ENCODING_ZSTD_SEEKABLE as u32,
                compression_level: 5,
                ..v2
            },
            false,
        ),
    ]
}

/// Reads every file with upstream's reader: one `P path object part hex`
/// line per part (its decoded bytes), one `V path checked undigested` line
/// per file from `verify(deep=True)`.
const UPSTREAM_READ: &str = r#"
import importlib.metadata, sys, ztensor
print("VERSION", importlib.metadata.version("ztensor"))
for path in sys.argv[1:]:
    s = ztensor.open(path)
    for name in s.keys():
        t = s.get(name)
        for p in t.parts:
            print("P", path, name, p, t[p].tobytes().hex() or "-")
    v = ztensor.verify(path, deep=True)
    print("V", path, v.checked, v.undigested)
"#;

#[test]
#[cfg_attr(target_endian = "big", ignore = "test data assumes a little-endian host")]
fn upstream_reads_every_file_written_through_the_c_abi() {
    let dir = temp_dir("upstream");
    let m = model();
    let want = m.expected();
    let n_parts: usize = want.values().map(Vec::len).sum();
    let mut files = vec![(dir.join("canonical.zt"), true)];
    m.write_c(&files[0].0, &v2_options(), &NAMES, false);
    for (i, (file, o, seekable_f32)) in non_canonical_cases().into_iter().enumerate() {
        let path = dir.join(file);
        // Objects in an order of their own (not canonical form's).
        let mut names = NAMES.to_vec();
        names.rotate_left(3 + i);
        m.write_c(&path, &o, &names, seekable_f32);
        read_back_through_the_c_abi(&path, &want);
        files.push((path, o.digest != zt_writer_digest::ZT_WRITER_DIGEST_NONE as u32));
    }
    // The sharded root has data shards beside it.
    let shards = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with("4k_sha256_seekable_sharded-"))
        .count();
    assert!(shards >= 2, "{shards} data shards");

    let args: Vec<&Path> = files.iter().map(|(p, _)| p.as_path()).collect();
    let out = run_python(UPSTREAM_READ, &args);
    let mut lines = out.lines();
    assert_eq!(
        lines.next().map(str::trim),
        Some(format!("VERSION {REFERENCE_VERSION}").as_str()),
        "\n\nREFERENCE NOT AVAILABLE: `{}` is not ztensor {REFERENCE_VERSION}.\n\n",
        python()
    );
    let mut got: BTreeMap<String, BTreeMap<(String, String), Vec<u8>>> = BTreeMap::new();
    let mut verified: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for l in lines {
        let f: Vec<&str> = l.split(' ').collect();
        match f[..] {
            ["P", path, obj, part, hex] => {
                let b = if hex == "-" {
                    vec![]
                } else {
                    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
                };
                got.entry(path.into()).or_default().insert((obj.into(), part.into()), b);
            }
            ["V", path, checked, undigested] => {
                verified.insert(path.into(), (checked.parse().unwrap(), undigested.parse().unwrap()));
            }
            _ => panic!("unexpected reference output line {l:?}"),
        }
    }
    for (path, digested) in &files {
        let p = path.to_str().unwrap();
        let parts = got.get(p).unwrap_or_else(|| panic!("upstream read nothing of {p}"));
        assert_eq!(parts.len(), n_parts, "{p}: parts upstream sees");
        for (obj, list) in &want {
            for (role, bytes) in list {
                let b = parts
                    .get(&(obj.to_string(), role.to_string()))
                    .unwrap_or_else(|| panic!("{p}: upstream lacks {obj}/{role}"));
                assert!(b == bytes, "{p}: upstream reads {obj}/{role} differently");
            }
        }
        let want_verify = if *digested { (n_parts, 0) } else { (0, n_parts) };
        assert_eq!(verified[p], want_verify, "{p}: upstream verify(deep=True): (checked, undigested)");
    }
}

/// Options that do not go together are refused, naming what is wrong,
/// and nothing is created.
#[test]
fn invalid_option_combinations_are_refused_by_name() {
    let dir = temp_dir("refused");
    let path = dir.join("x.zt");
    let v1 = zt_writer_options { format_version: zt_format_version::ZT_FORMAT_VERSION_1_2 as u32, ..options() };
    let v2 = v2_options();
    let yes = zt_canonical::ZT_CANONICAL_YES as u32;
    let cases: Vec<(zt_writer_options, &str)> = vec![
        (zt_writer_options { canonical: yes, alignment: 4096, ..v2 }, "alignment"),
        (
            zt_writer_options { canonical: yes, digest: zt_writer_digest::ZT_WRITER_DIGEST_SHA256 as u32, ..v2 },
            "digest",
        ),
        (
            zt_writer_options { canonical: yes, compression: zt_encoding::ZT_ENCODING_ZSTD_SEEKABLE as u32, ..v2 },
            "compression",
        ),
        (zt_writer_options { canonical: yes, shard_size: 1 << 20, ..v2 }, "shard_size"),
        (zt_writer_options { alignment: 3000, ..v2 }, "power of two"),
        (zt_writer_options { alignment: 2048, ..v2 }, "power of two"),
        (zt_writer_options { alignment: 1 << 31, ..v2 }, "1 GiB"),
        (zt_writer_options { alignment: 1 << 63, ..v2 }, "1 GiB"),
        (zt_writer_options { digest: zt_writer_digest::ZT_WRITER_DIGEST_CRC32C as u32, ..v2 }, "CRC32C"),
        (zt_writer_options { compression: zt_encoding::ZT_ENCODING_ZSTD as u32, ..v2 }, "ZSTD_SEEKABLE"),
        (
            zt_writer_options {
                compression: zt_encoding::ZT_ENCODING_ZSTD_SEEKABLE as u32,
                frame_size: (16 << 20) + 1,
                ..v2
            },
            "frame_size",
        ),
        (zt_writer_options { compression_level: 23, compression: 2, ..v2 }, "compression_level"),
        (zt_writer_options { frame_size: 4096, ..v2 }, "need `compression`"),
        (zt_writer_options { shard_size: 1 << 20, ..v1 }, "shard_size"),
        (zt_writer_options { alignment: 4096, ..v1 }, "alignment"),
        (zt_writer_options { canonical: yes, ..v1 }, "canonical"),
        (zt_writer_options { digest: zt_writer_digest::ZT_WRITER_DIGEST_XXH3 as u32, ..v1 }, "XXH3"),
        (zt_writer_options { compression: zt_encoding::ZT_ENCODING_ZSTD_SEEKABLE as u32, ..v1 }, "v2"),
        (zt_writer_options { format_version: 7, ..v1 }, "format_version"),
        (zt_writer_options { canonical: 9, ..v2 }, "canonical"),
        (zt_writer_options { struct_size: 8, ..v2 }, "struct_size"),
    ];
    for (o, word) in cases {
        let mut w = 1usize as *mut zt_writer;
        let st = unsafe { zt_writer_create_with_options(cpath(&path).as_ptr(), &o, &mut w) };
        assert_eq!(st, zt_status::ZT_ERR_INVALID_ARGUMENT, "{o:?}");
        assert!(w.is_null());
        assert!(last_error().contains(word), "{o:?}: {:?} does not say {word:?}", last_error());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "nothing is created");
    }
    // A newer caller's larger struct: accepted when the fields it adds are 0.
    #[repr(C)]
    struct Newer {
        o: zt_writer_options,
        more: u64,
    }
    for (more, want) in [(0, zt_status::ZT_OK), (1, zt_status::ZT_ERR_INVALID_ARGUMENT)] {
        let n = Newer { o: zt_writer_options { struct_size: core::mem::size_of::<Newer>(), ..v2 }, more };
        let mut w = null_mut();
        let st = unsafe { zt_writer_create_with_options(cpath(&path).as_ptr(), &n.o, &mut w) };
        assert_eq!(st, want, "{}", last_error());
        unsafe { zt_writer_abort(w) };
    }
    // v1.2-only and v2-only calls on the other version's writer.
    unsafe {
        let mut w = null_mut();
        ok(zt_writer_create_with_options(cpath(&path).as_ptr(), &v1, &mut w));
        let st = zt_writer_add_sparse_csr_u32(
            w,
            c"m".as_ptr(),
            1,
            1,
            1,
            1,
            [0f32].as_ptr().cast(),
            4,
            [0u32].as_ptr(),
            1,
            [0u32, 1].as_ptr(),
            2,
            null(),
        );
        assert_eq!(st, zt_status::ZT_ERR_INVALID_ARGUMENT);
        assert!(last_error().contains("format v2"), "{}", last_error());
        let mut o = zeroed_options();
        o.digest = zt_digest::ZT_DIGEST_XXH3 as u32;
        let st = zt_writer_add_dense(w, c"d".as_ptr(), 1, 1, [1u64].as_ptr(), 1, [0f32].as_ptr().cast(), 4, &o);
        assert_eq!(st, zt_status::ZT_ERR_INVALID_ARGUMENT);
        zt_writer_abort(w);
        // A v2 file has one digest: an object may not choose another.
        let o2 = zt_writer_options { digest: zt_writer_digest::ZT_WRITER_DIGEST_SHA256 as u32, ..v2 };
        ok(zt_writer_create_with_options(cpath(&path).as_ptr(), &o2, &mut w));
        let st = zt_writer_add_dense(w, c"d".as_ptr(), 1, 1, [1u64].as_ptr(), 1, [0f32].as_ptr().cast(), 4, &o);
        assert_eq!(st, zt_status::ZT_ERR_INVALID_ARGUMENT);
        assert!(last_error().contains("one digest"), "{}", last_error());
        o.digest = zt_digest::ZT_DIGEST_SHA256 as u32;
        ok(zt_writer_add_dense(w, c"d".as_ptr(), 1, 1, [1u64].as_ptr(), 1, [0f32].as_ptr().cast(), 4, &o));
        zt_writer_abort(w);
    }
}

/// A v1.2 writer with file-wide compression and digest writes what
/// today's per-object options write.
#[test]
#[cfg_attr(target_endian = "big", ignore = "test data assumes a little-endian host")]
fn v1_2_writer_options_are_defaults_for_objects() {
    let dir = temp_dir("v1");
    let data = bytes(20, 4000);
    let (a, b) = (dir.join("a.zt"), dir.join("b.zt"));
    unsafe {
        let o = zt_writer_options {
            format_version: zt_format_version::ZT_FORMAT_VERSION_1_2 as u32,
            digest: zt_writer_digest::ZT_WRITER_DIGEST_SHA256 as u32,
            compression: zt_encoding::ZT_ENCODING_ZSTD as u32,
            ..options()
        };
        let mut w = null_mut();
        ok(zt_writer_create_with_options(cpath(&a).as_ptr(), &o, &mut w));
        ok(zt_writer_add_dense(
            w,
            c"x".as_ptr(),
            1,
            zt_dtype::ZT_DTYPE_U8 as u32,
            [4000u64].as_ptr(),
            1,
            data.as_ptr().cast(),
            4000,
            null(),
        ));
        ok(zt_writer_finish(w));

        let v1 = zt_writer_options { format_version: zt_format_version::ZT_FORMAT_VERSION_1_2 as u32, ..options() };
        ok(zt_writer_create_with_options(cpath(&b).as_ptr(), &v1, &mut w));
        let mut oo = zeroed_options();
        oo.encoding = zt_encoding::ZT_ENCODING_ZSTD as u32;
        oo.digest = zt_digest::ZT_DIGEST_SHA256 as u32;
        ok(zt_writer_add_dense(
            w,
            c"x".as_ptr(),
            1,
            zt_dtype::ZT_DTYPE_U8 as u32,
            [4000u64].as_ptr(),
            1,
            data.as_ptr().cast(),
            4000,
            &oo,
        ));
        ok(zt_writer_finish(w));
    }
    let (a, b) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert!(a == b);
    assert_eq!(&a[..8], b"ZTEN1000", "a v1.2 file");
}

/// `zt_writer_add_dense` of `data` as `u8` elements (`ndim` as given, the
/// shape read from `shape` for that many values).
fn add_u8(w: *mut zt_writer, name: &str, shape: &[u64], ndim: usize, data: &[u8]) -> zt_status {
    let (n, nl) = s(name);
    let u8 = zt_dtype::ZT_DTYPE_U8 as u32;
    unsafe { zt_writer_add_dense(w, n, nl, u8, shape.as_ptr(), ndim, data.as_ptr().cast(), data.len(), null()) }
}

/// Audit "Hardening v2", M1: the padding before each blob and before the
/// manifest (up to `alignment - 1` bytes, alignment at most 1 GiB) is
/// left as holes in the file, as the Rust writer's file sink leaves it,
/// not written as zeros.
#[cfg(unix)]
#[test]
fn padding_is_left_as_holes() {
    use std::os::unix::fs::MetadataExt;
    let dir = temp_dir("holes");
    // A file system that stores holes (most do; tmpfs and ext4 do).
    let probe = dir.join("probe");
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut f = std::fs::File::create(&probe).unwrap();
        f.seek(SeekFrom::Start(16 << 20)).unwrap();
        f.write_all(b"x").unwrap();
    }
    if std::fs::metadata(&probe).unwrap().blocks() * 512 >= 16 << 20 {
        eprintln!("skipped: {} does not store holes", dir.display());
        return;
    }
    let path = dir.join("aligned.zt");
    let align = 16u64 << 20;
    let o = zt_writer_options { alignment: align, ..v2_options() };
    let mut want = BTreeMap::new();
    let mut w = null_mut();
    ok(unsafe { zt_writer_create_with_options(cpath(&path).as_ptr(), &o, &mut w) });
    for (i, name) in (0u8..).zip(["a", "b", "c"]) {
        ok(add_u8(w, name, &[8], 1, &[i; 8]));
        want.insert(name, vec![("data", vec![i; 8])]);
    }
    ok(unsafe { zt_writer_finish(w) });
    let m = std::fs::metadata(&path).unwrap();
    assert!(m.len() > 3 * align, "blobs at multiples of 16 MiB: {} bytes", m.len());
    let stored = m.blocks() * 512;
    assert!(stored < 1 << 20, "{stored} bytes of {} stored: the padding was written", m.len());
    read_back_through_the_c_abi(&path, &want);
    std::fs::remove_dir_all(dir).unwrap();
}

/// Audit "Hardening v2", M1: a rank over 64 (the format's limit, §3.3) is
/// refused before the shape is read or anything allocated: `ndim` 2^40
/// with a shape of two values would otherwise read 8 TiB past it. The
/// refusal leaves the writer usable.
#[test]
fn rank_over_64_is_refused_before_the_shape_is_read() {
    let dir = temp_dir("rank");
    for (version, file) in [(v2_options(), "v2.zt"), (options(), "v1.zt")] {
        let path = dir.join(file);
        let mut w = null_mut();
        ok(unsafe { zt_writer_create_with_options(cpath(&path).as_ptr(), &version, &mut w) });
        for ndim in [1 << 40, 65, usize::MAX] {
            assert_eq!(add_u8(w, "a", &[1, 1], ndim, &[1]), zt_status::ZT_ERR_INVALID_ARGUMENT, "ndim {ndim}");
            assert!(last_error().contains("64"), "{}", last_error());
        }
        let (shape, values, coords) = ([1u64, 1], [1u8], [0u64, 0]);
        let st = unsafe {
            let u8 = zt_dtype::ZT_DTYPE_U8 as u32;
            let (v, c) = (values.as_ptr().cast(), coords.as_ptr());
            zt_writer_add_sparse_coo(w, c"c".as_ptr(), 1, u8, shape.as_ptr(), 1 << 40, v, 1, c, 2, null())
        };
        assert_eq!(st, zt_status::ZT_ERR_INVALID_ARGUMENT);
        ok(add_u8(w, "a", &[1; 64], 64, &[1]));
        ok(unsafe { zt_writer_finish(w) });
        read_back_through_the_c_abi(&path, &BTreeMap::from([("a", vec![("data", vec![1u8])])]));
    }
    std::fs::remove_dir_all(dir).unwrap();
}
