//! The v2 reader's errors as the crate's [`crate::Error`]: each rule onto
//! the [`ErrorKind`] v1.x uses for the same rule, or onto a v2 kind.

use super::container::FOOTER_LEN;
use super::error::{Error, Kind};
use crate::error::{Error as CrateError, ErrorKind};

/// What the file's footer said, for the sizes some kinds carry.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Sizes {
    pub file_len: u64,
    pub manifest_len: u64,
    pub version: u64,
}

impl Sizes {
    /// Sizes read (unchecked) from the last 40 bytes of a file.
    pub(crate) fn of_footer(footer: &[u8], file_len: u64) -> Sizes {
        let mut s = Sizes { file_len, ..Sizes::default() };
        if let Some(b) = footer.len().checked_sub(FOOTER_LEN as usize).map(|i| &footer[i..]) {
            let le = |r: core::ops::Range<usize>| b[r].iter().rev().fold(0u64, |a, &x| a << 8 | x as u64);
            s.manifest_len = le(8..16);
            s.version = le(24..28);
        }
        s
    }
}

/// The crate error for a v2 error.
pub(crate) fn to_crate(e: Error, s: Sizes) -> CrateError {
    use ErrorKind as E;
    use Kind as K;
    let ctx = e.context;
    let kind = match e.kind {
        K::TooShort => E::FileTooSmall { len: s.file_len },
        K::BadMagic => E::BadMagic,
        K::UnsupportedVersion => E::UnsupportedVersion { major: s.version },
        K::ManifestTooLarge => E::ManifestTooLarge { size: s.manifest_len },
        K::ManifestOutOfBounds => E::ManifestOutOfBounds { size: s.manifest_len, file_len: s.file_len },
        K::BadDataShardFooter => E::BadDataShardFooter,
        K::ManifestHashMismatch => E::ManifestHashMismatch,
        K::ManifestLengthMismatch => E::ManifestLengthMismatch { expected: s.manifest_len, actual: 0 },
        K::CborTruncated => E::CborEof,
        K::CborInvalid => E::CborInvalid,
        K::CborNonShortest => E::NotDeterministic { what: "an integer or length not in its shortest form" },
        K::CborIndefinite => E::NotDeterministic { what: "an indefinite length" },
        K::CborTag => E::NotDeterministic { what: "a tag" },
        K::CborSimple => E::NotDeterministic { what: "a simple value other than false, true or null" },
        K::CborNonCanonicalFloat => E::NotDeterministic { what: "a float not in its canonical form" },
        K::CborUnsortedKeys => E::NotDeterministic { what: "map keys not in bytewise order" },
        K::CborDuplicateKey => E::DuplicateKey,
        K::CborTrailingBytes => {
            E::TrailingBytes { count: e.offset.map_or(0, |o| s.manifest_len.saturating_sub(o as u64)) }
        }
        K::CborTooDeep => E::TooDeep,
        K::CborInvalidUtf8 => E::CborInvalidUtf8,
        K::WrongType => E::WrongType { field: ctx, expected: "another CBOR type" },
        K::MissingField => E::MissingField { field: ctx },
        K::BadName => E::BadName,
        K::EmptyParts => E::EmptyParts,
        K::RankTooLarge => E::RankTooLarge,
        K::ShapeOverflow => E::ShapeOverflow,
        K::UnknownDtype => E::UnknownDType,
        K::BlobNotPair => E::WrongType { field: "blob", expected: "an array of two unsigned integers" },
        K::BlobMisaligned => E::BlobMisaligned,
        K::BlobBelowFloor => E::BlobBelowFloor,
        K::BlobOutOfBounds => E::BlobOutOfBounds,
        K::BlobOverlap => E::BlobOverlap,
        K::EncodingLengthPair => E::EncodingLengthPair,
        K::BadDigest => E::BadDigest,
        K::UnknownShard => E::UnknownShard,
        K::BadShardName => E::BadShardName,
        K::BadShardSize => E::BadShardSize,
        K::ShardMismatch => E::ShardMismatch,
        K::ShardMissing => E::ShardMissing,
        K::TypeDtypeMismatch => E::LogicalTypeDtype,
        K::LayoutParts => E::LayoutParts { layout: ctx },
        K::LayoutPartType => E::LayoutPartType,
        K::LayoutRank => E::BadShape,
        K::LayoutAttribute => E::LayoutAttribute { key: ctx },
        K::SizeMismatch => E::SizeMismatch,
        K::BoolValue => E::BadData { what: "bool byte other than 0 or 1" },
        K::F4OddNibble => E::BadData { what: "f4_e2m1 final odd nibble is not zero" },
        K::CsrIndptr => E::BadData { what: "CSR indptr" },
        K::CsrIndices => E::BadData { what: "CSR column indices" },
        K::CooOutOfRange => E::BadData { what: "COO coordinate out of range" },
        K::CooDuplicate => E::BadData { what: "COO duplicate cell" },
        K::Seekable => E::Seekable { what: ctx },
        K::DecodedLength => E::DecodedLength,
        K::DigestMismatch => E::DigestMismatch,
        K::NotAvailable => E::NoData,
        // (Enough for any manifest of this length: `v2::slots_for`.)
        K::ScratchTooSmall => E::ScratchTooSmall { needed: super::slots_for(s.manifest_len as usize) as u64 },
        K::Unsupported => E::Unsupported { what: ctx },
    };
    let err = CrateError::new(kind);
    match e.offset {
        Some(o) => err.or_at(o),
        None => err,
    }
}

/// [`to_crate`] of an error of the manifest `m`, naming the object and
/// part its byte lies in (§3.3, §3.4).
pub(crate) fn to_crate_in(e: Error, s: Sizes, m: &[u8]) -> CrateError {
    let err = to_crate(e, s);
    // (A schema rule's byte: the manifest is well-formed CBOR then.)
    #[cfg(feature = "v2")]
    if let Some(at) = e.offset.filter(|_| !is_cbor(e.kind)) {
        let (object, part) = super::explain::names_at(m, at);
        let err = match object {
            Some(o) => err.in_object(o),
            None => err,
        };
        return match part {
            Some(p) => err.in_component(p),
            None => err,
        };
    }
    let _ = m;
    err
}

/// A rule of deterministic CBOR (§3.1).
#[cfg(feature = "v2")]
fn is_cbor(k: Kind) -> bool {
    matches!(
        k,
        Kind::CborTruncated
            | Kind::CborInvalid
            | Kind::CborNonShortest
            | Kind::CborIndefinite
            | Kind::CborTag
            | Kind::CborSimple
            | Kind::CborNonCanonicalFloat
            | Kind::CborUnsortedKeys
            | Kind::CborDuplicateKey
            | Kind::CborTrailingBytes
            | Kind::CborTooDeep
            | Kind::CborInvalidUtf8
    )
}

impl From<Error> for CrateError {
    fn from(e: Error) -> CrateError {
        to_crate(e, Sizes::default())
    }
}
