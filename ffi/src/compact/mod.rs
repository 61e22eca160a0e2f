//! The compact build (`--no-default-features --features compact`): the
//! header's no-heap API over the core's compact reader
//! (`ztensor::compact`: v1.x files only, zstd listed but not decoded), for
//! firmware whose flash is small. The same C signatures, types and
//! statuses as the full no-heap build (`embedded.rs` and the read modules)
//! for the functions below and in `data.rs`; v0.1 and v2 files are refused
//! with `ZT_ERR_UNSUPPORTED`. Not in this build: `zt_dtype_name`,
//! `zt_dtype_size`, `zt_object_format` (the format's name is in
//! `zt_object_info`), `zt_component_read_range`, `zt_component_verify`.
//!
//! `zt_last_error` texts: the fault's phrase and its manifest byte, or the
//! argument's problem, in one static buffer (`message.rs`), without
//! `core::fmt`. The std test build compiles this module too, without
//! exported symbols, for `tests.rs`, which compares it with the full reader.

mod data;
// (They compare it with the full library: the std build's.)
#[cfg(all(test, feature = "std"))]
mod tests;

pub use data::*;

use crate::args::{arg, cleared, get, out_ref, put_opt, string_arg, Invalid};
use crate::types::{c_format, next_owner};
use crate::{zt_file_info, zt_file_storage, zt_mode, zt_object, zt_object_info, zt_slot, zt_status};
use core::ffi::c_char;
use ztensor_core::compact::{Fault, File, Object, Status};
use ztensor_core::scratch::Entry;

/// An open file of the compact build, in the caller's `zt_file_storage`
/// (opaque to C).
pub struct zt_file {
    file: File<'static>,
    /// The tag of every `zt_object` taken from this handle.
    owner: usize,
}

const _: () = {
    assert!(core::mem::size_of::<zt_file>() <= core::mem::size_of::<zt_file_storage>());
    assert!(core::mem::align_of::<zt_file>() <= core::mem::align_of::<zt_file_storage>());
    assert!(core::mem::size_of::<zt_slot>() == core::mem::size_of::<Entry>());
};

/// The C layer's own refusal texts, each named by its number: a refusal
/// carries its [`Msg`], not a pointer and a length (less code at each
/// refusal; the texts in one table, `Msg::text` finds them). The first
/// ones name an argument: their message is "`name` is NULL".
macro_rules! msgs {
    ($($name:ident $status:ident $text:literal,)*) => {
        /// One of the C layer's own refusals (a whole word in a
        /// [`Fail`]: a byte there made its copies byte by byte).
        #[derive(Clone, Copy)]
        #[repr(u32)]
        pub(crate) enum Msg {
            $($name,)*
        }

        /// The texts in [`Msg`] order, NUL-separated.
        #[cfg_attr(not(feature = "texts"), allow(dead_code))]
        const TEXTS: &str = concat!($($text, "\0",)*);

        /// Every [`Msg`] with its status, for the tests.
        #[cfg(all(test, feature = "std"))]
        pub(crate) const ALL: &[(Msg, zt_status)] = &[$((Msg::$name, zt_status::$status),)*];
    };
}

// Grouped by status, in the order `Msg::status` tests them; the NULL
// arguments first.
msgs! {
    FileNull ZT_ERR_INVALID_ARGUMENT "file",
    ObjNull ZT_ERR_INVALID_ARGUMENT "obj",
    StorageNull ZT_ERR_INVALID_ARGUMENT "storage",
    PtrNull ZT_ERR_INVALID_ARGUMENT "ptr",
    InfoNull ZT_ERR_INVALID_ARGUMENT "info",
    DimsNull ZT_ERR_INVALID_ARGUMENT "dims",
    AttrNull ZT_ERR_INVALID_ARGUMENT "attr",
    WrittenNull ZT_ERR_INVALID_ARGUMENT "written",
    DstNull ZT_ERR_INVALID_ARGUMENT "dst",
    OutNull ZT_ERR_INVALID_ARGUMENT "out",
    NameNull ZT_ERR_INVALID_ARGUMENT "name",
    KeyNull ZT_ERR_INVALID_ARGUMENT "key",
    RoleNull ZT_ERR_INVALID_ARGUMENT "role",
    ForeignObject ZT_ERR_INVALID_ARGUMENT "a zt_object from another file (or not from zt_object_at / zt_find)",
    ObjectIndex ZT_ERR_INVALID_ARGUMENT "object index out of range",
    LenOrSlots ZT_ERR_INVALID_ARGUMENT "`len` or `slot_count` out of range",
    NameOrLenNull ZT_ERR_INVALID_ARGUMENT "`name` or `len` is NULL",
    PtrOrLenNull ZT_ERR_INVALID_ARGUMENT "`ptr` or `len` is NULL",
    CapOver ZT_ERR_INVALID_ARGUMENT "`cap` is over PTRDIFF_MAX",
    VerifyFlag ZT_ERR_INVALID_ARGUMENT "unknown `zt_verify` flag",
    TooLong ZT_ERR_INVALID_ARGUMENT "a string length is over PTRDIFF_MAX (and is not ZT_NUL_TERMINATED)",
    NoObject ZT_ERR_NOT_FOUND "no object with that name",
    NoAttribute ZT_ERR_NOT_FOUND "no attribute with that key",
    NoComponent ZT_ERR_NOT_FOUND "no component with that role",
    ShapeTooSmall ZT_ERR_BUFFER_TOO_SMALL "buffer too small for the shape",
    ComponentTooSmall ZT_ERR_BUFFER_TOO_SMALL "buffer too small for the component",
    Compressed ZT_ERR_NOT_ZERO_COPY "no zero-copy view: the component is compressed",
    DeclaredSize ZT_ERR_CORRUPT_DATA "declared size exceeds what the zstd data can hold",
}

impl Msg {
    /// Its status (by its group in the table: no status stored with it).
    pub(crate) fn status(self) -> zt_status {
        use zt_status::*;
        let n = self as u32;
        if n < Msg::NoObject as u32 {
            ZT_ERR_INVALID_ARGUMENT
        } else if n < Msg::ShapeTooSmall as u32 {
            ZT_ERR_NOT_FOUND
        } else if n < Msg::Compressed as u32 {
            ZT_ERR_BUFFER_TOO_SMALL
        } else if n < Msg::DeclaredSize as u32 {
            ZT_ERR_NOT_ZERO_COPY
        } else {
            ZT_ERR_CORRUPT_DATA
        }
    }

    /// Whether it names a NULL argument (its text is the name).
    #[cfg_attr(not(feature = "texts"), allow(dead_code))]
    fn null(self) -> bool {
        (self as u32) < Msg::ForeignObject as u32
    }

    /// Its text in the table.
    #[cfg_attr(not(feature = "texts"), allow(dead_code))]
    fn text(self) -> &'static str {
        ztensor_core::compact::nth_text(TEXTS, self as usize)
    }
}

/// Why a call failed: the status and what the message says. (A `u32`
/// tag: the variants' fields at fixed places, whole words to copy.)
#[repr(u32)]
pub(crate) enum Fail {
    /// One of the C layer's own refusals (its status and text).
    Text(Msg),
    /// A status and a text not in [`Msg`] (an argument refused in
    /// `args.rs`, shared with the full build; texts of the functions
    /// firmware seldom links, which the table would carry into every one).
    Str(zt_status, &'static str),
    /// The reader's fault (its phrase and manifest byte), after the number
    /// of problems verification found, the fault the first (0: not a
    /// verification; it finds at least one when it fails).
    Fault(usize, Fault),
}

impl From<Msg> for Fail {
    fn from(m: Msg) -> Fail {
        Fail::Text(m)
    }
}

impl From<Invalid> for Fail {
    fn from(i: Invalid) -> Fail {
        Fail::Str(zt_status::ZT_ERR_INVALID_ARGUMENT, i.0)
    }
}

/// The status of a fault's class.
pub(crate) fn status_of(f: Fault) -> zt_status {
    match f.status() {
        Status::Format => zt_status::ZT_ERR_FORMAT,
        Status::Unsupported => zt_status::ZT_ERR_UNSUPPORTED,
        Status::BufferTooSmall => zt_status::ZT_ERR_BUFFER_TOO_SMALL,
        Status::DigestMismatch => zt_status::ZT_ERR_DIGEST_MISMATCH,
        Status::CorruptData => zt_status::ZT_ERR_CORRUPT_DATA,
    }
}

impl Fail {
    /// Write the message for `zt_last_error` and return the status.
    #[cold]
    #[inline(never)]
    fn record(self) -> zt_status {
        let status = match self {
            Fail::Text(m) => m.status(),
            Fail::Str(s, _) => s,
            Fail::Fault(_, f) => status_of(f),
        };
        crate::message::with_last_error(|w| {
            let f = match self {
                // (Without texts: its number, a `ZT_REFUSAL_*` of the header.)
                #[cfg(not(feature = "texts"))]
                Fail::Text(m) => {
                    w.put("refusal ");
                    return w.put_u32(m as u32);
                }
                #[cfg(feature = "texts")]
                Fail::Text(m) => {
                    let (before, after) = if m.null() { ("`", "` is NULL") } else { ("", "") };
                    w.put(before);
                    w.put(m.text());
                    return w.put(after);
                }
                Fail::Str(_, text) => return w.put(text),
                Fail::Fault(n, f) => {
                    if n != 0 {
                        w.put_u32(u32::try_from(n).unwrap_or(u32::MAX));
                        w.put(" problem");
                        if n != 1 {
                            w.put("s");
                        }
                        w.put(" found; first: ");
                    }
                    f
                }
            };
            // (Without texts: its number, a `ZT_FAULT_*` of the header.)
            #[cfg(not(feature = "texts"))]
            {
                w.put("fault ");
                w.put_u32(f.kind as u32);
            }
            #[cfg(feature = "texts")]
            w.put(f.kind.message());
            w.put(" (manifest byte ");
            w.put_u32(f.at);
            w.put(")");
        });
        status
    }
}

/// Run `f`, turning its failure into a status and a message (nothing to
/// catch: no unwinding in firmware, and nothing here panics).
fn guard(f: impl FnOnce() -> Result<(), Fail>) -> zt_status {
    match f() {
        Ok(()) => zt_status::ZT_OK,
        Err(fail) => fail.record(),
    }
}

/// A string argument (`args::bytes_arg`), `null` naming it when NULL.
///
/// # Safety
/// As `args::bytes_arg`.
unsafe fn text_arg<'a>(ptr: *const c_char, len: usize, null: Msg) -> Result<&'a [u8], Msg> {
    // SAFETY: the caller's contract.
    unsafe { string_arg(ptr, len, null, Msg::TooLong) }
}

/// The handle behind `file`.
///
/// # Safety
/// `file` is NULL or a live handle from `zt_open_mem_into`.
unsafe fn handle<'a>(file: *const zt_file) -> Result<&'a zt_file, Msg> {
    // SAFETY: the caller's contract.
    unsafe { get(file, Msg::FileNull) }
}

/// The handle behind `file` and the object `obj` designates, after
/// checking it is from this handle (one copy of these checks in the code).
/// Callers use the view inside `map` / `and_then`: taking it out with `?`
/// copies it through the stack (more code in every caller). Its refusals
/// are [`Msg`]s (a word: the results of these helpers are small).
///
/// # Safety
/// `file` is NULL or a live handle; `obj` is NULL or points to a readable
/// `zt_object`.
#[inline(never)]
unsafe fn object<'a>(file: *const zt_file, obj: *const zt_object) -> Result<(&'a zt_file, Object<'static>), Msg> {
    let h = arg!(handle(file))?;
    let obj = arg!(get(obj, Msg::ObjNull))?;
    if obj.owner != h.owner {
        return Err(Msg::ForeignObject);
    }
    h.file.object(obj.index).map(|o| (h, o)).ok_or(Msg::ObjectIndex)
}

impl zt_file {
    fn tag(&self, index: usize) -> zt_object {
        zt_object { index, owner: self.owner }
    }
}

/// Size in bytes of `zt_file_storage` as this library was built (the
/// header's `zt_file_storage_size`).
#[cfg_attr(feature = "compact", no_mangle)]
pub extern "C" fn zt_file_storage_size() -> usize {
    core::mem::size_of::<zt_file_storage>()
}

/// Validate a v1.x file in caller memory into `*storage` (the header's
/// `zt_open_mem_into`): `slots` are the reader's scratch during the call,
/// then its name index when there is one per object (`zt_find` O(log n),
/// `zt_object_at` O(1)).
///
/// # Safety
/// As the header says: `ptr` valid for `len` bytes, `storage` writable,
/// `slots` NULL or writable for `slot_count` entries, all for the handle's
/// lifetime; `out` NULL or writable.
#[cfg_attr(feature = "compact", no_mangle)]
pub unsafe extern "C" fn zt_open_mem_into(
    ptr: *const u8,
    len: usize,
    storage: *mut zt_file_storage,
    slots: *mut zt_slot,
    slot_count: usize,
    out: *mut *mut zt_file,
) -> zt_status {
    guard(|| {
        let out = arg!(out_ref(out)).ok_or(Fail::Text(Msg::OutNull))?;
        out.write(core::ptr::null_mut());
        if storage.is_null() {
            return Err(Fail::Text(Msg::StorageNull));
        }
        if ptr.is_null() && len != 0 {
            return Err(Fail::Text(Msg::PtrNull));
        }
        if len > isize::MAX as usize || (slots.is_null() && slot_count != 0) {
            return Err(Fail::Text(Msg::LenOrSlots));
        }
        // (Not through `args::slice` and `args::buffer`: with them LLVM
        // inlines the open here, more flash for the firmware's budget.)
        // SAFETY: both for the handle's lifetime, by the caller's contract.
        let bytes: &'static [u8] = if len == 0 { &[] } else { unsafe { core::slice::from_raw_parts(ptr, len) } };
        // `zt_slot` is 16 bytes of integers, as `Entry` (checked above).
        // SAFETY: as above.
        let slots: &'static mut [Entry] =
            if slot_count == 0 { &mut [] } else { unsafe { core::slice::from_raw_parts_mut(slots.cast(), slot_count) } };
        let h = storage.cast::<zt_file>();
        // SAFETY: `storage` is large and aligned enough (checked above);
        // the file is opened in place (no copy of it from a `Result`).
        let place = unsafe { &mut *core::ptr::addr_of_mut!((*h).file).cast() };
        if let Err(f) = File::open_in(bytes, slots, place) {
            return Err(Fail::Fault(0, f));
        }
        // SAFETY: as above: `owner` is a field of the handle in `storage`.
        unsafe { core::ptr::addr_of_mut!((*h).owner).write(next_owner()) };
        out.write(h);
        Ok(())
    })
}

/// Facts about the file (the header's `zt_file_get_info`).
///
/// # Safety
/// `file` NULL or live; `info` NULL or writable.
#[cfg_attr(feature = "compact", no_mangle)]
pub unsafe extern "C" fn zt_file_get_info(file: *const zt_file, info: *mut zt_file_info) -> zt_status {
    guard(|| {
        let info = arg!(cleared(info, Msg::InfoNull))?;
        let f = &arg!(handle(file))?.file;
        // (Each field stored as it is found, as in zt_object_get_info.)
        let v = f.version();
        (info.version_major, info.version_minor, info.version_patch) = (v.major.into(), v.minor.into(), v.patch.into());
        (info.mode, info.object_count, info.file_length) = (zt_mode::ZT_MODE_MEMORY, f.len(), f.bytes().len() as u64);
        (info.manifest_offset, info.manifest_length) = f.manifest();
        info.attribute_count = f.attributes().len();
        Ok(())
    })
}

/// Number of objects; 0 when `file` is NULL.
///
/// # Safety
/// `file` NULL or live.
#[cfg_attr(feature = "compact", no_mangle)]
pub unsafe extern "C" fn zt_object_count(file: *const zt_file) -> usize {
    arg!(handle(file)).map_or(0, |h| h.file.len())
}

/// The object at position `index` in manifest order.
///
/// # Safety
/// `file` NULL or live; `out` NULL or writable.
#[cfg_attr(feature = "compact", no_mangle)]
pub unsafe extern "C" fn zt_object_at(file: *const zt_file, index: usize, out: *mut zt_object) -> zt_status {
    guard(|| {
        let h = arg!(handle(file))?;
        if index >= h.file.len() {
            return Err(Fail::Text(Msg::ObjectIndex));
        }
        arg!(out_ref(out)).ok_or(Msg::OutNull)?.write(h.tag(index));
        Ok(())
    })
}

/// The object called `name` (O(log n) with an index in the slots, else a scan).
///
/// # Safety
/// `file` NULL or live; `name` valid for `name_len` bytes (or
/// NUL-terminated); `out` NULL or writable.
#[cfg_attr(feature = "compact", no_mangle)]
pub unsafe extern "C" fn zt_find(
    file: *const zt_file,
    name: *const c_char,
    name_len: usize,
    out: *mut zt_object,
) -> zt_status {
    guard(|| {
        let h = arg!(handle(file))?;
        let name = arg!(text_arg(name, name_len, Msg::NameNull))?;
        let out = arg!(out_ref(out)).ok_or(Msg::OutNull)?;
        // (No `?` and Ok: the index is written where it is found.)
        h.file
            .position(name)
            .map(|i| {
                out.write(h.tag(i));
            })
            .ok_or(Fail::Text(Msg::NoObject))
    })
}

/// The object's name, borrowed from the file.
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `name`, `len` NULL or writable.
#[cfg_attr(feature = "compact", no_mangle)]
pub unsafe extern "C" fn zt_object_name(
    file: *const zt_file,
    obj: *const zt_object,
    name: *mut *const c_char,
    len: *mut usize,
) -> zt_status {
    guard(|| {
        arg!(object(file, obj)).and_then(|(_, o)| {
            let (Some(name), Some(len)) = (arg!(out_ref(name)), arg!(out_ref(len))) else {
                return Err(Msg::NameOrLenNull);
            };
            let n = o.name();
            name.write(n.as_ptr().cast());
            len.write(n.len());
            Ok(())
        })
        .map_err(Fail::Text)
    })
}

/// Summary of an object (the header's `zt_object_get_info`).
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `info` NULL or writable.
#[cfg_attr(feature = "compact", no_mangle)]
pub unsafe extern "C" fn zt_object_get_info(
    file: *const zt_file,
    obj: *const zt_object,
    info: *mut zt_object_info,
) -> zt_status {
    guard(|| {
        let info = arg!(cleared(info, Msg::InfoNull))?;
        // (Each field stored as it is found: nothing kept across the calls.)
        arg!(object(file, obj)).map(|(_, o)| {
            let name = o.name();
            (info.name, info.name_len) = (name.as_ptr().cast(), name.len());
            let format = o.format();
            let name = format.name();
            (info.format, info.format_len) = (name.as_ptr().cast(), name.len());
            info.format_kind = c_format(format);
            let shape = o.shape();
            (info.ndim, info.numel) = (shape.ndim, shape.numel());
            info.component_count = o.component_count();
            info.attribute_count = o.attribute_count();
        })
        .map_err(Fail::Text)
    })
}

/// The object's shape (the header's `zt_object_shape`).
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `dims` NULL or writable for
/// `cap` values; `ndim` NULL or writable.
#[cfg_attr(feature = "compact", no_mangle)]
pub unsafe extern "C" fn zt_object_shape(
    file: *const zt_file,
    obj: *const zt_object,
    dims: *mut u64,
    cap: usize,
    ndim: *mut usize,
) -> zt_status {
    guard(|| {
        arg!(object(file, obj)).and_then(|(_, o)| {
            let shape = o.shape();
            arg!(put_opt(ndim, shape.ndim));
            if cap < shape.ndim {
                return Err(Msg::ShapeTooSmall);
            }
            if shape.ndim > 0 && dims.is_null() {
                return Err(Msg::DimsNull);
            }
            // (Through the pointer, not `args::buffer`: a slice costs this
            // build's flash budget more code.)
            let mut at = dims;
            for d in shape.dims() {
                // SAFETY: `dims` is writable for `cap` values (the caller's
                // contract), and `cap` covers the `ndim` written (checked above).
                unsafe {
                    at.write(d);
                    at = at.add(1);
                }
            }
            Ok(())
        })
        .map_err(Fail::Text)
    })
}
