//! JSON output through serde_json, and the mapping of CBOR attribute values
//! to JSON. The values serialize straight from the file's CBOR (no JSON
//! tree in between), so CBOR map order is kept exactly.
//!
//! CBOR → JSON:
//! * unsigned and negative integers → JSON numbers (full range, −2⁶⁴ … 2⁶⁴−1);
//! * floats (half, single, double) → JSON numbers in their shortest
//!   round-tripping form; **NaN and ±infinity → the strings `"NaN"`,
//!   `"Infinity"` and `"-Infinity"`** (JSON has no such numbers);
//! * text → string (indefinite-length chunks concatenated);
//! * byte strings → lowercase hex string (chunks concatenated);
//! * tags → their content (the tag number is dropped);
//! * `true`/`false`/`null` → themselves; `undefined` and other simple
//!   values → `null`;
//! * map keys that are not text → strings: integers and floats in decimal,
//!   byte strings in hex, `true`/`false`/`null` by name, arrays and maps as
//!   their compact JSON text. Such a key can, in principle, collide with a
//!   text key of the same spelling; both entries are written.

use serde::ser::{Error as _, SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use std::fmt::Write as _;
use ztensor::{Map, Value, ValueRef};

/// Compact JSON text of `v` (serializing our types cannot fail).
pub fn to_string(v: &impl Serialize) -> String {
    serde_json::to_string(v).unwrap_or_else(|e| format!("\"<{e}>\""))
}

/// A CBOR value, serialized as JSON.
pub struct Json<'a>(pub Value<'a>);

/// A CBOR map, serialized as a JSON object in encoded order.
pub struct JsonMap<'a>(pub Map<'a>);

/// A finite float in Rust's shortest round-tripping form ("3.0", "0.1",
/// "1e16", "1e-7", "-0.0": always valid JSON).
fn float<S: Serializer>(s: S, f: f64) -> Result<S::Ok, S::Error> {
    if f.is_nan() {
        s.serialize_str("NaN")
    } else if f.is_infinite() {
        s.serialize_str(if f > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        RawValue::from_string(format!("{f:?}")).map_err(S::Error::custom)?.serialize(s)
    }
}

fn hex(out: &mut String, bytes: &[u8]) {
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
}

fn text_of(chunks: ztensor::Chunks<'_>) -> String {
    let mut bytes = Vec::new();
    for c in chunks.iter() {
        bytes.extend_from_slice(c);
    }
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

impl Serialize for Json<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0.get() {
            ValueRef::Uint(n) => s.serialize_u64(n),
            ValueRef::NegInt(n) => s.serialize_i128(-1 - i128::from(n)),
            ValueRef::Float(f) => float(s, f),
            ValueRef::Text(c) => s.serialize_str(&text_of(c)),
            ValueRef::Bytes(c) => {
                let mut h = String::new();
                for chunk in c.iter() {
                    hex(&mut h, chunk);
                }
                s.serialize_str(&h)
            }
            ValueRef::Array(a) => {
                let mut seq = s.serialize_seq(None)?;
                for item in a.iter() {
                    seq.serialize_element(&Json(item))?;
                }
                seq.end()
            }
            ValueRef::Map(m) => JsonMap(m).serialize(s),
            ValueRef::Tag(_, inner) => Json(inner).serialize(s),
            ValueRef::Bool(b) => s.serialize_bool(b),
            ValueRef::Null | ValueRef::Undefined | ValueRef::Simple(_) => s.serialize_unit(),
        }
    }
}

/// A map key as a JSON string (see module docs for non-text keys).
fn key(k: Value<'_>) -> String {
    match k.get() {
        ValueRef::Text(c) => text_of(c),
        ValueRef::Bytes(c) => {
            let mut h = String::new();
            for chunk in c.iter() {
                hex(&mut h, chunk);
            }
            h
        }
        ValueRef::Uint(_) | ValueRef::NegInt(_) | ValueRef::Array(_) | ValueRef::Map(_) => to_string(&Json(k)),
        ValueRef::Float(f) if f.is_nan() => "NaN".into(),
        ValueRef::Float(f) if f.is_infinite() => (if f > 0.0 { "Infinity" } else { "-Infinity" }).into(),
        ValueRef::Float(f) => format!("{f:?}"),
        ValueRef::Bool(b) => b.to_string(),
        ValueRef::Null => "null".into(),
        ValueRef::Undefined => "undefined".into(),
        ValueRef::Simple(n) => format!("simple({n})"),
        ValueRef::Tag(_, inner) => key(inner),
    }
}

impl Serialize for JsonMap<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for (k, v) in self.0.iter() {
            m.serialize_entry(&key(k), &Json(v))?;
        }
        m.end()
    }
}

/// A CBOR map as compact JSON text.
pub fn map_to_string(m: Map<'_>) -> String {
    to_string(&JsonMap(m))
}
