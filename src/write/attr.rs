//! Attribute values: any CBOR value, owned.

use super::enc;
use crate::error::{Error, ErrorKind, Result};
use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

/// An attribute value: any CBOR data item, owned.
///
/// Integers use the shortest head; floats the shortest of f16/f32/f64 that
/// keeps the exact value (as the reference writer does); arrays and maps are
/// definite-length and keep the given order. [`AttrValue::Cbor`] takes one
/// pre-encoded item (for instance [`Value::raw`](crate::Value::raw) of an
/// attribute read from another file); it is checked when the object or file
/// attribute is added.
///
/// ```
/// use ztensor::write::AttrValue;
/// let v = AttrValue::map([("bits", AttrValue::from(4)), ("packing", "8_per_i32".into())]);
/// let list: AttrValue = vec![AttrValue::from(1.5), AttrValue::Null, AttrValue::from(-3)].into();
/// # let _ = (v, list);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    /// An unsigned integer (major type 0).
    Uint(u64),
    /// The negative integer `-1 - n` (major type 1), reaching −2⁶⁴.
    NegInt(u64),
    /// A float, written in the shortest width that keeps it exactly.
    Float(f64),
    /// A text string.
    Text(String),
    /// A byte string.
    Bytes(Vec<u8>),
    /// `true` / `false`.
    Bool(bool),
    /// `null`.
    Null,
    /// An array.
    Array(Vec<AttrValue>),
    /// A map with any keys, in this order (duplicate keys are refused).
    Map(Vec<(AttrValue, AttrValue)>),
    /// A tagged value.
    Tag(u64, Box<AttrValue>),
    /// One pre-encoded CBOR data item, written as is.
    Cbor(Vec<u8>),
}

impl AttrValue {
    /// A map with text keys, in the given order.
    pub fn map<K: Into<String>, I: IntoIterator<Item = (K, AttrValue)>>(entries: I) -> Self {
        AttrValue::Map(entries.into_iter().map(|(k, v)| (AttrValue::Text(k.into()), v)).collect())
    }

    /// A copy of a value read from a file.
    pub fn from_value(v: crate::Value<'_>) -> Self {
        AttrValue::Cbor(v.raw().to_owned())
    }

    /// Append the CBOR encoding. Refuses nesting deeper than the reader accepts.
    pub(crate) fn encode(&self, out: &mut Vec<u8>, depth: usize) -> Result<()> {
        if depth > crate::MAX_DEPTH {
            return Err(Error::new(ErrorKind::TooDeep));
        }
        match self {
            AttrValue::Uint(v) => enc::uint(out, *v),
            AttrValue::NegInt(n) => enc::negint(out, *n),
            AttrValue::Float(f) => enc::float(out, *f),
            AttrValue::Text(s) => enc::text(out, s),
            AttrValue::Bytes(b) => enc::bytes(out, b),
            AttrValue::Bool(b) => enc::bool(out, *b),
            AttrValue::Null => enc::null(out),
            AttrValue::Array(items) => {
                enc::array(out, items.len() as u64);
                for i in items {
                    i.encode(out, depth + 1)?;
                }
            }
            AttrValue::Map(entries) => {
                enc::map(out, entries.len() as u64);
                for (k, v) in entries {
                    k.encode(out, depth + 1)?;
                    v.encode(out, depth + 1)?;
                }
            }
            AttrValue::Tag(t, v) => {
                enc::tag(out, *t);
                v.encode(out, depth + 1)?;
            }
            AttrValue::Cbor(b) => {
                // Exactly one well-formed item (keys are checked with the manifest).
                let mut r = crate::cbor::Reader::new(b);
                r.walk(depth, None).map_err(|e| Error::new(e.kind()))?;
                if r.pos != b.len() {
                    return Err(Error::new(ErrorKind::TrailingBytes { count: (b.len() - r.pos) as u64 }));
                }
                out.extend_from_slice(b)
            }
        }
        Ok(())
    }
}

macro_rules! from_uint {
    ($($t:ty),*) => {$(
        impl From<$t> for AttrValue {
            fn from(v: $t) -> Self {
                AttrValue::Uint(v as u64)
            }
        }
    )*};
}
from_uint!(u8, u16, u32, u64, usize);

macro_rules! from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for AttrValue {
            fn from(v: $t) -> Self {
                let v = v as i64;
                if v >= 0 { AttrValue::Uint(v as u64) } else { AttrValue::NegInt(!(v as u64)) }
            }
        }
    )*};
}
from_int!(i8, i16, i32, i64, isize);

impl From<f64> for AttrValue {
    fn from(v: f64) -> Self {
        AttrValue::Float(v)
    }
}
impl From<f32> for AttrValue {
    fn from(v: f32) -> Self {
        AttrValue::Float(crate::cbor::f32_to_f64(v))
    }
}
impl From<bool> for AttrValue {
    fn from(v: bool) -> Self {
        AttrValue::Bool(v)
    }
}
impl From<&str> for AttrValue {
    fn from(v: &str) -> Self {
        AttrValue::Text(v.to_owned())
    }
}
impl From<String> for AttrValue {
    fn from(v: String) -> Self {
        AttrValue::Text(v)
    }
}
impl From<&[u8]> for AttrValue {
    fn from(v: &[u8]) -> Self {
        AttrValue::Bytes(v.to_owned())
    }
}
impl From<Vec<AttrValue>> for AttrValue {
    fn from(v: Vec<AttrValue>) -> Self {
        AttrValue::Array(v)
    }
}
impl<T: Into<AttrValue>> From<Option<T>> for AttrValue {
    fn from(v: Option<T>) -> Self {
        v.map_or(AttrValue::Null, Into::into)
    }
}
impl From<crate::Value<'_>> for AttrValue {
    fn from(v: crate::Value<'_>) -> Self {
        AttrValue::from_value(v)
    }
}

/// An attribute map under construction: encoded keys and values, in
/// insertion order; setting a key again replaces its value in place.
#[derive(Clone, Debug, Default)]
pub(crate) struct Attrs {
    entries: Vec<(Vec<u8>, Vec<u8>)>,
}

impl Attrs {
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Set a text key.
    pub fn set(&mut self, key: &str, value: &AttrValue) -> Result<()> {
        let mut k = Vec::new();
        enc::text(&mut k, key);
        let mut v = Vec::new();
        // The value of a file attribute sits at depth 2, of an object attribute at 4.
        value.encode(&mut v, 4)?;
        self.set_raw(k, v);
        Ok(())
    }

    /// Set an encoded key (kept from an existing file).
    pub fn set_raw(&mut self, key: Vec<u8>, value: Vec<u8>) {
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(e) => e.1 = value,
            None => self.entries.push((key, value)),
        }
    }

    /// Set every entry of `other`.
    pub fn merge(&mut self, other: Attrs) {
        for (k, v) in other.entries {
            self.set_raw(k, v);
        }
    }

    /// Append the map.
    pub fn encode(&self, out: &mut Vec<u8>) {
        enc::map(out, self.entries.len() as u64);
        for (k, v) in &self.entries {
            out.extend_from_slice(k);
            out.extend_from_slice(v);
        }
    }

    /// The encoded map, or `None` when empty.
    pub fn encoded(&self) -> Option<Vec<u8>> {
        (!self.is_empty()).then(|| {
            let mut out = Vec::new();
            self.encode(&mut out);
            out
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn bytes(v: &AttrValue) -> Vec<u8> {
        let mut out = Vec::new();
        v.encode(&mut out, 0).unwrap();
        out
    }

    #[test]
    fn encodes_every_kind() {
        assert_eq!(bytes(&AttrValue::from(-(1i64 << 62) * 2)), [0x3b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
        assert_eq!(bytes(&AttrValue::from(i64::MIN)), [0x3b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
        assert_eq!(bytes(&AttrValue::from(-1)), [0x20]);
        assert_eq!(bytes(&AttrValue::from(u64::MAX)), [0x1b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
        assert_eq!(bytes(&AttrValue::from("a")), [0x61, b'a']);
        assert_eq!(bytes(&AttrValue::from(&b"\x01\x02"[..])), [0x42, 1, 2]);
        assert_eq!(bytes(&AttrValue::from(true)), [0xf5]);
        assert_eq!(bytes(&AttrValue::Null), [0xf6]);
        assert_eq!(bytes(&AttrValue::from(None::<u8>)), [0xf6]);
        assert_eq!(bytes(&AttrValue::Tag(1, Box::new(7u8.into()))), [0xc1, 0x07]);
        assert_eq!(bytes(&vec![AttrValue::from(1u8), "x".into()].into()), [0x82, 0x01, 0x61, b'x']);
        assert_eq!(
            bytes(&AttrValue::map([("z", 1u8.into()), ("a", AttrValue::Map(vec![(2u8.into(), 1.5.into())]))])),
            [0xa2, 0x61, b'z', 0x01, 0x61, b'a', 0xa1, 0x02, 0xf9, 0x3e, 0x00]
        );
        assert_eq!(bytes(&AttrValue::Cbor(vec![0x80])), [0x80]);
        let bad = |b: &[u8]| AttrValue::Cbor(b.to_vec()).encode(&mut Vec::new(), 0).unwrap_err().kind();
        assert_eq!(bad(&[0x01, 0x02]), ErrorKind::TrailingBytes { count: 1 });
        assert_eq!(bad(&[]), ErrorKind::CborEof);
        assert_eq!(bad(&[0x81]), ErrorKind::LengthTooLarge { claimed: 1 });
    }

    #[test]
    fn refuses_runaway_nesting() {
        let mut v = AttrValue::Null;
        for _ in 0..200 {
            v = AttrValue::Array(vec![v]);
        }
        assert_eq!(v.encode(&mut Vec::new(), 0).unwrap_err().kind(), ErrorKind::TooDeep);
    }

    #[test]
    fn attrs_replace_in_place() {
        let mut a = Attrs::default();
        a.set("b", &1u8.into()).unwrap();
        a.set("a", &2u8.into()).unwrap();
        a.set("b", &3u8.into()).unwrap();
        assert_eq!(a.encoded().unwrap(), [0xa2, 0x61, b'b', 0x03, 0x61, b'a', 0x02]);
        assert!(Attrs::default().encoded().is_none());
    }
}
