//! Statuses: `zt_status`, its static text and the thread's last message.

#[cfg(not(feature = "compact"))]
use crate::guard::guard_value;
use core::ffi::c_char;

/// Result of every fallible call. `ZT_OK` is 0; everything else is an error
/// whose detail `zt_last_error()` gives. Values are stable: new ones may be
/// added at the end, so treat unknown values as errors.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum zt_status {
    /// Success.
    ZT_OK = 0,
    /// A NULL pointer, an out-of-range index, an unknown flag, or a
    /// `zt_object` that does not belong to this file.
    ZT_ERR_INVALID_ARGUMENT = 1,
    /// The operating system refused (open, map, read).
    ZT_ERR_IO = 2,
    /// The bytes are not a valid zTensor file (container, CBOR or manifest);
    /// when writing, the object or attribute would not make a valid file
    /// (`zt_last_error()` names the rule).
    ZT_ERR_FORMAT = 3,
    /// A valid file this library cannot handle (a newer major version, ...).
    ZT_ERR_UNSUPPORTED = 4,
    /// No object with that name, or no component with that role.
    ZT_ERR_NOT_FOUND = 5,
    /// The caller's buffer is too small; the call said how much is needed.
    ZT_ERR_BUFFER_TOO_SMALL = 6,
    /// No zero-copy pointer: compressed, big-endian, or positional mode.
    ZT_ERR_NOT_ZERO_COPY = 7,
    /// A digest does not match the stored bytes.
    ZT_ERR_DIGEST_MISMATCH = 8,
    /// Data is corrupt: zstd fails to decode or decodes to the wrong size,
    /// sparse indices out of range, bool bytes other than 0/1.
    ZT_ERR_CORRUPT_DATA = 9,
    /// A bug in this library (a Rust panic, caught at the boundary). A
    /// writer on which a call panicked refuses every later call with it.
    ZT_ERR_PANIC = 10,
}

/// A short static description of a status (`"ok"`, `"invalid argument"`, ...);
/// `"unknown status"` for a value that is not a `zt_status`.
///
/// Ownership: a static NUL-terminated string; never free it.
/// Thread-safety: safe from any thread.
#[no_mangle]
pub extern "C" fn zt_status_str(status: i32) -> *const c_char {
    let s: &'static core::ffi::CStr = match status {
        0 => c"ok",
        1 => c"invalid argument",
        2 => c"I/O error",
        3 => c"invalid zTensor file",
        4 => c"unsupported",
        5 => c"not found",
        6 => c"buffer too small",
        7 => c"no zero-copy view",
        8 => c"digest mismatch",
        9 => c"corrupt data",
        10 => c"internal error (panic)",
        _ => c"unknown status",
    };
    s.as_ptr()
}

/// The detailed message of the most recent failed call on the calling
/// thread (what went wrong and where: object, component, manifest byte),
/// or `""` when no call has failed on this thread yet. Successful calls
/// leave it unchanged.
///
/// Ownership: a NUL-terminated string owned by the library, in thread-local
/// storage; never free it. It stays valid until the next failing call on
/// the same thread (copy it to keep it) and until the thread exits.
/// Thread-safety: safe from any thread; each thread has its own message.
#[no_mangle]
pub extern "C" fn zt_last_error() -> *const c_char {
    #[cfg(not(feature = "compact"))]
    let p = guard_value(c"".as_ptr(), crate::message::last_error_ptr);
    // Nothing to catch in the compact build: no code there can panic.
    #[cfg(feature = "compact")]
    let p = crate::message::last_error_ptr();
    p
}
