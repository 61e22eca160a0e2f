//! The content digest (§6.4): the manifest's objects reduced to shape,
//! layout, attributes and per-part dtype/type/digest, encoded in
//! deterministic CBOR straight into a hasher. Computable from the manifest
//! alone; defined only when every part carries a digest.

use super::manifest::{Manifest, Object};
use super::part::Part;
use core::convert::Infallible;
use minicbor::Encoder;

/// The version tag of the content value.
pub const TAG: &str = "zt.content/1";

/// The content value's bytes, handed to the caller's hasher as minicbor
/// encodes them.
struct Feed<F>(F);

impl<F: FnMut(&[u8])> minicbor::encode::Write for Feed<F> {
    type Error = Infallible;

    fn write_all(&mut self, b: &[u8]) -> Result<(), Infallible> {
        (self.0)(b);
        Ok(())
    }
}

type Enc<F> = Encoder<Feed<F>>;
type Done = Result<(), minicbor::encode::Error<Infallible>>;

fn part<F: FnMut(&[u8])>(e: &mut Enc<F>, p: &Part<'_>) -> Done {
    // Keys in encoded order (§3.1): "type" (4), "dtype" (5), "digest" (6).
    e.map(2 + p.type_name.is_some() as u64)?;
    if let Some(t) = p.type_name {
        e.str("type")?.str(t)?;
    }
    // A digest's text as the manifest has it: `Digest::parse` accepts only
    // the lowercase hex §3.4 prescribes, so it is already canonical.
    e.str("dtype")?.str(p.dtype.name())?.str("digest")?.str(p.digest_text.unwrap_or(""))?;
    Ok(())
}

fn object<F: FnMut(&[u8])>(e: &mut Enc<F>, o: &Object<'_, '_>) -> Done {
    // Keys in encoded order: "parts", "shape" (5), "layout" (6), "attributes" (10).
    let attrs = o.attributes();
    e.map(3 + attrs.is_some() as u64)?;
    e.str("parts")?.map(o.num_parts() as u64)?;
    for p in o.parts().flatten() {
        e.str(p.name)?;
        part(e, &p)?;
    }
    e.str("shape")?.array(o.rank() as u64)?;
    for d in o.dims() {
        e.u64(d)?;
    }
    e.str("layout")?.str(o.layout)?;
    if let Some(a) = attrs {
        // The map as stored: validated deterministic CBOR already (§3.1).
        e.str("attributes")?;
        (e.writer_mut().0)(a.raw());
    }
    Ok(())
}

impl Manifest<'_> {
    /// Whether the content digest is defined: every part carries a digest.
    pub fn has_content_digest(&self) -> bool {
        self.objects().all(|o| o.parts().all(|p| p.is_ok_and(|p| p.digest.is_some())))
    }

    /// Feed the deterministic encoding of the content value to `out`;
    /// `false` (and nothing fed) when a part has no digest.
    pub fn content_value(&self, out: impl FnMut(&[u8])) -> bool {
        if !self.has_content_digest() {
            return false;
        }
        let mut e = Encoder::new(Feed(out));
        let fed = (|| -> Done {
            e.array(2)?.str(TAG)?.map(self.len() as u64)?;
            for o in self.objects() {
                e.str(o.name)?;
                object(&mut e, &o)?;
            }
            Ok(())
        })();
        debug_assert!(fed.is_ok(), "feeding a closure cannot fail");
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
