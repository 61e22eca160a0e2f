//! Adding objects of the v1.2 formats, to a v1.2 or a v2 writer (where
//! the meaning carries over: dense, sparse CSR and COO with u64 indices,
//! any object by name and components).

use super::args::{data_arg, dtype_arg, index_data, name_arg, shape_arg, str_arg, IndexWord};
use super::descriptors::{
    component, options, required, zt_write_component, zt_write_options, ObjectOptions, Part, V2Defaults,
};
use super::{live, zt_writer, Version};
use crate::args::{arg, slice};
use crate::guard::{guard, Fail};
use crate::zt_status;
use core::ffi::{c_char, c_void};
use ztensor_core::write::v2;
use ztensor_core::write::{AttrValue, Data};
use ztensor_core::write::v1_2::NewObject;
use ztensor_core::{DType, Format};

/// A v2 object of `layout` with these parts: every part gets the object's
/// encoding, the part named `primary` the options' logical type, the
/// object `attrs`, then the options' attributes (a key again replaces it).
#[allow(clippy::too_many_arguments)]
pub(super) fn v2_object<'a>(
    name: &str,
    shape: &[u64],
    layout: &str,
    parts: Vec<Part<'a>>,
    attrs: Vec<(&str, AttrValue)>,
    primary: Option<&str>,
    mut opts: ObjectOptions<'a>,
    d: V2Defaults,
) -> Result<v2::NewObject<'a>, Fail> {
    let encoding = opts.encoding(d)?;
    let mut obj = v2::NewObject::new(name, shape, layout);
    for mut p in parts {
        if opts.logical.is_some() && primary == Some(p.role) {
            p.logical = opts.logical;
        }
        obj = obj.part(p.v2(encoding));
    }
    for (k, v) in attrs.into_iter().chain(opts.attributes()) {
        obj = obj.attribute(k, v);
    }
    Ok(obj)
}

/// Add a dense tensor `name` (`name_len` bytes or `ZT_NUL_TERMINATED`;
/// UTF-8, not empty, unique in the file): `ndim` dimensions `shape`
/// (NULL allowed when `ndim` is 0: a scalar), and `len` bytes of
/// row-major, little-endian `dtype` elements (`len` must equal the product
/// of the shape times `zt_dtype_size(dtype)`, or twice that for a complex
/// logical type).
///
/// On a format v2 writer: a `dense` object with one part `data`
/// (`ZT_DTYPE_BOOL` is stored as `u8` with logical type `bool`), encoded
/// and digested as `zt_write_options` says for v2; in canonical form
/// objects come in ascending bytewise name order (`ZT_ERR_FORMAT`
/// otherwise) and a part identical to an earlier one shares its blob.
///
/// Its data is written (compressed and hashed as `opts` says; NULL for the
/// defaults) before the call returns. Errors, with nothing of the object
/// recorded and the writer still usable:
/// `ZT_ERR_INVALID_ARGUMENT` for NULL pointers, a name that is not UTF-8,
/// a value that is not of its enum or `ndim` over `ZT_MAX_NDIM` (64,
/// refused before `shape` is read); `ZT_ERR_FORMAT` when the object would
/// make an invalid file (length does not match the shape, duplicate or
/// empty name, logical type that does not suit the dtype, malformed
/// attribute CBOR...), with the rule in `zt_last_error()`; `ZT_ERR_IO`
/// when writing fails (every later call then fails with `ZT_ERR_IO` too:
/// release the writer with `zt_writer_abort`).
///
/// Ownership: nothing is kept; the caller keeps its buffers and may reuse
/// them as soon as the call returns.
/// Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `name` valid for `name_len` bytes (or
/// NUL-terminated); `shape` NULL or valid for `ndim` values; `data` NULL
/// or valid for `len` bytes; `opts` NULL or valid (with its pointers).
#[no_mangle]
pub unsafe extern "C" fn zt_writer_add_dense(
    writer: *mut zt_writer,
    name: *const c_char,
    name_len: usize,
    dtype: u32,
    shape: *const u64,
    ndim: usize,
    data: *const c_void,
    len: usize,
    opts: *const zt_write_options,
) -> zt_status {
    guard(|| {
        let w = arg!(live(writer))?;
        let name = arg!(name_arg(name, name_len))?;
        let dtype = dtype_arg(dtype)?;
        let shape = arg!(shape_arg(shape, ndim))?;
        let data = arg!(data_arg(data, len, "`data` is NULL"))?;
        let opts = arg!(options(opts))?;
        match w.version() {
            Version::V1(d) => w.add(name, opts.apply(NewObject::dense(name, &shape, dtype, Data::bytes(data)), d)?),
            Version::V2(d) => {
                let part = Part::new("data", dtype, Data::bytes(data));
                w.add_v2(v2_object(name, &shape, "dense", vec![part], Vec::new(), Some("data"), opts, d)?)
            }
        }
    })
}

/// Add a `sparse_csr` matrix of `rows` × `cols`: `values` (`values_len`
/// bytes: nnz little-endian `dtype` elements), `indices` (nnz column
/// indices, `indices_count` of them) and `indptr` (`rows + 1` row
/// pointers, `indptr_count` of them). Index arrays are `uint64_t` in host
/// byte order (written little-endian), at any alignment. On a format v2
/// writer: a `zt.sparse_csr/1` object with `u64` indices
/// (`zt_writer_add_sparse_csr_u32` for `u32` ones).
///
/// `opts` (NULL for the defaults) applies its encoding and digest to the
/// three components, and its logical type to `values`. Statuses as
/// `zt_writer_add_dense`: `ZT_ERR_FORMAT` when counts disagree
/// (`indptr_count != rows + 1`, `indices_count` != nnz, ...). The index
/// values themselves (monotone `indptr`, columns < `cols`) are not checked
/// here: `zt_verify` checks them when reading.
///
/// Ownership: nothing is kept; the caller keeps its buffers.
/// Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `name` valid for `name_len` bytes (or
/// NUL-terminated); `values` NULL or valid for `values_len` bytes;
/// `indices`, `indptr` NULL or valid for their counts; `opts` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_add_sparse_csr(
    writer: *mut zt_writer,
    name: *const c_char,
    name_len: usize,
    dtype: u32,
    rows: u64,
    cols: u64,
    values: *const c_void,
    values_len: usize,
    indices: *const u64,
    indices_count: usize,
    indptr: *const u64,
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

/// Add a `sparse_coo` tensor of `ndim` dimensions `shape`: `values`
/// (`values_len` bytes: nnz little-endian `dtype` elements) and `coords`
/// (`coords_count` = ndim × nnz `uint64_t` in host byte order: all the
/// dimension-0 indices, then all the dimension-1 indices, ...). On a
/// format v2 writer: a `zt.sparse_coo/1` object (the same layout) with
/// `u64` coordinates (`zt_writer_add_sparse_coo_u32` for `u32` ones).
///
/// `opts` as for `zt_writer_add_sparse_csr` (logical type on `values`).
/// Statuses as `zt_writer_add_dense` (`ZT_ERR_FORMAT` when `coords_count`
/// is not ndim × nnz). Coordinates inside the shape are checked by
/// `zt_verify` when reading, not here.
///
/// Ownership: nothing is kept; the caller keeps its buffers.
/// Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `name` valid for `name_len` bytes (or
/// NUL-terminated); `shape` NULL or valid for `ndim` values; `values` NULL
/// or valid for `values_len` bytes; `coords` NULL or valid for
/// `coords_count` values; `opts` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_add_sparse_coo(
    writer: *mut zt_writer,
    name: *const c_char,
    name_len: usize,
    dtype: u32,
    shape: *const u64,
    ndim: usize,
    values: *const c_void,
    values_len: usize,
    coords: *const u64,
    coords_count: usize,
    opts: *const zt_write_options,
) -> zt_status {
    arg!(sparse_coo(writer, name, name_len, dtype, shape, ndim, values, values_len, coords, coords_count, opts))
}

/// Add a `quantized_group` tensor of logical shape `shape`: the components
/// `packed_weight`, `scales` and `zeros` (each a `zt_write_component`
/// whose `role` is NULL or that role's name), and the attributes `bits`,
/// `group_size` and `packing` (`packing_len` bytes or `ZT_NUL_TERMINATED`,
/// e.g. `"8_per_i32"`).
///
/// `opts` (NULL for the defaults) applies its encoding and digest to the
/// three components; its attributes follow the three above (a repeated
/// key replaces the value); its `logical_type` must be NULL (set logical
/// types on the components). Statuses as `zt_writer_add_dense`.
///
/// Ownership: nothing is kept; the caller keeps its buffers.
/// Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `name`, `packing` valid for their lengths (or
/// NUL-terminated); `shape` NULL or valid for `ndim` values; the three
/// components NULL or valid (with their pointers); `opts` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_add_quantized_group(
    writer: *mut zt_writer,
    name: *const c_char,
    name_len: usize,
    shape: *const u64,
    ndim: usize,
    packed_weight: *const zt_write_component,
    scales: *const zt_write_component,
    zeros: *const zt_write_component,
    bits: u64,
    group_size: u64,
    packing: *const c_char,
    packing_len: usize,
    opts: *const zt_write_options,
) -> zt_status {
    guard(|| {
        let w = arg!(live(writer))?;
        let name = arg!(name_arg(name, name_len))?;
        let shape = arg!(shape_arg(shape, ndim))?;
        let packing = arg!(str_arg(packing, packing_len, "`packing` is NULL or not UTF-8"))?;
        let what = "a quantized_group component is NULL";
        let pw = arg!(required(packed_weight, "packed_weight", what))?;
        let sc = arg!(required(scales, "scales", what))?;
        let ze = arg!(required(zeros, "zeros", what))?;
        let opts = arg!(options(opts))?;
        if opts.logical.is_some() {
            return Err(Fail::invalid("`opts.logical_type` is not used by quantized_group: set it on a component"));
        }
        let Version::V1(d) = w.version() else {
            return Err(Fail::invalid(
                "quantized_group is a v1.2 format: a v2 writer takes zt_writer_add_quant_group (zt.quant_group/1)",
            ));
        };
        let obj = NewObject::new(name, Format::QuantizedGroup, &shape)
            .component(pw.v1())
            .component(sc.v1())
            .component(ze.v1())
            .attribute("bits", bits)
            .attribute("group_size", group_size)
            .attribute("packing", packing);
        w.add(name, opts.apply(obj, d)?)
    })
}

/// Add an object of any format: `format` (`format_len` bytes or
/// `ZT_NUL_TERMINATED`: `"dense"`, `"sparse_csr"`, ... or a name of your
/// own), `ndim` dimensions `shape`, and `component_count` components, each
/// with its role, dtype, optional logical type and bytes, written in that
/// order. Known formats are checked as such (a `"dense"` object needs one
/// `data` component of the right length); other formats only need unique,
/// non-empty roles.
///
/// `opts` (NULL for the defaults): encoding and digest for every
/// component, a logical type for the primary component (overriding the
/// component's own), attributes. Statuses as `zt_writer_add_dense`.
///
/// On a format v2 writer `format` is the layout (`"dense"`,
/// `"zt.sparse_csr/1"`, `"zt.mx/1"`, `"gguf.q4_k/1"`, ... or one of your
/// own, e.g. `"x.custom/1"`), the components are its parts (any order:
/// they are stored by name), and the primary part is `data`, else
/// `values`, else the last. Registered layouts are checked by the
/// reader's rules (`ZT_ERR_FORMAT`); map and array attributes they need go
/// in `opts.attributes` as `ZT_ATTR_CBOR`.
///
/// Ownership: nothing is kept; the caller keeps its buffers.
/// Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `name`, `format` valid for their lengths (or
/// NUL-terminated); `shape` NULL or valid for `ndim` values; `components`
/// NULL or valid for `component_count` entries (with their pointers);
/// `opts` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_add_object(
    writer: *mut zt_writer,
    name: *const c_char,
    name_len: usize,
    format: *const c_char,
    format_len: usize,
    shape: *const u64,
    ndim: usize,
    components: *const zt_write_component,
    component_count: usize,
    opts: *const zt_write_options,
) -> zt_status {
    guard(|| {
        let w = arg!(live(writer))?;
        let name = arg!(name_arg(name, name_len))?;
        let format = arg!(str_arg(format, format_len, "`format` is NULL or not UTF-8"))?;
        let shape = arg!(shape_arg(shape, ndim))?;
        let bad = Fail::invalid("`components` is NULL or `component_count` too large");
        let list = arg!(slice(components, component_count, bad))?;
        let parts = list.iter().map(|c| arg!(component(c, None))).collect::<Result<Vec<_>, _>>()?;
        let opts = arg!(options(opts))?;
        match w.version() {
            Version::V1(d) => {
                let mut obj = NewObject::new(name, Format::parse(format), &shape);
                for p in parts {
                    obj = obj.component(p.v1());
                }
                w.add(name, opts.apply(obj, d)?)
            }
            Version::V2(d) => {
                // The primary part: `data`, else `values`, else the last.
                let primary = ["data", "values"]
                    .into_iter()
                    .find(|r| parts.iter().any(|p| p.role == *r))
                    .or(parts.last().map(|p| p.role));
                w.add_v2(v2_object(name, &shape, format, parts, Vec::new(), primary, opts, d)?)
            }
        }
    })
}

/// The body of `zt_writer_add_sparse_csr` and its `_u32` form.
///
/// # Safety
/// As `zt_writer_add_sparse_csr`, with index words of `T`.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn sparse_csr<T: IndexWord>(
    writer: *mut zt_writer,
    name: *const c_char,
    name_len: usize,
    dtype: u32,
    shape: [u64; 2],
    values: *const c_void,
    values_len: usize,
    [indices, indptr]: [*const T; 2],
    [indices_count, indptr_count]: [usize; 2],
    opts: *const zt_write_options,
) -> zt_status {
    guard(|| {
        let w = arg!(live(writer))?;
        let name = arg!(name_arg(name, name_len))?;
        let dtype = dtype_arg(dtype)?;
        let values = arg!(data_arg(values, values_len, "`values` is NULL"))?;
        let indices = arg!(index_data(indices, indices_count, "`indices` is NULL or too long"))?;
        let indptr = arg!(index_data(indptr, indptr_count, "`indptr` is NULL or too long"))?;
        let opts = arg!(options(opts))?;
        add_csr(w, name, dtype, shape, Data::bytes(values), T::DTYPE, [indices, indptr], opts)
    })
}

/// The body of `zt_writer_add_sparse_coo` and its `_u32` form.
///
/// # Safety
/// As `zt_writer_add_sparse_coo`, with coordinates of `T`.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn sparse_coo<T: IndexWord>(
    writer: *mut zt_writer,
    name: *const c_char,
    name_len: usize,
    dtype: u32,
    shape: *const u64,
    ndim: usize,
    values: *const c_void,
    values_len: usize,
    coords: *const T,
    coords_count: usize,
    opts: *const zt_write_options,
) -> zt_status {
    guard(|| {
        let w = arg!(live(writer))?;
        let name = arg!(name_arg(name, name_len))?;
        let dtype = dtype_arg(dtype)?;
        let shape = arg!(shape_arg(shape, ndim))?;
        let values = arg!(data_arg(values, values_len, "`values` is NULL"))?;
        let coords = arg!(index_data(coords, coords_count, "`coords` is NULL or too long"))?;
        let opts = arg!(options(opts))?;
        add_coo(w, name, dtype, &shape, Data::bytes(values), T::DTYPE, coords, opts)
    })
}

/// A `sparse_csr` (v1.2) or `zt.sparse_csr/1` (v2) matrix of `shape`,
/// its `[indices, indptr]` of type `index` (`u64`, or `u32` for v2 only).
#[allow(clippy::too_many_arguments)]
fn add_csr(
    w: &mut zt_writer,
    name: &str,
    dtype: DType,
    shape: [u64; 2],
    values: Data<'_>,
    index: DType,
    [indices, indptr]: [Data<'_>; 2],
    opts: ObjectOptions<'_>,
) -> Result<(), Fail> {
    match w.version() {
        Version::V1(d) if index == DType::U64 => {
            w.add(name, opts.apply(NewObject::sparse_csr(name, shape, dtype, values, indices, indptr), d)?)
        }
        Version::V1(_) => {
            Err(Fail::invalid("u32 sparse indices are a format v2 option (v1.2: zt_writer_add_sparse_csr)"))
        }
        Version::V2(d) => {
            let parts = vec![
                Part::new("values", dtype, values),
                Part::new("indices", index, indices),
                Part::new("indptr", index, indptr),
            ];
            w.add_v2(v2_object(name, &shape, "zt.sparse_csr/1", parts, Vec::new(), Some("values"), opts, d)?)
        }
    }
}

/// A `sparse_coo` (v1.2) or `zt.sparse_coo/1` (v2) tensor of `shape`,
/// its `coords` of type `index` (`u64`, or `u32` for v2 only).
#[allow(clippy::too_many_arguments)]
fn add_coo(
    w: &mut zt_writer,
    name: &str,
    dtype: DType,
    shape: &[u64],
    values: Data<'_>,
    index: DType,
    coords: Data<'_>,
    opts: ObjectOptions<'_>,
) -> Result<(), Fail> {
    match w.version() {
        Version::V1(d) if index == DType::U64 => {
            w.add(name, opts.apply(NewObject::sparse_coo(name, shape, dtype, values, coords), d)?)
        }
        Version::V1(_) => {
            Err(Fail::invalid("u32 sparse coordinates are a format v2 option (v1.2: zt_writer_add_sparse_coo)"))
        }
        Version::V2(d) => {
            let parts = vec![Part::new("values", dtype, values), Part::new("coords", index, coords)];
            w.add_v2(v2_object(name, shape, "zt.sparse_coo/1", parts, Vec::new(), Some("values"), opts, d)?)
        }
    }
}
