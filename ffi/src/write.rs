//! The write half of the C ABI: `zt_writer` over the core's
//! `Writer` over a `FileSink` (streaming, append-only, published atomically).
//!
//! Every `zt_writer_add_*` call validates the object exactly as the reader
//! would validate it (the core writer runs the reader's own checks before
//! writing a byte), then writes its blobs to the temporary file before
//! returning: the caller's buffers are never kept.

use crate::dtype::dtype_of;
use crate::guard::{guard, guard_value, Detail, Fail, Phase};
use crate::handle::bytes_arg;
use crate::{zt_status, ZT_NUL_TERMINATED};
use core::ffi::{c_char, c_void};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use ztensor_core::write::{AttrValue, Checksum, Compression, Data, FileSink, NewComponent, NewObject, Sink, Writer};
use ztensor_core::{DType, Error as CoreError, ErrorKind, Format, LogicalType};

// ===================================================================== enums

/// Which digest `zt_write_options.digest` records for every component of an
/// object, computed over the stored bytes (the compressed frame for zstd).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum zt_digest {
    /// No digest (the default).
    ZT_DIGEST_NONE = 0,
    /// `"sha256:<64 lowercase hex digits>"`: cryptographic.
    ZT_DIGEST_SHA256 = 1,
    /// `"crc32c:0x<8 uppercase hex digits>"`: fast, catches accidental corruption.
    ZT_DIGEST_CRC32C = 2,
}

/// What a `zt_write_attribute` holds.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum zt_attr_kind {
    /// A signed integer: `int_value` (written as the shortest CBOR integer).
    ZT_ATTR_INT = 0,
    /// An unsigned integer: `uint_value` (for values above `INT64_MAX`).
    ZT_ATTR_UINT = 1,
    /// A float: `float_value` (written in the shortest of f16/f32/f64 that
    /// keeps it exactly).
    ZT_ATTR_FLOAT = 2,
    /// `true` / `false`: `bool_value`.
    ZT_ATTR_BOOL = 3,
    /// `null` (no value field is read).
    ZT_ATTR_NULL = 4,
    /// UTF-8 text: `data`, `data_len` (or `ZT_NUL_TERMINATED`).
    ZT_ATTR_TEXT = 5,
    /// A byte string: `data`, `data_len`.
    ZT_ATTR_BYTES = 6,
    /// One pre-encoded CBOR data item (an array, a map, a tag, ... or the
    /// `cbor` bytes of a `zt_attribute` read from another file): `data`,
    /// `data_len`. It must be exactly one well-formed item.
    ZT_ATTR_CBOR = 7,
}

// ===================================================================== structs

/// A writer of one new zTensor file (opaque): `zt_writer_create`, then
/// `zt_writer_add_*` / `zt_writer_set_attribute*`, then `zt_writer_finish`
/// (publish) or `zt_writer_abort` (discard).
pub struct zt_writer {
    writer: Writer<Publishing>,
    /// Whether the file was renamed into place: known after the writer is gone.
    published: Arc<AtomicBool>,
    path: PathBuf,
    /// Set while a call runs: still set afterwards only if that call
    /// panicked, when the writer's state is no longer trusted.
    busy: bool,
}

/// The writer's [`FileSink`], recording whether `finish` renamed the file
/// into place even when a later step (syncing the directory) fails.
struct Publishing {
    sink: FileSink,
    published: Arc<AtomicBool>,
}

impl Sink for Publishing {
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), CoreError> {
        self.sink.write_all(bytes)
    }

    fn finish(&mut self) -> Result<(), CoreError> {
        let r = self.sink.finish();
        self.published.store(self.sink.is_published(), Ordering::Relaxed);
        r
    }

    fn take_io_error(&mut self) -> Option<std::io::Error> {
        self.sink.take_io_error()
    }
}

// A writer may be handed from one thread to another (never shared).
const _: () = {
    const fn send<T: Send>() {}
    send::<zt_writer>();
};

/// One attribute to write: a text key and a typed value. Only the field
/// that `kind` names is read (plus `data`/`data_len` for text, bytes and
/// CBOR). Zero-initialize it, then set `key`, `kind` and the value.
#[repr(C)]
pub struct zt_write_attribute {
    /// The key (UTF-8).
    pub key: *const c_char,
    /// Length of `key` in bytes, or `ZT_NUL_TERMINATED`.
    pub key_len: usize,
    /// A `zt_attr_kind`.
    pub kind: u32,
    /// `ZT_ATTR_INT`: the value.
    pub int_value: i64,
    /// `ZT_ATTR_UINT`: the value.
    pub uint_value: u64,
    /// `ZT_ATTR_FLOAT`: the value.
    pub float_value: f64,
    /// `ZT_ATTR_BOOL`: the value.
    pub bool_value: bool,
    /// `ZT_ATTR_TEXT` / `ZT_ATTR_BYTES` / `ZT_ATTR_CBOR`: the bytes.
    pub data: *const c_void,
    /// Length of `data` in bytes (`ZT_NUL_TERMINATED` allowed for text).
    pub data_len: usize,
}

/// Options of one object. A NULL `zt_write_options *` and a zero-initialized
/// struct (`zt_write_options o = {0};`) both mean the defaults: raw
/// encoding, no digest, no logical type, no attributes.
#[repr(C)]
pub struct zt_write_options {
    /// A `zt_encoding`: `ZT_ENCODING_RAW` (default) or `ZT_ENCODING_ZSTD`,
    /// for every component of the object.
    pub encoding: u32,
    /// The zstd level when `encoding` is `ZT_ENCODING_ZSTD`: 0 means the
    /// default (3); -131072..=22 otherwise. The library's pure-Rust zstd
    /// encoder writes about level 1 whatever the level.
    pub zstd_level: i32,
    /// A `zt_digest` for every component of the object.
    pub digest: u32,
    /// Logical type of the object's primary component (`data` for dense,
    /// `values` for sparse, else the last component): `"f8_e4m3fn"`,
    /// `"complex64"`, ... NULL or empty for none. It must suit the dtype
    /// (FP8 on u8, complex64 on f32, complex128 on f64).
    pub logical_type: *const c_char,
    /// Length of `logical_type` in bytes, or `ZT_NUL_TERMINATED`.
    pub logical_type_len: usize,
    /// The object's attributes, in this order (a key given twice keeps the
    /// last value); NULL when `attribute_count` is 0.
    pub attributes: *const zt_write_attribute,
    /// Number of entries in `attributes`.
    pub attribute_count: usize,
}

/// One component of an object to write (`zt_writer_add_object`,
/// `zt_writer_add_quantized_group`).
#[repr(C)]
pub struct zt_write_component {
    /// The role (`"data"`, `"values"`, ...). For
    /// `zt_writer_add_quantized_group`: NULL (implied) or the expected role.
    pub role: *const c_char,
    /// Length of `role` in bytes, or `ZT_NUL_TERMINATED`.
    pub role_len: usize,
    /// A `zt_dtype`: the storage type of the elements.
    pub dtype: u32,
    /// Logical type of the elements; NULL or empty for none.
    pub logical_type: *const c_char,
    /// Length of `logical_type` in bytes, or `ZT_NUL_TERMINATED`.
    pub logical_type_len: usize,
    /// The elements, little-endian (the host order on x86 and ARM). May be
    /// NULL when `len` is 0.
    pub data: *const c_void,
    /// Length of `data` in bytes.
    pub len: usize,
}

// ===================================================================== argument helpers

/// A string argument that must be UTF-8.
///
/// # Safety
/// As [`bytes_arg`].
unsafe fn str_arg<'a>(ptr: *const c_char, len: usize, what: &'static str) -> Result<&'a str, Fail> {
    // SAFETY: the caller's contract.
    let b = unsafe { bytes_arg(ptr, len, what)? };
    core::str::from_utf8(b).map_err(|_| Fail::invalid(what))
}

/// An optional string: NULL (or empty) is `None`.
///
/// # Safety
/// As [`bytes_arg`].
unsafe fn opt_str_arg<'a>(ptr: *const c_char, len: usize, what: &'static str) -> Result<Option<&'a str>, Fail> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller's contract.
    let s = unsafe { str_arg(ptr, len, what)? };
    Ok((!s.is_empty()).then_some(s))
}

/// A byte buffer argument: NULL is allowed for an empty one.
///
/// # Safety
/// `ptr` is NULL or valid for `len` bytes.
unsafe fn data_arg<'a>(ptr: *const c_void, len: usize, what: &'static str) -> Result<&'a [u8], Fail> {
    if len == ZT_NUL_TERMINATED {
        // Never a byte count: refuse it rather than reading a NUL-terminated "string".
        return Err(Fail::invalid(what));
    }
    // SAFETY: the caller's contract.
    unsafe { bytes_arg(ptr.cast(), len, what) }
}

/// An array of `count` `uint64_t` (host order, any alignment) as the
/// little-endian bytes the file stores: borrowed on little-endian hosts.
///
/// # Safety
/// `ptr` is NULL or valid for `count` `u64`.
unsafe fn u64_data<'a>(ptr: *const u64, count: usize, what: &'static str) -> Result<Data<'a>, Fail> {
    let len = count.checked_mul(8).filter(|&n| n <= isize::MAX as usize).ok_or_else(|| Fail::invalid(what))?;
    if ptr.is_null() {
        return if count == 0 { Ok(Data::bytes(&[])) } else { Err(Fail::invalid(what)) };
    }
    // SAFETY: valid for `count` u64, so for `len` bytes; u8 needs no alignment.
    let bytes = unsafe { core::slice::from_raw_parts(ptr.cast::<u8>(), len) };
    if cfg!(target_endian = "little") {
        return Ok(Data::bytes(bytes));
    }
    let mut v = bytes.to_vec();
    for e in v.chunks_exact_mut(8) {
        e.reverse();
    }
    Ok(Data::owned(v))
}

/// A shape: `ndim` dimensions (NULL allowed for a scalar).
///
/// # Safety
/// `ptr` is NULL or valid for `ndim` `u64`.
unsafe fn shape_arg(ptr: *const u64, ndim: usize) -> Result<Vec<u64>, Fail> {
    if ndim == 0 {
        return Ok(Vec::new());
    }
    if ptr.is_null() {
        return Err(Fail::invalid("`shape` is NULL"));
    }
    if ndim > isize::MAX as usize / 8 {
        return Err(Fail::invalid("`ndim` is too large"));
    }
    // SAFETY: valid for `ndim` u64 by the caller's contract; read unaligned
    // so that any address works.
    Ok((0..ndim).map(|i| unsafe { ptr.add(i).read_unaligned() }).collect())
}

fn dtype_arg(v: u32) -> Result<DType, Fail> {
    dtype_of(v).ok_or_else(|| Fail::invalid("`dtype` is not a zt_dtype"))
}

/// The value of a `zt_write_attribute`, and its key.
///
/// # Safety
/// `a`'s pointers are valid as its documentation says.
unsafe fn attribute<'a>(a: &zt_write_attribute) -> Result<(&'a str, AttrValue), Fail> {
    // SAFETY: the caller's contract, for every call below.
    let key = unsafe { str_arg(a.key, a.key_len, "attribute `key` is NULL or not UTF-8")? };
    let value = match a.kind {
        0 => AttrValue::from(a.int_value),
        1 => AttrValue::Uint(a.uint_value),
        2 => AttrValue::Float(a.float_value),
        3 => AttrValue::Bool(a.bool_value),
        4 => AttrValue::Null,
        5 => AttrValue::Text(
            unsafe { str_arg(a.data.cast(), a.data_len, "attribute text is NULL or not UTF-8")? }.to_owned(),
        ),
        6 => AttrValue::Bytes(unsafe { data_arg(a.data, a.data_len, "attribute bytes are NULL")? }.to_vec()),
        7 => AttrValue::Cbor(unsafe { data_arg(a.data, a.data_len, "attribute CBOR is NULL")? }.to_vec()),
        _ => return Err(Fail::invalid("attribute `kind` is not a zt_attr_kind")),
    };
    Ok((key, value))
}

/// Options, decoded.
struct Options<'a> {
    compression: Compression,
    checksum: Checksum,
    logical: Option<LogicalType<'a>>,
    attributes: Vec<(&'a str, AttrValue)>,
}

/// Most negative zstd level (`ZSTD_minCLevel()`).
const ZSTD_MIN_LEVEL: i32 = -(1 << 17);

/// # Safety
/// `opts` is NULL or points to a valid `zt_write_options`.
unsafe fn options<'a>(opts: *const zt_write_options) -> Result<Options<'a>, Fail> {
    let mut o =
        Options { compression: Compression::Raw, checksum: Checksum::None, logical: None, attributes: Vec::new() };
    // SAFETY: the caller's contract, for every call below.
    let Some(opts) = (unsafe { opts.as_ref() }) else { return Ok(o) };
    o.compression = match opts.encoding {
        0 => Compression::Raw,
        1 => match opts.zstd_level {
            0 => Compression::ZSTD,
            l if (ZSTD_MIN_LEVEL..=22).contains(&l) => Compression::Zstd(l),
            _ => return Err(Fail::invalid("`zstd_level` is out of range (-131072..=22)")),
        },
        _ => return Err(Fail::invalid("`encoding` is not a zt_encoding")),
    };
    o.checksum = match opts.digest {
        0 => Checksum::None,
        1 => Checksum::Sha256,
        2 => Checksum::Crc32c,
        _ => return Err(Fail::invalid("`digest` is not a zt_digest")),
    };
    o.logical = unsafe { opt_str_arg(opts.logical_type, opts.logical_type_len, "`logical_type` is not UTF-8")? }
        .map(LogicalType::parse);
    if opts.attribute_count > 0 {
        if opts.attributes.is_null() {
            return Err(Fail::invalid("`attributes` is NULL"));
        }
        if opts.attribute_count > isize::MAX as usize / core::mem::size_of::<zt_write_attribute>() {
            return Err(Fail::invalid("`attribute_count` is too large"));
        }
        let list = unsafe { core::slice::from_raw_parts(opts.attributes, opts.attribute_count) };
        for a in list {
            o.attributes.push(unsafe { attribute(a)? });
        }
    }
    Ok(o)
}

impl<'a> Options<'a> {
    fn apply(self, mut obj: NewObject<'a>) -> NewObject<'a> {
        obj = obj.compression(self.compression).checksum(self.checksum);
        if let Some(t) = self.logical {
            obj = obj.logical_type(t);
        }
        for (k, v) in self.attributes {
            obj.set_attribute(k, v);
        }
        obj
    }
}

/// A component descriptor, decoded. `expected` is the role the caller must
/// name (or leave NULL) for the fixed formats.
///
/// # Safety
/// `c`'s pointers are valid as its documentation says.
unsafe fn component<'a>(c: &zt_write_component, expected: Option<&'static str>) -> Result<NewComponent<'a>, Fail> {
    let role: &str = match expected {
        Some(r) if c.role.is_null() => r,
        Some(r) => {
            // SAFETY: the caller's contract.
            if unsafe { str_arg(c.role, c.role_len, "component `role` is not UTF-8")? } != r {
                return Err(Fail::invalid(
                    "component `role` does not match its position (packed_weight, scales, zeros)",
                ));
            }
            r
        }
        None => unsafe { str_arg(c.role, c.role_len, "component `role` is NULL or not UTF-8")? },
    };
    let dtype = dtype_arg(c.dtype)?;
    let data = unsafe { data_arg(c.data, c.len, "component `data` is NULL")? };
    let mut nc = NewComponent::new(role, dtype, Data::bytes(data));
    if let Some(t) =
        unsafe { opt_str_arg(c.logical_type, c.logical_type_len, "component `logical_type` is not UTF-8")? }
    {
        nc = nc.logical_type(LogicalType::parse(t));
    }
    Ok(nc)
}

/// The writer behind `w`.
///
/// # Safety
/// `w` is NULL or a live writer.
unsafe fn live<'a>(w: *mut zt_writer) -> Result<&'a mut zt_writer, Fail> {
    // SAFETY: the caller's contract.
    let w = unsafe { w.as_mut() }.ok_or_else(|| Fail::invalid("`writer` is NULL"))?;
    if w.busy {
        return Err(Fail::with(
            zt_status::ZT_ERR_PANIC,
            "the writer is unusable after an internal error in an earlier call; zt_writer_abort it",
        ));
    }
    Ok(w)
}

impl zt_writer {
    /// Run `f` on the core writer, marking the writer busy meanwhile (so a
    /// panic leaves it refused from then on) and mapping errors.
    fn run(&mut self, f: impl FnOnce(&mut Writer<Publishing>) -> Result<(), CoreError>) -> Result<(), Fail> {
        self.busy = true;
        let r = f(&mut self.writer);
        self.busy = false;
        r.map_err(|e| self.fail(e))
    }

    /// A core error as a failure: validation errors are `ZT_ERR_FORMAT`
    /// (the object would make an invalid file), sink errors `ZT_ERR_IO`
    /// with the operating system's message.
    fn fail(&mut self, e: CoreError) -> Fail {
        if e.kind() == ErrorKind::Io {
            if let Some(io) = self.writer.take_io_error() {
                return Fail {
                    status: zt_status::ZT_ERR_IO,
                    detail: Detail::Owned(format!(
                        "{e}: {} (writing {})",
                        crate::guard::OsText(&io),
                        self.path.display()
                    )),
                };
            }
        }
        Fail::core(e, Phase::Open)
    }

    fn add(&mut self, name: &str, obj: NewObject<'_>) -> Result<(), Fail> {
        if self.writer.contains(name) {
            let e = CoreError::new(ErrorKind::DuplicateKey).in_object(name);
            return Err(Fail {
                status: zt_status::ZT_ERR_FORMAT,
                detail: Detail::Owned(format!("{e}: an object of this name was already added")),
            });
        }
        self.run(|w| w.add(obj))
    }
}

/// The object name argument.
///
/// # Safety
/// As [`bytes_arg`].
unsafe fn name_arg<'a>(name: *const c_char, name_len: usize) -> Result<&'a str, Fail> {
    // SAFETY: the caller's contract.
    unsafe { str_arg(name, name_len, "`name` is NULL or not UTF-8") }
}

// ===================================================================== create, finish, abort

/// Start writing a new zTensor (v1.2) file that will be published at
/// `path` (NUL-terminated; bytes as the OS takes them).
///
/// The data goes to a temporary file beside `path` (same directory, name
/// `.<file name>.<pid>.<n>.tmp`); `zt_writer_finish` syncs it and renames it
/// over `path` atomically, so readers never see a half-written file and an
/// existing file at `path` stays whole until then. `zt_writer_abort` (or a
/// failed finish) removes the temporary file.
///
/// On success `*out` receives a new writer; on failure `*out` is NULL
/// (`ZT_ERR_IO` when the temporary file cannot be created or `path` is a
/// directory; `ZT_ERR_INVALID_ARGUMENT` for a NULL pointer).
///
/// Ownership: the caller owns the writer and must release it with exactly
/// one of `zt_writer_finish` or `zt_writer_abort`. `path` is not kept.
/// Thread-safety: may be called from any thread. A writer is used by one
/// thread at a time (it may move between threads; calls on one writer must
/// not overlap). Different writers are independent.
///
/// # Safety
/// `path` is NULL or NUL-terminated; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_create(path: *const c_char, out: *mut *mut zt_writer) -> zt_status {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { crate::handle::put(out, core::ptr::null_mut(), "`out` is NULL")? };
        if path.is_null() {
            return Err(Fail::invalid("`path` is NULL"));
        }
        // SAFETY: NUL-terminated, by the caller's contract.
        let bytes = unsafe { std::ffi::CStr::from_ptr(path) }.to_bytes();
        #[cfg(unix)]
        let p = Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(bytes));
        #[cfg(not(unix))]
        let p = Path::new(core::str::from_utf8(bytes).map_err(|_| Fail::invalid("`path` is not UTF-8"))?);
        let io = |e: std::io::Error| Fail {
            status: zt_status::ZT_ERR_IO,
            detail: Detail::Owned(format!("cannot create {}: {}", p.display(), crate::guard::OsText(&e))),
        };
        if p.is_dir() {
            return Err(io(std::io::Error::other("it is a directory")));
        }
        let published = Arc::new(AtomicBool::new(false));
        let sink = Publishing { sink: FileSink::create(p).map_err(io)?, published: Arc::clone(&published) };
        let w = zt_writer { writer: Writer::new(sink), published, path: p.to_path_buf(), busy: false };
        // SAFETY: checked non-NULL above.
        unsafe { *out = Box::into_raw(Box::new(w)) };
        Ok(())
    })
}

/// Finish the file: write the manifest and footer, sync, and rename the
/// temporary file to the path given to `zt_writer_create` (atomically).
/// The writer is released whatever the outcome.
///
/// `ZT_OK` when the file is published and durable. `ZT_ERR_IO` with a
/// message saying "was published" when the rename succeeded but syncing the
/// directory failed: the file is there, but may not survive a crash.
/// Otherwise nothing is published and
/// the temporary file is removed: `ZT_ERR_IO` when writing, syncing or
/// renaming fails (or failed in an earlier call), `ZT_ERR_FORMAT` when the
/// manifest would be invalid (e.g. larger than 1 GiB). An object refused by
/// an earlier `zt_writer_add_*` call is simply absent: refusals do not
/// spoil the writer.
///
/// Ownership: consumes the writer; it must not be used afterwards (not even
/// with `zt_writer_abort`). `zt_writer_finish(NULL)` returns
/// `ZT_ERR_INVALID_ARGUMENT`.
/// Thread-safety: no other call may use the writer meanwhile.
///
/// # Safety
/// `writer` is NULL or a live writer, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_finish(writer: *mut zt_writer) -> zt_status {
    guard(|| {
        if writer.is_null() {
            return Err(Fail::invalid("`writer` is NULL"));
        }
        // SAFETY: a live writer from `Box::into_raw`, by the caller's contract.
        let w = unsafe { Box::from_raw(writer) };
        if w.busy {
            // Dropping it removes the temporary file.
            return Err(Fail::with(
                zt_status::ZT_ERR_PANIC,
                "the writer is unusable after an internal error in an earlier call; nothing was published",
            ));
        }
        let zt_writer { writer, path, published, .. } = *w;
        match writer.finish() {
            Ok(_) => Ok(()),
            Err(e) if e.kind() == ErrorKind::Io && published.load(Ordering::Relaxed) => Err(Fail {
                status: zt_status::ZT_ERR_IO,
                detail: Detail::Owned(format!(
                    "{} was published, but syncing its directory failed: durability not confirmed \
                     (after a crash the old file or none may be there)",
                    path.display()
                )),
            }),
            Err(e) if e.kind() == ErrorKind::Io => Err(Fail {
                status: zt_status::ZT_ERR_IO,
                detail: Detail::Owned(format!(
                    "cannot finish {}: writing, syncing or renaming the temporary file failed; nothing was published",
                    path.display()
                )),
            }),
            Err(e) => Err(Fail::core(e, Phase::Open)),
        }
    })
}

/// Discard the file being written: remove the temporary file and release
/// the writer. Nothing is published; a file already at the destination
/// path is left as it was. `zt_writer_abort(NULL)` does nothing.
///
/// Ownership: consumes the writer; it must not be used afterwards.
/// Thread-safety: no other call may use the writer meanwhile.
///
/// # Safety
/// `writer` is NULL or a live writer, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_abort(writer: *mut zt_writer) {
    guard_value((), || {
        if !writer.is_null() {
            // SAFETY: a live writer from `Box::into_raw`, by the caller's
            // contract. Dropping the sink removes the temporary file.
            drop(unsafe { Box::from_raw(writer) });
        }
    })
}

// ===================================================================== objects

/// Add a dense tensor `name` (`name_len` bytes or `ZT_NUL_TERMINATED`;
/// UTF-8, not empty, unique in the file): `ndim` dimensions `shape`
/// (NULL allowed when `ndim` is 0: a scalar), and `len` bytes of
/// row-major, little-endian `dtype` elements (`len` must equal the product
/// of the shape times `zt_dtype_size(dtype)`, or twice that for a complex
/// logical type).
///
/// Its data is written (compressed and hashed as `opts` says; NULL for the
/// defaults) before the call returns. Errors, with nothing of the object
/// recorded and the writer still usable:
/// `ZT_ERR_INVALID_ARGUMENT` for NULL pointers, a name that is not UTF-8 or
/// a value that is not of its enum; `ZT_ERR_FORMAT` when the object would
/// make an invalid file (length does not match the shape, duplicate or
/// empty name, logical type that does not suit the dtype, malformed
/// attribute CBOR...), with the rule in `zt_last_error()`; `ZT_ERR_IO`
/// when writing fails (every later call then fails with `ZT_ERR_IO` too:
/// release the writer with `zt_writer_abort`).
///
/// Ownership: nothing is kept; the caller keeps its buffers and may reuse
/// them as soon as the call returns.
/// Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `name` valid for `name_len` bytes (or
/// NUL-terminated); `shape` NULL or valid for `ndim` values; `data` NULL
/// or valid for `len` bytes; `opts` NULL or valid (with its pointers).
#[no_mangle]
pub unsafe extern "C" fn zt_writer_add_dense(
    writer: *mut zt_writer,
    name: *const c_char,
    name_len: usize,
    dtype: u32,
    shape: *const u64,
    ndim: usize,
    data: *const c_void,
    len: usize,
    opts: *const zt_write_options,
) -> zt_status {
    guard(|| {
        // SAFETY: the caller's contract, for every call below.
        let w = unsafe { live(writer)? };
        let name = unsafe { name_arg(name, name_len)? };
        let dtype = dtype_arg(dtype)?;
        let shape = unsafe { shape_arg(shape, ndim)? };
        let data = unsafe { data_arg(data, len, "`data` is NULL")? };
        let opts = unsafe { options(opts)? };
        w.add(name, opts.apply(NewObject::dense(name, &shape, dtype, Data::bytes(data))))
    })
}

/// Add a `sparse_csr` matrix of `rows` × `cols`: `values` (`values_len`
/// bytes: nnz little-endian `dtype` elements), `indices` (nnz column
/// indices, `indices_count` of them) and `indptr` (`rows + 1` row
/// pointers, `indptr_count` of them). Index arrays are `uint64_t` in host
/// byte order (written little-endian), at any alignment.
///
/// `opts` (NULL for the defaults) applies its encoding and digest to the
/// three components, and its logical type to `values`. Statuses as
/// `zt_writer_add_dense`: `ZT_ERR_FORMAT` when counts disagree
/// (`indptr_count != rows + 1`, `indices_count` != nnz, ...). The index
/// values themselves (monotone `indptr`, columns < `cols`) are not checked
/// here: `zt_verify` checks them when reading.
///
/// Ownership: nothing is kept; the caller keeps its buffers.
/// Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `name` valid for `name_len` bytes (or
/// NUL-terminated); `values` NULL or valid for `values_len` bytes;
/// `indices`, `indptr` NULL or valid for their counts; `opts` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_add_sparse_csr(
    writer: *mut zt_writer,
    name: *const c_char,
    name_len: usize,
    dtype: u32,
    rows: u64,
    cols: u64,
    values: *const c_void,
    values_len: usize,
    indices: *const u64,
    indices_count: usize,
    indptr: *const u64,
    indptr_count: usize,
    opts: *const zt_write_options,
) -> zt_status {
    guard(|| {
        // SAFETY: the caller's contract, for every call below.
        let w = unsafe { live(writer)? };
        let name = unsafe { name_arg(name, name_len)? };
        let dtype = dtype_arg(dtype)?;
        let values = unsafe { data_arg(values, values_len, "`values` is NULL")? };
        let indices = unsafe { u64_data(indices, indices_count, "`indices` is NULL or too long")? };
        let indptr = unsafe { u64_data(indptr, indptr_count, "`indptr` is NULL or too long")? };
        let opts = unsafe { options(opts)? };
        let obj = NewObject::sparse_csr(name, [rows, cols], dtype, Data::bytes(values), indices, indptr);
        w.add(name, opts.apply(obj))
    })
}

/// Add a `sparse_coo` tensor of `ndim` dimensions `shape`: `values`
/// (`values_len` bytes: nnz little-endian `dtype` elements) and `coords`
/// (`coords_count` = ndim × nnz `uint64_t` in host byte order: all the
/// dimension-0 indices, then all the dimension-1 indices, ...).
///
/// `opts` as for `zt_writer_add_sparse_csr` (logical type on `values`).
/// Statuses as `zt_writer_add_dense` (`ZT_ERR_FORMAT` when `coords_count`
/// is not ndim × nnz). Coordinates inside the shape are checked by
/// `zt_verify` when reading, not here.
///
/// Ownership: nothing is kept; the caller keeps its buffers.
/// Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `name` valid for `name_len` bytes (or
/// NUL-terminated); `shape` NULL or valid for `ndim` values; `values` NULL
/// or valid for `values_len` bytes; `coords` NULL or valid for
/// `coords_count` values; `opts` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_add_sparse_coo(
    writer: *mut zt_writer,
    name: *const c_char,
    name_len: usize,
    dtype: u32,
    shape: *const u64,
    ndim: usize,
    values: *const c_void,
    values_len: usize,
    coords: *const u64,
    coords_count: usize,
    opts: *const zt_write_options,
) -> zt_status {
    guard(|| {
        // SAFETY: the caller's contract, for every call below.
        let w = unsafe { live(writer)? };
        let name = unsafe { name_arg(name, name_len)? };
        let dtype = dtype_arg(dtype)?;
        let shape = unsafe { shape_arg(shape, ndim)? };
        let values = unsafe { data_arg(values, values_len, "`values` is NULL")? };
        let coords = unsafe { u64_data(coords, coords_count, "`coords` is NULL or too long")? };
        let opts = unsafe { options(opts)? };
        w.add(name, opts.apply(NewObject::sparse_coo(name, &shape, dtype, Data::bytes(values), coords)))
    })
}

/// Add a `quantized_group` tensor of logical shape `shape`: the components
/// `packed_weight`, `scales` and `zeros` (each a `zt_write_component`
/// whose `role` is NULL or that role's name), and the attributes `bits`,
/// `group_size` and `packing` (`packing_len` bytes or `ZT_NUL_TERMINATED`,
/// e.g. `"8_per_i32"`).
///
/// `opts` (NULL for the defaults) applies its encoding and digest to the
/// three components; its attributes follow the three above (a repeated
/// key replaces the value); its `logical_type` must be NULL (set logical
/// types on the components). Statuses as `zt_writer_add_dense`.
///
/// Ownership: nothing is kept; the caller keeps its buffers.
/// Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `name`, `packing` valid for their lengths (or
/// NUL-terminated); `shape` NULL or valid for `ndim` values; the three
/// components NULL or valid (with their pointers); `opts` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_add_quantized_group(
    writer: *mut zt_writer,
    name: *const c_char,
    name_len: usize,
    shape: *const u64,
    ndim: usize,
    packed_weight: *const zt_write_component,
    scales: *const zt_write_component,
    zeros: *const zt_write_component,
    bits: u64,
    group_size: u64,
    packing: *const c_char,
    packing_len: usize,
    opts: *const zt_write_options,
) -> zt_status {
    guard(|| {
        // SAFETY: the caller's contract, for every call below.
        let w = unsafe { live(writer)? };
        let name = unsafe { name_arg(name, name_len)? };
        let shape = unsafe { shape_arg(shape, ndim)? };
        let packing = unsafe { str_arg(packing, packing_len, "`packing` is NULL or not UTF-8")? };
        let part = |c: *const zt_write_component, role: &'static str| {
            let c = unsafe { c.as_ref() }.ok_or_else(|| Fail::invalid("a quantized_group component is NULL"))?;
            unsafe { component(c, Some(role)) }
        };
        let (pw, sc, ze) = (part(packed_weight, "packed_weight")?, part(scales, "scales")?, part(zeros, "zeros")?);
        let opts = unsafe { options(opts)? };
        if opts.logical.is_some() {
            return Err(Fail::invalid("`opts.logical_type` is not used by quantized_group: set it on a component"));
        }
        let obj = NewObject::new(name, Format::QuantizedGroup, &shape)
            .component(pw)
            .component(sc)
            .component(ze)
            .attribute("bits", bits)
            .attribute("group_size", group_size)
            .attribute("packing", packing);
        w.add(name, opts.apply(obj))
    })
}

/// Add an object of any format: `format` (`format_len` bytes or
/// `ZT_NUL_TERMINATED`: `"dense"`, `"sparse_csr"`, ... or a name of your
/// own), `ndim` dimensions `shape`, and `component_count` components, each
/// with its role, dtype, optional logical type and bytes, written in that
/// order. Known formats are checked as such (a `"dense"` object needs one
/// `data` component of the right length); other formats only need unique,
/// non-empty roles.
///
/// `opts` (NULL for the defaults): encoding and digest for every
/// component, a logical type for the primary component (overriding the
/// component's own), attributes. Statuses as `zt_writer_add_dense`.
///
/// Ownership: nothing is kept; the caller keeps its buffers.
/// Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `name`, `format` valid for their lengths (or
/// NUL-terminated); `shape` NULL or valid for `ndim` values; `components`
/// NULL or valid for `component_count` entries (with their pointers);
/// `opts` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_add_object(
    writer: *mut zt_writer,
    name: *const c_char,
    name_len: usize,
    format: *const c_char,
    format_len: usize,
    shape: *const u64,
    ndim: usize,
    components: *const zt_write_component,
    component_count: usize,
    opts: *const zt_write_options,
) -> zt_status {
    guard(|| {
        // SAFETY: the caller's contract, for every call below.
        let w = unsafe { live(writer)? };
        let name = unsafe { name_arg(name, name_len)? };
        let format = unsafe { str_arg(format, format_len, "`format` is NULL or not UTF-8")? };
        let shape = unsafe { shape_arg(shape, ndim)? };
        let list: &[zt_write_component] = if component_count == 0 {
            &[]
        } else if components.is_null() {
            return Err(Fail::invalid("`components` is NULL"));
        } else if component_count > isize::MAX as usize / core::mem::size_of::<zt_write_component>() {
            return Err(Fail::invalid("`component_count` is too large"));
        } else {
            unsafe { core::slice::from_raw_parts(components, component_count) }
        };
        let mut obj = NewObject::new(name, Format::parse(format), &shape);
        for c in list {
            obj = obj.component(unsafe { component(c, None)? });
        }
        let opts = unsafe { options(opts)? };
        w.add(name, opts.apply(obj))
    })
}

// ===================================================================== file attributes

/// Set a file-level attribute (written at `zt_writer_finish`, in the order
/// first set; setting a key again replaces its value in place). The value
/// is checked now: `ZT_ERR_FORMAT` for CBOR (`ZT_ATTR_CBOR`) that is not
/// exactly one well-formed item, `ZT_ERR_INVALID_ARGUMENT` for NULL
/// pointers, a key or text that is not UTF-8, or an unknown `kind`.
///
/// Ownership: `attr` and its buffers are copied; the caller keeps them.
/// Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `attr` NULL or valid (with its pointers).
#[no_mangle]
pub unsafe extern "C" fn zt_writer_set_attribute(writer: *mut zt_writer, attr: *const zt_write_attribute) -> zt_status {
    guard(|| {
        // SAFETY: the caller's contract, for every call below.
        let w = unsafe { live(writer)? };
        let a = unsafe { attr.as_ref() }.ok_or_else(|| Fail::invalid("`attr` is NULL"))?;
        let (key, value) = unsafe { attribute(a)? };
        w.run(|w| w.set_attribute(key, value))
    })
}

/// Set a file-level attribute from its key (`key_len` bytes or
/// `ZT_NUL_TERMINATED`) and an `AttrValue`.
///
/// # Safety
/// `writer` NULL or live; `key` valid for `key_len` bytes or NUL-terminated.
unsafe fn set_attribute(
    writer: *mut zt_writer,
    key: *const c_char,
    key_len: usize,
    value: impl FnOnce() -> Result<AttrValue, Fail>,
) -> zt_status {
    guard(|| {
        // SAFETY: the caller's contract, for every call below.
        let w = unsafe { live(writer)? };
        let key = unsafe { str_arg(key, key_len, "`key` is NULL or not UTF-8")? };
        let value = value()?;
        w.run(|w| w.set_attribute(key, value))
    })
}

/// Set the file-level attribute `key` (`key_len` bytes or
/// `ZT_NUL_TERMINATED`) to a signed integer. As `zt_writer_set_attribute`.
///
/// Ownership: `key` is copied. Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `key` valid for `key_len` bytes (or NUL-terminated).
#[no_mangle]
pub unsafe extern "C" fn zt_writer_set_attribute_int(
    writer: *mut zt_writer,
    key: *const c_char,
    key_len: usize,
    value: i64,
) -> zt_status {
    // SAFETY: the caller's contract.
    unsafe { set_attribute(writer, key, key_len, || Ok(AttrValue::from(value))) }
}

/// Set the file-level attribute `key` to an unsigned integer. As
/// `zt_writer_set_attribute`.
///
/// Ownership: `key` is copied. Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `key` valid for `key_len` bytes (or NUL-terminated).
#[no_mangle]
pub unsafe extern "C" fn zt_writer_set_attribute_uint(
    writer: *mut zt_writer,
    key: *const c_char,
    key_len: usize,
    value: u64,
) -> zt_status {
    // SAFETY: the caller's contract.
    unsafe { set_attribute(writer, key, key_len, || Ok(AttrValue::Uint(value))) }
}

/// Set the file-level attribute `key` to a float (written in the shortest
/// of f16/f32/f64 that keeps it exactly). As `zt_writer_set_attribute`.
///
/// Ownership: `key` is copied. Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `key` valid for `key_len` bytes (or NUL-terminated).
#[no_mangle]
pub unsafe extern "C" fn zt_writer_set_attribute_float(
    writer: *mut zt_writer,
    key: *const c_char,
    key_len: usize,
    value: f64,
) -> zt_status {
    // SAFETY: the caller's contract.
    unsafe { set_attribute(writer, key, key_len, || Ok(AttrValue::Float(value))) }
}

/// Set the file-level attribute `key` to `true` or `false`. As
/// `zt_writer_set_attribute`.
///
/// Ownership: `key` is copied. Thread-safety: one call at a time per writer.
///
/// # Safety
/// `writer` NULL or live; `key` valid for `key_len` bytes (or NUL-terminated).
#[no_mangle]
pub unsafe extern "C" fn zt_writer_set_attribute_bool(
    writer: *mut zt_writer,
    key: *const c_char,
    key_len: usize,
    value: bool,
) -> zt_status {
    // SAFETY: the caller's contract.
    unsafe { set_attribute(writer, key, key_len, || Ok(AttrValue::Bool(value))) }
}

/// Set the file-level attribute `key` to UTF-8 text (`value_len` bytes or
/// `ZT_NUL_TERMINATED`). As `zt_writer_set_attribute`
/// (`ZT_ERR_INVALID_ARGUMENT` when the text is not UTF-8).
///
/// Ownership: `key` and `value` are copied. Thread-safety: one call at a
/// time per writer.
///
/// # Safety
/// `writer` NULL or live; `key`, `value` valid for their lengths (or NUL-terminated).
#[no_mangle]
pub unsafe extern "C" fn zt_writer_set_attribute_text(
    writer: *mut zt_writer,
    key: *const c_char,
    key_len: usize,
    value: *const c_char,
    value_len: usize,
) -> zt_status {
    // SAFETY: the caller's contract, for both calls.
    unsafe {
        set_attribute(writer, key, key_len, || {
            Ok(AttrValue::Text(str_arg(value, value_len, "`value` is NULL or not UTF-8")?.to_owned()))
        })
    }
}

/// Set the file-level attribute `key` to one pre-encoded CBOR data item
/// (`len` bytes): an array, a map, a tagged value... or the `cbor` of a
/// `zt_attribute` read from another file. `ZT_ERR_FORMAT` unless the
/// bytes are exactly one well-formed item. As `zt_writer_set_attribute`.
///
/// Ownership: `key` and `cbor` are copied. Thread-safety: one call at a
/// time per writer.
///
/// # Safety
/// `writer` NULL or live; `key` valid for `key_len` bytes (or
/// NUL-terminated); `cbor` NULL or valid for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_set_attribute_cbor(
    writer: *mut zt_writer,
    key: *const c_char,
    key_len: usize,
    cbor: *const u8,
    len: usize,
) -> zt_status {
    // SAFETY: the caller's contract, for both calls.
    unsafe {
        set_attribute(writer, key, key_len, || {
            Ok(AttrValue::Cbor(data_arg(cbor.cast(), len, "`cbor` is NULL")?.to_vec()))
        })
    }
}
