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

/// Lowercase hex, two digits a byte (no formatting machinery: `--json`
/// of a 64 MiB byte string writes 128 M digits).
fn hex(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.reserve(2 * bytes.len());
    for &b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
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

// ------------------------------------------------------------------ brief (zt info's text output)

/// Byte strings up to this many bytes are shown whole (as hex, 64 digits:
/// a SHA-256 fits); longer ones by their first [`BRIEF_BYTES`].
const WHOLE_BYTES: usize = 32;
/// Bytes shown of a longer byte string.
const BRIEF_BYTES: usize = 16;
/// Characters shown of a text; longer texts are cut there.
const BRIEF_CHARS: usize = 48;
/// An array or map stops showing items once it has taken this many bytes
/// of output, and counts the rest.
const BRIEF_LEN: usize = 64;

/// A CBOR map as one line of compact JSON, as [`JsonMap`] serializes it,
/// except that long values are shortened and their length shown (`zt info`
/// text; `--json` shows every value whole):
/// * byte strings over 32 bytes: `<67108864 bytes: 00 01 02 … 0f …>`;
/// * texts over 48 characters: `<1048576 bytes of text: "Lorem ipsum …"…>`;
/// * arrays and maps, past 64 bytes of output: `[1,2,3,…,… (1000000 items)]`.
///
/// Every entry of `m` itself is shown. Only the bytes shown are read: a
/// 64 MiB attribute costs what a short one does.
pub fn map_to_brief(m: Map<'_>) -> String {
    let mut out = String::new();
    brief_map(&mut out, m, usize::MAX);
    out
}

fn brief(out: &mut String, v: Value<'_>) {
    match v.get() {
        ValueRef::Text(c) => brief_text(out, c),
        ValueRef::Bytes(c) => brief_bytes(out, c),
        ValueRef::Array(a) => {
            out.push('[');
            let shown = until_full(out, BRIEF_LEN, a.iter(), |out, item| brief(out, item));
            more(out, shown, a.len(), "items");
            out.push(']');
        }
        ValueRef::Map(m) => brief_map(out, m, BRIEF_LEN),
        ValueRef::Tag(_, inner) => brief(out, inner),
        _ => out.push_str(&to_string(&Json(v))),
    }
}

fn brief_map(out: &mut String, m: Map<'_>, limit: usize) {
    out.push('{');
    let shown = until_full(out, limit, m.iter(), |out, (k, v)| {
        brief_key(out, k);
        out.push(':');
        brief(out, v);
    });
    more(out, shown, m.len(), "entries");
    out.push('}');
}

/// Show `items` (comma-separated) until `limit` bytes of output are
/// taken; returns how many were shown.
fn until_full<T, I, F>(out: &mut String, limit: usize, items: I, mut show: F) -> usize
where
    I: Iterator<Item = T>,
    F: FnMut(&mut String, T),
{
    let start = out.len();
    let mut shown = 0;
    for item in items {
        if out.len() - start > limit {
            break;
        }
        if shown > 0 {
            out.push(',');
        }
        show(out, item);
        shown += 1;
    }
    shown
}

/// `,… (N items)` when fewer than all `n` were shown.
fn more(out: &mut String, shown: usize, n: usize, what: &str) {
    if shown < n {
        let _ = write!(out, "{}… ({n} {what})", if shown > 0 { "," } else { "" });
    }
}

/// A map key as a JSON string ([`key`]), shortened as values are.
fn brief_key(out: &mut String, k: Value<'_>) {
    match k.get() {
        ValueRef::Text(c) => brief_text(out, c),
        ValueRef::Bytes(c) => brief_bytes(out, c),
        ValueRef::Tag(_, inner) => brief_key(out, inner),
        ValueRef::Array(_) | ValueRef::Map(_) => {
            let mut s = String::new();
            brief(&mut s, k);
            out.push_str(&to_string(&s));
        }
        _ => out.push_str(&to_string(&key(k))),
    }
}

/// The first `n` bytes of a string's chunks.
fn prefix(c: ztensor::Chunks<'_>, n: usize) -> Vec<u8> {
    let mut head = Vec::with_capacity(n);
    for chunk in c.iter() {
        head.extend_from_slice(&chunk[..chunk.len().min(n - head.len())]);
        if head.len() == n {
            break;
        }
    }
    head
}

fn brief_text(out: &mut String, c: ztensor::Chunks<'_>) {
    // A character takes at most 4 bytes: these hold the first BRIEF_CHARS whole.
    let head = prefix(c, 4 * BRIEF_CHARS);
    let head = String::from_utf8_lossy(&head);
    let len = c.len();
    if len <= head.len() && head.chars().count() <= BRIEF_CHARS {
        out.push_str(&to_string(&head));
    } else {
        let cut: String = head.chars().take(BRIEF_CHARS).collect();
        let _ = write!(out, "<{len} bytes of text: {}…>", to_string(&cut));
    }
}

fn brief_bytes(out: &mut String, c: ztensor::Chunks<'_>) {
    let len = c.len();
    if len <= WHOLE_BYTES {
        out.push('"');
        hex(out, &prefix(c, len));
        out.push('"');
    } else {
        let _ = write!(out, "<{len} bytes:");
        for b in prefix(c, BRIEF_BYTES) {
            let _ = write!(out, " {b:02x}");
        }
        out.push_str(" …>");
    }
}
