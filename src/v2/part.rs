//! Parts (§3.4), digests, and names (§3.5).

use super::error::{Error, Kind, Result};
use super::types::{DType, ElemType, LogicalType};

/// A part's `digest`, over its decoded bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Digest<'a> {
    /// `xxh3:` and 16 hex digits (XXH3-64).
    Xxh3(u64),
    /// `sha256:` and 64 hex digits.
    Sha256([u8; 32]),
    /// Another algorithm: `(algorithm, lowercase hex)`, not verifiable here.
    Other(&'a str, &'a str),
}

/// Lowercase hex digit values; 0xff for every other byte.
const HEX: [u8; 256] = {
    let mut t = [0xffu8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

fn hex_val(c: u8) -> Option<u8> {
    match HEX[c as usize] {
        0xff => None,
        v => Some(v),
    }
}

impl<'a> Digest<'a> {
    /// Parse `<algorithm>:<lowercase hex>`. Registered algorithms need their
    /// exact length; others need a non-empty `[a-z0-9_-]` name and even-length hex.
    // (With `alloc`, inline in its few callers: the v2 pass reads one
    // per part, and builds it in place.)
    #[cfg_attr(feature = "alloc", inline(always))]
    pub fn parse(s: &'a str, offset: usize) -> Result<Digest<'a>> {
        let bad = Error::field(Kind::BadDigest, offset, "digest");
        // Fast path: the xxh3 digest every canonical part carries.
        if let Some(h) = s.as_bytes().strip_prefix(b"xxh3:").filter(|h| h.len() == 16) {
            let (mut v, mut any_bad) = (0u64, 0u8);
            for &c in h {
                let d = HEX[c as usize];
                any_bad |= d; // 0xff has the high bit that no digit has
                v = v << 4 | (d & 0xf) as u64;
            }
            return if any_bad & 0x80 == 0 { Ok(Digest::Xxh3(v)) } else { Err(bad) };
        }
        let (alg, hex) = s.split_once(':').ok_or(bad)?;
        let h = hex.as_bytes();
        if h.is_empty() || h.len() % 2 != 0 || h.iter().any(|&c| hex_val(c).is_none()) {
            return Err(bad);
        }
        let byte = |i: usize| hex_val(h[2 * i]).unwrap_or(0) << 4 | hex_val(h[2 * i + 1]).unwrap_or(0);
        match alg {
            "xxh3" if h.len() == 16 => {
                let mut v = 0u64;
                for i in 0..8 {
                    v = v << 8 | byte(i) as u64;
                }
                Ok(Digest::Xxh3(v))
            }
            "sha256" if h.len() == 64 => {
                let mut d = [0u8; 32];
                for (i, x) in d.iter_mut().enumerate() {
                    *x = byte(i);
                }
                Ok(Digest::Sha256(d))
            }
            "xxh3" | "sha256" => Err(bad),
            _ if !alg.is_empty() && alg.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_' || c == b'-') => {
                Ok(Digest::Other(alg, hex))
            }
            _ => Err(bad),
        }
    }

    /// The digest's value; `None` for an unregistered algorithm.
    pub(crate) fn sum(&self) -> Option<crate::digest::Sum> {
        use crate::digest::Sum;
        match *self {
            Digest::Xxh3(h) => Some(Sum::Xxh3(h)),
            Digest::Sha256(d) => Some(Sum::Sha256(d)),
            Digest::Other(..) => None,
        }
    }

    /// Whether this digest is of a registered algorithm.
    pub fn is_registered(&self) -> bool {
        !matches!(self, Digest::Other(..))
    }
}

/// A part of an object (§3.4), read from the manifest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part<'a> {
    /// The part's role name (`data`, `values`, `scales`, ...).
    pub name: &'a str,
    /// Storage type.
    pub dtype: DType,
    /// The `type` text, if any.
    pub type_name: Option<&'a str>,
    /// Offset of the blob in its file.
    pub offset: u64,
    /// Length of the blob (encoded bytes).
    pub length: u64,
    /// The shard holding the blob (`None`: the containing file).
    pub shard: Option<&'a str>,
    /// The encoding profile id (`None`: raw).
    pub encoding: Option<&'a str>,
    /// `decoded_length`, present iff `encoding` is.
    pub decoded_length: Option<u64>,
    /// The digest over decoded bytes, if any.
    pub digest: Option<Digest<'a>>,
    /// The `digest` text as written.
    pub digest_text: Option<&'a str>,
    /// Manifest position of the part's map.
    pub pos: usize,
}

impl<'a> Part<'a> {
    /// The part called `name` whose map is at `pos` of a validated
    /// manifest `buf`, and where the map ends: the pass's own decoding
    /// (`compact::pass_v2::read_part`).
    pub(crate) fn at(buf: &'a [u8], pos: usize, name: &'a str) -> (Part<'a>, usize) {
        #[cfg(feature = "v2")]
        {
            let mut c = crate::compact::cur::Cur::det(buf, pos);
            let (part, _) = crate::compact::pass_v2::read_part(&mut c, name);
            (part, c.pos)
        }
        // (Without the v2 reader no v2 manifest validates, so no view asks.)
        #[cfg(not(feature = "v2"))]
        {
            let part = Part { name, dtype: DType::U8, type_name: None, offset: 0, length: 0, shard: None, encoding: None, decoded_length: None, digest: None, digest_text: None, pos };
            (part, buf.len())
        }
    }


    /// The element type: plain, registered logical, or unknown.
    pub fn elem(&self) -> ElemType<'a> {
        ElemType::of(self.dtype, self.type_name)
    }

    /// The registered logical type, if `type` names one.
    pub fn logical(&self) -> Option<LogicalType<'static>> {
        self.type_name.and_then(LogicalType::v2)
    }

    /// Bytes the part denotes: `length` when raw, else `decoded_length`.
    pub fn decoded_size(&self) -> u64 {
        self.decoded_length.unwrap_or(self.length)
    }

    /// Whether the blob is stored raw (no `encoding`).
    pub fn is_raw(&self) -> bool {
        self.encoding.is_none()
    }

    /// The blob's bytes in `file` (the file holding it: this one, or its shard).
    pub fn blob<'f>(&self, file: &'f [u8]) -> Option<&'f [u8]> {
        let end = self.offset.checked_add(self.length)?;
        file.get(usize::try_from(self.offset).ok()?..usize::try_from(end).ok()?)
    }
}
