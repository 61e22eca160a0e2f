//! Attributes of a file or an object: count, by position, by key.

use crate::args::cleared;
use crate::guard::{guard, Fail};
use crate::handle::{arg, bytes_arg, handle, object, object_arg, put, zt_file};
use crate::value::describe;
use crate::{zt_attribute, zt_object, zt_status};
use core::ffi::c_char;
use ztensor_core::Map;

/// The attributes of `obj`, or of the file when `obj` is NULL.
///
/// # Safety
/// `obj` is NULL or readable.
unsafe fn attributes<'f>(h: &'f zt_file, obj: *const zt_object) -> Result<Map<'f>, Fail> {
    if obj.is_null() {
        Ok(h.file().attributes())
    } else {
        Ok(object(h, arg!(object_arg(obj))?)?.attributes())
    }
}

/// Number of attributes of `obj`, or of the file when `obj` is NULL
/// (0 when there are none).
///
/// Ownership: nothing to free. Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `count` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_attribute_count(
    file: *const zt_file,
    obj: *const zt_object,
    count: *mut usize,
) -> zt_status {
    guard(|| {
        let h = arg!(handle(file))?;
        let m = arg!(attributes(h, obj))?;
        arg!(put(count, m.len(), "`count` is NULL"))?;
        Ok(())
    })
}

/// The attribute at position `index` (in encoded order) of `obj`, or of
/// the file when `obj` is NULL. O(index): iterate with care on huge maps.
///
/// `ZT_ERR_INVALID_ARGUMENT` when `index` is out of range. `*attr` is
/// filled on success and zeroed on failure.
/// Ownership: pointers in `*attr` are borrowed, valid until `zt_close`.
/// Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `attr` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_attribute_at(
    file: *const zt_file,
    obj: *const zt_object,
    index: usize,
    attr: *mut zt_attribute,
) -> zt_status {
    guard(|| {
        let attr = arg!(cleared(attr, Fail::invalid("`attr` is NULL")))?;
        let h = arg!(handle(file))?;
        let m = arg!(attributes(h, obj))?;
        let (k, v) = m.iter().nth(index).ok_or_else(|| Fail::invalid("attribute index out of range"))?;
        *attr = describe(k, v);
        Ok(())
    })
}

/// The attribute whose text key is `key` (`key_len` bytes, or
/// `ZT_NUL_TERMINATED`) of `obj`, or of the file when `obj` is NULL.
///
/// `ZT_ERR_NOT_FOUND` when there is none. `*attr` is filled on success and
/// zeroed on failure.
/// Ownership: pointers in `*attr` are borrowed, valid until `zt_close`.
/// Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `key` valid for `key_len`
/// bytes (or NUL-terminated); `attr` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_attribute_find(
    file: *const zt_file,
    obj: *const zt_object,
    key: *const c_char,
    key_len: usize,
    attr: *mut zt_attribute,
) -> zt_status {
    guard(|| {
        let attr = arg!(cleared(attr, Fail::invalid("`attr` is NULL")))?;
        let h = arg!(handle(file))?;
        let key = arg!(bytes_arg(key, key_len, "`key` is NULL"))?;
        let m = arg!(attributes(h, obj))?;
        let (k, v) = m
            .iter()
            .find(|(k, _)| k.as_str().map(str::as_bytes) == Some(key))
            .ok_or_else(|| Fail::with(zt_status::ZT_ERR_NOT_FOUND, "no attribute with that key"))?;
        *attr = describe(k, v);
        Ok(())
    })
}
