//! Objects: count, lookup by position and name, name, format, info, shape.

use crate::args::{buffer, cleared, out_ref};
use crate::guard::{guard, guard_value, Detail, Fail};
use crate::handle::{arg, bytes_arg, handle, not_found, object_arg, put, put_opt, with_object, zt_file};
use crate::types::c_format;
use crate::{zt_object, zt_object_info, zt_status};
use core::ffi::c_char;
use ztensor_core::{Error as CoreError, ErrorKind};

/// Number of objects in the file; 0 when `file` is NULL.
///
/// Ownership: nothing to free. Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn zt_object_count(file: *const zt_file) -> usize {
    guard_value(0, || arg!(handle(file)).map_or(0, |h| h.file().len()))
}

/// The object at position `index` in manifest order (O(1)).
///
/// `ZT_ERR_INVALID_ARGUMENT` when `index >= zt_object_count(file)`.
/// Ownership: `zt_object` is a plain value. Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` is NULL or live; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_object_at(file: *const zt_file, index: usize, out: *mut zt_object) -> zt_status {
    guard(|| {
        let h = arg!(handle(file))?;
        if index >= h.file().len() {
            return Err(Fail::invalid("object index out of range"));
        }
        arg!(put(out, zt_object { index, owner: h.owner() }, "`out` is NULL"))?;
        Ok(())
    })
}

/// Find the object called `name` (`name_len` bytes, or `ZT_NUL_TERMINATED`):
/// O(log n) through an index built at open. Names are compared byte for
/// byte (no Unicode normalization).
///
/// `ZT_ERR_NOT_FOUND` when there is none (`*out` untouched). A NULL `name`
/// is allowed with length 0 (the empty name).
/// Ownership: `name` is not kept. Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` is NULL or live; `name` valid for `name_len` bytes (or
/// NUL-terminated); `out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_find(
    file: *const zt_file,
    name: *const c_char,
    name_len: usize,
    out: *mut zt_object,
) -> zt_status {
    guard(|| {
        let h = arg!(handle(file))?;
        let name = arg!(bytes_arg(name, name_len, "`name` is NULL"))?;
        let out = arg!(out_ref(out)).ok_or_else(|| Fail::invalid("`out` is NULL"))?;
        // A name that is not UTF-8 names no object.
        let name = core::str::from_utf8(name).map_err(|_| not_found(Some("(not UTF-8)"), None))?;
        let o = h.find(name).ok_or_else(|| not_found(Some(name), None))?;
        out.write(zt_object { index: o.index(), owner: h.owner() });
        Ok(())
    })
}

/// The object's name: `*name` points into the file (NOT NUL-terminated; it
/// may contain NUL bytes), `*len` is its length in bytes.
///
/// Ownership: borrowed from the handle, valid until `zt_close`.
/// Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` is NULL or live; `obj` NULL or readable; `name`, `len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_object_name(
    file: *const zt_file,
    obj: *const zt_object,
    name: *mut *const c_char,
    len: *mut usize,
) -> zt_status {
    guard(|| {
        let h = arg!(handle(file))?;
        let n = with_object(h, arg!(object_arg(obj))?, |o| Ok(o.name()))?;
        let (Some(name), Some(len)) = (arg!(out_ref(name)), arg!(out_ref(len))) else {
            return Err(Fail::invalid("`name` or `len` is NULL"));
        };
        name.write(n.as_ptr().cast());
        len.write(n.len());
        Ok(())
    })
}

/// The object's format name (`"dense"`, `"sparse_csr"`, `"sparse_coo"`,
/// `"quantized_group"`, or one this library does not know): `*format`
/// points into the file (or static memory), NOT NUL-terminated.
///
/// Ownership: borrowed, valid until `zt_close`. Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` is NULL or live; `obj` NULL or readable; `format`, `len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_object_format(
    file: *const zt_file,
    obj: *const zt_object,
    format: *mut *const c_char,
    len: *mut usize,
) -> zt_status {
    guard(|| {
        let h = arg!(handle(file))?;
        let s = with_object(h, arg!(object_arg(obj))?, |o| Ok(o.format().name()))?;
        let (Some(format), Some(len)) = (arg!(out_ref(format)), arg!(out_ref(len))) else {
            return Err(Fail::invalid("`format` or `len` is NULL"));
        };
        format.write(s.as_ptr().cast());
        len.write(s.len());
        Ok(())
    })
}

/// Summary of an object: name, format, ndim, numel, component and
/// attribute counts.
///
/// `*info` is filled on success and zeroed on failure.
/// Ownership: strings in `*info` are borrowed, valid until `zt_close`.
/// Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` is NULL or live; `obj` NULL or readable; `info` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_object_get_info(
    file: *const zt_file,
    obj: *const zt_object,
    info: *mut zt_object_info,
) -> zt_status {
    guard(|| {
        let info = arg!(cleared(info, Fail::invalid("`info` is NULL")))?;
        let h = arg!(handle(file))?;
        with_object(h, arg!(object_arg(obj))?, |o| {
            *info = zt_object_info {
                name: o.name().as_ptr().cast(),
                name_len: o.name().len(),
                format: o.format().name().as_ptr().cast(),
                format_len: o.format().name().len(),
                format_kind: c_format(o.format()),
                ndim: o.shape().ndim(),
                numel: o.shape().numel(),
                component_count: o.component_count(),
                attribute_count: o.attributes().len(),
            };
            Ok(())
        })
    })
}

/// The object's shape: `*ndim` receives the number of dimensions (when
/// `ndim` is not NULL) and, when `cap >= ndim`, `dims[0..ndim]` the
/// dimensions. `ZT_ERR_BUFFER_TOO_SMALL` when `cap` is smaller (dims
/// untouched, `*ndim` set): call with `dims = NULL, cap = 0` to ask.
///
/// Ownership: the caller owns `dims`. Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `dims` NULL or writable for
/// `cap` values; `ndim` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_object_shape(
    file: *const zt_file,
    obj: *const zt_object,
    dims: *mut u64,
    cap: usize,
    ndim: *mut usize,
) -> zt_status {
    guard(|| {
        let h = arg!(handle(file))?;
        let (name, shape) = with_object(h, arg!(object_arg(obj))?, |o| Ok((o.name(), o.shape())))?;
        arg!(put_opt(ndim, shape.ndim()));
        if cap < shape.ndim() {
            let e = CoreError::new(ErrorKind::BufferTooSmall { needed: shape.ndim() as u64 }).in_object(name);
            return Err(Fail { status: zt_status::ZT_ERR_BUFFER_TOO_SMALL, detail: Detail::Core(e) });
        }
        // (`cap` covers the dimensions, checked above: only they are written.)
        let out = arg!(buffer(dims, shape.ndim(), Fail::invalid("`dims` is NULL"), Fail::invalid("`dims` is NULL")))?;
        shape.copy_to(out);
        Ok(())
    })
}
