//! Attribute values described for C (`zt_attribute`), from the core's
//! CBOR `Value`s: one filling code for both readers (the compact reader's
//! maps are the core's `Map`).

use core::ffi::c_char;
use ztensor_core::{Value, ValueRef};

/// What a CBOR attribute value is.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum zt_value_kind {
    /// Unsigned integer: `uint_value` (and `int_value` when it fits).
    ZT_VALUE_UINT = 0,
    /// Negative integer `-1 - uint_value` (`int_value` when it fits).
    ZT_VALUE_NEGINT = 1,
    /// Floating point (half, single or double): `float_value`.
    ZT_VALUE_FLOAT = 2,
    /// `true` / `false`: `bool_value`.
    ZT_VALUE_BOOL = 3,
    /// `null`.
    ZT_VALUE_NULL = 4,
    /// `undefined`.
    ZT_VALUE_UNDEFINED = 5,
    /// UTF-8 text: `data`/`data_len` (not NUL-terminated).
    ZT_VALUE_TEXT = 6,
    /// Byte string: `data`/`data_len`.
    ZT_VALUE_BYTES = 7,
    /// Array of `count` items (decode `cbor` yourself).
    ZT_VALUE_ARRAY = 8,
    /// Map of `count` entries (decode `cbor` yourself).
    ZT_VALUE_MAP = 9,
    /// A tagged value (decode `cbor` yourself).
    ZT_VALUE_TAG = 10,
    /// Another CBOR simple value.
    ZT_VALUE_SIMPLE = 11,
}

/// One attribute: a key and its CBOR value, borrowed from the file (valid
/// until `zt_close`). Scalars are decoded for convenience; anything else
/// can be decoded from `cbor` (the value's exact encoded bytes).
#[repr(C)]
pub struct zt_attribute {
    /// The key, when it is a text string (almost always); NULL otherwise.
    /// Not NUL-terminated.
    pub key: *const c_char,
    /// Length of `key` in bytes.
    pub key_len: usize,
    /// The key's encoded CBOR bytes (whatever its type).
    pub key_cbor: *const u8,
    /// Length of `key_cbor` in bytes.
    pub key_cbor_len: usize,
    /// The value's encoded CBOR bytes.
    pub cbor: *const u8,
    /// Length of `cbor` in bytes.
    pub cbor_len: usize,
    /// What the value is.
    pub kind: zt_value_kind,
    /// Whether `int_value` holds the (UINT or NEGINT) value.
    pub has_int: bool,
    /// `true`/`false` for `ZT_VALUE_BOOL`.
    pub bool_value: bool,
    /// The integer, when `has_int`.
    pub int_value: i64,
    /// `ZT_VALUE_UINT`: the value; `ZT_VALUE_NEGINT`: `n` in `-1 - n`;
    /// `ZT_VALUE_TAG`: the tag number; `ZT_VALUE_SIMPLE`: the simple value.
    pub uint_value: u64,
    /// `ZT_VALUE_FLOAT`: the value; integers converted (possibly rounded).
    pub float_value: f64,
    /// `ZT_VALUE_TEXT` / `ZT_VALUE_BYTES`: the content, NULL when the
    /// string is split into indefinite-length chunks (decode `cbor`).
    pub data: *const u8,
    /// Length of `data` in bytes.
    pub data_len: usize,
    /// `ZT_VALUE_ARRAY`: items; `ZT_VALUE_MAP`: entries.
    pub count: usize,
}

/// The C description of the attribute `k`: `v`.
pub(crate) fn describe(k: Value<'_>, v: Value<'_>) -> zt_attribute {
    let (key, key_len) = match k.as_str() {
        Some(s) => (s.as_ptr().cast(), s.len()),
        None => (core::ptr::null(), 0),
    };
    let (kc, vc) = (k.raw(), v.raw());
    let mut a = zt_attribute {
        key,
        key_len,
        key_cbor: kc.as_ptr(),
        key_cbor_len: kc.len(),
        cbor: vc.as_ptr(),
        cbor_len: vc.len(),
        kind: zt_value_kind::ZT_VALUE_UNDEFINED,
        has_int: false,
        bool_value: false,
        int_value: 0,
        uint_value: 0,
        float_value: 0.0,
        data: core::ptr::null(),
        data_len: 0,
        count: 0,
    };
    let value = v.get();
    if let Some(i) = value.as_i64() {
        a.has_int = true;
        a.int_value = i;
    }
    if let Some(f) = value.as_f64() {
        a.float_value = f;
    }
    use zt_value_kind::*;
    a.kind = match value {
        ValueRef::Uint(n) => {
            a.uint_value = n;
            ZT_VALUE_UINT
        }
        ValueRef::NegInt(n) => {
            a.uint_value = n;
            ZT_VALUE_NEGINT
        }
        ValueRef::Float(_) => ZT_VALUE_FLOAT,
        ValueRef::Bool(b) => {
            a.bool_value = b;
            ZT_VALUE_BOOL
        }
        ValueRef::Null => ZT_VALUE_NULL,
        ValueRef::Undefined => ZT_VALUE_UNDEFINED,
        ValueRef::Text(c) | ValueRef::Bytes(c) => {
            if let Some(b) = c.contiguous() {
                a.data = b.as_ptr();
                a.data_len = b.len();
            }
            if matches!(value, ValueRef::Text(_)) {
                ZT_VALUE_TEXT
            } else {
                ZT_VALUE_BYTES
            }
        }
        ValueRef::Array(x) => {
            a.count = x.len();
            ZT_VALUE_ARRAY
        }
        ValueRef::Map(m) => {
            a.count = m.len();
            ZT_VALUE_MAP
        }
        ValueRef::Tag(t, _) => {
            a.uint_value = t;
            ZT_VALUE_TAG
        }
        ValueRef::Simple(s) => {
            a.uint_value = s.into();
            ZT_VALUE_SIMPLE
        }
    };
    a
}
