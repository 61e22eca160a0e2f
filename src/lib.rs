//! zTensor (`.zt`) tensor files: a `no_std`, zero-allocation reader.
//!
//! [`File::parse`] validates a whole manifest in one pass over a borrowed
//! byte slice (the whole file, or just its tail with [`File::parse_tail`]),
//! then hands out borrowing views: [`Object`]s, their [`Shape`] and
//! [`Component`]s, attributes as lazy CBOR [`Value`]s, and zero-copy data.
//!
//! Features: none (`no_std`, no heap), `alloc` (name index built at open;
//! zstd, writer), `std` (default; files and the `zt` command). What is read
//! is additive too, all in `default`: `v0` (v0.1 files), `v1-legacy` (v1.0
//! and v1.1 files in [`compact`]), `v2` (v2 files) and `error-names`
//! (errors keep the names they concern); `std` implies all but `v1-legacy`.
//!
//! ```
//! # fn main() -> Result<(), ztensor::Error> {
//! let bytes = ztensor::doc_example_file();
//! let file = ztensor::File::parse(bytes)?;
//! assert_eq!(file.len(), 2);
//! let bias = file.require("bias")?;
//! assert_eq!(bias.shape().dims().collect::<Vec<_>>(), [2]);
//! assert_eq!(bias.data()?.as_slice::<f32>()?, &[0.5, -0.5]);
//! # Ok(()) }
//! ```
#![no_std]
#![deny(unsafe_code)] // allowed only in `fs` (memory maps), `write::names` (a prefetch hint), `xxh3` (AVX2), `digest::copy` (SSE 4.2) and `utf8` (text after validation)
#![warn(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

/// The scratch used when the caller gives none: growable with `alloc`, a
/// fixed-capacity array in the caller's frame without.
#[cfg(feature = "alloc")]
macro_rules! default_scratch {
    () => {
        $crate::scratch::Scratch::growable()
    };
}
#[cfg(not(feature = "alloc"))]
macro_rules! default_scratch {
    () => {
        $crate::scratch::Scratch::fixed(&mut $crate::scratch::Fixed::new())
    };
}

pub mod cast;
mod cbor;
mod check;
pub mod compact;
pub mod container;
mod data;
pub mod digest;
mod error;
mod file;
mod formats;
// (The compact reader sorts with it in every build.)
mod heapsort;
#[cfg(feature = "std")]
pub mod fs;
mod index;
#[cfg(feature = "std")]
pub mod load;
mod manifest;
mod components;
mod object;
pub mod read;
pub mod scratch;
#[cfg(feature = "alloc")]
mod sort;
#[cfg(feature = "std")]
pub mod source;
mod types;
mod utf8;
pub mod v2;
mod value;
mod xxh3;
pub mod verify;
#[cfg(feature = "alloc")]
pub mod write;
#[cfg(feature = "alloc")]
pub mod zstd;

pub use cbor::MAX_DEPTH;
pub use container::{Layout, Tail};
pub use data::{doc_example_file, Element};
pub use error::{Error, ErrorKind, Name, Result};
pub use file::{File, NameIndex, Slot};
pub use formats::{Coo, Csr, GgufBlocks, QuantParams};
pub use manifest::schema;
pub use manifest::view::Objects;
pub use components::Components;
pub use object::{Component, Object, Shape};
pub use types::{DType, Encoding, Endian, Format, LogicalType, Version};
pub use v2::layout::{Mx, Profile, QuantGroup};
pub use value::{Array, Chunks, Described, Map, Value, ValueRef};

/// The ```rust blocks of README.md, compiled and run by `cargo test --doc`
/// (on files the repository ships; paths relative to the crate root).
#[cfg(all(doctest, feature = "std"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The ```rust blocks of docs/rust.md, tested the same way.
#[cfg(all(doctest, feature = "std"))]
#[doc = include_str!("../docs/rust.md")]
pub struct RustDocDoctests;

/// The manifest's validating CBOR walk alone (well-formedness, UTF-8,
/// nesting depth; duplicate keys when given `keys`), for `benches/open.rs`,
/// which times it against minicbor's `Decoder` as the token layer. Not API.
#[doc(hidden)]
pub fn __bench_walk(buf: &[u8], keys: Option<&mut scratch::Scratch<'_>>) -> Result<usize> {
    let mut r = cbor::Reader::new(buf);
    r.walk(0, keys)?;
    Ok(r.pos)
}
