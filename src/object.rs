//! Borrowing views of a validated manifest: objects, shapes, components.

use crate::cbor::{Len, Reader};
use crate::error::{Error, ErrorKind, Result};
use crate::manifest::Ctx;
use crate::manifest::schema::Role;
use crate::types::{DType, Encoding, Endian, Format, LogicalType};
use crate::value::Map;

/// One named object (tensor) of a file.
#[derive(Clone, Copy)]
pub struct Object<'a> {
    pub(crate) ctx: Ctx<'a>,
    pub(crate) index: usize,
    pub(crate) name: &'a str,
    pub(crate) shape: Shape<'a>,
    pub(crate) format: Format<'a>,
    pub(crate) attributes: Map<'a>,
    pub(crate) fields: Map<'a>,
    pub(crate) comps: Comps,
}

/// Where an object's components are.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Comps {
    /// A v1.x `components` map: entries start at `pos`.
    Map { pos: usize, len: Len },
    /// A v0.1 tensor: its one `data` component, decoded from the tensor map
    /// at `pos` when asked for (a `Component` here would double the size of
    /// every `Object`: stack in firmware).
    Single { pos: usize },
    /// A v2 `parts` map: entries start at `pos`.
    Parts { pos: usize, left: u64 },
}

impl<'a> Object<'a> {
    /// Position in manifest order.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The object's name.
    pub fn name(&self) -> &'a str {
        self.name
    }

    /// Logical dimensions.
    pub fn shape(&self) -> Shape<'a> {
        self.shape
    }

    /// Layout of the components.
    pub fn format(&self) -> Format<'a> {
        self.format
    }

    /// Per-object attributes (empty when absent). For v0.1 files: the custom
    /// fields of the tensor's map.
    pub fn attributes(&self) -> Map<'a> {
        self.attributes
    }

    /// Every field of the object's map, known or not (for v0.1: the tensor map).
    pub fn fields(&self) -> Map<'a> {
        self.fields
    }

    /// Number of components.
    pub fn component_count(&self) -> usize {
        match self.comps {
            Comps::Map { len: Some(n), .. } => n as usize,
            Comps::Parts { left, .. } => left as usize,
            _ => self.components().count(),
        }
    }

    /// The component with this role.
    pub fn component(&self, role: &str) -> Option<Component<'a>> {
        self.components().find(|c| c.role == role)
    }

    /// The component with this role, or a [`ErrorKind::NotFound`] error naming object and role.
    pub fn require(&self, role: &str) -> Result<Component<'a>> {
        self.component(role)
            .ok_or_else(|| Error::new(ErrorKind::NotFound).in_object(self.name).in_component(role))
    }

    /// The `data` component of a dense object.
    pub fn data(&self) -> Result<Component<'a>> {
        self.require(Role::Data.name())
    }
}

// Debug shows the metadata only: never the file's bytes (which a view borrows).
impl core::fmt::Debug for Object<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Object")
            .field("index", &self.index)
            .field("name", &self.name)
            .field("shape", &self.shape)
            .field("format", &self.format)
            .field("components", &self.component_count())
            .finish()
    }
}

impl core::fmt::Debug for Component<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Component")
            .field("role", &self.role)
            .field("dtype", &self.dtype)
            .field("logical_type", &self.logical)
            .field("encoding", &self.encoding)
            .field("offset", &self.offset)
            .field("length", &self.length)
            .field("uncompressed_length", &self.uncompressed_length)
            .field("digest", &self.digest)
            .field("endian", &self.endian)
            .finish()
    }
}

/// The dimensions of an object.
#[derive(Clone, Copy)]
pub struct Shape<'a> {
    pub(crate) buf: &'a [u8],
    pub(crate) pos: usize,
    pub(crate) len: Len,
    pub(crate) ndim: usize,
    pub(crate) numel: u64,
}

impl<'a> Shape<'a> {
    /// Number of dimensions (0 for a scalar).
    pub fn ndim(&self) -> usize {
        self.ndim
    }

    /// Product of the dimensions (1 for a scalar); cannot overflow, it was checked at open.
    pub fn numel(&self) -> u64 {
        self.numel
    }

    /// The dimensions in order.
    pub fn dims(&self) -> impl Iterator<Item = u64> + 'a {
        let mut r = Reader::at(self.buf, self.pos);
        let mut len = self.len;
        core::iter::from_fn(move || {
            if !r.more(&mut len).ok()? {
                return None;
            }
            r.uint("shape").ok()
        })
    }

    /// Dimension `i`.
    pub fn dim(&self, i: usize) -> Option<u64> {
        self.dims().nth(i)
    }

    /// Copy the dimensions into `out`, returning how many there are; `None`
    /// when `out` is too short.
    pub fn copy_to(&self, out: &mut [u64]) -> Option<usize> {
        if out.len() < self.ndim {
            return None;
        }
        for (o, d) in out.iter_mut().zip(self.dims()) {
            *o = d;
        }
        Some(self.ndim)
    }

    /// The dimensions as a `Vec`.
    #[cfg(feature = "alloc")]
    pub fn to_vec(&self) -> alloc::vec::Vec<u64> {
        self.dims().collect()
    }
}

impl core::fmt::Debug for Shape<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.dims()).finish()
    }
}

/// One blob of an object: where it is and how to read it.
#[derive(Clone, Copy)]
pub struct Component<'a> {
    pub(crate) data: Option<&'a [u8]>,
    pub(crate) role: &'a str,
    pub(crate) dtype: DType,
    pub(crate) logical: Option<LogicalType<'a>>,
    pub(crate) encoding: Encoding,
    pub(crate) offset: u64,
    pub(crate) length: u64,
    pub(crate) uncompressed_length: Option<u64>,
    /// Decoded size implied by shape and type (dense `data`), when known.
    pub(crate) implied_len: Option<u64>,
    pub(crate) digest: Option<&'a str>,
    pub(crate) endian: Endian,
    pub(crate) fields: Map<'a>,
    /// What a v2 part adds (`None` for v1.x and v0.1); left out with the v2
    /// reader (without `v2`: 40 bytes less per component on 32-bit
    /// targets). Read through [`Component::v2_ref`].
    #[cfg(feature = "v2")]
    pub(crate) v2: Option<V2Ref<'a>>,
    /// Whether whole reads check the digest ([`Component::unverified`] clears it).
    pub(crate) verify_reads: bool,
}

/// The fields of a v2 part the views need beyond a v1.x component's.
#[derive(Clone, Copy, Debug)]
pub(crate) struct V2Ref<'a> {
    pub shard: Option<&'a str>,
    pub encoding: Option<&'a str>,
    /// Manifest position of the part's map.
    pub pos: usize,
    /// Elements the part's logical type counts, where its layout says (see
    /// `v2::verify::elements`); looked up for `f4_e2m1` parts only, whose
    /// final-nibble rule needs it.
    pub elements: Option<u64>,
}

impl<'a> Component<'a> {
    /// Role name (`"data"`, `"values"`, ...).
    pub fn role(&self) -> &'a str {
        self.role
    }

    /// Storage type (v1.2 naming, whatever the file's version).
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// Logical type, when it differs from the dtype.
    pub fn logical_type(&self) -> Option<LogicalType<'a>> {
        self.logical
    }

    /// How the bytes are stored.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Absolute file offset of the stored bytes (a multiple of 64).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Stored length in bytes (compressed size for zstd).
    pub fn length(&self) -> u64 {
        self.length
    }

    /// Declared decoded length (zstd), if any.
    pub fn uncompressed_length(&self) -> Option<u64> {
        self.uncompressed_length
    }

    /// Length once decoded: `length` for raw; for zstd `uncompressed_length`
    /// or, where a file omits it (v1.1, v0.1), the size shape and type imply
    /// for a dense object's `data`.
    pub fn decoded_len(&self) -> Option<u64> {
        match self.encoding {
            Encoding::Raw => Some(self.length),
            Encoding::Zstd => self.uncompressed_length.or(self.implied_len),
            Encoding::ZstdSeekable | Encoding::Unknown => self.uncompressed_length,
        }
    }

    /// Number of stored elements once decoded, when known.
    pub fn element_count(&self) -> Option<u64> {
        Some(crate::types::div_pow2(self.decoded_len()?, self.dtype.width()))
    }

    /// Digest string (`"sha256:..."`, `"crc32c:0x..."`, v2's `"xxh3:..."`), if
    /// any: over the stored bytes in v1.x, over the decoded bytes in v2
    /// (see [`Component::digest_covers_decoded`]).
    pub fn digest(&self) -> Option<&'a str> {
        self.digest
    }

    /// Whether [`Component::digest`] covers the decoded bytes (v2) rather
    /// than the stored ones (v1.x).
    pub fn digest_covers_decoded(&self) -> bool {
        self.v2_ref().is_some()
    }

    /// The encoding's identifier as the file writes it: `"raw"`, `"zstd"`,
    /// or a v2 profile id (`"zt.zstd-seekable/1"`, or one this library does not know).
    pub fn encoding_id(&self) -> &'a str {
        match self.v2_ref().and_then(|v| v.encoding) {
            Some(id) => id,
            None => self.encoding.name(),
        }
    }

    /// v2: the shard holding this part's blob (`None`: the file itself).
    pub fn shard(&self) -> Option<&'a str> {
        self.v2_ref().and_then(|v| v.shard)
    }

    /// Whether this library can decode the component: a known encoding and,
    /// in v2, a registered (or no) logical type.
    pub fn is_decodable(&self) -> bool {
        self.encoding != Encoding::Unknown
            && !(self.v2_ref().is_some() && matches!(self.logical, Some(LogicalType::Other(_))))
    }

    /// Byte order of the elements (big only for some v0.1 files).
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// Every field of the component's map, known or not (empty for v0.1).
    pub fn fields(&self) -> Map<'a> {
        self.fields
    }

    /// Whether this v2 part's bytes are in a data shard, another file than
    /// the one whose bytes this view holds.
    pub(crate) fn in_data_shard(&self) -> bool {
        self.shard().is_some() && self.data.is_none()
    }

    /// The stored bytes, zero-copy. Fails with [`ErrorKind::NoData`] when
    /// only the manifest was parsed, and with [`ErrorKind::Unsupported`]
    /// for a v2 part in a data shard (read it through a reader opened by
    /// path, which finds the shard beside the file).
    pub fn stored_bytes(&self) -> Result<&'a [u8]> {
        if self.in_data_shard() {
            return Err(self.error(ErrorKind::Unsupported {
                what: "the part is in a data shard, another file: open the file by its path to read it",
            }));
        }
        let data = self.data.ok_or_else(|| self.error(ErrorKind::NoData))?;
        // Bounds were validated at open.
        data.get(self.offset as usize..(self.offset + self.length) as usize)
            .ok_or_else(|| self.error(ErrorKind::OutOfBounds { offset: self.offset, length: self.length, limit: data.len() as u64 }))
    }

    /// This component, reading its stored bytes from `stored` (fetched by
    /// a positional read) instead of the file.
    pub(crate) fn with_stored<'b>(&self, stored: &'b [u8]) -> Component<'b>
    where
        'a: 'b,
    {
        let mut c: Component<'b> = *self;
        c.data = Some(stored);
        c.offset = 0;
        c
    }

    /// A raw little-endian `u8` component with no size or digest: the
    /// defaults a decoder fills in.
    pub(crate) fn blank(data: Option<&'a [u8]>, role: &'a str, fields: Map<'a>) -> Component<'a> {
        Component {
            data,
            role,
            dtype: DType::U8,
            logical: None,
            encoding: Encoding::Raw,
            offset: 0,
            length: 0,
            uncompressed_length: None,
            implied_len: None,
            digest: None,
            endian: Endian::Little,
            fields,
            #[cfg(feature = "v2")]
            v2: None,
            verify_reads: true,
        }
    }

    /// What a v2 part adds (`None` for v1.x and v0.1, and always without the v2 reader).
    #[inline(always)]
    pub(crate) fn v2_ref(&self) -> Option<V2Ref<'a>> {
        #[cfg(feature = "v2")]
        return self.v2;
        #[cfg(not(feature = "v2"))]
        return None;
    }

    /// A raw `u8` component over bytes `offset..offset + length` of `data`:
    /// a byte range to read, for readers that take components.
    #[cfg(feature = "std")]
    pub(crate) fn span(data: Option<&'a [u8]>, offset: u64, length: u64) -> Component<'a> {
        Component { offset, length, ..Component::blank(data, "", Map::empty()) }
    }

    pub(crate) fn error(&self, kind: ErrorKind) -> Error {
        Error::new(kind).in_component(self.role)
    }
}
