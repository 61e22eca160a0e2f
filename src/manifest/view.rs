//! Decoding views of a validated manifest: objects and components are read
//! field by field when asked for, with no checks (the pass made them) and
//! no call into the pass.

use super::fields::{dtype_v1, encoding_v1, format, logical_type, null, opt_text, opt_uint, shape};
use super::schema::{ComponentKey, ObjectKey, Role, V0Key};
use super::Ctx;
use crate::cbor::{Len, Reader, MAJOR_TEXT};
use crate::error::{ErrorKind, Result};
use crate::index::ObjPos;
use crate::object::{Component, Comps, Object};
use crate::types::{DType, Encoding, Endian, Format};
use crate::value::Map;

/// A map key: `Some(bytes)` for a text key, `None` (skipped) for any other.
#[inline(always)]
fn key<'a>(r: &mut Reader<'a>, depth: usize) -> Result<Option<&'a [u8]>> {
    if r.peek()? >> 5 == MAJOR_TEXT {
        return r.text_bytes("map key").map(Some);
    }
    r.skip(depth)?;
    Ok(None)
}

/// The v1.x object at `r` (its name already read).
pub(crate) fn object_v1<'a>(ctx: Ctx<'a>, r: &mut Reader<'a>, name: &'a str, index: usize) -> Result<Object<'a>> {
    let start = r.pos;
    let mut len = r.map("object")?;
    let fields = Map::new(ctx.buf, r.pos, len);
    let (mut shp, mut fmt, mut attributes, mut comps) = (None, None, Map::empty(), None);
    while r.more(&mut len)? {
        match key(r, 3)?.and_then(ObjectKey::from_bytes) {
            Some(ObjectKey::Shape) => shp = Some(shape(r)?),
            Some(ObjectKey::Format) => fmt = Some(format(r, "format")?),
            Some(ObjectKey::Attributes) => {
                if !null(r)? {
                    let at = r.pos;
                    let n = r.map("attributes")?;
                    attributes = Map::new(ctx.buf, r.pos, n);
                    *r = Reader::at(ctx.buf, at);
                    r.skip(3)?;
                }
            }
            Some(ObjectKey::Components) => {
                let at = r.pos;
                let n = r.map("components")?;
                comps = Some(Comps::Map { pos: r.pos, len: n });
                *r = Reader::at(ctx.buf, at);
                r.skip(3)?;
            }
            None => r.skip(4)?,
        }
    }
    let invalid = || crate::error::Error::at(ErrorKind::CborInvalid, start);
    Ok(Object {
        ctx,
        index,
        name,
        shape: shp.ok_or_else(invalid)?,
        format: fmt.ok_or_else(invalid)?,
        attributes,
        fields,
        comps: comps.ok_or_else(invalid)?,
    })
}

/// The v1.x component map at `r`.
pub(crate) fn component_v1<'a>(ctx: Ctx<'a>, r: &mut Reader<'a>, role: &'a str) -> Result<Component<'a>> {
    let mut len = r.map("component")?;
    let fields = Map::new(ctx.buf, r.pos, len);
    let mut c = Component::blank(ctx.data, role, fields);
    let mut ltype = None;
    while r.more(&mut len)? {
        match key(r, 5)?.and_then(ComponentKey::from_bytes) {
            Some(ComponentKey::DType) => (c.dtype, c.logical) = dtype_v1(ctx, r)?,
            Some(ComponentKey::Type) => ltype = opt_text(r, "type")?,
            Some(ComponentKey::Offset) => c.offset = r.uint("offset")?,
            Some(ComponentKey::Length) => c.length = r.uint("length")?,
            Some(ComponentKey::UncompressedLength) => c.uncompressed_length = opt_uint(r, "uncompressed_length")?,
            Some(ComponentKey::Encoding) => c.encoding = encoding_v1(r)?,
            Some(ComponentKey::Digest) => c.digest = opt_text(r, "digest")?,
            None => r.skip(6)?,
        }
    }
    if let Some(t) = ltype {
        c.logical = logical_type(c.dtype, t);
    }
    Ok(c)
}

/// The v0.1 tensor map at `r`: a dense object with one `data` component,
/// which the object holds as the map's position (see [`data_v0`]).
pub(crate) fn object_v0<'a>(ctx: Ctx<'a>, r: &mut Reader<'a>, index: usize) -> Result<Object<'a>> {
    tensor_v0(ctx, r, index).map(|(o, _)| o)
}

/// The `data` component of the v0.1 tensor map at `pos`.
pub(crate) fn data_v0(ctx: Ctx<'_>, pos: usize) -> Option<Component<'_>> {
    tensor_v0(ctx, &mut Reader::at(ctx.buf, pos), 0).ok().map(|(_, c)| c)
}

/// A v0.1 tensor map: the object and its `data` component.
fn tensor_v0<'a>(ctx: Ctx<'a>, r: &mut Reader<'a>, index: usize) -> Result<(Object<'a>, Component<'a>)> {
    let start = r.pos;
    let mut len = r.map("tensor")?;
    let fields = Map::new(ctx.buf, r.pos, len);
    let mut data = Component::blank(ctx.data, Role::Data.name(), Map::empty());
    let (mut name, mut shp, mut fmt) = (None, None, Format::Dense);
    while r.more(&mut len)? {
        match key(r, 3)?.and_then(V0Key::from_bytes) {
            Some(V0Key::Name) => name = Some(r.text("name")?),
            Some(V0Key::Offset) => data.offset = r.uint("offset")?,
            Some(V0Key::Size) => data.length = r.uint("size")?,
            Some(V0Key::DType) => data.dtype = DType::from_v0_1(r.text("dtype")?).unwrap_or(DType::U8),
            Some(V0Key::Shape) => shp = Some(shape(r)?),
            Some(V0Key::Encoding) => data.encoding = Encoding::from_name(r.text("encoding")?).unwrap_or(Encoding::Raw),
            Some(V0Key::DataEndianness) => {
                if opt_text(r, "data_endianness")? == Some("big") {
                    data.endian = Endian::Big;
                }
            }
            Some(V0Key::Checksum) => data.digest = opt_text(r, "checksum")?,
            Some(V0Key::Layout) => fmt = format(r, "layout")?,
            None => r.skip(4)?,
        }
    }
    let invalid = || crate::error::Error::at(ErrorKind::CborInvalid, start);
    let shape = shp.ok_or_else(invalid)?;
    // v0.1 has no `uncompressed_length`; for a dense tensor the decoded size follows from the shape.
    data.implied_len = shape.numel.checked_mul(data.dtype.width());
    let attributes = fields.hiding(|k| V0Key::from_bytes(k).is_some());
    let comps = Comps::Single { pos: start };
    let o = Object { ctx, index, name: name.ok_or_else(invalid)?, shape, format: fmt, attributes, fields, comps };
    Ok((o, data))
}

/// The object at `r` (a v1.x entry, name first, or a v0.1 tensor map).
/// Validated at open: decoding cannot fail here.
pub(crate) fn object_at<'a>(ctx: Ctx<'a>, r: &mut Reader<'a>, index: usize) -> Option<Object<'a>> {
    if crate::container::READS_V2 && ctx.version.major == 2 {
        let (o, end) = crate::v2::wire::object(ctx, r.pos, index)?;
        *r = Reader::at(ctx.buf, end);
        Some(o)
    } else if ctx.v0() {
        object_v0(ctx, r, index).ok()
    } else {
        let name = r.text("object name").ok()?;
        object_v1(ctx, r, name, index).ok()
    }
}

/// Iterator over a file's objects in manifest order.
pub struct Objects<'a> {
    ctx: Ctx<'a>,
    r: Reader<'a>,
    len: Len,
    index: usize,
    count: usize,
}

/// The objects of the container whose first entry and length are `objects`.
pub(crate) fn objects(ctx: Ctx<'_>, objects: (usize, Len), count: usize) -> Objects<'_> {
    Objects { ctx, r: Reader::at(ctx.buf, objects.0), len: objects.1, index: 0, count }
}

impl<'a> Iterator for Objects<'a> {
    type Item = Object<'a>;

    fn next(&mut self) -> Option<Object<'a>> {
        if !self.r.more(&mut self.len).ok()? {
            return None;
        }
        let o = object_at(self.ctx, &mut self.r, self.index)?;
        self.index += 1;
        Some(o)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.count - self.index;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Objects<'_> {}

/// Positions of every object, for a name index (v1.x and v0.1 by the skim).
#[cfg(not(feature = "v2"))]
pub(crate) fn positions(ctx: Ctx<'_>, objs: (usize, Len), _count: usize) -> impl Iterator<Item = ObjPos> + '_ {
    super::skim::positions(ctx, objs)
}

/// Positions of every object, for a name index (v1.x and v0.1 by the skim).
#[cfg(feature = "v2")]
pub(crate) fn positions(ctx: Ctx<'_>, objs: (usize, Len), count: usize) -> impl Iterator<Item = ObjPos> + '_ {
    let v2 = ctx.version.major == 2;
    let mut it = objects(ctx, if v2 { objs } else { (0, Some(0)) }, count);
    let mut skim = super::skim::positions(ctx, if v2 { (0, Some(0)) } else { objs });
    core::iter::from_fn(move || {
        if !v2 {
            return skim.next();
        }
        let body = it.r.pos;
        let o = it.next()?;
        Some(ObjPos::of(ctx.buf, body, o.name().as_bytes()))
    })
}
