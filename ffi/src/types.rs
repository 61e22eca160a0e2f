//! The C types both readers share (the full library's and the compact
//! firmware build's, `compact/`): files, objects, components, verification,
//! and the owner tags that tie a `zt_object` to its handle. One definition
//! each, whichever build compiles them.

use crate::dtype::zt_dtype;
use core::ffi::c_char;
use core::sync::atomic::{AtomicUsize, Ordering};
use ztensor_core::Format;

/// How a `zt_file` reads its file.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum zt_mode {
    /// `zt_open`: the whole file is memory-mapped.
    ZT_MODE_MMAP = 0,
    /// `zt_open` with `ZT_OPEN_POSITIONAL`, or `zt_open_source`: components
    /// are read on demand.
    ZT_MODE_POSITIONAL = 1,
    /// `zt_open_mem`: memory lent by the caller.
    ZT_MODE_MEMORY = 2,
}

/// Facts about an open file (`zt_file_get_info`).
#[repr(C)]
pub struct zt_file_info {
    /// Format version: 2.0.0 (format v2), 1.2.0, 1.1.0, or 0.1.0 for legacy files.
    pub version_major: u32,
    /// Format minor version.
    pub version_minor: u32,
    /// Format patch version.
    pub version_patch: u32,
    /// How the handle reads the file.
    pub mode: zt_mode,
    /// Number of objects.
    pub object_count: usize,
    /// Number of file-level attributes.
    pub attribute_count: usize,
    /// Size of the file in bytes.
    pub file_length: u64,
    /// Where the CBOR manifest starts.
    pub manifest_offset: u64,
    /// Size of the CBOR manifest in bytes.
    pub manifest_length: u64,
}

/// Layout of an object's components (spec §3).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum zt_format {
    /// One `data` component, row-major.
    ZT_FORMAT_DENSE = 0,
    /// `values`, `indices`, `indptr`.
    ZT_FORMAT_SPARSE_CSR = 1,
    /// `values`, `coords`.
    ZT_FORMAT_SPARSE_COO = 2,
    /// `packed_weight`, `scales`, `zeros`; parameters in attributes.
    ZT_FORMAT_QUANTIZED_GROUP = 3,
    /// A format this library does not know (its name is in `format`); its
    /// components are still readable.
    ZT_FORMAT_OTHER = 4,
}

/// One object (tensor) of a file: a plain value naming it by its position
/// in manifest order and the handle it came from. Copy it freely; it stays
/// meaningful as long as the file it came from is open. Passed with another
/// handle, it is refused (`ZT_ERR_INVALID_ARGUMENT`).
/// Resolving it costs O(1) (plus decoding that object's manifest entry).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct zt_object {
    /// Position in manifest order, `0 <= index < zt_object_count(file)`.
    pub index: usize,
    /// The handle it belongs to: a tag the library sets, unique to each
    /// handle opened by this process (never 0). Do not set it yourself.
    pub owner: usize,
}

/// Summary of an object (`zt_object_get_info`). Strings are borrowed from the
/// file (valid until `zt_close`) and NOT NUL-terminated.
#[repr(C)]
pub struct zt_object_info {
    /// The object's name (UTF-8; may contain NUL bytes; may be empty in
    /// files written by some tools).
    pub name: *const c_char,
    /// Length of `name` in bytes.
    pub name_len: usize,
    /// The format's name (`"dense"`, `"sparse_csr"`, ... or an unknown one).
    pub format: *const c_char,
    /// Length of `format` in bytes.
    pub format_len: usize,
    /// The format, when known.
    pub format_kind: zt_format,
    /// Number of dimensions (0 for a scalar). Dims: `zt_object_shape`.
    pub ndim: usize,
    /// Product of the dimensions (1 for a scalar).
    pub numel: u64,
    /// Number of components (`zt_component_at`).
    pub component_count: usize,
    /// Number of attributes (`zt_attribute_at`).
    pub attribute_count: usize,
}

/// The C format of a core format.
pub(crate) fn c_format(f: Format<'_>) -> zt_format {
    match f {
        Format::Dense => zt_format::ZT_FORMAT_DENSE,
        Format::SparseCsr => zt_format::ZT_FORMAT_SPARSE_CSR,
        Format::SparseCoo => zt_format::ZT_FORMAT_SPARSE_COO,
        Format::QuantizedGroup => zt_format::ZT_FORMAT_QUANTIZED_GROUP,
        _ => zt_format::ZT_FORMAT_OTHER,
    }
}


/// How a component's bytes are stored.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum zt_encoding {
    /// The elements themselves (zero-copy possible).
    ZT_ENCODING_RAW = 0,
    /// A zstd frame; `length` is the compressed size.
    ZT_ENCODING_ZSTD = 1,
    /// v2 `zt.zstd-seekable/1`: zstd frames and a seek table.
    ZT_ENCODING_ZSTD_SEEKABLE = 2,
    /// v2: an encoding this library does not know (`encoding_id` names it;
    /// the stored bytes stay readable, decoding is refused).
    ZT_ENCODING_UNKNOWN = 3,
}

/// One component of an object (`zt_component`, `zt_component_at`).
/// Strings are borrowed from the file (valid until `zt_close`) and NOT
/// NUL-terminated; absent ones are NULL with length 0.
#[repr(C)]
pub struct zt_component_info {
    /// Role name (`"data"`, `"values"`, `"indices"`, ...).
    pub role: *const c_char,
    /// Length of `role` in bytes.
    pub role_len: usize,
    /// Storage type of the elements.
    pub dtype: zt_dtype,
    /// How the bytes are stored.
    pub encoding: zt_encoding,
    /// Logical type (`"f8_e4m3fn"`, `"complex64"`, ...), NULL when none.
    pub logical_type: *const c_char,
    /// Length of `logical_type` in bytes.
    pub logical_type_len: usize,
    /// Absolute file offset of the stored bytes (a multiple of 64).
    pub offset: u64,
    /// Stored length in bytes (the compressed size for zstd).
    pub length: u64,
    /// Declared decoded length (zstd); meaningful when
    /// `has_uncompressed_length`.
    pub uncompressed_length: u64,
    /// Whether the manifest declares `uncompressed_length`.
    pub has_uncompressed_length: bool,
    /// Whether the stored elements are big-endian (only v0.1 files);
    /// `zt_component_read` always delivers little-endian.
    pub big_endian: bool,
    /// Whether `decoded_length` is known (false only for zstd components of
    /// old files that declare no size, outside dense `data`).
    pub has_decoded_length: bool,
    /// Bytes `zt_component_read` writes: `length` for raw, the declared
    /// decoded size for zstd. Meaningful when `has_decoded_length`. A
    /// hostile file may declare a huge zstd size: before allocating, ask
    /// `zt_component_read(..., NULL, 0, &n)`, which checks it.
    pub decoded_length: u64,
    /// Digest (`"sha256:<hex>"`, `"crc32c:0x<hex>"`, v2's `"xxh3:<hex>"`),
    /// NULL when none: over the stored bytes in v1.x, over the decoded
    /// bytes in v2 (`digest_over_decoded`).
    pub digest: *const c_char,
    /// Length of `digest` in bytes.
    pub digest_len: usize,
    /// Whether `digest` covers the decoded bytes (v2) rather than the stored ones.
    pub digest_over_decoded: bool,
    /// The encoding's identifier as the file writes it (`"raw"`, `"zstd"`,
    /// `"zt.zstd-seekable/1"`, or an unknown v2 profile id).
    pub encoding_id: *const c_char,
    /// Length of `encoding_id` in bytes.
    pub encoding_id_len: usize,
    /// v2: the shard file holding the bytes, NULL when in this file.
    pub shard: *const c_char,
    /// Length of `shard` in bytes.
    pub shard_len: usize,
}

/// `zt_verify` flag: check every component's digest (stored bytes).
pub const ZT_VERIFY_DIGESTS: u32 = 1;
/// `zt_verify` flag: check every component's data (decodes to its declared
/// length; sparse indices in range; bool bytes are 0 or 1).
pub const ZT_VERIFY_DATA: u32 = 2;
/// `zt_verify` flags: digests and data (what `flags = 0` also means).
pub const ZT_VERIFY_ALL: u32 = 3;
/// `zt_verify` flag: a digest whose algorithm this library does not know
/// is a problem (`ZT_ERR_UNSUPPORTED`), not only a count in
/// `zt_verify_counts.unverifiable`. This is now `zt_verify`'s default (the
/// flag is accepted there and changes nothing); for `zt_component_verify`
/// it still makes a component without a checkable digest an error.
/// Combine with the others (`ZT_VERIFY_ALL | ZT_VERIFY_STRICT`); alone it
/// means all checks, strict.
pub const ZT_VERIFY_STRICT: u32 = 4;
/// `zt_verify` flag: a digest whose algorithm this library does not know
/// is only counted in `zt_verify_counts.unverifiable` (a warning), not a
/// problem: `zt_verify` may then return `ZT_OK` for a file some of whose
/// parts were not checked. Refused together with `ZT_VERIFY_STRICT`.
/// Alone it means all checks, unverifiable digests allowed.
pub const ZT_VERIFY_ALLOW_UNVERIFIABLE: u32 = 8;

/// What `zt_verify_report` looked at and found.
#[repr(C)]
pub struct zt_verify_counts {
    /// Objects looked at.
    pub objects: usize,
    /// Components looked at.
    pub components: usize,
    /// Digests checked and matching.
    pub digests_checked: usize,
    /// Digests whose algorithm this library does not know: NOT checked.
    pub unverifiable: usize,
    /// Problems found (unverifiable digests too, unless
    /// `ZT_VERIFY_ALLOW_UNVERIFIABLE`).
    pub problems: usize,
}

/// The next handle's owner tag (0 is never used).
static NEXT_OWNER: AtomicUsize = AtomicUsize::new(1);

/// A new handle's owner tag (unique in the process).
pub(crate) fn next_owner() -> usize {
    NEXT_OWNER.fetch_add(1, Ordering::Relaxed)
}
