//! The `zt_file` handle and the argument checks shared by every entry point.

pub(crate) use crate::args::{arg, bytes_arg, put, put_opt};
use crate::guard::{Detail, Fail, Phase};
use crate::types::next_owner;
use crate::{zt_mode, zt_object, zt_status};
use ztensor_core::digest::Verified;
#[cfg(feature = "std")]
use ztensor_core::fs::{Mode, Reader};
use ztensor_core::verify::{Options, Report};
use ztensor_core::{Component, Error as CoreError, File, Object};

/// An open, validated zTensor file (opaque to C).
///
/// Every operation on it takes `&self`, and the types inside are `Sync`:
/// one handle may be read from many threads at once.
pub struct zt_file {
    inner: Inner,
    /// The tag of every `zt_object` taken from this handle.
    owner: usize,
    /// Whether reads check digests (`ZT_READ_NO_VERIFY` at open clears it).
    verify_reads: bool,
    /// The no-heap build's name index, in the caller's slots
    /// (`zt_open_mem_into`); it borrows `inner`, which never moves.
    #[cfg(not(feature = "std"))]
    index: Option<ztensor_core::NameIndex<'static, 'static, 'static>>,
}

// One per handle, and the handle is boxed: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
enum Inner {
    /// Opened from a path: memory-mapped or positional.
    #[cfg(feature = "std")]
    Path(Reader),
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
    pub(crate) fn from_reader(r: Reader) -> zt_file {
        zt_file { inner: Inner::Path(r), owner: next_owner(), verify_reads: true }
    }

    /// Reads through this handle skip digest checks (`ZT_READ_NO_VERIFY`).
    #[cfg(feature = "std")]
    pub(crate) fn without_read_verify(mut self) -> zt_file {
        self.verify_reads = false;
        self
    }

    /// `c` as this handle reads it: with its digest checked, or not.
    fn for_read<'c>(&self, c: &Component<'c>) -> Component<'c> {
        if self.verify_reads {
            *c
        } else {
            c.unverified()
        }
    }

    pub(crate) fn from_memory(f: File<'static>) -> zt_file {
        zt_file {
            inner: Inner::Memory(f),
            owner: next_owner(),
            verify_reads: true,
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
        self.scan_find(name)
    }

    /// [`zt_file::find`] without an index. Out of line in the no-heap
    /// build: inlined, its scan's temporaries (an `Object` per step) added
    /// to the frame of every indexed lookup too.
    #[cfg_attr(not(feature = "std"), inline(never))]
    fn scan_find(&self, name: &str) -> Option<Object<'_>> {
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
        self.scan_object(i)
    }

    /// [`zt_file::object`] without an index; out of line in the no-heap
    /// build, as [`zt_file::scan_find`].
    #[cfg_attr(not(feature = "std"), inline(never))]
    fn scan_object(&self, i: usize) -> Option<Object<'_>> {
        self.file().object(i)
    }

    pub(crate) fn file(&self) -> &File<'_> {
        match &self.inner {
            #[cfg(feature = "std")]
            Inner::Path(r) => r.file(),
            Inner::Memory(f) => f,
        }
    }

    /// The tag of the objects taken from this handle.
    pub(crate) fn owner(&self) -> usize {
        self.owner
    }

    pub(crate) fn mode(&self) -> zt_mode {
        match &self.inner {
            #[cfg(feature = "std")]
            Inner::Path(r) if r.mode() == Mode::Positional => zt_mode::ZT_MODE_POSITIONAL,
            #[cfg(feature = "std")]
            Inner::Path(_) => zt_mode::ZT_MODE_MMAP,
            Inner::Memory(_) => zt_mode::ZT_MODE_MEMORY,
        }
    }

    /// Verify the file this handle reads (through its descriptor in
    /// positional mode: never re-opened by path, never mapped), and a v2
    /// file's shards (`Reader::verify_with`).
    pub(crate) fn verify(&self, options: Options) -> Report {
        match &self.inner {
            #[cfg(feature = "std")]
            Inner::Path(r) => r.verify_with(options, |_| {}),
            Inner::Memory(f) => f.verify_with(options, |_| {}),
        }
    }

    /// Decode `c` into `out` (little-endian elements), whatever the mode.
    pub(crate) fn read_into(&self, c: &Component<'_>, out: &mut [u8]) -> Result<usize, Fail> {
        let c = &self.for_read(c);
        match &self.inner {
            #[cfg(feature = "std")]
            Inner::Path(r) => r.read_into(c, out).map_err(|e| Fail::fs(e, Phase::Data)),
            Inner::Memory(_) => c.read_into(out).map_err(|e| Fail::core(e, Phase::Data)),
        }
    }

    /// Decode bytes `start..start + out.len()` of `c`, whatever the mode.
    pub(crate) fn read_range(&self, c: &Component<'_>, start: u64, out: &mut [u8]) -> Result<usize, Fail> {
        let c = &self.for_read(c);
        match &self.inner {
            #[cfg(feature = "std")]
            Inner::Path(r) => r.read_range_into(c, start, out).map_err(|e| Fail::fs(e, Phase::Data)),
            Inner::Memory(_) => c.read_range_into(start, out).map_err(|e| Fail::core(e, Phase::Data)),
        }
    }

    /// Load `requests` on `threads` workers (`ztensor::load`), checking
    /// digests when asked and when the handle does.
    #[cfg(feature = "std")]
    pub(crate) fn load(
        &self,
        requests: &mut [ztensor_core::load::Request<'_>],
        threads: usize,
        verify: bool,
    ) -> Vec<Result<(), ztensor_core::fs::Error>> {
        let options = ztensor_core::load::Options { threads, verify: verify && self.verify_reads };
        match &self.inner {
            Inner::Path(r) => r.load(requests, options),
            Inner::Memory(f) => ztensor_core::load::load(f, requests, options),
        }
    }

    /// The bytes `read_into` writes for `c`, found in bounded memory.
    #[cfg(feature = "std")]
    pub(crate) fn measure(&self, c: &Component<'_>) -> Result<u64, Fail> {
        match &self.inner {
            #[cfg(feature = "std")]
            Inner::Path(r) => r.measure_decoded_len(c).map_err(|e| Fail::fs(e, Phase::Data)),
            Inner::Memory(_) => {
                c.measure_decoded_len(ztensor_core::read::DEFAULT_DECODE_LIMIT).map_err(|e| Fail::core(e, Phase::Data))
            }
        }
    }

    /// Check `c`'s digest (v1.x: over its stored bytes; v2: its decoded
    /// bytes), whatever the mode: the core's one per-part check.
    pub(crate) fn verify_digest(&self, c: &Component<'_>) -> Result<Verified, Fail> {
        match &self.inner {
            #[cfg(feature = "std")]
            Inner::Path(r) => r.verify_digest(c).map_err(|e| Fail::fs(e, Phase::Data)),
            Inner::Memory(_) => c.verify_digest().map_err(|e| Fail::core(e, Phase::Data)),
        }
    }

    /// Decode `c` into a new buffer, whatever the mode.
    #[allow(dead_code)] // kept for conversions (zt_component_read_as)
    #[cfg(feature = "std")]
    pub(crate) fn to_vec(&self, c: &Component<'_>) -> Result<Vec<u8>, Fail> {
        let c = &self.for_read(c);
        match &self.inner {
            Inner::Path(r) => r.to_vec(c).map_err(|e| Fail::fs(e, Phase::Data)),
            Inner::Memory(_) => c.to_vec().map_err(|e| Fail::core(e, Phase::Data)),
        }
    }

    /// The stored bytes of a raw component, without copying, when the
    /// handle has them in memory and they are already little-endian.
    pub(crate) fn zero_copy<'f>(&'f self, name: &str, c: &Component<'f>) -> Result<&'f [u8], Fail> {
        match &self.inner {
            #[cfg(feature = "std")]
            Inner::Path(r) => r.zero_copy(c).map_err(|e| in_object(Fail::fs(e, Phase::Data), name)),
            Inner::Memory(_) => c.zero_copy_bytes().map_err(|e| Fail::core(e.in_object(name), Phase::Data)),
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
    unsafe { crate::args::get(file, Fail::invalid("`file` is NULL")) }
}

/// The `zt_object` behind `obj`.
///
/// # Safety
/// `obj` is NULL or points to a readable `zt_object`.
pub(crate) unsafe fn object_arg<'a>(obj: *const zt_object) -> Result<&'a zt_object, Fail> {
    // SAFETY: the caller's contract.
    unsafe { crate::args::get(obj, Fail::invalid("`obj` is NULL")) }
}

/// The object `obj` designates in `h`.
pub(crate) fn object<'f>(h: &'f zt_file, obj: &zt_object) -> Result<Object<'f>, Fail> {
    h.object(object_index(h, obj)?).ok_or_else(out_of_range)
}

/// The position `obj` designates in `h` (not yet checked against the
/// object count), after checking `obj` is from `h`.
fn object_index(h: &zt_file, obj: &zt_object) -> Result<usize, Fail> {
    if obj.owner != h.owner {
        return Err(Fail::invalid("a zt_object from another file (or not from zt_object_at / zt_find)"));
    }
    Ok(obj.index)
}

fn out_of_range() -> Fail {
    Fail::invalid("object index out of range")
}

/// `f` applied to the object `obj` designates in `h`, borrowed where the
/// lookup left it rather than moved into a `Result`: an `Object` is over
/// 300 bytes on 32-bit targets, and each copy is stack in the no-heap build.
pub(crate) fn with_object<'f, T>(
    h: &'f zt_file,
    obj: &zt_object,
    f: impl FnOnce(&Object<'f>) -> Result<T, Fail>,
) -> Result<T, Fail> {
    match h.object(object_index(h, obj)?) {
        Some(ref o) => f(o),
        None => Err(out_of_range()),
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
