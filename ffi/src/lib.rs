//! C ABI of zTensor: `libztensor.so` / `libztensor.a` and `include/ztensor.h`.
//!
//! A thin layer over the `ztensor` crate: handles, argument checks (the
//! pointer checks of `args.rs`, called through `arg!`, which states the C
//! caller's contract once), error mapping, and nothing else. Reading is here; writing (`zt_writer`, over
//! the core's `Writer<FileSink>`) is in `write.rs`. `include/ztensor.h` is
//! generated from these files by cbindgen; `tests/header.rs` fails when it is stale
//! (`ZT_BLESS=1 cargo test --manifest-path ffi/Cargo.toml --test header`
//! rewrites it).
//!
//! Conventions (repeated in the header's preamble):
//! - every fallible call returns a [`zt_status`] (`ZT_OK` = 0) and writes its
//!   results through out-parameters; [`zt_last_error`] gives the detail;
//! - every entry point checks its pointers (NULL → `ZT_ERR_INVALID_ARGUMENT`)
//!   and runs inside `catch_unwind` (a panic → `ZT_ERR_PANIC`);
//! - strings are borrowed pointer + length, valid while the file is open.
// Without `std`: the no-heap build for firmware (`embedded.rs`); with
// `compact` too, the compact one (`compact/`).
// (Its own tests link std, also in the no-heap builds: `miri_no_heap` below.)
#![cfg_attr(all(not(feature = "std"), not(test)), no_std)]
#![allow(non_camel_case_types)]
// `Fail` carries the core error inline (no allocation on error paths, as in
// the core); its size only matters on the cold path.
#![allow(clippy::result_large_err)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

#[cfg(all(feature = "compact", feature = "std"))]
compile_error!("the `compact` feature is the no-heap firmware build: use it with `--no-default-features`");

mod args;
#[cfg(any(not(feature = "std"), test))]
mod bare;
#[cfg(feature = "std")]
mod convert;
#[cfg(not(feature = "compact"))]
mod guard;
#[cfg(not(feature = "compact"))]
mod handle;
mod message;
#[cfg(all(not(feature = "std"), target_os = "none", target_arch = "arm"))]
mod mem;
// Also under test, for its unit tests (the std build uses `messages`).
#[cfg(any(test, not(any(feature = "messages", feature = "compact"))))]
mod decimal;
#[cfg(not(any(feature = "messages", feature = "compact")))]
mod plain;
// cbindgen writes the header's functions in the order of these modules:
// keep it (one group each, so rustfmt does not sort them). The compact
// build compiles `compact/` instead of the full reader's modules
// (`file` ... `verify`); it exports the same functions with the same
// signatures, so it is left out of the header.
mod errors;

mod fault_numbers;

mod dtype;

#[cfg(not(feature = "compact"))]
mod file;

#[cfg(feature = "std")]
mod source;

#[cfg(not(any(feature = "std", feature = "compact")))]
mod embedded;

#[cfg(not(feature = "compact"))]
mod object;

#[cfg(not(feature = "compact"))]
mod attributes;

#[cfg(not(feature = "compact"))]
mod component;

#[cfg(not(feature = "compact"))]
mod verify;

#[cfg(feature = "std")]
mod load;

// The C types both readers share (after the modules above for cbindgen:
// its constants keep their place in the header).
mod types;

mod value;

#[cfg(feature = "std")]
mod write;

/// The compact build's C functions (`--no-default-features --features
/// compact`); also compiled, without exported symbols, in the std test
/// build, whose tests compare it with the full reader.
///
/// cbindgen:ignore
#[cfg(any(feature = "compact", all(test, feature = "std")))]
mod compact;

#[cfg(not(feature = "compact"))]
pub use attributes::*;
#[cfg(any(not(feature = "std"), test))]
pub use bare::{zt_file_storage, zt_slot};
#[cfg(feature = "compact")]
pub use compact::*;
#[cfg(not(feature = "compact"))]
pub use component::*;
#[cfg(feature = "std")]
pub use convert::*;
use core::ffi::c_char;
pub use dtype::*;
#[cfg(not(any(feature = "std", feature = "compact")))]
pub use embedded::*;
pub use errors::*;
pub use fault_numbers::*;
#[cfg(not(feature = "compact"))]
pub use file::*;
#[cfg(not(feature = "compact"))]
pub use handle::zt_file;
#[cfg(feature = "std")]
pub use load::*;
#[cfg(not(feature = "compact"))]
pub use object::*;
#[cfg(feature = "std")]
pub use source::*;
pub use types::*;
pub use value::*;
#[cfg(not(feature = "compact"))]
pub use verify::*;
#[cfg(feature = "std")]
pub use write::*;

/// Major version of this library (the `ztensor-ffi` crate).
pub const ZT_VERSION_MAJOR: u32 = 0;
/// Minor version of this library.
pub const ZT_VERSION_MINOR: u32 = 1;
/// Patch version of this library.
pub const ZT_VERSION_PATCH: u32 = 0;

/// Pass as a string length to say "the string is NUL-terminated".
/// (An explicit length is needed for names that contain NUL bytes.)
/// In the header: `#define ZT_NUL_TERMINATED SIZE_MAX` (cbindgen.toml).
///
/// cbindgen:ignore
pub const ZT_NUL_TERMINATED: usize = usize::MAX;

/// The library's version, `"MAJOR.MINOR.PATCH"` (the ZT_VERSION_* macros
/// give the version compiled against).
///
/// Ownership: a static NUL-terminated string; never free it.
/// Thread-safety: safe from any thread.
#[no_mangle]
pub extern "C" fn zt_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The no-heap builds' C ABI tests (`scripts/miri.sh` runs them under
/// Miri), beside `tests/miri_abi/`, whose read checks they share: in the
/// library's own test build, as an integration test cannot link these
/// builds (their cdylib and staticlib need the firmware's panic handler).
///
/// cbindgen:ignore
#[cfg(all(test, not(feature = "std")))]
#[path = "../tests/miri_abi/no_heap.rs"]
mod miri_no_heap;
// The shared checks name this crate `ztensor`, as the integration tests do.
#[cfg(all(test, not(feature = "std")))]
extern crate self as ztensor;

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;

    #[test]
    fn version_constants_match_the_crate() {
        let v = format!("{ZT_VERSION_MAJOR}.{ZT_VERSION_MINOR}.{ZT_VERSION_PATCH}");
        assert_eq!(v, env!("CARGO_PKG_VERSION"), "update ZT_VERSION_* in ffi/src/lib.rs");
        let s = unsafe { std::ffi::CStr::from_ptr(zt_version()) };
        assert_eq!(s.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    }

    #[test]
    fn opens_the_doc_example_from_memory() {
        let bytes = ztensor_core::doc_example_file();
        let mut f = core::ptr::null_mut();
        unsafe {
            assert_eq!(zt_open_mem(bytes.as_ptr(), bytes.len(), &mut f), zt_status::ZT_OK);
            assert_eq!(zt_object_count(f), 2);
            let mut o = zt_object { index: 99, owner: 0 };
            assert_eq!(zt_find(f, c"bias".as_ptr(), ZT_NUL_TERMINATED, &mut o), zt_status::ZT_OK);
            let (mut p, mut n) = (core::ptr::null(), 0);
            assert_eq!(zt_component_ptr(f, &o, c"data".as_ptr(), 4, &mut p, &mut n), zt_status::ZT_OK);
            assert_eq!(n, 8);
            assert_eq!(p as usize % 64, 0);
            let mut buf = [0f32; 2];
            let mut w = 0;
            let s = zt_component_read(f, &o, c"data".as_ptr(), 4, buf.as_mut_ptr().cast(), 8, &mut w);
            assert_eq!((s, w, buf), (zt_status::ZT_OK, 8, [0.5, -0.5]));
            assert_eq!(zt_verify(f, 0), zt_status::ZT_OK);
            zt_close(f);
        }
    }
}
