//! [`File`]: a validated zTensor file (or just its manifest), and its objects.

use crate::cbor::{Len, Reader};
use crate::container::{Layout, Tail};
use crate::error::{Error, ErrorKind, Result};
use crate::index::ObjPos;
use crate::manifest::pass::validate;
use crate::manifest::view::{self, Objects};
use crate::manifest::Ctx;
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
    /// The v2 manifest, for a v2 file. Without the v2 reader
    /// (without `v2`: no v2 file opens) `File` keeps no room for
    /// one: 88 bytes less on 32-bit targets, in every frame holding a `File`.
    #[cfg(feature = "v2")]
    v2: Option<crate::v2::Manifest<'a>>,
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
        let parsed = if tail.layout == Layout::V2 {
            if !crate::container::READS_V2 {
                return Err(Error::new(ErrorKind::UnsupportedVersion { major: 2 }));
            }
            Self::parse_v2(bytes)
        } else {
            Self::parse_parts(manifest_slice(bytes, &tail), tail, Some(bytes), default_scratch!())
        };
        parsed.map_err(|e| e.in_layout(tail.layout))
    }

    /// [`File::parse`] with caller-provided scratch: never allocates.
    pub fn parse_with_scratch(bytes: &'a [u8], scratch: &mut [Entry]) -> Result<Self> {
        let tail = Tail::from_file(bytes)?;
        Self::parse_with_scratch_at(bytes, scratch, tail).map_err(|e| e.in_layout(tail.layout))
    }

    fn parse_with_scratch_at(bytes: &'a [u8], scratch: &mut [Entry], tail: Tail) -> Result<Self> {
        if tail.layout == Layout::V2 {
            if !crate::container::READS_V2 {
                return Err(Error::new(ErrorKind::UnsupportedVersion { major: 2 }));
            }
            let sizes = crate::v2::errors::Sizes::of_footer(&bytes[bytes.len() - 40..], bytes.len() as u64);
            let m = crate::v2::Manifest::parse_with(bytes, scratch)
                .map_err(|e| crate::v2::errors::to_crate_in(e, sizes, crate::v2::container::manifest_of(bytes)))?;
            return Ok(Self::from_v2(m, Some(bytes), crate::v2::wire::names(&m)));
        }
        Self::parse_parts(manifest_slice(bytes, &tail), tail, Some(bytes), Scratch::new(scratch))
    }

    /// Validate from the tail alone: the file's last 16 bytes, the manifest
    /// bytes they point to, and the file length. Tensor bytes are never
    /// touched; data accessors answer [`ErrorKind::NoData`].
    ///
    /// Read `footer` first, ask [`Tail::from_footer`] where the manifest is,
    /// then read that range.
    ///
    /// A v2 file needs its last 40 bytes ([`MAX_FOOTER_LEN`](crate::container::MAX_FOOTER_LEN)):
    /// pass that many whenever the version is not known.
    pub fn parse_tail(footer: &[u8], manifest: &'a [u8], file_len: u64) -> Result<Self> {
        let tail = Tail::from_footer(footer, file_len)?;
        let parsed = if tail.layout == Layout::V2 {
            if !crate::container::READS_V2 {
                return Err(Error::new(ErrorKind::UnsupportedVersion { major: 2 }));
            }
            Self::parse_v2_tail(footer, manifest, file_len)
        } else {
            Self::parse_parts(manifest, tail, None, default_scratch!())
        };
        parsed.map_err(|e| e.in_layout(tail.layout))
    }

    /// Validate a manifest located by `tail`. `data`, when given, is the
    /// whole file (needed to read component bytes).
    ///
    /// A v2 manifest is checked against its footer's hash: for v2, give the
    /// whole file as `data` (or use [`File::parse_tail`]).
    pub fn parse_manifest(manifest: &'a [u8], tail: Tail, data: Option<&'a [u8]>) -> Result<Self> {
        Self::parse_manifest_at(manifest, tail, data).map_err(|e| e.in_layout(tail.layout))
    }

    fn parse_manifest_at(manifest: &'a [u8], tail: Tail, data: Option<&'a [u8]>) -> Result<Self> {
        if tail.layout == Layout::V2 {
            if !crate::container::READS_V2 {
                return Err(Error::new(ErrorKind::UnsupportedVersion { major: 2 }));
            }
            let Some(d) = data else {
                return Err(Error::new(ErrorKind::Unsupported { what: "a v2 manifest without its footer: use File::parse_tail" }));
            };
            return Self::parse_v2(d);
        }
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
        let root = validate(manifest, &tail, data, scratch)?;
        Ok(File {
            ctx: root.ctx,
            tail,
            attributes: root.attributes,
            fields: root.fields,
            objects: root.objects,
            count: root.count,
            #[cfg(feature = "alloc")]
            index: root.index,
            #[cfg(feature = "v2")]
            v2: None,
        })
    }

    /// Open a whole v2 file (slots from the heap with `alloc`, else
    /// twice [`DEFAULT_ENTRIES`](crate::scratch::DEFAULT_ENTRIES) on the
    /// stack: two per blob).
    fn parse_v2(bytes: &'a [u8]) -> Result<Self> {
        use crate::v2::errors::{to_crate_in, Sizes};
        let sizes = Sizes::of_footer(&bytes[bytes.len().saturating_sub(40)..], bytes.len() as u64);
        #[cfg(feature = "alloc")]
        let m = crate::v2::Manifest::parse_indexed(bytes);
        #[cfg(not(feature = "alloc"))]
        let m = crate::v2::Manifest::parse_with(bytes, &mut [[0; 2]; 2 * crate::scratch::DEFAULT_ENTRIES]).map(|m| (m, ()));
        let (m, names) = m.map_err(|e| to_crate_in(e, sizes, crate::v2::container::manifest_of(bytes)))?;
        Ok(Self::from_v2(m, Some(bytes), names))
    }

    /// Open a v2 file from its last 40 bytes and its manifest.
    fn parse_v2_tail(footer: &[u8], manifest: &'a [u8], file_len: u64) -> Result<Self> {
        use crate::v2::errors::{to_crate_in, Sizes};
        let sizes = Sizes::of_footer(footer, file_len);
        #[cfg(feature = "alloc")]
        let m = crate::v2::Manifest::parse_tail_indexed(footer, manifest, file_len);
        #[cfg(not(feature = "alloc"))]
        let m = crate::v2::Manifest::parse_tail_with(
            footer,
            manifest,
            file_len,
            &mut [[0; 2]; 2 * crate::scratch::DEFAULT_ENTRIES],
        )
        .map(|m| (m, ()));
        let (m, names) = m.map_err(|e| match e.kind {
            crate::v2::Kind::ManifestLengthMismatch => Error::new(ErrorKind::ManifestLengthMismatch {
                expected: sizes.manifest_len,
                actual: manifest.len() as u64,
            }),
            _ => to_crate_in(e, sizes, manifest),
        })?;
        Ok(Self::from_v2(m, None, names))
    }

    /// The views over a validated v2 manifest and its objects' positions.
    #[cfg_attr(not(feature = "alloc"), allow(unused_variables))]
    fn from_v2(m: crate::v2::Manifest<'a>, data: Option<&'a [u8]>, names: crate::v2::wire::Names) -> Self {
        let buf = m.bytes();
        let f = m.footer();
        let ctx = Ctx { buf, data, version: Version::V2 };
        let count = m.len();
        let objects = (m.objects_pos(), Some(count));
        File {
            ctx,
            tail: Tail { layout: Layout::V2, file_len: f.file_len, manifest_offset: f.manifest_offset, manifest_len: f.manifest_length },
            attributes: m.attributes().map_or(Map::empty(), |a| crate::v2::wire::map_at(buf, a.pos)),
            fields: crate::v2::wire::map_at(buf, 0),
            objects,
            count,
            #[cfg(feature = "alloc")]
            index: crate::index::Index::key_ordered(names),
            #[cfg(feature = "v2")]
            v2: Some(m),
        }
    }

    /// The v2 manifest, for a v2 file (`None` for v1.x and v0.1): the v2
    /// reader's own view of it ([`crate::v2`]), with its shard table.
    pub fn v2(&self) -> Option<&crate::v2::Manifest<'a>> {
        #[cfg(not(feature = "v2"))]
        return None;
        #[cfg(feature = "v2")]
        self.v2.as_ref()
    }

    /// The content digest of §6.4 (v2), `sha256:` of the content value,
    /// computed from the manifest alone. `None` for v1.x and v0.1 files and
    /// for v2 files with a part without digest (the digest is not defined).
    pub fn content_digest(&self) -> Option<[u8; 32]> {
        self.v2()?.content_digest_sha256()
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
        view::objects(self.ctx, self.objects, self.count)
    }

    /// Object names in manifest order, without decoding the objects
    /// (with `alloc`, straight from the index built at open).
    pub fn names(&self) -> impl Iterator<Item = &'a str> + '_ {
        let buf = self.ctx.buf;
        #[cfg(feature = "alloc")]
        let it = (0..self.count).filter_map(move |i| Some(self.index.position(i)?.name(buf)));
        #[cfg(not(feature = "alloc"))]
        let it = {
            let (v0, mut r, mut len) = (self.ctx.v0(), Reader::at(buf, self.objects.0), self.objects.1);
            let ctx = self.ctx;
            core::iter::from_fn(move || {
                if !r.more(&mut len).ok()? {
                    return None;
                }
                if v0 {
                    return view::object_v0(ctx, &mut r, 0).ok().map(|o| o.name());
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
        view::object_at(self.ctx, &mut r, index)
    }

    /// The context and objects container, for tests of the skim (std).
    #[cfg(all(test, feature = "std"))]
    pub(crate) fn objects_container(&self) -> (Ctx<'a>, (usize, Len)) {
        (self.ctx, self.objects)
    }

    /// Positions of every object, for building a name index.
    pub(crate) fn positions(&self) -> impl Iterator<Item = ObjPos> + 'a {
        view::positions(self.ctx, self.objects, self.count)
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

/// One slot of a [`NameIndex`].
pub type Slot = [u32; 4];

/// Name lookup in O(log n) over caller-provided storage: for builds
/// without `alloc` (with `alloc`, [`File::get`] is already indexed).
///
/// ```
/// # fn main() -> Result<(), ztensor::Error> {
/// # let bytes = ztensor::doc_example_file();
/// let file = ztensor::File::parse(&bytes)?;
/// let mut slots = [[0u32; 4]; 16];
/// let index = ztensor::NameIndex::build(&file, &mut slots)?;
/// assert_eq!(index.get("bias").unwrap().name(), "bias");
/// # Ok(()) }
/// ```
pub struct NameIndex<'f, 'a, 's> {
    file: &'f File<'a>,
    slots: &'s [Slot],
}

impl<'f, 'a, 's> NameIndex<'f, 'a, 's> {
    /// Index every object of `file`; `slots` needs one entry per object.
    pub fn build(file: &'f File<'a>, slots: &'s mut [Slot]) -> Result<Self> {
        if slots.len() < file.len() {
            return Err(Error::new(ErrorKind::ScratchTooSmall { needed: file.len() as u64 }));
        }
        let slots = &mut slots[..file.len()];
        for (i, (p, s)) in file.positions().zip(slots.iter_mut()).enumerate() {
            *s = [p.body, p.name_start, p.name_len, i as u32];
        }
        let buf = file.manifest_bytes();
        let key = |s: &Slot| &buf[s[1] as usize..(s[1] + s[2]) as usize];
        #[cfg(feature = "alloc")]
        slots.sort_unstable_by(|a, b| key(a).cmp(key(b)));
        #[cfg(not(feature = "alloc"))]
        crate::heapsort::sort_by(slots, |a, b| key(a).cmp(key(b)));
        Ok(NameIndex { file, slots })
    }

    /// The object at position `i` in manifest order: a scan of the slots
    /// (no decoding but this object's), where [`File::object`] without
    /// `alloc` decodes the `i` objects before it.
    pub fn object(&self, i: usize) -> Option<Object<'a>> {
        let s = self.slots.iter().find(|s| s[3] as usize == i)?;
        self.file.object_at(ObjPos { body: s[0], name_start: s[1], name_len: s[2] }, i)
    }

    /// The object called `name`.
    pub fn get(&self, name: &str) -> Option<Object<'a>> {
        let buf = self.file.manifest_bytes();
        let key = |s: &Slot| &buf[s[1] as usize..(s[1] + s[2]) as usize];
        let i = self.slots.binary_search_by(|s| key(s).cmp(name.as_bytes())).ok()?;
        let s = self.slots[i];
        self.file.object_at(ObjPos { body: s[0], name_start: s[1], name_len: s[2] }, s[3] as usize)
    }
}
