//! The v2 container (§2): magic at both ends, the 40-byte footer, and where
//! the manifest lies.

use super::error::{Error, Kind, Result};

/// The magic at offset 0 and at the end of the footer.
pub const MAGIC: [u8; 8] = [0x89, b'Z', b'T', b'2', 0x0d, 0x0a, 0x1a, 0x0a];
/// Bytes of the footer.
pub const FOOTER_LEN: u64 = 40;
/// Smallest file: magic + footer.
pub const MIN_FILE_LEN: u64 = 48;
/// Blob offsets are multiples of this, and at least this.
pub const BLOB_ALIGN: u64 = 4096;
/// Largest manifest accepted.
pub const MAX_MANIFEST_LEN: u64 = 1 << 30;
/// The only footer version this reader knows.
pub const VERSION: u32 = 2;

/// The footer at EOF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footer {
    /// Absolute offset of the manifest blob (0 for a data shard).
    pub manifest_offset: u64,
    /// Length of the manifest (0 for a data shard).
    pub manifest_length: u64,
    /// XXH3-64 of the manifest.
    pub manifest_hash: u64,
    /// Footer version (2).
    pub version: u32,
    /// Ignored.
    pub reserved: u32,
    /// Length of the whole file.
    pub file_len: u64,
}

fn u64_at(b: &[u8], i: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(a)
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[i..i + 4]);
    u32::from_le_bytes(a)
}

/// Whether a file starts with the v2 magic.
pub fn has_magic(head: &[u8]) -> bool {
    head.get(..8) == Some(&MAGIC[..])
}

impl Footer {
    /// Read the footer from the last 40 bytes of a file of `file_len` bytes;
    /// checks magic, version, and the manifest's bounds and cap (§8 steps 1-4).
    pub fn parse(last40: &[u8], file_len: u64) -> Result<Footer> {
        if file_len < MIN_FILE_LEN || last40.len() < FOOTER_LEN as usize {
            return Err(Error::new(Kind::TooShort));
        }
        let b = &last40[last40.len() - FOOTER_LEN as usize..];
        if b[32..40] != MAGIC {
            return Err(Error::ctx(Kind::BadMagic, "footer"));
        }
        let f = Footer {
            manifest_offset: u64_at(b, 0),
            manifest_length: u64_at(b, 8),
            manifest_hash: u64_at(b, 16),
            version: u32_at(b, 24),
            reserved: u32_at(b, 28),
            file_len,
        };
        if f.version != VERSION {
            return Err(Error::new(Kind::UnsupportedVersion));
        }
        if f.manifest_length == 0 {
            if f.manifest_offset != 0 || f.manifest_hash != 0 {
                return Err(Error::new(Kind::BadDataShardFooter));
            }
            return Ok(f);
        }
        if f.manifest_length > MAX_MANIFEST_LEN {
            return Err(Error::new(Kind::ManifestTooLarge));
        }
        let end = f.manifest_offset.checked_add(f.manifest_length);
        if f.manifest_offset < BLOB_ALIGN
            || f.manifest_offset % BLOB_ALIGN != 0
            || end.map_or(true, |e| e > file_len - FOOTER_LEN)
        {
            return Err(Error::new(Kind::ManifestOutOfBounds));
        }
        Ok(f)
    }

    /// Whether this is a data shard (no manifest).
    pub fn is_data_shard(&self) -> bool {
        self.manifest_length == 0
    }

    /// The end of the data region: blobs end at or before it.
    pub fn data_end(&self) -> u64 {
        self.file_len - FOOTER_LEN
    }

    /// The manifest's byte range in the file.
    pub fn manifest_range(&self) -> core::ops::Range<u64> {
        self.manifest_offset..self.manifest_offset + self.manifest_length
    }

    /// Check the manifest bytes against the footer: length and XXH3-64.
    pub fn check_manifest(&self, manifest: &[u8]) -> Result<()> {
        if manifest.len() as u64 != self.manifest_length {
            return Err(Error::new(Kind::ManifestLengthMismatch));
        }
        if crate::xxh3::one_shot(manifest) != self.manifest_hash {
            return Err(Error::new(Kind::ManifestHashMismatch));
        }
        Ok(())
    }
}

/// The manifest bytes of a whole file whose container [`open`] accepts
/// (empty otherwise): for naming where an error of the manifest lies.
pub(crate) fn manifest_of(file: &[u8]) -> &[u8] {
    open(file).map_or(&[], |(_, m)| m)
}

/// The footer of a whole file given as a slice (head magic checked too),
/// and its manifest bytes (hash checked; empty for a data shard).
pub fn open(file: &[u8]) -> Result<(Footer, &[u8])> {
    let len = file.len() as u64;
    if len < MIN_FILE_LEN {
        return Err(Error::new(Kind::TooShort));
    }
    if !has_magic(file) {
        return Err(Error::ctx(Kind::BadMagic, "header"));
    }
    let f = Footer::parse(&file[file.len() - FOOTER_LEN as usize..], len)?;
    let r = f.manifest_range();
    let m = &file[r.start as usize..r.end as usize];
    if !f.is_data_shard() {
        f.check_manifest(m)?;
    }
    Ok((f, m))
}
