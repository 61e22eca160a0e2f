//! The content digest (§6.4): the manifest's objects reduced to shape,
//! layout, attributes and per-part dtype/type/digest, encoded in
//! deterministic CBOR straight into a hasher. Computable from the manifest
//! alone; defined only when every part carries a digest.

use super::manifest::{Manifest, Object};
use super::part::{Digest, Part};

/// The version tag of the content value.
pub const TAG: &str = "zt.content/1";

fn head(out: &mut impl FnMut(&[u8]), major: u8, n: u64) {
    let m = major << 5;
    let mut b = [0u8; 9];
    let len = match n {
        0..=23 => {
            b[0] = m | n as u8;
            1
        }
        24..=0xff => {
            b[0] = m | 24;
            b[1] = n as u8;
            2
        }
        0x100..=0xffff => {
            b[0] = m | 25;
            b[1..3].copy_from_slice(&(n as u16).to_be_bytes());
            3
        }
        0x1_0000..=0xffff_ffff => {
            b[0] = m | 26;
            b[1..5].copy_from_slice(&(n as u32).to_be_bytes());
            5
        }
        _ => {
            b[0] = m | 27;
            b[1..9].copy_from_slice(&n.to_be_bytes());
            9
        }
    };
    out(&b[..len]);
}

fn text(out: &mut impl FnMut(&[u8]), s: &str) {
    head(out, 3, s.len() as u64);
    out(s.as_bytes());
}

fn hex_text(out: &mut impl FnMut(&[u8]), alg: &str, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    head(out, 3, (alg.len() + 1 + 2 * bytes.len()) as u64);
    out(alg.as_bytes());
    out(b":");
    for &b in bytes {
        out(&[HEX[(b >> 4) as usize], HEX[(b & 15) as usize]]);
    }
}

fn digest(out: &mut impl FnMut(&[u8]), d: &Digest<'_>) {
    match d {
        Digest::Xxh3(v) => hex_text(out, "xxh3", &v.to_be_bytes()),
        Digest::Sha256(h) => hex_text(out, "sha256", h),
        Digest::Other(alg, hex) => {
            head(out, 3, (alg.len() + 1 + hex.len()) as u64);
            out(alg.as_bytes());
            out(b":");
            out(hex.as_bytes());
        }
    }
}

fn part(out: &mut impl FnMut(&[u8]), p: &Part<'_>) {
    // Keys in encoded order: "type" (4), "dtype" (5), "digest" (6).
    head(out, 5, 2 + p.type_name.is_some() as u64);
    if let Some(t) = p.type_name {
        text(out, "type");
        text(out, t);
    }
    text(out, "dtype");
    text(out, p.dtype.name());
    text(out, "digest");
    if let Some(d) = &p.digest {
        digest(out, d);
    }
}

fn object(out: &mut impl FnMut(&[u8]), o: &Object<'_, '_>) {
    // Keys in encoded order: "parts", "shape" (5), "layout" (6), "attributes" (10).
    let attrs = o.attributes();
    head(out, 5, 3 + attrs.is_some() as u64);
    text(out, "parts");
    head(out, 5, o.num_parts() as u64);
    for p in o.parts().flatten() {
        text(out, p.name);
        part(out, &p);
    }
    text(out, "shape");
    head(out, 4, o.rank() as u64);
    for d in o.dims() {
        head(out, 0, d);
    }
    text(out, "layout");
    text(out, o.layout);
    if let Some(a) = attrs {
        text(out, "attributes");
        out(a.raw());
    }
}

impl Manifest<'_> {
    /// Whether the content digest is defined: every part carries a digest.
    pub fn has_content_digest(&self) -> bool {
        self.objects().all(|o| o.parts().all(|p| p.is_ok_and(|p| p.digest.is_some())))
    }

    /// Feed the deterministic encoding of the content value to `out`;
    /// `false` (and nothing fed) when a part has no digest.
    pub fn content_value(&self, mut out: impl FnMut(&[u8])) -> bool {
        if !self.has_content_digest() {
            return false;
        }
        head(&mut out, 4, 2);
        text(&mut out, TAG);
        head(&mut out, 5, self.len() as u64);
        for o in self.objects() {
            text(&mut out, o.name);
            object(&mut out, &o);
        }
        true
    }

    /// The content digest with SHA-256: `sha256:<hex>` of the content value.
    pub fn content_digest_sha256(&self) -> Option<[u8; 32]> {
        use sha2::Digest as _;
        let mut h = sha2::Sha256::new();
        self.content_value(|b| h.update(b)).then(|| h.finalize().into())
    }

    /// The content digest with XXH3-64.
    pub fn content_digest_xxh3(&self) -> Option<u64> {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        self.content_value(|b| h.update(b)).then(|| h.digest())
    }
}
