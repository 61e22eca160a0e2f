//! One allocation-free error type: what is wrong and where.

use core::fmt;

/// What went wrong. Every variant is plain data: no allocation, `Copy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[allow(missing_docs)] // fields are named for what they hold
pub enum ErrorKind {
    // --- container ---
    /// The file is shorter than the smallest valid file of its version.
    FileTooSmall { len: u64 },
    /// Header or footer magic is not `ZTEN1000` (or `ZTEN0001` for v0.1).
    BadMagic,
    /// Header and footer disagree on the format version.
    MagicMismatch,
    /// The manifest size in the footer exceeds the 1 GiB limit.
    ManifestTooLarge { size: u64 },
    /// The manifest does not fit between the header and the footer.
    ManifestOutOfBounds { size: u64, file_len: u64 },
    /// The manifest bytes handed in do not have the length the footer announces.
    ManifestLengthMismatch { expected: u64, actual: u64 },

    // --- CBOR well-formedness ---
    /// The CBOR ends in the middle of an item.
    CborEof,
    /// A reserved or invalid CBOR initial byte / additional information.
    CborInvalid,
    /// An indefinite-length item is malformed (bad chunk, stray or missing break).
    CborBadIndefinite,
    /// A text string is not valid UTF-8.
    CborInvalidUtf8,
    /// Bytes follow the manifest's root item.
    TrailingBytes { count: u64 },
    /// Nesting deeper than [`crate::MAX_DEPTH`].
    TooDeep,
    /// A CBOR length claims more items or bytes than remain in the manifest.
    LengthTooLarge { claimed: u64 },
    /// The same key appears twice in one map.
    DuplicateKey,
    /// A text string that the format interprets (a name, a dtype, ...) uses
    /// indefinite-length chunks; only attribute values may.
    IndefiniteText,

    // --- manifest schema ---
    /// A required field is absent.
    MissingField { field: &'static str },
    /// A field has the wrong CBOR type.
    WrongType { field: &'static str, expected: &'static str },
    /// `version` is not `MAJOR.MINOR[.PATCH]`.
    BadVersion,
    /// The manifest's major version is not 1.
    UnsupportedVersion { major: u64 },
    /// An object or attribute name is empty.
    EmptyName,
    /// `dtype` is not one of the storage types.
    UnknownDType,
    /// `encoding` is neither `raw` nor `zstd`.
    UnknownEncoding,
    /// v0.1 `data_endianness` is neither `little` nor `big`.
    BadEndianness,
    /// A component offset is not a multiple of 64.
    Misaligned { offset: u64 },
    /// A component does not lie between the header and the manifest.
    OutOfBounds { offset: u64, length: u64, limit: u64 },
    /// Two components share part, but not all, of a byte range.
    Overlap { offset: u64, length: u64 },
    /// The product of the shape (times the element width) overflows `u64`.
    ShapeOverflow,
    /// A size does not match what shape and type require.
    LengthMismatch { expected: u64, actual: u64 },
    /// A size is not a whole number of elements.
    PartialElement { length: u64, width: u64 },
    /// A `zstd` component of a v1.2 file lacks `uncompressed_length`.
    MissingUncompressedLength,
    /// A component required by the object's format is absent.
    MissingComponent { role: &'static str },
    /// An index component does not have an allowed integer dtype.
    IndexDType,
    /// The shape does not suit the format (e.g. CSR needs two dimensions).
    BadShape,
    /// Element counts of components disagree (e.g. values vs indices).
    CountMismatch { expected: u64, actual: u64 },
    /// The validation scratch is too small for this manifest (no-`alloc` builds).
    ScratchTooSmall { needed: u64 },

    // --- data ---
    /// No object with that name / index, or no component with that role.
    NotFound,
    /// The operation needs the file's data bytes, but only the manifest was parsed.
    NoData,
    /// A caller buffer is too small; `needed` bytes are required.
    BufferTooSmall { needed: u64 },
    /// A caller buffer that must be exactly `needed` bytes (a load's destination) holds `given`.
    BufferSize { needed: u64, given: u64 },
    /// A byte range `start..start + length` reaches past the `size` decoded bytes of a component.
    RangeOutOfBounds { start: u64, length: u64, size: u64 },
    /// A zero-copy view is not possible: the reason says why.
    NotZeroCopy { reason: &'static str },
    /// The requested element type does not match the component's dtype.
    TypeMismatch,
    /// zstd data is corrupt or truncated.
    Decompress,
    /// A zstd frame decoded, but its content checksum does not match.
    ZstdChecksum,
    /// Decoded data exceeds the declared or configured size.
    DecodedTooLarge { limit: u64 },
    /// A digest string is malformed.
    BadDigest,
    /// A digest does not match the stored bytes.
    DigestMismatch,
    /// A digest names an algorithm this library does not know, so it could
    /// not be checked (a problem unless verification allows unverifiable digests).
    UnverifiableDigest,
    /// Data violates the format (bad CSR/COO indices, bool bytes, ...).
    BadData { what: &'static str },
    /// An I/O error (std builds); see the message of the error that caused it.
    Io,
    /// The operation is not supported for this component (e.g. an encoding this build cannot decode).
    Unsupported { what: &'static str },

    // --- format v2 (rules v1.x does not have) ---
    /// v2: the manifest's XXH3-64 is not the footer's `manifest_hash`.
    ManifestHashMismatch,
    /// v2: a data-shard footer (manifest length 0) with a non-zero offset or hash.
    BadDataShardFooter,
    /// v2: the manifest's CBOR is well formed but not deterministic (§3.1).
    NotDeterministic { what: &'static str },
    /// v2: a name or attribute key is empty, over 1024 bytes, or holds U+0000.
    BadName,
    /// v2: an object with an empty `parts` map.
    EmptyParts,
    /// v2: a shape of rank over 64.
    RankTooLarge,
    /// v2: a blob offset not a multiple of 4096.
    BlobMisaligned,
    /// v2: a blob offset below 4096.
    BlobBelowFloor,
    /// v2: a blob past its file's data region.
    BlobOutOfBounds,
    /// v2: two blob references of one file partially overlap.
    BlobOverlap,
    /// v2: `encoding` without `decoded_length`, or the other way round.
    EncodingLengthPair,
    /// v2: a registered logical type on a storage type it does not allow.
    LogicalTypeDtype,
    /// v2: a layout's parts are not the ones it requires.
    LayoutParts { layout: &'static str },
    /// v2: a part of a layout has a dtype or logical type the layout forbids.
    LayoutPartType,
    /// v2: a layout attribute is missing, of the wrong type or out of range.
    LayoutAttribute { key: &'static str },
    /// v2: a part's decoded size breaks its layout's size equation.
    SizeMismatch,
    /// v2: decoded bytes are not `decoded_length` long.
    DecodedLength,
    /// v2: a `zt.zstd-seekable/1` stream breaks its profile.
    Seekable { what: &'static str },
    /// v2: a part names a shard the table does not declare.
    UnknownShard,
    /// v2: a shard name outside `[A-Za-z0-9._-]{1,64}`, or starting with `.`.
    BadShardName,
    /// v2: a shard `size` below 48 bytes.
    BadShardSize,
    /// v2: a shard file whose size or digest is not the table's, or that is not a v2 file.
    ShardMismatch,
    /// v2: a shard named by the table cannot be found.
    ShardMissing,
}

/// Whether errors keep the names they concern (object, component role,
/// offending value): yes with the `error-names` feature (in `default`,
/// implied by `std`). Without it, every `Result` on the stack carries a
/// smaller `Error` (names cost stack and flash), and [`Error::object`],
/// [`Error::role`] and [`Error::value`] answer `None`.
const KEEP_NAMES: bool = cfg!(feature = "error-names");

/// Longest name fragment kept inline in an [`Error`]: 48 bytes, 16
/// without `alloc` (firmware), 0 without `error-names`.
pub const NAME_CAP: usize = if !KEEP_NAMES {
    0
} else if cfg!(feature = "alloc") {
    48
} else {
    16
};

/// [`Error`]'s stored manifest offset when there is none (offsets are
/// below the 1 GiB manifest limit, so a `u32` holds every real one).
const NO_OFFSET: u32 = u32::MAX;

/// A manifest offset as stored (saturated below [`NO_OFFSET`]).
const fn stored_offset(offset: usize) -> u32 {
    if offset >= NO_OFFSET as usize {
        NO_OFFSET - 1
    } else {
        offset as u32
    }
}

/// A short inline copy of a name (object or role), truncated on a char boundary.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Name {
    buf: [u8; NAME_CAP],
    len: u8,
    truncated: bool,
}

impl Name {
    /// Copy (a prefix of) `s`.
    pub fn new(s: &str) -> Self {
        let mut end = s.len().min(NAME_CAP);
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        let mut buf = [0u8; NAME_CAP];
        buf[..end].copy_from_slice(&s.as_bytes()[..end]);
        Name { buf, len: end as u8, truncated: end < s.len() }
    }

    /// The kept text.
    pub fn as_str(&self) -> &str {
        // The bytes were copied from a `str` and cut on a char boundary.
        core::str::from_utf8(&self.buf[..self.len as usize]).unwrap_or("")
    }

    /// Whether the original name was longer than what is kept.
    pub fn is_truncated(&self) -> bool {
        self.truncated
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}{}", self.as_str(), if self.truncated { "…" } else { "" })
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.as_str(), if self.truncated { "…" } else { "" })
    }
}

/// The error of every fallible operation in this crate.
///
/// It says what is wrong ([`Error::kind`]) and where: the object, the
/// component role and the manifest byte offset, when known. `Display` gives
/// one line.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    /// Manifest byte, or [`NO_OFFSET`] (a `u32`: `Error` travels in every `Result`).
    offset: u32,
    object: Option<Name>,
    role: Option<Name>,
    detail: Detail,
    /// The file's generation, once its container told it (named in the message).
    layout: Option<crate::types::Layout>,
}

/// What an error adds to its kind's message.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Detail {
    None,
    /// The offending text (an unknown dtype, ...), quoted after the kind.
    Value(Name),
    /// The header magic names a generation, but the file is too short for
    /// that generation's footer or does not end with its footer magic.
    Truncated { layout: crate::types::Layout, len: u64, footer: u8 },
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;

impl Error {
    /// An error of `kind` with no location yet.
    pub const fn new(kind: ErrorKind) -> Self {
        Error { kind, offset: NO_OFFSET, object: None, role: None, detail: Detail::None, layout: None }
    }

    /// An error of `kind` at manifest byte `offset`.
    pub(crate) const fn at(kind: ErrorKind, offset: usize) -> Self {
        Error { kind, offset: stored_offset(offset), object: None, role: None, detail: Detail::None, layout: None }
    }

    /// A file of `len` bytes whose header magic names `layout` but which
    /// does not end with that layout's `footer`-byte footer: truncated (or
    /// corrupt). [`ErrorKind::FileTooSmall`] below `smallest`, the
    /// generation's smallest file, else [`ErrorKind::BadMagic`] (the footer
    /// magic is not there). The container layer knows the sizes
    /// (`container::truncated`).
    pub(crate) const fn truncated(layout: crate::types::Layout, len: u64, smallest: u64, footer: u8) -> Self {
        let kind = if len < smallest { ErrorKind::FileTooSmall { len } } else { ErrorKind::BadMagic };
        let mut e = Error::new(kind);
        e.detail = Detail::Truncated { layout, len, footer };
        e
    }

    /// Record the offending text (an unknown dtype or encoding name), named in the message.
    pub(crate) fn with_value(mut self, text: &str) -> Self {
        if KEEP_NAMES {
            self.detail = Detail::Value(Name::new(text));
        }
        self
    }

    /// The offending text the message quotes (an unknown dtype or encoding name), if any.
    pub fn value(&self) -> Option<&Name> {
        match &self.detail {
            Detail::Value(v) => Some(v),
            _ => None,
        }
    }

    /// What is wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Byte offset in the manifest where the problem was found, if known.
    pub fn manifest_offset(&self) -> Option<u64> {
        (self.offset != NO_OFFSET).then_some(self.offset as u64)
    }

    /// Name of the object concerned, if known (truncated to 48 bytes, 16 without `alloc`, at a character boundary;
    /// never kept without `error-names`).
    pub fn object(&self) -> Option<&Name> {
        self.object.as_ref()
    }

    /// Role of the component concerned, if known.
    pub fn role(&self) -> Option<&Name> {
        self.role.as_ref()
    }

    /// The generation of the file refused, when its container was read.
    pub fn layout(&self) -> Option<crate::types::Layout> {
        self.layout
    }

    /// Record the file's generation (`layout`) unless one is already set.
    pub(crate) fn in_layout(mut self, layout: crate::types::Layout) -> Self {
        self.layout.get_or_insert(layout);
        self
    }

    /// Attach the object name unless one is already set.
    pub fn in_object(mut self, name: &str) -> Self {
        if KEEP_NAMES && self.object.is_none() {
            self.object = Some(Name::new(name));
        }
        self
    }

    /// Attach the component role unless one is already set.
    pub fn in_component(mut self, role: &str) -> Self {
        if KEEP_NAMES && self.role.is_none() {
            self.role = Some(Name::new(role));
        }
        self
    }

    /// Attach the manifest offset unless one is already set.
    pub(crate) fn or_at(mut self, offset: usize) -> Self {
        if self.offset == NO_OFFSET {
            self.offset = stored_offset(offset);
        }
        self
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error::new(kind)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ErrorKind::*;
        match *self {
            FileTooSmall { len } => write!(f, "file too small to be a zTensor file ({len} bytes)"),
            BadMagic => f.write_str("bad magic: not a zTensor file (expected ZTEN1000, ZTEN0001 or the v2 magic)"),
            MagicMismatch => f.write_str("header and footer magic disagree"),
            ManifestTooLarge { size } => {
                write!(f, "manifest size {size} exceeds the 1 GiB limit")
            }
            ManifestOutOfBounds { size, file_len } => {
                write!(f, "manifest of {size} bytes does not fit in a file of {file_len} bytes")
            }
            ManifestLengthMismatch { expected, actual } => {
                write!(f, "manifest buffer is {actual} bytes, footer says {expected}")
            }
            CborEof => f.write_str("CBOR ends in the middle of an item"),
            CborInvalid => f.write_str("invalid CBOR initial byte"),
            CborBadIndefinite => f.write_str("malformed indefinite-length CBOR item"),
            CborInvalidUtf8 => f.write_str("CBOR text string is not valid UTF-8"),
            TrailingBytes { count } => write!(f, "{count} bytes after the manifest's root item"),
            TooDeep => write!(f, "CBOR nesting deeper than {}", crate::MAX_DEPTH),
            LengthTooLarge { claimed } => {
                write!(f, "CBOR length {claimed} exceeds the bytes that remain")
            }
            DuplicateKey => f.write_str("duplicate map key"),
            IndefiniteText => f.write_str("indefinite-length text where a plain string is required"),
            MissingField { field } => write!(f, "missing required field `{field}`"),
            WrongType { field, expected } => write!(f, "field `{field}` must be {expected}"),
            BadVersion => f.write_str("`version` is not of the form MAJOR.MINOR[.PATCH]"),
            UnsupportedVersion { major } => {
                write!(f, "unsupported format version {major}.x (this reader supports 2, 1.x and 0.1)")
            }
            EmptyName => f.write_str("empty name"),
            UnknownDType => f.write_str("unknown dtype"),
            UnknownEncoding => f.write_str("unknown encoding (expected raw or zstd)"),
            BadEndianness => f.write_str("data_endianness must be \"little\" or \"big\""),
            Misaligned { offset } => write!(f, "offset {offset} is not a multiple of 64"),
            OutOfBounds { offset, length, limit } => write!(
                f,
                "blob at offset {offset} of {length} bytes is outside the data region [8, {limit})"
            ),
            Overlap { offset, length } => write!(
                f,
                "blob at offset {offset} of {length} bytes partially overlaps another blob"
            ),
            ShapeOverflow => f.write_str("shape size overflows 64 bits"),
            LengthMismatch { expected, actual } => {
                write!(f, "length is {actual} bytes, shape and type require {expected}")
            }
            PartialElement { length, width } => {
                write!(f, "length {length} is not a multiple of the element width {width}")
            }
            MissingUncompressedLength => {
                f.write_str("zstd component without `uncompressed_length` (required in v1.2)")
            }
            MissingComponent { role } => write!(f, "missing required component `{role}`"),
            IndexDType => f.write_str("index component must have an integer dtype (u64 in v1.2)"),
            BadShape => f.write_str("shape does not suit the object's format"),
            CountMismatch { expected, actual } => {
                write!(f, "element count is {actual}, expected {expected}")
            }
            ScratchTooSmall { needed } => write!(
                f,
                "validation scratch too small: this manifest needs {needed} entries (use parse_with_scratch or the `alloc` feature)"
            ),
            NotFound => f.write_str("not found"),
            NoData => f.write_str("only the manifest was loaded; data bytes are not available"),
            BufferTooSmall { needed } => write!(f, "buffer too small: {needed} bytes needed"),
            BufferSize { needed, given } => write!(f, "buffer of {given} bytes for {needed} decoded bytes: they must be equal"),
            RangeOutOfBounds { start, length, size } => {
                write!(f, "byte range {start}+{length} reaches past the {size} decoded bytes")
            }
            NotZeroCopy { reason } => write!(f, "no zero-copy view: {reason}"),
            TypeMismatch => f.write_str("requested element type does not match the dtype"),
            Decompress => f.write_str("corrupt or truncated zstd data"),
            ZstdChecksum => f.write_str("zstd frame content checksum does not match"),
            DecodedTooLarge { limit } => write!(f, "decoded data exceeds the limit of {limit} bytes"),
            BadDigest => f.write_str("malformed digest (expected sha256:<hex> or crc32c:0x<hex>)"),
            // (Which bytes a digest covers depends on the generation: the value says, when it is known.)
            DigestMismatch => f.write_str("digest mismatch: the data is corrupt"),
            UnverifiableDigest => f.write_str("digest algorithm unknown to this reader: not verified"),
            BadData { what } => write!(f, "invalid data: {what}"),
            Io => f.write_str("I/O error"),
            Unsupported { what } => write!(f, "unsupported: {what}"),
            ManifestHashMismatch => f.write_str("manifest hash mismatch: the manifest is corrupt"),
            BadDataShardFooter => f.write_str("data-shard footer with a non-zero manifest offset or hash"),
            NotDeterministic { what } => write!(f, "manifest CBOR is not deterministic: {what}"),
            BadName => f.write_str("name is empty, over 1024 bytes, or contains U+0000"),
            EmptyParts => f.write_str("object has no parts"),
            RankTooLarge => f.write_str("shape rank exceeds 64"),
            BlobMisaligned => f.write_str("blob offset is not a multiple of 4096"),
            BlobBelowFloor => f.write_str("blob offset is below 4096"),
            BlobOutOfBounds => f.write_str("blob lies outside its file's data region"),
            BlobOverlap => f.write_str("blob partially overlaps another blob"),
            EncodingLengthPair => f.write_str("`encoding` and `decoded_length` must be both present or both absent"),
            LogicalTypeDtype => f.write_str("logical type is not allowed on this dtype"),
            LayoutParts { layout } => write!(f, "parts do not match layout {layout}"),
            LayoutPartType => f.write_str("part dtype or type not allowed by its layout"),
            LayoutAttribute { key } => write!(f, "layout attribute `{key}` missing, of the wrong type, or out of range"),
            SizeMismatch => f.write_str("part size breaks its layout's size equation"),
            DecodedLength => f.write_str("decoded bytes are not `decoded_length` long"),
            Seekable { what } => write!(f, "invalid zt.zstd-seekable/1 stream: {what}"),
            UnknownShard => f.write_str("part names a shard the shard table does not declare"),
            BadShardName => f.write_str("bad shard name (expected [A-Za-z0-9._-]{1,64}, not starting with '.')"),
            BadShardSize => f.write_str("shard size below 48 bytes"),
            ShardMismatch => f.write_str("shard file does not match the shard table (size, digest or format)"),
            ShardMissing => f.write_str("shard file not found"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.detail, self.kind) {
            (Detail::Truncated { layout, len, footer }, _) => {
                let (generation, magic) = match layout {
                    crate::types::Layout::V2 => ("v2", "v2 magic (\\x89ZT2)"),
                    _ => ("v1.x", "ZTEN1000 magic"),
                };
                write!(
                    f,
                    "truncated {generation} file: it starts with the {magic} but its {len} bytes do not end with the {footer}-byte footer and its magic (footer missing; truncated or corrupt)"
                )?
            }
            (Detail::Value(v), ErrorKind::UnknownDType) => write!(f, "unknown dtype {v:?}")?,
            (Detail::Value(v), ErrorKind::UnknownEncoding) => write!(f, "unknown encoding {v:?} (expected raw or zstd)")?,
            // "sha256 of the stored bytes", "xxh3 of the decoded bytes", "xxh3 of shard \"s\"".
            (Detail::Value(v), ErrorKind::DigestMismatch) => write!(f, "digest mismatch: the {} differs; the data is corrupt", v.as_str())?,
            (Detail::Value(v), kind) => write!(f, "{kind}: {v:?}")?,
            (Detail::None, kind) => fmt::Display::fmt(&kind, f)?,
        }
        let mut sep = " (";
        // A truncated file's text names its generation already.
        if let (Some(layout), false) = (self.layout, matches!(self.detail, Detail::Truncated { .. })) {
            let generation = match layout {
                crate::types::Layout::V0 => "v0.1",
                crate::types::Layout::V1 => "v1.x",
                crate::types::Layout::V2 => "v2",
            };
            write!(f, "{sep}{generation} file")?;
            sep = ", ";
        }
        if let Some(o) = &self.object {
            write!(f, "{sep}object {:?}{}", o.as_str(), if o.is_truncated() { "…" } else { "" })?;
            sep = ", ";
        }
        if let Some(r) = &self.role {
            write!(f, "{sep}component {:?}", r.as_str())?;
            sep = ", ";
        }
        if let Some(off) = self.manifest_offset() {
            write!(f, "{sep}manifest byte {off}")?;
            sep = ", ";
        }
        if sep == ", " {
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({:?}: {})", self.kind, self)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

#[cfg(test)]
mod tests;
