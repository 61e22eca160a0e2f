//! Deterministic CBOR (RFC 8949 §4.2.1 as restricted by spec §3.1): a
//! validating walk over a borrowed slice with a fixed stack of 32 frames,
//! and a cursor that reads items the walk has already accepted, or (a
//! checking cursor) checks each item it reads or skips by the walk's rules,
//! so that the manifest's schema pass is also its CBOR pass.

use super::error::{Error, Kind, Result};

/// Deepest nesting accepted below the root (the root map is depth 0, so 33
/// nested containers in all; upstream 2.1.2 counts the same way).
pub const MAX_DEPTH: usize = 32;

pub(crate) const UINT: u8 = 0;
pub(crate) const NINT: u8 = 1;
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

/// Check a float head (`ai` 25, 26, 27 with its raw bits).
fn check_float(ai: u8, v: u64, pos: usize) -> Result<()> {
    if canonical_float(ai, v) {
        Ok(())
    } else {
        Err(Error::at(Kind::CborNonCanonicalFloat, pos))
    }
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

/// Bytewise order of two encoded keys: a plain loop, quicker than a
/// `memcmp` call for the short keys of a manifest (they differ early).
#[inline]
fn key_cmp(a: &[u8], b: &[u8]) -> core::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

/// Whether `t`, a text of fewer than 24 bytes at `b[at..]`, is ASCII: a
/// word at a time, whole words read from `b` when it has them (bytes past
/// `t` masked off), instead of a byte loop.
#[inline]
fn short_ascii(b: &[u8], at: usize, t: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let word = |i: usize| b.get(at + i..at + i + 8).map(|w| u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]));
    let n = t.len();
    let mut acc = 0u64;
    let mut i = 0;
    while i + 8 <= n {
        acc |= word(i).unwrap_or(HIGH);
        i += 8;
    }
    if i < n {
        match word(i) {
            Some(w) => acc |= w & (u64::MAX >> (8 * (8 - (n - i)))),
            None => return acc & HIGH == 0 && t[i..].is_ascii(),
        }
    }
    acc & HIGH == 0
}

#[derive(Clone, Copy, Default)]
struct Frame {
    /// Items still to read (a map counts keys and values).
    left: u64,
    map: bool,
    /// Start of the key being read, in a map whose next item is a key.
    key_start: usize,
    /// The previous key's encoding, `prev_start..prev_end` (empty before the first).
    prev_start: usize,
    prev_end: usize,
}

/// The rest of one item after its head: checks strings, floats, simple
/// values and tags; a non-empty array or map gives the frame to push.
#[inline]
fn item(b: &[u8], pos: &mut usize, major: u8, ai: u8, v: u64, start: usize, depth: usize) -> Result<Option<Frame>> {
    match major {
        UINT | NINT => {}
        BYTES | TEXT => {
            let end = (*pos as u64).checked_add(v).filter(|&e| e <= b.len() as u64);
            let end = end.ok_or(Error::at(Kind::CborTruncated, start))? as usize;
            if major == TEXT && !b[*pos..end].is_ascii() && core::str::from_utf8(&b[*pos..end]).is_err() {
                return Err(Error::at(Kind::CborInvalidUtf8, start));
            }
            *pos = end;
        }
        ARRAY | MAP => {
            if depth > MAX_DEPTH {
                return Err(Error::at(Kind::CborTooDeep, start));
            }
            let per = if major == MAP { 2 } else { 1 };
            // Every item takes at least one byte: a count past the end is truncation.
            if v > (b.len() - *pos) as u64 {
                return Err(Error::at(Kind::CborTruncated, start));
            }
            if v > 0 {
                return Ok(Some(Frame { left: v * per, map: major == MAP, key_start: 0, prev_start: 0, prev_end: 0 }));
            }
        }
        TAG => return Err(Error::at(Kind::CborTag, start)),
        _ => match ai {
            20..=22 => {}
            25..=27 => check_float(ai, v, start)?,
            _ => return Err(Error::at(Kind::CborSimple, start)),
        },
    }
    Ok(None)
}

/// Validate `b` as exactly one item in deterministic encoding, nested at
/// most [`MAX_DEPTH`] deep. Never allocates; iterative.
pub fn validate(b: &[u8]) -> Result<()> {
    let end = walk(b, 0, 0)?;
    if end == b.len() {
        Ok(())
    } else {
        Err(Error::at(Kind::CborTrailingBytes, end))
    }
}

/// Validate the one item at `b[pos..]`, nested `base` deep below the root,
/// as [`validate`] does; returns where it ends.
fn walk(b: &[u8], mut pos: usize, base: usize) -> Result<usize> {
    let mut stack = [Frame::default(); MAX_DEPTH + 1];
    let mut depth = 0usize;
    loop {
        // Start of one item: remember where a map key begins.
        if depth > 0 {
            let f = &mut stack[depth - 1];
            if f.map && f.left % 2 == 0 {
                f.key_start = pos;
            }
        }
        let start = pos;
        // Fast path: a short text (most keys and names) or a small integer.
        match b.get(pos) {
            Some(&ib @ 0x60..=0x77) => {
                let end = pos + 1 + (ib & 0x1f) as usize;
                let Some(t) = b.get(pos + 1..end) else { return Err(Error::at(Kind::CborTruncated, start)) };
                if !short_ascii(b, pos + 1, t) && core::str::from_utf8(t).is_err() {
                    return Err(Error::at(Kind::CborInvalidUtf8, start));
                }
                pos = end;
            }
            Some(0x00..=0x17) => pos += 1,
            // A one- or two-byte unsigned integer (blob offsets and lengths).
            Some(&ib @ (0x18 | 0x19)) => {
                let w = (ib - 0x17) as usize;
                let Some(s) = b.get(pos + 1..pos + 1 + w) else { return Err(Error::at(Kind::CborTruncated, start)) };
                let v = if w == 1 { s[0] as u64 } else { (s[0] as u64) << 8 | s[1] as u64 };
                if !shortest(ib & 0x1f, v) {
                    return Err(Error::at(Kind::CborNonShortest, start));
                }
                pos += 1 + w;
            }
            // A short array or map (the count in the head): as `item` does.
            Some(&ib @ (0x80..=0x97 | 0xa0..=0xb7)) => {
                if base + depth > MAX_DEPTH {
                    return Err(Error::at(Kind::CborTooDeep, start));
                }
                pos += 1;
                let v = (ib & 0x1f) as u64;
                if v > (b.len() - pos) as u64 {
                    return Err(Error::at(Kind::CborTruncated, start));
                }
                if v > 0 {
                    let map = ib >= 0xa0;
                    stack[depth] = Frame { left: if map { 2 * v } else { v }, map, key_start: 0, prev_start: 0, prev_end: 0 };
                    depth += 1;
                    continue;
                }
            }
            _ => {
                let (major, ai, v, next) = raw_head(b, pos)?;
                pos = next;
                if major != SIMPLE && !shortest(ai, v) {
                    return Err(Error::at(Kind::CborNonShortest, start));
                }
                if let Some(d) = item(b, &mut pos, major, ai, v, start, base + depth)? {
                    stack[depth] = d;
                    depth += 1;
                    continue;
                }
            }
        }
        // One item is complete: account for it in its parents.
        loop {
            if depth == 0 {
                return Ok(pos);
            }
            let f = &mut stack[depth - 1];
            if f.map && f.left % 2 == 0 {
                // A key just ended.
                let key = &b[f.key_start..pos];
                if f.prev_end > 0 {
                    let prev = &b[f.prev_start..f.prev_end];
                    match key_cmp(prev, key) {
                        core::cmp::Ordering::Less => {}
                        core::cmp::Ordering::Equal => return Err(Error::at(Kind::CborDuplicateKey, f.key_start)),
                        core::cmp::Ordering::Greater => return Err(Error::at(Kind::CborUnsortedKeys, f.key_start)),
                    }
                }
                f.prev_start = f.key_start;
                f.prev_end = pos;
            }
            f.left -= 1;
            if f.left > 0 {
                break;
            }
            depth -= 1; // the container is complete: it is an item of its parent
        }
    }
}

/// A cursor over a manifest the validating pass accepted (heads complete
/// and shortest, lengths in bounds, text UTF-8): the views' decoder. Safe
/// at any position of any bytes: a read that does not fit is an error or
/// stops at the end, never a panic.
#[derive(Clone, Copy)]
pub(crate) struct Cursor<'a> {
    pub buf: &'a [u8],
    pub pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn at(buf: &'a [u8], pos: usize) -> Self {
        Cursor { buf, pos }
    }

    /// Major type, argument and the position after the head.
    #[inline(always)]
    fn next_head(&self) -> Result<(u8, u64, usize)> {
        Ok(self.look())
    }

    /// Major type and argument of the next item, without moving.
    #[inline(always)]
    pub fn peek(&self) -> (u8, u64) {
        let (m, v, _) = self.look();
        (m, v)
    }

    /// Major type, argument and the position after the head (one decode;
    /// past the end, a simple value ending at the end).
    #[inline(always)]
    fn look(&self) -> (u8, u64, usize) {
        match raw_head(self.buf, self.pos) {
            Ok((m, _, v, n)) => (m, v, n),
            Err(_) => (SIMPLE, 0, self.buf.len()),
        }
    }

    #[inline(always)]
    fn head(&mut self) -> (u8, u64) {
        let (m, _, v, n) = raw_head(self.buf, self.pos).unwrap_or((SIMPLE, 23, 0, self.buf.len()));
        self.pos = n;
        (m, v)
    }

    /// Skip one item (of any depth). Safe at any position: it stops at the end.
    pub fn skip(&mut self) {
        let mut items = 1u64;
        while items > 0 && self.pos < self.buf.len() {
            items -= 1;
            let (m, v) = self.head();
            match m {
                BYTES | TEXT => self.pos = self.pos.saturating_add(v as usize).min(self.buf.len()),
                ARRAY => items = items.saturating_add(v),
                MAP => items = items.saturating_add(v.saturating_mul(2)),
                _ => {}
            }
        }
    }

    /// A text string; `field` names it in the error.
    #[inline(always)]
    pub fn text(&mut self, field: &'static str) -> Result<&'a str> {
        let start = self.pos;
        match self.next_head()? {
            // UTF-8 checked here
            (TEXT, n, next) => {
                self.pos = next;
                let s = self.pos.checked_add(n as usize).and_then(|e| self.buf.get(self.pos..e));
                let s = s.ok_or(Error::at(Kind::CborTruncated, start))?;
                self.pos += s.len();
                core::str::from_utf8(s).map_err(|_| Error::at(Kind::CborInvalidUtf8, start))
            }
            _ => Err(Error::field(Kind::WrongType, start, field)),
        }
    }

    /// An unsigned integer.
    #[inline(always)]
    pub fn uint(&mut self, field: &'static str) -> Result<u64> {
        match self.next_head()? {
            (UINT, v, next) => {
                self.pos = next;
                Ok(v)
            }
            _ => Err(Error::field(Kind::WrongType, self.pos, field)),
        }
    }

    /// A map's entry count.
    #[inline(always)]
    pub fn map(&mut self, field: &'static str) -> Result<u64> {
        match self.next_head()? {
            (MAP, n, next) => {
                self.pos = next;
                Ok(n)
            }
            _ => Err(Error::field(Kind::WrongType, self.pos, field)),
        }
    }

    /// An array's element count.
    #[inline(always)]
    pub fn array(&mut self, field: &'static str) -> Result<u64> {
        match self.next_head()? {
            (ARRAY, n, next) => {
                self.pos = next;
                Ok(n)
            }
            _ => Err(Error::field(Kind::WrongType, self.pos, field)),
        }
    }

    /// A map key's bytes if it is text (`None`, with the key skipped,
    /// otherwise); not checked as UTF-8 again (the walk did).
    #[inline(always)]
    pub fn key(&mut self) -> Option<&'a [u8]> {
        match self.look() {
            (TEXT, n, next) => {
                self.pos = next;
                let s = self.pos.checked_add(n as usize).and_then(|e| self.buf.get(self.pos..e))?;
                self.pos += s.len();
                Some(s)
            }
            _ => {
                self.skip();
                None
            }
        }
    }
}

#[cfg(test)]
mod tests;
