//! A small JSON writer, and the mapping of CBOR attribute values to JSON.
//!
//! Hand-written rather than built on a JSON library so that CBOR map order
//! is kept exactly (nested attribute maps keep their insertion order).
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

use std::fmt::Write as _;
use ztensor::{Map, Value, ValueRef};

/// Append `s` as a JSON string literal.
pub fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Append an optional string, `null` when absent.
pub fn opt_string(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => string(out, s),
        None => out.push_str("null"),
    }
}

/// Append an optional number, `null` when absent.
pub fn opt_u64(out: &mut String, n: Option<u64>) {
    match n {
        Some(n) => {
            let _ = write!(out, "{n}");
        }
        None => out.push_str("null"),
    }
}

/// A float as JSON: a number when finite, else a string (see module docs).
fn float(out: &mut String, f: f64) {
    if f.is_nan() {
        out.push_str("\"NaN\"");
    } else if f.is_infinite() {
        out.push_str(if f > 0.0 { "\"Infinity\"" } else { "\"-Infinity\"" });
    } else {
        // Debug is the shortest round-tripping form and always valid JSON
        // ("3.0", "0.1", "1e16", "1e-7", "-0.0").
        let _ = write!(out, "{f:?}");
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

/// Append a CBOR value as JSON.
pub fn value(out: &mut String, v: Value<'_>) {
    match v.get() {
        ValueRef::Uint(n) => {
            let _ = write!(out, "{n}");
        }
        ValueRef::NegInt(n) => {
            let _ = write!(out, "{}", -1 - i128::from(n));
        }
        ValueRef::Float(f) => float(out, f),
        ValueRef::Text(c) => string(out, &text_of(c)),
        ValueRef::Bytes(c) => {
            out.push('"');
            for chunk in c.iter() {
                hex(out, chunk);
            }
            out.push('"');
        }
        ValueRef::Array(a) => {
            out.push('[');
            for (i, item) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                value(out, item);
            }
            out.push(']');
        }
        ValueRef::Map(m) => map(out, m),
        ValueRef::Tag(_, inner) => value(out, inner),
        ValueRef::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        ValueRef::Null | ValueRef::Undefined | ValueRef::Simple(_) => out.push_str("null"),
    }
}

/// A map key as a JSON string (see module docs for non-text keys).
fn key(out: &mut String, k: Value<'_>) {
    let s = match k.get() {
        ValueRef::Text(c) => text_of(c),
        ValueRef::Uint(_) | ValueRef::NegInt(_) | ValueRef::Array(_) | ValueRef::Map(_) | ValueRef::Bytes(_) => {
            let mut s = String::new();
            value(&mut s, k);
            // Strings (hex bytes) come back quoted: drop the quotes.
            match s.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
                Some(inner) if matches!(k.get(), ValueRef::Bytes(_)) => inner.to_owned(),
                _ => s,
            }
        }
        ValueRef::Float(f) if f.is_nan() => "NaN".into(),
        ValueRef::Float(f) if f.is_infinite() => (if f > 0.0 { "Infinity" } else { "-Infinity" }).into(),
        ValueRef::Float(f) => format!("{f:?}"),
        ValueRef::Bool(b) => b.to_string(),
        ValueRef::Null => "null".into(),
        ValueRef::Undefined => "undefined".into(),
        ValueRef::Simple(n) => format!("simple({n})"),
        ValueRef::Tag(_, inner) => return key(out, inner),
    };
    string(out, &s);
}

/// Append a CBOR map as a JSON object, in encoded order.
pub fn map(out: &mut String, m: Map<'_>) {
    out.push('{');
    for (i, (k, v)) in m.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        key(out, k);
        out.push(':');
        value(out, v);
    }
    out.push('}');
}

/// A CBOR map as a JSON string.
pub fn map_to_string(m: Map<'_>) -> String {
    let mut s = String::new();
    map(&mut s, m);
    s
}
