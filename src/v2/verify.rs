//! Verify: a part's decoded bytes against its length, digest and type's
//! byte rules, and an object's parts against its layout's data rules.

use super::data;
use crate::digest::{Digest, Hasher};
use super::error::{Error, Kind, Result};
use super::layout::{div_rem, PartSet, Profile, Shaped};
use super::manifest::Object;
use super::part::Part;
use super::seekable;
use super::types::LogicalType;

/// Check decoded bytes of a part: length, digest (if registered), and the
/// logical type's byte rules. Returns whether a digest was checked.
/// The same checks as [`Pieces`] on bytes all in memory, with the one-shot
/// hashes ([`Digest::matches`]).
pub fn part(p: &Part<'_>, n_elements: Option<u64>, decoded: &[u8]) -> Result<bool> {
    if decoded.len() as u64 != p.decoded_size() {
        return Err(Error::new(Kind::DecodedLength));
    }
    if let Some(t) = p.logical() {
        // Without an element count, the f4_e2m1 final nibble cannot be located: only bool's rule runs.
        data::check_logical(t, n_elements.unwrap_or(0), decoded)?;
    }
    match p.digest.and_then(|d| d.matches(decoded)) {
        Some(true) => Ok(true),
        Some(false) => Err(Error::new(Kind::DigestMismatch)),
        None => Ok(false),
    }
}

/// A part's decoded bytes handed in pieces, in order ([`Pieces::update`]),
/// then checked ([`Pieces::finish`]): their length against `decoded_length`,
/// the logical type's byte rules (Appendix A) and the digest (§6.3: over the
/// decoded bytes), in memory bounded by one piece, whatever the part's size.
pub struct Pieces {
    /// The digest wanted, and the one computed.
    digest: Option<(Digest<'static>, Hasher)>,
    len: u64,
    /// The type with byte rules, and its element count (for `f4_e2m1`'s final nibble).
    rules: Option<(LogicalType<'static>, u64)>,
    /// The last byte handed: `f4_e2m1`'s final nibble, checked at the end.
    last: Option<u8>,
}

impl Pieces {
    /// For `p`; `n_elements` is the count its logical type sees (where its
    /// layout gives one, [`part_elements`]); without it, the `f4_e2m1`
    /// final-nibble rule cannot be located and only `bool`'s rule runs.
    pub fn new(p: &Part<'_>, n_elements: Option<u64>) -> Pieces {
        let digest = p.digest.and_then(|d| Some((d.known()?, Hasher::like(&d)?)));
        let rules = p.logical().map(|t| (t, n_elements.unwrap_or(0)));
        Pieces { digest, len: 0, rules, last: None }
    }

    /// The next decoded bytes: `bool`'s rule is checked on them as they come.
    pub fn update(&mut self, bytes: &[u8]) -> Result<()> {
        if let Some((t, _)) = self.rules {
            // Element count 0: the final nibble is checked by `finish`.
            data::check_logical(t, 0, bytes)?;
        }
        self.len += bytes.len() as u64;
        self.last = bytes.last().copied().or(self.last);
        if let Some((_, h)) = &mut self.digest {
            h.update(bytes);
        }
        Ok(())
    }

    /// Length, final nibble and digest of everything handed, as [`part`]
    /// checks them (`decoded_size` is the part's): whether a digest was checked.
    pub fn finish(self, decoded_size: u64) -> Result<bool> {
        if self.len != decoded_size {
            return Err(Error::new(Kind::DecodedLength));
        }
        if let (Some((t, n)), Some(b)) = (self.rules, self.last) {
            data::check_logical(t, n, &[b])?;
        }
        match self.digest {
            Some((want, h)) if h.sum() != want => Err(Error::new(Kind::DigestMismatch)),
            Some(_) => Ok(true),
            None => Ok(false),
        }
    }
}

/// The decoded bytes of a raw part stored in `file` (this file).
pub fn raw_bytes<'f>(p: &Part<'_>, file: &'f [u8]) -> Result<&'f [u8]> {
    if p.shard.is_some() || !p.is_raw() {
        return Err(Error::new(Kind::NotAvailable));
    }
    p.blob(file).ok_or(Error::new(Kind::NotAvailable))
}

/// Decoded bytes of a part: borrowed from the file when raw, owned when
/// decoded (`zt.zstd-seekable/1`, with `alloc`).
pub struct Decoded<'f>(Inner<'f>);

enum Inner<'f> {
    Borrowed(&'f [u8]),
    #[cfg(feature = "alloc")]
    Owned(alloc::vec::Vec<u8>),
}

impl core::ops::Deref for Decoded<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            Inner::Borrowed(b) => b,
            #[cfg(feature = "alloc")]
            Inner::Owned(v) => v,
        }
    }
}

/// The decoded bytes of a part in `file` (this file): raw parts borrowed;
/// `zt.zstd-seekable/1` checked by its seek table, then decoded with
/// `alloc` (without, [`Kind::NotAvailable`]); other encodings unsupported.
pub fn decoded<'f>(p: &Part<'_>, file: &'f [u8]) -> Result<Decoded<'f>> {
    match p.encoding {
        None => Ok(Decoded(Inner::Borrowed(raw_bytes(p, file)?))),
        Some(seekable::ID) => {
            if p.shard.is_some() {
                return Err(Error::new(Kind::NotAvailable));
            }
            let enc = p.blob(file).ok_or(Error::new(Kind::NotAvailable))?;
            seekable::SeekTable::parse(enc, p.decoded_size())?;
            #[cfg(feature = "alloc")]
            {
                Ok(Decoded(Inner::Owned(seekable::decode_to_vec(enc, p.decoded_size())?)))
            }
            #[cfg(not(feature = "alloc"))]
            Err(Error::new(Kind::NotAvailable))
        }
        Some(_) => Err(Error::ctx(Kind::Unsupported, "encoding")),
    }
}

/// The element count a part's logical type sees, where the layout says
/// (dense and MX `data`: the shape's; sparse `values`: nnz); `None` elsewhere.
/// `profile` and `set` are the object's (both readers give them).
pub(crate) fn elements<'a>(o: &impl Shaped<'a>, profile: &Profile<'a>, set: &PartSet<'a>, p: &Part<'_>) -> Option<u64> {
    match (profile, p.name) {
        (Profile::Dense, _) | (Profile::Mx(_), "data") => Some(o.num_elements()),
        (Profile::Csr { index }, "values") => set.get("indices").map(|i| div_rem(i.size, index.width()).0),
        (Profile::Coo { index }, "values") => {
            set.get("coords").map(|c| div_rem(div_rem(c.size, index.width()).0, (o.rank() as u64).max(1)).0)
        }
        _ => None,
    }
}

/// The element count of part `p` of object `o` (see `elements`), which [`Pieces::new`] takes
/// for `f4_e2m1`'s final-nibble rule.
pub fn part_elements(o: &Object<'_, '_>, p: &Part<'_>) -> Option<u64> {
    elements(o, &o.profile(), &o.part_set(), p)
}

/// Verify every part of an object whose parts are raw and in `file`, and
/// its layout's data rules (CSR, COO). Returns how many parts had a digest.
pub fn object(o: &Object<'_, '_>, file: &[u8]) -> Result<usize> {
    let mut digested = 0;
    let (set, profile) = (o.part_set(), o.profile());
    for p in o.parts() {
        let p = p?;
        let b = decoded(&p, file)?;
        digested += part(&p, elements(o, &profile, &set, &p), &b)? as usize;
    }
    layout(o, |p| decoded(p, file))?;
    Ok(digested)
}

/// The data rules of an object's layout (CSR indptr and indices, COO
/// coordinates; §5's profiles), on the index parts' decoded bytes, which
/// `decoded` produces (whole: the rules look across a part).
pub fn layout<D, E>(o: &Object<'_, '_>, decoded: impl Fn(&Part<'_>) -> Result<D, E>) -> Result<(), E>
where
    D: core::ops::Deref<Target = [u8]>,
    E: From<Error>,
{
    let part = |name| o.part(name).ok_or(Error::new(Kind::LayoutParts));
    match o.profile() {
        Profile::Csr { index } => {
            let (ip, ix) = (decoded(&part("indptr")?)?, decoded(&part("indices")?)?);
            Ok(data::check_csr(o.dim(0).unwrap_or(0), o.dim(1).unwrap_or(0), index, &ip, &ix)?)
        }
        Profile::Coo { index } => {
            let coords = decoded(&part("coords")?)?;
            let mut shape = [0u64; 64];
            for (s, d) in shape.iter_mut().zip(o.dims()) {
                *s = d;
            }
            Ok(data::check_coo(&shape[..o.rank()], index, &coords)?)
        }
        _ => Ok(()),
    }
}
