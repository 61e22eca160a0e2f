//! The format rules of a v0.1 or v1.x object that metadata alone can check
//! (spec 1.2 §3, Object Formats: the components each format needs, index
//! dtypes, counts against the shape, quantization attributes), from what
//! was noted of its components: the one statement of them. The pass
//! keeps the fault's kind; the host's error path, the v0.1 pass and the
//! writer's checks word it (`manifest::rules::check_format`).

use crate::cbor::{decode_head, MAJOR_TEXT, MAJOR_UINT};
use crate::compact::{Component, Kind};
use crate::manifest::schema::{QuantAttr, Role};
use crate::types::{DType, Format, Version};

/// A v1.0 or v1.1 file (some rules differ, among them the index dtypes
/// here): never in a build that reads v1.2 only (without `v1-legacy`: the
/// firmware's), which refuses the others as an unsupported version when it
/// reads theirs.
#[inline(always)]
pub(super) fn before_1_2(v: Version) -> bool {
    cfg!(feature = "v1-legacy") && v.minor < 2
}

/// What the format rules need of a shape: its rank, its element count (the
/// checked product) and its first dimension (0 for a scalar).
#[derive(Clone, Copy, Default)]
pub(crate) struct Dims {
    pub ndim: usize,
    pub numel: u64,
    pub first: u64,
}

/// A format rule broken: its kind, the component it concerns (if one), and
/// what the rule expected of it (a count or a length in bytes; 0 for the
/// other kinds).
#[derive(Clone, Copy, Debug)]
pub(crate) struct FormatFault {
    pub kind: Kind,
    pub role: Option<Role>,
    pub expected: u64,
}

impl FormatFault {
    fn new(kind: Kind, role: Option<Role>) -> Self {
        FormatFault { kind, role, expected: 0 }
    }
}

/// What the format rules need of an object's components of known roles,
/// by [`Role`], in parts (88 bytes: the pass's deepest frame holds them).
pub(crate) struct Known {
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
    pub(crate) fn new() -> Known {
        Known { has: 0, sized: 0, index: 0, per: [0; Role::ALL.len()], sizes: [0; Role::ALL.len()] }
    }

    /// The component `c`, of the known role `r`, in a `v` file: its storage
    /// type, ratio and decoded size.
    pub(crate) fn note(&mut self, r: Role, v: Version, c: &Component<'_>) {
        let (bit, decoded) = (1 << r as u32, c.decoded_len());
        self.has |= bit;
        if decoded.is_some() {
            self.sized |= bit;
        }
        // (Sparse indices: u64 since v1.2, any integer before.)
        let index = if before_1_2(v) { c.dtype.is_integer() } else { c.dtype == DType::U64 };
        if index {
            self.index |= bit;
        }
        // (At most 8 x 2; 0 for an unknown logical type.)
        self.per[r as usize] = c.dtype.width() as u8 * c.ratio().unwrap_or(0) as u8;
        self.sizes[r as usize] = decoded.unwrap_or(0);
    }

    /// Decoded size in bytes, when known.
    pub(crate) fn decoded(&self, r: Role) -> Option<u64> {
        (self.sized & 1 << r as u32 != 0).then_some(self.sizes[r as usize])
    }

    /// Decoded element count in logical elements, when known.
    #[inline(always)]
    pub(crate) fn count(&self, r: Role) -> Option<u64> {
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

/// The rules of the object's format that metadata alone can check, in
/// the order the host's error path words them: the components needed, their
/// index dtypes, the shape, the counts, the attributes. `attributes` is the
/// position of the object's attribute map in `m`, if it has one.
#[inline(always)]
pub(crate) fn check_format(m: &[u8], shape: Dims, format: Option<Format<'_>>, attributes: Option<usize>, known: &Known) -> Result<(), FormatFault> {
    let Dims { ndim, numel, first } = shape;
    let i = match format {
        Some(Format::Dense) => 0,
        Some(Format::SparseCsr) => 1,
        Some(Format::SparseCoo) => 2,
        Some(Format::QuantizedGroup) => 3,
        _ => return Ok(()),
    };
    let (needed, index) = NEEDS[i];
    let Some(format) = format else { return Ok(()) };
    // (The lowest role first: the order the formats list them in.)
    let first_role = |bits: u32| Role::ALL.get(bits.trailing_zeros() as usize).copied();
    if needed & !known.has != 0 {
        return Err(FormatFault::new(Kind::MissingComponent, first_role(needed & !known.has)));
    }
    if index & !known.index != 0 {
        return Err(FormatFault::new(Kind::IndexDType, first_role(index & !known.index)));
    }
    let overflow = |role| FormatFault::new(Kind::Overflow, role);
    let count = |r: Role, expected: u64| match known.count(r) {
        Some(n) if n != expected => Err(FormatFault { kind: Kind::Count, role: Some(r), expected }),
        _ => Ok(()),
    };
    match format {
        Format::Dense => {
            if let (per @ 1.., Some(actual)) = (known.per[Role::Data as usize], known.decoded(Role::Data)) {
                let expected = numel.checked_mul(per as u64).ok_or(overflow(Some(Role::Data)))?;
                if expected != actual {
                    return Err(FormatFault { kind: Kind::Length, role: Some(Role::Data), expected });
                }
            }
        }
        // (One reading of the values' count for both.)
        Format::SparseCsr | Format::SparseCoo => {
            let csr = matches!(format, Format::SparseCsr);
            if csr {
                if ndim != 2 {
                    return Err(FormatFault::new(Kind::Shape, None));
                }
                count(Role::Indptr, first.checked_add(1).ok_or(overflow(None))?)?;
            }
            if let Some(nnz) = known.count(Role::Values) {
                // CSR: an index per value; COO: `ndim` coordinates per value.
                let (r, want) = if csr { (Role::Indices, Some(nnz)) } else { (Role::Coords, (ndim as u64).checked_mul(nnz)) };
                count(r, want.ok_or(overflow(None))?)?;
            }
        }
        Format::QuantizedGroup => {
            if quant_attribute(m, attributes).is_some() {
                return Err(FormatFault::new(Kind::QuantAttribute, None));
            }
        }
        Format::Other(_) => {}
    }
    Ok(())
}

/// The first `quantized_group` attribute of the wrong type, and where its
/// value lies: when present, `bits` and `group_size` are unsigned integers,
/// `packing` definite-length text.
#[inline(always)]
pub(crate) fn quant_attribute(m: &[u8], attributes: Option<usize>) -> Option<(QuantAttr, usize)> {
    let a = attributes?;
    QuantAttr::ALL.iter().find_map(|&attr| {
        let v = crate::compact::view::field(m, a, attr.name())?;
        let want = if attr == QuantAttr::Packing { MAJOR_TEXT } else { MAJOR_UINT };
        let ok = matches!(decode_head(m, v), Some((major, Some(_), _)) if major == want);
        (!ok).then_some((attr, v))
    })
}
