//! C ABI of zTensor: `libztensor.so` / `libztensor.a` and `include/ztensor.h`.
//!
//! A thin layer over the `ztensor` crate: handles, argument checks, error
//! mapping, and nothing else. Reading is here; writing (`zt_writer`, over
//! the core's `Writer<FileSink>`) is in `write.rs`. `include/ztensor.h` is
//! generated from these files by cbindgen; `tests/header.rs` fails when it is stale
//! (`ZT_BLESS=1 cargo test --manifest-path ffi/Cargo.toml --test header`
//! rewrites it).
//!
//! Conventions (repeated in the header's preamble):
//! - every fallible call returns a [`zt_status`] (`ZT_OK` = 0) and writes its
//!   results through out-parameters; [`zt_last_error`] gives the detail;
//! - every entry point checks its pointers (NULL → `ZT_ERR_INVALID_ARGUMENT`)
//!   and runs inside `catch_unwind` (a panic → `ZT_ERR_PANIC`);
//! - strings are borrowed pointer + length, valid while the file is open.
#![allow(non_camel_case_types)]
// `Fail` carries the core error inline (no allocation on error paths, as in
// the core); its size only matters on the cold path.
#![allow(clippy::result_large_err)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

mod convert;
mod guard;
mod handle;
mod write;

use core::ffi::c_char;
use guard::{guard, guard_value, Detail, Fail, Phase};
pub use handle::zt_file;
use handle::{bytes_arg, handle, not_found, object, put, put_opt};
pub use write::*;
use ztensor_core::fs::{Mode, Reader};
use ztensor_core::ValueRef;
use ztensor_core::{Component, DType, Encoding, Error as CoreError, ErrorKind, File, Format, Map, Value};

// ===================================================================== constants

/// Major version of this library (the `ztensor-ffi` crate).
pub const ZT_VERSION_MAJOR: u32 = 0;
/// Minor version of this library.
pub const ZT_VERSION_MINOR: u32 = 1;
/// Patch version of this library.
pub const ZT_VERSION_PATCH: u32 = 0;

/// Pass as a string length to say "the string is NUL-terminated".
/// (An explicit length is needed for names that contain NUL bytes.)
/// In the header: `#define ZT_NUL_TERMINATED SIZE_MAX` (cbindgen.toml).
///
/// cbindgen:ignore
pub const ZT_NUL_TERMINATED: usize = usize::MAX;

/// `zt_open` flag: read only the footer and manifest at open, and each
/// component with a positional read when asked for (no memory map). For
/// network filesystems and files larger than the address space.
/// `zt_component_ptr` is then unavailable.
pub const ZT_OPEN_POSITIONAL: u32 = 1;

/// `zt_verify` flag: check every component's digest (stored bytes).
pub const ZT_VERIFY_DIGESTS: u32 = 1;
/// `zt_verify` flag: check every component's data (decodes to its declared
/// length; sparse indices in range; bool bytes are 0 or 1).
pub const ZT_VERIFY_DATA: u32 = 2;
/// `zt_verify` flags: everything (the same as passing 0).
pub const ZT_VERIFY_ALL: u32 = 3;

// ===================================================================== enums

/// Result of every fallible call. `ZT_OK` is 0; everything else is an error
/// whose detail `zt_last_error()` gives. Values are stable: new ones may be
/// added at the end, so treat unknown values as errors.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum zt_status {
    /// Success.
    ZT_OK = 0,
    /// A NULL pointer, an out-of-range index, an unknown flag, or a
    /// `zt_object` that does not belong to this file.
    ZT_ERR_INVALID_ARGUMENT = 1,
    /// The operating system refused (open, map, read).
    ZT_ERR_IO = 2,
    /// The bytes are not a valid zTensor file (container, CBOR or manifest);
    /// when writing, the object or attribute would not make a valid file
    /// (`zt_last_error()` names the rule).
    ZT_ERR_FORMAT = 3,
    /// A valid file this library cannot handle (a newer major version, ...).
    ZT_ERR_UNSUPPORTED = 4,
    /// No object with that name, or no component with that role.
    ZT_ERR_NOT_FOUND = 5,
    /// The caller's buffer is too small; the call said how much is needed.
    ZT_ERR_BUFFER_TOO_SMALL = 6,
    /// No zero-copy pointer: compressed, big-endian, or positional mode.
    ZT_ERR_NOT_ZERO_COPY = 7,
    /// A digest does not match the stored bytes.
    ZT_ERR_DIGEST_MISMATCH = 8,
    /// Data is corrupt: zstd fails to decode or decodes to the wrong size,
    /// sparse indices out of range, bool bytes other than 0/1.
    ZT_ERR_CORRUPT_DATA = 9,
    /// A bug in this library (a Rust panic, caught at the boundary). A
    /// writer on which a call panicked refuses every later call with it.
    ZT_ERR_PANIC = 10,
}

/// Storage type of a component (spec §2; v1.2 names whatever the file's version).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum zt_dtype {
    /// IEEE 754 binary64.
    ZT_DTYPE_F64 = 0,
    /// IEEE 754 binary32.
    ZT_DTYPE_F32 = 1,
    /// IEEE 754 binary16.
    ZT_DTYPE_F16 = 2,
    /// bfloat16.
    ZT_DTYPE_BF16 = 3,
    /// Signed 64-bit integer.
    ZT_DTYPE_I64 = 4,
    /// Signed 32-bit integer.
    ZT_DTYPE_I32 = 5,
    /// Signed 16-bit integer.
    ZT_DTYPE_I16 = 6,
    /// Signed 8-bit integer.
    ZT_DTYPE_I8 = 7,
    /// Unsigned 64-bit integer.
    ZT_DTYPE_U64 = 8,
    /// Unsigned 32-bit integer.
    ZT_DTYPE_U32 = 9,
    /// Unsigned 16-bit integer.
    ZT_DTYPE_U16 = 10,
    /// Unsigned 8-bit integer (also FP8, with a logical type).
    ZT_DTYPE_U8 = 11,
    /// One byte, 0 or 1.
    ZT_DTYPE_BOOL = 12,
}

/// How a component's bytes are stored.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum zt_encoding {
    /// The elements themselves (zero-copy possible).
    ZT_ENCODING_RAW = 0,
    /// A zstd frame; `length` is the compressed size.
    ZT_ENCODING_ZSTD = 1,
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

/// How a `zt_file` reads its file.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum zt_mode {
    /// `zt_open`: the whole file is memory-mapped.
    ZT_MODE_MMAP = 0,
    /// `zt_open` with `ZT_OPEN_POSITIONAL`: components are read on demand.
    ZT_MODE_POSITIONAL = 1,
    /// `zt_open_mem`: memory lent by the caller.
    ZT_MODE_MEMORY = 2,
}

/// What a CBOR attribute value is.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum zt_value_kind {
    /// Unsigned integer: `uint_value` (and `int_value` when it fits).
    ZT_VALUE_UINT = 0,
    /// Negative integer `-1 - uint_value` (`int_value` when it fits).
    ZT_VALUE_NEGINT = 1,
    /// Floating point (half, single or double): `float_value`.
    ZT_VALUE_FLOAT = 2,
    /// `true` / `false`: `bool_value`.
    ZT_VALUE_BOOL = 3,
    /// `null`.
    ZT_VALUE_NULL = 4,
    /// `undefined`.
    ZT_VALUE_UNDEFINED = 5,
    /// UTF-8 text: `data`/`data_len` (not NUL-terminated).
    ZT_VALUE_TEXT = 6,
    /// Byte string: `data`/`data_len`.
    ZT_VALUE_BYTES = 7,
    /// Array of `count` items (decode `cbor` yourself).
    ZT_VALUE_ARRAY = 8,
    /// Map of `count` entries (decode `cbor` yourself).
    ZT_VALUE_MAP = 9,
    /// A tagged value (decode `cbor` yourself).
    ZT_VALUE_TAG = 10,
    /// Another CBOR simple value.
    ZT_VALUE_SIMPLE = 11,
}

// ===================================================================== structs

/// One object (tensor) of a file: a plain value naming it by its position
/// in manifest order. Copy it freely; it stays meaningful as long as the
/// file it came from is open, and means nothing for any other file.
/// Resolving it costs O(1) (plus decoding that object's manifest entry).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct zt_object {
    /// Position in manifest order, `0 <= index < zt_object_count(file)`.
    pub index: usize,
}

/// Facts about an open file (`zt_file_get_info`).
#[repr(C)]
pub struct zt_file_info {
    /// Format version: 1.2.0, 1.1.0, or 0.1.0 for legacy files.
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
    /// Digest of the stored bytes (`"sha256:<hex>"`, `"crc32c:0x<hex>"`),
    /// NULL when none.
    pub digest: *const c_char,
    /// Length of `digest` in bytes.
    pub digest_len: usize,
}

/// One attribute: a key and its CBOR value, borrowed from the file (valid
/// until `zt_close`). Scalars are decoded for convenience; anything else
/// can be decoded from `cbor` (the value's exact encoded bytes).
#[repr(C)]
pub struct zt_attribute {
    /// The key, when it is a text string (almost always); NULL otherwise.
    /// Not NUL-terminated.
    pub key: *const c_char,
    /// Length of `key` in bytes.
    pub key_len: usize,
    /// The key's encoded CBOR bytes (whatever its type).
    pub key_cbor: *const u8,
    /// Length of `key_cbor` in bytes.
    pub key_cbor_len: usize,
    /// The value's encoded CBOR bytes.
    pub cbor: *const u8,
    /// Length of `cbor` in bytes.
    pub cbor_len: usize,
    /// What the value is.
    pub kind: zt_value_kind,
    /// Whether `int_value` holds the (UINT or NEGINT) value.
    pub has_int: bool,
    /// `true`/`false` for `ZT_VALUE_BOOL`.
    pub bool_value: bool,
    /// The integer, when `has_int`.
    pub int_value: i64,
    /// `ZT_VALUE_UINT`: the value; `ZT_VALUE_NEGINT`: `n` in `-1 - n`;
    /// `ZT_VALUE_TAG`: the tag number; `ZT_VALUE_SIMPLE`: the simple value.
    pub uint_value: u64,
    /// `ZT_VALUE_FLOAT`: the value; integers converted (possibly rounded).
    pub float_value: f64,
    /// `ZT_VALUE_TEXT` / `ZT_VALUE_BYTES`: the content, NULL when the
    /// string is split into indefinite-length chunks (decode `cbor`).
    pub data: *const u8,
    /// Length of `data` in bytes.
    pub data_len: usize,
    /// `ZT_VALUE_ARRAY`: items; `ZT_VALUE_MAP`: entries.
    pub count: usize,
}

// ===================================================================== library

/// The library's version, `"MAJOR.MINOR.PATCH"` (the ZT_VERSION_* macros
/// give the version compiled against).
///
/// Ownership: a static NUL-terminated string; never free it.
/// Thread-safety: safe from any thread.
#[no_mangle]
pub extern "C" fn zt_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// A short static description of a status (`"ok"`, `"invalid argument"`, ...);
/// `"unknown status"` for a value that is not a `zt_status`.
///
/// Ownership: a static NUL-terminated string; never free it.
/// Thread-safety: safe from any thread.
#[no_mangle]
pub extern "C" fn zt_status_str(status: i32) -> *const c_char {
    let s: &'static core::ffi::CStr = match status {
        0 => c"ok",
        1 => c"invalid argument",
        2 => c"I/O error",
        3 => c"invalid zTensor file",
        4 => c"unsupported",
        5 => c"not found",
        6 => c"buffer too small",
        7 => c"no zero-copy view",
        8 => c"digest mismatch",
        9 => c"corrupt data",
        10 => c"internal error (panic)",
        _ => c"unknown status",
    };
    s.as_ptr()
}

/// The detailed message of the most recent failed call on the calling
/// thread (what went wrong and where: object, component, manifest byte),
/// or `""` when no call has failed on this thread yet. Successful calls
/// leave it unchanged.
///
/// Ownership: a NUL-terminated string owned by the library, in thread-local
/// storage; never free it. It stays valid until the next failing call on
/// the same thread (copy it to keep it) and until the thread exits.
/// Thread-safety: safe from any thread; each thread has its own message.
#[no_mangle]
pub extern "C" fn zt_last_error() -> *const c_char {
    guard_value(c"".as_ptr(), guard::last_error_ptr)
}

fn dtype_of(v: u32) -> Option<DType> {
    DType::ALL.get(v as usize).copied()
}

/// The v1.2 name of a `zt_dtype` (`"f32"`, `"bf16"`, `"bool"`, ...), or
/// NULL for a value that is not a `zt_dtype`.
///
/// Ownership: a static NUL-terminated string; never free it.
/// Thread-safety: safe from any thread.
#[no_mangle]
pub extern "C" fn zt_dtype_name(dtype: u32) -> *const c_char {
    let s: &'static core::ffi::CStr = match dtype_of(dtype) {
        Some(DType::F64) => c"f64",
        Some(DType::F32) => c"f32",
        Some(DType::F16) => c"f16",
        Some(DType::BF16) => c"bf16",
        Some(DType::I64) => c"i64",
        Some(DType::I32) => c"i32",
        Some(DType::I16) => c"i16",
        Some(DType::I8) => c"i8",
        Some(DType::U64) => c"u64",
        Some(DType::U32) => c"u32",
        Some(DType::U16) => c"u16",
        Some(DType::U8) => c"u8",
        Some(DType::Bool) => c"bool",
        None => return core::ptr::null(),
    };
    s.as_ptr()
}

/// Bytes per element of a `zt_dtype` (1, 2, 4 or 8), or 0 for a value that
/// is not a `zt_dtype`.
///
/// Ownership: nothing to free. Thread-safety: safe from any thread.
#[no_mangle]
pub extern "C" fn zt_dtype_size(dtype: u32) -> usize {
    dtype_of(dtype).map_or(0, |d| d.width() as usize)
}

fn c_dtype(d: DType) -> zt_dtype {
    use zt_dtype::*;
    match d {
        DType::F64 => ZT_DTYPE_F64,
        DType::F32 => ZT_DTYPE_F32,
        DType::F16 => ZT_DTYPE_F16,
        DType::BF16 => ZT_DTYPE_BF16,
        DType::I64 => ZT_DTYPE_I64,
        DType::I32 => ZT_DTYPE_I32,
        DType::I16 => ZT_DTYPE_I16,
        DType::I8 => ZT_DTYPE_I8,
        DType::U64 => ZT_DTYPE_U64,
        DType::U32 => ZT_DTYPE_U32,
        DType::U16 => ZT_DTYPE_U16,
        DType::U8 => ZT_DTYPE_U8,
        DType::Bool => ZT_DTYPE_BOOL,
    }
}

// ===================================================================== opening

/// Open and validate the file at `path` (NUL-terminated; bytes as the OS
/// takes them). By default the file is memory-mapped: opening costs
/// O(manifest) whatever the file's size, and raw components are available
/// without copying (`zt_component_ptr`, 64-byte aligned). With
/// `ZT_OPEN_POSITIONAL`, only the footer and manifest are read now and each
/// component is read when asked for.
///
/// On success `*out` receives a new handle; on failure `*out` is set to
/// NULL and `zt_last_error()` says why (`ZT_ERR_IO`, `ZT_ERR_FORMAT`,
/// `ZT_ERR_UNSUPPORTED`; `ZT_ERR_INVALID_ARGUMENT` for a NULL pointer or an
/// unknown flag).
///
/// Ownership: the caller owns the handle and must release it with
/// `zt_close` exactly once. `path` is not kept. The file must not be
/// truncated or rewritten while mapped.
/// Thread-safety: may be called from any thread. The handle may then be
/// used from many threads at once (every call except `zt_close` only reads).
///
/// # Safety
/// `path` is NULL or NUL-terminated; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_open(path: *const c_char, flags: u32, out: *mut *mut zt_file) -> zt_status {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { put(out, core::ptr::null_mut(), "`out` is NULL")? };
        if path.is_null() {
            return Err(Fail::invalid("`path` is NULL"));
        }
        if flags & !ZT_OPEN_POSITIONAL != 0 {
            return Err(Fail::invalid("unknown `zt_open` flag"));
        }
        // SAFETY: NUL-terminated, by the caller's contract.
        let bytes = unsafe { std::ffi::CStr::from_ptr(path) }.to_bytes();
        #[cfg(unix)]
        let p = std::path::Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(bytes));
        #[cfg(not(unix))]
        let p = std::path::Path::new(core::str::from_utf8(bytes).map_err(|_| Fail::invalid("`path` is not UTF-8"))?);
        let mode = if flags & ZT_OPEN_POSITIONAL != 0 { Mode::Positional } else { Mode::Mmap };
        let reader = Reader::open_with(p, mode).map_err(|e| Fail::fs(e, Phase::Open))?;
        // SAFETY: checked non-NULL above.
        unsafe { *out = Box::into_raw(Box::new(zt_file::from_reader(reader, p))) };
        Ok(())
    })
}

/// Validate a whole file held in memory the caller owns: a flash-mapped
/// model, a file loaded by other means, an embedded array. Nothing is
/// copied: objects, names and zero-copy pointers point into `ptr`.
/// `zt_component_ptr` is 64-byte aligned when `ptr` is.
///
/// On success `*out` receives a new handle; on failure `*out` is set to
/// NULL (`ZT_ERR_FORMAT`, `ZT_ERR_UNSUPPORTED`; `ZT_ERR_INVALID_ARGUMENT`
/// when `ptr` is NULL with a nonzero `len`).
///
/// Ownership: the caller keeps ownership of the bytes, which must stay
/// valid and unchanged until `zt_close(*out)`. The caller owns the handle
/// and must release it with `zt_close`. Allocation: the file's bytes are
/// never copied; the handle holds a name index for O(log n) `zt_find`
/// (about 28 bytes per object), and validation uses transient scratch (in
/// all, about 80 bytes per object allocated during the call).
/// Thread-safety: as `zt_open`.
///
/// # Safety
/// `ptr` is NULL or valid for `len` bytes for the handle's lifetime; `out`
/// is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_open_mem(ptr: *const u8, len: usize, out: *mut *mut zt_file) -> zt_status {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { put(out, core::ptr::null_mut(), "`out` is NULL")? };
        let bytes: &'static [u8] = if ptr.is_null() {
            if len != 0 {
                return Err(Fail::invalid("`ptr` is NULL"));
            }
            &[]
        } else {
            if len > isize::MAX as usize {
                return Err(Fail::invalid("`len` is too large"));
            }
            // SAFETY: valid for `len` bytes for as long as the handle lives,
            // by the caller's contract; the handle never outlives it.
            unsafe { core::slice::from_raw_parts(ptr, len) }
        };
        let file = File::parse(bytes).map_err(|e| Fail::core(e, Phase::Open))?;
        // SAFETY: checked non-NULL above.
        unsafe { *out = Box::into_raw(Box::new(zt_file::from_memory(file))) };
        Ok(())
    })
}

/// Release a handle from `zt_open` / `zt_open_mem`: unmaps or closes the
/// file. Every pointer obtained from it (names, strings, zero-copy data)
/// becomes invalid. `zt_close(NULL)` does nothing.
///
/// Ownership: consumes the handle; closing it twice is undefined behaviour.
/// Thread-safety: no other thread may be using the handle.
///
/// # Safety
/// `file` is NULL or a live handle not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn zt_close(file: *mut zt_file) {
    guard_value((), || {
        if !file.is_null() {
            // SAFETY: a live handle from `Box::into_raw`, by the caller's contract.
            drop(unsafe { Box::from_raw(file) });
        }
    })
}

/// Facts about the file: format version, mode, object count, sizes.
///
/// `*info` is filled on success and zeroed on failure.
/// Ownership: nothing to free. Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` is NULL or live; `info` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_file_get_info(file: *const zt_file, info: *mut zt_file_info) -> zt_status {
    guard(|| {
        if info.is_null() {
            return Err(Fail::invalid("`info` is NULL"));
        }
        // SAFETY: non-NULL and writable, by the caller's contract.
        unsafe { info.write(core::mem::zeroed()) };
        // SAFETY: the caller's contract.
        let h = unsafe { handle(file)? };
        let f = h.file();
        let v = f.version();
        let tail = f.tail();
        let value = zt_file_info {
            version_major: v.major.into(),
            version_minor: v.minor.into(),
            version_patch: v.patch.into(),
            mode: h.mode(),
            object_count: f.len(),
            attribute_count: f.attributes().len(),
            file_length: tail.file_len,
            manifest_offset: tail.manifest_offset,
            manifest_length: tail.manifest_len,
        };
        // SAFETY: as above.
        unsafe { info.write(value) };
        Ok(())
    })
}

// ===================================================================== objects

/// Number of objects in the file; 0 when `file` is NULL.
///
/// Ownership: nothing to free. Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn zt_object_count(file: *const zt_file) -> usize {
    // SAFETY: the caller's contract.
    guard_value(0, || unsafe { file.as_ref() }.map_or(0, |h| h.file().len()))
}

/// The object at position `index` in manifest order (O(1)).
///
/// `ZT_ERR_INVALID_ARGUMENT` when `index >= zt_object_count(file)`.
/// Ownership: `zt_object` is a plain value. Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` is NULL or live; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_object_at(file: *const zt_file, index: usize, out: *mut zt_object) -> zt_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let h = unsafe { handle(file)? };
        if index >= h.file().len() {
            return Err(Fail::invalid("object index out of range"));
        }
        // SAFETY: the caller's contract.
        unsafe { put(out, zt_object { index }, "`out` is NULL") }
    })
}

/// Find the object called `name` (`name_len` bytes, or `ZT_NUL_TERMINATED`):
/// O(log n) through an index built at open. Names are compared byte for
/// byte (no Unicode normalization).
///
/// `ZT_ERR_NOT_FOUND` when there is none (`*out` untouched). A NULL `name`
/// is allowed with length 0 (the empty name).
/// Ownership: `name` is not kept. Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` is NULL or live; `name` valid for `name_len` bytes (or
/// NUL-terminated); `out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_find(
    file: *const zt_file,
    name: *const c_char,
    name_len: usize,
    out: *mut zt_object,
) -> zt_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let h = unsafe { handle(file)? };
        // SAFETY: the caller's contract.
        let name = unsafe { bytes_arg(name, name_len, "`name` is NULL")? };
        if out.is_null() {
            return Err(Fail::invalid("`out` is NULL"));
        }
        // A name that is not UTF-8 names no object.
        let name = core::str::from_utf8(name).map_err(|_| not_found(Some("(not UTF-8)"), None))?;
        let o = h.file().get(name).ok_or_else(|| not_found(Some(name), None))?;
        // SAFETY: checked non-NULL above.
        unsafe { out.write(zt_object { index: o.index() }) };
        Ok(())
    })
}

/// The object's name: `*name` points into the file (NOT NUL-terminated; it
/// may contain NUL bytes), `*len` is its length in bytes.
///
/// Ownership: borrowed from the handle, valid until `zt_close`.
/// Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` is NULL or live; `obj` NULL or readable; `name`, `len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_object_name(
    file: *const zt_file,
    obj: *const zt_object,
    name: *mut *const c_char,
    len: *mut usize,
) -> zt_status {
    guard(|| {
        // SAFETY: the caller's contract, for every call below.
        let h = unsafe { handle(file)? };
        let o = unsafe { object(h, obj)? };
        if name.is_null() || len.is_null() {
            return Err(Fail::invalid("`name` or `len` is NULL"));
        }
        unsafe {
            name.write(o.name().as_ptr().cast());
            len.write(o.name().len());
        }
        Ok(())
    })
}

/// The object's format name (`"dense"`, `"sparse_csr"`, `"sparse_coo"`,
/// `"quantized_group"`, or one this library does not know): `*format`
/// points into the file (or static memory), NOT NUL-terminated.
///
/// Ownership: borrowed, valid until `zt_close`. Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` is NULL or live; `obj` NULL or readable; `format`, `len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_object_format(
    file: *const zt_file,
    obj: *const zt_object,
    format: *mut *const c_char,
    len: *mut usize,
) -> zt_status {
    guard(|| {
        // SAFETY: the caller's contract, for every call below.
        let h = unsafe { handle(file)? };
        let o = unsafe { object(h, obj)? };
        if format.is_null() || len.is_null() {
            return Err(Fail::invalid("`format` or `len` is NULL"));
        }
        let s = o.format().name();
        unsafe {
            format.write(s.as_ptr().cast());
            len.write(s.len());
        }
        Ok(())
    })
}

fn c_format(f: Format<'_>) -> zt_format {
    match f {
        Format::Dense => zt_format::ZT_FORMAT_DENSE,
        Format::SparseCsr => zt_format::ZT_FORMAT_SPARSE_CSR,
        Format::SparseCoo => zt_format::ZT_FORMAT_SPARSE_COO,
        Format::QuantizedGroup => zt_format::ZT_FORMAT_QUANTIZED_GROUP,
        _ => zt_format::ZT_FORMAT_OTHER,
    }
}

/// Summary of an object: name, format, ndim, numel, component and
/// attribute counts.
///
/// `*info` is filled on success and zeroed on failure.
/// Ownership: strings in `*info` are borrowed, valid until `zt_close`.
/// Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` is NULL or live; `obj` NULL or readable; `info` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_object_get_info(
    file: *const zt_file,
    obj: *const zt_object,
    info: *mut zt_object_info,
) -> zt_status {
    guard(|| {
        if info.is_null() {
            return Err(Fail::invalid("`info` is NULL"));
        }
        // SAFETY: the caller's contract, for every call below.
        unsafe { info.write(core::mem::zeroed()) };
        let h = unsafe { handle(file)? };
        let o = unsafe { object(h, obj)? };
        let value = zt_object_info {
            name: o.name().as_ptr().cast(),
            name_len: o.name().len(),
            format: o.format().name().as_ptr().cast(),
            format_len: o.format().name().len(),
            format_kind: c_format(o.format()),
            ndim: o.shape().ndim(),
            numel: o.shape().numel(),
            component_count: o.component_count(),
            attribute_count: o.attributes().len(),
        };
        unsafe { info.write(value) };
        Ok(())
    })
}

/// The object's shape: `*ndim` receives the number of dimensions (when
/// `ndim` is not NULL) and, when `cap >= ndim`, `dims[0..ndim]` the
/// dimensions. `ZT_ERR_BUFFER_TOO_SMALL` when `cap` is smaller (dims
/// untouched, `*ndim` set): call with `dims = NULL, cap = 0` to ask.
///
/// Ownership: the caller owns `dims`. Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `dims` NULL or writable for
/// `cap` values; `ndim` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_object_shape(
    file: *const zt_file,
    obj: *const zt_object,
    dims: *mut u64,
    cap: usize,
    ndim: *mut usize,
) -> zt_status {
    guard(|| {
        // SAFETY: the caller's contract, for every call below.
        let h = unsafe { handle(file)? };
        let o = unsafe { object(h, obj)? };
        let shape = o.shape();
        unsafe { put_opt(ndim, shape.ndim()) };
        if cap < shape.ndim() {
            let e = CoreError::new(ErrorKind::BufferTooSmall { needed: shape.ndim() as u64 }).in_object(o.name());
            return Err(Fail { status: zt_status::ZT_ERR_BUFFER_TOO_SMALL, detail: Detail::Core(e) });
        }
        if shape.ndim() > 0 {
            if dims.is_null() {
                return Err(Fail::invalid("`dims` is NULL"));
            }
            let out = unsafe { core::slice::from_raw_parts_mut(dims, shape.ndim()) };
            shape.copy_to(out);
        }
        Ok(())
    })
}

// ===================================================================== attributes

/// The attributes of `obj`, or of the file when `obj` is NULL.
///
/// # Safety
/// `obj` is NULL or readable.
unsafe fn attributes<'f>(h: &'f zt_file, obj: *const zt_object) -> Result<Map<'f>, Fail> {
    if obj.is_null() {
        Ok(h.file().attributes())
    } else {
        // SAFETY: the caller's contract.
        Ok(unsafe { object(h, obj)? }.attributes())
    }
}

fn describe(k: Value<'_>, v: Value<'_>) -> zt_attribute {
    let (key, key_len) = match k.as_str() {
        Some(s) => (s.as_ptr().cast(), s.len()),
        None => (core::ptr::null(), 0),
    };
    let (kc, vc) = (k.raw(), v.raw());
    let mut a = zt_attribute {
        key,
        key_len,
        key_cbor: kc.as_ptr(),
        key_cbor_len: kc.len(),
        cbor: vc.as_ptr(),
        cbor_len: vc.len(),
        kind: zt_value_kind::ZT_VALUE_UNDEFINED,
        has_int: false,
        bool_value: false,
        int_value: 0,
        uint_value: 0,
        float_value: 0.0,
        data: core::ptr::null(),
        data_len: 0,
        count: 0,
    };
    if let Some(i) = v.as_i64() {
        a.has_int = true;
        a.int_value = i;
    }
    if let Some(f) = v.as_f64() {
        a.float_value = f;
    }
    use zt_value_kind::*;
    a.kind = match v.get() {
        ValueRef::Uint(n) => {
            a.uint_value = n;
            ZT_VALUE_UINT
        }
        ValueRef::NegInt(n) => {
            a.uint_value = n;
            ZT_VALUE_NEGINT
        }
        ValueRef::Float(_) => ZT_VALUE_FLOAT,
        ValueRef::Bool(b) => {
            a.bool_value = b;
            ZT_VALUE_BOOL
        }
        ValueRef::Null => ZT_VALUE_NULL,
        ValueRef::Undefined => ZT_VALUE_UNDEFINED,
        ValueRef::Text(c) | ValueRef::Bytes(c) => {
            if let Some(b) = c.contiguous() {
                a.data = b.as_ptr();
                a.data_len = b.len();
            }
            if matches!(v.get(), ValueRef::Text(_)) {
                ZT_VALUE_TEXT
            } else {
                ZT_VALUE_BYTES
            }
        }
        ValueRef::Array(x) => {
            a.count = x.len();
            ZT_VALUE_ARRAY
        }
        ValueRef::Map(m) => {
            a.count = m.len();
            ZT_VALUE_MAP
        }
        ValueRef::Tag(t, _) => {
            a.uint_value = t;
            ZT_VALUE_TAG
        }
        ValueRef::Simple(s) => {
            a.uint_value = s.into();
            ZT_VALUE_SIMPLE
        }
    };
    a
}

/// Number of attributes of `obj`, or of the file when `obj` is NULL
/// (0 when there are none).
///
/// Ownership: nothing to free. Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `count` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_attribute_count(
    file: *const zt_file,
    obj: *const zt_object,
    count: *mut usize,
) -> zt_status {
    guard(|| {
        // SAFETY: the caller's contract, for every call below.
        let h = unsafe { handle(file)? };
        let m = unsafe { attributes(h, obj)? };
        unsafe { put(count, m.len(), "`count` is NULL") }
    })
}

/// The attribute at position `index` (in encoded order) of `obj`, or of
/// the file when `obj` is NULL. O(index): iterate with care on huge maps.
///
/// `ZT_ERR_INVALID_ARGUMENT` when `index` is out of range. `*attr` is
/// filled on success and zeroed on failure.
/// Ownership: pointers in `*attr` are borrowed, valid until `zt_close`.
/// Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `attr` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_attribute_at(
    file: *const zt_file,
    obj: *const zt_object,
    index: usize,
    attr: *mut zt_attribute,
) -> zt_status {
    guard(|| {
        if attr.is_null() {
            return Err(Fail::invalid("`attr` is NULL"));
        }
        // SAFETY: the caller's contract, for every call below.
        unsafe { attr.write(core::mem::zeroed()) };
        let h = unsafe { handle(file)? };
        let m = unsafe { attributes(h, obj)? };
        let (k, v) = m.iter().nth(index).ok_or_else(|| Fail::invalid("attribute index out of range"))?;
        unsafe { attr.write(describe(k, v)) };
        Ok(())
    })
}

/// The attribute whose text key is `key` (`key_len` bytes, or
/// `ZT_NUL_TERMINATED`) of `obj`, or of the file when `obj` is NULL.
///
/// `ZT_ERR_NOT_FOUND` when there is none. `*attr` is filled on success and
/// zeroed on failure.
/// Ownership: pointers in `*attr` are borrowed, valid until `zt_close`.
/// Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `key` valid for `key_len`
/// bytes (or NUL-terminated); `attr` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_attribute_find(
    file: *const zt_file,
    obj: *const zt_object,
    key: *const c_char,
    key_len: usize,
    attr: *mut zt_attribute,
) -> zt_status {
    guard(|| {
        if attr.is_null() {
            return Err(Fail::invalid("`attr` is NULL"));
        }
        // SAFETY: the caller's contract, for every call below.
        unsafe { attr.write(core::mem::zeroed()) };
        let h = unsafe { handle(file)? };
        let key = unsafe { bytes_arg(key, key_len, "`key` is NULL")? };
        let m = unsafe { attributes(h, obj)? };
        let (k, v) = m
            .iter()
            .find(|(k, _)| k.as_str().map(str::as_bytes) == Some(key))
            .ok_or_else(|| Fail::with(zt_status::ZT_ERR_NOT_FOUND, "no attribute with that key"))?;
        unsafe { attr.write(describe(k, v)) };
        Ok(())
    })
}

// ===================================================================== components

fn describe_component(c: &Component<'_>) -> zt_component_info {
    let (lt, lt_len) = match c.logical_type() {
        Some(t) => (t.name().as_ptr().cast(), t.name().len()),
        None => (core::ptr::null(), 0),
    };
    let (dg, dg_len) = match c.digest() {
        Some(d) => (d.as_ptr().cast(), d.len()),
        None => (core::ptr::null(), 0),
    };
    zt_component_info {
        role: c.role().as_ptr().cast(),
        role_len: c.role().len(),
        dtype: c_dtype(c.dtype()),
        encoding: match c.encoding() {
            Encoding::Raw => zt_encoding::ZT_ENCODING_RAW,
            Encoding::Zstd => zt_encoding::ZT_ENCODING_ZSTD,
        },
        logical_type: lt,
        logical_type_len: lt_len,
        offset: c.offset(),
        length: c.length(),
        uncompressed_length: c.uncompressed_length().unwrap_or(0),
        has_uncompressed_length: c.uncompressed_length().is_some(),
        big_endian: c.endian() == ztensor_core::Endian::Big,
        has_decoded_length: c.decoded_len().is_some(),
        decoded_length: c.decoded_len().unwrap_or(0),
        digest: dg,
        digest_len: dg_len,
    }
}

/// Resolve `obj` and its component `role`.
///
/// # Safety
/// As the entry points: `file` NULL or live, `obj` NULL or readable, `role`
/// valid for `role_len` bytes or NUL-terminated.
unsafe fn component<'f>(
    file: *const zt_file,
    obj: *const zt_object,
    role: *const c_char,
    role_len: usize,
) -> Result<(&'f zt_file, ztensor_core::Object<'f>, Component<'f>), Fail> {
    // SAFETY: the caller's contract, for every call below.
    let h = unsafe { handle(file)? };
    let o = unsafe { object(h, obj)? };
    let role = unsafe { bytes_arg(role, role_len, "`role` is NULL")? };
    let c = core::str::from_utf8(role)
        .ok()
        .and_then(|r| o.component(r))
        .ok_or_else(|| not_found(Some(o.name()), Some(role)))?;
    Ok((h, o, c))
}

/// The component `role` (`role_len` bytes, or `ZT_NUL_TERMINATED`) of an
/// object: dtype, logical type, encoding, offset, stored and decoded sizes,
/// digest. Dense objects have one component, `"data"`.
///
/// `ZT_ERR_NOT_FOUND` when the object has no such role. `*info` is filled
/// on success and zeroed on failure.
/// Ownership: strings in `*info` are borrowed, valid until `zt_close`.
/// Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `role` valid for
/// `role_len` bytes (or NUL-terminated); `info` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_component(
    file: *const zt_file,
    obj: *const zt_object,
    role: *const c_char,
    role_len: usize,
    info: *mut zt_component_info,
) -> zt_status {
    guard(|| {
        if info.is_null() {
            return Err(Fail::invalid("`info` is NULL"));
        }
        // SAFETY: the caller's contract, for every call below.
        unsafe { info.write(core::mem::zeroed()) };
        let (_, _, c) = unsafe { component(file, obj, role, role_len)? };
        unsafe { info.write(describe_component(&c)) };
        Ok(())
    })
}

/// The component at position `index` (manifest order) of an object, to
/// iterate over components; `index < zt_object_get_info(...).component_count`.
///
/// `ZT_ERR_INVALID_ARGUMENT` when `index` is out of range. `*info` is
/// filled on success and zeroed on failure.
/// Ownership: strings in `*info` are borrowed, valid until `zt_close`.
/// Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `info` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_component_at(
    file: *const zt_file,
    obj: *const zt_object,
    index: usize,
    info: *mut zt_component_info,
) -> zt_status {
    guard(|| {
        if info.is_null() {
            return Err(Fail::invalid("`info` is NULL"));
        }
        // SAFETY: the caller's contract, for every call below.
        unsafe { info.write(core::mem::zeroed()) };
        let h = unsafe { handle(file)? };
        let o = unsafe { object(h, obj)? };
        let c = o.components().nth(index).ok_or_else(|| Fail::invalid("component index out of range"))?;
        unsafe { info.write(describe_component(&c)) };
        Ok(())
    })
}

/// Zero-copy access to a raw component's stored bytes: `*ptr` points into
/// the mapping (or the caller's memory for `zt_open_mem`), `*len` is the
/// length in bytes. Elements are little-endian, as on the host. With
/// `zt_open`, the pointer is 64-byte aligned.
///
/// `ZT_ERR_NOT_ZERO_COPY` when the component is zstd-compressed, its
/// elements are big-endian (v0.1) or the host is, or the file was opened
/// with `ZT_OPEN_POSITIONAL`: use `zt_component_read` then. On failure
/// `*ptr` is NULL and `*len` 0.
///
/// Ownership: borrowed, read-only, valid until `zt_close`.
/// Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `role` valid for
/// `role_len` bytes (or NUL-terminated); `ptr`, `len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_component_ptr(
    file: *const zt_file,
    obj: *const zt_object,
    role: *const c_char,
    role_len: usize,
    ptr: *mut *const u8,
    len: *mut usize,
) -> zt_status {
    guard(|| {
        if ptr.is_null() || len.is_null() {
            return Err(Fail::invalid("`ptr` or `len` is NULL"));
        }
        // SAFETY: the caller's contract, for every call below.
        unsafe {
            ptr.write(core::ptr::null());
            len.write(0);
        }
        let (h, o, c) = unsafe { component(file, obj, role, role_len)? };
        let bytes = h.zero_copy(&o, &c)?;
        unsafe {
            ptr.write(bytes.as_ptr());
            len.write(bytes.len());
        }
        Ok(())
    })
}

/// Decode a component into the caller's buffer `dst` of `cap` bytes,
/// whatever its encoding (raw, zstd) and the file's byte order: elements
/// come out little-endian. `*written` receives the bytes written.
///
/// `ZT_ERR_BUFFER_TOO_SMALL` when `cap` is less than the decoded size;
/// `*written` then receives the size needed. To size a buffer, call with
/// `dst = NULL, cap = 0`: unlike `zt_component_info.decoded_length` (what
/// the manifest declares), that size has been checked to be one the stored
/// bytes can produce, so a hostile file cannot make you allocate terabytes.
/// `ZT_ERR_CORRUPT_DATA` when zstd data is corrupt, declares an impossible
/// size, or decodes to another size than declared; `ZT_ERR_IO` when a
/// positional read fails.
///
/// Ownership: the caller owns `dst`. Thread-safety: safe on a shared
/// handle (each thread with its own `dst`).
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `role` valid for
/// `role_len` bytes (or NUL-terminated); `dst` NULL or writable for `cap`
/// bytes; `written` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_component_read(
    file: *const zt_file,
    obj: *const zt_object,
    role: *const c_char,
    role_len: usize,
    dst: *mut core::ffi::c_void,
    cap: usize,
    written: *mut usize,
) -> zt_status {
    guard(|| {
        if written.is_null() {
            return Err(Fail::invalid("`written` is NULL"));
        }
        // SAFETY: the caller's contract, for every call below.
        unsafe { written.write(0) };
        let (h, o, c) = unsafe { component(file, obj, role, role_len)? };
        let too_small = |needed: u64| {
            let e = CoreError::new(ErrorKind::BufferTooSmall { needed }).in_object(o.name()).in_component(c.role());
            // SAFETY: checked non-NULL above.
            unsafe { written.write(usize::try_from(needed).unwrap_or(usize::MAX)) };
            Err(Fail { status: zt_status::ZT_ERR_BUFFER_TOO_SMALL, detail: Detail::Core(e) })
        };
        let needed = c.decoded_len();
        if let (Encoding::Zstd, Some(n)) = (c.encoding(), needed) {
            // Refuse a declared size the stored bytes cannot produce before
            // a caller allocates it (the core checks the same when decoding).
            let max = c.length().saturating_mul(ztensor_core::read::MAX_ZSTD_RATIO).saturating_add(ZSTD_MAX_BLOCK);
            if n > max {
                let e = CoreError::new(ErrorKind::DecodedTooLarge { limit: max })
                    .in_object(o.name())
                    .in_component(c.role());
                return Err(Fail::core(e, Phase::Data));
            }
        }
        if let Some(n) = needed {
            if (cap as u64) < n {
                return too_small(n);
            }
        }
        if dst.is_null() && cap > 0 {
            return Err(Fail::invalid("`dst` is NULL"));
        }
        let out: &mut [u8] =
            if cap == 0 { &mut [] } else { unsafe { core::slice::from_raw_parts_mut(dst.cast::<u8>(), cap) } };
        match h.read_into(&c, out) {
            Ok(n) => {
                unsafe { written.write(n) };
                Ok(())
            }
            // No size is declared anywhere (old zstd components outside
            // dense `data`): find it by decoding, to say what is needed.
            Err(Fail { detail: Detail::Core(e), .. })
                if needed.is_none() && matches!(e.kind(), ErrorKind::DecodedTooLarge { .. }) =>
            {
                let v = h.to_vec(&c).map_err(|f| in_object(f, o.name()))?;
                too_small(v.len() as u64)
            }
            Err(f) => Err(in_object(f, o.name())),
        }
    })
}

/// Most bytes one zstd block can decode to (the slack `MAX_ZSTD_RATIO` allows).
const ZSTD_MAX_BLOCK: u64 = 128 * 1024;

/// Attach the object's name to a core error that lacks it.
fn in_object(f: Fail, name: &str) -> Fail {
    match f.detail {
        Detail::Core(e) => Fail { status: f.status, detail: Detail::Core(e.in_object(name)) },
        _ => f,
    }
}

// ===================================================================== verify

/// Deep check of the whole file, O(data): with `ZT_VERIFY_DIGESTS`, every
/// component's digest over its stored bytes (an unknown algorithm is
/// skipped, not an error); with `ZT_VERIFY_DATA`, every component decodes
/// to its declared length and the format's rules hold for the values (CSR
/// `indptr` monotone and within bounds, COO coordinates inside the shape,
/// bool bytes 0 or 1). `flags = 0` means `ZT_VERIFY_ALL`.
///
/// `ZT_OK` when nothing is wrong. Otherwise the status of the first
/// problem (`ZT_ERR_DIGEST_MISMATCH`, `ZT_ERR_CORRUPT_DATA`,
/// `ZT_ERR_FORMAT` for a malformed digest, `ZT_ERR_IO`) and
/// `zt_last_error()` says how many problems there are and what the first is.
/// In positional mode the file is memory-mapped for the duration of the
/// call (after checking it is still the file that was opened; if it changed,
/// `ZT_ERR_IO`); where it cannot be mapped, digests and decoded lengths are
/// checked through positional reads and the sparse/bool value rules are not.
///
/// Ownership: nothing to free; buffers used for decoding are the library's
/// and released before returning. Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn zt_verify(file: *const zt_file, flags: u32) -> zt_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let h = unsafe { handle(file)? };
        if flags & !ZT_VERIFY_ALL != 0 {
            return Err(Fail::invalid("unknown `zt_verify` flag"));
        }
        let flags = if flags == 0 { ZT_VERIFY_ALL } else { flags };
        verify(h, flags & ZT_VERIFY_DIGESTS != 0, flags & ZT_VERIFY_DATA != 0)
    })
}

/// Problems found by a verification: how many, and the first.
#[derive(Default)]
struct Problems {
    count: usize,
    first: Option<(zt_status, CoreError)>,
}

impl Problems {
    fn report(&mut self, f: Fail, object: &str) {
        self.count += 1;
        if self.first.is_none() {
            let e = match f.detail {
                Detail::Core(e) => e.in_object(object),
                _ => CoreError::new(ErrorKind::Io).in_object(object),
            };
            self.first = Some((f.status, e));
        }
    }

    fn into_result(self) -> Result<(), Fail> {
        match self.first {
            None => Ok(()),
            Some((status, first)) => Err(Fail { status, detail: Detail::Verify { count: self.count, first } }),
        }
    }
}

fn verify(h: &zt_file, digests: bool, data: bool) -> Result<(), Fail> {
    if let Some(path) = h.positional_path() {
        // The data rules need the component bytes side by side: map the file
        // for the duration of the check, after making sure it is the same.
        if let Ok(mapped) = Reader::open_with(path, Mode::Mmap) {
            let (a, b) = (mapped.file(), h.file());
            if a.tail() != b.tail() || a.manifest_bytes() != b.manifest_bytes() {
                return Err(Fail::with(zt_status::ZT_ERR_IO, "the file changed on disk since it was opened"));
            }
            return verify_file(a, digests, data);
        }
        return verify_positional(h, digests, data);
    }
    verify_file(h.file(), digests, data)
}

/// Verify a file whose bytes are in memory (mapped or lent).
fn verify_file(file: &File<'_>, digests: bool, data: bool) -> Result<(), Fail> {
    let mut p = Problems::default();
    for o in file.objects() {
        if digests {
            for c in o.components() {
                if let Err(e) = c.verify_digest() {
                    p.report(Fail::core(e, Phase::Data), o.name());
                }
            }
        }
        if data {
            if let Err(e) = o.check_data() {
                p.report(Fail::core(e, Phase::Data), o.name());
            }
        }
    }
    p.into_result()
}

/// Verify through positional reads (when the file cannot be mapped):
/// digests, and that every component decodes to its declared length.
fn verify_positional(h: &zt_file, digests: bool, data: bool) -> Result<(), Fail> {
    use ztensor_core::digest::Digest;
    let mut p = Problems::default();
    for o in h.file().objects() {
        for c in o.components() {
            if let (true, Some(d)) = (digests, c.digest()) {
                match Digest::parse(d) {
                    Err(e) => p.report(Fail::core(e.in_component(c.role()), Phase::Data), o.name()),
                    Ok(d) => match h.read_stored(&c) {
                        Err(f) => p.report(f, o.name()),
                        Ok(bytes) if d.matches(&bytes) == Some(false) => {
                            let e = CoreError::new(ErrorKind::DigestMismatch).in_component(c.role());
                            p.report(Fail::core(e, Phase::Data), o.name());
                        }
                        Ok(_) => {}
                    },
                }
            }
            if data {
                match h.to_vec(&c) {
                    Err(f) => p.report(f, o.name()),
                    Ok(v) => {
                        if let Some(n) = c.decoded_len().filter(|&n| n != v.len() as u64) {
                            let kind = ErrorKind::LengthMismatch { expected: n, actual: v.len() as u64 };
                            p.report(Fail::core(CoreError::new(kind).in_component(c.role()), Phase::Data), o.name());
                        }
                    }
                }
            }
        }
    }
    p.into_result()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_constants_match_the_crate() {
        let v = format!("{ZT_VERSION_MAJOR}.{ZT_VERSION_MINOR}.{ZT_VERSION_PATCH}");
        assert_eq!(v, env!("CARGO_PKG_VERSION"), "update ZT_VERSION_* in ffi/src/lib.rs");
        let s = unsafe { std::ffi::CStr::from_ptr(zt_version()) };
        assert_eq!(s.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    }

    #[test]
    fn dtype_enum_matches_the_core_order() {
        for (i, d) in DType::ALL.iter().enumerate() {
            assert_eq!(c_dtype(*d) as u32, i as u32);
            let name = unsafe { std::ffi::CStr::from_ptr(zt_dtype_name(i as u32)) };
            assert_eq!(name.to_str().unwrap(), d.name());
            assert_eq!(zt_dtype_size(i as u32) as u64, d.width());
        }
        assert!(zt_dtype_name(13).is_null());
        assert_eq!(zt_dtype_size(13), 0);
    }

    #[test]
    fn opens_the_doc_example_from_memory() {
        let bytes = ztensor_core::doc_example_file();
        let mut f = core::ptr::null_mut();
        unsafe {
            assert_eq!(zt_open_mem(bytes.as_ptr(), bytes.len(), &mut f), zt_status::ZT_OK);
            assert_eq!(zt_object_count(f), 2);
            let mut o = zt_object { index: 99 };
            assert_eq!(zt_find(f, c"bias".as_ptr(), ZT_NUL_TERMINATED, &mut o), zt_status::ZT_OK);
            let (mut p, mut n) = (core::ptr::null(), 0);
            assert_eq!(zt_component_ptr(f, &o, c"data".as_ptr(), 4, &mut p, &mut n), zt_status::ZT_OK);
            assert_eq!(n, 8);
            assert_eq!(p as usize % 64, 0);
            let mut buf = [0f32; 2];
            let mut w = 0;
            let s = zt_component_read(f, &o, c"data".as_ptr(), 4, buf.as_mut_ptr().cast(), 8, &mut w);
            assert_eq!((s, w, buf), (zt_status::ZT_OK, 8, [0.5, -0.5]));
            assert_eq!(zt_verify(f, 0), zt_status::ZT_OK);
            zt_close(f);
        }
    }
}
