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

        impl Kind {
            /// The class of this kind.
            pub fn status(self) -> Status {
                match self { $(Kind::$V => Status::$status,)* }
            }

            /// A short sentence naming the problem.
            pub fn message(self) -> &'static str {
                match self { $(Kind::$V => $msg,)* }
            }
        }
    };
}

kinds! {
    /// Magic, footer or manifest size wrong.
    Container = Format, "not a zTensor v1.x file (magic, footer or manifest size)";
    /// A v0.1 or v2 file.
    Generation = Unsupported, "not a v1.x file: this build reads v1.x only";
    /// Malformed CBOR: a bad head, a length past the manifest, a misplaced break.
    Cbor = Format, "malformed CBOR in the manifest";
    /// Text that is not UTF-8.
    Utf8 = Format, "invalid UTF-8 text in the manifest";
    /// Nesting past `MAX_DEPTH`.
    Deep = Format, "CBOR nested too deep";
    /// A map key or object name twice.
    DuplicateKey = Format, "duplicate map key or object name";
    /// The slots ran out.
    Slots = BufferTooSmall, "too few slots for this file";
    /// Bytes after the manifest's root item.
    Trailing = Format, "bytes after the manifest";
    /// A field of the wrong CBOR type.
    WrongType = Format, "a manifest field has the wrong type";
    /// A required field is absent.
    Missing = Format, "a required field is missing";
    /// `version` is not `MAJOR.MINOR[.PATCH]`.
    BadVersion = Format, "malformed version";
    /// A major version other than 1.
    Version = Unsupported, "unsupported manifest version (major must be 1)";
    /// An empty object name or role.
    EmptyName = Format, "empty object name or component role";
    /// A dtype outside the 13 (and v1.1's spellings).
    DType = Format, "unknown dtype";
    /// An encoding other than raw and zstd.
    Encoding = Format, "unknown encoding";
    /// A logical type on the wrong dtype.
    LogicalType = Format, "logical type does not match the dtype";
    /// An offset that is not a multiple of 64.
    Misaligned = Format, "component offset is not a multiple of 64";
    /// A blob outside `[8, manifest)`.
    OutOfBounds = Format, "component outside the data region";
    /// A v1.2 zstd component without `uncompressed_length`.
    NoDecodedSize = Format, "zstd component without uncompressed_length";
    /// A size that is not whole elements.
    PartialElement = Format, "size is not a whole number of elements";
    /// A component the format needs is absent.
    MissingComponent = Format, "a component the format requires is missing";
    /// A sparse index component of the wrong dtype.
    IndexDType = Format, "sparse index component has the wrong dtype";
    /// Element counts of sparse components disagree.
    Count = Format, "component element count does not match";
    /// Dense data of the wrong size.
    Length = Format, "data length does not match shape and dtype";
    /// A size that overflows.
    Overflow = Format, "shape or size overflows";
    /// `sparse_csr` without a 2-D shape.
    Shape = Format, "sparse_csr needs a 2-D shape";
    /// `quantized_group` attributes of the wrong type.
    QuantAttribute = Format, "quantized_group attribute of the wrong type";
    /// Two blobs partially overlap.
    Overlap = Format, "component blobs partially overlap";
    /// A malformed digest string.
    BadDigest = Format, "malformed digest";
    /// A digest that does not match.
    DigestMismatch = DigestMismatch, "digest mismatch";
    /// A digest of an unknown algorithm (a problem only when strict).
    Unverifiable = Unsupported, "digest algorithm unknown: not verified";
    /// zstd data, which this build does not decode.
    Zstd = Unsupported, "zstd data is not decoded by this build";
    /// A bool byte other than 0 or 1.
    Bool = CorruptData, "bool byte other than 0 or 1";
    /// A negative sparse index.
    Negative = CorruptData, "negative sparse index";
    /// CSR `indptr` not from 0, rising, to nnz.
    Indptr = CorruptData, "CSR indptr does not run from 0 up to the number of values";
    /// A CSR column index past the columns.
    Column = CorruptData, "CSR column index out of range";
    /// A COO coordinate outside the shape.
    Coordinate = CorruptData, "COO coordinate out of range";
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
