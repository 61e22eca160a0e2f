//! Part digests (§3.4: over decoded bytes), computed as bytes stream.

use super::DigestAlg;
use alloc::string::String;
use sha2::{Digest as _, Sha256};

/// The digest of a part's decoded bytes, computed as they stream.
pub(crate) enum Digester {
    Xxh3(alloc::boxed::Box<xxhash_rust::xxh3::Xxh3>),
    Sha256(Sha256),
    None,
}

impl Digester {
    pub(crate) fn new(d: DigestAlg) -> Self {
        match d {
            DigestAlg::Xxh3 => Digester::Xxh3(alloc::boxed::Box::default()),
            DigestAlg::Sha256 => Digester::Sha256(Sha256::new()),
            DigestAlg::None => Digester::None,
        }
    }

    pub(crate) fn update(&mut self, b: &[u8]) {
        match self {
            Digester::Xxh3(h) => h.update(b),
            Digester::Sha256(h) => h.update(b),
            Digester::None => {}
        }
    }

    pub(crate) fn finish(self) -> Option<String> {
        match self {
            Digester::Xxh3(h) => Some(alloc::format!("xxh3:{:016x}", h.digest())),
            Digester::Sha256(h) => Some(alloc::format!("sha256:{}", hex::encode(h.finalize()))),
            Digester::None => None,
        }
    }

    /// A digest of the right form for a provisional entry.
    pub(crate) fn placeholder(d: DigestAlg) -> Option<String> {
        match d {
            DigestAlg::Xxh3 => Some(alloc::format!("xxh3:{:016x}", 0)),
            DigestAlg::Sha256 => Some(alloc::format!("sha256:{:064x}", 0)),
            DigestAlg::None => None,
        }
    }
}
