//! The format's rules that metadata alone can check, one function each:
//! every component ([`component_fault`]), every known format (the pass's
//! `format::check_format`, worded here by [`check_format`]) and blob
//! overlap ([`first_overlap`]). The validating pass and the writer's
//! checks (`write::check`) both apply them.

use super::schema::{QuantAttr, Role};
use super::Ctx;
use crate::compact::pass::format;
pub(crate) use crate::compact::pass::format::{Dims, Known};
use crate::compact::{Component, Kind};
use crate::container::{ALIGNMENT, HEADER_LEN};
use crate::error::{Error, ErrorKind, Result};
use crate::object::Shape;
use crate::types::{Encoding, Format};

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

impl Dims {
    /// The shape of a view; the first dimension only for `sparse_csr`, the
    /// one format that reads it.
    pub(crate) fn of_shape(shape: &Shape<'_>, format: Format<'_>) -> Dims {
        let first = if format == Format::SparseCsr { shape.dim(0).unwrap_or(0) } else { 0 };
        Dims { ndim: shape.ndim, numel: shape.numel, first }
    }

    /// From dimensions, by the shape's rule ([`Numel`](super::fields::Numel)).
    #[cfg(feature = "alloc")]
    pub(crate) fn of(dims: &[u64]) -> Result<Dims> {
        let mut numel = super::fields::Numel::new();
        dims.iter().for_each(|&d| numel.push(d));
        Ok(Dims { ndim: dims.len(), numel: numel.finish()?, first: dims.first().copied().unwrap_or(0) })
    }
}

/// The format rules ([`format::check_format`], the pass's statement of
/// them) as the host's error: what the rule says, with the counts, naming
/// the component. `attributes` is the position of the object's attribute
/// map in the manifest (`ctx.buf`), if it has one.
#[cfg_attr(not(feature = "alloc"), inline(never))]
pub(crate) fn check_format(ctx: Ctx<'_>, shape: Dims, format: Format<'_>, attributes: Option<usize>, known: &Known) -> Result<()> {
    let Err(f) = format::check_format(ctx.buf, shape, Some(format), attributes, known) else { return Ok(()) };
    let named = |kind| match f.role {
        Some(r) => Error::new(kind).in_component(r.name()),
        None => Error::new(kind),
    };
    let role = f.role.unwrap_or(Role::Data);
    Err(match f.kind {
        Kind::MissingComponent => Error::new(ErrorKind::MissingComponent { role: role.name() }),
        Kind::IndexDType => named(ErrorKind::IndexDType),
        Kind::Shape => named(ErrorKind::BadShape),
        Kind::Count => named(ErrorKind::CountMismatch { expected: f.expected, actual: known.count(role).unwrap_or(0) }),
        Kind::Length => named(ErrorKind::LengthMismatch { expected: f.expected, actual: known.decoded(role).unwrap_or(0) }),
        Kind::Overflow => named(ErrorKind::ShapeOverflow),
        _ => match format::quant_attribute(ctx.buf, attributes) {
            Some((attr, at)) => {
                let expected = if attr == QuantAttr::Packing { "a text string" } else { "an unsigned integer" };
                Error::at(ErrorKind::WrongType { field: attr.name(), expected }, at)
            }
            None => Error::new(ErrorKind::CborInvalid),
        },
    })
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

    /// Record the non-empty blob `[offset, end)`: whether every blob so
    /// far came in order. (Out of line: the one copy of the rule for the
    /// passes and [`first_overlap`].)
    #[inline(never)]
    pub(crate) fn add(&mut self, offset: u64, end: u64) -> bool {
        if self.ordered {
            if offset >= self.max_end {
                self.max_end = end;
            } else if (offset, end) != self.last {
                self.ordered = false;
            }
            self.last = (offset, end);
        }
        self.ordered
    }

    /// Every blob so far came in order.
    pub(crate) fn ordered(&self) -> bool {
        self.ordered
    }
}

/// Find, in non-empty blob spans sorted by start, one that partially
/// overlaps another, as (offset, length): the first out of file order
/// ([`SpanOrder`]). Identical spans (weight tying) are allowed; two spans
/// with the same start and different ends overlap.
#[inline(always)]
pub(crate) fn first_overlap(spans: &[[u64; 2]]) -> Option<(u64, u64)> {
    let mut order = SpanOrder::new();
    spans.iter().find(|s| !order.add(s[0], s[1])).map(|s| (s[0], s[1] - s[0]))
}
