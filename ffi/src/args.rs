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
pub(crate) unsafe fn bytes_arg<'a>(ptr: *const c_char, len: usize, what: &'static str) -> Result<&'a [u8], Invalid> {
    if len == ZT_NUL_TERMINATED {
        if ptr.is_null() {
            return Err(Invalid(what));
        }
        // SAFETY: NUL-terminated, by the caller's contract.
        return Ok(unsafe { CStr::from_ptr(ptr) }.to_bytes());
    }
    if ptr.is_null() {
        return if len == 0 { Ok(&[]) } else { Err(Invalid(what)) };
    }
    if len > isize::MAX as usize {
        return Err(Invalid("a string length is over PTRDIFF_MAX (and is not ZT_NUL_TERMINATED)"));
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
