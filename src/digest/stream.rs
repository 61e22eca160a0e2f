//! One digest computed as bytes stream in, for every algorithm the formats
//! register: v1.2's `sha256` and `crc32c` (over stored bytes) and v2's
//! `xxh3` and `sha256` (§3.4, over decoded bytes). The writers' digests and
//! the readers' checks of bytes handed in pieces (a v2 part, a shard).

use super::Crc32c;
use sha2::{Digest as _, Sha256};
use xxhash_rust::xxh3::Xxh3Default;

/// A finished digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sum {
    Crc32c(u32),
    Sha256([u8; 32]),
    /// XXH3-64, default secret, seed 0.
    Xxh3(u64),
}

impl Sum {
    /// The algorithm's name, as a digest text starts.
    pub fn algorithm(&self) -> &'static str {
        match self {
            Sum::Crc32c(_) => "crc32c",
            Sum::Sha256(_) => "sha256",
            Sum::Xxh3(_) => "xxh3",
        }
    }

    /// The digest text as the manifests spell it, as the reference
    /// implementations write it: `crc32c:0x` and 8 uppercase hex digits,
    /// `sha256:` and 64 lowercase, `xxh3:` and 16 lowercase.
    #[cfg(feature = "alloc")]
    pub fn text(&self) -> alloc::string::String {
        match self {
            Sum::Crc32c(c) => alloc::format!("crc32c:0x{c:08X}"),
            Sum::Sha256(d) => alloc::format!("sha256:{}", hex::encode(d)),
            Sum::Xxh3(h) => alloc::format!("xxh3:{h:016x}"),
        }
    }
}

/// A digest computed as bytes stream in.
#[allow(clippy::large_enum_variant)] // one per part or shard in flight
pub(crate) enum Hasher {
    Crc32c(Crc32c),
    Sha256(Sha256),
    Xxh3(Xxh3Default),
}

impl Hasher {
    /// A hasher of the algorithm of `want`, over no bytes yet.
    pub fn like(want: &Sum) -> Hasher {
        match want {
            Sum::Crc32c(_) => Hasher::Crc32c(Crc32c::new()),
            Sum::Sha256(_) => Hasher::Sha256(Sha256::new()),
            Sum::Xxh3(_) => Hasher::Xxh3(Xxh3Default::new()),
        }
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
    pub fn sum(&self) -> Sum {
        match self {
            Hasher::Crc32c(h) => Sum::Crc32c(h.finish()),
            Hasher::Sha256(h) => Sum::Sha256(h.clone().finalize().into()),
            Hasher::Xxh3(h) => Sum::Xxh3(h.digest()),
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
        let data: alloc::vec::Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        for cut in [0, 1, 7, 64, 500, 999, 1000] {
            let (a, b) = data.split_at(cut);
            let sums = [Sum::Crc32c(0), Sum::Sha256([0; 32]), Sum::Xxh3(0)].map(|alg| {
                let mut h = Hasher::like(&alg);
                h.update(a);
                h.update(b);
                h.sum()
            });
            let want = [Sum::Crc32c(super::super::crc32c(&data)), Sum::Sha256(super::super::sha256(&data)), Sum::Xxh3(xxhash_rust::xxh3::xxh3_64(&data))];
            assert_eq!(sums, want, "cut at {cut}");
        }
    }

    #[test]
    fn texts_are_the_reference_spellings() {
        assert_eq!(Sum::Crc32c(0x56bd19).text(), "crc32c:0x0056BD19");
        assert_eq!(Sum::Xxh3(0xab).text(), "xxh3:00000000000000ab");
        let sha = "sha256:15e2b0d3c33891ebb0f1ef609ec419420c20e320ce94c65fbc8c3312448eb225";
        let mut h = Hasher::like(&Sum::Sha256([0; 32]));
        h.update(b"123456789");
        assert_eq!(h.sum().text(), sha);
        for s in ["crc32c:0x0056BD19", sha] {
            assert!(crate::digest::Digest::parse(s).is_ok(), "{s}");
        }
    }
}
