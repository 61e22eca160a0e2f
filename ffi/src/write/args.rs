//! Argument helpers of the write entry points: strings, byte buffers,
//! index arrays, shapes, dtypes.

use super::ZT_MAX_NDIM;
use crate::args::arg;
use crate::dtype::dtype_of;
use crate::guard::Fail;
use crate::handle::bytes_arg;
use crate::ZT_NUL_TERMINATED;
use core::ffi::{c_char, c_void};
use ztensor_core::write::Data;
use ztensor_core::DType;

/// A string argument that must be UTF-8.
///
/// # Safety
/// As [`bytes_arg`].
pub(super) unsafe fn str_arg<'a>(ptr: *const c_char, len: usize, what: &'static str) -> Result<&'a str, Fail> {
    let b = arg!(bytes_arg(ptr, len, what))?;
    core::str::from_utf8(b).map_err(|_| Fail::invalid(what))
}

/// An optional string: NULL (or empty) is `None`.
///
/// # Safety
/// As [`bytes_arg`].
pub(super) unsafe fn opt_str_arg<'a>(
    ptr: *const c_char,
    len: usize,
    what: &'static str,
) -> Result<Option<&'a str>, Fail> {
    if ptr.is_null() {
        return Ok(None);
    }
    let s = arg!(str_arg(ptr, len, what))?;
    Ok((!s.is_empty()).then_some(s))
}

/// A byte buffer argument: NULL is allowed for an empty one.
///
/// # Safety
/// `ptr` is NULL or valid for `len` bytes.
pub(super) unsafe fn data_arg<'a>(ptr: *const c_void, len: usize, what: &'static str) -> Result<&'a [u8], Fail> {
    if len == ZT_NUL_TERMINATED {
        // Never a byte count: refuse it rather than reading a NUL-terminated "string".
        return Err(Fail::invalid(what));
    }
    Ok(arg!(bytes_arg(ptr.cast(), len, what))?)
}

/// A sparse index word: `uint32_t` or `uint64_t`.
pub(super) trait IndexWord {
    /// Its storage type.
    const DTYPE: DType;
}

impl IndexWord for u32 {
    const DTYPE: DType = DType::U32;
}

impl IndexWord for u64 {
    const DTYPE: DType = DType::U64;
}

/// An array of `count` index words (host order, any alignment) as the
/// little-endian bytes the file stores: borrowed on little-endian hosts.
///
/// # Safety
/// `ptr` is NULL or valid for `count` values of `T`.
pub(super) unsafe fn index_data<'a, T: IndexWord>(
    ptr: *const T,
    count: usize,
    what: &'static str,
) -> Result<Data<'a>, Fail> {
    arg!(words(ptr.cast(), count, core::mem::size_of::<T>(), what))
}

/// `count` host-order words of `width` bytes as little-endian bytes.
///
/// # Safety
/// `ptr` is NULL or valid for `count * width` bytes.
unsafe fn words<'a>(ptr: *const u8, count: usize, width: usize, what: &'static str) -> Result<Data<'a>, Fail> {
    let len = count.checked_mul(width).filter(|&n| n <= isize::MAX as usize).ok_or_else(|| Fail::invalid(what))?;
    if ptr.is_null() {
        return if count == 0 { Ok(Data::bytes(&[])) } else { Err(Fail::invalid(what)) };
    }
    // SAFETY: valid for `len` bytes by the caller's contract; u8 needs no alignment.
    let bytes = unsafe { core::slice::from_raw_parts(ptr, len) };
    if cfg!(target_endian = "little") {
        return Ok(Data::bytes(bytes));
    }
    let mut v = bytes.to_vec();
    for e in v.chunks_exact_mut(width) {
        e.reverse();
    }
    Ok(Data::owned(v))
}

/// A shape: `ndim` dimensions (NULL allowed for a scalar), at most
/// [`ZT_MAX_NDIM`]: checked before the shape is read or anything allocated,
/// so a wrong `ndim` (2^40) never reads or allocates terabytes.
///
/// # Safety
/// `ptr` is NULL or valid for `ndim` `u64`.
pub(super) unsafe fn shape_arg(ptr: *const u64, ndim: usize) -> Result<Vec<u64>, Fail> {
    if ndim > ZT_MAX_NDIM {
        return Err(Fail::invalid("`ndim` is over ZT_MAX_NDIM (64), the largest rank of a zTensor shape"));
    }
    if ndim == 0 {
        return Ok(Vec::new());
    }
    if ptr.is_null() {
        return Err(Fail::invalid("`shape` is NULL"));
    }
    // SAFETY: valid for `ndim` u64 by the caller's contract; read unaligned
    // so that any address works.
    Ok((0..ndim).map(|i| unsafe { ptr.add(i).read_unaligned() }).collect())
}

pub(super) fn dtype_arg(v: u32) -> Result<DType, Fail> {
    dtype_of(v).ok_or_else(|| Fail::invalid("`dtype` is not a zt_dtype"))
}

/// The object name argument.
///
/// # Safety
/// As [`bytes_arg`].
pub(super) unsafe fn name_arg<'a>(name: *const c_char, name_len: usize) -> Result<&'a str, Fail> {
    arg!(str_arg(name, name_len, "`name` is NULL or not UTF-8"))
}
