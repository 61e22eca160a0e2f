//! Adding objects of format v2's layout profiles that v1.2 has no
//! counterpart for: sparse indices as `u32`, `zt.quant_group/1`,
//! `zt.mx/1`, `gguf.<type>/1` (v2 writers only).

use super::args::{data_arg, dtype_arg, name_arg, shape_arg, str_arg};
use super::descriptors::{options, required, zt_write_component, zt_write_options, Part, V2Defaults};
use super::objects::{sparse_coo, sparse_csr, v2_object};
use super::{live, zt_writer, Version};
use crate::args::{arg, get};
use crate::guard::{guard, Fail};
use crate::zt_status;
use core::ffi::{c_char, c_void};
use ztensor_core::write::{AttrValue, Data};
use ztensor_core::DType;

/// Code order in a word of `zt.quant_group/1` (`zt_quant_group_params.order`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum zt_quant_order {
    /// The lowest index in the low bits (`"lsb_first"`).
    ZT_QUANT_LSB_FIRST = 0,
    /// The lowest index in the high bits (`"msb_first"`).
    ZT_QUANT_MSB_FIRST = 1,
}

/// How `scales` of `zt.quant_group/1` are read (`zt_quant_group_params.scale_form`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum zt_quant_scale_form {
    /// Multipliers, `f32` (`"f32_factors"`).
    ZT_QUANT_F32_FACTORS = 0,
    /// Multipliers, `f16` or `bf16` (`"f16_factors"`).
    ZT_QUANT_F16_FACTORS = 1,
    /// `u8` exponents with logical type `f8_e8m0` (`"e8m0_exponent"`).
    ZT_QUANT_E8M0_EXPONENT = 2,
}

/// The zero point of `zt.quant_group/1` (`zt_quant_group_params.zero_point`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum zt_quant_zero_point {
    /// No zero point (`{"form": "none"}`); no `zeros` part.
    ZT_QUANT_ZERO_NONE = 0,
    /// One constant for every code, `zero_value` (`{"form": "implied"}`); no `zeros` part.
    ZT_QUANT_ZERO_IMPLIED = 1,
    /// A `zeros` part packed like `data` (`{"form": "tensor", "packing": "same_as_data"}`).
    ZT_QUANT_ZERO_SAME_AS_DATA = 2,
    /// A `zeros` part of one plain element per group (`{"form": "tensor", "packing": "plain"}`).
    ZT_QUANT_ZERO_PLAIN = 3,
}

/// The parameters of a `zt.quant_group/1` object (its attributes).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct zt_quant_group_params {
    /// Bits per code: 2, 3, 4, 5, 6 or 8.
    pub bits: u64,
    /// Codes per group along `axis`; 0 for one group per channel.
    pub group_size: u64,
    /// The grouped axis.
    pub axis: u64,
    /// The storage word of `data`: `ZT_DTYPE_U8`, `_U16`, `_U32` or `_U64`
    /// (`packing.per_word` is its bits / `bits`).
    pub word: u32,
    /// A `zt_quant_order`.
    pub order: u32,
    /// A `zt_quant_scale_form`.
    pub scale_form: u32,
    /// A `zt_quant_zero_point`.
    pub zero_point: u32,
    /// `ZT_QUANT_ZERO_IMPLIED`: the constant.
    pub zero_value: i64,
}

/// The v2 defaults of the writer, or a refusal naming `what` for v1.2.
fn v2_only(w: &zt_writer, what: &'static str) -> Result<V2Defaults, Fail> {
    match w.version() {
        Version::V2(d) => Ok(d),
        Version::V1(_) => Err(Fail::invalid(what)),
    }
}

/// Add a `zt.sparse_csr/1` matrix of `rows` × `cols` with `uint32_t`
/// indices (v2 writers only; `zt_writer_add_sparse_csr` takes `uint64_t`
/// ones, for both versions). Arguments, options and statuses as
/// `zt_writer_add_sparse_csr`; `ZT_ERR_INVALID_ARGUMENT` on a v1.2 writer.
///
/// Ownership: nothing is kept. Thread-safety: one call at a time per writer.
///
/// # Safety
/// As `zt_writer_add_sparse_csr`, with `indices`, `indptr` valid for their
/// counts of `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_add_sparse_csr_u32(
    writer: *mut zt_writer,
    name: *const c_char,
    name_len: usize,
    dtype: u32,
    rows: u64,
    cols: u64,
    values: *const c_void,
    values_len: usize,
    indices: *const u32,
    indices_count: usize,
    indptr: *const u32,
    indptr_count: usize,
    opts: *const zt_write_options,
) -> zt_status {
    arg!(sparse_csr(
        writer,
        name,
        name_len,
        dtype,
        [rows, cols],
        values,
        values_len,
        [indices, indptr],
        [indices_count, indptr_count],
        opts,
    ))
}

/// Add a `zt.sparse_coo/1` tensor with `uint32_t` coordinates (v2 writers
/// only; `zt_writer_add_sparse_coo` takes `uint64_t` ones, for both
/// versions). Arguments (`coords`: ndim × nnz, dimension by dimension),
/// options and statuses as `zt_writer_add_sparse_coo`;
/// `ZT_ERR_INVALID_ARGUMENT` on a v1.2 writer.
///
/// Ownership: nothing is kept. Thread-safety: one call at a time per writer.
///
/// # Safety
/// As `zt_writer_add_sparse_coo`, with `coords` valid for `coords_count`
/// `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_add_sparse_coo_u32(
    writer: *mut zt_writer,
    name: *const c_char,
    name_len: usize,
    dtype: u32,
    shape: *const u64,
    ndim: usize,
    values: *const c_void,
    values_len: usize,
    coords: *const u32,
    coords_count: usize,
    opts: *const zt_write_options,
) -> zt_status {
    arg!(sparse_coo(writer, name, name_len, dtype, shape, ndim, values, values_len, coords, coords_count, opts))
}

/// The attributes of a `zt.quant_group/1` object.
fn quant_attributes(q: &zt_quant_group_params) -> Result<Vec<(&'static str, AttrValue)>, Fail> {
    let word = match dtype_arg(q.word)? {
        DType::U8 => "u8",
        DType::U16 => "u16",
        DType::U32 => "u32",
        DType::U64 => "u64",
        _ => return Err(Fail::invalid("`params.word` is not ZT_DTYPE_U8, _U16, _U32 or _U64")),
    };
    let word_bits = 8 * dtype_arg(q.word)?.width();
    let order = match q.order {
        0 => "lsb_first",
        1 => "msb_first",
        _ => return Err(Fail::invalid("`params.order` is not a zt_quant_order")),
    };
    let scale_form = match q.scale_form {
        0 => "f32_factors",
        1 => "f16_factors",
        2 => "e8m0_exponent",
        _ => return Err(Fail::invalid("`params.scale_form` is not a zt_quant_scale_form")),
    };
    let zero_point = match q.zero_point {
        0 => AttrValue::map([("form", "none".into())]),
        1 => AttrValue::map([("form", "implied".into()), ("value", q.zero_value.into())]),
        2 => AttrValue::map([("form", "tensor".into()), ("packing", "same_as_data".into())]),
        3 => AttrValue::map([("form", "tensor".into()), ("packing", "plain".into())]),
        _ => return Err(Fail::invalid("`params.zero_point` is not a zt_quant_zero_point")),
    };
    let per_word = word_bits.checked_div(q.bits).unwrap_or(0);
    Ok(vec![
        ("bits", q.bits.into()),
        ("group_size", q.group_size.into()),
        ("axis", q.axis.into()),
        ("packing", AttrValue::map([("word", word.into()), ("order", order.into()), ("per_word", per_word.into())])),
        ("scale_form", scale_form.into()),
        ("zero_point", zero_point),
    ])
}

/// Add a `zt.quant_group/1` tensor of logical shape `shape` (v2 writers
/// only): the parts `data` (packed codes in `params.word` words), `scales`
/// and, for the `tensor` zero points, `zeros` (NULL otherwise), each a
/// `zt_write_component` whose `role` is NULL or that role's name; the
/// attributes `bits`, `group_size`, `axis`, `packing`, `scale_form` and
/// `zero_point` from `params`.
///
/// `opts` (NULL for the defaults): encoding and attributes (after those
/// above; a repeated key replaces the value); its `logical_type` must be
/// NULL (set logical types on the components, e.g. `f8_e8m0` scales).
/// Statuses as `zt_writer_add_dense`; the profile's rules (sizes, types,
/// `bits` against the word) are the reader's (`ZT_ERR_FORMAT`);
/// `ZT_ERR_INVALID_ARGUMENT` on a v1.2 writer (there:
/// `zt_writer_add_quantized_group`).
///
/// Ownership: nothing is kept. Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `name` valid for `name_len` bytes (or
/// NUL-terminated); `shape` NULL or valid for `ndim` values; `params`
/// NULL or valid; the components NULL or valid (with their pointers);
/// `opts` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_add_quant_group(
    writer: *mut zt_writer,
    name: *const c_char,
    name_len: usize,
    shape: *const u64,
    ndim: usize,
    params: *const zt_quant_group_params,
    data: *const zt_write_component,
    scales: *const zt_write_component,
    zeros: *const zt_write_component,
    opts: *const zt_write_options,
) -> zt_status {
    guard(|| {
        let w = arg!(live(writer))?;
        let d = v2_only(w, "zt.quant_group/1 is a format v2 layout (v1.2: zt_writer_add_quantized_group)")?;
        let name = arg!(name_arg(name, name_len))?;
        let shape = arg!(shape_arg(shape, ndim))?;
        let q = arg!(get(params, Fail::invalid("`params` is NULL")))?;
        let attrs = quant_attributes(q)?;
        let what = "a zt.quant_group/1 component is NULL";
        let mut parts = vec![arg!(required(data, "data", what))?, arg!(required(scales, "scales", what))?];
        match (q.zero_point >= 2, zeros.is_null()) {
            (true, false) => parts.push(arg!(required(zeros, "zeros", what))?),
            (false, true) => {}
            (true, true) => return Err(Fail::invalid("`zeros` is NULL, but the zero point is a tensor")),
            (false, false) => return Err(Fail::invalid("`zeros` is given, but the zero point is not a tensor")),
        }
        let opts = arg!(options(opts))?;
        if opts.logical.is_some() {
            return Err(Fail::invalid("`opts.logical_type` is not used by zt.quant_group/1: set it on a component"));
        }
        w.add_v2(v2_object(name, &shape, "zt.quant_group/1", parts, attrs, None, opts, d)?)
    })
}

/// Add a `zt.mx/1` (OCP microscaling) tensor of `shape` (v2 writers only):
/// `data` (the elements: `u8` with logical type `f4_e2m1` (two per byte,
/// low nibble first), `f8_e4m3fn` or `f8_e5m2`, or plain `i8`) and
/// `scales` (one `u8` with logical type `f8_e8m0` per block), each a
/// `zt_write_component` whose `role` is NULL or that role's name; the
/// attributes `block_size` (≥ 2, dividing the blocked dimension),
/// `scale_form` (`"e8m0_exponent"`) and `axis` (the blocked axis; -1 for
/// the last one, leaving the attribute out).
///
/// `opts` (NULL for the defaults): encoding and attributes (after those
/// above); its `logical_type` must be NULL. Statuses as
/// `zt_writer_add_quant_group`.
///
/// Ownership: nothing is kept. Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `name` valid for `name_len` bytes (or
/// NUL-terminated); `shape` NULL or valid for `ndim` values; the
/// components NULL or valid (with their pointers); `opts` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_add_mx(
    writer: *mut zt_writer,
    name: *const c_char,
    name_len: usize,
    shape: *const u64,
    ndim: usize,
    block_size: u64,
    axis: i64,
    data: *const zt_write_component,
    scales: *const zt_write_component,
    opts: *const zt_write_options,
) -> zt_status {
    guard(|| {
        let w = arg!(live(writer))?;
        let d = v2_only(w, "zt.mx/1 is a format v2 layout")?;
        let name = arg!(name_arg(name, name_len))?;
        let shape = arg!(shape_arg(shape, ndim))?;
        let what = "a zt.mx/1 component is NULL";
        let parts = vec![arg!(required(data, "data", what))?, arg!(required(scales, "scales", what))?];
        let mut attrs = vec![("block_size", AttrValue::from(block_size)), ("scale_form", "e8m0_exponent".into())];
        match axis {
            -1 => {}
            a if a >= 0 => attrs.push(("axis", AttrValue::from(a as u64))),
            _ => return Err(Fail::invalid("`axis` is negative (-1 for the last axis)")),
        }
        let opts = arg!(options(opts))?;
        if opts.logical.is_some() {
            return Err(Fail::invalid("`opts.logical_type` is not used by zt.mx/1: set it on a component"));
        }
        w.add_v2(v2_object(name, &shape, "zt.mx/1", parts, attrs, None, opts, d)?)
    })
}

/// Add a GGUF block-quantized tensor `gguf.<type>/1` of logical shape
/// `shape` (row-major, the reverse of GGUF's dimension order) (v2 writers
/// only): `type` (`type_len` bytes or `ZT_NUL_TERMINATED`: `"q4_0"`,
/// `"q8_0"`, `"q4_k"`, ... as the registry names ggml's types), `len`
/// bytes of blocks as ggml stores them, and the attributes
/// `elems_per_block` and `block_bytes` (ggml's block size and type size:
/// 32 and 34 for `q8_0`).
///
/// `opts` (NULL for the defaults): encoding and attributes (after those
/// above; GGUF metadata belongs in file attributes); its `logical_type`
/// must be NULL. Statuses as `zt_writer_add_quant_group` (`ZT_ERR_FORMAT`
/// for a type the registry does not name is not raised: an unknown
/// `gguf.*` layout is written as given; the sizes of known ones are checked).
///
/// Ownership: nothing is kept. Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `name`, `type` valid for their lengths (or
/// NUL-terminated); `shape` NULL or valid for `ndim` values; `data` NULL
/// or valid for `len` bytes; `opts` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_add_gguf(
    writer: *mut zt_writer,
    name: *const c_char,
    name_len: usize,
    r#type: *const c_char,
    type_len: usize,
    shape: *const u64,
    ndim: usize,
    elems_per_block: u64,
    block_bytes: u64,
    data: *const c_void,
    len: usize,
    opts: *const zt_write_options,
) -> zt_status {
    guard(|| {
        let w = arg!(live(writer))?;
        let d = v2_only(w, "gguf.<type>/1 is a format v2 layout")?;
        let name = arg!(name_arg(name, name_len))?;
        let ty = arg!(str_arg(r#type, type_len, "`type` is NULL or not UTF-8"))?;
        if ty.is_empty() || ty.contains('/') {
            return Err(Fail::invalid("`type` is empty or contains '/'"));
        }
        let shape = arg!(shape_arg(shape, ndim))?;
        let data = arg!(data_arg(data, len, "`data` is NULL"))?;
        let opts = arg!(options(opts))?;
        if opts.logical.is_some() {
            return Err(Fail::invalid("`opts.logical_type` is not used by gguf.<type>/1 (its data is u8 blocks)"));
        }
        let attrs =
            vec![("elems_per_block", AttrValue::from(elems_per_block)), ("block_bytes", AttrValue::from(block_bytes))];
        let parts = vec![Part::new("data", DType::U8, Data::bytes(data))];
        w.add_v2(v2_object(name, &shape, &format!("gguf.{ty}/1"), parts, attrs, None, opts, d)?)
    })
}
