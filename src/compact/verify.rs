//! The compact reader's verification: digests and data rules, with the
//! findings of [`crate::File::verify_with`] in the same order.

use super::{Component, Fault, File, Kind, Object};
use crate::types::{DType, Encoding, Format};
use crate::verify::Options;

/// What [`File::verify`] looked at and found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Objects looked at.
    pub objects: usize,
    /// Components looked at.
    pub components: usize,
    /// Digests checked and matching.
    pub digests_checked: usize,
    /// Digests of an unknown algorithm: not checked.
    pub unverifiable: usize,
    /// Problems found.
    pub problems: usize,
    /// The first problem.
    pub first: Option<Fault>,
}

impl Report {
    fn problem(&mut self, kind: Kind, at: usize) {
        self.problems += 1;
        self.first.get_or_insert(Fault::new(kind, at));
    }
}

/// [`File::verify`].
pub(crate) fn run(f: &File<'_>, opt: Options) -> Report {
    let mut r = Report::default();
    for o in f.objects() {
        r.objects += 1;
        // The object's first data problem, reported after its digests.
        let mut data_err = None;
        for c in o.components() {
            r.components += 1;
            component(f, &c, opt, &mut data_err, &mut r);
        }
        if opt.data {
            if let Some((k, at)) = data_err.or_else(|| format_data(f, &o).err()) {
                r.problem(k, at);
            }
        }
    }
    r
}

/// One component's digest, and its own data rules unless the object
/// already has a data problem.
#[inline(never)]
fn component(f: &File<'_>, c: &Component<'_>, opt: Options, data_err: &mut Option<(Kind, usize)>, r: &mut Report) {
    let stored = f.stored(c);
    if opt.digests {
        if let Some(d) = c.digest {
            match crate::digest::check(d, stored) {
                None => r.problem(Kind::BadDigest, c.at),
                Some(Some(true)) => r.digests_checked += 1,
                Some(Some(false)) => r.problem(Kind::DigestMismatch, c.at),
                Some(None) => {
                    r.unverifiable += 1;
                    if opt.strict {
                        r.problem(Kind::Unverifiable, c.at);
                    }
                }
            }
        }
    }
    if opt.data && data_err.is_none() {
        *data_err = match c.encoding {
            Encoding::Raw if c.dtype == DType::Bool && stored.iter().any(|&b| b > 1) => Some((Kind::Bool, c.at)),
            Encoding::Raw => None,
            _ => Some((Kind::Zstd, c.at)),
        };
    }
}

/// The data rules of sparse formats: CSR `indptr` runs from 0, never
/// decreasing, to the number of values, and column indices are below the
/// column count; COO coordinates lie inside the shape (`coords` is ndim
/// runs of nnz).
#[inline(never)]
fn format_data(f: &File<'_>, o: &Object<'_>) -> Result<(), (Kind, usize)> {
    let roles: &[&[u8]] = match o.format() {
        Format::SparseCsr => &[b"indptr", b"indices"],
        Format::SparseCoo => &[b"coords"],
        _ => return Ok(()),
    };
    let values = need(o, b"values")?;
    let per = values.dtype.width() * values.ratio().unwrap_or(1);
    let nnz = crate::types::div_pow2(values.decoded_len().ok_or((Kind::Zstd, values.at))?, per);
    let shape = o.shape();
    for &role in roles {
        let c = need(o, role)?;
        let (bytes, w, signed) = ints(f, &c)?;
        let kind = match role {
            b"indptr" => Kind::Indptr,
            b"indices" => Kind::Column,
            _ => Kind::Coordinate,
        };
        let cols = shape.dims().nth(1).unwrap_or(0);
        let mut dims = shape.dims();
        let (mut prev, mut limit, mut left) = (None, 0, 0u64);
        for e in bytes.chunks_exact(w) {
            // Little-endian, from the last byte (whose top bit is the sign).
            let v = e.iter().rev().fold(0u64, |v, &x| v << 8 | x as u64);
            let ok = !(signed && e[w - 1] & 0x80 != 0)
                && match kind {
                    Kind::Indptr => {
                        let ok = prev.map_or(v == 0, |p| v >= p);
                        prev = Some(v);
                        ok
                    }
                    Kind::Column => v < cols,
                    _ => {
                        if nnz > 0 && left == 0 {
                            limit = dims.next().unwrap_or(0);
                            left = nnz;
                        }
                        left = left.saturating_sub(1);
                        v < limit
                    }
                };
            if !ok {
                return Err((kind, c.at));
            }
        }
        if kind == Kind::Indptr && prev.unwrap_or(0) != nnz {
            return Err((kind, c.at));
        }
    }
    Ok(())
}

/// The component of `role` (present: the pass checked the format).
fn need<'a>(o: &Object<'a>, role: &[u8]) -> Result<Component<'a>, (Kind, usize)> {
    o.component(role).ok_or((Kind::MissingComponent, 0))
}

/// A raw integer component's bytes, element width and signedness.
#[inline(never)]
fn ints<'a>(f: &File<'a>, c: &Component<'a>) -> Result<(&'a [u8], usize, bool), (Kind, usize)> {
    if c.encoding != Encoding::Raw {
        return Err((Kind::Zstd, c.at));
    }
    if !c.dtype.is_integer() {
        return Err((Kind::IndexDType, c.at));
    }
    let signed = matches!(c.dtype, DType::I8 | DType::I16 | DType::I32 | DType::I64);
    Ok((f.stored(c), c.dtype.width() as usize, signed))
}
