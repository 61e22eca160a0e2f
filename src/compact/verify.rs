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
    /// Count a problem, the first kept (out of line: two callers).
    #[inline(never)]
    pub(super) fn problem(&mut self, kind: Kind, at: usize) {
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
            let bad = match crate::digest::check(d, stored) {
                None => Some(Kind::BadDigest),
                Some(Some(true)) => {
                    r.digests_checked += 1;
                    None
                }
                Some(Some(false)) => Some(Kind::DigestMismatch),
                Some(None) => {
                    r.unverifiable += 1;
                    opt.strict.then_some(Kind::Unverifiable)
                }
            };
            if let Some(k) = bad {
                r.problem(k, c.at);
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
/// runs of nnz). Reached when every component is raw (else the object
/// already has a data problem); the pass checked that the components are
/// there and their types are integers.
fn format_data(f: &File<'_>, o: &Object<'_>) -> Result<(), (Kind, usize)> {
    // Each rule's kind and role, after `values` (marked MissingComponent),
    // whose count the rules need.
    let rules: &[(Kind, &[u8])] = match o.format() {
        Format::SparseCsr => {
            &[(Kind::MissingComponent, b"values"), (Kind::Indptr, b"indptr"), (Kind::Column, b"indices")]
        }
        Format::SparseCoo => &[(Kind::MissingComponent, b"values"), (Kind::Coordinate, b"coords")],
        _ => return Ok(()),
    };
    let mut nnz = 0;
    for &(kind, role) in rules {
        let c = o.component(role).ok_or((Kind::MissingComponent, 0))?;
        if kind == Kind::MissingComponent {
            // Raw: the stored length (inside the file: a usize) is the
            // values' (divided by a power of two: a shift).
            nnz = c.length as usize >> ((c.dtype.width() * c.ratio().unwrap_or(1)) as usize).trailing_zeros();
        } else if !ints_ok(f.stored(&c), c.dtype, kind, nnz, o) {
            return Err((kind, c.at));
        }
    }
    Ok(())
}

/// Whether the integers `bytes` (of type `dtype`) keep the rule of `kind`:
/// each within `lo..hi`, where CSR `indptr` starts at 0 and then never
/// falls below the last value (whose total must be `nnz`), column
/// indices are below the second dimension, and COO coordinates below the
/// dimension of their run of `nnz`. Out of line: format_data's frame
/// keeps fewer registers spilled.
#[inline(never)]
fn ints_ok(bytes: &[u8], dtype: DType, kind: Kind, nnz: usize, o: &Object<'_>) -> bool {
    let w = dtype.width() as usize;
    let signed = matches!(dtype, DType::I8 | DType::I16 | DType::I32 | DType::I64);
    let mut dims = o.shape();
    // Runs of `run` elements below the next dimension (columns: the second,
    // in one run), `left` of the current one to go (no remainder);
    // usize::MAX: no more runs.
    let (mut lo, mut hi, mut left, run) = match kind {
        Kind::Indptr => (0, 1, usize::MAX, 0),
        Kind::Column => {
            dims.pop();
            (0, 0, 0, usize::MAX)
        }
        _ => (0, 0, if nnz == 0 { usize::MAX } else { 0 }, nnz),
    };
    for e in bytes.chunks_exact(w) {
        if left == 0 {
            hi = dims.pop();
            left = run;
        }
        left -= 1;
        // Little-endian, from the last byte (whose top bit is the sign).
        let v = e.iter().rev().fold(0u64, |v, &x| v << 8 | x as u64);
        if signed && e[w - 1] & 0x80 != 0 || v < lo || v >= hi {
            return false;
        }
        if kind == Kind::Indptr {
            // u64::MAX: never the end, nnz being below a file length.
            (lo, hi) = (v, u64::MAX);
        }
    }
    kind != Kind::Indptr || lo == nnz as u64
}
