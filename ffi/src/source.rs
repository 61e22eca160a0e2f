//! Files read through the caller's callbacks: `zt_source`, `zt_open_source`
//! (issue #33), over the core's one positional-read trait,
//! `ztensor::source::Source`.

use crate::args::{arg, out_ref};
use crate::guard::{guard, Detail, Fail, Phase};
use crate::handle::zt_file;
use crate::zt_status;
use core::ffi::{c_char, c_int, c_void};
use core::mem::{offset_of, size_of};
use std::io;
use ztensor_core::fs::Reader;
use ztensor_core::source::Source;

/// A file the caller reads: its size and a positional read callback
/// (`zt_open_source`). Set `struct_size` to `sizeof(zt_source)`: fields are
/// only ever added at the end, and `struct_size` tells which a caller set.
#[repr(C)]
pub struct zt_source {
    /// `sizeof(zt_source)` as the caller compiled it.
    pub struct_size: usize,
    /// Handed to every callback.
    pub ctx: *mut c_void,
    /// The file's length in bytes.
    pub size: u64,
    /// Read exactly `len` bytes at `offset` into `buf`; return 0, or the
    /// caller's non-zero error code (reported by `zt_last_error`). May be
    /// called from several threads at once. Required.
    pub read_at: Option<unsafe extern "C" fn(ctx: *mut c_void, offset: u64, buf: *mut c_void, len: usize) -> c_int>,
    /// Optional: called exactly once, by `zt_close` or when `zt_open_source`
    /// fails.
    pub close: Option<unsafe extern "C" fn(ctx: *mut c_void)>,
    /// Optional, for v2 shards (§7): fill `*out` with a source for the
    /// shard called `name` (`name_len` bytes, not NUL-terminated) in the
    /// root's shard table and return 0, or return a non-zero code. The
    /// shard's `close` is called when the handle is closed.
    pub open_shard: Option<
        unsafe extern "C" fn(ctx: *mut c_void, name: *const c_char, name_len: usize, out: *mut zt_source) -> c_int,
    >,
}

/// The smallest `struct_size` accepted: through `close` (`open_shard` is optional).
const MIN_SIZE: usize = offset_of!(zt_source, open_shard);

/// A caller's source as the core reads it; closes it when dropped.
struct Callbacks {
    ctx: *mut c_void,
    size: u64,
    read_at: unsafe extern "C" fn(*mut c_void, u64, *mut c_void, usize) -> c_int,
    close: Option<unsafe extern "C" fn(*mut c_void)>,
    open_shard: Option<unsafe extern "C" fn(*mut c_void, *const c_char, usize, *mut zt_source) -> c_int>,
}

// SAFETY: `zt_source`'s contract: `read_at` may be called from several
// threads at once, and the context is the caller's to synchronize.
unsafe impl Send for Callbacks {}
// SAFETY: as above.
unsafe impl Sync for Callbacks {}

impl Callbacks {
    /// Take over `src`: from here on its `close` is called exactly once,
    /// when the result is dropped, also when `src` is refused (no `read_at`).
    ///
    /// # Safety
    /// `src` is NULL or valid for reads of `struct_size` bytes (at least
    /// its first field's), and its callbacks keep `zt_source`'s contract.
    unsafe fn take(src: *const zt_source) -> Result<Callbacks, Fail> {
        if src.is_null() {
            return Err(Fail::invalid("`src` is NULL"));
        }
        // SAFETY: the caller's contract; each field is read only when
        // `struct_size` says the caller's struct has it.
        let s = unsafe { core::ptr::read_unaligned(core::ptr::addr_of!((*src).struct_size)) };
        if s < MIN_SIZE {
            return Err(Fail::invalid("`src->struct_size` is too small: set it to sizeof(zt_source)"));
        }
        // SAFETY: as above: `struct_size` covers every field up to `close`.
        let (ctx, size, read_at, close) = unsafe { ((*src).ctx, (*src).size, (*src).read_at, (*src).close) };
        let open_shard = if s >= MIN_SIZE + size_of::<usize>() {
            // SAFETY: as above.
            unsafe { (*src).open_shard }
        } else {
            None
        };
        let Some(read_at) = read_at else {
            if let Some(close) = close {
                // SAFETY: the caller's callback, called once, as promised.
                unsafe { close(ctx) };
            }
            return Err(Fail::invalid("`src->read_at` is NULL"));
        };
        Ok(Callbacks { ctx, size, read_at, close, open_shard })
    }
}

impl Drop for Callbacks {
    fn drop(&mut self) {
        if let Some(close) = self.close {
            // SAFETY: the caller's callback; `drop` runs once.
            unsafe { close(self.ctx) };
        }
    }
}

impl Source for Callbacks {
    fn size(&self) -> u64 {
        self.size
    }

    fn read_at(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        // SAFETY: the caller's callback, writing at most `out.len()` bytes to `out`.
        match unsafe { (self.read_at)(self.ctx, offset, out.as_mut_ptr().cast(), out.len()) } {
            0 => Ok(()),
            code => Err(io::Error::other(format!("read callback returned {code} (offset {offset}, {} bytes)", out.len()))),
        }
    }

    fn open_shard(&self, name: &str) -> io::Result<Box<dyn Source>> {
        let Some(open) = self.open_shard else {
            return Err(io::Error::new(io::ErrorKind::NotFound, "no `open_shard` callback"));
        };
        let mut out = zt_source {
            struct_size: size_of::<zt_source>(),
            ctx: core::ptr::null_mut(),
            size: 0,
            read_at: None,
            close: None,
            open_shard: None,
        };
        // SAFETY: the caller's callback; `name` is valid for `name.len()` bytes.
        match unsafe { open(self.ctx, name.as_ptr().cast(), name.len(), &mut out) } {
            // SAFETY: `out` is ours, filled by the callback.
            0 => match unsafe { Callbacks::take(&out) } {
                Ok(c) => Ok(Box::new(c)),
                Err(_) => Err(io::Error::other("`open_shard` gave a source without `read_at`")),
            },
            code => Err(io::Error::other(format!("open_shard callback returned {code}"))),
        }
    }
}

/// Open and validate a file the caller reads through `src`'s callbacks:
/// object storage, a custom VFS, an archive member. Only the file's tail is
/// read now: for v1.2 and v2 files at most 2 calls of `read_at` (one, of
/// the last 64 KiB, when they hold the manifest; v0.1 may need 3), and each
/// component's bytes when it is read (of a `zt.zstd-seekable/1` range, only
/// the covering frames). Reads, range reads, typed reads and verification
/// work; `zt_component_ptr` answers `ZT_ERR_NOT_ZERO_COPY`. v2 parts in
/// shards are read through `src->open_shard`.
///
/// `flags`: 0, or `ZT_READ_NO_VERIFY` (as for `zt_open`).
///
/// On success `*out` receives a new handle, which calls `src->close` when
/// `zt_close` releases it. On failure `*out` is set to NULL and
/// `src->close` has been called (unless `src` is NULL or its `struct_size`
/// is too small): `ZT_ERR_IO` when `read_at` returned an error, its code in
/// `zt_last_error()`, `ZT_ERR_FORMAT`, `ZT_ERR_UNSUPPORTED`,
/// `ZT_ERR_INVALID_ARGUMENT` for a NULL `src`, `out` or `read_at`, a
/// `struct_size` below the first version's, or an unknown flag. Later
/// reads that fail return `ZT_ERR_IO` the same way, never crash.
///
/// Ownership: `*src` is copied (the struct need not outlive the call; its
/// `ctx` must live until `close`). The caller owns the handle and must
/// release it with `zt_close`. Thread-safety: as `zt_open`; the callbacks
/// are then called from whichever threads use the handle.
///
/// # Safety
/// `src` is NULL or valid for reads of `src->struct_size` bytes, with
/// callbacks that keep the contract above; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_open_source(src: *const zt_source, flags: u32, out: *mut *mut zt_file) -> zt_status {
    guard(|| {
        // (Taken first: on any failure below, `close` runs.)
        let callbacks = arg!(Callbacks::take(src))?;
        let out = arg!(out_ref(out)).ok_or_else(|| Fail::invalid("`out` is NULL"))?;
        out.write(core::ptr::null_mut());
        if flags & !crate::file::ZT_READ_NO_VERIFY != 0 {
            return Err(Fail::invalid("unknown `zt_open_source` flag"));
        }
        let reader = Reader::from_source(callbacks).map_err(|e| {
            let f = Fail::fs(e, Phase::Open);
            Fail { status: f.status, detail: Detail::Owned(format!("cannot open source: {}", f.detail)) }
        })?;
        let mut h = zt_file::from_reader(reader);
        if flags & crate::file::ZT_READ_NO_VERIFY != 0 {
            h = h.without_read_verify();
        }
        out.write(Box::into_raw(Box::new(h)));
        Ok(())
    })
}
