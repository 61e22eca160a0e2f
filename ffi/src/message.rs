//! The buffer behind `zt_last_error`, shared by every build: per thread
//! with `std`, one static buffer without it (no thread-locals in firmware),
//! and the writer that fills it, cutting what does not fit.

/// Capacity of the message buffer, NUL included. Longer messages are cut
/// (on a character boundary). A plain array rather than
/// `heapless::String` (the crate is not a dependency): C needs a stable
/// NUL-terminated buffer, and `heapless::String` refuses a write that does
/// not fit instead of cutting it, so it would not remove the `Truncating`
/// writer below.
#[cfg(feature = "std")]
pub(crate) const LAST_ERROR_CAP: usize = 512;
/// The no-heap builds keep one short message (static RAM is scarce there).
#[cfg(not(feature = "std"))]
pub(crate) const LAST_ERROR_CAP: usize = 128;

/// A writer into a fixed buffer that drops what does not fit, cutting on a
/// character boundary.
pub(crate) struct Truncating<'b> {
    /// The bytes not yet written (no index into the buffer: no bounds checks).
    rest: core::slice::IterMut<'b, u8>,
}

impl Truncating<'_> {
    /// Append `s`, or as much of it as fits.
    pub(crate) fn put(&mut self, s: &str) {
        let mut n = s.len().min(self.rest.len());
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        self.append(s.as_bytes().get(..n).unwrap_or_default());
    }

    /// Append as much of `bytes` as fits.
    fn append(&mut self, bytes: &[u8]) {
        // (`bytes` first: an item of `rest` is taken only for a byte.)
        for (&b, d) in bytes.iter().zip(self.rest.by_ref()) {
            // C reads the message up to its first NUL.
            *d = if b == 0 { b'?' } else { b };
        }
    }

    /// Append the decimal digits of `n` (without `core::fmt`).
    #[cfg(not(any(feature = "messages", feature = "compact")))]
    pub(crate) fn put_u64(&mut self, n: u64) {
        self.put(crate::decimal::digits(n, &mut [0; 20]));
    }

    /// Append the decimal digits of `n`, by 32-bit division (a hardware
    /// instruction on Cortex-M3 and up: smaller than `put_u64`'s); the
    /// leading digits first, as room allows (at most 10 calls deep).
    #[cfg(any(all(test, feature = "std"), feature = "compact"))]
    pub(crate) fn put_u32(&mut self, n: u32) {
        if n >= 10 {
            self.put_u32(n / 10);
        }
        // An ASCII digit: no UTF-8 boundary to respect.
        self.append(&[b'0' + (n % 10) as u8]);
    }
}

#[cfg(feature = "messages")]
impl core::fmt::Write for Truncating<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.put(s);
        Ok(())
    }
}

/// Fill `buf` (the message buffer) with what `write` writes, NUL-terminated.
fn fill(buf: &mut [u8; LAST_ERROR_CAP], write: impl FnOnce(&mut Truncating<'_>)) {
    let mut w = Truncating { rest: buf[..LAST_ERROR_CAP - 1].iter_mut() };
    write(&mut w);
    // (`min`: no bounds check; the writer stays within the cap.)
    let n = (LAST_ERROR_CAP - 1 - w.rest.len()).min(LAST_ERROR_CAP - 1);
    buf[n] = 0;
}

#[cfg(feature = "std")]
mod buffer {
    use super::{fill, Truncating, LAST_ERROR_CAP};
    use std::cell::RefCell;

    thread_local! {
        // A fixed array: no allocation and no destructor to register.
        static LAST_ERROR: RefCell<[u8; LAST_ERROR_CAP]> = const { RefCell::new([0; LAST_ERROR_CAP]) };
    }

    /// Replace this thread's last-error message with what `write` writes
    /// (nothing while the thread is being torn down).
    pub(crate) fn with_last_error(write: impl FnOnce(&mut Truncating<'_>)) {
        let _ = LAST_ERROR.try_with(|cell| {
            if let Ok(mut buf) = cell.try_borrow_mut() {
                fill(&mut buf, write);
            }
        });
    }

    /// This thread's message buffer (NUL-terminated), or a static empty
    /// string while the thread is being torn down.
    pub(crate) fn last_error_ptr() -> *const core::ffi::c_char {
        LAST_ERROR.try_with(|cell| cell.as_ptr() as *const core::ffi::c_char).unwrap_or(c"".as_ptr())
    }
}

#[cfg(not(feature = "std"))]
mod buffer {
    use super::{fill, Truncating, LAST_ERROR_CAP};
    use core::cell::UnsafeCell;

    /// One message for the whole program: no thread-local storage here.
    struct LastError(UnsafeCell<[u8; LAST_ERROR_CAP]>);

    // SAFETY: the header says the no-heap build's message is one buffer for
    // the whole program: callers that fail in several contexts at once
    // (threads, interrupts) must serialize them, as for any C global. The
    // buffer is plain bytes, always NUL-terminated within its length.
    unsafe impl Sync for LastError {}

    static LAST_ERROR: LastError = LastError(UnsafeCell::new([0; LAST_ERROR_CAP]));

    /// Replace the last-error message with what `write` writes.
    pub(crate) fn with_last_error(write: impl FnOnce(&mut Truncating<'_>)) {
        // SAFETY: see `impl Sync`: no other access runs at the same time.
        fill(unsafe { &mut *LAST_ERROR.0.get() }, write);
    }

    /// The message buffer (NUL-terminated).
    pub(crate) fn last_error_ptr() -> *const core::ffi::c_char {
        LAST_ERROR.0.get().cast()
    }
}

pub(crate) use buffer::{last_error_ptr, with_last_error};
