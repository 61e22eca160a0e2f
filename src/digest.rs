//! Digests of stored bytes: `sha256:<hex>` and `crc32c:0x<hex>`.

use crate::error::{Error, ErrorKind, Result};
use crate::object::Component;
use sha2::{Digest as _, Sha256};

/// A parsed digest string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Digest<'a> {
    /// SHA-256 of the stored bytes.
    Sha256([u8; 32]),
    /// CRC-32C (Castagnoli) of the stored bytes.
    Crc32c(u32),
    /// An algorithm this library does not know: cannot be verified.
    Unknown {
        /// The algorithm's name.
        algorithm: &'a str,
    },
}

/// Outcome of checking a component's digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verified {
    /// The digest matches.
    Ok,
    /// The component has no digest.
    NoDigest,
    /// The algorithm is unknown, so nothing could be checked.
    Unverifiable,
}

fn hex_nibble(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

impl<'a> Digest<'a> {
    /// Parse `algorithm:value`. Hex is case-insensitive; `crc32c` takes a `0x` prefix.
    pub fn parse(s: &'a str) -> Result<Self> {
        let bad = || Error::new(ErrorKind::BadDigest);
        let (alg, value) = s.split_once(':').ok_or_else(bad)?;
        match alg {
            "sha256" => {
                let b = value.as_bytes();
                if b.len() != 64 {
                    return Err(bad());
                }
                let mut out = [0u8; 32];
                for (o, pair) in out.iter_mut().zip(b.chunks_exact(2)) {
                    *o = hex_nibble(pair[0]).ok_or_else(bad)? << 4 | hex_nibble(pair[1]).ok_or_else(bad)?;
                }
                Ok(Digest::Sha256(out))
            }
            "crc32c" => {
                let hex = value.strip_prefix("0x").or_else(|| value.strip_prefix("0X")).ok_or_else(bad)?;
                if hex.is_empty() || hex.len() > 8 {
                    return Err(bad());
                }
                let mut v = 0u32;
                for c in hex.bytes() {
                    v = v << 4 | hex_nibble(c).ok_or_else(bad)? as u32;
                }
                Ok(Digest::Crc32c(v))
            }
            "" => Err(bad()),
            other => Ok(Digest::Unknown { algorithm: other }),
        }
    }

    /// Whether `bytes` match this digest; `None` for an unknown algorithm.
    pub fn matches(&self, bytes: &[u8]) -> Option<bool> {
        match self {
            Digest::Sha256(want) => Some(Sha256::digest(bytes).as_slice() == want),
            Digest::Crc32c(want) => Some(crc32c(bytes) == *want),
            Digest::Unknown { .. } => None,
        }
    }
}

/// CRC-32C (Castagnoli, reflected, as in iSCSI / the zTensor reference) of `bytes`.
pub fn crc32c(bytes: &[u8]) -> u32 {
    let mut c = Crc32c::new();
    c.update(bytes);
    c.finish()
}

/// Incremental CRC-32C, slicing-by-8.
#[derive(Clone, Copy, Debug)]
pub struct Crc32c(u32);

impl Default for Crc32c {
    fn default() -> Self {
        Self::new()
    }
}

impl Crc32c {
    /// A CRC over no bytes yet.
    pub const fn new() -> Self {
        Crc32c(!0)
    }

    /// Feed more bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        let mut crc = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let lo = crc ^ u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            let hi = u32::from_le_bytes([c[4], c[5], c[6], c[7]]);
            crc = T[7][(lo & 0xff) as usize]
                ^ T[6][((lo >> 8) & 0xff) as usize]
                ^ T[5][((lo >> 16) & 0xff) as usize]
                ^ T[4][(lo >> 24) as usize]
                ^ T[3][(hi & 0xff) as usize]
                ^ T[2][((hi >> 8) & 0xff) as usize]
                ^ T[1][((hi >> 16) & 0xff) as usize]
                ^ T[0][(hi >> 24) as usize];
        }
        for &b in chunks.remainder() {
            crc = (crc >> 8) ^ T[0][((crc ^ b as u32) & 0xff) as usize];
        }
        self.0 = crc;
    }

    /// The CRC of everything fed so far.
    pub const fn finish(&self) -> u32 {
        !self.0
    }
}

const fn tables() -> [[u32; 256]; 8] {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { (c >> 1) ^ 0x82f6_3b78 } else { c >> 1 };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut i = 0;
    while i < 256 {
        let mut s = 1;
        while s < 8 {
            t[s][i] = (t[s - 1][i] >> 8) ^ t[0][(t[s - 1][i] & 0xff) as usize];
            s += 1;
        }
        i += 1;
    }
    t
}

static T: [[u32; 256]; 8] = tables();

impl<'a> Component<'a> {
    /// Check the digest over the stored bytes.
    ///
    /// `Ok(Verified::Ok)` on a match, `NoDigest` / `Unverifiable` when there
    /// is nothing to check; a malformed digest or a mismatch is an error.
    pub fn verify_digest(&self) -> Result<Verified> {
        let Some(d) = self.digest else { return Ok(Verified::NoDigest) };
        let d = Digest::parse(d).map_err(|e| e.in_component(self.role))?;
        match d.matches(self.stored_bytes()?) {
            None => Ok(Verified::Unverifiable),
            Some(true) => Ok(Verified::Ok),
            Some(false) => Err(self.error(ErrorKind::DigestMismatch)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_known_values() {
        assert_eq!(crc32c(b""), 0);
        assert_eq!(crc32c(b"123456789"), 0xe306_9283);
        assert_eq!(crc32c(&[0u8; 32]), 0x8a91_36aa);
    }

    #[test]
    fn parses_digests() {
        assert_eq!(Digest::parse("crc32c:0xE3069283").unwrap(), Digest::Crc32c(0xe306_9283));
        assert_eq!(Digest::parse("crc32c:0xe3069283").unwrap().matches(b"123456789"), Some(true));
        let sha = "sha256:15E2B0D3C33891EBB0F1EF609EC419420C20E320CE94C65FBC8C3312448EB225";
        assert_eq!(Digest::parse(sha).unwrap().matches(b"123456789"), Some(true));
        assert_eq!(Digest::parse("md5:abc").unwrap(), Digest::Unknown { algorithm: "md5" });
        for bad in ["sha256", "sha256:12", "crc32c:1234", "crc32c:0x", "crc32c:0xZZ", "crc32c:0x123456789", ":ab"] {
            assert_eq!(Digest::parse(bad).unwrap_err().kind(), ErrorKind::BadDigest, "{bad}");
        }
    }
}
