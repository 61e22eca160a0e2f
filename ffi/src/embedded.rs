//! The no-heap build (without the `std` feature): handles in caller storage,
//! the name index in a caller array (the types, and the panic hook, are
//! `bare.rs`, shared with the compact build).

use crate::args::{arg, buffer, out_ref, slice};
use crate::guard::{guard, Fail, Phase};
use crate::handle::zt_file;
use crate::{zt_file_storage, zt_slot, zt_status};
use ztensor_core::scratch::Entry;
use ztensor_core::{File, Slot};

const _: () = {
    assert!(core::mem::size_of::<zt_file>() <= core::mem::size_of::<zt_file_storage>());
    assert!(core::mem::align_of::<zt_file>() <= core::mem::align_of::<zt_file_storage>());
    assert!(core::mem::size_of::<zt_slot>() == core::mem::size_of::<Slot>());
    assert!(core::mem::align_of::<zt_slot>() >= core::mem::align_of::<Slot>());
};

/// Size in bytes of `zt_file_storage` as this library was built (to check
/// `sizeof(zt_file_storage)` against).
///
/// Ownership: nothing to free. Thread-safety: safe from any thread.
#[no_mangle]
pub extern "C" fn zt_file_storage_size() -> usize {
    core::mem::size_of::<zt_file_storage>()
}

/// Validate a whole file held in memory the caller owns (a model in flash)
/// without any heap: the handle is built in `*storage`, and `slots`
/// (`slot_count` entries) serve as validation scratch during the call and
/// then as the handle's name index. Nothing is copied: names and zero-copy
/// pointers point into `ptr`, 64-byte aligned when `ptr` is.
///
/// Slots: with at least one per object, `zt_find` is O(log n) (a sorted
/// index; in the compact build, `--features compact`, resolving a
/// `zt_object` is then O(1) too); with fewer, `zt_find` scans the objects
/// (O(n)); it needs the same slots as this build to validate. Validation needs
/// scratch for files whose object names are not in ascending order (one
/// slot per object), whose blobs are not in file order (one per
/// component), for the keys of attribute maps and of maps inside unknown
/// fields (one per key of the maps being checked at once) and for CBOR
/// nested more than 8 levels inside a field (one per level past 8: the
/// validator's frames, so that its stack stays small); when `slot_count`
/// is too small for the file, `ZT_ERR_BUFFER_TOO_SMALL`.
/// `slots` may be NULL when `slot_count` is 0.
///
/// On success `*out` receives the handle (a pointer into `*storage`); on
/// failure `*out` is NULL (`ZT_ERR_FORMAT`, `ZT_ERR_UNSUPPORTED`,
/// `ZT_ERR_BUFFER_TOO_SMALL`; `ZT_ERR_INVALID_ARGUMENT` for NULL pointers).
///
/// Ownership: the caller keeps the bytes, the storage and the slots; all
/// three must stay valid, unchanged and in place (not moved or copied) for
/// as long as the handle is used. There is nothing to close: the handle
/// ends when the caller reuses the storage. Allocation: none.
/// Thread-safety: the handle may be read from several contexts at once
/// (every call only reads it), but `zt_last_error()` is one buffer for the
/// whole program in this build.
///
/// # Safety
/// `ptr` valid for `len` bytes, `storage` writable, `slots` NULL or
/// writable for `slot_count` entries, all for the handle's lifetime; `out`
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_open_mem_into(
    ptr: *const u8,
    len: usize,
    storage: *mut zt_file_storage,
    slots: *mut zt_slot,
    slot_count: usize,
    out: *mut *mut zt_file,
) -> zt_status {
    guard(|| {
        let out = arg!(out_ref(out)).ok_or_else(|| Fail::invalid("`out` is NULL"))?;
        out.write(core::ptr::null_mut());
        if storage.is_null() {
            return Err(Fail::invalid("`storage` is NULL"));
        }
        if ptr.is_null() && len != 0 {
            return Err(Fail::invalid("`ptr` is NULL"));
        }
        if len > isize::MAX as usize || (slots.is_null() && slot_count != 0) {
            return Err(Fail::invalid("`len` or `slot_count` out of range"));
        }
        let slot_count = if slots.is_null() { 0 } else { slot_count };
        // (For the handle's lifetime, by the caller's contract.)
        let bytes: &'static [u8] = arg!(slice(ptr, len, Fail::invalid("`ptr` is NULL")))?;
        // `zt_slot` is 16 bytes of integers, aligned for `Entry` (checked above).
        let bad_slots = || Fail::invalid("`len` or `slot_count` out of range");
        let scratch: &mut [Entry] = arg!(buffer(slots.cast::<Entry>(), slot_count, bad_slots(), bad_slots()))?;
        let h = storage.cast::<zt_file>();
        // Matched, not `map_err(..)?`: each conversion of the result would
        // be one more copy of a `File` on the stack.
        match File::parse_with_scratch(bytes, scratch) {
            // SAFETY: `storage` is writable, large and aligned enough
            // (checked at compile time above).
            Ok(file) => unsafe { h.write(zt_file::from_memory(file)) },
            Err(e) => return Err(Fail::core(e, Phase::Open)),
        }
        // SAFETY: just written; below, `h` stays in place for the handle's
        // lifetime and the slots with it (the caller's contract).
        if slot_count >= unsafe { (*h).file().len() } {
            // SAFETY: `Slot` is 16 bytes of integers, aligned (checked above);
            // the slots are the caller's for the handle's lifetime.
            let index_slots = unsafe { core::slice::from_raw_parts_mut(slots.cast::<Slot>(), slot_count) };
            // SAFETY: as above.
            unsafe { zt_file::index_in_place(h, index_slots)? };
        }
        out.write(h);
        Ok(())
    })
}
