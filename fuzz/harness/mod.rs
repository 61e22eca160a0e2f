//! Fuzz harness logic shared by the cargo-fuzz targets (`fuzz/fuzz_targets/*.rs`)
//! and the stable replay test (`tests/fuzz_replay.rs`), both of which include
//! this folder's `mod.rs` with `#[path]`. By area: `container` (opening),
//! `schema` (the walk over objects), `data` (component bytes, zstd frames),
//! `cbor` (attribute values), `structured` (generated manifests), `writer`
//! (writer round trips), `v2` (format v2 files built from a structure),
//! `compact` (the compact reader against the full one; also included
//! alone by `tests/compact.rs`); the CBOR builder is `tests/common/cbor.rs`.
//!
//! Every entry point takes arbitrary bytes and must never panic, hang or
//! allocate without bound; each one asserts the reader's invariants on
//! whatever it manages to open. A panic here is a finding.
//!
//! Needs `ztensor` (std), `arbitrary` (derive), `sha2`, `minicbor` and `xxhash-rust` in scope.
#![allow(dead_code)]

#[path = "../../tests/common/cbor.rs"]
mod builder;

pub use builder::Cbor;
use arbitrary::{Arbitrary, Unstructured};
use std::fmt::Write as _;
use ztensor::digest::Verified;
use ztensor::{
    Component, DType, Encoding, Endian, ErrorKind, File, Format, Layout, LogicalType, NameIndex,
    Object, Tail, Value, ValueRef, MAX_DEPTH,
};

/// Ceiling given to `to_vec_with_limit`.
pub const DECODE_LIMIT: u64 = 16 << 20;
/// Size of the fixed buffer handed to `read_into`.
pub const READ_BUF: usize = 64 << 10;

/// Known, reported findings the harness can be told to tolerate (so that a
/// campaign keeps exploring past them): a comma-separated list in
/// `ZT_FUZZ_KNOWN`. The replay test never sets it.
///
/// - `deep-tags`: tag chains longer than `MAX_DEPTH` are accepted by the
///   parser, and `Debug` of a value holding one recurses without bound. With
///   this set, tag chains are followed iteratively and `Debug` of values is
///   skipped.
fn known(issue: &str) -> bool {
    static KNOWN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    KNOWN.get_or_init(|| std::env::var("ZT_FUZZ_KNOWN").unwrap_or_default()).split(',').any(|k| k == issue)
}

/// - `zstd-bomb`: `check_data` / `verify` decode whole zstd components into
///   memory (up to the 4 GiB default limit; ruzstd keeps a window as large
///   as the frame's declared size besides), so a 16 KiB file declaring
///   512 MiB takes ~1 GiB and seconds. With this set, they are skipped for
///   files with a zstd component whose decoded size is over
///   [`DECODE_LIMIT`] or undeclared.
fn bomb(c: &Component<'_>) -> bool {
    known("zstd-bomb") && c.encoding() == Encoding::Zstd && c.decoded_len().map_or(true, |n| n > DECODE_LIMIT)
}

/// - `debug-dump`: the derived `Debug` of `Object` and `Component` prints
///   the whole manifest and the whole file (their `Ctx` / `data` slices), so
///   formatting one object of a mapped multi-GB file prints gigabytes, and a
///   3 KB file with many components times out. With this set, that `Debug`
///   is skipped.
fn debug_objects() -> bool {
    debug_values() && !known("debug-dump")
}

/// - `partial-element`: a zstd component whose decoded size is declared
///   nowhere (v1.1 without `uncompressed_length`, outside dense `data`)
///   decodes to any byte count, not always a whole number of elements
///   (`to_vec`, `read_into` accept it; `to_vec_of` drops the tail). With
///   this set, that is not asserted.
fn partial_ok() -> bool {
    known("partial-element")
}

/// Whether to exercise `Debug` of values (recursive).
fn debug_values() -> bool {
    !known("deep-tags")
}

const LTYPES: [&str; 6] = ["f8_e4m3fn", "f8_e5m2", "f8_e4m3fnuz", "f8_e5m2fnuz", "complex64", "complex128"];

/// A harness entry point.
pub type Target = fn(&[u8]);

/// The entry points by target name (the names of `fuzz/corpus/<target>/`).
pub const TARGETS: &[(&str, Target)] = &[
    ("open_walk", open_walk),
    ("tail_only", tail_only),
    ("legacy_v0", legacy_v0),
    ("structured", structured),
    ("writer_roundtrip", writer_roundtrip),
    ("read_modes", read_modes),
    ("v2_open", v2_open),
    ("gguf", gguf::fuzz::fuzz_one),
    ("compact", compact),
];

pub mod gguf;

#[path = "../reads.rs"]
mod reads;
pub use reads::read_modes;

mod cbor;
pub mod compact;
mod container;
mod data;
mod schema;
mod structured;
mod v2;
mod writer;

use cbor::*;
pub use container::*;
pub use data::*;
pub use schema::*;
pub use structured::*;
#[allow(unused_imports)] // v2_file: for the replay test's generator check
pub use v2::{v2_file, v2_open};
pub use writer::*;

// ====================================================================
// compact: the compact reader against the full one
// ====================================================================

/// The compact reader (`ztensor::compact`) and the full one must agree
/// (`compact.rs`: open/refuse by status class, views, verify reports) on
/// the bytes as a whole file; on them wrapped as the manifest of a v1
/// container (unless they are a file already: `ZTEN...`), the first
/// `2 * bytes[0]` bytes after it forming the data region from 64; and on
/// the file the `structured` target builds from them.
pub fn compact(data: &[u8]) {
    compact::check(data);
    if !data.starts_with(b"ZTEN") {
        compact::check(&compact_wrap(data));
    }
    if let Some(file) = structured_file(data) {
        compact::check(&file);
    }
}

/// `compact`'s v1 container around arbitrary bytes: `ZTEN1000`, zeros to
/// 64, `2 * data[0]` data bytes (from `data[1..]`), the rest as the
/// manifest, its size and the footer magic.
pub fn compact_wrap(data: &[u8]) -> Vec<u8> {
    let n = (2 * *data.first().unwrap_or(&0) as usize).min(data.len().saturating_sub(1));
    let (blob, manifest) = data.get(1..).unwrap_or(&[]).split_at(n);
    let mut f = b"ZTEN1000".to_vec();
    f.resize(64, 0);
    f.extend_from_slice(blob);
    f.extend_from_slice(manifest);
    f.extend_from_slice(&(manifest.len() as u64).to_le_bytes());
    f.extend_from_slice(b"ZTEN1000");
    f
}
