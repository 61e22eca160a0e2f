//! The v2 reader behind the crate's views: a v2 object is an
//! [`crate::Object`], a v2 part a [`crate::Component`] (role = part name,
//! `format` = layout id, `uncompressed_length` = `decoded_length`).

use crate::compact::view::{skip, text};
use super::manifest::{object_in, Object as V2Object};
use super::part::Part;
use super::seekable;
use super::types::ElemType;
use crate::manifest::Ctx;
use crate::object::{Comps, Component, Object, Shape};
use crate::types::{Encoding, Endian, Format, LogicalType};
use crate::value::Map;

/// The entries of the map item at `pos` of `buf`, as a [`Map`] view.
pub(crate) fn map_at(buf: &[u8], pos: usize) -> Map<'_> {
    crate::compact::view::map_at(buf, Some(pos))
}

/// The crate view of the object whose name starts at `offset`, and where
/// the object's entry ends.
pub(crate) fn object<'a>(ctx: Ctx<'a>, offset: usize, index: usize) -> Option<(Object<'a>, usize)> {
    let (o, end): (V2Object<'a, 'a>, usize) = object_in(ctx.buf, offset)?;
    Some((view(ctx, &o, index), end))
}

/// The crate view of a v2 object.
pub(crate) fn view<'a>(ctx: Ctx<'a>, o: &V2Object<'a, '_>, index: usize) -> Object<'a> {
    let buf = ctx.buf;
    let (shape_pos, rank) = o.shape_items();
    Object {
        ctx,
        index,
        name: o.name,
        shape: Shape { buf, pos: shape_pos, len: crate::cbor::len_of(Some(rank)), ndim: rank as usize, numel: o.num_elements() },
        format: Format::parse(o.layout),
        attributes: o.attributes().map_or(Map::empty(), |a| map_at(buf, a.pos)),
        fields: map_at(buf, skip(buf, o.offset)),
        comps: Comps::Parts { pos: o.parts_pos(), left: o.num_parts() as u64 },
    }
}

/// A v2 part's logical type and encoding as the crate's views name them
/// (shared by these views and the compact reader's).
pub(crate) fn logical_and_encoding<'a>(p: &Part<'a>) -> (Option<LogicalType<'a>>, Encoding) {
    let logical = match p.elem() {
        ElemType::Plain(_) => None,
        ElemType::Logical(l) => Some(LogicalType::from(l)),
        ElemType::Unknown(_, t) => Some(LogicalType::Other(t)),
    };
    let encoding = match p.encoding {
        None => Encoding::Raw,
        Some(seekable::ID) => Encoding::ZstdSeekable,
        Some(_) => Encoding::Unknown,
    };
    (logical, encoding)
}

/// The crate view of a v2 part.
pub(crate) fn component<'a>(ctx: Ctx<'a>, p: Part<'a>) -> Component<'a> {
    let (logical, encoding) = logical_and_encoding(&p);
    Component {
        data: if p.shard.is_none() { ctx.data } else { None },
        role: p.name,
        dtype: p.dtype,
        logical,
        encoding,
        offset: p.offset,
        length: p.length,
        uncompressed_length: p.decoded_length,
        implied_len: None,
        digest: p.digest_text,
        endian: Endian::Little,
        fields: map_at(ctx.buf, p.pos),
        #[cfg(feature = "v2")]
        v2: Some(crate::object::V2Ref { shard: p.shard, encoding: p.encoding, pos: p.pos, elements: None }),
        verify_reads: true,
    }
}

/// The part called `name` whose map is at `pos` of validated manifest bytes `buf`.
pub(crate) fn part_at<'a>(buf: &'a [u8], name: &'a str, pos: usize) -> Option<Part<'a>> {
    Some(Part::at(buf, pos, name).0)
}

/// Where each object of a validated manifest is, for the name index (with
/// `alloc`; nothing without).
#[cfg(feature = "alloc")]
pub(crate) type Names = alloc::vec::Vec<crate::index::ObjPos>;
/// Where each object of a validated manifest is, for the name index (with
/// `alloc`; nothing without).
#[cfg(not(feature = "alloc"))]
pub(crate) type Names = ();

/// [`Names`] of a manifest validated without collecting them.
pub(crate) fn names(m: &super::Manifest<'_>) -> Names {
    #[cfg(feature = "alloc")]
    return positions(m.bytes(), m.objects_pos(), m.len());
    #[cfg(not(feature = "alloc"))]
    let _ = m;
}

/// Where each object of a validated manifest is (its name's position), for
/// the name index: names read, object maps skipped, nothing decoded twice.
#[cfg(feature = "alloc")]
fn positions(buf: &[u8], pos: usize, n: usize) -> alloc::vec::Vec<crate::index::ObjPos> {
    let names = crate::compact::view::entries(buf, pos, n);
    names.map(|(at, _)| crate::index::ObjPos::of(buf, at, text(buf, at).as_bytes())).collect()
}

/// The next part at a cursor over a validated `parts` map.
pub(crate) fn next_part<'a>(buf: &'a [u8], pos: &mut usize, left: &mut u64) -> Option<Part<'a>> {
    if *left == 0 {
        return None;
    }
    *left -= 1;
    let (p, end) = Part::at(buf, skip(buf, *pos), text(buf, *pos));
    *pos = end;
    Some(p)
}

