//! The reader of zTensor format v2 (container format version 2, Draft 4; see
//! docs/format.md); the crate's [`crate::File`] reads v2 files through it
//! (`wire`, `errors`).
//!
//! Most programs need none of this module: [`crate::File`] reads every
//! generation, [`crate::Object::profile`] gives a v2 object's layout and
//! its parameters ([`Profile`], also at the crate root), and
//! [`crate::Component::read_range_into`] reads byte ranges. This module is
//! the v2-specific layer beneath: the manifest as v2 describes it
//! ([`Manifest`], [`Object`], [`Part`]: encodings, digests over decoded
//! bytes, shards; [`crate::File::v2`] hands it out), v2's storage types
//! ([`types`], which the v2 writer takes), the seek table of
//! `zt.zstd-seekable/1` parts ([`seekable`]) and the data rules.
//!
//! ```
//! use ztensor::write::{NewObject, NewPart, Writer};
//!
//! let mut w = Writer::new(Vec::new());
//! w.add(NewObject::new("q", &[3], "dense").part(NewPart::from_slice("data", &[1u8, 0, 1]).logical("bool"))).unwrap();
//! let bytes = w.finish().unwrap();
//! let file = ztensor::File::parse(&bytes).unwrap();
//! let m = file.v2().expect("a v2 file");
//! let part = m.objects().next().unwrap().part("data").unwrap();
//! assert_eq!((part.dtype, part.type_name, part.decoded_size()), (ztensor::v2::types::DType::U8, Some("bool"), 3));
//! assert!(matches!(part.digest, Some(ztensor::v2::Digest::Xxh3(_)))); // canonical v2: xxh3 of the decoded bytes
//! ```
//!
//! [`Manifest::parse_with`] runs every at-open rule in one pass over a
//! borrowed file (or its tail): the container (§2), deterministic CBOR
//! (§3.1), the schema (§3.2-§3.5), blob placement and the identical-or-
//! disjoint rule (§2.4), registered logical types (Appendix A) and every
//! registered layout profile's metadata rules (§5). It allocates nothing:
//! the overlap check sorts spans in the caller's scratch. [`data`] holds the
//! data rules checked on decoded bytes, [`verify`] checks decoded parts,
//! [`seekable`] reads `zt.zstd-seekable/1`, and [`Manifest::content_digest_sha256`]
//! computes §6.4's content digest from the manifest alone.

pub mod cbor;
pub mod container;
mod attributes;
mod content;
pub mod data;
mod error;
#[cfg(feature = "v2")]
pub(crate) mod explain;
pub(crate) mod errors;
mod file_verify;
pub mod layout;
mod manifest;
mod part;
#[cfg(feature = "alloc")]
pub mod range;
pub mod seekable;
pub mod shard;
pub mod types;
pub mod verify;
pub(crate) mod view;
pub(crate) mod wire;

pub use error::{Error, Kind, Result};
pub use layout::Profile;
#[cfg_attr(not(feature = "v2"), allow(unused_imports))]
pub use manifest::{slots_for, AttrValue, Attributes, Manifest, Object, Objects, Shard, Shards, MAX_RANK};
pub use part::{Digest, Part};

// (Without the `v2` feature no v2 manifest validates: nothing to test.)
#[cfg(all(test, feature = "v2"))]
mod tests;
