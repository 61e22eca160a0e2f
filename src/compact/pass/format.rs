//! The format rules of a v1.x object that metadata alone can check (spec
//! 1.2 §3, Object Formats: the components each format needs, index dtypes,
//! counts against the shape, quantization attributes), from what the pass
//! noted of its components.

use super::before_1_2;
use crate::cbor::{decode_head, MAJOR_TEXT, MAJOR_UINT};
use crate::compact::Kind;
use crate::manifest::schema::{QuantAttr, Role};
use crate::types::{DType, Format, Version};

/// What the format rules need of an object's components of known roles,
/// by [`Role`], in parts (88 bytes: the pass's deepest frame holds them).
pub(super) struct Known {
    /// Roles present, those of a known decoded size, and those of an
    /// index dtype (a bit each).
    has: u32,
    sized: u32,
    index: u32,
    /// Bytes per logical element: the storage width times the storage
    /// elements per logical element (0 for an unknown logical type).
    per: [u8; Role::ALL.len()],
    /// Decoded sizes in bytes.
    sizes: [u64; Role::ALL.len()],
}

impl Known {
    /// No roles yet.
    pub(super) fn new() -> Known {
        Known { has: 0, sized: 0, index: 0, per: [0; Role::ALL.len()], sizes: [0; Role::ALL.len()] }
    }

    /// Role `r`'s storage type, ratio and decoded size, in a `v` file.
    pub(super) fn set(&mut self, r: Role, v: Version, dtype: DType, ratio: u8, decoded: Option<u64>) {
        let bit = 1 << r as u32;
        self.has |= bit;
        if decoded.is_some() {
            self.sized |= bit;
        }
        // (Sparse indices: u64 since v1.2, any integer before.)
        let index = if before_1_2(v) { dtype.is_integer() } else { dtype == DType::U64 };
        if index {
            self.index |= bit;
        }
        // (At most 8 x 2.)
        self.per[r as usize] = dtype.width() as u8 * ratio;
        self.sizes[r as usize] = decoded.unwrap_or(0);
    }

    /// Decoded size in bytes, when known.
    fn decoded(&self, r: Role) -> Option<u64> {
        (self.sized & 1 << r as u32 != 0).then_some(self.sizes[r as usize])
    }

    /// Decoded element count in logical elements, when known.
    #[inline(always)]
    fn count(&self, r: Role) -> Option<u64> {
        let per = self.per[r as usize] as u64;
        let n = self.decoded(r)?;
        (per != 0).then(|| crate::types::div_pow2(n, per))
    }
}

/// A bit per role of `rs`.
const fn roles(rs: &[Role]) -> u32 {
    let (mut m, mut i) = (0, 0);
    while i < rs.len() {
        m |= 1 << rs[i] as u32;
        i += 1;
    }
    m
}

/// The roles of the components a format needs, and those of them that
/// hold indices (a bit per [`Role`] each): by format, in the order of
/// [`Format`]'s known variants (a table, not a match).
const NEEDS: [(u32, u32); 4] = [
    (roles(&[Role::Data]), 0),
    (roles(&[Role::Values, Role::Indices, Role::Indptr]), roles(&[Role::Indices, Role::Indptr])),
    (roles(&[Role::Values, Role::Coords]), roles(&[Role::Coords])),
    (roles(&[Role::PackedWeight, Role::Scales, Role::Zeros]), 0),
];

/// The rules of the object's format that metadata alone can check.
#[inline(always)]
pub(super) fn check_format(m: &[u8], shape: (usize, u64, u64), format: Option<Format<'_>>, attributes: Option<usize>, known: &Known) -> Result<(), Kind> {
    let (ndim, numel, first) = shape;
    let i = match format {
        Some(Format::Dense) => 0,
        Some(Format::SparseCsr) => 1,
        Some(Format::SparseCoo) => 2,
        Some(Format::QuantizedGroup) => 3,
        _ => return Ok(()),
    };
    let (needed, index) = NEEDS[i];
    let Some(format) = format else { return Ok(()) };
    if needed & !known.has != 0 {
        return Err(Kind::MissingComponent);
    }
    if index & !known.index != 0 {
        return Err(Kind::IndexDType);
    }
    let count = |r: Role, expected: u64| match known.count(r) {
        Some(n) if n != expected => Err(Kind::Count),
        _ => Ok(()),
    };
    match format {
        Format::Dense => {
            if let (per @ 1.., Some(actual)) = (known.per[Role::Data as usize], known.decoded(Role::Data)) {
                let expected = numel.checked_mul(per as u64).ok_or(Kind::Overflow)?;
                if expected != actual {
                    return Err(Kind::Length);
                }
            }
        }
        // (One reading of the values' count for both.)
        Format::SparseCsr | Format::SparseCoo => {
            let csr = matches!(format, Format::SparseCsr);
            if csr {
                if ndim != 2 {
                    return Err(Kind::Shape);
                }
                count(Role::Indptr, first.checked_add(1).ok_or(Kind::Overflow)?)?;
            }
            if let Some(nnz) = known.count(Role::Values) {
                // CSR: an index per value; COO: `ndim` coordinates per value.
                let (r, want) = if csr { (Role::Indices, Some(nnz)) } else { (Role::Coords, (ndim as u64).checked_mul(nnz)) };
                count(r, want.ok_or(Kind::Overflow)?)?;
            }
        }
        Format::QuantizedGroup => {
            // When present, `bits` and `group_size` are unsigned integers,
            // `packing` definite-length text.
            for attr in QuantAttr::ALL {
                if let Some(v) = attributes.and_then(|a| crate::compact::view::field(m, a, attr.name())) {
                    let want = if *attr == QuantAttr::Packing { MAJOR_TEXT } else { MAJOR_UINT };
                    if !matches!(decode_head(m, v), Some((major, Some(_), _)) if major == want) {
                        return Err(Kind::QuantAttribute);
                    }
                }
            }
        }
        Format::Other(_) => {}
    }
    Ok(())
}
