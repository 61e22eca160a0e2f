//! Deterministic CBOR (spec §3.1, RFC 8949 §4.2.1) with minicbor's
//! `Encoder`: shortest heads, definite lengths, map keys in bytewise order
//! of their encodings, the one NaN `f9 7e00`, floats in their narrowest
//! exact width, no tags.

use super::super::attr::AttrValue;
use super::super::enc;
use super::{Error, Kind, Result};
use alloc::vec::Vec;
use core::convert::Infallible;

/// Writing into a `Vec` cannot fail.
fn done<T>(r: core::result::Result<T, minicbor::encode::Error<Infallible>>) {
    debug_assert!(r.is_ok());
    let _ = r;
}

pub(crate) fn uint(out: &mut Vec<u8>, v: u64) {
    done(enc::cbor(out).u64(v));
}

pub(crate) fn text(out: &mut Vec<u8>, s: &str) {
    done(enc::cbor(out).str(s));
}

pub(crate) fn array(out: &mut Vec<u8>, n: u64) {
    done(enc::cbor(out).array(n));
}

/// A text key, encoded.
pub(crate) fn key(s: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(s.len() + 3);
    text(&mut k, s);
    k
}

/// A map of encoded `(key, value)` entries, sorted here by key bytes; equal
/// keys are refused.
pub(crate) fn map<K: AsRef<[u8]>, V: AsRef<[u8]>>(out: &mut Vec<u8>, mut entries: Vec<(K, V)>) -> Result<()> {
    entries.sort_unstable_by(|a, b| a.0.as_ref().cmp(b.0.as_ref()));
    if entries.windows(2).any(|w| w[0].0.as_ref() == w[1].0.as_ref()) {
        return Err(Error::new(Kind::DuplicateKey));
    }
    done(enc::cbor(out).map(entries.len() as u64));
    for (k, v) in entries {
        out.extend_from_slice(k.as_ref());
        out.extend_from_slice(v.as_ref());
    }
    Ok(())
}

/// A float: the one NaN `f9 7e00`, else the narrowest width that holds it exactly.
pub(crate) fn float(out: &mut Vec<u8>, x: f64) {
    if x.is_nan() {
        out.extend_from_slice(&[0xf9, 0x7e, 0x00]);
    } else {
        enc::float(out, x);
    }
}

/// An attribute value in deterministic form, `depth` levels below the root.
pub(crate) fn value(out: &mut Vec<u8>, v: &AttrValue, depth: usize) -> Result<()> {
    if depth > crate::v2::cbor::MAX_DEPTH {
        return Err(Error::new(Kind::TooDeep));
    }
    match v {
        AttrValue::Float(f) => float(out, *f),
        AttrValue::Array(items) => {
            array(out, items.len() as u64);
            for i in items {
                value(out, i, depth + 1)?;
            }
        }
        AttrValue::Map(entries) => {
            let mut enc = Vec::with_capacity(entries.len());
            for (k, v) in entries {
                let (mut ke, mut ve) = (Vec::new(), Vec::new());
                value(&mut ke, k, depth + 1)?;
                value(&mut ve, v, depth + 1)?;
                enc.push((ke, ve));
            }
            map(out, enc)?;
        }
        AttrValue::Tag(..) => return Err(Error::new(Kind::Tag)),
        AttrValue::Cbor(b) => {
            // A pre-encoded item is taken only when already deterministic.
            crate::v2::cbor::validate(b).map_err(|e| Error::new(Kind::Rule(e)))?;
            out.extend_from_slice(b);
        }
        // Integers, text, bytes, booleans, null: one encoding each.
        other => other.encode(out, 0).map_err(|e| Error::new(Kind::Core(e.kind())))?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(v: &AttrValue) -> Vec<u8> {
        let mut out = Vec::new();
        value(&mut out, v, 1).unwrap();
        out
    }

    #[test]
    fn maps_sort_by_encoded_key_and_nans_are_canonical() {
        let m = AttrValue::map([("zz", AttrValue::from(1)), ("b", AttrValue::from(f64::NAN)), ("aa", AttrValue::from(1.5))]);
        // "b" (61 62) < "aa" (62 61 61) < "zz": shorter keys first.
        assert_eq!(enc(&m), [0xa3, 0x61, b'b', 0xf9, 0x7e, 0x00, 0x62, b'a', b'a', 0xf9, 0x3e, 0x00, 0x62, b'z', b'z', 0x01]);
        assert_eq!(enc(&AttrValue::from(0.1)), [&[0xfb][..], &0.1f64.to_be_bytes()].concat());
        let dup = AttrValue::map([("a", AttrValue::Null), ("a", AttrValue::Null)]);
        assert!(matches!(value(&mut Vec::new(), &dup, 1).unwrap_err().kind, Kind::DuplicateKey));
        assert!(matches!(value(&mut Vec::new(), &AttrValue::Tag(1, alloc::boxed::Box::new(AttrValue::Null)), 1).unwrap_err().kind, Kind::Tag));
    }
}
