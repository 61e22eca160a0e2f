//! Argument checks shared by both readers' entry points: string arguments
//! (pointer + length or `ZT_NUL_TERMINATED`) and out-parameters. A refused
//! argument is an [`Invalid`], which each reader turns into its own
//! failure (`ZT_ERR_INVALID_ARGUMENT` and the text) through `?`.

use crate::ZT_NUL_TERMINATED;
use core::ffi::{c_char, CStr};

/// A refused argument: what is wrong with it.
pub(crate) struct Invalid(pub &'static str);

/// A string argument given as pointer + length (or [`ZT_NUL_TERMINATED`]).
///
/// # Safety
/// `ptr` is NULL or valid for `len` bytes (or NUL-terminated when `len` is
/// `ZT_NUL_TERMINATED`).
// (Unused by the compact build alone: it calls `string_arg`.)
#[cfg_attr(feature = "compact", allow(dead_code))]
pub(crate) unsafe fn bytes_arg<'a>(ptr: *const c_char, len: usize, what: &'static str) -> Result<&'a [u8], Invalid> {
    // SAFETY: the caller's contract.
    unsafe { string_arg(ptr, len, what, "a string length is over PTRDIFF_MAX (and is not ZT_NUL_TERMINATED)") }.map_err(Invalid)
}

/// [`bytes_arg`] with the refusals named by the caller: `null` for a NULL
/// `ptr` (with a length other than 0), `too_long` for a length over
/// `PTRDIFF_MAX` (the compact build names its texts by number).
///
/// # Safety
/// As [`bytes_arg`].
pub(crate) unsafe fn string_arg<'a, W>(ptr: *const c_char, len: usize, null: W, too_long: W) -> Result<&'a [u8], W> {
    if len == ZT_NUL_TERMINATED {
        if ptr.is_null() {
            return Err(null);
        }
        // SAFETY: NUL-terminated, by the caller's contract.
        return Ok(unsafe { CStr::from_ptr(ptr) }.to_bytes());
    }
    if ptr.is_null() {
        return if len == 0 { Ok(&[]) } else { Err(null) };
    }
    if len > isize::MAX as usize {
        return Err(too_long);
    }
    // SAFETY: valid for `len` bytes, by the caller's contract.
    Ok(unsafe { core::slice::from_raw_parts(ptr.cast::<u8>(), len) })
}

/// Write `v` through `out`, or fail when `out` is NULL.
///
/// # Safety
/// `out` is NULL or valid for a write of `T`.
pub(crate) unsafe fn put<T>(out: *mut T, v: T, what: &'static str) -> Result<(), Invalid> {
    if out.is_null() {
        return Err(Invalid(what));
    }
    // SAFETY: non-NULL and writable, by the caller's contract.
    unsafe { out.write(v) };
    Ok(())
}

/// Write `v` through `out` when `out` is not NULL.
///
/// # Safety
/// `out` is NULL or valid for a write of `T`.
pub(crate) unsafe fn put_opt<T>(out: *mut T, v: T) {
    if !out.is_null() {
        // SAFETY: non-NULL and writable, by the caller's contract.
        unsafe { out.write(v) };
    }
}
