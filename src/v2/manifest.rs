//! The manifest (§3): one validating pass over the root, the shard table and
//! every object, then borrowing views over the validated bytes.

pub use super::attributes::{AttrValue, Attributes};
use crate::cbor::decode_head;
use crate::compact::view::{field, skip, text};
use super::container::{self, Footer};
use super::error::Result;
#[cfg(feature = "v2")]
use super::explain::explain;
use super::layout::{self, PartSet, Profile};
use super::part::{Digest, Part};
use crate::scratch::Entry as Slot;

/// Highest rank of a shape.
pub const MAX_RANK: u64 = 64;

/// A validated v2 manifest (or a data shard, which has none).
#[derive(Clone, Copy, Debug)]
pub struct Manifest<'a> {
    footer: Footer,
    buf: &'a [u8],
    /// Position of the first key of `objects`, and its entry count.
    objects: (usize, u64),
    /// Position of the first key of `shards`, and its entry count (count 0 when absent).
    shards: (usize, u64),
    /// Position of the root `attributes` map item.
    attributes: Option<usize>,
}

/// Slots enough for the pass over a manifest of `len` bytes: two per blob
/// and two for the manifest's own span (the overlap check, §2.4), one per
/// object (its name, for the index). A part with a non-empty blob takes at
/// least 22 bytes of manifest and an object at least 45, so an eighth of a
/// slot per byte is always enough.
pub const fn slots_for(len: usize) -> usize {
    len / 8 + 2
}

impl<'a> Manifest<'a> {
    /// Open a whole file given as a slice: container, deterministic CBOR,
    /// schema, types, layouts and blob overlap (the one validating pass,
    /// `compact::pass_v2`). `slots` are its scratch: two per blob
    /// reference and two more suffice ([`super::Kind::ScratchTooSmall`] when too
    /// few); it allocates nothing.
    pub fn parse_with(file: &'a [u8], slots: &mut [Slot]) -> Result<Manifest<'a>> {
        let (footer, m) = container::open(file)?;
        Self::validate(footer, m, slots).map(|(m, _)| m)
    }

    /// As [`Manifest::parse_with`], from the tail of a file alone: its last
    /// 40 bytes and the manifest range they point to.
    pub fn parse_tail_with(footer: &[u8], manifest: &'a [u8], file_len: u64, slots: &mut [Slot]) -> Result<Manifest<'a>> {
        let f = Footer::parse(footer, file_len)?;
        if !f.is_data_shard() {
            f.check_manifest(manifest)?;
        }
        Self::validate(f, if f.is_data_shard() { &[] } else { manifest }, slots).map(|(m, _)| m)
    }

    /// [`Manifest::parse_with`] with scratch from the heap.
    #[cfg(feature = "alloc")]
    pub fn parse(file: &'a [u8]) -> Result<Manifest<'a>> {
        Self::parse_indexed(file).map(|(m, _)| m)
    }

    /// [`Manifest::parse_tail_with`] with scratch from the heap.
    #[cfg(feature = "alloc")]
    pub fn parse_tail(footer: &[u8], manifest: &'a [u8], file_len: u64) -> Result<Manifest<'a>> {
        Self::parse_tail_indexed(footer, manifest, file_len).map(|(m, _)| m)
    }

    /// [`Manifest::parse`], and where each object's name is (noted by the
    /// validating pass, in manifest order: the name index needs no second
    /// walk).
    #[cfg(feature = "alloc")]
    pub(crate) fn parse_indexed(file: &'a [u8]) -> Result<(Manifest<'a>, alloc::vec::Vec<crate::index::ObjPos>)> {
        let (footer, m) = container::open(file)?;
        Self::validate_indexed(footer, m)
    }

    /// [`Manifest::parse_tail`], and where each object's name is.
    #[cfg(feature = "alloc")]
    pub(crate) fn parse_tail_indexed(
        footer: &[u8],
        manifest: &'a [u8],
        file_len: u64,
    ) -> Result<(Manifest<'a>, alloc::vec::Vec<crate::index::ObjPos>)> {
        let f = Footer::parse(footer, file_len)?;
        if !f.is_data_shard() {
            f.check_manifest(manifest)?;
        }
        Self::validate_indexed(f, if f.is_data_shard() { &[] } else { manifest })
    }

    /// The pass with slots from the heap, and the objects' name positions.
    #[cfg(feature = "alloc")]
    fn validate_indexed(footer: Footer, buf: &'a [u8]) -> Result<(Manifest<'a>, alloc::vec::Vec<crate::index::ObjPos>)> {
        // Slots for a manifest of typical density first (a part with its
        // blob and name takes well over 24 bytes); the bound for any
        // manifest only when those run out, so that the usual open zeroes
        // a third of the memory.
        let mut slots = alloc::vec![[0u64; 2]; buf.len() / 24 + 2];
        let (m, noted) = match Self::validate(footer, buf, &mut slots) {
            Err(e) if e.kind == super::Kind::ScratchTooSmall => {
                slots = alloc::vec![[0u64; 2]; slots_for(buf.len())];
                Self::validate(footer, buf, &mut slots)?
            }
            r => r?,
        };
        let names = match noted {
            Some(first) => slots[first..first + m.len()]
                .iter()
                .map(|s| {
                    // (The names' UTF-8 was checked by the pass.)
                    let at = (s[0] as u32) as usize;
                    crate::index::ObjPos::of(buf, at, crate::cbor::keys::definite(buf, at).unwrap_or(&[]))
                })
                .collect(),
            None => super::wire::names(&m),
        };
        Ok((m, names))
    }

    /// The validating pass over the manifest `buf` (its container checked,
    /// §2): the manifest, and from which slot the pass noted the objects'
    /// names. A refusal's rule is read back from the manifest
    /// (`explain.rs`).
    #[cfg(feature = "v2")]
    fn validate(footer: Footer, buf: &'a [u8], slots: &mut [Slot]) -> Result<(Manifest<'a>, Option<usize>)> {
        let mut m = Manifest { footer, buf, objects: (0, 0), shards: (0, 0), attributes: None };
        if footer.is_data_shard() {
            return Ok((m, None));
        }
        let root = crate::compact::pass_v2::validate(buf, footer, slots).map_err(|f| explain(buf, f))?;
        m.objects = (root.objects, root.count as u64);
        m.shards = (root.shards.0, root.shards.1 as u64);
        m.attributes = root.attributes;
        Ok((m, root.names))
    }

    /// Without the `v2` feature, no v2 file is read.
    #[cfg(not(feature = "v2"))]
    fn validate(_: Footer, _: &'a [u8], _: &mut [Slot]) -> Result<(Manifest<'a>, Option<usize>)> {
        Err(super::Error::ctx(super::Kind::Unsupported, "a v2 file: this build has no `v2` feature"))
    }

    /// The footer.
    pub fn footer(&self) -> &Footer {
        &self.footer
    }

    /// The manifest bytes (empty for a data shard).
    pub fn bytes(&self) -> &'a [u8] {
        self.buf
    }

    /// Whether this file is a data shard (no manifest, no objects).
    pub fn is_data_shard(&self) -> bool {
        self.footer.is_data_shard()
    }

    /// Number of objects.
    pub fn len(&self) -> usize {
        self.objects.1 as usize
    }

    /// Whether there are no objects.
    pub fn is_empty(&self) -> bool {
        self.objects.1 == 0
    }

    /// The objects, in manifest (encoded-name) order.
    pub fn objects(&self) -> Objects<'a, '_> {
        self.objects_detached()
    }

    /// [`Manifest::objects`], not borrowing the manifest (views only need its bytes).
    pub(crate) fn objects_detached<'m>(&self) -> Objects<'a, 'm> {
        Objects { buf: self.buf, _m: core::marker::PhantomData, pos: self.objects.0, left: self.objects.1 }
    }

    /// The object called `name` (a linear scan; an index can keep
    /// [`Object::offset`]s and use [`Manifest::object_at`]).
    pub fn object(&self, name: &str) -> Option<Object<'a, '_>> {
        self.objects().find(|o| o.name == name)
    }

    /// The object whose name starts at manifest byte `offset`, which must be
    /// an [`Object::offset`] of this manifest (read directly, no scan; another
    /// position gives `None` or a meaningless object, never a panic).
    pub fn object_at(&self, offset: usize) -> Option<Object<'a, '_>> {
        object_in(self.buf, offset).map(|(o, _)| o)
    }

    /// Position of the first key of `objects`.
    pub(crate) fn objects_pos(&self) -> usize {
        self.objects.0
    }

    /// The shard table, in manifest order.
    pub fn shards(&self) -> Shards<'a> {
        Shards { buf: self.buf, pos: self.shards.0, left: self.shards.1 }
    }

    /// The file's `attributes`.
    pub fn attributes(&self) -> Option<Attributes<'a>> {
        self.attributes.map(|p| Attributes::at(self.buf, p))
    }
}

/// The object whose name starts at `offset` of validated manifest bytes
/// `buf` (as [`Manifest::object_at`], without the manifest).
/// Also returns where the object's entry ends.
pub(crate) fn object_in<'a, 'm>(buf: &'a [u8], offset: usize) -> Option<(Object<'a, 'm>, usize)> {
    let map = skip(buf, offset);
    Some((Object::read(text(buf, offset), offset, map, buf)?, skip(buf, map)))
}

/// An entry of the shard table (§7.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard<'a> {
    /// The shard's name (a label, not a path).
    pub name: &'a str,
    /// Exact size of the shard file.
    pub size: u64,
    /// Whole-file digest of the shard.
    pub digest: Digest<'a>,
}

impl<'a> Shard<'a> {
    /// Decode the shard entry whose map is at `map` (validated by the pass, §7.1).
    fn read(name: &'a str, buf: &'a [u8], map: usize) -> Option<Shard<'a>> {
        let at = field(buf, map, "digest")?;
        let size = field(buf, map, "size").and_then(|v| decode_head(buf, v)?.1)?;
        Some(Shard { name, size, digest: Digest::parse_v2(text(buf, at))? })
    }
}

/// Iterator over the shard table.
pub struct Shards<'a> {
    buf: &'a [u8],
    pos: usize,
    left: u64,
}

impl<'a> Iterator for Shards<'a> {
    type Item = Shard<'a>;
    fn next(&mut self) -> Option<Shard<'a>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let (name, map) = (self.pos, skip(self.buf, self.pos));
        self.pos = skip(self.buf, map);
        Shard::read(text(self.buf, name), self.buf, map)
    }
}

/// An object of a validated manifest.
#[derive(Clone, Copy, Debug)]
pub struct Object<'a, 'm> {
    buf: &'a [u8],
    _m: core::marker::PhantomData<&'m Manifest<'a>>,
    /// The object's name.
    pub name: &'a str,
    /// The `layout` id.
    pub layout: &'a str,
    /// Manifest byte offset of the object's name.
    pub offset: usize,
    shape_pos: usize,
    rank: u64,
    numel: u64,
    parts_pos: usize,
    n_parts: u64,
    attributes: Option<usize>,
}

impl<'a, 'm> Object<'a, 'm> {
    /// Decode the object map at `map` (validated by the pass): where its
    /// shape, parts and attributes are; the layout rules are not run.
    fn read(name: &'a str, offset: usize, map: usize, buf: &'a [u8]) -> Option<Self> {
        let (layout, shape, parts) = (field(buf, map, "layout")?, field(buf, map, "shape")?, field(buf, map, "parts")?);
        let (_, rank, _) = decode_head(buf, shape)?;
        let (_, n_parts, parts_pos) = decode_head(buf, parts)?;
        let mut o = Object {
            buf,
            _m: core::marker::PhantomData,
            name,
            layout: text(buf, layout),
            offset,
            shape_pos: shape,
            rank: rank?,
            numel: 0,
            parts_pos,
            n_parts: n_parts?,
            attributes: field(buf, map, "attributes"),
        };
        // (A zero dimension makes the product 0; the pass refused overflow.)
        o.numel = o.dims().fold(1u64, |n, d| n.saturating_mul(d));
        Some(o)
    }

    /// Position of the first dimension, and the rank.
    pub(crate) fn shape_items(&self) -> (usize, u64) {
        (skip_head(self.buf, self.shape_pos), self.rank)
    }

    /// Position of the first key of `parts`.
    pub(crate) fn parts_pos(&self) -> usize {
        self.parts_pos
    }

    /// Number of dimensions.
    pub fn rank(&self) -> usize {
        self.rank as usize
    }

    /// The dimensions.
    pub fn dims(&self) -> impl Iterator<Item = u64> + 'a {
        let (buf, mut pos) = (self.buf, skip_head(self.buf, self.shape_pos));
        (0..self.rank).map(move |_| {
            let (_, d, next) = decode_head(buf, pos).unwrap_or((0, Some(0), buf.len()));
            pos = next;
            d.unwrap_or(0)
        })
    }

    /// Dimension `i`.
    pub fn dim(&self, i: usize) -> Option<u64> {
        self.dims().nth(i)
    }

    /// Product of the dimensions (1 for a scalar).
    pub fn num_elements(&self) -> u64 {
        self.numel
    }

    /// Number of parts.
    pub fn num_parts(&self) -> usize {
        self.n_parts as usize
    }

    /// The parts, in manifest (encoded-name) order (each checked by the
    /// pass; the `Result` is for callers written when views checked).
    pub fn parts(&self) -> impl Iterator<Item = Result<Part<'a>>> + 'a {
        let (buf, mut pos) = (self.buf, self.parts_pos);
        (0..self.n_parts).map(move |_| {
            let (part, end) = Part::at(buf, skip(buf, pos), text(buf, pos));
            pos = end;
            Ok(part)
        })
    }

    /// The part called `name`.
    pub fn part(&self, name: &str) -> Option<Part<'a>> {
        self.parts().filter_map(|p| p.ok()).find(|p| p.name == name)
    }

    /// The object's `attributes`.
    pub fn attributes(&self) -> Option<Attributes<'a>> {
        self.attributes.map(|p| Attributes::at(self.buf, p))
    }

    /// The parts as the layout rules see them.
    pub(crate) fn part_set(&self) -> PartSet<'a> {
        let mut set = PartSet::new(self.num_parts());
        self.parts().flatten().for_each(|p| set.push(&p));
        set
    }

    /// The layout with its parameters (validated at open).
    pub fn profile(&self) -> Profile<'a> {
        layout::check(self, &self.part_set()).unwrap_or(Profile::Unknown(self.layout))
    }
}

/// Iterator over the objects of a manifest.
pub struct Objects<'a, 'm> {
    buf: &'a [u8],
    _m: core::marker::PhantomData<&'m Manifest<'a>>,
    pos: usize,
    left: u64,
}

impl<'a, 'm> Iterator for Objects<'a, 'm> {
    type Item = Object<'a, 'm>;
    fn next(&mut self) -> Option<Object<'a, 'm>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let (o, end) = object_in(self.buf, self.pos)?;
        self.pos = end;
        Some(o)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

/// Past the head of the (validated) item at `pos`.
fn skip_head(buf: &[u8], pos: usize) -> usize {
    decode_head(buf, pos).map_or(buf.len(), |(_, _, next)| next)
}
