//! Attribute values described for C (`zt_attribute`), from the core's
//! CBOR `Value`s: one filling code for both readers (the compact reader's
//! maps are the core's `Map`).

use core::ffi::c_char;
use ztensor_core::Value;

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
#[cfg_attr(all(feature = "compact", not(feature = "std")), allow(dead_code))]
pub(crate) fn describe(k: Value<'_>, v: Value<'_>) -> zt_attribute {
    let mut a = zt_attribute {
        key: core::ptr::null(),
        key_len: 0,
        key_cbor: core::ptr::null(),
        key_cbor_len: 0,
        cbor: core::ptr::null(),
        cbor_len: 0,
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
    describe_into(&mut a, k, v);
    a
}

/// [`describe`] into `*a`, which is blank (zeroed, or `describe`'s blank):
/// the key and CBOR fields, then the value's fields as the core reads
/// them at once (`Value::describe`: zero where the value sets none, as
/// the blank has them). The compact build fills the caller's zeroed
/// `zt_attribute` in place, with no copy between.
pub(crate) fn describe_into(a: &mut zt_attribute, k: Value<'_>, v: Value<'_>) {
    let (key, key_len) = match k.as_str() {
        Some(s) => (s.as_ptr().cast(), s.len()),
        None => (core::ptr::null(), 0),
    };
    let (kc, vc) = (k.raw(), v.raw());
    (a.key, a.key_len) = (key, key_len);
    (a.key_cbor, a.key_cbor_len) = (kc.as_ptr(), kc.len());
    (a.cbor, a.cbor_len) = (vc.as_ptr(), vc.len());
    let d = v.describe();
    use zt_value_kind::*;
    a.kind = match d.kind {
        0 => ZT_VALUE_UINT,
        1 => ZT_VALUE_NEGINT,
        2 => ZT_VALUE_FLOAT,
        3 => ZT_VALUE_BOOL,
        4 => ZT_VALUE_NULL,
        5 => ZT_VALUE_UNDEFINED,
        6 => ZT_VALUE_TEXT,
        7 => ZT_VALUE_BYTES,
        8 => ZT_VALUE_ARRAY,
        9 => ZT_VALUE_MAP,
        10 => ZT_VALUE_TAG,
        _ => ZT_VALUE_SIMPLE,
    };
    (a.has_int, a.bool_value, a.int_value) = (d.has_int, d.bool_value, d.int_value);
    (a.uint_value, a.float_value, a.count) = (d.uint_value, d.float_value, d.count);
    if let Some(b) = d.data {
        (a.data, a.data_len) = (b.as_ptr(), b.len());
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use crate::{zt_attribute, zt_attribute_find, zt_close, zt_open_mem, zt_status};

    /// A v1.2 file with no objects whose attributes are `entries`
    /// (text keys, encoded values).
    fn file(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut m = vec![0xa3, 0x67];
        m.extend(b"version\x651.2.0\x67objects\xa0\x6aattributes");
        m.extend([0xb8, entries.len() as u8]);
        for (k, v) in entries {
            m.push(0x60 + k.len() as u8);
            m.extend(k.as_bytes());
            m.extend(*v);
        }
        let mut f = b"ZTEN1000".to_vec();
        f.extend(&m);
        f.extend((m.len() as u64).to_le_bytes());
        f.extend(b"ZTEN1000");
        f
    }

    #[test]
    fn describes_every_kind_field_by_field() {
        use crate::zt_value_kind::*;
        // (key, value, kind, has_int, bool, int, uint, float bits, data_len (None: NULL), count)
        #[rustfmt::skip]
        let cases: &[(&str, &[u8], _, bool, bool, i64, u64, u64, Option<usize>, usize)] = &[
            ("u", &[0x18, 42], ZT_VALUE_UINT, true, false, 42, 42, 42f64.to_bits(), None, 0),
            ("u53", &[0x1b, 0, 0x20, 0, 0, 0, 0, 0, 1], ZT_VALUE_UINT, true, false, (1 << 53) + 1, (1 << 53) + 1, 9_007_199_254_740_992f64.to_bits(), None, 0),
            ("u63", &[0x1b, 0x80, 0, 0, 0, 0, 0, 0, 0], ZT_VALUE_UINT, false, false, 0, 1 << 63, 9_223_372_036_854_775_808f64.to_bits(), None, 0),
            ("n", &[0x29], ZT_VALUE_NEGINT, true, false, -10, 9, (-10f64).to_bits(), None, 0),
            ("nmin", &[0x3b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], ZT_VALUE_NEGINT, true, false, i64::MIN, i64::MAX as u64, (-9_223_372_036_854_775_808f64).to_bits(), None, 0),
            ("nmax", &[0x3b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], ZT_VALUE_NEGINT, false, false, 0, u64::MAX, (-18_446_744_073_709_551_616f64).to_bits(), None, 0),
            ("hnan", &[0xf9, 0xfd, 0x01], ZT_VALUE_FLOAT, false, false, 0, 0, 0xfff4_0400_0000_0000, None, 0),
            ("hsub", &[0xf9, 0x80, 0x01], ZT_VALUE_FLOAT, false, false, 0, 0, (-5.960464477539063e-8f64).to_bits(), None, 0),
            ("fnan", &[0xfa, 0xff, 0x80, 0x00, 0x01], ZT_VALUE_FLOAT, false, false, 0, 0, 0xfff0_0000_2000_0000, None, 0),
            ("f", &[0xfa, 0x3f, 0xc0, 0, 0], ZT_VALUE_FLOAT, false, false, 0, 0, 1.5f64.to_bits(), None, 0),
            ("d", &[0xfb, 0xc0, 0x04, 0, 0, 0, 0, 0, 0], ZT_VALUE_FLOAT, false, false, 0, 0, (-2.5f64).to_bits(), None, 0),
            ("no", &[0xf4], ZT_VALUE_BOOL, false, false, 0, 0, 0, None, 0),
            ("yes", &[0xf5], ZT_VALUE_BOOL, false, true, 0, 0, 0, None, 0),
            ("null", &[0xf6], ZT_VALUE_NULL, false, false, 0, 0, 0, None, 0),
            ("undef", &[0xf7], ZT_VALUE_UNDEFINED, false, false, 0, 0, 0, None, 0),
            ("s16", &[0xf0], ZT_VALUE_SIMPLE, false, false, 0, 16, 0, None, 0),
            ("s255", &[0xf8, 0xff], ZT_VALUE_SIMPLE, false, false, 0, 255, 0, None, 0),
            ("text", &[0x63, b'a', b'b', b'c'], ZT_VALUE_TEXT, false, false, 0, 0, 0, Some(3), 0),
            ("chunks", &[0x7f, 0x61, b'a', 0xff], ZT_VALUE_TEXT, false, false, 0, 0, 0, None, 0),
            ("bytes", &[0x42, 1, 2], ZT_VALUE_BYTES, false, false, 0, 0, 0, Some(2), 0),
            ("array", &[0x82, 1, 2], ZT_VALUE_ARRAY, false, false, 0, 0, 0, None, 2),
            ("array_", &[0x9f, 1, 2, 3, 0xff], ZT_VALUE_ARRAY, false, false, 0, 0, 0, None, 3),
            ("map_", &[0xbf, 0x61, b'a', 1, 0x61, b'b', 2, 0xff], ZT_VALUE_MAP, false, false, 0, 0, 0, None, 2),
            ("map", &[0xa3, 0x61, b'a', 1, 0x61, b'b', 2, 0x61, b'c', 0x80], ZT_VALUE_MAP, false, false, 0, 0, 0, None, 3),
            ("array0_", &[0x9f, 0xff], ZT_VALUE_ARRAY, false, false, 0, 0, 0, None, 0),
            ("text_", &[0x78, 0x02, b'h', b'i'], ZT_VALUE_TEXT, false, false, 0, 0, 0, Some(2), 0),
            ("bytes_", &[0x5f, 0x41, 1, 0xff], ZT_VALUE_BYTES, false, false, 0, 0, 0, None, 0),
            ("tag", &[0xc1, 0x1a, 0x5f, 0x5e, 0x10, 0x00], ZT_VALUE_TAG, false, false, 0, 1, 0, None, 0),
        ];
        let bytes = file(&cases.iter().map(|c| (c.0, c.1)).collect::<Vec<_>>());
        let mut f = core::ptr::null_mut();
        unsafe {
            assert_eq!(zt_open_mem(bytes.as_ptr(), bytes.len(), &mut f), zt_status::ZT_OK);
            for &(key, value, kind, has_int, b, int, uint, float, data_len, count) in cases {
                let mut a: zt_attribute = core::mem::zeroed();
                assert_eq!(zt_attribute_find(f, core::ptr::null(), key.as_ptr().cast(), key.len(), &mut a), zt_status::ZT_OK);
                let data = (!a.data.is_null()).then_some(a.data_len);
                let cbor = core::slice::from_raw_parts(a.cbor, a.cbor_len);
                let got = (a.kind, a.has_int, a.bool_value, a.int_value, a.uint_value, a.float_value.to_bits(), data, a.count, cbor);
                assert_eq!(got, (kind, has_int, b, int, uint, float, data_len, count, value), "{key}");
                assert_eq!(core::slice::from_raw_parts(a.key.cast::<u8>(), a.key_len), key.as_bytes());
                assert_eq!(a.key_cbor_len, 1 + key.len());
            }
            zt_close(f);
        }
    }
}
