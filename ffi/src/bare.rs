//! What both no-heap builds share (the full reader's `embedded.rs` and the
//! compact reader's `compact/`): the caller memory for a handle and its
//! slots, and the panic hook.

use ztensor_core::scratch::Entry;

/// One entry of the caller's array for `zt_open_mem_into`: validation
/// scratch during the call, then the handle's name index (16 bytes).
#[repr(C)]
pub struct zt_slot {
    /// Opaque.
    pub words: [u64; 2],
}

/// `u64` words of a [`zt_file_storage`]; the header's `ZT_FILE_STORAGE_SIZE`
/// says the same in bytes.
const STORAGE_WORDS: usize = if cfg!(target_pointer_width = "64") { 48 } else { 36 };

/// Memory for one handle, provided by the caller (`zt_open_mem_into`).
/// Defined in the header's trailer (cbindgen.toml), with its size.
///
/// cbindgen:ignore
#[repr(C)]
pub struct zt_file_storage {
    words: [u64; STORAGE_WORDS],
}

const _: () = {
    assert!(core::mem::size_of::<zt_slot>() == core::mem::size_of::<Entry>());
    assert!(core::mem::align_of::<zt_slot>() >= core::mem::align_of::<Entry>());
};

/// A panic cannot unwind in firmware: it ends in the C hook `zt_panic`,
/// which the firmware defines (the header's trailer documents it). Only a
/// bug in this library can get here, never a file's content.
#[cfg(all(not(feature = "std"), target_os = "none"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    extern "C" {
        fn zt_panic();
    }
    // SAFETY: `zt_panic` is the firmware's function, declared in ztensor.h.
    unsafe { zt_panic() };
    // It must not return; if it does, stop here.
    loop {
        core::hint::spin_loop();
    }
}
