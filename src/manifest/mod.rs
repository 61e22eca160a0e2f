//! The manifest layer of the v1.x and v0.1 containers, by job:
//!
//! - [`schema`]: every field name and component role, spelled once;
//! - `fields`: decoders of single values, shared by the pass and the views;
//! - `pass`: the validating pass (CBOR, schema, rules), with the whole-file
//!   rules (unique object names, no partial blob overlap);
//! - `v1`, `v0`: the pass over each manifest generation;
//! - `rules`: the format rules metadata alone can check (also applied by
//!   the writer's checks in `write::check`);
//! - `view`: decoders of the views (`Object`, `Component`), which trust the
//!   pass and never call it;
//! - `skim`: object names and blob spans read straight from the validated
//!   CBOR (the whole-file checks without `alloc`, the name index).
//!
//! The CBOR rules themselves (well-formedness, duplicate keys) are the CBOR
//! layer's (`cbor`, `cbor::keys`). A container generation with another
//! manifest (v2) gets its own folder here, `manifest/v2/`, with its own
//! schema module, beside the v1.x one.

pub(crate) mod fields;
pub(crate) mod pass;
pub(crate) mod rules;
pub mod schema;
pub(crate) mod skim;
pub(crate) mod v0;
pub(crate) mod v1;
pub(crate) mod view;

use crate::cbor::Len;
use crate::types::Version;
use crate::value::Map;

/// What every decoder needs to know about the file.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ctx<'a> {
    /// The manifest bytes.
    pub buf: &'a [u8],
    /// The whole file, when available.
    pub data: Option<&'a [u8]>,
    pub version: Version,
}

/// Whether this build reads v0.1 (`ZTEN0001`) files: yes with the `v0`
/// feature (in `default`, implied by `std`); without it their code is left
/// out and they are refused as unsupported.
pub(crate) const LEGACY_V0: bool = cfg!(feature = "v0");

impl Ctx<'_> {
    /// A v0.1 file (only in builds with `legacy-v0`).
    pub(crate) fn v0(&self) -> bool {
        LEGACY_V0 && self.version.major == 0
    }

    /// v1.0/v1.1 files name FP8 and complex types in `dtype`.
    pub(crate) fn legacy_dtypes(&self) -> bool {
        self.version.major == 1 && self.version.minor < 2
    }

    /// v1.2 rules: u64 sparse indices, `uncompressed_length` for zstd.
    pub(crate) fn strict(&self) -> bool {
        self.version.at_least_1(2)
    }
}

/// Result of the validating pass: everything a `File` keeps.
pub(crate) struct Root<'a> {
    pub ctx: Ctx<'a>,
    pub attributes: Map<'a>,
    /// Every field of the root map (empty for v0.1, whose root is an array).
    pub fields: Map<'a>,
    /// First entry of the objects container, and its length.
    pub objects: (usize, Len),
    pub count: usize,
    /// Object names are in strictly ascending byte order (no duplicates possible).
    pub names_ordered: bool,
    /// Name lookup, built at the end of the pass.
    #[cfg(feature = "alloc")]
    pub index: crate::index::Index,
}

impl<'a> Root<'a> {
    pub(crate) fn new(
        ctx: Ctx<'a>,
        attributes: Map<'a>,
        fields: Map<'a>,
        objects: (usize, Len),
        count: usize,
        names_ordered: bool,
    ) -> Self {
        Root {
            ctx,
            attributes,
            fields,
            objects,
            count,
            names_ordered,
            #[cfg(feature = "alloc")]
            index: crate::index::Index::empty(),
        }
    }
}
