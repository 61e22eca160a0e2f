//! Writer options: canonical form or a chosen placement and digest, and sharding.

use super::{Error, Kind, Result};

/// Canonical placement (§6.3 rule 2).
pub const CANONICAL_ALIGN: u64 = 65536;

/// The largest alignment a writer takes: 1 GiB. The padding before each
/// blob and before the manifest is up to `align - 1` bytes, so an
/// unbounded alignment (2^63) would make `finish` pad without end.
pub const MAX_ALIGN: u64 = 1 << 30;

/// Whether `align` is an alignment the writer takes: a power of two from
/// the format's 4096 (§2.4) to [`MAX_ALIGN`].
pub const fn is_valid_align(align: u64) -> bool {
    align.is_power_of_two() && align >= crate::v2::container::BLOB_ALIGN && align <= MAX_ALIGN
}

/// Which digest each part carries (over its decoded bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DigestAlg {
    /// `xxh3:` + 16 hex digits (XXH3-64): canonical form's.
    #[default]
    Xxh3,
    /// `sha256:` + 64 hex digits.
    Sha256,
    /// No `digest` field.
    None,
}

impl DigestAlg {
    /// A digest of this algorithm (the value is the placeholder's: zero).
    fn zero(self) -> Option<crate::digest::Digest<'static>> {
        use crate::digest::Digest;
        match self {
            DigestAlg::Xxh3 => Some(Digest::Xxh3(0)),
            DigestAlg::Sha256 => Some(Digest::Sha256([0; 32])),
            DigestAlg::None => None,
        }
    }

    /// The hasher of this digest, if one is recorded.
    pub(crate) fn hasher(self) -> Option<crate::digest::Hasher> {
        self.zero().and_then(|z| crate::digest::Hasher::like(&z))
    }

    /// A digest text of the right form for a provisional entry.
    pub(crate) fn placeholder(self) -> Option<alloc::string::String> {
        self.zero().map(|z| z.text())
    }
}

/// How the writer lays out a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub(super) canonical: bool,
    pub(super) align: u64,
    pub(super) digest: DigestAlg,
    pub(super) shard_size: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Options::canonical()
    }
}

impl Options {
    /// Canonical form (§6.3).
    pub const fn canonical() -> Self {
        Options { canonical: true, align: CANONICAL_ALIGN, digest: DigestAlg::Xxh3, shard_size: None }
    }

    /// Non-canonical: blobs at multiples of `align` (a power of two from
    /// 4096 to 1 GiB, [`is_valid_align`]: others are refused when the writer
    /// is made), `xxh3` digests unless [`Self::digest`] says otherwise.
    pub const fn non_canonical(align: u64) -> Self {
        Options { canonical: false, align, digest: DigestAlg::Xxh3, shard_size: None }
    }

    /// The digest on every part (non-canonical only: canonical form needs `xxh3`).
    pub const fn digest(mut self, d: DigestAlg) -> Self {
        self.digest = d;
        self
    }

    /// Sharded output (non-canonical, files only: [`Writer::create_with`](super::Writer::create_with)):
    /// blobs go to data shards of at most `max_bytes` each (a larger blob
    /// gets a shard of its own) beside a root that holds the manifest.
    /// Rewriting a sharded model in place is atomic for a reader at the
    /// root's path (old model or new, never a mix): the new shards take
    /// names no file there has (`NNNNN-of-NNNNN`, or with a `.1`, `.2`
    /// suffix), the root is renamed last, the old shards are removed after;
    /// what a killed writer left is removed by the next writer to the same
    /// path (see `write::v2`'s shard module docs).
    pub const fn shards(mut self, max_bytes: u64) -> Self {
        self.shard_size = Some(max_bytes);
        self
    }

    /// The digest every part gets.
    pub const fn digest_alg(&self) -> DigestAlg {
        self.digest
    }

    /// Whether this is canonical form.
    pub const fn is_canonical(&self) -> bool {
        self.canonical
    }

    pub(super) fn check(&self) -> Result<()> {
        if !is_valid_align(self.align) {
            return Err(Error::new(Kind::Option("alignment must be a power of two from 4096 to 1 GiB")));
        }
        if self.canonical && self.shard_size.is_some() {
            return Err(Error::new(Kind::Option("canonical form is single-file: no shards")));
        }
        if self.canonical && (self.align != CANONICAL_ALIGN || self.digest != DigestAlg::Xxh3) {
            return Err(Error::new(Kind::Option("canonical form places blobs at 65536 with xxh3 digests")));
        }
        Ok(())
    }
}
