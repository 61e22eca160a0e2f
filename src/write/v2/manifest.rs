//! Encoding the manifest (deterministic CBOR, §3) and the footer (§2.3),
//! and the reader's verdict on a manifest before it is written.

use super::cbor;
#[cfg(feature = "std")]
use super::shard;
use super::{align_up, end_of, Encoding, Error, Kind, NewPart, Plan, Result};
use crate::v2::container::{FOOTER_LEN, MAGIC, VERSION};
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

/// The footer for a manifest of `m` at `offset`.
pub(super) fn footer(offset: u64, m: &[u8]) -> [u8; FOOTER_LEN as usize] {
    let mut f = [0u8; FOOTER_LEN as usize];
    f[0..8].copy_from_slice(&offset.to_le_bytes());
    f[8..16].copy_from_slice(&(m.len() as u64).to_le_bytes());
    f[16..24].copy_from_slice(&xxhash_rust::xxh3::xxh3_64(m).to_le_bytes());
    f[24..28].copy_from_slice(&VERSION.to_le_bytes());
    f[32..40].copy_from_slice(&MAGIC);
    f
}

/// The root map: `objects` and, when set, `attributes`.
pub(super) fn root(objects: &[(Vec<u8>, Vec<u8>)], attrs: &BTreeMap<Vec<u8>, Vec<u8>>) -> Result<Vec<u8>> {
    root_shards(objects, attrs, &[])
}

/// A shard table entry: name, size, sha256 of the whole shard.
pub(crate) type ShardEntry = (String, u64, [u8; 32]);

/// The shard table entry of a shard.
pub(super) fn shard_entry(size: u64, digest: &str) -> Result<Vec<u8>> {
    let mut sz = Vec::new();
    cbor::uint(&mut sz, size);
    let mut v = Vec::new();
    cbor::map(&mut v, alloc::vec![(cbor::key("size"), sz), (cbor::key("digest"), cbor::key(digest))])?;
    Ok(v)
}

/// A root for checking one object: data shards of the given sizes, with
/// provisional names and digests.
pub(super) fn root_with(
    objects: &[(Vec<u8>, Vec<u8>)],
    attrs: &BTreeMap<Vec<u8>, Vec<u8>>,
    sizes: &BTreeMap<u32, u64>,
    suffix: &str,
) -> Result<Vec<u8>> {
    #[cfg(feature = "std")]
    let table: Vec<ShardEntry> = sizes.iter().map(|(&k, &s)| (shard::provisional_name(k, suffix), s, [0; 32])).collect();
    #[cfg(not(feature = "std"))]
    let table: Vec<ShardEntry> = {
        let _ = (sizes, suffix);
        Vec::new()
    };
    root_shards(objects, attrs, &table)
}

/// The root map with a shard table (name, size, sha256) when not empty.
pub(super) fn root_shards(objects: &[(Vec<u8>, Vec<u8>)], attrs: &BTreeMap<Vec<u8>, Vec<u8>>, table: &[ShardEntry]) -> Result<Vec<u8>> {
    let mut objs = Vec::new();
    cbor::map(&mut objs, objects.iter().map(|(k, v)| (&k[..], &v[..])).collect())?;
    let mut entries = alloc::vec![(cbor::key("objects"), objs)];
    if !table.is_empty() {
        let mut t = Vec::new();
        for (name, size, sha) in table {
            t.push((cbor::key(name), shard_entry(*size, &alloc::format!("sha256:{}", hex::encode(sha)))?));
        }
        let mut sm = Vec::new();
        cbor::map(&mut sm, t)?;
        entries.push((cbor::key("shards"), sm));
    }
    if !attrs.is_empty() {
        let mut a = Vec::new();
        cbor::map(&mut a, attrs.iter().map(|(k, v)| (&k[..], &v[..])).collect())?;
        entries.push((cbor::key("attributes"), a));
    }
    let mut out = Vec::new();
    cbor::map(&mut out, entries)?;
    Ok(out)
}

/// An object's map.
pub(super) fn object_entry(
    shape: &[u64],
    layout: &str,
    attrs: &[(Vec<u8>, Vec<u8>)],
    parts: &[NewPart<'_>],
    plans: &[Plan],
    digests: &[Option<String>],
    suffix: &str,
) -> Result<(Vec<u8>, Vec<usize>)> {
    let mut pm = Vec::with_capacity(parts.len());
    for ((p, plan), d) in parts.iter().zip(plans).zip(digests) {
        let mut f: Vec<(Vec<u8>, Vec<u8>)> = Vec::with_capacity(6);
        let mut blob = Vec::new();
        cbor::array(&mut blob, 2);
        cbor::uint(&mut blob, plan.offset);
        cbor::uint(&mut blob, plan.length);
        f.push((cbor::key("blob"), blob));
        f.push((cbor::key("dtype"), cbor::key(p.dtype.name())));
        #[cfg(feature = "std")]
        if plan.shard != 0 {
            f.push((cbor::key("shard"), cbor::key(&shard::provisional_name(plan.shard, suffix))));
        }
        if let Some(t) = &p.logical {
            f.push((cbor::key("type"), cbor::key(t)));
        }
        if let Some(d) = d {
            f.push((cbor::key("digest"), cbor::key(d)));
        }
        if let Encoding::ZstdSeekable { .. } = p.encoding {
            f.push((cbor::key("encoding"), cbor::key(crate::v2::seekable::ID)));
            let mut n = Vec::new();
            cbor::uint(&mut n, p.data.len());
            f.push((cbor::key("decoded_length"), n));
        }
        let mut v = Vec::new();
        cbor::map(&mut v, f)?;
        pm.push((cbor::key(&p.name), v));
    }
    let mut parts_map = Vec::new();
    cbor::map(&mut parts_map, pm).map_err(|e| Error::new(Kind::DuplicateKey).in_part(e.part.as_deref().unwrap_or("")))?;
    let mut sh = Vec::new();
    cbor::array(&mut sh, shape.len() as u64);
    for &d in shape {
        cbor::uint(&mut sh, d);
    }
    let parts_len = parts_map.len();
    let mut o = alloc::vec![(cbor::key("parts"), parts_map), (cbor::key("shape"), sh), (cbor::key("layout"), cbor::key(layout))];
    if !attrs.is_empty() {
        let mut a = Vec::new();
        cbor::map(&mut a, attrs.iter().map(|(k, v)| (&k[..], &v[..])).collect())?;
        o.push((cbor::key("attributes"), a));
    }
    let mut out = Vec::new();
    cbor::map(&mut out, o)?;
    // Where each provisional shard name's text starts (after its 1-byte head).
    #[allow(unused_mut)] // Filled only with std (sharded output).
    let mut patches = Vec::new();
    #[cfg(not(feature = "std"))]
    let _ = (parts_len, suffix);
    #[cfg(feature = "std")]
    if plans.iter().any(|p| p.shard != 0) {
        // The name's text head: one byte (major type 3, its length below 24).
        let head = 0x60 + shard::provisional_name(0, suffix).len() as u8;
        let marker = [&cbor::key("shard")[..], &[head][..]].concat();
        // Only in the parts map, first in the object's map (after its head and key).
        let end = 1 + cbor::key("parts").len() + parts_len;
        let mut i = 0;
        while let Some(j) = out[i..end].windows(marker.len()).position(|w| w == marker) {
            patches.push(i + j + marker.len());
            i += j + marker.len();
        }
    }
    Ok((out, patches))
}

/// The reader's verdict on manifest `m` placed after `end` bytes of blobs.
pub(super) fn check_manifest_after(m: &[u8], align: u64, end: u64) -> Result<()> {
    let at = align_up(end, align)?;
    let file_len = end_of(end_of(at, m.len() as u64)?, FOOTER_LEN)?;
    let f = footer(at, m);
    crate::v2::Manifest::parse_tail(&f, m, file_len).map(drop).map_err(|e| Error::new(Kind::Rule(e)))
}

/// [`check_manifest_after`] for a manifest with no blobs before it.
pub(super) fn check_manifest(m: &[u8], align: u64) -> Result<()> {
    check_manifest_after(m, align, MAGIC.len() as u64)
}
