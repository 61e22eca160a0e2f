//! What the compact reader reports: a [`Kind`] and where (8 bytes).

use crate::error::{Error, ErrorKind};

/// Why the compact reader refused a file or found a problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// What is wrong.
    pub kind: Kind,
    /// Where: the manifest byte of the item at fault (for data problems,
    /// the component's map); 0 when it is the container.
    pub at: u32,
}

/// The class of a [`Fault`]: what a caller does about it (the C ABI's status).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Status {
    /// The file breaks the format.
    Format,
    /// A valid file this build does not read (v0.1, v2, another major
    /// version), or data it cannot check (zstd, an unknown digest when strict).
    Unsupported,
    /// The caller's slots are too few for this file.
    BufferTooSmall,
    /// A stored digest does not match the bytes.
    DigestMismatch,
    /// Data breaks its format's rules.
    CorruptData,
}

macro_rules! kinds {
    ($($(#[$doc:meta])* $V:ident = $status:ident, $msg:literal;)*) => {
        /// What is wrong (its [`Kind::message`] says it in words).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u8)]
        pub enum Kind { $($(#[$doc])* $V,)* }

        /// Each kind's class, by kind (a byte each: a table, not a switch).
        const STATUS: &[Status] = &[$(Status::$status),*];
        /// Each kind's phrase, NUL-terminated, in kind order (no table of
        /// pointers: firmware flash).
        const MESSAGES: &str = concat!($($msg, "\0"),*);

        impl Kind {
            /// How many kinds there are (numbered from 0 in this order).
            pub const COUNT: usize = [$(Kind::$V),*].len();
        }
    };
}

impl Kind {
    /// The class of this kind.
    pub fn status(self) -> Status {
        STATUS.get(self as usize).copied().unwrap_or(Status::Format)
    }

    /// A short phrase naming the problem (the doc comments say more).
    pub fn message(self) -> &'static str {
        super::nth_text(MESSAGES, self as usize)
    }
}

kinds! {
    /// Magic, footer or manifest size wrong.
    Container = Format, "bad container";
    /// A v0.1 file (or a v2 file, in a build without the v2 reader).
    Generation = Unsupported, "not a v1.x file";
    /// Malformed CBOR: a bad head, a length past the manifest, a misplaced break.
    Cbor = Format, "malformed CBOR";
    /// Text that is not UTF-8.
    Utf8 = Format, "invalid UTF-8";
    /// Nesting past `MAX_DEPTH`.
    Deep = Format, "nested too deep";
    /// A map key or object name twice.
    DuplicateKey = Format, "duplicate key or name";
    /// The slots ran out.
    Slots = BufferTooSmall, "too few slots";
    /// Bytes after the manifest's root item.
    Trailing = Format, "bytes after manifest";
    /// A field of the wrong CBOR type.
    WrongType = Format, "field of wrong type";
    /// A required field is absent.
    Missing = Format, "field missing";
    /// `version` is not `MAJOR.MINOR[.PATCH]`.
    BadVersion = Format, "bad version";
    /// A major version other than 1 (or, built without `v1-legacy`, a v1.0 or v1.1 file).
    Version = Unsupported, "unsupported version";
    /// An empty object name or role.
    EmptyName = Format, "empty name or role";
    /// A dtype outside the 13 (and v1.1's spellings).
    DType = Format, "unknown dtype";
    /// An encoding other than raw and zstd.
    Encoding = Format, "unknown encoding";
    /// A logical type on the wrong dtype.
    LogicalType = Format, "type/dtype mismatch";
    /// An offset that is not a multiple of 64.
    Misaligned = Format, "offset not 64-aligned";
    /// A blob outside `[8, manifest)`.
    OutOfBounds = Format, "blob out of bounds";
    /// A v1.2 zstd component without `uncompressed_length`.
    NoDecodedSize = Format, "no uncompressed_length";
    /// A size that is not whole elements.
    PartialElement = Format, "partial element";
    /// A component the format needs is absent.
    MissingComponent = Format, "component missing";
    /// A sparse index component of the wrong dtype.
    IndexDType = Format, "bad index dtype";
    /// Element counts of sparse components disagree.
    Count = Format, "count mismatch";
    /// Dense data of the wrong size.
    Length = Format, "length mismatch";
    /// A size that overflows.
    Overflow = Format, "size overflow";
    /// `sparse_csr` without a 2-D shape.
    Shape = Format, "CSR shape not 2-D";
    /// `quantized_group` attributes of the wrong type.
    QuantAttribute = Format, "bad quantization attribute";
    /// Two blobs partially overlap.
    Overlap = Format, "blobs overlap";
    /// A malformed digest string.
    BadDigest = Format, "bad digest";
    /// A digest that does not match.
    DigestMismatch = DigestMismatch, "digest mismatch";
    /// A digest of an unknown algorithm (a problem unless allowed: strict, the default).
    Unverifiable = Unsupported, "unverifiable digest";
    /// zstd data, which this build does not decode.
    Zstd = Unsupported, "zstd not decoded";
    /// A bool byte other than 0 or 1.
    Bool = CorruptData, "bool not 0/1";
    /// CSR `indptr` not from 0, rising, to nnz (or a negative one).
    Indptr = CorruptData, "bad CSR indptr";
    /// A CSR column index past the columns (or negative).
    Column = CorruptData, "CSR column out of range";
    /// A COO coordinate outside the shape (or negative).
    Coordinate = CorruptData, "COO coordinate out of range";
    // v2 (format v2 Draft 4): kinds added after v1's, so that v1's numbers stay.
    /// A v2 manifest whose XXH3-64 is not the footer's (§2.2).
    ManifestHash = Format, "manifest hash mismatch";
    /// A v2 manifest not in deterministic CBOR (§3.1): a head not in its
    /// shortest form, an indefinite length, a tag, a simple value, a float
    /// not canonical, map keys out of order.
    NotDeterministic = Format, "CBOR not deterministic";
    /// A v2 name or attribute key breaking §3.5 (or a shard name, §7.1).
    Name = Format, "bad name";
    /// A v2 shape of more than 64 dimensions (§3.3).
    Rank = Format, "rank too large";
    /// A v2 shard table or a part's shard reference broken (§7).
    Shard = Format, "bad shard reference";
    /// A v2 layout profile's metadata rule broken (§5, the profile's text).
    Layout = Format, "layout rule broken";
    /// A v2 sharded file or data shard: its parts lie in other files, which
    /// this reader (one file in memory) does not read.
    Sharded = Unsupported, "sharded file";
    /// An `f4_e2m1` part whose unused final nibble is set (Appendix A).
    F4Nibble = CorruptData, "f4 padding nibble set";
    /// Two COO entries at the same coordinates (zt.sparse_coo/1).
    CooDuplicate = CorruptData, "COO duplicate coordinate";
    /// A `zt.zstd-seekable/1` part whose seek table is broken.
    Seekable = Format, "bad seek table";
    /// Decoded bytes of another length than the part's `decoded_length`.
    DecodedLength = Format, "decoded length mismatch";
    /// A v2 part of a logical type this library does not know: its bytes
    /// are listed, not decoded (as [`crate::Component::read_into`] says).
    UnknownType = Unsupported, "type not decoded";
}

impl Fault {
    /// `kind` at manifest byte `at`.
    #[inline]
    pub fn new(kind: Kind, at: usize) -> Fault {
        Fault { kind, at: at as u32 }
    }

    /// The class of this fault.
    pub fn status(&self) -> Status {
        self.kind.status()
    }

    /// The container layer's refusal.
    #[cold]
    pub(crate) fn container(e: Error) -> Fault {
        let kind = match e.kind() {
            ErrorKind::UnsupportedVersion { .. } => Kind::Generation,
            _ => Kind::Container,
        };
        Fault::new(kind, 0)
    }
}

impl core::fmt::Display for Fault {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} (manifest byte {})", self.kind.message(), self.at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_phrase_and_class() {
        assert_eq!(Kind::Container.message(), "bad container");
        assert_eq!(Kind::Overlap.message(), "blobs overlap");
        assert_eq!(Kind::Coordinate.message(), "COO coordinate out of range");
        assert_eq!(Kind::Slots.status(), Status::BufferTooSmall);
        assert_eq!(Kind::Version.status(), Status::Unsupported);
        assert_eq!(Kind::Bool.status(), Status::CorruptData);
        let n = Kind::UnknownType as usize + 1;
        assert_eq!(Kind::COUNT, n);
        assert_eq!(STATUS.len(), n);
        assert_eq!(MESSAGES.bytes().filter(|&b| b == 0).count(), n);
        assert!(MESSAGES.split('\0').take(n).all(|m| !m.is_empty()));
    }
}
