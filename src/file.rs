//! [`File`]: a validated zTensor file (or just its manifest), and its objects.

use crate::cbor::{Len, Reader};
use crate::container::{Layout, Tail};
use crate::error::{Error, ErrorKind, Result};
use crate::manifest::{decode_object_v0, decode_object_v1, first_overlap, validate, Ctx, ObjPos, Pass};
use crate::object::Object;
use crate::scratch::{Entry, Scratch};
use crate::types::Version;
use crate::value::Map;

/// A validated zTensor file borrowed from memory.
///
/// Constructing one runs the whole validating pass: once a `File` exists,
/// every accessor is cheap and the manifest is known to be sound. Without
/// the `alloc` feature, parsing allocates nothing.
///
/// ```
/// # fn main() -> Result<(), ztensor::Error> {
/// # let bytes = ztensor::doc_example_file();
/// let file = ztensor::File::parse(&bytes)?;
/// for obj in file.objects() {
///     let data = obj.data()?;
///     println!("{} {:?} {} {} bytes", obj.name(), obj.shape(), data.dtype(), data.length());
/// }
/// let w = file.get("weight").unwrap().data()?.as_slice::<f32>()?;
/// assert_eq!(w, &[1.0, 2.0, 3.0, 4.0]);
/// # Ok(()) }
/// ```
pub struct File<'a> {
    ctx: Ctx<'a>,
    tail: Tail,
    attributes: Map<'a>,
    fields: Map<'a>,
    objects: (usize, Len),
    count: usize,
    #[cfg(feature = "alloc")]
    index: crate::index::Index,
}

impl<'a> File<'a> {
    /// Validate a whole file held in memory (mapped or loaded).
    ///
    /// Without `alloc`, a manifest whose object names are not in ascending
    /// order, or whose blobs are not in ascending order, needs scratch
    /// memory; the built-in scratch holds
    /// [`DEFAULT_ENTRIES`](crate::scratch::DEFAULT_ENTRIES) entries and
    /// [`File::parse_with_scratch`] takes more.
    pub fn parse(bytes: &'a [u8]) -> Result<Self> {
        let tail = Tail::from_file(bytes)?;
        Self::parse_parts(manifest_slice(bytes, &tail), tail, Some(bytes), default_scratch!())
    }

    /// [`File::parse`] with caller-provided scratch: never allocates.
    pub fn parse_with_scratch(bytes: &'a [u8], scratch: &mut [Entry]) -> Result<Self> {
        let tail = Tail::from_file(bytes)?;
        Self::parse_parts(manifest_slice(bytes, &tail), tail, Some(bytes), Scratch::new(scratch))
    }

    /// Validate from the tail alone: the file's last 16 bytes, the manifest
    /// bytes they point to, and the file length. Tensor bytes are never
    /// touched; data accessors answer [`ErrorKind::NoData`].
    ///
    /// Read `footer` first, ask [`Tail::from_footer`] where the manifest is,
    /// then read that range.
    pub fn parse_tail(footer: &[u8], manifest: &'a [u8], file_len: u64) -> Result<Self> {
        let tail = Tail::from_footer(footer, file_len)?;
        Self::parse_parts(manifest, tail, None, default_scratch!())
    }

    /// Validate a manifest located by `tail`. `data`, when given, is the
    /// whole file (needed to read component bytes).
    pub fn parse_manifest(manifest: &'a [u8], tail: Tail, data: Option<&'a [u8]>) -> Result<Self> {
        if let Some(d) = data {
            if d.len() as u64 != tail.file_len {
                return Err(Error::new(ErrorKind::ManifestOutOfBounds { size: tail.manifest_len, file_len: d.len() as u64 }));
            }
        }
        Self::parse_parts(manifest, tail, data, default_scratch!())
    }

    fn parse_parts(manifest: &'a [u8], tail: Tail, data: Option<&'a [u8]>, scratch: Scratch<'_>) -> Result<Self> {
        if manifest.len() as u64 != tail.manifest_len {
            return Err(Error::new(ErrorKind::ManifestLengthMismatch {
                expected: tail.manifest_len,
                actual: manifest.len() as u64,
            }));
        }
        let mut pass = Pass::new(scratch, &tail);
        #[cfg(feature = "alloc")]
        let mut positions = alloc::vec::Vec::with_capacity((tail.manifest_len / 64).min(1 << 20) as usize);
        let root = validate(manifest, &tail, data, &mut pass, |_p| {
            #[cfg(feature = "alloc")]
            positions.push(_p);
        })?;
        let ctx = Ctx { buf: manifest, data, version: root.version };
        let file = File {
            ctx,
            tail,
            attributes: root.attributes,
            fields: root.fields,
            objects: root.objects,
            count: root.count,
            #[cfg(feature = "alloc")]
            index: crate::index::Index::build(manifest, positions, root.names_ordered)?,
        };
        #[cfg(not(feature = "alloc"))]
        if !root.names_ordered {
            file.check_unique_names(&mut pass.scratch)?;
        }
        let _ = root.names_ordered;
        if !pass.spans_ordered {
            #[cfg(feature = "alloc")]
            {
                crate::sort::sort_by_key(&mut pass.spans, |s| s[0]);
                first_overlap(&pass.spans).map_or(Ok(()), |s| Err(file.locate_span(s)))?;
            }
            #[cfg(not(feature = "alloc"))]
            file.check_overlaps(&mut pass.scratch)?;
        }
        Ok(file)
    }

    /// Format version (0.1 for legacy files).
    pub fn version(&self) -> Version {
        self.ctx.version
    }

    /// Container generation.
    pub fn layout(&self) -> Layout {
        self.tail.layout
    }

    /// Where the manifest lies.
    pub fn tail(&self) -> &Tail {
        &self.tail
    }

    /// The raw manifest bytes.
    pub fn manifest_bytes(&self) -> &'a [u8] {
        self.ctx.buf
    }

    /// The whole file, when parsed from it (not from the tail alone).
    pub fn bytes(&self) -> Option<&'a [u8]> {
        self.ctx.data
    }

    /// File-level attributes (empty when absent).
    pub fn attributes(&self) -> Map<'a> {
        self.attributes
    }

    /// Every field of the manifest's root map, known or not (empty for
    /// v0.1): unknown root fields stay reachable here.
    pub fn fields(&self) -> Map<'a> {
        self.fields
    }

    /// Number of objects.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether the file has no objects.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Objects in manifest order.
    pub fn objects(&self) -> Objects<'a> {
        Objects { ctx: self.ctx, r: Reader::at(self.ctx.buf, self.objects.0), len: self.objects.1, index: 0, count: self.count }
    }

    /// Object names in manifest order, without decoding the objects
    /// (with `alloc`, straight from the index built at open).
    pub fn names(&self) -> impl Iterator<Item = &'a str> + '_ {
        let buf = self.ctx.buf;
        #[cfg(feature = "alloc")]
        let it = (0..self.count).filter_map(move |i| {
            let p = self.index.position(i)?;
            core::str::from_utf8(&buf[p.name_start as usize..(p.name_start + p.name_len) as usize]).ok()
        });
        #[cfg(not(feature = "alloc"))]
        let it = {
            let (v0, mut r, mut len) = (self.ctx.version.major == 0, Reader::at(buf, self.objects.0), self.objects.1);
            let ctx = self.ctx;
            core::iter::from_fn(move || {
                if !r.more(&mut len).ok()? {
                    return None;
                }
                if v0 {
                    return decode_object_v0(ctx, &mut r, 0, None).ok().map(|o| o.name());
                }
                let name = r.text("object name").ok()?;
                r.skip(2).ok()?;
                Some(name)
            })
        };
        it
    }

    /// The object at position `i` in manifest order: O(1) with `alloc`, O(i) without.
    pub fn object(&self, i: usize) -> Option<Object<'a>> {
        #[cfg(feature = "alloc")]
        {
            self.index.position(i).and_then(|p| self.object_at(p, i))
        }
        #[cfg(not(feature = "alloc"))]
        {
            self.objects().nth(i)
        }
    }

    /// The object called `name`: O(log n) with `alloc` (index built at open);
    /// without, a linear scan, or O(log n) through a [`NameIndex`](crate::NameIndex).
    pub fn get(&self, name: &str) -> Option<Object<'a>> {
        #[cfg(feature = "alloc")]
        {
            let i = self.index.find(self.ctx.buf, name)?;
            self.object(i)
        }
        #[cfg(not(feature = "alloc"))]
        {
            self.objects().find(|o| o.name() == name)
        }
    }

    /// [`File::get`], or a [`ErrorKind::NotFound`] error naming the object.
    pub fn require(&self, name: &str) -> Result<Object<'a>> {
        self.get(name).ok_or_else(|| Error::new(ErrorKind::NotFound).in_object(name))
    }

    /// Decode the object at a position recorded during validation.
    pub(crate) fn object_at(&self, p: ObjPos, index: usize) -> Option<Object<'a>> {
        let mut r = Reader::at(self.ctx.buf, p.body as usize);
        decode_at(self.ctx, &mut r, index)
    }

    /// Positions of every object, for building a name index.
    pub(crate) fn positions(&self) -> impl Iterator<Item = ObjPos> + 'a {
        let buf = self.ctx.buf;
        let mut it = self.objects();
        core::iter::from_fn(move || {
            let body = it.r.pos;
            let o = it.next()?;
            let start = o.name().as_ptr() as usize - buf.as_ptr() as usize;
            Some(ObjPos { body: body as u32, name_start: start as u32, name_len: o.name().len() as u32 })
        })
    }

    #[cfg(not(feature = "alloc"))]
    fn check_unique_names(&self, scratch: &mut Scratch<'_>) -> Result<()> {
        scratch.truncate(0);
        for p in self.positions() {
            scratch.push([p.name_start as u64, (p.name_start + p.name_len) as u64])?;
        }
        scratch.check_unique(self.ctx.buf, 0).map_err(|e| self.locate_name(e))
    }

    #[cfg(not(feature = "alloc"))]
    fn locate_name(&self, e: Error) -> Error {
        // `check_unique` reports the duplicate's name start.
        let at = e.manifest_offset().unwrap_or(0) as usize;
        let e = Error::new(ErrorKind::DuplicateKey).or_at(at);
        match self.positions().find(|p| p.name_start as usize == at) {
            Some(p) => {
                let n = &self.ctx.buf[p.name_start as usize..(p.name_start + p.name_len) as usize];
                e.in_object(core::str::from_utf8(n).unwrap_or(""))
            }
            None => e,
        }
    }

    /// Slow path of the overlap rule without `alloc`: collect the spans again.
    #[cfg(not(feature = "alloc"))]
    fn check_overlaps(&self, scratch: &mut Scratch<'_>) -> Result<()> {
        scratch.truncate(0);
        for o in self.objects() {
            for c in o.components() {
                if c.length() > 0 {
                    scratch.push([c.offset(), c.offset() + c.length()])?;
                }
            }
        }
        let spans = scratch.segment(0);
        spans.sort_unstable_by_key(|s| s[0]);
        first_overlap(spans).map_or(Ok(()), |s| Err(self.locate_span(s)))
    }

    fn locate_span(&self, (offset, length): (u64, u64)) -> Error {
        let e = Error::new(ErrorKind::Overlap { offset, length });
        for o in self.objects() {
            for c in o.components() {
                if c.offset() == offset && c.length() == length {
                    return e.in_object(o.name()).in_component(c.role());
                }
            }
        }
        e
    }
}

impl core::fmt::Debug for File<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("File")
            .field("version", &self.ctx.version)
            .field("objects", &self.count)
            .field("manifest_len", &self.tail.manifest_len)
            .field("file_len", &self.tail.file_len)
            .finish()
    }
}

fn manifest_slice<'a>(bytes: &'a [u8], tail: &Tail) -> &'a [u8] {
    &bytes[tail.manifest_offset as usize..(tail.manifest_offset + tail.manifest_len) as usize]
}

fn decode_at<'a>(ctx: Ctx<'a>, r: &mut Reader<'a>, index: usize) -> Option<Object<'a>> {
    // Validated at open: decoding cannot fail here.
    if ctx.version.major == 0 {
        decode_object_v0(ctx, r, index, None).ok()
    } else {
        let name = r.text("object name").ok()?;
        decode_object_v1(ctx, r, name, index, None).ok().flatten()
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

impl<'a> Iterator for Objects<'a> {
    type Item = Object<'a>;

    fn next(&mut self) -> Option<Object<'a>> {
        if !self.r.more(&mut self.len).ok()? {
            return None;
        }
        let o = decode_at(self.ctx, &mut self.r, self.index)?;
        self.index += 1;
        Some(o)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.count - self.index;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Objects<'_> {}
