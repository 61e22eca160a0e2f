//! The format's rules that metadata alone can check, one function each:
//! every component ([`component_rules`]), every known format
//! ([`check_format`], including `quantized_group`'s attributes) and blob
//! overlap ([`first_overlap`]). The validating pass and the writer's
//! checks (`write::check`) both apply them.

use super::schema::{QuantAttr, Role};
use super::Ctx;
use crate::compact::{Component, Kind};
use crate::container::{ALIGNMENT, HEADER_LEN};
use crate::error::{Error, ErrorKind, Result};
use crate::object::Shape;
use crate::types::{DType, Encoding, Format};
use crate::value::Map;

/// The rules every component obeys, whatever its object's format (v1.2
/// spec, "Components"), in the order the pass applies them: a logical type
/// matches the dtype; the blob is aligned and lies in `[HEADER_LEN, hi)`;
/// (`strict`, v1.2 on) a zstd component declares its decoded size; sizes
/// are whole elements. The one statement of them: the pass's faults, and
/// through [`component_rules`] the host's errors.
#[inline(always)]
pub(crate) fn component_fault(c: &Component<'_>, hi: u64, strict: bool) -> core::result::Result<(), Kind> {
    if c.logical.and_then(|t| t.storage()).is_some_and(|s| s != c.dtype) {
        return Err(Kind::LogicalType);
    }
    if c.offset % ALIGNMENT != 0 {
        return Err(Kind::Misaligned);
    }
    match c.offset.checked_add(c.length) {
        // (A zero-length blob may sit exactly at the manifest start.)
        Some(end) if c.offset >= HEADER_LEN && end <= hi => {}
        _ => return Err(Kind::OutOfBounds),
    }
    if c.encoding == Encoding::Zstd && c.uncompressed_length.is_none() && strict {
        return Err(Kind::NoDecodedSize);
    }
    if c.decoded_len().is_some_and(|n| crate::types::rem_pow2(n, c.dtype.width()) != 0) {
        return Err(Kind::PartialElement);
    }
    Ok(())
}

/// [`component_fault`] as the host's error: what the rule says, with the
/// sizes, at `at` and naming the component.
pub(crate) fn component_rules(ctx: Ctx<'_>, c: &Component<'_>, at: usize, hi: u64) -> Result<()> {
    component_fault(c, hi, ctx.strict()).map_err(|fault| {
        let kind = match fault {
            Kind::LogicalType => ErrorKind::WrongType { field: "type", expected: "a logical type matching the dtype" },
            Kind::Misaligned => ErrorKind::Misaligned { offset: c.offset },
            Kind::OutOfBounds => ErrorKind::OutOfBounds { offset: c.offset, length: c.length, limit: hi },
            Kind::NoDecodedSize => ErrorKind::MissingUncompressedLength,
            _ => ErrorKind::PartialElement { length: c.decoded_len().unwrap_or(0), width: c.dtype.width() },
        };
        Error::at(kind, at).in_component(c.role)
    })
}

/// The components the known formats name, by [`Role`].
pub(crate) type Known = [Option<Brief>; Role::ALL.len()];

/// What the format rules need of a component (small, to keep the pass
/// cheap: 12 bytes on 32-bit targets, where an `Option<u64>` alone takes 16).
#[derive(Clone, Copy)]
pub(crate) struct Brief {
    /// The decoded length in bytes, when `has_decoded` (as two halves: a
    /// `u64` would align the record to 8 bytes, 16 in all instead of 12).
    decoded: [u32; 2],
    role: Role,
    dtype: DType,
    /// Storage elements per logical element; 0 for an unknown logical type.
    ratio: u8,
    has_decoded: bool,
}

impl Brief {
    /// The component `c`, of the known role `role`.
    pub(crate) fn of(c: &Component<'_>, role: Role) -> Self {
        let ratio = c.logical.map_or(Some(1), |t| t.ratio()).unwrap_or(0) as u8;
        let decoded = c.decoded_len();
        let d = decoded.unwrap_or(0);
        Brief { decoded: [d as u32, (d >> 32) as u32], role, dtype: c.dtype, ratio, has_decoded: decoded.is_some() }
    }

    fn error(&self, kind: ErrorKind) -> Error {
        Error::new(kind).in_component(self.role.name())
    }

    /// Storage elements per logical element; `None` for an unknown logical type.
    fn ratio(&self) -> Option<u64> {
        (self.ratio != 0).then_some(self.ratio as u64)
    }

    /// The decoded length in bytes, when known.
    fn decoded(&self) -> Option<u64> {
        self.has_decoded.then_some(self.decoded[0] as u64 | (self.decoded[1] as u64) << 32)
    }

    /// Decoded element count in logical elements, when known.
    fn count(&self) -> Option<u64> {
        Some(crate::types::div_pow2(self.decoded()?, self.dtype.width() * self.ratio()?))
    }
}

/// What the format rules need of a shape.
#[derive(Clone, Copy)]
pub(crate) struct Dims {
    pub ndim: usize,
    /// The checked product (0 when a dimension is 0).
    pub numel: u64,
    /// The first dimension (read only for `sparse_csr`).
    pub first: Option<u64>,
}

impl Dims {
    pub(crate) fn of_shape(shape: &Shape<'_>, format: Format<'_>) -> Dims {
        let first = if format == Format::SparseCsr { shape.dim(0) } else { None };
        Dims { ndim: shape.ndim, numel: shape.numel, first }
    }

    /// From dimensions, by the shape's rule ([`Numel`]).
    #[cfg(feature = "alloc")]
    pub(crate) fn of(dims: &[u64]) -> Result<Dims> {
        let mut numel = super::fields::Numel::new();
        dims.iter().for_each(|&d| numel.push(d));
        Ok(Dims { ndim: dims.len(), numel: numel.finish()?, first: dims.first().copied() })
    }
}

/// The rules of the object's format that metadata alone can check.
#[cfg_attr(not(feature = "alloc"), inline(never))]
pub(crate) fn check_format(ctx: Ctx<'_>, shape: Dims, format: Format<'_>, attributes: Map<'_>, known: &Known) -> Result<()> {
    let need = |r: Role| known[r as usize].ok_or_else(|| Error::new(ErrorKind::MissingComponent { role: r.name() }));
    let index_dtype = |c: Brief| -> Result<()> {
        let ok = if ctx.strict() { c.dtype == DType::U64 } else { c.dtype.is_integer() };
        if ok {
            Ok(())
        } else {
            Err(c.error(ErrorKind::IndexDType))
        }
    };
    let count = |c: &Brief, expected: u64| -> Result<()> {
        match c.count() {
            Some(n) if n != expected => Err(c.error(ErrorKind::CountMismatch { expected, actual: n })),
            _ => Ok(()),
        }
    };
    match format {
        Format::Dense => {
            let d = need(Role::Data)?;
            if let (Some(ratio), Some(actual)) = (d.ratio(), d.decoded()) {
                let expected = shape
                    .numel
                    .checked_mul(d.dtype.width() * ratio)
                    .ok_or_else(|| d.error(ErrorKind::ShapeOverflow))?;
                if expected != actual {
                    return Err(d.error(ErrorKind::LengthMismatch { expected, actual }));
                }
            }
        }
        Format::SparseCsr => {
            let (values, indices, indptr) = (need(Role::Values)?, need(Role::Indices)?, need(Role::Indptr)?);
            index_dtype(indices)?;
            index_dtype(indptr)?;
            if shape.ndim != 2 {
                return Err(Error::new(ErrorKind::BadShape));
            }
            let rows = shape.first.unwrap_or(0);
            count(&indptr, rows.checked_add(1).ok_or_else(|| Error::new(ErrorKind::ShapeOverflow))?)?;
            if let Some(nnz) = values.count() {
                count(&indices, nnz)?;
            }
        }
        Format::SparseCoo => {
            let (values, coords) = (need(Role::Values)?, need(Role::Coords)?);
            index_dtype(coords)?;
            if let Some(nnz) = values.count() {
                let expected =
                    (shape.ndim as u64).checked_mul(nnz).ok_or_else(|| Error::new(ErrorKind::ShapeOverflow))?;
                count(&coords, expected)?;
            }
        }
        Format::QuantizedGroup => {
            need(Role::PackedWeight)?;
            need(Role::Scales)?;
            need(Role::Zeros)?;
            check_quant_params(attributes)?;
        }
        Format::Other(_) => {}
    }
    Ok(())
}

/// The rule for `quantized_group` attributes: when present, `bits` and
/// `group_size` are unsigned integers and `packing` is text.
fn check_quant_params(a: Map<'_>) -> Result<()> {
    for attr in QuantAttr::ALL {
        let field = attr.name();
        let want_text = *attr == QuantAttr::Packing;
        if let Some(v) = a.get(field) {
            let ok = if want_text { v.as_str().is_some() } else { v.as_u64().is_some() };
            if !ok {
                let expected = if want_text { "a text string" } else { "an unsigned integer" };
                return Err(Error::at(ErrorKind::WrongType { field, expected }, v.manifest_offset()));
            }
        }
    }
    Ok(())
}

/// Whether the blobs seen so far came in file order, none overlapping
/// another (then the sorted overlap check, [`first_overlap`], has nothing
/// to find). Identical spans (weight tying) keep the order.
#[derive(Clone, Copy)]
pub(crate) struct SpanOrder {
    ordered: bool,
    last: (u64, u64),
    max_end: u64,
}

impl SpanOrder {
    pub(crate) const fn new() -> Self {
        SpanOrder { ordered: true, last: (0, 0), max_end: 0 }
    }

    /// Record the non-empty blob `[offset, end)`.
    pub(crate) fn add(&mut self, offset: u64, end: u64) {
        if !self.ordered {
            return;
        }
        if offset >= self.max_end {
            self.max_end = end;
        } else if (offset, end) != self.last {
            self.ordered = false;
        }
        self.last = (offset, end);
    }

    /// Every blob so far came in order.
    pub(crate) fn ordered(&self) -> bool {
        self.ordered
    }
}

/// Find, in blob spans sorted by start, one that partially overlaps another,
/// as (offset, length). Identical spans (weight tying) are allowed; two
/// spans with the same start and different ends overlap.
pub(crate) fn first_overlap(spans: &[[u64; 2]]) -> Option<(u64, u64)> {
    let (mut prev, mut max_end) = ([u64::MAX, 0], 0u64);
    for &s in spans {
        let ok = if s[0] == prev[0] { s[1] == prev[1] } else { s[0] >= max_end };
        if !ok {
            return Some((s[0], s[1] - s[0]));
        }
        prev = s;
        max_end = max_end.max(s[1]);
    }
    None
}
