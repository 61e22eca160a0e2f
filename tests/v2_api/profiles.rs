//! Per-profile typed accessors from an [`ztensor::Object`] of a v2 file, on
//! the files PyPI `ztensor` 2.1.2 wrote (`tests/fixtures/v2/generate.py`):
//! CSR and COO with `u32` and `u64` indices, `zt.quant_group/1` and
//! `zt.mx/1` parameters, `gguf.<type>/1` block constants.

use ztensor::v2::layout::{Mx, Order, QuantGroup, ScaleForm, ZeroPoint};
use ztensor::v2::types::{DType as V2DType, LogicalType};
use ztensor::v2::Profile;
use ztensor::{DType, ErrorKind, File, GgufBlocks};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/v2/valid");

fn read(name: &str) -> Vec<u8> {
    std::fs::read(format!("{DIR}/{name}")).unwrap()
}

fn wrong_format(e: ztensor::Error) -> bool {
    matches!(e.kind(), ErrorKind::WrongType { field: "format", .. })
}

#[test]
fn csr_with_u32_and_u64_indices() {
    for (file, dtype) in [("csr_u32.zt", DType::U32), ("csr_u64.zt", DType::U64)] {
        let bytes = read(file);
        let f = File::parse(&bytes).unwrap();
        let m = f.require("m").unwrap();
        assert_eq!(m.profile(), Some(Profile::Csr { index: if dtype == DType::U32 { V2DType::U32 } else { V2DType::U64 } }));
        let csr = m.csr().unwrap();
        assert_eq!((csr.rows, csr.cols, csr.index_dtype()), (4, 6, dtype), "{file}");
        assert_eq!(csr.indptr_to_vec().unwrap(), [0, 2, 2, 5, 6], "{file}");
        assert_eq!(csr.indices_to_vec().unwrap(), [0, 5, 1, 2, 4, 3], "{file}");
        assert_eq!(csr.values.to_vec_of::<f32>().unwrap().len(), 6, "{file}");
        if cfg!(target_endian = "little") {
            match dtype {
                DType::U32 => {
                    assert_eq!(csr.indptr_u32().unwrap(), [0, 2, 2, 5, 6]);
                    assert_eq!(csr.indices_u32().unwrap(), [0, 5, 1, 2, 4, 3]);
                    assert_eq!(csr.indices_u64().unwrap_err().kind(), ErrorKind::TypeMismatch);
                }
                _ => {
                    assert_eq!(csr.indptr_u64().unwrap(), [0, 2, 2, 5, 6]);
                    assert_eq!(csr.indices_u32().unwrap_err().kind(), ErrorKind::TypeMismatch);
                }
            }
        }
        let empty = f.require("empty").unwrap().csr().unwrap();
        assert_eq!((empty.rows, empty.cols), (3, 3));
        assert_eq!(empty.indptr_to_vec().unwrap(), [0, 0, 0, 0]);
        assert!(empty.indices_to_vec().unwrap().is_empty());
        assert!(wrong_format(m.coo().unwrap_err()));
    }
}

#[test]
fn coo_with_u32_and_u64_coordinates() {
    let bytes = read("coo.zt");
    let f = File::parse(&bytes).unwrap();
    let c = f.require("coo_u32").unwrap().coo().unwrap();
    assert_eq!((c.ndim, c.index_dtype()), (2, DType::U32));
    assert_eq!(c.coords_to_vec().unwrap(), [0, 1, 2, 2, 3, 0, 1, 2]);
    assert_eq!(c.dim_to_vec(1).unwrap(), [3, 0, 1, 2]);
    assert_eq!(c.values.to_vec_of::<f64>().unwrap().len(), 4);
    if cfg!(target_endian = "little") {
        assert_eq!(c.coords_u32().unwrap(), [0, 1, 2, 2, 3, 0, 1, 2]);
    }
    let c = f.require("coo_u64").unwrap().coo().unwrap();
    assert_eq!((c.ndim, c.index_dtype()), (3, DType::U64));
    assert_eq!(c.coords_to_vec().unwrap(), [1, 0, 4, 0, 0, 1, 2, 1, 0]);
    assert_eq!(c.dim_to_vec(2).unwrap(), [2, 1, 0]);
    assert_eq!(c.values.to_vec().unwrap(), [1, 0, 1]);
    let c = f.require("coo_1d").unwrap().coo().unwrap();
    assert_eq!((c.ndim, c.coords_to_vec().unwrap()), (1, vec![9, 0]));
    assert_eq!(c.values.to_vec().unwrap(), [255, 7]);
    assert!(wrong_format(f.require("coo_u32").unwrap().csr().unwrap_err()));
}

#[test]
fn mx_parameters() {
    let bytes = read("mx.zt");
    let f = File::parse(&bytes).unwrap();
    let mx = |n: &str| f.require(n).unwrap().mx().unwrap();
    assert_eq!(mx("mxfp4"), Mx { block_size: 32, axis: 1, element: Some(LogicalType::F4E2M1) });
    assert_eq!(mx("mxfp8_e4m3"), Mx { block_size: 32, axis: 0, element: Some(LogicalType::F8E4M3Fn) });
    assert_eq!(mx("mxfp8_e5m2_axis0"), Mx { block_size: 32, axis: 0, element: Some(LogicalType::F8E5M2) });
    assert_eq!(mx("mxint8"), Mx { block_size: 32, axis: 1, element: None });
    assert!(wrong_format(f.require("mxfp4").unwrap().quant_group().unwrap_err()));
    assert!(wrong_format(f.require("mxfp4").unwrap().gguf().unwrap_err()));
}

#[test]
fn quant_group_parameters() {
    let bytes = read("quant_group.zt");
    let f = File::parse(&bytes).unwrap();
    let q = |n: &str| f.require(n).unwrap().quant_group().unwrap();
    let int4 = |group_size, axis, order, zero_point| QuantGroup {
        bits: 4,
        group_size,
        axis,
        word: V2DType::U32,
        order,
        per_word: 8,
        scale_form: ScaleForm::F16Factors,
        zero_point,
    };
    assert_eq!(q("awq"), int4(128, 0, Order::LsbFirst, ZeroPoint::Tensor { same_as_data: true }));
    assert_eq!(q("gptq"), int4(128, 0, Order::MsbFirst, ZeroPoint::Tensor { same_as_data: true }));
    assert_eq!(q("mlx"), int4(64, 1, Order::LsbFirst, ZeroPoint::Tensor { same_as_data: false }));
    assert_eq!(q("bias8"), QuantGroup { group_size: 32, scale_form: ScaleForm::F32Factors, zero_point: ZeroPoint::Implied(8), ..int4(0, 0, Order::LsbFirst, ZeroPoint::None) });
    let byte = |bits, group_size, axis, per_word, scale_form| QuantGroup {
        bits,
        group_size,
        axis,
        word: V2DType::U8,
        order: Order::LsbFirst,
        per_word,
        scale_form,
        zero_point: ZeroPoint::None,
    };
    assert_eq!(q("sym_int8"), byte(8, 0, 0, 1, ScaleForm::F32Factors));
    assert_eq!(q("e8m0_2bit"), byte(2, 16, 1, 4, ScaleForm::E8m0Exponent));
    assert!(wrong_format(f.require("awq").unwrap().mx().unwrap_err()));
}

#[test]
fn gguf_block_constants() {
    let bytes = read("gguf.zt");
    let f = File::parse(&bytes).unwrap();
    let g = |n: &str| f.require(n).unwrap().gguf().unwrap();
    assert_eq!(g("q4_0"), GgufBlocks { ty: "q4_0", elems_per_block: 32, block_bytes: 18 });
    assert_eq!(g("q8_0"), GgufBlocks { ty: "q8_0", elems_per_block: 32, block_bytes: 34 });
    assert_eq!(g("q4_k"), GgufBlocks { ty: "q4_k", elems_per_block: 256, block_bytes: 144 });
    let bytes = read("convert_gguf.zt");
    let f = File::parse(&bytes).unwrap();
    assert_eq!(f.require("blk.q4").unwrap().gguf().unwrap(), GgufBlocks { ty: "q4_0", elems_per_block: 32, block_bytes: 18 });
    assert_eq!(f.require("blk.q8").unwrap().gguf().unwrap(), GgufBlocks { ty: "q8_0", elems_per_block: 32, block_bytes: 34 });
}

#[test]
fn dense_and_v1_objects_have_no_profile_parameters() {
    let bytes = read("types_canonical.zt");
    let f = File::parse(&bytes).unwrap();
    let o = f.objects().next().unwrap();
    assert_eq!(o.profile(), Some(Profile::Dense));
    assert!(wrong_format(o.csr().unwrap_err()) && wrong_format(o.mx().unwrap_err()) && wrong_format(o.gguf().unwrap_err()));
    let v1 = File::parse(ztensor::doc_example_file()).unwrap();
    let w = v1.require("weight").unwrap();
    assert_eq!(w.profile(), None);
    assert!(wrong_format(w.quant_group().unwrap_err()));
    // Through fs::Reader, from the tail alone: the same parameters.
    let r = ztensor::fs::Reader::open_with(format!("{DIR}/gguf.zt"), ztensor::fs::Mode::Positional).unwrap();
    assert_eq!(r.file().require("q4_k").unwrap().gguf().unwrap().block_bytes, 144);
}
