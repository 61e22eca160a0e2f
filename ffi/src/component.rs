//! Components of an object: description, zero-copy pointer, decoded read.

use crate::args::{buffer, cleared, out_ref};
use crate::dtype::c_dtype;
use crate::guard::{guard, Detail, Fail, Phase};
use crate::handle::{arg, bytes_arg, handle, in_object, not_found, object_arg, with_object, zt_file};
use crate::{zt_component_info, zt_encoding, zt_object, zt_status, ZT_VERIFY_STRICT};
use core::ffi::c_char;
use ztensor_core::digest::Verified;
use ztensor_core::{Component, Encoding, Error as CoreError, ErrorKind};

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
            Encoding::ZstdSeekable => zt_encoding::ZT_ENCODING_ZSTD_SEEKABLE,
            Encoding::Unknown => zt_encoding::ZT_ENCODING_UNKNOWN,
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
        digest_over_decoded: c.digest_covers_decoded(),
        encoding_id: c.encoding_id().as_ptr().cast(),
        encoding_id_len: c.encoding_id().len(),
        shard: c.shard().map_or(core::ptr::null(), |s| s.as_ptr().cast()),
        shard_len: c.shard().map_or(0, str::len),
    }
}

/// Resolve `obj` and its component `role`: the handle, the object's name
/// (for error messages) and the component. The object itself is not
/// returned: on the no-heap build's read path, every copy of it (over 300
/// bytes on 32-bit targets) is stack.
///
/// # Safety
/// As the entry points: `file` NULL or live, `obj` NULL or readable, `role`
/// valid for `role_len` bytes or NUL-terminated.
pub(crate) unsafe fn component<'f>(
    file: *const zt_file,
    obj: *const zt_object,
    role: *const c_char,
    role_len: usize,
) -> Result<(&'f zt_file, &'f str, Component<'f>), Fail> {
    // SAFETY: the caller's contract.
    unsafe { with_component(file, obj, role, role_len, |h, name, c| Ok((h, name, *c))) }
}

/// [`component`] handing the component to `f` where the lookup left it,
/// without copying it out (the read path of the no-heap build).
///
/// # Safety
/// As [`component`].
unsafe fn with_component<'f, T>(
    file: *const zt_file,
    obj: *const zt_object,
    role: *const c_char,
    role_len: usize,
    f: impl FnOnce(&'f zt_file, &'f str, &Component<'f>) -> Result<T, Fail>,
) -> Result<T, Fail> {
    let h = arg!(handle(file))?;
    with_object(h, arg!(object_arg(obj))?, |o| {
        let role = arg!(bytes_arg(role, role_len, "`role` is NULL"))?;
        match core::str::from_utf8(role).ok().and_then(|r| o.component(r)) {
            Some(ref c) => f(h, o.name(), c),
            None => Err(not_found(Some(o.name()), Some(role))),
        }
    })
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
        let info = arg!(cleared(info, Fail::invalid("`info` is NULL")))?;
        // SAFETY: the caller's pointers (this function's `# Safety`), as
        // `with_component` asks; a closure, so not through `arg!`.
        unsafe {
            with_component(file, obj, role, role_len, |_, _, c| {
                *info = describe_component(c);
                Ok(())
            })
        }
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
        let info = arg!(cleared(info, Fail::invalid("`info` is NULL")))?;
        let h = arg!(handle(file))?;
        let c = with_object(h, arg!(object_arg(obj))?, |o| {
            o.components().nth(index).ok_or_else(|| Fail::invalid("component index out of range"))
        })?;
        *info = describe_component(&c);
        Ok(())
    })
}

/// Zero-copy access to a raw component's stored bytes: `*ptr` points into
/// the mapping (or the caller's memory for `zt_open_mem`), `*len` is the
/// length in bytes. Elements are little-endian, as on the host. With
/// `zt_open`, the pointer is 64-byte aligned.
///
/// `ZT_ERR_NOT_ZERO_COPY` when the component is zstd-compressed, its
/// elements are big-endian (v0.1) or the host is, it is a v2 part in a
/// data shard (another file, outside the mapping), or the file was opened
/// with `ZT_OPEN_POSITIONAL` or through `zt_open_source`: use
/// `zt_component_read` then. On failure
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
        let (Some(ptr), Some(len)) = (arg!(out_ref(ptr)), arg!(out_ref(len))) else {
            return Err(Fail::invalid("`ptr` or `len` is NULL"));
        };
        let (ptr, len) = (ptr.write(core::ptr::null()), len.write(0));
        // SAFETY: the caller's pointers (this function's `# Safety`), as
        // `with_component` asks; a closure, so not through `arg!`.
        unsafe {
            with_component(file, obj, role, role_len, |h, name, c| {
                let bytes = h.zero_copy(name, c)?;
                (*ptr, *len) = (bytes.as_ptr(), bytes.len());
                Ok(())
            })
        }
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
/// When nothing declares the size (zstd outside dense `data` in v1.1 files,
/// unknown formats), it is found by decoding in bounded memory, the output
/// discarded (time grows with the size; at most 4 GiB is accepted).
/// `cap` over `PTRDIFF_MAX` is `ZT_ERR_INVALID_ARGUMENT`.
/// `ZT_ERR_CORRUPT_DATA` when zstd data (a v1 `zstd` component, or a
/// `zt.zstd-seekable/1` part's frames or seek table) is corrupt, declares
/// an impossible size, or decodes to another size than declared;
/// `ZT_ERR_IO` when a positional read fails.
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
        let written = arg!(out_ref(written)).ok_or_else(|| Fail::invalid("`written` is NULL"))?.write(0);
        let (h, name, c) = arg!(component(file, obj, role, role_len))?;
        let mut too_small = |needed: u64| {
            let e = CoreError::new(ErrorKind::BufferTooSmall { needed }).in_object(name).in_component(c.role());
            *written = usize::try_from(needed).unwrap_or(usize::MAX);
            Err(Fail { status: zt_status::ZT_ERR_BUFFER_TOO_SMALL, detail: Detail::Core(e) })
        };
        // A declared size the stored bytes cannot produce is refused before
        // a caller allocates it.
        let needed = c.plausible_len().map_err(|e| Fail::core(e.in_object(name), Phase::Data))?;
        if let Some(n) = needed {
            if (cap as u64) < n {
                return too_small(n);
            }
        }
        let too_large = Fail::invalid("`cap` is over PTRDIFF_MAX");
        let out = arg!(buffer(dst.cast::<u8>(), cap, too_large, Fail::invalid("`dst` is NULL")))?;
        match h.read_into(&c, out) {
            Ok(n) => {
                *written = n;
                Ok(())
            }
            // No size is declared anywhere (old zstd components outside
            // dense `data`): find it by decoding, to say what is needed.
            #[cfg(feature = "std")]
            Err(Fail { detail: Detail::Core(e), .. })
                if needed.is_none() && matches!(e.kind(), ErrorKind::DecodedTooLarge { .. }) =>
            {
                let n = h.measure(&c).map_err(|f| in_object(f, name))?;
                too_small(n)
            }
            Err(f) => Err(in_object(f, name)),
        }
    })
}

/// Decode bytes `start .. start + len` of a component into `dst`, as
/// `zt_component_read` would write them (little-endian elements): a raw
/// component's bytes are copied; a `zt.zstd-seekable/1` part decodes only
/// the frames covering the range (with `ZT_OPEN_POSITIONAL` or a shard,
/// only those frames and the seek table are read from the file); a v1
/// `zstd` component is decoded whole. `len = 0` reads nothing.
///
/// `ZT_ERR_INVALID_ARGUMENT` when the range reaches past the decoded size
/// (or `dst` is NULL with `len > 0`, or `len` is over `PTRDIFF_MAX`);
/// `ZT_ERR_CORRUPT_DATA` when a covering frame or the seek table is corrupt
/// (as `zt_component_read` says) or the bytes break the logical type's
/// rules; `ZT_ERR_UNSUPPORTED` for an unknown
/// type or encoding; `ZT_ERR_IO` when a positional read fails.
///
/// Ownership: the caller owns `dst`. Thread-safety: safe on a shared
/// handle (each thread with its own `dst`).
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `role` valid for
/// `role_len` bytes (or NUL-terminated); `dst` NULL or writable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn zt_component_read_range(
    file: *const zt_file,
    obj: *const zt_object,
    role: *const c_char,
    role_len: usize,
    start: u64,
    dst: *mut core::ffi::c_void,
    len: usize,
) -> zt_status {
    guard(|| {
        let too_large = Fail::invalid("`len` is over PTRDIFF_MAX");
        let out = arg!(buffer(dst.cast::<u8>(), len, too_large, Fail::invalid("`dst` is NULL")))?;
        let (h, name, c) = arg!(component(file, obj, role, role_len))?;
        h.read_range(&c, start, out).map(drop).map_err(|f| in_object(f, name))
    })
}

/// Check one component's digest: verification where the bytes are read,
/// so an engine can check each tensor as it loads it (`zt_verify` checks
/// the whole file, with the same per-component check, so the two cannot
/// disagree). In v1.x files the digest covers the stored bytes; in v2 files
/// it covers the decoded bytes (`digest_over_decoded`): a
/// `zt.zstd-seekable/1` part is decoded a frame at a time into a running
/// hash, and its decoded length and type's byte rules are checked on the
/// way. `*checked` (when `checked` is not NULL) is true when a digest was
/// computed and matched, false when the component has none or it cannot be
/// checked (an algorithm, or a v2 encoding, unknown to this library).
///
/// `ZT_OK` when the digest matches or there is nothing to check;
/// `ZT_ERR_DIGEST_MISMATCH` when it does not match (`zt_last_error()` names
/// the algorithm and the bytes it covers); `ZT_ERR_FORMAT` for a malformed
/// digest; `ZT_ERR_CORRUPT_DATA`, as `zt_component_read` says, for a v2
/// part whose frames or seek table are corrupt or decode to another length,
/// and for decoded bytes against the type's rules; `ZT_ERR_IO` when a
/// positional read fails. With
/// `flags = ZT_VERIFY_STRICT`, a component that cannot be checked (no
/// digest, unknown algorithm or encoding) is `ZT_ERR_UNSUPPORTED`. Other
/// flags are refused (`ZT_ERR_INVALID_ARGUMENT`).
///
/// Ownership: nothing to free; buffers (a piece of the stored bytes, one
/// seekable frame) are the library's, released before returning.
/// Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `role` valid for
/// `role_len` bytes (or NUL-terminated); `checked` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_component_verify(
    file: *const zt_file,
    obj: *const zt_object,
    role: *const c_char,
    role_len: usize,
    flags: u32,
    checked: *mut bool,
) -> zt_status {
    guard(|| {
        let checked = arg!(out_ref(checked)).map(|c| c.write(false));
        if flags & !ZT_VERIFY_STRICT != 0 {
            return Err(Fail::invalid("unknown `zt_component_verify` flag"));
        }
        let (h, name, c) = arg!(component(file, obj, role, role_len))?;
        let unverifiable = |kind: ErrorKind| {
            let e = CoreError::new(kind).in_object(name).in_component(c.role());
            Err(Fail { status: zt_status::ZT_ERR_UNSUPPORTED, detail: Detail::Core(e) })
        };
        match h.verify_digest(&c).map_err(|f| in_object(f, name))? {
            Verified::Ok => {
                if let Some(checked) = checked {
                    *checked = true;
                }
            }
            Verified::Unverifiable if flags & ZT_VERIFY_STRICT != 0 => {
                return unverifiable(ErrorKind::UnverifiableDigest)
            }
            Verified::NoDigest if flags & ZT_VERIFY_STRICT != 0 => {
                return unverifiable(ErrorKind::Unsupported { what: "the component has no digest" })
            }
            Verified::Unverifiable | Verified::NoDigest => {}
        }
        Ok(())
    })
}
