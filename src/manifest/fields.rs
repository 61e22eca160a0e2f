//! Field decoders shared by the validating pass and the views: each reads
//! one value at a CBOR reader and checks only what its own type requires.

use super::Ctx;
use crate::cbor::Reader;
use crate::error::{Error, ErrorKind, Result};
use crate::object::Shape;
use crate::types::{DType, Encoding, Format, LogicalType};

/// Text, or CBOR null meaning absent.
#[inline]
pub(crate) fn opt_text<'a>(r: &mut Reader<'a>, field: &'static str) -> Result<Option<&'a str>> {
    if r.peek()? == 0xf6 {
        r.pos += 1;
        return Ok(None);
    }
    r.text(field).map(Some)
}

/// Unsigned integer, or CBOR null meaning absent.
#[inline]
pub(crate) fn opt_uint(r: &mut Reader<'_>, field: &'static str) -> Result<Option<u64>> {
    if r.peek()? == 0xf6 {
        r.pos += 1;
        return Ok(None);
    }
    r.uint(field).map(Some)
}

/// Whether the next item is CBOR null (consumed if so).
#[inline]
pub(crate) fn null(r: &mut Reader<'_>) -> Result<bool> {
    let n = r.peek()? == 0xf6;
    r.pos += n as usize;
    Ok(n)
}

/// The error for text that names nothing known: invalid UTF-8 says so
/// first; otherwise the message quotes the text.
#[cold]
pub(crate) fn unknown_text(s: &[u8], kind: ErrorKind, at: usize) -> Error {
    match core::str::from_utf8(s) {
        Ok(s) => Error::at(kind, at).with_value(s),
        Err(_) => Error::at(ErrorKind::CborInvalidUtf8, at),
    }
}

/// A format name: known names are matched as bytes, others checked as UTF-8.
#[inline]
pub(crate) fn format<'a>(r: &mut Reader<'a>, field: &'static str) -> Result<Format<'a>> {
    let at = r.pos;
    let b = r.text_bytes(field)?;
    match Format::known(b) {
        Some(f) => Ok(f),
        None => core::str::from_utf8(b).map(Format::Other).map_err(|_| Error::at(ErrorKind::CborInvalidUtf8, at)),
    }
}

/// A v1.x `dtype`, with the logical type that v1.0/v1.1 spellings imply.
#[inline]
pub(crate) fn dtype_v1(ctx: Ctx<'_>, r: &mut Reader<'_>) -> Result<(DType, Option<LogicalType<'static>>)> {
    let at = r.pos;
    let s = r.text_bytes("dtype")?;
    let parsed = if ctx.legacy_dtypes() { DType::from_v1_1_bytes(s) } else { DType::from_bytes(s).map(|d| (d, None)) };
    parsed.ok_or_else(|| unknown_text(s, ErrorKind::UnknownDType, at))
}

/// A v1.x `encoding`: text, or null meaning raw.
#[inline]
pub(crate) fn encoding_v1(r: &mut Reader<'_>) -> Result<Encoding> {
    let at = r.pos;
    if null(r)? {
        return Ok(Encoding::Raw);
    }
    let s = r.text_bytes("encoding")?;
    Encoding::from_bytes(s).ok_or_else(|| unknown_text(s, ErrorKind::UnknownEncoding, at))
}

/// The logical type a component's `type` text gives: none when it names
/// the dtype itself.
pub(crate) fn logical_type(dtype: DType, t: &str) -> Option<LogicalType<'_>> {
    (t != dtype.name()).then(|| LogicalType::parse(t))
}

/// The product of a shape's dimensions, checked: a zero dimension makes it
/// 0, even after an overflowing prefix; otherwise overflow is an error.
pub(crate) struct Numel {
    product: u64,
    overflow: bool,
    zero: bool,
}

impl Numel {
    pub(crate) fn new() -> Self {
        Numel { product: 1, overflow: false, zero: false }
    }

    #[inline]
    pub(crate) fn push(&mut self, d: u64) {
        self.zero |= d == 0;
        match self.product.checked_mul(d) {
            Some(n) => self.product = n,
            None => self.overflow = true,
        }
    }

    pub(crate) fn finish(self) -> Result<u64> {
        self.value().ok_or_else(|| Error::new(ErrorKind::ShapeOverflow))
    }

    /// The product; `None` when it overflows (and no dimension is 0).
    pub(crate) fn value(&self) -> Option<u64> {
        if self.zero {
            Some(0)
        } else if self.overflow {
            None
        } else {
            Some(self.product)
        }
    }
}

/// The shape array: dimensions, their count and checked product ([`Numel`]).
pub(crate) fn shape<'a>(r: &mut Reader<'a>) -> Result<Shape<'a>> {
    let start = r.pos;
    let mut len = r.array("shape")?;
    let pos = r.pos;
    let (mut ndim, mut numel) = (0usize, Numel::new());
    while r.more(&mut len)? {
        numel.push(r.uint("shape")?);
        ndim += 1;
    }
    let numel = numel.finish().map_err(|e| e.or_at(start))?;
    let mut h = Reader::at(r.buf, start);
    let len = h.array("shape")?;
    Ok(Shape { buf: r.buf, pos, len, ndim, numel })
}
