//! Storage types (§4.1: the crate's [`DType`] without `Bool`) and the
//! registered logical types (Appendix A).

pub use crate::types::DType;

/// The storage type a v2 `dtype` text names: one of the 12 primitives
/// (`bool` is a logical type over `u8` in v2, not a storage type).
pub fn dtype(s: &[u8]) -> Option<DType> {
    DType::from_bytes(s).filter(|d| *d != DType::Bool)
}

/// Whether a v2 storage type is a float type.
pub fn is_float(d: DType) -> bool {
    matches!(d, DType::F64 | DType::F32 | DType::F16 | DType::BF16)
}

/// A registered logical type (Appendix A).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Logical {
    /// Bytes 0 or 1 over `u8`.
    Bool,
    /// OCP / NVIDIA FP8 E4M3.
    F8E4M3Fn,
    /// OCP FP8 E5M2.
    F8E5M2,
    /// AMD FP8 E4M3.
    F8E4M3Fnuz,
    /// AMD FP8 E5M2.
    F8E5M2Fnuz,
    /// OCP MX block-scale exponent.
    F8E8M0,
    /// OCP MXFP4 element, two per byte, low nibble first.
    F4E2M1,
    /// Interleaved f32 pairs.
    Complex64,
    /// Interleaved f64 pairs.
    Complex128,
}

impl Logical {
    /// The registered type a `type` text names.
    pub fn parse(s: &str) -> Option<Logical> {
        use Logical::*;
        Some(match s {
            "bool" => Bool,
            "f8_e4m3fn" => F8E4M3Fn,
            "f8_e5m2" => F8E5M2,
            "f8_e4m3fnuz" => F8E4M3Fnuz,
            "f8_e5m2fnuz" => F8E5M2Fnuz,
            "f8_e8m0" => F8E8M0,
            "f4_e2m1" => F4E2M1,
            "complex64" => Complex64,
            "complex128" => Complex128,
            _ => return None,
        })
    }

    /// The spec's name.
    pub fn name(self) -> &'static str {
        use Logical::*;
        match self {
            Bool => "bool",
            F8E4M3Fn => "f8_e4m3fn",
            F8E5M2 => "f8_e5m2",
            F8E4M3Fnuz => "f8_e4m3fnuz",
            F8E5M2Fnuz => "f8_e5m2fnuz",
            F8E8M0 => "f8_e8m0",
            F4E2M1 => "f4_e2m1",
            Complex64 => "complex64",
            Complex128 => "complex128",
        }
    }

    /// The storage type this logical type requires.
    pub fn dtype(self) -> DType {
        match self {
            Logical::Complex64 => DType::F32,
            Logical::Complex128 => DType::F64,
            _ => DType::U8,
        }
    }
}

/// A part's element type: its storage type and, when present, its `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemType<'a> {
    /// No `type`: the storage type itself.
    Plain(DType),
    /// A registered logical type (over its required dtype).
    Logical(Logical),
    /// A `type` this reader does not know: structural access only.
    Unknown(DType, &'a str),
}

impl<'a> ElemType<'a> {
    /// The element type of a part of storage type `dtype` and `type` `ty`.
    pub fn of(dtype: DType, ty: Option<&'a str>) -> ElemType<'a> {
        match ty {
            None => ElemType::Plain(dtype),
            Some(t) => match Logical::parse(t) {
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
            ElemType::Logical(Logical::F4E2M1) => Some(n / 2 + n % 2),
            ElemType::Logical(Logical::Complex64) => n.checked_mul(8),
            ElemType::Logical(Logical::Complex128) => n.checked_mul(16),
            ElemType::Logical(_) => Some(n),
            ElemType::Unknown(..) => None,
        }
    }
}

/// A v2 logical type as the crate-wide [`LogicalType`](crate::types::LogicalType) the views show.
impl From<Logical> for crate::types::LogicalType<'_> {
    fn from(l: Logical) -> Self {
        use crate::types::LogicalType;
        use Logical as L;
        match l {
            L::Bool => LogicalType::Bool,
            L::F8E4M3Fn => LogicalType::F8E4M3Fn,
            L::F8E5M2 => LogicalType::F8E5M2,
            L::F8E4M3Fnuz => LogicalType::F8E4M3Fnuz,
            L::F8E5M2Fnuz => LogicalType::F8E5M2Fnuz,
            L::F8E8M0 => LogicalType::F8E8M0,
            L::F4E2M1 => LogicalType::F4E2M1,
            L::Complex64 => LogicalType::Complex64,
            L::Complex128 => LogicalType::Complex128,
        }
    }
}
