//! The manifest layer: one validating pass over the CBOR, and the decoders
//! that the borrowing views share with it.
//!
//! Every check that metadata alone allows happens here, once, at open:
//! after it, views decode fields without re-checking.

use crate::cbor::{Len, Reader, MAJOR_MAP, MAJOR_TEXT};
use crate::container::{Layout, Tail, ALIGNMENT, HEADER_LEN};
use crate::error::{Error, ErrorKind, Result};
use crate::object::{Component, Comps, Object, Shape};
use crate::scratch::Scratch;
use crate::types::{DType, Encoding, Endian, Format, LogicalType, Version};
use crate::value::Map;

/// What every decoder needs to know about the file.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ctx<'a> {
    /// The manifest bytes.
    pub buf: &'a [u8],
    /// The whole file, when available.
    pub data: Option<&'a [u8]>,
    pub version: Version,
}

impl Ctx<'_> {
    /// v1.0/v1.1 files name FP8 and complex types in `dtype`.
    fn legacy_dtypes(&self) -> bool {
        self.version.major == 1 && self.version.minor < 2
    }

    /// v1.2 rules: u64 sparse indices, `uncompressed_length` for zstd.
    fn strict(&self) -> bool {
        self.version.at_least_1(2)
    }
}

/// State of the validating pass.
pub(crate) struct Pass<'s> {
    pub scratch: Scratch<'s>,
    /// Data region: blobs lie in `[lo, hi)`.
    lo: u64,
    hi: u64,
    /// Fast path: blobs seen so far are in ascending, non-overlapping order.
    pub spans_ordered: bool,
    last: (u64, u64),
    max_end: u64,
    /// Every non-empty blob, for the overlap check when they are not in order.
    #[cfg(feature = "alloc")]
    pub spans: alloc::vec::Vec<[u64; 2]>,
}

impl<'s> Pass<'s> {
    pub fn new(scratch: Scratch<'s>, tail: &Tail) -> Self {
        Pass {
            scratch,
            lo: HEADER_LEN,
            hi: tail.manifest_offset,
            spans_ordered: true,
            last: (0, 0),
            max_end: 0,
            #[cfg(feature = "alloc")]
            spans: alloc::vec::Vec::new(),
        }
    }

    fn span(&mut self, offset: u64, length: u64) {
        if length == 0 {
            return;
        }
        let end = offset + length;
        #[cfg(feature = "alloc")]
        self.spans.push([offset, end]);
        if !self.spans_ordered {
            return;
        }
        if offset >= self.max_end {
            self.max_end = end;
        } else if (offset, end) != self.last {
            self.spans_ordered = false;
        }
        self.last = (offset, end);
    }
}

/// Known-key bitmask helper for the maps whose schema we know.
struct Seen(u32);

impl Seen {
    fn mark(&mut self, bit: u32, at: usize) -> Result<()> {
        if self.0 & (1 << bit) != 0 {
            return Err(Error::at(ErrorKind::DuplicateKey, at));
        }
        self.0 |= 1 << bit;
        Ok(())
    }
}

/// Read a map key: `Some(bytes)` for a definite text key (matched against
/// the schema's ASCII names before any UTF-8 check), else `None` after
/// skipping (and, when validating, checking) the key item. Keys that match
/// no known name are checked in [`unknown`].
#[inline(always)]
fn key<'a>(r: &mut Reader<'a>, depth: usize, pass: Option<&mut Pass<'_>>) -> Result<Option<&'a [u8]>> {
    if r.peek()? >> 5 == MAJOR_TEXT {
        return r.text_bytes("map key").map(Some);
    }
    value(r, depth, pass)?;
    Ok(None)
}

/// Skip a value, fully checked (duplicate keys, UTF-8, depth) when validating.
#[inline]
fn value(r: &mut Reader<'_>, depth: usize, pass: Option<&mut Pass<'_>>) -> Result<()> {
    match pass {
        Some(p) => r.walk(depth, Some(&mut p.scratch)),
        None => r.skip(depth),
    }
}

/// An unknown field: remember its key for the duplicate check, then skip its value.
#[inline]
fn unknown(r: &mut Reader<'_>, kpos: usize, depth: usize, pass: Option<&mut Pass<'_>>) -> Result<()> {
    match pass {
        Some(p) => {
            Reader::at(r.buf, kpos).walk(depth, None)?; // the key itself: UTF-8 and well-formed
            p.scratch.push_key(r.buf, kpos, r.pos)?;
            r.walk(depth, Some(&mut p.scratch))
        }
        None => r.skip(depth),
    }
}

/// Text, or CBOR null meaning absent.
#[inline]
fn opt_text<'a>(r: &mut Reader<'a>, field: &'static str) -> Result<Option<&'a str>> {
    if r.peek()? == 0xf6 {
        r.pos += 1;
        return Ok(None);
    }
    r.text(field).map(Some)
}

/// The error for text that names nothing known: invalid UTF-8 says so first.
#[cold]
fn unknown_text(s: &[u8], kind: ErrorKind, at: usize) -> Error {
    match core::str::from_utf8(s) {
        Ok(s) => Error::at(kind, at).with_value(s),
        Err(_) => Error::at(ErrorKind::CborInvalidUtf8, at),
    }
}

/// A format name: known names are matched as bytes, others checked as UTF-8.
#[inline]
fn format_value<'a>(r: &mut Reader<'a>, field: &'static str) -> Result<Format<'a>> {
    let at = r.pos;
    let b = r.text_bytes(field)?;
    match Format::known(b) {
        Some(f) => Ok(f),
        None => core::str::from_utf8(b).map(Format::Other).map_err(|_| Error::at(ErrorKind::CborInvalidUtf8, at)),
    }
}

/// Unsigned integer, or CBOR null meaning absent.
#[inline]
fn opt_uint(r: &mut Reader<'_>, field: &'static str) -> Result<Option<u64>> {
    if r.peek()? == 0xf6 {
        r.pos += 1;
        return Ok(None);
    }
    r.uint(field).map(Some)
}

/// A map value: validated or skipped; returns a view of it.
fn map_value<'a>(r: &mut Reader<'a>, field: &'static str, depth: usize, pass: Option<&mut Pass<'_>>) -> Result<Map<'a>> {
    let start = r.pos;
    if r.peek()? >> 5 != MAJOR_MAP {
        return Err(Error::at(ErrorKind::WrongType { field, expected: "a map" }, start));
    }
    value(r, depth, pass)?;
    let mut h = Reader::at(r.buf, start);
    let len = h.map(field)?;
    Ok(Map::new(r.buf, h.pos, len))
}

fn check_pop(pass: Option<&mut Pass<'_>>, buf: &[u8], seg: usize) -> Result<()> {
    match pass {
        Some(p) => p.scratch.check_unique(buf, seg),
        None => Ok(()),
    }
}

/// The product of a shape's dimensions, checked: a zero dimension makes it
/// 0, even after an overflowing prefix; otherwise overflow is an error.
struct Numel {
    product: u64,
    overflow: bool,
    zero: bool,
}

impl Numel {
    fn new() -> Self {
        Numel { product: 1, overflow: false, zero: false }
    }

    #[inline]
    fn push(&mut self, d: u64) {
        self.zero |= d == 0;
        match self.product.checked_mul(d) {
            Some(n) => self.product = n,
            None => self.overflow = true,
        }
    }

    fn finish(self) -> Result<u64> {
        if self.zero {
            Ok(0)
        } else if self.overflow {
            Err(Error::new(ErrorKind::ShapeOverflow))
        } else {
            Ok(self.product)
        }
    }
}

/// The shape array: dimensions, their count and checked product ([`Numel`]).
fn shape<'a>(r: &mut Reader<'a>) -> Result<Shape<'a>> {
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

const OBJ_SHAPE: u32 = 0;
const OBJ_FORMAT: u32 = 1;
const OBJ_ATTRS: u32 = 2;
const OBJ_COMPS: u32 = 3;

/// Decode (and, with `pass`, validate) a v1.x object map at `r`.
pub(crate) fn decode_object_v1<'a>(
    ctx: Ctx<'a>,
    r: &mut Reader<'a>,
    name: &'a str,
    index: usize,
    mut pass: Option<&mut Pass<'_>>,
) -> Result<Option<Object<'a>>> {
    let start = r.pos;
    let mut len = r.map("object")?;
    let fields = Map::new(ctx.buf, r.pos, len);
    let seg = pass.as_ref().map_or(0, |p| p.scratch.len());
    let mut seen = Seen(0);
    let (mut shp, mut format, mut attributes, mut comps) = (None, None, Map::empty(), None);
    let mut known: Known<'a> = [None; 8];
    while r.more(&mut len)? {
        let kpos = r.pos;
        match key(r, 3, pass.as_deref_mut())? {
            Some(b"shape") => {
                seen.mark(OBJ_SHAPE, kpos)?;
                shp = Some(shape(r)?);
            }
            Some(b"format") => {
                seen.mark(OBJ_FORMAT, kpos)?;
                format = Some(format_value(r, "format")?);
            }
            Some(b"attributes") => {
                seen.mark(OBJ_ATTRS, kpos)?;
                if r.peek()? != 0xf6 {
                    attributes = map_value(r, "attributes", 3, pass.as_deref_mut())?;
                } else {
                    r.pos += 1;
                }
            }
            Some(b"components") => {
                seen.mark(OBJ_COMPS, kpos)?;
                comps = Some(match pass.as_deref_mut() {
                    Some(p) => components_checked(ctx, r, p, &mut known)?,
                    None => {
                        let cstart = r.pos;
                        let clen = r.map("components")?;
                        let cpos = r.pos;
                        *r = Reader::at(r.buf, cstart);
                        r.skip(3)?;
                        (cpos, clen)
                    }
                });
            }
            _ => unknown(r, kpos, 4, pass.as_deref_mut())?,
        }
    }
    check_pop(pass.as_deref_mut(), ctx.buf, seg)?;
    let shape = shp.ok_or_else(|| Error::at(ErrorKind::MissingField { field: "shape" }, start))?;
    let format = format.ok_or_else(|| Error::at(ErrorKind::MissingField { field: "format" }, start))?;
    let (cpos, clen) = comps.ok_or_else(|| Error::at(ErrorKind::MissingField { field: "components" }, start))?;
    if pass.is_some() {
        // The validating pass needs no view: skip building (and moving) one.
        check_format(ctx, Dims::of_shape(&shape, format), format, attributes, &known).map_err(|e| e.or_at(start))?;
        return Ok(None);
    }
    Ok(Some(Object { ctx, index, name, shape, format, attributes, fields, comps: Comps::Map { pos: cpos, len: clen } }))
}

const C_DTYPE: u32 = 0;
const C_TYPE: u32 = 1;
const C_OFFSET: u32 = 2;
const C_LENGTH: u32 = 3;
const C_ULEN: u32 = 4;
const C_ENCODING: u32 = 5;
const C_DIGEST: u32 = 6;

/// The fields of a component, as parsed: what the validating pass checks
/// and what a [`Component`] view is made of (kept small: it is moved per component).
#[derive(Clone, Copy)]
pub(crate) struct CompCore<'a> {
    pub dtype: DType,
    pub logical: Option<LogicalType<'a>>,
    pub encoding: Encoding,
    pub endian: Endian,
    pub offset: u64,
    pub length: u64,
    pub ulen: Option<u64>,
    pub digest: Option<&'a str>,
    /// The component's map: entries start at `fields_pos`.
    pub fields_pos: usize,
    pub fields_len: Len,
}

impl<'a> CompCore<'a> {
    fn decoded_len(&self) -> Option<u64> {
        match self.encoding {
            Encoding::Raw => Some(self.length),
            Encoding::Zstd => self.ulen,
        }
    }

    /// The view of this component.
    pub(crate) fn view(&self, ctx: Ctx<'a>, role: &'a str) -> Component<'a> {
        Component {
            data: ctx.data,
            role,
            dtype: self.dtype,
            logical: self.logical,
            encoding: self.encoding,
            offset: self.offset,
            length: self.length,
            uncompressed_length: self.ulen,
            implied_len: None,
            digest: self.digest,
            endian: self.endian,
            fields: Map::new(ctx.buf, self.fields_pos, self.fields_len),
        }
    }
}

/// Parse (and, with `pass`, validate) one v1.x component map at `r`.
pub(crate) fn component_v1<'a>(
    ctx: Ctx<'a>,
    r: &mut Reader<'a>,
    role: &'a str,
    mut pass: Option<&mut Pass<'_>>,
) -> Result<CompCore<'a>> {
    let start = r.pos;
    let mut len = r.map("component")?;
    let (fields_pos, fields_len) = (r.pos, len);
    let seg = pass.as_ref().map_or(0, |p| p.scratch.len());
    let mut seen = Seen(0);
    let (mut dtype, mut ltype, mut offset, mut length) = (None, None, None, None);
    let (mut ulen, mut encoding, mut digest) = (None, Encoding::Raw, None);
    while r.more(&mut len)? {
        let kpos = r.pos;
        match key(r, 5, pass.as_deref_mut())? {
            Some(b"dtype") => {
                seen.mark(C_DTYPE, kpos)?;
                let at = r.pos;
                let s = r.text_bytes("dtype")?;
                let parsed = if ctx.legacy_dtypes() {
                    DType::from_v1_1_bytes(s)
                } else {
                    DType::from_bytes(s).map(|d| (d, None))
                };
                dtype = Some(parsed.ok_or_else(|| unknown_text(s, ErrorKind::UnknownDType, at))?);
            }
            Some(b"type") => {
                seen.mark(C_TYPE, kpos)?;
                ltype = opt_text(r, "type")?;
            }
            Some(b"offset") => {
                seen.mark(C_OFFSET, kpos)?;
                offset = Some(r.uint("offset")?);
            }
            Some(b"length") => {
                seen.mark(C_LENGTH, kpos)?;
                length = Some(r.uint("length")?);
            }
            Some(b"uncompressed_length") => {
                seen.mark(C_ULEN, kpos)?;
                ulen = opt_uint(r, "uncompressed_length")?;
            }
            Some(b"encoding") => {
                seen.mark(C_ENCODING, kpos)?;
                let at = r.pos;
                if r.peek()? == 0xf6 {
                    r.pos += 1;
                } else {
                    let s = r.text_bytes("encoding")?;
                    encoding = Encoding::from_bytes(s).ok_or_else(|| unknown_text(s, ErrorKind::UnknownEncoding, at))?;
                }
            }
            Some(b"digest") => {
                seen.mark(C_DIGEST, kpos)?;
                digest = opt_text(r, "digest")?;
            }
            _ => unknown(r, kpos, 6, pass.as_deref_mut())?,
        }
    }
    check_pop(pass.as_deref_mut(), ctx.buf, seg)?;
    let missing = |field| Error::at(ErrorKind::MissingField { field }, start);
    let (dtype, legacy_type) = dtype.ok_or_else(|| missing("dtype"))?;
    let offset = offset.ok_or_else(|| missing("offset"))?;
    let length = length.ok_or_else(|| missing("length"))?;
    let logical = match ltype {
        Some(t) => logical_type(dtype, t),
        None => legacy_type,
    };
    let c = CompCore {
        dtype,
        logical,
        encoding,
        endian: Endian::Little,
        offset,
        length,
        ulen,
        digest,
        fields_pos,
        fields_len,
    };
    if let Some(p) = pass {
        check_component(ctx, role, &c, start, p)?;
    }
    Ok(c)
}

/// The logical type a component's `type` text gives: none when it names
/// the dtype itself.
fn logical_type<'a>(dtype: DType, t: &'a str) -> Option<LogicalType<'a>> {
    (t != dtype.name()).then(|| LogicalType::parse(t))
}

/// Decode one v1.x component map at `r` into its view (validated already).
pub(crate) fn decode_component_v1<'a>(ctx: Ctx<'a>, r: &mut Reader<'a>, role: &'a str) -> Result<Component<'a>> {
    component_v1(ctx, r, role, None).map(|c| c.view(ctx, role))
}

/// Rules every component obeys, whatever its object's format.
fn check_component(ctx: Ctx<'_>, role: &str, c: &CompCore<'_>, at: usize, p: &mut Pass<'_>) -> Result<()> {
    component_rules(ctx, role, c, at, p.lo, p.hi)?;
    p.span(c.offset, c.length);
    Ok(())
}

/// [`check_component`] without recording the blob's span: blobs lie in `[lo, hi)`.
fn component_rules(ctx: Ctx<'_>, role: &str, c: &CompCore<'_>, at: usize, lo: u64, hi: u64) -> Result<()> {
    let err = |kind| Error::at(kind, at).in_component(role);
    if let Some(t) = c.logical {
        if t.storage().is_some_and(|s| s != c.dtype) {
            return Err(err(ErrorKind::WrongType { field: "type", expected: "a logical type matching the dtype" }));
        }
    }
    if c.offset % ALIGNMENT != 0 {
        return Err(err(ErrorKind::Misaligned { offset: c.offset }));
    }
    match c.offset.checked_add(c.length) {
        // (A zero-length blob may sit exactly at the manifest start.)
        Some(end) if c.offset >= lo && end <= hi => {}
        _ => return Err(err(ErrorKind::OutOfBounds { offset: c.offset, length: c.length, limit: hi })),
    }
    let width = c.dtype.width();
    match c.encoding {
        Encoding::Raw => {}
        Encoding::Zstd if c.ulen.is_none() && ctx.strict() => {
            return Err(err(ErrorKind::MissingUncompressedLength));
        }
        Encoding::Zstd => {}
    }
    if let Some(n) = c.decoded_len() {
        if n % width != 0 {
            return Err(err(ErrorKind::PartialElement { length: n, width }));
        }
    }
    Ok(())
}

/// Components the known formats name.
const ROLES: [&str; 8] = ["data", "values", "indices", "indptr", "coords", "packed_weight", "scales", "zeros"];

/// The components the known formats name, by their index in [`ROLES`].
type Known<'a> = [Option<Brief<'a>>; 8];

/// What the format rules need of a component (small, to keep the pass cheap).
#[derive(Clone, Copy)]
struct Brief<'a> {
    role: &'a str,
    dtype: DType,
    /// Storage elements per logical element; `None` for an unknown logical type.
    ratio: Option<u64>,
    decoded: Option<u64>,
}

impl<'a> Brief<'a> {
    fn of(role: &'a str, c: &CompCore<'a>) -> Self {
        Brief { role, dtype: c.dtype, ratio: c.logical.map_or(Some(1), |t| t.ratio()), decoded: c.decoded_len() }
    }

    fn error(&self, kind: ErrorKind) -> Error {
        Error::new(kind).in_component(self.role)
    }

    /// Decoded element count in logical elements, when known.
    fn count(&self) -> Option<u64> {
        Some(self.decoded? / self.dtype.width() / self.ratio?)
    }
}

/// Validate every component of a `components` map at `r`, collecting the known roles.
fn components_checked<'a>(ctx: Ctx<'a>, r: &mut Reader<'a>, p: &mut Pass<'_>, known: &mut Known<'a>) -> Result<(usize, Len)> {
    let mut len = r.map("components")?;
    let first = (r.pos, len);
    let seg = p.scratch.len();
    // Objects have a few components: their roles are compared directly while
    // they fit in `few`; past that they go through the scratch's sort.
    let mut few: [&str; 8] = [""; 8];
    let mut n = 0usize;
    while r.more(&mut len)? {
        let kpos = r.pos;
        let rb = r.text_bytes("component role")?;
        // The format's own roles need no UTF-8 check.
        let known_role = ROLES.iter().position(|&k| k.as_bytes() == rb);
        let role = match known_role {
            Some(i) => ROLES[i],
            None => core::str::from_utf8(rb).map_err(|_| Error::at(ErrorKind::CborInvalidUtf8, kpos))?,
        };
        if role.is_empty() {
            return Err(Error::at(ErrorKind::EmptyName, kpos));
        }
        if n < few.len() {
            if few[..n].contains(&role) {
                return Err(Error::at(ErrorKind::DuplicateKey, kpos).in_component(role));
            }
            few[n] = role;
        } else {
            if n == few.len() {
                let mut h = Reader::at(ctx.buf, first.0);
                for _ in 0..n {
                    let k = h.pos;
                    h.text("component role")?;
                    p.scratch.push_key(ctx.buf, k, h.pos)?;
                    h.skip(5)?;
                }
            }
            p.scratch.push_key(ctx.buf, kpos, r.pos)?;
        }
        n += 1;
        let c = component_v1(ctx, r, role, Some(p)).map_err(|e| e.in_component(role))?;
        if let Some(i) = known_role {
            known[i] = Some(Brief::of(role, &c));
        }
    }
    p.scratch.check_unique(ctx.buf, seg)?;
    Ok(first)
}

/// What the format rules need of a shape.
#[derive(Clone, Copy)]
pub(crate) struct Dims {
    pub ndim: usize,
    /// The checked product (0 when a dimension is 0).
    pub numel: u64,
    /// The first dimension (read only for `sparse_csr`).
    pub first: Option<u64>,
}

impl Dims {
    fn of_shape(shape: &Shape<'_>, format: Format<'_>) -> Dims {
        let first = if format == Format::SparseCsr { shape.dim(0) } else { None };
        Dims { ndim: shape.ndim, numel: shape.numel, first }
    }

    /// From dimensions, by [`shape`]'s rule ([`Numel`]).
    #[cfg(feature = "alloc")]
    pub(crate) fn of(dims: &[u64]) -> Result<Dims> {
        let mut numel = Numel::new();
        dims.iter().for_each(|&d| numel.push(d));
        Ok(Dims { ndim: dims.len(), numel: numel.finish()?, first: dims.first().copied() })
    }
}

/// The format rules that metadata alone can check.
fn check_format(ctx: Ctx<'_>, shape: Dims, format: Format<'_>, attributes: Map<'_>, known: &Known<'_>) -> Result<()> {
    let need = |i: usize| known[i].ok_or_else(|| Error::new(ErrorKind::MissingComponent { role: ROLES[i] }));
    let index_dtype = |c: Brief<'_>| -> Result<()> {
        let ok = if ctx.strict() { c.dtype == DType::U64 } else { c.dtype.is_integer() };
        if ok {
            Ok(())
        } else {
            Err(c.error(ErrorKind::IndexDType))
        }
    };
    let count = |c: &Brief<'_>, expected: u64| -> Result<()> {
        match c.count() {
            Some(n) if n != expected => Err(c.error(ErrorKind::CountMismatch { expected, actual: n })),
            _ => Ok(()),
        }
    };
    match format {
        Format::Dense => {
            let d = need(0)?;
            if let (Some(ratio), Some(actual)) = (d.ratio, d.decoded) {
                let expected = shape
                    .numel
                    .checked_mul(d.dtype.width() * ratio)
                    .ok_or_else(|| d.error(ErrorKind::ShapeOverflow))?;
                if expected != actual {
                    return Err(d.error(ErrorKind::LengthMismatch { expected, actual }));
                }
            }
        }
        Format::SparseCsr => {
            let (values, indices, indptr) = (need(1)?, need(2)?, need(3)?);
            index_dtype(indices)?;
            index_dtype(indptr)?;
            if shape.ndim != 2 {
                return Err(Error::new(ErrorKind::BadShape));
            }
            let rows = shape.first.unwrap_or(0);
            count(&indptr, rows.checked_add(1).ok_or_else(|| Error::new(ErrorKind::ShapeOverflow))?)?;
            if let Some(nnz) = values.count() {
                count(&indices, nnz)?;
            }
        }
        Format::SparseCoo => {
            let (values, coords) = (need(1)?, need(4)?);
            index_dtype(coords)?;
            if let Some(nnz) = values.count() {
                let expected =
                    (shape.ndim as u64).checked_mul(nnz).ok_or_else(|| Error::new(ErrorKind::ShapeOverflow))?;
                count(&coords, expected)?;
            }
        }
        Format::QuantizedGroup => {
            need(5)?;
            need(6)?;
            need(7)?;
            crate::formats::check_quant_params(attributes)?;
        }
        Format::Other(_) => {}
    }
    Ok(())
}

/// Name the tensor in an error, if its map at `pos` has a text `name`
/// (the error may come before the name was read).
#[cold]
fn v0_name(buf: &[u8], pos: usize, e: Error) -> Error {
    if e.object().is_some() {
        return e;
    }
    let mut r = Reader::at(buf, pos);
    let Ok(mut len) = r.map("tensor") else { return e };
    while let Ok(true) = r.more(&mut len) {
        let Ok(k) = r.text_bytes("key") else { return e };
        if k == b"name" {
            return match r.text("name") {
                Ok(n) => e.in_object(n),
                Err(_) => e,
            };
        }
        if r.skip(3).is_err() {
            return e;
        }
    }
    e
}

/// Keys of a v0.1 tensor map that the format defines.
pub(crate) const V0_KEYS: &[&str] =
    &["name", "offset", "size", "dtype", "shape", "encoding", "layout", "data_endianness", "checksum"];

/// Decode (and, with `pass`, validate) a v0.1 tensor map at `r`: a dense
/// object with one `data` component.
pub(crate) fn decode_object_v0<'a>(
    ctx: Ctx<'a>,
    r: &mut Reader<'a>,
    index: usize,
    mut pass: Option<&mut Pass<'_>>,
) -> Result<Object<'a>> {
    let start = r.pos;
    let mut len = r.map("tensor")?;
    let fields = Map::new(ctx.buf, r.pos, len);
    let seg = pass.as_ref().map_or(0, |p| p.scratch.len());
    let mut seen = Seen(0);
    let (mut name, mut offset, mut size, mut dtype, mut shp) = (None, None, None, None, None);
    let (mut encoding, mut endian, mut digest, mut format) = (None, Endian::Little, None, Format::Dense);
    while r.more(&mut len)? {
        let kpos = r.pos;
        match key(r, 3, pass.as_deref_mut())? {
            Some(b"name") => {
                seen.mark(0, kpos)?;
                name = Some((r.pos, r.text("name")?));
            }
            Some(b"offset") => {
                seen.mark(1, kpos)?;
                offset = Some(r.uint("offset")?);
            }
            Some(b"size") => {
                seen.mark(2, kpos)?;
                size = Some(r.uint("size")?);
            }
            Some(b"dtype") => {
                seen.mark(3, kpos)?;
                let at = r.pos;
                let s = r.text("dtype")?;
                dtype = Some(DType::from_v0_1(s).ok_or_else(|| Error::at(ErrorKind::UnknownDType, at).with_value(s))?);
            }
            Some(b"shape") => {
                seen.mark(4, kpos)?;
                shp = Some(shape(r)?);
            }
            Some(b"encoding") => {
                seen.mark(5, kpos)?;
                let at = r.pos;
                let s = r.text("encoding")?;
                encoding = Some(Encoding::from_name(s).ok_or_else(|| Error::at(ErrorKind::UnknownEncoding, at).with_value(s))?);
            }
            Some(b"data_endianness") => {
                seen.mark(6, kpos)?;
                let at = r.pos;
                endian = match opt_text(r, "data_endianness")? {
                    None | Some("little") => Endian::Little,
                    Some("big") => Endian::Big,
                    Some(_) => return Err(Error::at(ErrorKind::BadEndianness, at)),
                };
            }
            Some(b"checksum") => {
                seen.mark(7, kpos)?;
                digest = opt_text(r, "checksum")?;
            }
            // Written by the 0.1.x reference (always "dense"), though not in the spec.
            Some(b"layout") => {
                seen.mark(8, kpos)?;
                format = format_value(r, "layout")?;
            }
            _ => unknown(r, kpos, 4, pass.as_deref_mut())?,
        }
    }
    check_pop(pass.as_deref_mut(), ctx.buf, seg)?;
    let missing = |field| Error::at(ErrorKind::MissingField { field }, start);
    let (name_pos, name) = name.ok_or_else(|| missing("name"))?;
    if name.is_empty() {
        return Err(Error::at(ErrorKind::EmptyName, name_pos));
    }
    let err_in = |e: Error| e.in_object(name);
    let shape = shp.ok_or_else(|| missing("shape")).map_err(err_in)?;
    let dtype = dtype.ok_or_else(|| missing("dtype")).map_err(err_in)?;
    let encoding = encoding.ok_or_else(|| missing("encoding")).map_err(err_in)?;
    let c = CompCore {
        dtype,
        logical: None,
        encoding,
        endian,
        offset: offset.ok_or_else(|| missing("offset")).map_err(err_in)?,
        length: size.ok_or_else(|| missing("size")).map_err(err_in)?,
        ulen: None,
        digest,
        fields_pos: 0,
        fields_len: Some(0),
    };
    let attributes = fields.hiding(V0_KEYS);
    if let Some(p) = pass {
        (|| {
            check_component(ctx, "data", &c, start, p)?;
            let mut known = [None; 8];
            known[0] = Some(Brief::of("data", &c));
            check_format(ctx, Dims::of_shape(&shape, format), format, attributes, &known).map_err(|e| e.or_at(start))
        })()
        .map_err(err_in)?;
    }
    let mut data = c.view(ctx, "data");
    data.fields = Map::empty();
    // v0.1 has no `uncompressed_length`; for a dense tensor the decoded size follows from the shape.
    data.implied_len = shape.numel.checked_mul(dtype.width());
    Ok(Object { ctx, index, name, shape, format, attributes, fields, comps: Comps::Single(data) })
}

/// Where an object is: its body (v1.x: the name key; v0.1: the tensor map)
/// and its name's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ObjPos {
    pub body: u32,
    pub name_start: u32,
    pub name_len: u32,
}

impl ObjPos {
    fn of(buf: &[u8], body: usize, name: &str) -> ObjPos {
        let start = name.as_ptr() as usize - buf.as_ptr() as usize;
        ObjPos { body: body as u32, name_start: start as u32, name_len: name.len() as u32 }
    }
}

/// Result of the validating pass: everything a `File` keeps.
pub(crate) struct Root<'a> {
    pub version: Version,
    pub attributes: Map<'a>,
    /// Every field of the root map (empty for v0.1, whose root is an array).
    pub fields: Map<'a>,
    /// First entry of the objects container, and its length.
    pub objects: (usize, Len),
    pub count: usize,
    /// Object names are in strictly ascending byte order (no duplicates possible).
    pub names_ordered: bool,
}

/// Validate a whole manifest. `on_object` sees every object as it is validated.
pub(crate) fn validate<'a>(
    buf: &'a [u8],
    tail: &Tail,
    data: Option<&'a [u8]>,
    pass: &mut Pass<'_>,
    mut on_object: impl FnMut(ObjPos),
) -> Result<Root<'a>> {
    let mut r = Reader::new(buf);
    let root = match tail.layout {
        Layout::V1 => root_v1(buf, &mut r, data, pass, &mut on_object)?,
        Layout::V0 => {
            let ctx = Ctx { buf, data, version: Version::V0_1 };
            let (objects, count, names_ordered) =
                objects_checked(ctx, &mut r, "manifest (v0.1 tensor array)", pass, &mut on_object)?;
            Root { version: Version::V0_1, attributes: Map::empty(), fields: Map::empty(), objects, count, names_ordered }
        }
    };
    if r.pos != buf.len() {
        return Err(Error::at(ErrorKind::TrailingBytes { count: (buf.len() - r.pos) as u64 }, r.pos));
    }
    Ok(root)
}

/// Validate the objects container at `r` (a v1.x map or a v0.1 array).
fn objects_checked<'a>(
    ctx: Ctx<'a>,
    r: &mut Reader<'a>,
    field: &'static str,
    pass: &mut Pass<'_>,
    on_object: &mut impl FnMut(ObjPos),
) -> Result<((usize, Len), usize, bool)> {
    let v0 = ctx.version.major == 0;
    let mut len = if v0 { r.array(field)? } else { r.map(field)? };
    let objects = (r.pos, len);
    let (mut count, mut ordered, mut prev) = (0usize, true, "");
    while r.more(&mut len)? {
        let body = r.pos;
        let name = if v0 {
            decode_object_v0(ctx, r, count, Some(pass)).map_err(|e| v0_name(ctx.buf, body, e))?.name
        } else {
            let name = r.text("object name")?;
            if name.is_empty() {
                return Err(Error::at(ErrorKind::EmptyName, body));
            }
            decode_object_v1(ctx, r, name, count, Some(pass)).map_err(|e| e.in_object(name))?;
            name
        };
        on_object(ObjPos::of(ctx.buf, body, name));
        ordered &= count == 0 || prev < name;
        prev = name;
        count += 1;
    }
    Ok((objects, count, ordered))
}

fn root_v1<'a>(
    buf: &'a [u8],
    r: &mut Reader<'a>,
    data: Option<&'a [u8]>,
    pass: &mut Pass<'_>,
    on_object: &mut impl FnMut(ObjPos),
) -> Result<Root<'a>> {
    let start = r.pos;
    let mut len = r.map("manifest")?;
    let fields = Map::new(buf, r.pos, len);
    let seg = pass.scratch.len();
    let mut seen = Seen(0);
    let (mut version, mut attributes, mut objects, mut deferred) = (None, Map::empty(), None, None);
    while r.more(&mut len)? {
        let kpos = r.pos;
        match key(r, 1, Some(pass))? {
            Some(b"version") => {
                seen.mark(0, kpos)?;
                let at = r.pos;
                let s = r.text("version")?;
                let v = Version::parse(s).ok_or_else(|| Error::at(ErrorKind::BadVersion, at))?;
                if v.major != 1 {
                    return Err(Error::at(ErrorKind::UnsupportedVersion { major: v.major as u64 }, at));
                }
                version = Some(v);
            }
            Some(b"attributes") => {
                seen.mark(1, kpos)?;
                if r.peek()? == 0xf6 {
                    r.pos += 1;
                } else {
                    attributes = map_value(r, "attributes", 1, Some(pass))?;
                }
            }
            Some(b"objects") => {
                seen.mark(2, kpos)?;
                match version {
                    Some(version) => {
                        let ctx = Ctx { buf, data, version };
                        objects = Some(objects_checked(ctx, r, "objects", pass, on_object)?);
                    }
                    None => {
                        // Rules depend on `version`, which comes later: validate after the root.
                        deferred = Some(r.pos);
                        r.skip(1)?;
                    }
                }
            }
            _ => unknown(r, kpos, 2, Some(pass))?,
        }
    }
    pass.scratch.check_unique(buf, seg)?;
    let missing = |field| Error::at(ErrorKind::MissingField { field }, start);
    let version = version.ok_or_else(|| missing("version"))?;
    if let Some(at) = deferred {
        let ctx = Ctx { buf, data, version };
        objects = Some(objects_checked(ctx, &mut Reader::at(buf, at), "objects", pass, on_object)?);
    }
    let (objects, count, names_ordered) = objects.ok_or_else(|| missing("objects"))?;
    Ok(Root { version, attributes, fields, objects, count, names_ordered })
}

/// Find, in blob spans sorted by start, one that partially overlaps another,
/// as (offset, length). Identical spans (weight tying) are allowed; two
/// spans with the same start and different ends overlap.
pub(crate) fn first_overlap(spans: &[[u64; 2]]) -> Option<(u64, u64)> {
    let (mut prev, mut max_end) = ([u64::MAX, 0], 0u64);
    for &s in spans {
        let ok = if s[0] == prev[0] { s[1] == prev[1] } else { s[0] >= max_end };
        if !ok {
            return Some((s[0], s[1] - s[0]));
        }
        prev = s;
        max_end = max_end.max(s[1]);
    }
    None
}

/// Validate one v1.2 object entry (its name, then its object map) as if
/// its manifest followed `data_end` bytes of header and blobs: every rule
/// [`File::parse`](crate::File::parse) applies to an object. For a writer
/// checking an object before writing it, without building a whole manifest.
#[cfg(feature = "alloc")]
pub(crate) fn check_entry(buf: &[u8], data_end: u64) -> Result<()> {
    let len = buf.len() as u64;
    let tail = Tail { layout: Layout::V1, file_len: data_end + len + 16, manifest_offset: data_end, manifest_len: len };
    let mut pass = Pass::new(Scratch::growable(), &tail);
    let ctx = Ctx { buf, data: None, version: Version::V1_2 };
    let mut r = Reader::new(buf);
    let name = r.text("object name")?;
    if name.is_empty() {
        return Err(Error::at(ErrorKind::EmptyName, 0));
    }
    decode_object_v1(ctx, &mut r, name, 0, Some(&mut pass)).map_err(|e| e.in_object(name))?;
    if r.pos != buf.len() {
        return Err(Error::at(ErrorKind::TrailingBytes { count: (buf.len() - r.pos) as u64 }, r.pos));
    }
    if !pass.spans_ordered {
        crate::sort::sort_by_key(&mut pass.spans, |s| s[0]);
        if let Some((offset, length)) = first_overlap(&pass.spans) {
            return Err(Error::new(ErrorKind::Overlap { offset, length }).in_object(name));
        }
    }
    Ok(())
}

/// A component of an object the writer is adding, as its manifest entry
/// will say (no digest: a digest the writer computes is well formed).
#[cfg(feature = "alloc")]
#[derive(Clone, Copy)]
pub(crate) struct NewComp<'a> {
    pub role: &'a str,
    pub dtype: DType,
    /// As it will be written in `type`.
    pub logical: Option<LogicalType<'a>>,
    pub encoding: Encoding,
    pub offset: u64,
    pub length: u64,
    pub ulen: Option<u64>,
}

#[cfg(feature = "alloc")]
impl NewComp<'_> {
    pub(crate) const EMPTY: Self =
        NewComp { role: "", dtype: DType::U8, logical: None, encoding: Encoding::Raw, offset: 0, length: 0, ulen: None };
}

/// The checks [`check_entry`] makes on an encoded entry of a v1.2 object
/// without attributes, from typed values: the rules of the validating pass
/// (component rules, then format rules), in the same order, with the same
/// errors. Blobs follow each other in the writer's layout, so no overlap
/// check is needed; they must lie in `[HEADER_LEN, data_end)`.
#[cfg(feature = "alloc")]
pub(crate) fn check_new<'a>(name: &str, dims: &[u64], format: Format<'_>, comps: &[NewComp<'a>], data_end: u64) -> Result<()> {
    if name.is_empty() {
        return Err(Error::new(ErrorKind::EmptyName));
    }
    let dims = Dims::of(dims)?;
    let ctx = Ctx { buf: &[], data: None, version: Version::V1_2 };
    let mut known: Known<'a> = [None; 8];
    let mut end = HEADER_LEN;
    for (n, c) in comps.iter().enumerate() {
        if c.role.is_empty() {
            return Err(Error::new(ErrorKind::EmptyName));
        }
        if comps[..n].iter().any(|o| o.role == c.role) {
            return Err(Error::new(ErrorKind::DuplicateKey).in_component(c.role));
        }
        let logical = c.logical.and_then(|t| logical_type(c.dtype, t.name()));
        let core = CompCore {
            dtype: c.dtype,
            logical,
            encoding: c.encoding,
            endian: Endian::Little,
            offset: c.offset,
            length: c.length,
            ulen: c.ulen,
            digest: None,
            fields_pos: 0,
            fields_len: Some(0),
        };
        component_rules(ctx, c.role, &core, 0, HEADER_LEN, data_end)?;
        debug_assert!(c.length == 0 || c.offset >= end, "writer blobs out of order");
        end = end.max(c.offset + c.length);
        if let Some(i) = ROLES.iter().position(|&k| k == c.role) {
            known[i] = Some(Brief::of(c.role, &core));
        }
    }
    check_format(ctx, dims, format, Map::empty(), &known)
}
