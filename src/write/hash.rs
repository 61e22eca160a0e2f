//! The digest a writer records for each part, computed as its bytes stream
//! out (v1.2: over the stored bytes; v2 §3.4: over the decoded ones), by the
//! one streaming [`Hasher`] of `crate::digest`.

use crate::digest::{Digest, Hasher};
use alloc::string::String;

/// Which digest to record for a component (spec: `digest`), computed over
/// the **stored** bytes (the compressed frame for zstd).
///
/// Written like the reference implementation: `sha256:` + 64 lowercase hex
/// digits, `crc32c:0x` + 8 uppercase, zero-padded hex digits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Checksum {
    /// No `digest` field.
    None,
    /// CRC-32C (Castagnoli): fast, catches accidental corruption. The
    /// default, so that reads can check what they read (verify on read).
    #[default]
    Crc32c,
    /// SHA-256: cryptographic.
    Sha256,
}

impl Checksum {
    /// The hasher of this digest, if one is recorded.
    pub(crate) fn hasher(self) -> Option<Hasher> {
        match self {
            Checksum::None => None,
            Checksum::Crc32c => Hasher::like(&Digest::Crc32c(0)),
            Checksum::Sha256 => Hasher::like(&Digest::Sha256([0; 32])),
        }
    }
}

/// The digest of one part being written, when it records one.
pub(crate) struct PartDigest(Option<Hasher>);

impl PartDigest {
    pub fn new(h: Option<Hasher>) -> Self {
        PartDigest(h)
    }

    pub fn update(&mut self, bytes: &[u8]) {
        if let Some(h) = &mut self.0 {
            h.update(bytes);
        }
    }

    /// The XXH3-64 of the bytes so far, when that is the digest (the v2
    /// writer's key for sharing identical blobs).
    pub fn xxh3(&self) -> Option<u64> {
        match self.0.as_ref().map(Hasher::sum) {
            Some(Digest::Xxh3(v)) => Some(v),
            _ => None,
        }
    }

    /// The manifest's `digest` text, if any.
    pub fn finish(&self) -> Option<String> {
        self.0.as_ref().map(|h| h.sum().text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::{crc32c, Digest};

    fn digest_of(c: Checksum, pieces: &[&[u8]]) -> Option<String> {
        let mut h = PartDigest::new(c.hasher());
        for p in pieces {
            h.update(p);
        }
        h.finish()
    }

    #[test]
    fn crc32c_streams_like_the_one_shot() {
        let data: alloc::vec::Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        for cut in [0, 1, 7, 8, 9, 500, 999, 1000] {
            let (a, b) = data.split_at(cut);
            let s = digest_of(Checksum::Crc32c, &[a, b]).unwrap();
            assert_eq!(s, alloc::format!("crc32c:0x{:08X}", crc32c(&data)));
        }
    }

    #[test]
    fn formats_like_the_reference() {
        assert_eq!(digest_of(Checksum::Crc32c, &[]).unwrap(), "crc32c:0x00000000");
        // From v1.2/checksums.zt: one byte 67.
        assert_eq!(digest_of(Checksum::Crc32c, &[&[67]]).unwrap(), "crc32c:0x0056BD19");
        assert_eq!(
            digest_of(Checksum::Sha256, &[b"1234", b"56789"]).unwrap(),
            "sha256:15e2b0d3c33891ebb0f1ef609ec419420c20e320ce94c65fbc8c3312448eb225"
        );
        assert_eq!(digest_of(Checksum::None, &[b"x"]), None);
        for c in [Checksum::Crc32c, Checksum::Sha256] {
            let s = digest_of(c, &[b"abc"]).unwrap();
            assert_eq!(Digest::parse(&s).unwrap().matches(b"abc"), Some(true));
        }
    }
}
