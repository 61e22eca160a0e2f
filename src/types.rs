//! The type system: storage dtypes, logical types, encodings, formats, versions.

use core::fmt;

/// Storage type of a component: one of the 13 fixed primitives (spec §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
#[allow(missing_docs)] // the spec's names
pub enum DType {
    F64,
    F32,
    F16,
    BF16,
    I64,
    I32,
    I16,
    I8,
    U64,
    U32,
    U16,
    U8,
    Bool,
}

/// `n / d` for a `d` that is a power of two (an element width, or a width
/// times a logical type's ratio): a shift, so that 32-bit targets link no
/// 64-bit division routine (0.9 KiB of firmware).
/// The index of `b` among the NUL-terminated names of `names`: the
/// firmware's (no `alloc`) way to match a name, one small loop and the
/// names' bytes instead of a compare chain at every use.
#[cfg_attr(feature = "alloc", allow(dead_code))]
#[inline(never)]
pub(crate) fn position(names: &str, b: &[u8]) -> Option<usize> {
    // (The list ends with a NUL: the empty piece after it is no name.)
    names.as_bytes().split(|&c| c == 0).position(|n| n == b).filter(|_| !b.is_empty())
}

/// Matches `$b` (bytes) against the names, as a chain of compares with
/// `alloc` and as a scan ([`position`]) without.
macro_rules! by_name {
    ($b:expr, { $($name:literal => $v:expr,)* } else $other:expr) => {{
        let b: &[u8] = $b;
        #[cfg(feature = "alloc")]
        let found = match b { $(x if x == $name.as_bytes() => Some($v),)* _ => None };
        #[cfg(not(feature = "alloc"))]
        let found = position(concat!($($name, "\0"),*), b).and_then(|i| [$($v),*].get(i).copied());
        match found { Some(v) => v, None => $other }
    }};
}

#[inline]
pub(crate) const fn div_pow2(n: u64, d: u64) -> u64 {
    debug_assert!(d.is_power_of_two());
    n >> d.trailing_zeros()
}

/// `n % d` for a `d` that is a power of two (see [`div_pow2`]).
#[inline]
pub(crate) const fn rem_pow2(n: u64, d: u64) -> u64 {
    debug_assert!(d.is_power_of_two());
    n & (d - 1)
}

impl DType {
    /// Every storage type, in spec order.
    pub const ALL: [DType; 13] = [
        DType::F64,
        DType::F32,
        DType::F16,
        DType::BF16,
        DType::I64,
        DType::I32,
        DType::I16,
        DType::I8,
        DType::U64,
        DType::U32,
        DType::U16,
        DType::U8,
        DType::Bool,
    ];

    /// Bytes per element.
    pub const fn width(self) -> u64 {
        match self {
            DType::F64 | DType::I64 | DType::U64 => 8,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 2,
            DType::I8 | DType::U8 | DType::Bool => 1,
        }
    }

    /// The v1.2 name (`"f32"`, `"u8"`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            DType::F64 => "f64",
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::I64 => "i64",
            DType::I32 => "i32",
            DType::I16 => "i16",
            DType::I8 => "i8",
            DType::U64 => "u64",
            DType::U32 => "u32",
            DType::U16 => "u16",
            DType::U8 => "u8",
            DType::Bool => "bool",
        }
    }

    /// Parse a v1.2 name.
    pub fn from_name(s: &str) -> Option<DType> {
        Self::from_bytes(s.as_bytes())
    }

    /// Parse a v1.2 name given as bytes.
    pub fn from_bytes(s: &[u8]) -> Option<DType> {
        Some(by_name!(s, {
            "f64" => DType::F64,
            "f32" => DType::F32,
            "f16" => DType::F16,
            "bf16" => DType::BF16,
            "i64" => DType::I64,
            "i32" => DType::I32,
            "i16" => DType::I16,
            "i8" => DType::I8,
            "u64" => DType::U64,
            "u32" => DType::U32,
            "u16" => DType::U16,
            "u8" => DType::U8,
            "bool" => DType::Bool,
        } else return None))
    }

    /// Parse a v1.1 `dtype`, which also named FP8 and complex types: those
    /// are normalized to the v1.2 storage type plus a logical type.
    pub fn from_v1_1(s: &str) -> Option<(DType, Option<LogicalType<'static>>)> {
        Self::from_v1_1_bytes(s.as_bytes())
    }

    pub(crate) fn from_v1_1_bytes(s: &[u8]) -> Option<(DType, Option<LogicalType<'static>>)> {
        Some(by_name!(s, {
            "f8_e4m3" => (DType::U8, Some(LogicalType::F8E4M3Fn)),
            "f8_e4m3fn" => (DType::U8, Some(LogicalType::F8E4M3Fn)),
            "f8_e5m2" => (DType::U8, Some(LogicalType::F8E5M2)),
            "complex64" => (DType::F32, Some(LogicalType::Complex64)),
            "complex128" => (DType::F64, Some(LogicalType::Complex128)),
        } else (DType::from_bytes(s)?, None)))
    }

    /// Parse a v0.1 dtype name (`"float32"`, `"uint8"`, ...).
    pub fn from_v0_1(s: &str) -> Option<DType> {
        Some(match s {
            "float64" => DType::F64,
            "float32" => DType::F32,
            "float16" => DType::F16,
            "bfloat16" => DType::BF16,
            "int64" => DType::I64,
            "int32" => DType::I32,
            "int16" => DType::I16,
            "int8" => DType::I8,
            "uint64" => DType::U64,
            "uint32" => DType::U32,
            "uint16" => DType::U16,
            "uint8" => DType::U8,
            "bool" => DType::Bool,
            _ => return None,
        })
    }

    /// Whether this is an integer type (allowed for sparse indices in v1.1).
    pub const fn is_integer(self) -> bool {
        matches!(
            self,
            DType::I64 | DType::I32 | DType::I16 | DType::I8 | DType::U64 | DType::U32 | DType::U16 | DType::U8
        )
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Logical type of a component (spec §2): what the stored elements mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LogicalType<'a> {
    /// FP8 E4M3 (NVIDIA / OCP), stored as `u8`.
    F8E4M3Fn,
    /// FP8 E5M2 (OCP), stored as `u8`.
    F8E5M2,
    /// FP8 E4M3 (AMD, no negative zero), stored as `u8`.
    F8E4M3Fnuz,
    /// FP8 E5M2 (AMD, no negative zero), stored as `u8`.
    F8E5M2Fnuz,
    /// Interleaved `[re, im]` pairs of `f32`.
    Complex64,
    /// Interleaved `[re, im]` pairs of `f64`.
    Complex128,
    /// v2: bytes 0 or 1 over `u8` (v1.x has a `bool` dtype instead).
    Bool,
    /// v2: OCP MX block-scale exponent over `u8`.
    F8E8M0,
    /// v2: OCP MXFP4 elements, two per `u8`, low nibble first.
    F4E2M1,
    /// A logical type this library does not know; the stored dtype elements stay readable.
    Other(&'a str),
}

impl<'a> LogicalType<'a> {
    /// Parse a v1.x `type` string; unknown names (v2's `bool`, `f8_e8m0`,
    /// `f4_e2m1` included: v1.x does not register them) become [`LogicalType::Other`].
    pub fn parse(s: &'a str) -> Self {
        by_name!(s.as_bytes(), {
            "f8_e4m3fn" => LogicalType::F8E4M3Fn,
            "f8_e5m2" => LogicalType::F8E5M2,
            "f8_e4m3fnuz" => LogicalType::F8E4M3Fnuz,
            "f8_e5m2fnuz" => LogicalType::F8E5M2Fnuz,
            "complex64" => LogicalType::Complex64,
            "complex128" => LogicalType::Complex128,
        } else LogicalType::Other(s))
    }

    /// The v1.2 name.
    pub fn name(&self) -> &'a str {
        match *self {
            LogicalType::F8E4M3Fn => "f8_e4m3fn",
            LogicalType::F8E5M2 => "f8_e5m2",
            LogicalType::F8E4M3Fnuz => "f8_e4m3fnuz",
            LogicalType::F8E5M2Fnuz => "f8_e5m2fnuz",
            LogicalType::Complex64 => "complex64",
            LogicalType::Complex128 => "complex128",
            LogicalType::Bool => "bool",
            LogicalType::F8E8M0 => "f8_e8m0",
            LogicalType::F4E2M1 => "f4_e2m1",
            LogicalType::Other(s) => s,
        }
    }

    /// Storage type the spec requires for a known logical type.
    pub const fn storage(&self) -> Option<DType> {
        match self {
            LogicalType::F8E4M3Fn
            | LogicalType::F8E5M2
            | LogicalType::F8E4M3Fnuz
            | LogicalType::F8E5M2Fnuz
            | LogicalType::Bool
            | LogicalType::F8E8M0
            | LogicalType::F4E2M1 => Some(DType::U8),
            LogicalType::Complex64 => Some(DType::F32),
            LogicalType::Complex128 => Some(DType::F64),
            LogicalType::Other(_) => None,
        }
    }

    /// Storage elements per logical element; `None` for unknown types and
    /// for `f4_e2m1` (two elements per byte: ⌈n/2⌉ bytes).
    pub const fn ratio(&self) -> Option<u64> {
        match self {
            LogicalType::Complex64 | LogicalType::Complex128 => Some(2),
            LogicalType::Other(_) | LogicalType::F4E2M1 => None,
            _ => Some(1),
        }
    }
}

impl From<crate::v2::types::Logical> for LogicalType<'_> {
    fn from(l: crate::v2::types::Logical) -> Self {
        use crate::v2::types::Logical as L;
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

impl fmt::Display for LogicalType<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a component's bytes are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// The elements themselves.
    Raw,
    /// A zstd frame; `length` is the compressed size.
    Zstd,
    /// v2 `zt.zstd-seekable/1`: zstd frames and a seek table.
    ZstdSeekable,
    /// v2: an encoding this library does not know (structural access only).
    Unknown,
}

impl Encoding {
    /// Parse `"raw"` / `"zstd"`.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::from_bytes(s.as_bytes())
    }

    pub(crate) fn from_bytes(s: &[u8]) -> Option<Self> {
        Some(by_name!(s, {
            "raw" => Encoding::Raw,
            "zstd" => Encoding::Zstd,
        } else return None))
    }

    /// The manifest name.
    pub const fn name(self) -> &'static str {
        match self {
            Encoding::Raw => "raw",
            Encoding::Zstd => "zstd",
            Encoding::ZstdSeekable => crate::v2::seekable::ID,
            Encoding::Unknown => "unknown",
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Layout of an object (spec §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format<'a> {
    /// One `data` component, row-major.
    Dense,
    /// `values`, `indices`, `indptr`.
    SparseCsr,
    /// `values`, `coords`.
    SparseCoo,
    /// `packed_weight`, `scales`, `zeros`; parameters in attributes.
    QuantizedGroup,
    /// A format this library does not know; its components stay readable.
    Other(&'a str),
}

impl<'a> Format<'a> {
    /// Parse a `format` string; unknown names become [`Format::Other`].
    pub fn parse(s: &'a str) -> Self {
        Self::known(s.as_bytes()).unwrap_or(Format::Other(s))
    }

    /// The known format with this name.
    pub(crate) fn known(s: &[u8]) -> Option<Self> {
        Some(by_name!(s, {
            "dense" => Format::Dense,
            "sparse_csr" => Format::SparseCsr,
            "sparse_coo" => Format::SparseCoo,
            "quantized_group" => Format::QuantizedGroup,
        } else return None))
    }

    /// The manifest name.
    pub fn name(&self) -> &'a str {
        match *self {
            Format::Dense => "dense",
            Format::SparseCsr => "sparse_csr",
            Format::SparseCoo => "sparse_coo",
            Format::QuantizedGroup => "quantized_group",
            Format::Other(s) => s,
        }
    }
}

impl fmt::Display for Format<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Byte order of a component's elements. Always little for v1.x; v0.1 may say big.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Endian {
    Little,
    Big,
}

/// A format version, `MAJOR.MINOR.PATCH`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[allow(missing_docs)]
pub struct Version {
    pub major: u16,
    pub minor: u16,
    pub patch: u16,
}

impl Version {
    /// The legacy `ZTEN0001` format.
    pub const V0_1: Version = Version { major: 0, minor: 1, patch: 0 };
    /// Container format 2.
    pub const V2: Version = Version { major: 2, minor: 0, patch: 0 };
    /// The version this crate writes.
    pub const V1_2: Version = Version { major: 1, minor: 2, patch: 0 };

    /// Parse `MAJOR.MINOR[.PATCH]` (decimal digits only, each at most 65535).
    ///
    /// Byte by byte: `str::split` and `u16::from_str` would bring a char
    /// searcher and the integer parser into firmware (about 0.5 KiB).
    pub fn parse(s: &str) -> Option<Version> {
        let mut n = [0u16; 3];
        let mut parts = 0;
        for p in s.as_bytes().split(|&b| b == b'.') {
            if parts == n.len() || p.is_empty() || p.len() > 5 {
                return None;
            }
            let mut v = 0u32;
            for &b in p {
                if !b.is_ascii_digit() {
                    return None;
                }
                v = v * 10 + u32::from(b - b'0');
            }
            n[parts] = u16::try_from(v).ok()?;
            parts += 1;
        }
        if parts < 2 {
            return None;
        }
        Some(Version { major: n[0], minor: n[1], patch: n[2] })
    }

    /// Whether this is a v1.x file at or above `minor`.
    pub fn at_least_1(&self, minor: u16) -> bool {
        self.major == 1 && self.minor >= minor
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.major == 0 {
            write!(f, "{}.{}", self.major, self.minor)
        } else if self.major >= 2 {
            // v2 has one version number (the footer's).
            write!(f, "{}", self.major)
        } else {
            write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtype_names_round_trip() {
        for d in DType::ALL {
            assert_eq!(DType::from_name(d.name()), Some(d));
        }
        assert_eq!(DType::from_name("float32"), None);
        assert_eq!(DType::from_v0_1("bfloat16"), Some(DType::BF16));
    }

    #[test]
    fn v1_1_dtypes_normalize() {
        assert_eq!(DType::from_v1_1("f8_e4m3"), Some((DType::U8, Some(LogicalType::F8E4M3Fn))));
        assert_eq!(DType::from_v1_1("complex128"), Some((DType::F64, Some(LogicalType::Complex128))));
        assert_eq!(DType::from_v1_1("i16"), Some((DType::I16, None)));
        assert_eq!(DType::from_v1_1("f8"), None);
    }

    /// `div_pow2` / `rem_pow2` divide by widths and by width x ratio.
    #[test]
    fn widths_and_ratios_are_powers_of_two() {
        use LogicalType as L;
        let all = [L::F8E4M3Fn, L::F8E5M2, L::F8E4M3Fnuz, L::F8E5M2Fnuz, L::Complex64, L::Complex128, L::Bool, L::F8E8M0, L::F4E2M1, L::Other("x")];
        for d in DType::ALL {
            for t in all {
                let per = d.width() * t.ratio().unwrap_or(1);
                assert!(per.is_power_of_two(), "{d:?} {t:?}");
                for n in [0, 1, 7, 8, 9, 4096, u64::MAX] {
                    assert_eq!(div_pow2(n, per), n / per);
                    assert_eq!(rem_pow2(n, per), n % per);
                }
            }
        }
    }

    #[test]
    fn versions() {
        assert_eq!(Version::parse("1.2.0"), Some(Version { major: 1, minor: 2, patch: 0 }));
        assert_eq!(Version::parse("1.1"), Some(Version { major: 1, minor: 1, patch: 0 }));
        assert_eq!(Version::parse("65535.0.65535"), Some(Version { major: 65535, minor: 0, patch: 65535 }));
        assert_eq!(Version::parse("00001.02"), Some(Version { major: 1, minor: 2, patch: 0 }));
        for bad in ["", ".", "1", "1.", ".1", "1..2", "1.x", "1.2.3.4", "1.2.", "+1.2", "1.2.-3", "1.2 ", "65536.0", "1.000000", "99999999.0", "1\u{0660}.2"] {
            assert_eq!(Version::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn logical_types() {
        assert_eq!(LogicalType::parse("complex64").ratio(), Some(2));
        assert_eq!(LogicalType::parse("f8_e5m2fnuz").storage(), Some(DType::U8));
        assert_eq!(LogicalType::parse("int4"), LogicalType::Other("int4"));
        assert_eq!(LogicalType::parse("int4").ratio(), None);
    }
}
