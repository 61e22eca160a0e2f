//! A small, zero-allocation CBOR reader over a borrowed slice.
//!
//! Written by hand rather than on minicbor's `Decoder` for three reasons the
//! manifest pass needs: an explicit nesting limit with an iterative skip (no
//! recursion that grows with the input), duplicate-key detection in any map,
//! and exact byte offsets for errors. Every length is checked against the
//! bytes that remain before it is trusted.

use crate::error::{Error, ErrorKind, Result};

pub(crate) mod keys;
mod walk;
pub(crate) use walk::What;

/// Deepest nesting of arrays, maps and tags accepted anywhere in a manifest.
pub const MAX_DEPTH: usize = 64;

pub(crate) const MAJOR_UINT: u8 = 0;
pub(crate) const MAJOR_NINT: u8 = 1;
pub(crate) const MAJOR_BYTES: u8 = 2;
pub(crate) const MAJOR_TEXT: u8 = 3;
pub(crate) const MAJOR_ARRAY: u8 = 4;
pub(crate) const MAJOR_MAP: u8 = 5;
pub(crate) const MAJOR_TAG: u8 = 6;
pub(crate) const MAJOR_SIMPLE: u8 = 7;
const BREAK: u8 = 0xff;

/// An item head's argument: a value, a length or a count; `None` for indefinite.
pub(crate) type Arg = Option<u64>;

/// The length of a container: a count, or indefinite. A `usize`, not a `u64`:
/// a count is checked against the bytes that remain (`check_count`) before
/// it becomes a `Len`, and views that keep one are half the size on 32-bit
/// targets.
pub(crate) type Len = Option<usize>;

/// A head's argument as a [`Len`] for a view of validated bytes, where a
/// count never exceeds the bytes (saturating, so a view of unchecked bytes
/// meets the end of its buffer instead).
#[inline]
pub(crate) fn len_of(arg: Arg) -> Len {
    arg.map(|n| usize::try_from(n).unwrap_or(usize::MAX))
}

/// A cursor over CBOR bytes.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    pub buf: &'a [u8],
    pub pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    pub fn at(buf: &'a [u8], pos: usize) -> Self {
        Reader { buf, pos }
    }

    #[inline]
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    #[inline]
    fn err(&self, kind: ErrorKind) -> Error {
        Error::at(kind, self.pos)
    }

    /// The error for an item of the wrong type at `start`; a stray break is
    /// malformed CBOR rather than a wrong type.
    #[cold]
    fn wrong(&self, start: usize, field: &'static str, expected: &'static str) -> Error {
        if self.buf.get(start) == Some(&BREAK) {
            Error::at(ErrorKind::CborBadIndefinite, start)
        } else {
            Error::at(ErrorKind::WrongType { field, expected }, start)
        }
    }

    #[inline(always)]
    pub fn peek(&self) -> Result<u8> {
        match self.buf.get(self.pos) {
            Some(&b) => Ok(b),
            None => Err(self.eof()),
        }
    }

    #[cold]
    #[inline(never)]
    fn eof(&self) -> Error {
        self.err(ErrorKind::CborEof)
    }

    /// Read an item head: major type and argument (`None` for indefinite).
    #[inline]
    pub fn head(&mut self) -> Result<(u8, Arg)> {
        match decode_head(self.buf, self.pos) {
            Some((major, arg, end)) => {
                self.pos = end;
                Ok((major, arg))
            }
            None => self.head_error(),
        }
    }

    /// Why the head at `pos` does not decode (out of line: the error is
    /// built in the caller's result, not in `head`'s frame).
    #[cold]
    #[inline(never)]
    fn head_error<T>(&self) -> Result<T> {
        // Truncated: no initial byte, or fewer argument bytes than it says.
        let truncated = match self.buf.get(self.pos).map(|b| b & 0x1f) {
            None => true,
            Some(ai @ 24..=27) => self.remaining() <= 1 << (ai - 24),
            Some(_) => false,
        };
        let kind = if truncated { ErrorKind::CborEof } else { ErrorKind::CborInvalid };
        Err(self.err(kind))
    }

    /// Whether the next byte is a break; consumes it if so.
    #[inline]
    pub fn take_break(&mut self) -> Result<bool> {
        if self.peek()? == BREAK {
            self.pos += 1;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// Advance past `n` payload bytes, returning them.
    #[inline]
    pub fn bytes(&mut self, n: u64) -> Result<&'a [u8]> {
        if n > self.remaining() as u64 {
            return Err(self.err(ErrorKind::LengthTooLarge { claimed: n }));
        }
        let s = &self.buf[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }

    /// A definite-length text string (required wherever the format interprets text).
    #[inline]
    pub fn text(&mut self, field: &'static str) -> Result<&'a str> {
        let start = self.pos;
        let b = self.text_bytes(field)?;
        core::str::from_utf8(b).map_err(|_| Error::at(ErrorKind::CborInvalidUtf8, start))
    }

    // The typed readers below are the manifest pass's hot path: each is an
    // always-inlined fast path for the common encodings, and a cold,
    // out-of-line slow path that handles the rest and builds the error.

    /// The bytes of a definite-length text string, not yet checked as UTF-8.
    #[cfg_attr(feature = "alloc", inline(always))]
    #[cfg_attr(not(feature = "alloc"), inline(never))]
    pub fn text_bytes(&mut self, field: &'static str) -> Result<&'a [u8]> {
        let start = self.pos;
        let (len, skip) = match self.buf.get(start) {
            Some(&ib @ 0x60..=0x77) => ((ib & 0x1f) as usize, 1),
            Some(&0x78) => match self.buf.get(start + 1) {
                Some(&n) => (n as usize, 2),
                None => return self.text_bytes_slow(field),
            },
            _ => return self.text_bytes_slow(field),
        };
        match self.buf.get(start + skip..start + skip + len) {
            Some(b) => {
                self.pos = start + skip + len;
                Ok(b)
            }
            None => self.text_bytes_slow(field),
        }
    }

    #[cold]
    #[inline(never)]
    fn text_bytes_slow(&mut self, field: &'static str) -> Result<&'a [u8]> {
        let start = self.pos;
        match self.head()? {
            (MAJOR_TEXT, Some(n)) => self.bytes(n),
            (MAJOR_TEXT, None) => Err(Error::at(ErrorKind::IndefiniteText, start)),
            _ => Err(self.wrong(start, field, "a text string")),
        }
    }

    /// An unsigned integer.
    #[cfg_attr(feature = "alloc", inline(always))]
    #[cfg_attr(not(feature = "alloc"), inline(never))]
    pub fn uint(&mut self, field: &'static str) -> Result<u64> {
        let start = self.pos;
        let b = self.buf;
        let (v, n) = match b.get(start) {
            Some(&ib @ 0x00..=0x17) => (ib as u64, 1),
            Some(&0x18) if start + 2 <= b.len() => (b[start + 1] as u64, 2),
            Some(&0x19) if start + 3 <= b.len() => (u16::from_be_bytes([b[start + 1], b[start + 2]]) as u64, 3),
            Some(&0x1a) if start + 5 <= b.len() => {
                (u32::from_be_bytes([b[start + 1], b[start + 2], b[start + 3], b[start + 4]]) as u64, 5)
            }
            _ => return self.uint_slow(field),
        };
        self.pos = start + n;
        Ok(v)
    }

    #[cold]
    #[inline(never)]
    fn uint_slow(&mut self, field: &'static str) -> Result<u64> {
        let start = self.pos;
        match self.head()? {
            (MAJOR_UINT, Some(v)) => Ok(v),
            _ => Err(self.wrong(start, field, "an unsigned integer")),
        }
    }

    /// The head of a map; its length is checked against the bytes that remain.
    #[cfg_attr(feature = "alloc", inline(always))]
    #[cfg_attr(not(feature = "alloc"), inline(never))]
    pub fn map(&mut self, field: &'static str) -> Result<Len> {
        let start = self.pos;
        // A small definite map; each entry needs at least 2 bytes.
        if let Some(&ib @ 0xa0..=0xb7) = self.buf.get(start) {
            let n = (ib & 0x1f) as usize;
            if n * 2 < self.buf.len() - start {
                self.pos = start + 1;
                return Ok(Some(n));
            }
        }
        self.container_slow(MAJOR_MAP, field)
    }

    /// The head of an array; its length is checked against the bytes that remain.
    #[cfg_attr(feature = "alloc", inline(always))]
    #[cfg_attr(not(feature = "alloc"), inline(never))]
    pub fn array(&mut self, field: &'static str) -> Result<Len> {
        let start = self.pos;
        if let Some(&ib @ 0x80..=0x97) = self.buf.get(start) {
            let n = (ib & 0x1f) as usize;
            if n < self.buf.len() - start {
                self.pos = start + 1;
                return Ok(Some(n));
            }
        }
        self.container_slow(MAJOR_ARRAY, field)
    }

    #[cold]
    #[inline(never)]
    fn container_slow(&mut self, want: u8, field: &'static str) -> Result<Len> {
        let start = self.pos;
        match self.head()? {
            (major, len) if major == want => {
                self.check_count(len, if want == MAJOR_MAP { 2 } else { 1 }, start)?;
                // Checked: at most the bytes that remain, so it fits a usize.
                Ok(len.map(|n| n as usize))
            }
            _ => Err(self.wrong(start, field, if want == MAJOR_MAP { "a map" } else { "an array" })),
        }
    }

    /// Each item takes at least one byte: refuse counts the remaining bytes cannot hold.
    #[inline]
    fn check_count(&self, len: Arg, per: u64, start: usize) -> Result<()> {
        if let Some(n) = len {
            if n.checked_mul(per).map_or(true, |b| b > self.remaining() as u64) {
                return Err(Error::at(ErrorKind::LengthTooLarge { claimed: n }, start));
            }
        }
        Ok(())
    }

    /// Step through a container: whether another entry follows.
    #[inline(always)]
    pub fn more(&mut self, len: &mut Len) -> Result<bool> {
        match len {
            Some(0) => Ok(false),
            Some(n) => {
                *n -= 1;
                Ok(true)
            }
            None => Ok(!self.take_break()?),
        }
    }

    /// [`Reader::skip`] from depth 0 where only success matters (views of a
    /// validated manifest): no [`crate::Error`] is built.
    pub(crate) fn skip_item(&mut self) -> Option<()> {
        #[cfg(feature = "alloc")]
        return self.skip_nested(0).ok();
        #[cfg(not(feature = "alloc"))]
        return self.walk_bad(0, None).ok();
    }

    /// Skip one complete item, checking well-formedness (not UTF-8, not keys).
    ///
    /// Recursive, but never deeper than [`MAX_DEPTH`]: the stack it can use
    /// is a constant, whatever the input. Without `alloc` (firmware), that
    /// constant (64 frames of ~100 bytes) would be several KiB: there it is
    /// [`Reader::walk`] without keys, iterative in a 512-byte array (on
    /// 32-bit), which also checks UTF-8. (A dedicated skipper in half that
    /// stack cost 1 KiB of flash; the validating pass's own walk, deeper on
    /// the stack, sets the firmware's peak either way.)
    #[inline]
    pub fn skip(&mut self, depth: usize) -> Result<()> {
        #[cfg(feature = "alloc")]
        return self.skip_nested(depth);
        #[cfg(not(feature = "alloc"))]
        return self.walk(depth, None);
    }

    #[cfg(feature = "alloc")]
    fn skip_nested(&mut self, depth: usize) -> Result<()> {
        let start = self.pos;
        let (major, arg) = self.head()?;
        match (major, arg) {
            (MAJOR_UINT | MAJOR_NINT, _) => Ok(()),
            (MAJOR_BYTES | MAJOR_TEXT, Some(n)) => self.bytes(n).map(|_| ()),
            (MAJOR_ARRAY | MAJOR_MAP, len) => {
                let per = if major == MAJOR_MAP { 2 } else { 1 };
                self.check_count(len, per, start)?;
                if depth + 1 > MAX_DEPTH {
                    return Err(Error::at(ErrorKind::TooDeep, start));
                }
                match len {
                    Some(n) => {
                        for _ in 0..n * per {
                            self.skip_nested(depth + 1)?;
                        }
                    }
                    None => {
                        let mut items = 0u64;
                        while !self.take_break()? {
                            self.skip_nested(depth + 1)?;
                            items += 1;
                        }
                        if items % per != 0 {
                            return Err(Error::at(ErrorKind::CborBadIndefinite, start));
                        }
                    }
                }
                Ok(())
            }
            (MAJOR_BYTES | MAJOR_TEXT, None) | (MAJOR_TAG, _) => {
                // Rare: chunked strings and tags go through the iterative walker.
                *self = Reader::at(self.buf, start);
                self.walk(depth, None)
            }
            (_, Some(_)) => Ok(()),
            (_, None) => Err(Error::at(ErrorKind::CborBadIndefinite, start)),
        }
    }
}

/// The item head at `pos`: major type, argument (`None` for indefinite)
/// and where the item's content starts; `None` when it is truncated,
/// reserved, or an indefinite length on a type that has none.
#[inline]
pub(crate) fn decode_head(buf: &[u8], pos: usize) -> Option<(u8, Arg, usize)> {
    let ib = *buf.get(pos)?;
    let (major, ai) = (ib >> 5, ib & 0x1f);
    let mut end = pos + 1;
    let arg = match ai {
        0..=23 => ai as u64,
        // 1, 2, 4 or 8 bytes, big-endian.
        24..=27 => {
            let n = 1 << (ai - 24);
            let mut v = 0u64;
            for &b in buf.get(end..end + n)? {
                v = v << 8 | b as u64;
            }
            end += n;
            // (A simple value below 32 in two bytes is not well formed.)
            if ai == 24 && v < 32 && major == MAJOR_SIMPLE {
                return None;
            }
            v
        }
        31 if matches!(major, MAJOR_BYTES | MAJOR_TEXT | MAJOR_ARRAY | MAJOR_MAP | MAJOR_SIMPLE) => {
            return Some((major, None, end));
        }
        _ => return None,
    };
    Some((major, Some(arg), end))
}

/// Decode a CBOR half-precision float (a NaN keeps its sign and payload:
/// `half`'s conversion would quiet it). The tests' reference: values
/// widen by bit operations (`value::widen`, checked against this).
#[cfg(test)]
pub(crate) fn f16_to_f64(h: u16) -> f64 {
    if h & 0x7c00 == 0x7c00 && h & 0x3ff != 0 {
        return nan(h & 0x8000 != 0, (h & 0x3ff) as u64, 10);
    }
    half::f16::from_bits(h).to_f64()
}

/// Widen a CBOR single-precision float (a NaN keeps its sign and payload).
pub(crate) fn f32_to_f64(f: f32) -> f64 {
    let b = f.to_bits();
    if f.is_nan() {
        return nan(b & 0x8000_0000 != 0, (b & 0x007f_ffff) as u64, 23);
    }
    f as f64
}

/// The f64 NaN with this sign and a `bits`-bit mantissa, left-aligned (as
/// bit operations: a float cast may change a NaN's sign or payload).
fn nan(negative: bool, mantissa: u64, bits: u32) -> f64 {
    f64::from_bits((negative as u64) << 63 | 0x7ff0_0000_0000_0000 | mantissa << (52 - bits))
}

#[cfg(test)]
mod tests;
