//! Opening and closing files: `zt_open`, `zt_open_mem`, `zt_close`, `zt_file_get_info`.

use crate::args::cleared;
#[cfg(feature = "std")]
use crate::args::{c_str, out_ref, slice, take};
use crate::guard::{guard, Fail};
#[cfg(feature = "std")]
use crate::guard::{guard_value, Detail, Phase};
use crate::handle::{arg, handle, zt_file};
use crate::{zt_file_info, zt_status};
#[cfg(feature = "std")]
use core::ffi::c_char;
#[cfg(feature = "std")]
use ztensor_core::fs::{Mode, Reader};
#[cfg(feature = "std")]
use ztensor_core::File;

/// `zt_open` flag: read only the footer and manifest at open, and each
/// component with a positional read when asked for (no memory map). For
/// network filesystems and files larger than the address space.
/// `zt_component_ptr` is then unavailable.
#[cfg(feature = "std")]
pub const ZT_OPEN_POSITIONAL: u32 = 1;

/// `zt_open` flag: reads through the handle do not check digests. By
/// default every read of a whole component (`zt_component_read`,
/// `zt_component_read_as`, a `zt_component_read_range` covering it all)
/// checks the digest it has over the bytes it produces, in the same pass,
/// and answers `ZT_ERR_DIGEST_MISMATCH` naming the object and component;
/// set this when the file was verified already (`zt_verify`). Zero-copy
/// pointers (`zt_component_ptr`) are never checked: see
/// `zt_component_verify`.
#[cfg(feature = "std")]
pub const ZT_READ_NO_VERIFY: u32 = 2;

/// Open and validate the file at `path` (NUL-terminated; bytes as the OS
/// takes them). By default the file is memory-mapped: opening costs
/// O(manifest) whatever the file's size, and raw components are available
/// without copying (`zt_component_ptr`, 64-byte aligned). With
/// `ZT_OPEN_POSITIONAL`, only the footer and manifest are read now and each
/// component is read when asked for.
///
/// On success `*out` receives a new handle; on failure `*out` is set to
/// NULL and `zt_last_error()` says why, naming the path (`ZT_ERR_IO`, `ZT_ERR_FORMAT`,
/// `ZT_ERR_UNSUPPORTED`; `ZT_ERR_INVALID_ARGUMENT` for a NULL pointer or an
/// unknown flag).
///
/// Only regular files are opened: a directory, FIFO or device is refused
/// with `ZT_ERR_IO` ("not a regular file"), never waited on.
///
/// Files that change while open: replacing the file by a rename (as
/// `zt_writer_finish` does) is safe in both modes, the handle keeps reading
/// the file it opened. Changing the file in place is not: in the default
/// (memory-mapped) mode, reading a part cut off by truncation kills the
/// process with SIGBUS, as with any memory map, and rewritten bytes show
/// through; with `ZT_OPEN_POSITIONAL` such reads return `ZT_ERR_IO`
/// instead. Where files can be truncated or rewritten under a reader
/// (shared or network directories), open with `ZT_OPEN_POSITIONAL`.
///
/// Ownership: the caller owns the handle and must release it with
/// `zt_close` exactly once. `path` is not kept.
/// Thread-safety: may be called from any thread. The handle may then be
/// used from many threads at once (every call except `zt_close` only reads).
///
/// # Safety
/// `path` is NULL or NUL-terminated; `out` is NULL or writable.
#[cfg(feature = "std")]
#[no_mangle]
pub unsafe extern "C" fn zt_open(path: *const c_char, flags: u32, out: *mut *mut zt_file) -> zt_status {
    guard(|| {
        let out = arg!(out_ref(out)).ok_or_else(|| Fail::invalid("`out` is NULL"))?;
        out.write(core::ptr::null_mut());
        if path.is_null() {
            return Err(Fail::invalid("`path` is NULL"));
        }
        if flags & !(ZT_OPEN_POSITIONAL | ZT_READ_NO_VERIFY) != 0 {
            return Err(Fail::invalid("unknown `zt_open` flag"));
        }
        let bytes = arg!(c_str(path, Fail::invalid("`path` is NULL")))?;
        #[cfg(unix)]
        let p = std::path::Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(bytes));
        #[cfg(not(unix))]
        let p = std::path::Path::new(core::str::from_utf8(bytes).map_err(|_| Fail::invalid("`path` is not UTF-8"))?);
        let mode = if flags & ZT_OPEN_POSITIONAL != 0 { Mode::Positional } else { Mode::Mmap };
        let reader = Reader::open_with(p, mode).map_err(|e| {
            let f = Fail::fs(e, Phase::Open);
            Fail { status: f.status, detail: Detail::Owned(format!("cannot open {}: {}", p.display(), f.detail)) }
        })?;
        let mut h = zt_file::from_reader(reader);
        if flags & ZT_READ_NO_VERIFY != 0 {
            h = h.without_read_verify();
        }
        out.write(Box::into_raw(Box::new(h)));
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
#[cfg(feature = "std")]
#[no_mangle]
pub unsafe extern "C" fn zt_open_mem(ptr: *const u8, len: usize, out: *mut *mut zt_file) -> zt_status {
    guard(|| {
        let out = arg!(out_ref(out)).ok_or_else(|| Fail::invalid("`out` is NULL"))?;
        out.write(core::ptr::null_mut());
        if !ptr.is_null() && len > isize::MAX as usize {
            return Err(Fail::invalid("`len` is too large"));
        }
        // (Valid for as long as the handle lives, by the caller's contract.)
        let bytes: &'static [u8] = arg!(slice(ptr, len, Fail::invalid("`ptr` is NULL")))?;
        let file = File::parse(bytes).map_err(|e| Fail::core(e, Phase::Open))?;
        out.write(Box::into_raw(Box::new(zt_file::from_memory(file))));
        Ok(())
    })
}

/// Release a handle from `zt_open` / `zt_open_mem` / `zt_open_source`:
/// unmaps or closes the file (calls the source's `close`, and its shards'). Every pointer obtained from it (names, strings, zero-copy data)
/// becomes invalid. `zt_close(NULL)` does nothing.
///
/// Ownership: consumes the handle; closing it twice is undefined behaviour.
/// Thread-safety: no other thread may be using the handle.
///
/// # Safety
/// `file` is NULL or a live handle not used afterwards.
#[cfg(feature = "std")]
#[no_mangle]
pub unsafe extern "C" fn zt_close(file: *mut zt_file) {
    guard_value((), || {
        drop(arg!(take(file)));
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
        let info = arg!(cleared(info, Fail::invalid("`info` is NULL")))?;
        let h = arg!(handle(file))?;
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
        *info = value;
        Ok(())
    })
}
