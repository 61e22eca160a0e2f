//! Storage types (§4.1: the crate's [`DType`] without `Bool`) and element
//! types; the registered logical types (Appendix A) are the crate's
//! [`LogicalType`] ([`LogicalType::v2`] names them).

pub use crate::types::{DType, LogicalType};

/// The storage type a v2 `dtype` text names: one of the 12 primitives
/// (`bool` is a logical type over `u8` in v2, not a storage type).
pub fn dtype(s: &[u8]) -> Option<DType> {
    DType::from_bytes(s).filter(|d| *d != DType::Bool)
}

/// Whether a v2 storage type is a float type.
pub fn is_float(d: DType) -> bool {
    matches!(d, DType::F64 | DType::F32 | DType::F16 | DType::BF16)
}

/// A part's element type: its storage type and, when present, its `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemType<'a> {
    /// No `type`: the storage type itself.
    Plain(DType),
    /// A registered logical type (over its required dtype; never
    /// [`LogicalType::Other`]).
    Logical(LogicalType<'static>),
    /// A `type` this reader does not know: structural access only.
    Unknown(DType, &'a str),
}

impl<'a> ElemType<'a> {
    /// The element type of a part of storage type `dtype` and `type` `ty`.
    pub fn of(dtype: DType, ty: Option<&'a str>) -> ElemType<'a> {
        match ty {
            None => ElemType::Plain(dtype),
            Some(t) => match LogicalType::v2(t) {
                Some(l) => ElemType::Logical(l),
                None => ElemType::Unknown(dtype, t),
            },
        }
    }

    /// The decoded byte size of `n` elements (Appendix A's size function),
    /// `None` on overflow or for an unknown type.
    pub fn size(self, n: u64) -> Option<u64> {
        match self {
            ElemType::Plain(d) => n.checked_mul(d.width()),
            ElemType::Logical(LogicalType::F4E2M1) => Some(n / 2 + n % 2),
            ElemType::Logical(LogicalType::Complex64) => n.checked_mul(8),
            ElemType::Logical(LogicalType::Complex128) => n.checked_mul(16),
            ElemType::Logical(_) => Some(n),
            ElemType::Unknown(..) => None,
        }
    }
}
