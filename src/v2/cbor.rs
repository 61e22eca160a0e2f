//! Deterministic CBOR (RFC 8949 §4.2.1 as restricted by spec §3.1): the
//! rule a fault of the walk broke (the walk itself is the compact cursor's,
//! `compact::cur`, the one walk of both readers) and the canonical-float
//! rule.

use super::error::{Error, Kind, Result};

/// Deepest nesting accepted below the root (the root map is depth 0, so 33
/// nested containers in all; upstream 2.1.2 counts the same way).
pub const MAX_DEPTH: usize = 32;

pub(crate) const UINT: u8 = 0;
pub(crate) const BYTES: u8 = 2;
pub(crate) const TEXT: u8 = 3;
pub(crate) const ARRAY: u8 = 4;
pub(crate) const MAP: u8 = 5;
pub(crate) const TAG: u8 = 6;
pub(crate) const SIMPLE: u8 = 7;

/// Read a head at `pos`: (major, additional info, argument, next position).
/// Only checks that the head is complete.
#[inline(always)]
fn raw_head(b: &[u8], pos: usize) -> Result<(u8, u8, u64, usize)> {
    let ib = *b.get(pos).ok_or(Error::at(Kind::CborTruncated, pos))?;
    let (major, ai) = (ib >> 5, ib & 0x1f);
    let w = match ai {
        0..=23 => return Ok((major, ai, ai as u64, pos + 1)),
        24 => 1,
        25 => 2,
        26 => 4,
        27 => 8,
        31 => return Err(Error::at(Kind::CborIndefinite, pos)),
        _ => return Err(Error::at(Kind::CborInvalid, pos)),
    };
    let s = b.get(pos + 1..pos + 1 + w).ok_or(Error::at(Kind::CborTruncated, pos))?;
    let mut v = 0u64;
    for &x in s {
        v = v << 8 | x as u64;
    }
    Ok((major, ai, v, pos + 1 + w))
}

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

/// Whether an f32 is exactly representable as an f16 (finite or infinite, not NaN).
fn f32_fits_f16(f: f32) -> bool {
    let bits = f.to_bits();
    let exp = ((bits >> 23) & 0xff) as i32;
    let man = bits & 0x7f_ffff;
    if exp == 0xff {
        return man == 0; // infinity fits; NaN is handled by the caller
    }
    if exp == 0 {
        return man == 0; // f32 subnormals are far below f16's range; only zero fits
    }
    let e = exp - 127;
    if e > 15 {
        return false;
    }
    if e >= -14 {
        return man & 0x1fff == 0; // normal f16: 10 mantissa bits
    }
    // f16 subnormal: value = m * 2^-24 with m < 1024
    let shift = -14 - e; // bits lost to the subnormal shift
    if shift > 10 {
        return false;
    }
    let lost = 13 + shift as u32;
    man & ((1u32 << lost) - 1) == 0
}

/// Whether a float head (`ai` 25, 26, 27 with its raw bits) is in §3.1's
/// canonical form: the shortest width that holds the value exactly, NaN
/// only as the half `0x7e00` (also the compact reader's rule).
pub(crate) fn canonical_float(ai: u8, v: u64) -> bool {
    match ai {
        25 => {
            let nan = v & 0x7c00 == 0x7c00 && v & 0x3ff != 0;
            !nan || v == 0x7e00
        }
        26 => {
            let f = f32::from_bits(v as u32);
            !(f.is_nan() || f32_fits_f16(f))
        }
        _ => {
            // Infinities and NaN fit a half; a zero fits one too, and no
            // f64 subnormal fits an f32.
            let (exp, man) = ((v >> 52 & 0x7ff) as i32, v & ((1 << 52) - 1));
            match exp {
                0x7ff => false,
                0 => man != 0,
                _ => !f64_fits_f32(exp - 1023, man),
            }
        }
    }
}

/// Whether the finite normal f64 `(1 + man / 2^52) * 2^e` is an f32 value.
/// In integers: the targets' FPUs (Cortex-M4F among them) are single
/// precision only, and f64 arithmetic would link soft-float routines.
fn f64_fits_f32(e: i32, man: u64) -> bool {
    // The value's lowest set bit, as a power of two, must be one an f32
    // holds: f32 has 23 bits below its leading one, none below 2^-149.
    let lowest = e - 52 + (man | 1 << 52).trailing_zeros() as i32;
    e <= 127 && lowest >= (e - 23).max(-149)
}

/// Validate `b` as exactly one item in deterministic encoding (§3.1),
/// nested at most [`MAX_DEPTH`] deep: the compact cursor's walk (the one
/// walk of both readers), its fault told apart by [`cbor_error`].
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
        _ => match raw_head(b, at) {
            Err(e) => e.kind,
            Ok((major, ai, v, next)) => {
                let left = (b.len() - next) as u64;
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
