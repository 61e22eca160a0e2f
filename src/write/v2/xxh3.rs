//! The writer's hashes of parts: a blob's sharing key, and the XXH3-64
//! digest computed as a part is written ([`crate::xxh3`]).

pub(super) use crate::xxh3::hash_then;

/// Bytes hashed for a blob's sharing key: blobs of the same length whose
/// first `PREFIX` bytes differ cannot be identical, so a part with no
/// earlier blob of its key is written, and digested, in one pass.
pub(super) const PREFIX: usize = 64 * 1024;

/// The sharing key of raw bytes: length and XXH3-64 of the first [`PREFIX`].
pub(super) fn blob_key(b: &[u8]) -> (u64, u64) {
    (b.len() as u64, xxhash_rust::xxh3::xxh3_64(&b[..b.len().min(PREFIX)]))
}

/// XXH3-64 of `b`, given its [`blob_key`] (the same hash when `b` is short).
pub(super) fn full_hash(b: &[u8], key: (u64, u64)) -> u64 {
    if b.len() <= PREFIX {
        key.1
    } else {
        crate::xxh3::xxh3_64(b)
    }
}
