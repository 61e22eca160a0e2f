//! One digest computed as bytes stream in, for every algorithm the formats
//! register: v1.2's `sha256` and `crc32c` (over stored bytes) and v2's
//! `xxh3` and `sha256` (§3.4, over decoded bytes). The writers' digests and
//! the readers' checks of bytes handed in pieces (a v2 part, a shard).

use super::{Crc32c, Digest};
use sha2::{Digest as _, Sha256};
use xxhash_rust::xxh3::Xxh3Default;

/// A digest computed as bytes stream in.
#[allow(clippy::large_enum_variant)] // one per part or shard in flight
pub(crate) enum Hasher {
    Crc32c(Crc32c),
    Sha256(Sha256),
    Xxh3(Xxh3Default),
}

impl Hasher {
    /// A hasher of the algorithm of `want`, over no bytes yet; `None` for
    /// an unknown algorithm.
    pub fn like(want: &Digest<'_>) -> Option<Hasher> {
        Some(match want {
            Digest::Crc32c(_) => Hasher::Crc32c(Crc32c::new()),
            Digest::Sha256(_) => Hasher::Sha256(Sha256::new()),
            Digest::Xxh3(_) => Hasher::Xxh3(Xxh3Default::new()),
            Digest::Unknown { .. } => return None,
        })
    }

    /// Feed the next bytes.
    pub fn update(&mut self, b: &[u8]) {
        match self {
            Hasher::Crc32c(h) => h.update(b),
            Hasher::Sha256(h) => h.update(b),
            Hasher::Xxh3(h) => h.update(b),
        }
    }

    /// The digest of everything fed so far (without finishing: XXH3's
    /// state reads out, as the writer needs for its sharing key).
    pub fn sum(&self) -> Digest<'static> {
        match self {
            Hasher::Crc32c(h) => Digest::Crc32c(h.finish()),
            Hasher::Sha256(h) => Digest::Sha256(h.clone().finalize().into()),
            Hasher::Xxh3(h) => Digest::Xxh3(h.digest()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fed in two pieces, cut anywhere: the one-shot digest, in the text
    /// each reader parses back.
    #[test]
    fn streams_like_the_one_shot_digests() {
        let data: [u8; 1000] = core::array::from_fn(|i| (i * 7 + i / 13) as u8);
        for cut in [0, 1, 7, 64, 500, 999, 1000] {
            let (a, b) = data.split_at(cut);
            for alg in [Digest::Crc32c(0), Digest::Sha256([0; 32]), Digest::Xxh3(0)] {
                let mut h = Hasher::like(&alg).unwrap();
                h.update(a);
                h.update(b);
                assert_eq!(h.sum().matches(&data), Some(true), "{alg:?} cut at {cut}");
            }
        }
        assert!(Hasher::like(&Digest::Unknown { algorithm: "md5" }).is_none());
    }

    #[cfg(feature = "alloc")]
    #[test]
    fn texts_are_the_reference_spellings_and_parse_back() {
        assert_eq!(Digest::Crc32c(0x56bd19).text(), "crc32c:0x0056BD19");
        assert_eq!(Digest::Xxh3(0xab).text(), "xxh3:00000000000000ab");
        let sha = "sha256:15e2b0d3c33891ebb0f1ef609ec419420c20e320ce94c65fbc8c3312448eb225";
        let mut h = Hasher::like(&Digest::Sha256([0; 32])).unwrap();
        h.update(b"123456789");
        assert_eq!(h.sum().text(), sha);
        assert_eq!(Digest::parse(sha).ok(), Some(h.sum()));
        assert_eq!(Digest::parse_v2(sha), Some(h.sum()));
        assert_eq!(Digest::parse("crc32c:0x0056BD19").ok(), Some(Digest::Crc32c(0x56bd19)));
        assert_eq!(Digest::parse_v2("xxh3:00000000000000ab"), Some(Digest::Xxh3(0xab)));
    }
}
