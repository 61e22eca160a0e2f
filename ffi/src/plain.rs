//! Error messages without `core::fmt` (the no-heap build without the
//! `messages` feature): a fixed phrase per error kind, the static text it
//! carries (a field, a role, a reason), the offending value, object and
//! component names and the manifest byte, copied as plain strings. The
//! formatting machinery and the core's `Display` texts stay out of the
//! firmware (about 9 KiB of flash); the status says the same as with them.

use crate::guard::Detail;
use crate::message::Truncating;
use ztensor_core::{Error as CoreError, ErrorKind};

/// Write the message of `detail`.
pub(crate) fn write_detail(w: &mut Truncating<'_>, detail: &Detail) {
    match detail {
        Detail::Static(s) => w.put(s),
        Detail::Core(e) => write_core(w, e),
        Detail::Verify { count, first } => {
            w.put_u64(*count as u64);
            w.put(if *count == 1 { " problem found; first: " } else { " problems found; first: " });
            write_core(w, first);
        }
    }
}

/// A core error: its kind's phrase, then where it is.
fn write_core(w: &mut Truncating<'_>, e: &CoreError) {
    let (phrase, text) = phrase(e.kind());
    w.put(phrase);
    if let Some(t) = text {
        w.put(t);
    }
    if let Some(v) = e.value() {
        w.put(" \"");
        w.put(v.as_str());
        w.put("\"");
    }
    let mut sep = " (";
    if let Some(o) = e.object() {
        w.put(sep);
        w.put("object \"");
        w.put(o.as_str());
        w.put(if o.is_truncated() { "\"…" } else { "\"" });
        sep = ", ";
    }
    if let Some(r) = e.role() {
        w.put(sep);
        w.put("component \"");
        w.put(r.as_str());
        w.put("\"");
        sep = ", ";
    }
    if let Some(off) = e.manifest_offset() {
        w.put(sep);
        w.put("manifest byte ");
        w.put_u64(off);
        sep = ", ";
    }
    if sep == ", " {
        w.put(")");
    }
}

/// A kind's phrase and the static text it carries (said after it).
fn phrase(kind: ErrorKind) -> (&'static str, Option<&'static str>) {
    use ErrorKind::*;
    let p = match kind {
        FileTooSmall { .. } => "file too small to be a zTensor file",
        BadMagic => "bad magic: not a zTensor file, or truncated",
        MagicMismatch => "header and footer magic disagree",
        ManifestTooLarge { .. } => "manifest exceeds the 1 GiB limit",
        ManifestOutOfBounds { .. } => "manifest does not fit in the file",
        ManifestLengthMismatch { .. } => "manifest buffer length differs from the footer's",
        CborEof => "CBOR ends in the middle of an item",
        CborInvalid => "invalid CBOR initial byte",
        CborBadIndefinite => "malformed indefinite-length CBOR item",
        CborInvalidUtf8 => "CBOR text string is not valid UTF-8",
        TrailingBytes { .. } => "bytes after the manifest's root item",
        TooDeep => "CBOR nesting too deep",
        LengthTooLarge { .. } => "CBOR length exceeds the bytes that remain",
        DuplicateKey => "duplicate map key",
        IndefiniteText => "indefinite-length text where a plain string is required",
        MissingField { field } => return ("missing required field ", Some(field)),
        WrongType { field, .. } => return ("wrong type for field ", Some(field)),
        BadVersion => "`version` is not of the form MAJOR.MINOR[.PATCH]",
        UnsupportedVersion { .. } => "unsupported format version",
        EmptyName => "empty name",
        UnknownDType => "unknown dtype",
        UnknownEncoding => "unknown encoding",
        BadEndianness => "data_endianness must be \"little\" or \"big\"",
        Misaligned { .. } => "offset is not a multiple of 64",
        OutOfBounds { .. } => "blob outside the data region",
        Overlap { .. } => "blob partially overlaps another blob",
        ShapeOverflow => "shape size overflows 64 bits",
        LengthMismatch { .. } => "length differs from what shape and type require",
        PartialElement { .. } => "length is not a whole number of elements",
        MissingUncompressedLength => "zstd component without `uncompressed_length`",
        MissingComponent { role } => return ("missing required component ", Some(role)),
        IndexDType => "index component must have an integer dtype",
        BadShape => "shape does not suit the object's format",
        CountMismatch { .. } => "element counts disagree",
        ScratchTooSmall { .. } => "validation scratch too small: give one slot per object",
        NotFound => "not found",
        NoData => "data bytes are not available",
        BufferTooSmall { .. } => "buffer too small",
        BufferSize { .. } => "buffer size is not the decoded size",
        RangeOutOfBounds { .. } => "byte range reaches past the decoded bytes",
        NotZeroCopy { reason } => return ("no zero-copy view: ", Some(reason)),
        TypeMismatch => "requested element type does not match the dtype",
        Decompress => "corrupt or truncated zstd data",
        ZstdChecksum => "zstd frame content checksum does not match",
        DecodedTooLarge { .. } => "decoded data exceeds the limit",
        BadDigest => "malformed digest",
        DigestMismatch => "digest mismatch: the data is corrupt",
        UnverifiableDigest => "digest algorithm unknown: not verified",
        BadData { what } => return ("invalid data: ", Some(what)),
        Io => "I/O error",
        Unsupported { what } => return ("unsupported: ", Some(what)),
        _ => "invalid file",
    };
    (p, None)
}
