//! The no-heap builds of the C library (`--no-default-features`, and with
//! `--features compact` the firmware's), for Miri (`scripts/miri.sh`):
//! `zt_open_mem_into` and `zt_file_storage_size` through their pointers
//! (storage of exactly the size the library says, at an address aligned
//! as its type and no more; slots too few, exactly enough, NULL with a
//! count; a storage reused by a second handle), then the read checks of
//! `main.rs` on handles in caller storage. A module of the library's own
//! tests (see `ffi/src/lib.rs`); natively:
//!
//!     cargo test --manifest-path ffi/Cargo.toml --no-default-features [--features compact] --lib miri_no_heap
//!
//! One test: these builds keep one `zt_last_error` buffer for the whole
//! program, which callers must not use from two threads at once.

#[path = "components.rs"]
mod components;
#[path = "foreign.rs"]
mod foreign;
#[path = "reads.rs"]
mod reads;
#[path = "support.rs"]
mod support;

use core::ptr::{null, null_mut};
use std::alloc::{alloc_zeroed, dealloc, Layout};
use support::*;
use ztensor::*;

#[test]
fn no_heap_build() {
    storage_and_slots();
    reads::file_info();
    reads::objects_by_position();
    reads::objects_by_name();
    reads::object_info_and_shape();
    reads::attributes();
    components::descriptions();
    components::zero_copy_and_reads();
    components::compressed();
    components::verification();
    #[cfg(not(feature = "compact"))]
    {
        components::ranges();
        components::component_digests();
    }
    foreign::foreign_objects();
}

/// `n` zeroed slots, in an allocation of exactly their size.
fn slots(n: usize) -> Vec<zt_slot> {
    (0..n).map(|_| zt_slot { words: [0; 2] }).collect()
}

/// `zt_open_mem_into` of `bytes`: the status, and `*out` NULL exactly after a failure.
fn open_into(
    bytes: (*const u8, usize),
    storage: *mut zt_file_storage,
    slots: (*mut zt_slot, usize),
) -> (zt_status, *mut zt_file) {
    let mut f = dangling();
    // SAFETY: the callers' pointers are valid for what they say.
    let s = unsafe { zt_open_mem_into(bytes.0, bytes.1, storage, slots.0, slots.1, &mut f) };
    assert_eq!(f.is_null(), s != ZT_OK, "`*out` is set exactly on success");
    (s, f)
}

/// The fewest slots `ATTRIBUTES` validates with (its map of 19 attribute keys).
const FEWEST: usize = 19;

fn storage_and_slots() {
    let size = zt_file_storage_size();
    assert_eq!(size, core::mem::size_of::<zt_file_storage>());
    assert_eq!(size, if cfg!(target_pointer_width = "64") { 384 } else { 288 });
    let file = (ATTRIBUTES.as_ptr(), ATTRIBUTES.len());
    // A variable on the stack, as firmware keeps one; used through `st` only.
    let mut storage: zt_file_storage = zeroed();
    let st: *mut zt_file_storage = &mut storage;
    let mut plenty = slots(64);
    let many = (plenty.as_mut_ptr(), 64);
    invalid(unsafe { zt_open_mem_into(file.0, file.1, st, many.0, 64, null_mut()) }, "`out` is NULL");
    invalid(open_into(file, null_mut(), many).0, "`storage` is NULL");
    invalid(open_into((null(), file.1), st, many).0, "`ptr` is NULL");
    invalid(open_into((file.0, isize::MAX as usize + 1), st, many).0, "`len` or `slot_count` out of range");
    invalid(open_into(file, st, (null_mut(), 4)).0, "`len` or `slot_count` out of range");
    expect(open_into((null(), 0), st, (null_mut(), 0)).0, ZT_ERR_FORMAT, "");
    // Validation scratch: one slot too few, none, exactly enough.
    let mut few = slots(FEWEST - 1);
    expect(open_into(file, st, (few.as_mut_ptr(), FEWEST - 1)).0, ZT_ERR_BUFFER_TOO_SMALL, "");
    expect(open_into(file, st, (null_mut(), 0)).0, ZT_ERR_BUFFER_TOO_SMALL, "");
    let mut exact = slots(FEWEST);
    let (s, first) = open_into(file, st, (exact.as_mut_ptr(), FEWEST));
    ok(s);
    let old = find_in(first, b"csr_with_attrs");
    // The same storage again: a new handle, which refuses the old one's objects.
    let (s, second) = open_into(file, st, many);
    ok(s);
    let mut n = 0;
    invalid(unsafe { zt_attribute_count(second, &old, &mut n) }, "a zt_object from another file");
    ok(unsafe { zt_attribute_count(second, &find_in(second, b"csr_with_attrs"), &mut n) });
    assert_eq!(n, 2);

    // Storage of exactly `size` bytes at an address 8 past a multiple of
    // 16 (its type's alignment, no more): a byte more written is UB Miri sees.
    let layout = Layout::from_size_align(size + 8, 16).unwrap();
    // SAFETY: a layout of nonzero size; freed below.
    let raw = unsafe { alloc_zeroed(layout) };
    assert!(!raw.is_null());
    // SAFETY: within the allocation.
    let tight = unsafe { raw.add(8) }.cast::<zt_file_storage>();
    let (s, f) = open_into(file, tight, many);
    ok(s);
    assert_eq!(f.cast::<zt_file_storage>(), tight, "the handle is the storage");
    read_values(f);
    // The file at an odd address: nothing in it aligned, everything reads.
    let odd = Shifted::new(ATTRIBUTES);
    let (s, f) = open_into((odd.bytes().as_ptr(), odd.bytes().len()), tight, many);
    ok(s);
    let (mut p, mut len): (*const u8, usize) = (null(), 0);
    ok(unsafe { zt_component_ptr(f, &find_in(f, b"csr_with_attrs"), c"indptr".as_ptr(), NUL, &mut p, &mut len) });
    assert_eq!((p as usize % 2, len), (1, 32));
    read_values(f);
    // SAFETY: allocated above with `layout`; the handles in it are not used again.
    unsafe { dealloc(raw, layout) };
}

/// `values` of `csr_with_attrs` read into a buffer of exactly its size.
fn read_values(f: *const zt_file) {
    let mut buf = vec![0u8; 16];
    let mut w = 0;
    ok(unsafe {
        zt_component_read(
            f,
            &find_in(f, b"csr_with_attrs"),
            c"values".as_ptr(),
            NUL,
            buf.as_mut_ptr().cast(),
            16,
            &mut w,
        )
    });
    assert_eq!(w, 16);
    assert_eq!(unsafe { zt_object_count(f) }, 5);
}
