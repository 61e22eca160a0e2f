//! The manifest (§3): one validating pass over the root, the shard table and
//! every object, then borrowing views over the validated bytes.

pub use super::attributes::{AttrValue, Attributes};
use super::attributes::check_attributes;
use super::cbor::{self, Cursor, Keys, TEXT};
use super::container::{self, Footer, BLOB_ALIGN, FOOTER_LEN, MIN_FILE_LEN};
use super::error::{Error, Kind, Result};
use super::layout::{self, PartSet, Profile};
use super::part::{check_name, check_shard_name, Digest, Part};
use super::spans::{Span, Spans};

/// Highest rank of a shape.
pub const MAX_RANK: u64 = 64;

/// Fewer bytes than any valid object entry takes (the smallest is 45: a
/// one-byte name, `shape: []`, `layout: ""`, one part with `blob` and `dtype`).
const MIN_OBJECT_LEN: usize = 32;

/// Hears of each object the validating pass has checked: the name index
/// is built from it, with no second walk.
trait NameSink<'a> {
    /// About `n` objects follow (a hint).
    fn expect(&mut self, n: usize);
    /// The object called `name`, starting at `at` of `buf`, is valid.
    fn object(&mut self, buf: &'a [u8], at: usize, name: &'a str);
}

impl NameSink<'_> for () {
    fn expect(&mut self, _: usize) {}
    fn object(&mut self, _: &[u8], _: usize, _: &str) {}
}

#[cfg(feature = "alloc")]
impl<'a> NameSink<'a> for alloc::vec::Vec<crate::index::ObjPos> {
    fn expect(&mut self, n: usize) {
        self.reserve_exact(n);
    }
    fn object(&mut self, buf: &'a [u8], at: usize, name: &'a str) {
        self.push(crate::index::ObjPos::of(buf, at, name));
    }
}

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

impl<'a> Manifest<'a> {
    /// Open a whole file given as a slice: container, deterministic CBOR,
    /// schema, types, layouts and blob overlap. `scratch` holds one span per
    /// blob reference plus one; the pass allocates nothing else.
    pub fn parse_with(file: &'a [u8], scratch: &mut [Span]) -> Result<Manifest<'a>> {
        let (footer, m) = container::open(file)?;
        Self::validate(footer, m, Spans::Slice(scratch, 0))
    }

    /// As [`Manifest::parse_with`], from the tail of a file alone: its last
    /// 40 bytes and the manifest range they point to.
    pub fn parse_tail_with(footer: &[u8], manifest: &'a [u8], file_len: u64, scratch: &mut [Span]) -> Result<Manifest<'a>> {
        let f = Footer::parse(footer, file_len)?;
        if !f.is_data_shard() {
            f.check_manifest(manifest)?;
        }
        Self::validate(f, if f.is_data_shard() { &[] } else { manifest }, Spans::Slice(scratch, 0))
    }

    /// [`Manifest::parse_with`] with the crate's scratch entries (two per span).
    pub(crate) fn parse_with_entries(file: &'a [u8], scratch: &mut [[u64; 2]]) -> Result<Manifest<'a>> {
        let (footer, m) = container::open(file)?;
        Self::validate(footer, m, Spans::Entries(scratch, 0))
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

    /// [`Manifest::parse`], and where each object's name is (collected by
    /// the validating pass, in manifest order: the name index needs no
    /// second walk).
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

    /// The heap-scratch pass, collecting object positions.
    #[cfg(feature = "alloc")]
    fn validate_indexed(footer: Footer, buf: &'a [u8]) -> Result<(Manifest<'a>, alloc::vec::Vec<crate::index::ObjPos>)> {
        let mut names = alloc::vec::Vec::new();
        let m = Self::validate_each(footer, buf, Spans::Vec(alloc::vec::Vec::new()), &mut names)?;
        Ok((m, names))
    }

    fn validate(footer: Footer, buf: &'a [u8], spans: Spans<'_>) -> Result<Manifest<'a>> {
        Self::validate_each(footer, buf, spans, &mut ())
    }

    /// The whole pass; `names` hears of every object once it is checked.
    fn validate_each(footer: Footer, buf: &'a [u8], mut spans: Spans<'_>, names: &mut impl NameSink<'a>) -> Result<Manifest<'a>> {
        let mut m = Manifest { footer, buf, objects: (0, 0), shards: (0, 0), attributes: None };
        if footer.is_data_shard() {
            return Ok(m);
        }
        // One pass: the schema reader's cursor checks every item it reads
        // or skips against the deterministic-CBOR rules. On any error the
        // separate walk runs first, so that a CBOR error is reported (with
        // its own kind and position) ahead of any schema error, as if the
        // walk had run before the schema.
        match m.check(&mut spans, names) {
            Ok(()) => {
                debug_assert!(cbor::validate(buf).is_ok(), "the checking pass accepted invalid CBOR");
                Ok(m)
            }
            Err(e) => {
                cbor::validate(buf)?;
                debug_assert_ne!(e.kind, Kind::CborInvalid, "the checking pass refused valid CBOR");
                Err(e)
            }
        }
    }

    /// The pass behind [`Manifest::validate_each`], with a checking cursor.
    fn check(&mut self, spans: &mut Spans<'_>, names: &mut impl NameSink<'a>) -> Result<()> {
        let buf = self.buf;
        let footer = self.footer;
        let m = self;
        let mut c = Cursor::checking(buf);
        let n = c.map("manifest")?;
        let mut objects = None;
        let mut keys = Keys::default();
        for _ in 0..n {
            let kpos = c.pos;
            let key = c.key_in(1)?;
            keys.next(&c, kpos)?;
            let vpos = c.pos;
            match key {
                // Keys are in encoded order, so `shards` (if any) is known before `objects`.
                Some(b"shards") => {
                    let n = c.map("shards")?;
                    m.shards = (c.pos, n);
                    check_shards(&mut c, n)?;
                }
                Some(b"objects") => {
                    let n = c.map("objects")?;
                    objects = Some((c.pos, n));
                    m.objects = (c.pos, n);
                    // The count is only a hint to reserve by: capped by what
                    // the bytes can hold, so a hostile count reserves little.
                    let hint = (n as usize).min(buf.len() / MIN_OBJECT_LEN);
                    spans.reserve(hint);
                    names.expect(hint);
                    m.check_objects(&mut c, n, spans, names)?;
                }
                Some(b"attributes") => {
                    m.attributes = Some(vpos);
                    check_attributes(&mut c, 1)?;
                }
                _ => c.skip_in(1)?,
            }
        }
        if c.pos != buf.len() {
            return Err(Error::at(Kind::CborTrailingBytes, c.pos));
        }
        m.objects = objects.ok_or(Error::ctx(Kind::MissingField, "objects"))?;
        // The manifest's own span last: writers put it after the blobs, so
        // spans in blob order need no sort.
        spans.push(Span { file: 0, offset: footer.manifest_offset, len: footer.manifest_length })?;
        spans.check()
    }

    /// Check every object at the cursor: names, fields, parts and their
    /// blobs (spans collected for the overlap check), layout rules.
    fn check_objects(&self, c: &mut Cursor<'a>, n: u64, spans: &mut Spans<'_>, names: &mut impl NameSink<'a>) -> Result<()> {
        let mut keys = Keys::default();
        for _ in 0..n {
            let kpos = c.pos;
            let name = c.text("object name")?;
            keys.next(c, kpos)?;
            check_name(name, kpos, "object name")?;
            let mut set = PartSet::new(0);
            let o = Object::read(name, kpos, c, self.buf, |p, at| {
                let file = self.check_blob(&p, at)?;
                spans.push(Span { file, offset: p.offset, len: p.length })?;
                set.push(&p);
                Ok(())
            })?;
            set.total = o.num_parts();
            layout::check(&o, &set)?;
            names.object(self.buf, kpos, name);
        }
        Ok(())
    }

    /// Check a part's blob against its file; returns the file's index (0:
    /// this file, k: the k-th shard of the table).
    fn check_blob(&self, p: &Part<'a>, at: usize) -> Result<u32> {
        let (file, size) = match p.shard {
            None => (0, self.footer.file_len),
            Some(s) => self.shard_index(s).ok_or(Error::field(Kind::UnknownShard, at, "shard"))?,
        };
        if p.offset % BLOB_ALIGN != 0 {
            return Err(Error::field(Kind::BlobMisaligned, at, "blob"));
        }
        if p.offset < BLOB_ALIGN {
            return Err(Error::field(Kind::BlobBelowFloor, at, "blob"));
        }
        if p.offset.checked_add(p.length).map_or(true, |e| e > size - FOOTER_LEN) {
            return Err(Error::field(Kind::BlobOutOfBounds, at, "blob"));
        }
        Ok(file)
    }

    /// The 1-based index of a shard in the table, and its size.
    fn shard_index(&self, name: &str) -> Option<(u32, u64)> {
        self.shards().enumerate().find(|(_, s)| s.name == name).map(|(i, s)| (i as u32 + 1, s.size))
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
        Objects { buf: self.buf, _m: core::marker::PhantomData, c: Cursor::at(self.buf, self.objects.0), left: self.objects.1 }
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
        Shards { c: Cursor::at(self.buf, self.shards.0), left: self.shards.1 }
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
    let mut c = Cursor::at(buf, offset);
    let name = c.text("object name").ok()?;
    let o = Object::read(name, offset, &mut c, buf, |_, _| Ok(())).ok()?;
    Some((o, c.pos))
}

/// Check the shard table: names, `size`, `digest`.
fn check_shards(c: &mut Cursor<'_>, n: u64) -> Result<()> {
    let mut keys = Keys::default();
    for _ in 0..n {
        let kpos = c.pos;
        if c.peek().0 != TEXT {
            return Err(Error::field(Kind::BadShardName, kpos, "shard name"));
        }
        let name = c.text("shard name")?;
        keys.next(c, kpos)?;
        check_shard_name(name, kpos)?;
        Shard::read(name, c)?;
    }
    Ok(())
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
    fn read(name: &'a str, c: &mut Cursor<'a>) -> Result<Shard<'a>> {
        let start = c.pos;
        let n = c.map("shard")?;
        let (mut size, mut digest) = (None, None);
        let mut keys = Keys::default();
        for _ in 0..n {
            let vpos;
            let kpos = c.pos;
            let key = c.key_in(3)?;
            keys.next(c, kpos)?;
            match key {
                Some(b"size") => size = Some(c.uint("size")?),
                Some(b"digest") => {
                    vpos = c.pos;
                    let d = Digest::parse(c.text("digest")?, vpos)?;
                    if !d.is_registered() {
                        return Err(Error::field(Kind::BadDigest, vpos, "shard digest"));
                    }
                    digest = Some(d);
                }
                _ => c.skip_in(3)?,
            }
        }
        let size = size.ok_or(Error::field(Kind::MissingField, start, "size"))?;
        let digest = digest.ok_or(Error::field(Kind::MissingField, start, "digest"))?;
        if size < MIN_FILE_LEN {
            return Err(Error::field(Kind::BadShardSize, start, "size"));
        }
        Ok(Shard { name, size, digest })
    }
}

/// Iterator over the shard table.
pub struct Shards<'a> {
    c: Cursor<'a>,
    left: u64,
}

impl<'a> Iterator for Shards<'a> {
    type Item = Shard<'a>;
    fn next(&mut self) -> Option<Shard<'a>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let name = self.c.text("shard name").ok()?;
        Shard::read(name, &mut self.c).ok()
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
    /// Read an object map at the cursor; checks shape, layout and each part
    /// (handed to `on_part` with its map's position), not the layout rules.
    fn read(
        name: &'a str,
        offset: usize,
        c: &mut Cursor<'a>,
        buf: &'a [u8],
        mut on_part: impl FnMut(Part<'a>, usize) -> Result<()>,
    ) -> Result<Self> {
        let start = c.pos;
        let n = c.map("object")?;
        let (mut shape, mut layout, mut parts, mut attributes) = (None, None, None, None);
        let mut keys = Keys::default();
        for _ in 0..n {
            let kpos = c.pos;
            let key = c.key_in(3)?;
            keys.next(c, kpos)?;
            let vpos = c.pos;
            match key {
                Some(b"shape") => {
                    let rank = c.array("shape")?;
                    if rank > MAX_RANK {
                        return Err(Error::field(Kind::RankTooLarge, vpos, "shape"));
                    }
                    let mut numel = Some(1u64);
                    let mut zero = false;
                    for _ in 0..rank {
                        let d = c.uint("shape")?;
                        zero |= d == 0;
                        numel = numel.and_then(|p| p.checked_mul(d));
                    }
                    let numel = if zero { 0 } else { numel.ok_or(Error::field(Kind::ShapeOverflow, vpos, "shape"))? };
                    shape = Some((vpos, rank, numel));
                }
                Some(b"layout") => layout = Some(c.text("layout")?),
                Some(b"parts") => {
                    let n = c.map("parts")?;
                    if n == 0 {
                        return Err(Error::field(Kind::EmptyParts, vpos, "parts"));
                    }
                    parts = Some((c.pos, n));
                    let mut pkeys = Keys::default();
                    for _ in 0..n {
                        let kpos = c.pos;
                        let pname = c.text("part name")?;
                        pkeys.next(c, kpos)?;
                        check_name(pname, kpos, "part name")?;
                        let at = c.pos;
                        on_part(Part::read(pname, c)?, at)?;
                    }
                }
                Some(b"attributes") => {
                    attributes = Some(vpos);
                    check_attributes(c, 3)?;
                }
                _ => c.skip_in(3)?,
            }
        }
        let (shape_pos, rank, numel) = shape.ok_or(Error::field(Kind::MissingField, start, "shape"))?;
        let layout = layout.ok_or(Error::field(Kind::MissingField, start, "layout"))?;
        let (parts_pos, n_parts) = parts.ok_or(Error::field(Kind::MissingField, start, "parts"))?;
        Ok(Object { buf, _m: core::marker::PhantomData, name, layout, offset, shape_pos, rank, numel, parts_pos, n_parts, attributes })
    }

    /// Position of the first dimension, and the rank.
    pub(crate) fn shape_items(&self) -> (usize, u64) {
        let mut c = Cursor::at(self.buf, self.shape_pos);
        let n = c.array("shape").unwrap_or(0);
        (c.pos, n)
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
        let mut c = Cursor::at(self.buf, self.shape_pos);
        let n = c.array("shape").unwrap_or(0);
        (0..n).map(move |_| c.uint("shape").unwrap_or(0))
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

    /// The parts, in manifest (encoded-name) order; each is checked as it
    /// is read (name rules, fields, type vs dtype).
    pub fn parts(&self) -> impl Iterator<Item = Result<Part<'a>>> + 'a {
        let mut c = Cursor::at(self.buf, self.parts_pos);
        (0..self.n_parts).map(move |_| {
            let kpos = c.pos;
            let name = c.text("part name")?;
            check_name(name, kpos, "part name")?;
            Part::read(name, &mut c)
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
    c: Cursor<'a>,
    left: u64,
}

impl<'a, 'm> Iterator for Objects<'a, 'm> {
    type Item = Object<'a, 'm>;
    fn next(&mut self) -> Option<Object<'a, 'm>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let offset = self.c.pos;
        let name = self.c.text("object name").ok()?;
        Object::read(name, offset, &mut self.c, self.buf, |_, _| Ok(())).ok()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}
