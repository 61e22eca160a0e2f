//! Hostile files: one hand-made file per validation rule, each asserting the
//! specific [`ErrorKind`] (and, where it is known, where it happened), plus
//! edge cases that must NOT be rejected.
//!
//! Every rejected file is checked three ways: [`File::parse`],
//! [`File::parse_with_scratch`] and, when the container is sound,
//! [`File::parse_tail`] from the footer and manifest alone; all three must
//! fail with the same kind.

#[path = "../common/mod.rs"]
mod common;
#[path = "../host_order/mod.rs"]
mod host_order;

use common::*;
use host_order::{host_can_view, typed_read_and_view, NOT_HOST_ORDER};
use ztensor::{
    DType, Encoding, Endian, Error, ErrorKind, File, Format, LogicalType, Tail, MAX_DEPTH,
};

// A file the rules build: nothing more to do here (`tests/compact.rs`
// compares the compact reader on each).
fn observe(_bytes: &[u8]) {}

include!("harness.rs");

mod container;
mod cbor;
mod duplicates;
mod schema;
mod formats;
mod data;
mod accepted;
mod errors;
mod v2;
