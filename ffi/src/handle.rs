//! The `zt_file` handle and the argument checks shared by every entry point.

use crate::guard::{Detail, Fail, Phase};
use crate::{zt_mode, zt_object, zt_status, ZT_NUL_TERMINATED};
use core::ffi::{c_char, CStr};
#[cfg(feature = "std")]
use std::path::{Path, PathBuf};
#[cfg(feature = "std")]
use ztensor_core::fs::{Mode, Reader};
use ztensor_core::{Component, Error as CoreError, File, Object};

/// An open, validated zTensor file (opaque to C).
///
/// Every operation on it takes `&self`, and the types inside are `Sync`:
/// one handle may be read from many threads at once.
pub struct zt_file {
    inner: Inner,
    /// The no-heap build's name index, in the caller's slots
    /// (`zt_open_mem_into`); it borrows `inner`, which never moves.
    #[cfg(not(feature = "std"))]
    index: Option<ztensor_core::NameIndex<'static, 'static, 'static>>,
}

enum Inner {
    /// Opened from a path: memory-mapped or positional (then with the path,
    /// which `zt_verify` maps to check data rules).
    #[cfg(feature = "std")]
    Path(Reader, Option<PathBuf>),
    /// Parsed from memory the caller lends for the handle's lifetime.
    Memory(File<'static>),
}

// A handle is shared across threads by C callers: prove it may be.
const _: () = {
    const fn sync_and_send<T: Sync + Send>() {}
    sync_and_send::<zt_file>();
};

impl zt_file {
    #[cfg(feature = "std")]
    pub(crate) fn from_reader(r: Reader, path: &Path) -> zt_file {
        let path = (r.mode() == Mode::Positional).then(|| path.to_path_buf());
        zt_file { inner: Inner::Path(r, path) }
    }

    pub(crate) fn from_memory(f: File<'static>) -> zt_file {
        zt_file {
            inner: Inner::Memory(f),
            #[cfg(not(feature = "std"))]
            index: None,
        }
    }

    /// Build the name index of the handle at `h` in `slots`, in place.
    ///
    /// # Safety
    /// `h` points to a live handle that stays in place, unmoved and
    /// otherwise unborrowed mutably, for as long as `slots` lives.
    #[cfg(not(feature = "std"))]
    pub(crate) unsafe fn index_in_place(h: *mut zt_file, slots: &'static mut [ztensor_core::Slot]) -> Result<(), Fail> {
        // SAFETY: the caller's contract; `inner` and `index` are disjoint
        // fields, so the index may borrow the first while the second is set.
        let Inner::Memory(f) = unsafe { &*core::ptr::addr_of!((*h).inner) };
        let index = ztensor_core::NameIndex::build(f, slots).map_err(|e| Fail::core(e, Phase::Open))?;
        // SAFETY: as above.
        unsafe { core::ptr::addr_of_mut!((*h).index).write(Some(index)) };
        Ok(())
    }

    /// The object called `name`: O(log n) with an index (the full build's,
    /// built at open, or the no-heap build's in the caller's slots), else
    /// a scan.
    pub(crate) fn find(&self, name: &str) -> Option<Object<'_>> {
        #[cfg(not(feature = "std"))]
        if let Some(i) = &self.index {
            return i.get(name);
        }
        self.file().get(name)
    }

    /// The object at position `i` in manifest order: O(1) in the full
    /// build; in the no-heap build a scan of the slots (no decoding) with
    /// an index, else of the manifest.
    pub(crate) fn object(&self, i: usize) -> Option<Object<'_>> {
        #[cfg(not(feature = "std"))]
        if let Some(x) = &self.index {
            return x.object(i);
        }
        self.file().object(i)
    }

    pub(crate) fn file(&self) -> &File<'_> {
        match &self.inner {
            #[cfg(feature = "std")]
            Inner::Path(r, _) => r.file(),
            Inner::Memory(f) => f,
        }
    }

    pub(crate) fn mode(&self) -> zt_mode {
        match &self.inner {
            #[cfg(feature = "std")]
            Inner::Path(r, _) if r.mode() == Mode::Positional => zt_mode::ZT_MODE_POSITIONAL,
            #[cfg(feature = "std")]
            Inner::Path(..) => zt_mode::ZT_MODE_MMAP,
            Inner::Memory(_) => zt_mode::ZT_MODE_MEMORY,
        }
    }

    /// The path of a file opened for positional reads.
    #[cfg(feature = "std")]
    pub(crate) fn positional_path(&self) -> Option<&Path> {
        match &self.inner {
            Inner::Path(_, p) => p.as_deref(),
            Inner::Memory(_) => None,
        }
    }

    /// Decode `c` into `out` (little-endian elements), whatever the mode.
    pub(crate) fn read_into(&self, c: &Component<'_>, out: &mut [u8]) -> Result<usize, Fail> {
        match &self.inner {
            #[cfg(feature = "std")]
            Inner::Path(r, _) => r.read_into(c, out).map_err(|e| Fail::fs(e, Phase::Data)),
            Inner::Memory(_) => c.read_into(out).map_err(|e| Fail::core(e, Phase::Data)),
        }
    }

    /// Decode `c` into a new buffer, whatever the mode.
    #[cfg(feature = "std")]
    pub(crate) fn to_vec(&self, c: &Component<'_>) -> Result<Vec<u8>, Fail> {
        match &self.inner {
            Inner::Path(r, _) => r.to_vec(c).map_err(|e| Fail::fs(e, Phase::Data)),
            Inner::Memory(_) => c.to_vec().map_err(|e| Fail::core(e, Phase::Data)),
        }
    }

    /// The stored (undecoded) bytes of `c`, read from the file in positional mode.
    #[cfg(feature = "std")]
    pub(crate) fn read_stored(&self, c: &Component<'_>) -> Result<Vec<u8>, Fail> {
        let mut v = vec![0u8; c.length() as usize];
        match &self.inner {
            Inner::Path(r, _) => r.read_stored_into(c, &mut v).map_err(|e| Fail::fs(e, Phase::Data))?,
            Inner::Memory(_) => {
                v.copy_from_slice(c.stored_bytes().map_err(|e| Fail::core(e, Phase::Data))?);
                v.len()
            }
        };
        Ok(v)
    }

    /// The stored bytes of a raw component, without copying, when the
    /// handle has them in memory and they are already little-endian.
    pub(crate) fn zero_copy<'f>(&'f self, o: &Object<'f>, c: &Component<'f>) -> Result<&'f [u8], Fail> {
        match &self.inner {
            #[cfg(feature = "std")]
            Inner::Path(r, _) => r.zero_copy(c).map_err(|e| in_object(Fail::fs(e, Phase::Data), o.name())),
            Inner::Memory(_) => c.zero_copy_bytes().map_err(|e| Fail::core(e.in_object(o.name()), Phase::Data)),
        }
    }
}

/// Attach the object's name to a core error that lacks it.
pub(crate) fn in_object(f: Fail, name: &str) -> Fail {
    match f.detail {
        Detail::Core(e) => Fail { status: f.status, detail: Detail::Core(e.in_object(name)) },
        _ => f,
    }
}

/// The handle behind `file`.
///
/// # Safety
/// `file` is NULL or a live handle from `zt_open` / `zt_open_mem`.
pub(crate) unsafe fn handle<'a>(file: *const zt_file) -> Result<&'a zt_file, Fail> {
    // SAFETY: the caller's contract.
    unsafe { file.as_ref() }.ok_or_else(|| Fail::invalid("`file` is NULL"))
}

/// The object `obj` designates in `h`.
///
/// # Safety
/// `obj` is NULL or points to a readable `zt_object`.
pub(crate) unsafe fn object<'f>(h: &'f zt_file, obj: *const zt_object) -> Result<Object<'f>, Fail> {
    // SAFETY: the caller's contract.
    let obj = unsafe { obj.as_ref() }.ok_or_else(|| Fail::invalid("`obj` is NULL"))?;
    h.object(obj.index).ok_or_else(|| Fail::invalid("object index out of range (zt_object from another file?)"))
}

/// A string argument given as pointer + length (or [`ZT_NUL_TERMINATED`]).
///
/// # Safety
/// `ptr` is NULL or valid for `len` bytes (or NUL-terminated when `len` is
/// `ZT_NUL_TERMINATED`).
pub(crate) unsafe fn bytes_arg<'a>(ptr: *const c_char, len: usize, what: &'static str) -> Result<&'a [u8], Fail> {
    if len == ZT_NUL_TERMINATED {
        if ptr.is_null() {
            return Err(Fail::invalid(what));
        }
        // SAFETY: NUL-terminated, by the caller's contract.
        return Ok(unsafe { CStr::from_ptr(ptr) }.to_bytes());
    }
    if ptr.is_null() {
        return if len == 0 { Ok(&[]) } else { Err(Fail::invalid(what)) };
    }
    if len > isize::MAX as usize {
        return Err(Fail::invalid(what));
    }
    // SAFETY: valid for `len` bytes, by the caller's contract.
    Ok(unsafe { core::slice::from_raw_parts(ptr.cast::<u8>(), len) })
}

/// Write `v` through `out`, or fail when `out` is NULL.
///
/// # Safety
/// `out` is NULL or valid for a write of `T`.
pub(crate) unsafe fn put<T>(out: *mut T, v: T, what: &'static str) -> Result<(), Fail> {
    if out.is_null() {
        return Err(Fail::invalid(what));
    }
    // SAFETY: non-NULL and writable, by the caller's contract.
    unsafe { out.write(v) };
    Ok(())
}

/// Write `v` through `out` when `out` is not NULL.
///
/// # Safety
/// `out` is NULL or valid for a write of `T`.
pub(crate) unsafe fn put_opt<T>(out: *mut T, v: T) {
    if !out.is_null() {
        // SAFETY: non-NULL and writable, by the caller's contract.
        unsafe { out.write(v) };
    }
}

/// A "not found" failure naming the object (and role).
pub(crate) fn not_found(object: Option<&str>, role: Option<&[u8]>) -> Fail {
    let mut e = CoreError::new(ztensor_core::ErrorKind::NotFound);
    if let Some(o) = object {
        e = e.in_object(o);
    }
    if let Some(r) = role {
        e = e.in_component(core::str::from_utf8(r).unwrap_or("(not UTF-8)"));
    }
    Fail { status: zt_status::ZT_ERR_NOT_FOUND, detail: Detail::Core(e) }
}
