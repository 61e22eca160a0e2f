//! Digests computed while blobs stream out: `sha256:<hex>` and `crc32c:0x<HEX>`.

use alloc::string::String;
use core::fmt::Write as _;
use sha2::{Digest as _, Sha256};

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

/// An incremental hasher for one component.
pub(crate) enum Hasher {
    None,
    Crc32c(crate::digest::Crc32c),
    Sha256(Sha256),
}

impl Hasher {
    pub fn new(c: Checksum) -> Self {
        match c {
            Checksum::None => Hasher::None,
            Checksum::Crc32c => Hasher::Crc32c(crate::digest::Crc32c::new()),
            Checksum::Sha256 => Hasher::Sha256(Sha256::new()),
        }
    }

    pub fn update(&mut self, bytes: &[u8]) {
        match self {
            Hasher::None => {}
            Hasher::Crc32c(c) => c.update(bytes),
            Hasher::Sha256(h) => h.update(bytes),
        }
    }

    /// The manifest's `digest` string, if any.
    pub fn finish(self) -> Option<String> {
        let mut s = String::new();
        match self {
            Hasher::None => return None,
            Hasher::Crc32c(c) => {
                let _ = write!(s, "crc32c:0x{:08X}", c.finish());
            }
            Hasher::Sha256(h) => {
                s.push_str("sha256:");
                s.push_str(&hex::encode(h.finalize()));
            }
        }
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::{crc32c, Digest};

    fn digest_of(c: Checksum, pieces: &[&[u8]]) -> Option<String> {
        let mut h = Hasher::new(c);
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
