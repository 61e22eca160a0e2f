//! File attributes, for both format versions.

use super::args::{data_arg, str_arg};
use super::descriptors::{attribute, zt_write_attribute};
use super::{live, zt_writer};
use crate::args::{arg, get};
use crate::guard::{guard, Fail};
use crate::zt_status;
use core::ffi::c_char;
use ztensor_core::write::AttrValue;

/// Set a file-level attribute (written at `zt_writer_finish`, in the order
/// first set; setting a key again replaces its value in place). The value
/// is checked now: `ZT_ERR_FORMAT` for CBOR (`ZT_ATTR_CBOR`) that is not
/// exactly one well-formed item, `ZT_ERR_INVALID_ARGUMENT` for NULL
/// pointers, a key or text that is not UTF-8, or an unknown `kind`.
///
/// Ownership: `attr` and its buffers are copied; the caller keeps them.
/// Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `attr` NULL or valid (with its pointers).
#[no_mangle]
pub unsafe extern "C" fn zt_writer_set_attribute(writer: *mut zt_writer, attr: *const zt_write_attribute) -> zt_status {
    guard(|| {
        let w = arg!(live(writer))?;
        let a = arg!(get(attr, Fail::invalid("`attr` is NULL")))?;
        let (key, value) = arg!(attribute(a))?;
        w.set_attribute(key, value)
    })
}

/// Set a file-level attribute from its key (`key_len` bytes or
/// `ZT_NUL_TERMINATED`) and an `AttrValue`.
///
/// # Safety
/// `writer` NULL or live; `key` valid for `key_len` bytes or NUL-terminated.
unsafe fn set_attribute(
    writer: *mut zt_writer,
    key: *const c_char,
    key_len: usize,
    value: impl FnOnce() -> Result<AttrValue, Fail>,
) -> zt_status {
    guard(|| {
        let w = arg!(live(writer))?;
        let key = arg!(str_arg(key, key_len, "`key` is NULL or not UTF-8"))?;
        let value = value()?;
        w.set_attribute(key, value)
    })
}

/// Set the file-level attribute `key` (`key_len` bytes or
/// `ZT_NUL_TERMINATED`) to a signed integer. As `zt_writer_set_attribute`.
///
/// Ownership: `key` is copied. Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `key` valid for `key_len` bytes (or NUL-terminated).
#[no_mangle]
pub unsafe extern "C" fn zt_writer_set_attribute_int(
    writer: *mut zt_writer,
    key: *const c_char,
    key_len: usize,
    value: i64,
) -> zt_status {
    arg!(set_attribute(writer, key, key_len, || Ok(AttrValue::from(value))))
}

/// Set the file-level attribute `key` to an unsigned integer. As
/// `zt_writer_set_attribute`.
///
/// Ownership: `key` is copied. Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `key` valid for `key_len` bytes (or NUL-terminated).
#[no_mangle]
pub unsafe extern "C" fn zt_writer_set_attribute_uint(
    writer: *mut zt_writer,
    key: *const c_char,
    key_len: usize,
    value: u64,
) -> zt_status {
    arg!(set_attribute(writer, key, key_len, || Ok(AttrValue::Uint(value))))
}

/// Set the file-level attribute `key` to a float (written in the shortest
/// of f16/f32/f64 that keeps it exactly). As `zt_writer_set_attribute`.
///
/// Ownership: `key` is copied. Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `key` valid for `key_len` bytes (or NUL-terminated).
#[no_mangle]
pub unsafe extern "C" fn zt_writer_set_attribute_float(
    writer: *mut zt_writer,
    key: *const c_char,
    key_len: usize,
    value: f64,
) -> zt_status {
    arg!(set_attribute(writer, key, key_len, || Ok(AttrValue::Float(value))))
}

/// Set the file-level attribute `key` to `true` or `false`. As
/// `zt_writer_set_attribute`.
///
/// Ownership: `key` is copied. Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `key` valid for `key_len` bytes (or NUL-terminated).
#[no_mangle]
pub unsafe extern "C" fn zt_writer_set_attribute_bool(
    writer: *mut zt_writer,
    key: *const c_char,
    key_len: usize,
    value: bool,
) -> zt_status {
    arg!(set_attribute(writer, key, key_len, || Ok(AttrValue::Bool(value))))
}

/// Set the file-level attribute `key` to UTF-8 text (`value_len` bytes or
/// `ZT_NUL_TERMINATED`). As `zt_writer_set_attribute`
/// (`ZT_ERR_INVALID_ARGUMENT` when the text is not UTF-8).
///
/// Ownership: `key` and `value` are copied. Thread-safety: one call at a
/// time per writer.
///
/// # Safety
/// `writer` NULL or live; `key`, `value` valid for their lengths (or NUL-terminated).
#[no_mangle]
pub unsafe extern "C" fn zt_writer_set_attribute_text(
    writer: *mut zt_writer,
    key: *const c_char,
    key_len: usize,
    value: *const c_char,
    value_len: usize,
) -> zt_status {
    arg!(set_attribute(writer, key, key_len, || -> Result<AttrValue, Fail> {
        Ok(AttrValue::Text(arg!(str_arg(value, value_len, "`value` is NULL or not UTF-8"))?.to_owned()))
    }))
}

/// Set the file-level attribute `key` to one pre-encoded CBOR data item
/// (`len` bytes): an array, a map, a tagged value... or the `cbor` of a
/// `zt_attribute` read from another file. `ZT_ERR_FORMAT` unless the
/// bytes are exactly one well-formed item. As `zt_writer_set_attribute`.
///
/// Ownership: `key` and `cbor` are copied. Thread-safety: one call at a
/// time per writer.
///
/// # Safety
/// `writer` NULL or live; `key` valid for `key_len` bytes (or
/// NUL-terminated); `cbor` NULL or valid for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_set_attribute_cbor(
    writer: *mut zt_writer,
    key: *const c_char,
    key_len: usize,
    cbor: *const u8,
    len: usize,
) -> zt_status {
    arg!(set_attribute(writer, key, key_len, || -> Result<AttrValue, Fail> {
        Ok(AttrValue::Cbor(arg!(data_arg(cbor.cast(), len, "`cbor` is NULL"))?.to_vec()))
    }))
}
