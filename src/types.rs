//! The type system: storage dtypes, logical types, encodings, formats, versions.

use core::fmt;

/// Container generation of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// `ZTEN1000`: manifest is a CBOR map, footer = size + magic.
    V1,
    /// `ZTEN0001`: manifest is a CBOR array, trailer = size only.
    V0,
    /// Format v2: the v2 magic at both ends, a 40-byte footer, a deterministic CBOR manifest.
    V2,
}

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

/// An enum's names, its one copy: packed into one string, each ended by a
/// NUL (`concat!`), with the offset where each starts and one more (the
/// end). A name by its index is a slice of the list ([`Names::get`]);
/// parsing compares with each ([`Names::find`]).
pub(crate) struct Names {
    list: &'static str,
    starts: &'static [u8],
}

/// The [`Names`] of the given literals, in order.
macro_rules! packed {
    ($($s:literal),* $(,)?) => {{
        const LIST: &str = concat!($($s, "\0"),*);
        $crate::types::Names::new(LIST, &$crate::types::starts::<{ [$($s),*].len() + 1 }>(LIST))
    }};
}
pub(crate) use packed;

/// Where each name of `list` starts (after the previous one's NUL), and the
/// list's end: `M` is one more than the number of names.
pub(crate) const fn starts<const M: usize>(list: &str) -> [u8; M] {
    let b = list.as_bytes();
    assert!(b.len() <= u8::MAX as usize);
    let (mut out, mut k, mut i) = ([0u8; M], 1, 0);
    while i < b.len() {
        if b[i] == 0 {
            out[k] = i as u8 + 1;
            k += 1;
        }
        i += 1;
    }
    assert!(k == M);
    out
}

impl Names {
    pub(crate) const fn new(list: &'static str, starts: &'static [u8]) -> Self {
        Names { list, starts }
    }

    /// The name at `i` (`""` past the end).
    #[cfg_attr(feature = "alloc", inline(always))]
    pub(crate) fn get(&self, i: usize) -> &'static str {
        let at = |k: usize| self.starts.get(k).map_or(0, |&s| s as usize);
        self.list.get(at(i)..at(i + 1).saturating_sub(1)).unwrap_or("")
    }

    /// The index of the name `b` (with `alloc`, inlined: over a constant
    /// list, as fast as a `match` on the names).
    #[cfg_attr(feature = "alloc", inline(always))]
    pub(crate) fn find(&self, b: &[u8]) -> Option<usize> {
        // (With `alloc`, first bytes before the call comparing the rest;
        // firmware makes only the call: shorter code, its flash budget.)
        let first = |n: &[u8]| !cfg!(feature = "alloc") || n.first() == b.first();
        (0..self.starts.len() - 1).find(|&i| {
            let n = self.get(i).as_bytes();
            n.len() == b.len() && first(n) && n == b
        })
    }

    /// Every name, at compile time (a table of them for a `const fn`).
    pub(crate) const fn all<const N: usize>(&self) -> [&'static str; N] {
        assert!(N + 1 == self.starts.len());
        let (mut out, mut i) = ([""; N], 0);
        while i < N {
            let (head, _) = self.list.as_bytes().split_at(self.starts[i + 1] as usize - 1);
            out[i] = match core::str::from_utf8(head.split_at(self.starts[i] as usize).1) {
                Ok(s) => s,
                Err(_) => panic!("names are UTF-8"),
            };
            i += 1;
        }
        out
    }
}

/// `n / d` for a `d` that is a power of two (an element width, or a width
/// times a logical type's ratio): a shift, so that 32-bit targets link no
/// 64-bit division routine (0.9 KiB of firmware).
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
        // (A table in the order of [`Self::ALL`], not a `match`: firmware flash.)
        const WIDTHS: [u8; 13] = [8, 4, 2, 2, 8, 4, 2, 1, 8, 4, 2, 1, 1];
        WIDTHS[self as usize] as u64
    }

    /// The v1.2 names, in the order of [`Self::ALL`].
    const NAMES: Names = packed!("f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "u64", "u32", "u16", "u8", "bool");

    /// The v1.2 name (`"f32"`, `"u8"`, ...).
    pub fn name(self) -> &'static str {
        Self::NAMES.get(self as usize)
    }

    /// Parse a v1.2 name.
    pub fn from_name(s: &str) -> Option<DType> {
        Self::from_bytes(s.as_bytes())
    }

    /// Parse a v1.2 name given as bytes.
    pub fn from_bytes(s: &[u8]) -> Option<DType> {
        Self::NAMES.find(s).and_then(|i| Self::ALL.get(i).copied())
    }

    /// Parse a v1.1 `dtype`, which also named FP8 and complex types: those
    /// are normalized to the v1.2 storage type plus a logical type.
    pub fn from_v1_1(s: &str) -> Option<(DType, Option<LogicalType<'static>>)> {
        Self::from_v1_1_bytes(s.as_bytes())
    }

    pub(crate) fn from_v1_1_bytes(s: &[u8]) -> Option<(DType, Option<LogicalType<'static>>)> {
        use LogicalType as L;
        match LogicalType::known(s) {
            Some(t @ (L::F8E4M3Fn | L::F8E5M2 | L::Complex64 | L::Complex128)) => Some((t.storage()?, Some(t))),
            _ if s == b"f8_e4m3" => Some((DType::U8, Some(L::F8E4M3Fn))),
            _ => Some((DType::from_bytes(s)?, None)),
        }
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
        Self::known(s.as_bytes()).unwrap_or(LogicalType::Other(s))
    }

    /// The v1.x type named `s`: the first six of the registry.
    fn known(s: &[u8]) -> Option<Self> {
        LOGICAL.find(s).filter(|&i| i < 6).map(|i| KNOWN_LOGICAL[i])
    }

    /// The registered v2 logical type named `s` (v2 spec, Appendix A: all
    /// nine); `None` for any other name.
    pub fn v2(s: &str) -> Option<LogicalType<'static>> {
        LOGICAL.find(s.as_bytes()).map(|i| KNOWN_LOGICAL[i])
    }

    /// The v1.2 name.
    pub fn name(&self) -> &'a str {
        match *self {
            LogicalType::Other(s) => s,
            t => LOGICAL.get(KNOWN_LOGICAL.iter().position(|&k| k == t).unwrap_or(0)),
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

/// The known logical types, in the order of their names in [`LOGICAL`].
const KNOWN_LOGICAL: [LogicalType<'static>; 9] = {
    use LogicalType::*;
    [F8E4M3Fn, F8E5M2, F8E4M3Fnuz, F8E5M2Fnuz, Complex64, Complex128, Bool, F8E8M0, F4E2M1]
};

/// The known logical types' names, in declaration order: v1.x registers
/// the first six.
const LOGICAL: Names =
    packed!("f8_e4m3fn", "f8_e5m2", "f8_e4m3fnuz", "f8_e5m2fnuz", "complex64", "complex128", "bool", "f8_e8m0", "f4_e2m1");

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
        match s {
            b"raw" => Some(Encoding::Raw),
            b"zstd" => Some(Encoding::Zstd),
            _ => None,
        }
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
        Some(match FORMATS.find(s)? {
            0 => Format::Dense,
            1 => Format::SparseCsr,
            2 => Format::SparseCoo,
            3 => Format::QuantizedGroup,
            _ => return None,
        })
    }

    /// The manifest name.
    pub fn name(&self) -> &'a str {
        let i = match *self {
            Format::Dense => 0,
            Format::SparseCsr => 1,
            Format::SparseCoo => 2,
            Format::QuantizedGroup => 3,
            Format::Other(s) => return s,
        };
        FORMATS.get(i)
    }
}

/// The known formats' names, in declaration order.
const FORMATS: Names = packed!("dense", "sparse_csr", "sparse_coo", "quantized_group");

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
        let (mut n, mut parts, mut digits, mut v) = ([0u16; 3], 0, 0, 0u32);
        // Each part ends at a dot (one more after the last).
        for &b in s.as_bytes().iter().chain(b".") {
            if b != b'.' {
                if !b.is_ascii_digit() || digits == 5 {
                    return None;
                }
                (v, digits) = (v * 10 + u32::from(b - b'0'), digits + 1);
                continue;
            }
            if digits == 0 || parts == n.len() {
                return None;
            }
            n[parts] = u16::try_from(v).ok()?;
            (parts, digits, v) = (parts + 1, 0, 0);
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

    /// Each name as the spec spells it, read back where v1.x reads it
    /// (one packed list serves both).
    #[test]
    fn names_are_the_spec_s_and_parse_back() {
        use LogicalType as L;
        let dtypes = ["f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "u64", "u32", "u16", "u8", "bool"];
        for (d, n) in DType::ALL.into_iter().zip(dtypes) {
            assert_eq!((d.name(), DType::from_bytes(n.as_bytes())), (n, Some(d)));
        }
        let logical = [
            (L::F8E4M3Fn, "f8_e4m3fn"),
            (L::F8E5M2, "f8_e5m2"),
            (L::F8E4M3Fnuz, "f8_e4m3fnuz"),
            (L::F8E5M2Fnuz, "f8_e5m2fnuz"),
            (L::Complex64, "complex64"),
            (L::Complex128, "complex128"),
            (L::Bool, "bool"),
            (L::F8E8M0, "f8_e8m0"),
            (L::F4E2M1, "f4_e2m1"),
            (L::Other("int4"), "int4"),
        ];
        for (i, (t, n)) in logical.into_iter().enumerate() {
            assert_eq!((t.name(), L::parse(n)), (n, if i < 6 || i == 9 { t } else { L::Other(n) }));
            // v2 registers all nine (Appendix A), and nothing else.
            assert_eq!(L::v2(n), (i < 9).then_some(t));
        }
        let formats = [(Format::Dense, "dense"), (Format::SparseCsr, "sparse_csr"), (Format::SparseCoo, "sparse_coo"), (Format::QuantizedGroup, "quantized_group"), (Format::Other("x"), "x")];
        for (f, n) in formats {
            assert_eq!((f.name(), Format::parse(n)), (n, f));
        }
        for (e, n) in [(Encoding::Raw, "raw"), (Encoding::Zstd, "zstd")] {
            assert_eq!((e.name(), Encoding::from_name(n)), (n, Some(e)));
        }
        for bad in ["", "f6", "f64\0", "f64\0f32", "\0", "Raw", "zstd-seekable", "unknown"] {
            assert_eq!((DType::from_name(bad), Format::known(bad.as_bytes()), Encoding::from_name(bad)), (None, None, None), "{bad:?}");
            assert_eq!(L::parse(bad), L::Other(bad));
        }
    }

    #[test]
    fn v1_1_dtypes_normalize() {
        assert_eq!(DType::from_v1_1("f8_e4m3"), Some((DType::U8, Some(LogicalType::F8E4M3Fn))));
        assert_eq!(DType::from_v1_1("complex128"), Some((DType::F64, Some(LogicalType::Complex128))));
        assert_eq!(DType::from_v1_1("i16"), Some((DType::I16, None)));
        assert_eq!(DType::from_v1_1("f8"), None);
        assert_eq!(DType::from_v1_1("f8_e4m3fn"), Some((DType::U8, Some(LogicalType::F8E4M3Fn))));
        assert_eq!(DType::from_v1_1("f8_e5m2"), Some((DType::U8, Some(LogicalType::F8E5M2))));
        assert_eq!(DType::from_v1_1("complex64"), Some((DType::F32, Some(LogicalType::Complex64))));
        assert_eq!(DType::from_v1_1("bool"), Some((DType::Bool, None)));
        // v1.1 named no AMD FP8 dtype, nor v2's logical types.
        for t in ["f8_e4m3fnuz", "f8_e5m2fnuz", "f8_e8m0", "f4_e2m1"] {
            assert_eq!(DType::from_v1_1(t), None, "{t}");
        }
    }

    /// Each width is the bits its name says (`bool`: a byte).
    #[test]
    fn widths_are_the_names_bits() {
        for d in DType::ALL {
            let bits: u64 = d.name().trim_start_matches(|c: char| c.is_ascii_alphabetic()).parse().unwrap_or(8);
            assert_eq!(d.width() * 8, bits, "{d:?}");
        }
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
