//! Why a call failed (`Fail`: a status and the message's parts), and the
//! wrapper that keeps every panic on the Rust side of the boundary. The
//! message buffer itself is `message.rs`. Without `std` (the no-heap
//! build): no unwinding to catch (a panic ends in the C hook `zt_panic`,
//! see `bare.rs`).

use crate::zt_status;
use core::fmt;
#[cfg(feature = "messages")]
use core::fmt::Write as _;
#[cfg(feature = "std")]
use std::panic::{catch_unwind, AssertUnwindSafe};
use ztensor_core::{Error as CoreError, ErrorKind};

/// Where a core error happened: validating the manifest (open) or reading data.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    Open,
    Data,
}

/// Why a call failed: a status and what to put in the message.
pub(crate) struct Fail {
    pub status: zt_status,
    pub detail: Detail,
}

pub(crate) enum Detail {
    Static(&'static str),
    Core(CoreError),
    #[cfg(feature = "std")]
    Io(std::io::Error),
    /// A message built on the error path (writer errors with a path).
    #[cfg(feature = "std")]
    Owned(String),
    Verify {
        count: usize,
        first: CoreError,
    },
}

impl fmt::Display for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Detail::Static(s) => f.write_str(s),
            Detail::Core(e) => write!(f, "{e}"),
            #[cfg(feature = "std")]
            Detail::Io(e) => write!(f, "I/O error: {}", OsText(e)),
            #[cfg(feature = "std")]
            Detail::Owned(s) => f.write_str(s),
            Detail::Verify { count, first } => {
                write!(f, "{count} problem{} found; first: {first}", if *count == 1 { "" } else { "s" })
            }
        }
    }
}

/// An I/O error's text without Rust's `(os error N)` suffix.
#[cfg(feature = "std")]
pub(crate) struct OsText<'e>(pub &'e std::io::Error);

#[cfg(feature = "std")]
impl fmt::Display for OsText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0.to_string();
        let cut = match s.rfind(" (os error ") {
            Some(i) if s.ends_with(')') => &s[..i],
            _ => &s,
        };
        f.write_str(cut)
    }
}

impl Fail {
    /// A NULL or out-of-range argument; `what` names it.
    pub fn invalid(what: &'static str) -> Fail {
        Fail { status: zt_status::ZT_ERR_INVALID_ARGUMENT, detail: Detail::Static(what) }
    }

    pub fn with(status: zt_status, what: &'static str) -> Fail {
        Fail { status, detail: Detail::Static(what) }
    }

    pub fn core(e: CoreError, phase: Phase) -> Fail {
        Fail { status: status_of(e.kind(), phase), detail: Detail::Core(e) }
    }

    #[cfg(feature = "std")]
    pub fn fs(e: ztensor_core::fs::Error, phase: Phase) -> Fail {
        match e {
            ztensor_core::fs::Error::Io(e) => Fail { status: zt_status::ZT_ERR_IO, detail: Detail::Io(e) },
            ztensor_core::fs::Error::Format(e) => Fail::core(e, phase),
        }
    }

    /// Record the message for `zt_last_error` and return the status.
    pub fn record(self) -> zt_status {
        #[cfg(feature = "messages")]
        set_last_error(format_args!("{}", self.detail));
        #[cfg(not(feature = "messages"))]
        crate::message::with_last_error(|w| crate::plain::write_detail(w, &self.detail));
        self.status
    }
}

impl From<crate::args::Invalid> for Fail {
    fn from(i: crate::args::Invalid) -> Fail {
        Fail::invalid(i.0)
    }
}

/// The status for a core error kind.
pub(crate) fn status_of(kind: ErrorKind, phase: Phase) -> zt_status {
    use zt_status::*;
    use ErrorKind::*;
    match kind {
        NotFound => ZT_ERR_NOT_FOUND,
        // Caller storage too small (the no-heap build's slots).
        BufferTooSmall { .. } | ScratchTooSmall { .. } => ZT_ERR_BUFFER_TOO_SMALL,
        BufferSize { needed, given } if given < needed => ZT_ERR_BUFFER_TOO_SMALL,
        NotZeroCopy { .. } => ZT_ERR_NOT_ZERO_COPY,
        DigestMismatch => ZT_ERR_DIGEST_MISMATCH,
        // (A seek table, its frames and what they decode to are a part's
        // data: found only when it is read or verified.)
        Decompress | ZstdChecksum | DecodedTooLarge { .. } | BadData { .. } | Seekable { .. } | DecodedLength => {
            ZT_ERR_CORRUPT_DATA
        }
        // At open, a size that disagrees with shape and type is a manifest
        // error; when reading, it is data that decodes to the wrong size.
        LengthMismatch { .. } if phase == Phase::Data => ZT_ERR_CORRUPT_DATA,
        Io => ZT_ERR_IO,
        UnsupportedVersion { .. } | Unsupported { .. } | NoData | UnverifiableDigest => ZT_ERR_UNSUPPORTED,
        TypeMismatch | RangeOutOfBounds { .. } | BufferSize { .. } => ZT_ERR_INVALID_ARGUMENT,
        _ => ZT_ERR_FORMAT,
    }
}

/// Replace this thread's last-error message.
#[cfg(feature = "messages")]
pub(crate) fn set_last_error(args: fmt::Arguments<'_>) {
    crate::message::with_last_error(|w| {
        let _ = w.write_fmt(args);
    });
}

/// The text of a panic payload.
#[cfg(feature = "std")]
fn panic_text(p: &(dyn std::any::Any + Send)) -> &str {
    if let Some(s) = p.downcast_ref::<&'static str>() {
        s
    } else if let Some(s) = p.downcast_ref::<String>() {
        s
    } else {
        "(no message)"
    }
}

/// Run `f`, turning its failure into a status (and a message) and a panic
/// into [`zt_status::ZT_ERR_PANIC`]: nothing unwinds into C.
#[cfg(feature = "std")]
pub(crate) fn guard(f: impl FnOnce() -> Result<(), Fail>) -> zt_status {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => zt_status::ZT_OK,
        Ok(Err(fail)) => fail.record(),
        Err(payload) => {
            let _ = catch_unwind(AssertUnwindSafe(|| {
                set_last_error(format_args!("internal error (Rust panic): {}", panic_text(&*payload)));
            }));
            // Dropping the payload could itself panic: keep that inside too.
            let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
            zt_status::ZT_ERR_PANIC
        }
    }
}

/// [`guard`] for calls that return a value instead of a status: `fallback`
/// when `f` panics.
#[cfg(feature = "std")]
pub(crate) fn guard_value<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(payload) => {
            let _ = catch_unwind(AssertUnwindSafe(|| {
                set_last_error(format_args!("internal error (Rust panic): {}", panic_text(&*payload)));
            }));
            let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
            fallback
        }
    }
}

#[cfg(not(feature = "std"))]
pub(crate) use bare::{guard, guard_value};

/// The no-heap build's call wrappers.
#[cfg(not(feature = "std"))]
mod bare {
    use super::Fail;
    use crate::zt_status;

    /// Run `f`, turning its failure into a status (and a message).
    pub(crate) fn guard(f: impl FnOnce() -> Result<(), Fail>) -> zt_status {
        match f() {
            Ok(()) => zt_status::ZT_OK,
            Err(fail) => fail.record(),
        }
    }

    /// Run `f` (nothing to catch without unwinding).
    pub(crate) fn guard_value<T>(_fallback: T, f: impl FnOnce() -> T) -> T {
        f()
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use crate::message::{last_error_ptr, LAST_ERROR_CAP};
    use std::ffi::CStr;

    fn last() -> String {
        unsafe { CStr::from_ptr(last_error_ptr()) }.to_string_lossy().into_owned()
    }

    #[test]
    fn panics_become_a_status() {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let s = guard(|| panic!("boom {}", 42));
        let v = guard_value(7usize, || panic!("static boom"));
        std::panic::set_hook(prev);
        assert_eq!(s, zt_status::ZT_ERR_PANIC);
        assert_eq!(v, 7);
        assert_eq!(last(), "internal error (Rust panic): static boom");
    }

    #[test]
    fn messages_are_cut_on_char_boundaries_and_nul_free() {
        let long = "é".repeat(400);
        set_last_error(format_args!("{long}"));
        let m = last();
        assert!(m.len() < LAST_ERROR_CAP);
        assert!(m.chars().all(|c| c == 'é'));
        set_last_error(format_args!("a\0b"));
        assert_eq!(last(), "a?b");
    }

    #[test]
    fn errors_map_to_statuses() {
        assert_eq!(status_of(ErrorKind::BadMagic, Phase::Open), zt_status::ZT_ERR_FORMAT);
        let lm = ErrorKind::LengthMismatch { expected: 1, actual: 2 };
        assert_eq!(status_of(lm, Phase::Open), zt_status::ZT_ERR_FORMAT);
        assert_eq!(status_of(lm, Phase::Data), zt_status::ZT_ERR_CORRUPT_DATA);
        assert_eq!(status_of(ErrorKind::UnsupportedVersion { major: 2 }, Phase::Open), zt_status::ZT_ERR_UNSUPPORTED);
        assert_eq!(status_of(ErrorKind::DigestMismatch, Phase::Data), zt_status::ZT_ERR_DIGEST_MISMATCH);
    }
}
