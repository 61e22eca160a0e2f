//! Deterministic CBOR (RFC 8949 §4.2.1 as restricted by spec §3.1): the
//! rule a fault of the walk broke (the walk itself is the compact cursor's,
//! `compact::cur`, the one walk of both readers) and the canonical-float
//! rule.

use super::error::{Error, Kind, Result};
use crate::cbor::{decode_head, MAJOR_ARRAY as ARRAY, MAJOR_BYTES as BYTES, MAJOR_MAP as MAP, MAJOR_SIMPLE as SIMPLE, MAJOR_TAG as TAG, MAJOR_TEXT as TEXT};

/// Deepest nesting accepted below the root (the root map is depth 0, so 33
/// nested containers in all; upstream 2.1.2 counts the same way).
pub const MAX_DEPTH: usize = 32;

/// Whether `v`, read with additional info `ai`, needed that width.
fn shortest(ai: u8, v: u64) -> bool {
    match ai {
        24 => v >= 24,
        25 => v > 0xff,
        26 => v > 0xffff,
        27 => v > 0xffff_ffff,
        _ => true,
    }
}

/// Validate `b` as exactly one item in deterministic encoding (§3.1),
/// nested at most [`MAX_DEPTH`] deep: the compact cursor's walk (the one
/// walk of both readers), its fault told apart by `cbor_error`.
pub fn validate(b: &[u8]) -> Result<()> {
    let mut c = crate::compact::cur::Cur::det(b, 0);
    c.walk_det(0);
    if c.fault.is_none() && c.pos != b.len() {
        c.fail(crate::compact::Kind::Trailing, c.pos);
    }
    c.done().map_err(|f| cbor_error(b, f))
}

/// The rule of §3.1 that a CBOR fault of the walk broke, read from the
/// head at its byte (the walk's classes join several rules).
#[cold]
pub(crate) fn cbor_error(b: &[u8], f: crate::compact::Fault) -> Error {
    use crate::compact::Kind as Class;
    let at = f.at as usize;
    let kind = match f.kind {
        Class::Utf8 => Kind::CborInvalidUtf8,
        Class::Deep => Kind::CborTooDeep,
        Class::Trailing => Kind::CborTrailingBytes,
        Class::DuplicateKey => Kind::CborDuplicateKey,
        // A bad head, or a head whose rule is broken; else (a well-formed
        // head) a key out of order.
        _ => match (b.get(at).map(|ib| ib & 0x1f), decode_head(b, at)) {
            (None, _) => Kind::CborTruncated,
            (Some(31), _) => Kind::CborIndefinite,
            (Some(28..=30), _) => Kind::CborInvalid,
            // (The head decoder refuses a simple value below 32 in two bytes.)
            (Some(24), None) if b[at] >> 5 == SIMPLE && at + 1 < b.len() => Kind::CborSimple,
            (Some(_), None) => Kind::CborTruncated,
            (Some(ai), Some((major, v, next))) => {
                let (v, left) = (v.unwrap_or(0), (b.len() - next) as u64);
                match major {
                    SIMPLE if (25..=27).contains(&ai) => Kind::CborNonCanonicalFloat,
                    SIMPLE if !(20..=22).contains(&ai) => Kind::CborSimple,
                    _ if major != SIMPLE && !shortest(ai, v) => Kind::CborNonShortest,
                    BYTES | TEXT | ARRAY | MAP if v > left => Kind::CborTruncated,
                    TAG => Kind::CborTag,
                    _ if f.kind == Class::Cbor => Kind::CborInvalid,
                    _ => Kind::CborUnsortedKeys,
                }
            }
        },
    };
    Error::at(kind, at)
}

#[cfg(test)]
mod tests;
