//! Errors of the v2 reader: one kind per rule, so a test can assert the
//! exact rule a hostile file breaks. (To be mapped onto the crate's
//! `ErrorKind` when the reader is wired into `File`.)

use super::errors::{to_crate, Sizes};
use core::fmt;

/// The rule a v2 file broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kind {
    // §2 container
    /// Shorter than 48 bytes (magic + footer).
    TooShort,
    /// The magic at offset 0 or at the end of the footer is wrong.
    BadMagic,
    /// The footer's `version` is not 2.
    UnsupportedVersion,
    /// `manifest_length` is over 1 GiB.
    ManifestTooLarge,
    /// The manifest range is outside `[4096, size − 40)` or not 4096-aligned.
    ManifestOutOfBounds,
    /// `manifest_length` is 0 but the offset or hash is not (a data shard has all three zero).
    BadDataShardFooter,
    /// The XXH3-64 of the manifest is not `manifest_hash`.
    ManifestHashMismatch,
    /// The bytes given are not the footer's manifest range.
    ManifestLengthMismatch,

    // §3.1 deterministic CBOR
    /// The manifest ends inside an item.
    CborTruncated,
    /// Reserved additional information, or a malformed item.
    CborInvalid,
    /// An integer or length not in its shortest head.
    CborNonShortest,
    /// An indefinite-length string, array or map (or a stray break).
    CborIndefinite,
    /// A tag (major type 6).
    CborTag,
    /// A simple value other than false, true or null (e.g. `undefined`).
    CborSimple,
    /// A float not in its narrowest exact width, or a NaN other than `f9 7e00`.
    CborNonCanonicalFloat,
    /// Map keys not in bytewise order of their encodings.
    CborUnsortedKeys,
    /// Two equal keys in one map.
    CborDuplicateKey,
    /// Bytes after the root item.
    CborTrailingBytes,
    /// Nesting deeper than 32 levels from the root.
    CborTooDeep,
    /// A text string that is not UTF-8.
    CborInvalidUtf8,

    // §3.2-§3.5 schema
    /// A field of the wrong CBOR type (the context names it).
    WrongType,
    /// A required field is missing (the context names it).
    MissingField,
    /// A name or attribute key is empty, over 1024 bytes, or holds U+0000.
    BadName,
    /// An object has an empty `parts` map.
    EmptyParts,
    /// A shape of rank over 64.
    RankTooLarge,
    /// The product of a shape overflows u64.
    ShapeOverflow,
    /// `dtype` is not one of the 12 storage types.
    UnknownDtype,
    /// `blob` is not an array of exactly two unsigned integers.
    BlobNotPair,
    /// A blob offset not a multiple of 4096.
    BlobMisaligned,
    /// A blob offset below 4096.
    BlobBelowFloor,
    /// A blob past its file's data region (`size − 40`).
    BlobOutOfBounds,
    /// Two blob references in one file partially overlap.
    BlobOverlap,
    /// `encoding` without `decoded_length`, or the other way round.
    EncodingLengthPair,
    /// A digest not `<algorithm>:<lowercase hex>` of the algorithm's length.
    BadDigest,
    /// A part names a shard the table does not declare (or there is no table).
    UnknownShard,
    /// A shard name outside `[A-Za-z0-9._-]{1,64}`, or starting with `.`.
    BadShardName,
    /// A shard `size` below 48 bytes.
    BadShardSize,
    /// A shard file whose size is not the table's, or that is not a v2 file.
    ShardMismatch,
    /// A shard named by the table cannot be found.
    ShardMissing,

    // §4 types, §5 layouts
    /// A registered logical type on a storage type it does not allow.
    TypeDtypeMismatch,
    /// The layout's parts are not the ones it requires (the context names the layout).
    LayoutParts,
    /// A part of a layout has a dtype or logical type the layout forbids.
    LayoutPartType,
    /// A layout's rank rule is broken.
    LayoutRank,
    /// A layout attribute is missing, of the wrong type or out of range.
    LayoutAttribute,
    /// A part's decoded size breaks the layout's size equation.
    SizeMismatch,

    // data rules (decoding or verifying)
    /// A `bool` byte other than 0 or 1.
    BoolValue,
    /// The final odd nibble of an `f4_e2m1` part is not zero.
    F4OddNibble,
    /// CSR `indptr` does not start at 0, decreases, or does not end at nnz.
    CsrIndptr,
    /// CSR column indices not strictly increasing within a row, or ≥ C.
    CsrIndices,
    /// A COO coordinate outside the shape.
    CooOutOfRange,
    /// Two COO elements name the same cell.
    CooDuplicate,
    /// A zstd-seekable stream breaks its profile (the context says how).
    Seekable,
    /// Decoded bytes are not `decoded_length` long.
    DecodedLength,
    /// A part's decoded bytes do not match its digest.
    DigestMismatch,
    /// A part's bytes are not available (in a shard, or encoded without a decoder).
    NotAvailable,

    // no-alloc working memory
    /// The caller's scratch is too small for the overlap check.
    ScratchTooSmall,
    /// An operation needs a registered type, layout or encoding this part or object does not have.
    Unsupported,
}

/// A v2 error: the rule broken, where in the manifest, and what field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Error {
    /// The rule.
    pub kind: Kind,
    /// Byte offset in the manifest, when the error is about a manifest item.
    pub offset: Option<usize>,
    /// The field, part or layout concerned, when one is.
    pub context: &'static str,
}

/// Result of the v2 reader.
pub type Result<T, E = Error> = core::result::Result<T, E>;

impl Error {
    pub(crate) const fn new(kind: Kind) -> Self {
        Error { kind, offset: None, context: "" }
    }
    pub(crate) const fn at(kind: Kind, offset: usize) -> Self {
        Error { kind, offset: Some(offset), context: "" }
    }
    // (The error path's, `explain.rs`: with the v2 reader only.)
    #[cfg_attr(not(feature = "v2"), allow(dead_code))]
    pub(crate) const fn field(kind: Kind, offset: usize, context: &'static str) -> Self {
        Error { kind, offset: Some(offset), context }
    }
    pub(crate) const fn ctx(kind: Kind, context: &'static str) -> Self {
        Error { kind, offset: None, context }
    }
}

/// One line: the rule in words (the phrase of the crate's [`ErrorKind`] for
/// the same rule), the context in parentheses unless the
/// phrase names it already, and the manifest byte.
///
/// [`ErrorKind`]: crate::ErrorKind
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut phrase = Phrase::default();
        fmt::write(&mut phrase, format_args!("{}", Words(self)))?;
        f.write_str(phrase.as_str())?;
        if !self.context.is_empty() && !phrase.as_str().contains(self.context) {
            write!(f, " ({})", self.context)?;
        }
        if let Some(o) = self.offset {
            write!(f, " at manifest byte {o}")?;
        }
        Ok(())
    }
}

/// The rule of an error in words, without its context or offset.
struct Words<'e>(&'e Error);

impl fmt::Display for Words<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ctx = self.0.context;
        match (self.0.kind, ctx) {
            // The crate's phrases of these carry sizes a v2 error does not hold.
            (Kind::TooShort, _) => f.write_str("file shorter than 48 bytes (the magic and the footer)"),
            (Kind::UnsupportedVersion, _) => f.write_str("the footer's format version is not 2"),
            (Kind::ManifestTooLarge, _) => f.write_str("manifest length exceeds the 1 GiB limit"),
            (Kind::ManifestOutOfBounds, _) => {
                f.write_str("manifest range outside [4096, file size - 40) or not a multiple of 4096")
            }
            (Kind::ManifestLengthMismatch, _) => f.write_str("the bytes given are not the footer's manifest range"),
            (Kind::CborTrailingBytes, _) => f.write_str("bytes after the manifest's root item"),
            (Kind::ScratchTooSmall, _) => f.write_str("the validation scratch is too small for this manifest"),
            // Where v2's rule differs from v1.x's.
            (Kind::CborTooDeep, _) => write!(f, "CBOR nesting deeper than {} levels from the root", super::cbor::MAX_DEPTH),
            (Kind::BadDigest, _) => f.write_str("malformed digest (expected xxh3: or sha256: and lowercase hex of its length)"),
            (Kind::DigestMismatch, "shard") => {
                f.write_str("the shard file's digest is not the shard table's: the shard is corrupt or another file")
            }
            (Kind::DigestMismatch, _) => f.write_str("digest mismatch: the part's decoded bytes are corrupt"),
            (Kind::NotAvailable, _) => {
                f.write_str("the part's bytes are not available here (in a data shard, or encoded without a decoder)")
            }
            // The crate's phrases of these name the context: without one, say so.
            (Kind::MissingField, "") => f.write_str("a required field is missing"),
            (Kind::LayoutParts, "") => f.write_str("the parts are not the ones the layout requires"),
            (Kind::LayoutAttribute, "") => f.write_str("a layout attribute is missing, of the wrong type, or out of range"),
            (Kind::Seekable, "") => f.write_str("invalid zt.zstd-seekable/1 stream"),
            (Kind::Unsupported, "") => f.write_str("unsupported: needs a registered type, layout or encoding"),
            (Kind::WrongType, "") => f.write_str("a field has the wrong CBOR type"),
            (Kind::WrongType, field) => write!(f, "field `{field}` has the wrong CBOR type"),
            (Kind::ShardMismatch, "size") => f.write_str("the shard file's size is not the shard table's"),
            (Kind::ShardMismatch, "magic") => f.write_str("the shard file is not a zTensor v2 file (magic)"),
            _ => write!(f, "{}", to_crate(Error { offset: None, ..*self.0 }, Sizes::default()).kind()),
        }
    }
}

/// The first bytes of a phrase, kept to see whether it names the context
/// (no allocation: the phrases are shorter; a longer one is cut).
struct Phrase {
    buf: [u8; 160],
    len: usize,
}

impl Default for Phrase {
    fn default() -> Self {
        Phrase { buf: [0; 160], len: 0 }
    }
}

impl Phrase {
    fn as_str(&self) -> &str {
        let b = &self.buf[..self.len];
        // Cut on a character boundary if the phrase was cut.
        core::str::from_utf8(b).unwrap_or_else(|e| core::str::from_utf8(&b[..e.valid_up_to()]).unwrap_or(""))
    }
}

impl fmt::Write for Phrase {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let n = s.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}
