//! The pointer checks of every entry point, shared by both readers and the
//! writer: handles and structs behind possibly-NULL pointers, string
//! arguments (pointer + length or `ZT_NUL_TERMINATED`), caller buffers and
//! out-parameters. Each check is an `unsafe fn` with one contract, met by
//! the pointers a C caller passes (the header's conventions: every pointer
//! NULL or valid for its use); entry points call them through [`arg!`],
//! which says so once. A refused argument is an [`Invalid`], which each
//! reader turns into its own failure (`ZT_ERR_INVALID_ARGUMENT` and the
//! text) through `?`, or the caller's own refusal value `W`.

use crate::ZT_NUL_TERMINATED;
use core::ffi::{c_char, CStr};
use core::mem::MaybeUninit;

/// Call `f`, one of the pointer checks of this module (or a helper or entry
/// point whose `# Safety` asks no more of its pointers than the header
/// does), on pointers the C caller passed: the calling `zt_*` function's
/// own arguments, or the pointers inside the structs they point to, passed
/// on unchanged or NULL (also from the helpers an entry point hands them
/// to, whose `# Safety` repeats the header's).
///
/// The one `unsafe` of the entry points, in the manner of rustls-ffi's
/// `try_ref_from_ptr!`: the C caller's contract (every pointer NULL or
/// valid for the use the header names, for the call) is each `zt_*`
/// function's `# Safety`, and it is what `f` asks; a pointer this library
/// made (a Rust reference, a local buffer) is passed with an `unsafe`
/// block of its own. The arguments are evaluated first, each into its own
/// `let`, so that none of the caller's code (a closure's body) runs inside
/// the `unsafe` block.
macro_rules! arg {
    ($($f:ident)::+ ($($a:expr),* $(,)?)) => {
        $crate::args::arg!(@bind [$($f)::+] [] $($a,)*)
    };
    (@bind [$($f:ident)::+] [$($x:ident)*] $a:expr, $($rest:expr,)*) => {{
        let x = $a;
        $crate::args::arg!(@bind [$($f)::+] [$($x)* x] $($rest,)*)
    }};
    (@bind [$($f:ident)::+] [$($x:ident)*]) => {
        // SAFETY: the pointers are the C caller's, NULL or valid for the use
        // the header names (the entry point's `# Safety`): `f`'s contract.
        unsafe { $($f)::+($($x),*) }
    };
}
pub(crate) use arg;

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

/// `p` as an out-parameter the caller may leave unset: `None` when NULL.
///
/// # Safety
/// `p` is NULL or valid for a write of `T` for `'a`, and nothing else
/// reaches that memory meanwhile.
pub(crate) unsafe fn out_ref<'a, T>(p: *mut T) -> Option<&'a mut MaybeUninit<T>> {
    // SAFETY: the caller's contract; `MaybeUninit<T>` has `T`'s layout and
    // asks nothing of the bytes there before the write.
    unsafe { p.cast::<MaybeUninit<T>>().as_mut() }
}

/// The `T` behind `p`, or `null` when `p` is NULL.
///
/// # Safety
/// `p` is NULL or points to a `T` readable for `'a` (a live handle, a
/// caller's struct) that nothing writes meanwhile.
pub(crate) unsafe fn get<'a, T, W>(p: *const T, null: W) -> Result<&'a T, W> {
    // SAFETY: the caller's contract.
    unsafe { p.as_ref() }.ok_or(null)
}

/// The `T` behind `p` for changing (a writer handle), or `null` when NULL.
///
/// # Safety
/// `p` is NULL or points to a live `T` that nothing else reaches for `'a`.
#[cfg(feature = "std")]
pub(crate) unsafe fn get_mut<'a, T, W>(p: *mut T, null: W) -> Result<&'a mut T, W> {
    // SAFETY: the caller's contract.
    unsafe { p.as_mut() }.ok_or(null)
}

/// Types whose all-zero bytes are a valid value: the C structs the entry
/// points clear before filling them (integers, `bool`s, pointers, and C
/// enums with a variant 0).
///
/// # Safety
/// All-zero bytes are a valid `Self`.
pub(crate) unsafe trait Zeroable: Sized {}

/// Clear the out-parameter `p` (all zero) and give it for filling, or
/// `null` when `p` is NULL: an out-struct is zeroed on every failure after
/// this check.
///
/// # Safety
/// As [`out_ref`].
pub(crate) unsafe fn cleared<'a, T: Zeroable, W>(p: *mut T, null: W) -> Result<&'a mut T, W> {
    // SAFETY: the caller's contract.
    let slot = unsafe { out_ref(p) }.ok_or(null)?;
    // SAFETY: `T: Zeroable`: zero bytes are a valid `T`.
    Ok(unsafe { slot.write(MaybeUninit::zeroed().assume_init()) })
}

/// `count` values of `T` at `p` (NULL allowed when `count` is 0), or
/// `bad` when `p` is NULL otherwise or the bytes would exceed `PTRDIFF_MAX`.
///
/// # Safety
/// `p` is NULL or valid for reads of `count` values of `T` for `'a`.
// (Unused by the compact build, whose open reads its slices itself.)
#[cfg_attr(feature = "compact", allow(dead_code))]
pub(crate) unsafe fn slice<'a, T, W>(p: *const T, count: usize, bad: W) -> Result<&'a [T], W> {
    if count == 0 {
        return Ok(&[]);
    }
    if p.is_null() || count > isize::MAX as usize / core::mem::size_of::<T>().max(1) {
        return Err(bad);
    }
    // SAFETY: the caller's contract; non-NULL and within `PTRDIFF_MAX`.
    Ok(unsafe { core::slice::from_raw_parts(p, count) })
}

/// The caller's buffer of `cap` values of `T` at `p` for writing, in the
/// header's order of checks: `too_large` when `cap` is over `PTRDIFF_MAX`
/// bytes, then `null` when `p` is NULL with `cap` other than 0.
///
/// # Safety
/// `p` is NULL or valid for writes of `cap` values of `T` for `'a`, and
/// nothing else reaches that memory meanwhile.
pub(crate) unsafe fn buffer<'a, T, W>(p: *mut T, cap: usize, too_large: W, null: W) -> Result<&'a mut [T], W> {
    if cap > isize::MAX as usize / core::mem::size_of::<T>().max(1) {
        return Err(too_large);
    }
    if cap == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(null);
    }
    // SAFETY: the caller's contract; non-NULL and within `PTRDIFF_MAX`.
    Ok(unsafe { core::slice::from_raw_parts_mut(p, cap) })
}

/// The bytes of the NUL-terminated string `p` (a path), or `null` when NULL.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string readable for `'a`.
#[cfg(feature = "std")]
pub(crate) unsafe fn c_str<'a, W>(p: *const c_char, null: W) -> Result<&'a [u8], W> {
    if p.is_null() {
        return Err(null);
    }
    // SAFETY: the caller's contract.
    Ok(unsafe { CStr::from_ptr(p) }.to_bytes())
}

/// Take back the handle `p` this library gave out with `Box::into_raw`
/// (`None` for NULL), to finish or drop it.
///
/// # Safety
/// `p` is NULL or a live handle from `Box::into_raw`, used no more after.
#[cfg(feature = "std")]
pub(crate) unsafe fn take<T>(p: *mut T) -> Option<Box<T>> {
    // SAFETY: the caller's contract.
    (!p.is_null()).then(|| unsafe { Box::from_raw(p) })
}

// SAFETY: integers, `bool`s, raw pointers, and the C enums `zt_mode`,
// `zt_format`, `zt_encoding`, `zt_dtype` and `zt_value_kind`, each of which
// has a variant 0.
unsafe impl Zeroable for crate::zt_file_info {}
// SAFETY: as above.
unsafe impl Zeroable for crate::zt_object_info {}
// SAFETY: as above.
unsafe impl Zeroable for crate::zt_component_info {}
// SAFETY: as above.
unsafe impl Zeroable for crate::zt_attribute {}
