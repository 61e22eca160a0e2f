//! Element conversion: decoded component elements as `f32` or `f64`,
//! whatever their storage type (floats, bfloat16, integers, bool, FP8).
//!
//! Halves, bfloat16, FP8 and bool widen exactly; `f64` and integers wider
//! than the target's mantissa round to nearest (ties to even), as a cast
//! does. NaNs keep their sign and payload where the target can hold them
//! (bit operations: a float cast may change a NaN's sign or payload);
//! `f64` NaNs narrowed to `f32` are quieted, as the hardware conversion
//! does. Complex components convert part by part (interleaved `[re, im]`).
//!
//! ```
//! use ztensor::cast::{to_f32, Source};
//! use ztensor::DType;
//! let halves = [0x00, 0x3c, 0x00, 0xc0]; // f16 1.0, -2.0 (little-endian)
//! let mut out = [0f32; 2];
//! assert_eq!(to_f32(Source::Plain(DType::F16), &halves, &mut out)?, 2);
//! assert_eq!(out, [1.0, -2.0]);
//! # Ok::<(), ztensor::Error>(())
//! ```

use crate::error::{Error, ErrorKind, Result};
use crate::object::Component;
use crate::types::{DType, LogicalType};
use zerocopy::IntoBytes;

/// What a component's stored elements are, for conversion: a storage dtype
/// taken at face value, or an FP8 format stored in `u8`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Elements of this dtype (complex parts included).
    Plain(DType),
    /// FP8 E4M3 (OCP "fn": no infinities, NaN is `S.1111.111`).
    F8E4M3Fn,
    /// FP8 E5M2 (OCP: IEEE-like, the top byte of an `f16`).
    F8E5M2,
    /// FP8 E4M3 "fnuz" (bias 8; `0x80` is the only NaN, no negative zero).
    F8E4M3Fnuz,
    /// FP8 E5M2 "fnuz" (bias 16; `0x80` is the only NaN, no negative zero).
    F8E5M2Fnuz,
}

impl Source {
    /// The source for elements of `dtype` with logical type `logical`;
    /// `None` for a logical type this library does not know (what its
    /// elements mean is unknown, so no conversion is right), and for v2's
    /// `f8_e8m0` and packed `f4_e2m1`, which this conversion does not cover.
    pub fn of(dtype: DType, logical: Option<LogicalType<'_>>) -> Option<Source> {
        Some(match logical {
            None | Some(LogicalType::Complex64 | LogicalType::Complex128) => Source::Plain(dtype),
            Some(LogicalType::F8E4M3Fn) => Source::F8E4M3Fn,
            Some(LogicalType::F8E5M2) => Source::F8E5M2,
            Some(LogicalType::F8E4M3Fnuz) => Source::F8E4M3Fnuz,
            Some(LogicalType::F8E5M2Fnuz) => Source::F8E5M2Fnuz,
            Some(LogicalType::Bool) => Source::Plain(DType::Bool),
            Some(LogicalType::F8E8M0 | LogicalType::F4E2M1 | LogicalType::Other(_)) => return None,
        })
    }

    /// Bytes per stored element.
    pub const fn width(self) -> usize {
        match self {
            Source::Plain(d) => d.width() as usize,
            _ => 1,
        }
    }
}

/// Convert little-endian elements `src` of kind `from` into `out`; returns
/// the number of elements. Errors: `src` is not whole elements
/// ([`ErrorKind::PartialElement`]), `out` is too short
/// ([`ErrorKind::BufferTooSmall`], in bytes), a bool byte other than 0 or 1
/// ([`ErrorKind::BadData`]).
pub fn to_f32(from: Source, src: &[u8], out: &mut [f32]) -> Result<usize> {
    convert_into(from, DType::F32, src, out.as_mut_bytes())
}

/// [`to_f32`] into `f64` elements.
pub fn to_f64(from: Source, src: &[u8], out: &mut [f64]) -> Result<usize> {
    convert_into(from, DType::F64, src, out.as_mut_bytes())
}

/// Convert little-endian elements `src` of kind `from` into `out` as `to`
/// (`F32` or `F64`) elements in host byte order, whatever `out`'s
/// alignment; returns the number of elements. [`ErrorKind::TypeMismatch`]
/// for another target; otherwise the errors of [`to_f32`].
pub fn convert_into(from: Source, to: DType, src: &[u8], out: &mut [u8]) -> Result<usize> {
    let width = from.width();
    if src.len() % width != 0 {
        return Err(Error::new(ErrorKind::PartialElement { length: src.len() as u64, width: width as u64 }));
    }
    let n = src.len() / width;
    let needed = n as u64 * to.width();
    if !matches!(to, DType::F32 | DType::F64) {
        return Err(Error::new(ErrorKind::TypeMismatch));
    }
    let out = out.get_mut(..needed as usize).ok_or(Error::new(ErrorKind::BufferTooSmall { needed }))?;
    if from == Source::Plain(DType::Bool) && src.iter().any(|&b| b > 1) {
        return Err(Error::new(ErrorKind::BadData { what: "bool byte other than 0 or 1" }));
    }
    if to == DType::F32 {
        convert::<f32>(from, src, out);
    } else {
        convert::<f64>(from, src, out);
    }
    Ok(n)
}

/// A conversion target.
trait Target: Copy {
    const SIZE: usize;
    /// Exact: every `f32` value (NaN payload included) fits both targets.
    fn from_f32(x: f32) -> Self;
    fn from_f64(x: f64) -> Self;
    fn from_i64(x: i64) -> Self;
    fn from_u64(x: u64) -> Self;
    fn put(self, out: &mut [u8]);
}

impl Target for f32 {
    const SIZE: usize = 4;
    fn from_f32(x: f32) -> Self {
        x
    }
    fn from_f64(x: f64) -> Self {
        let b = x.to_bits();
        if x.is_nan() {
            // Sign, quiet bit and the payload's top bits, by bit operations.
            return f32::from_bits((b >> 32) as u32 & 0x8000_0000 | 0x7fc0_0000 | (b >> 29) as u32 & 0x007f_ffff);
        }
        x as f32
    }
    fn from_i64(x: i64) -> Self {
        x as f32
    }
    fn from_u64(x: u64) -> Self {
        x as f32
    }
    fn put(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_ne_bytes());
    }
}

impl Target for f64 {
    const SIZE: usize = 8;
    fn from_f32(x: f32) -> Self {
        crate::cbor::f32_to_f64(x)
    }
    fn from_f64(x: f64) -> Self {
        x
    }
    fn from_i64(x: i64) -> Self {
        x as f64
    }
    fn from_u64(x: u64) -> Self {
        x as f64
    }
    fn put(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_ne_bytes());
    }
}

/// Apply `f` to each `W`-byte element of `src`, writing targets to `out`.
fn each<T: Target, const W: usize>(src: &[u8], out: &mut [u8], f: impl Fn([u8; W]) -> T) {
    for (s, d) in src.chunks_exact(W).zip(out.chunks_exact_mut(T::SIZE)) {
        let mut e = [0u8; W];
        e.copy_from_slice(s);
        f(e).put(d);
    }
}

/// The conversion loop for one source kind (sizes checked by the caller).
fn convert<T: Target>(from: Source, src: &[u8], out: &mut [u8]) {
    match from {
        Source::Plain(DType::F64) => each(src, out, |b| T::from_f64(f64::from_le_bytes(b))),
        Source::Plain(DType::F32) => each(src, out, |b| T::from_f32(f32::from_le_bytes(b))),
        Source::Plain(DType::F16) => each(src, out, |b| T::from_f32(f16_to_f32(u16::from_le_bytes(b)))),
        Source::Plain(DType::BF16) => each(src, out, |b| T::from_f32(bf16_to_f32(u16::from_le_bytes(b)))),
        // An integer converts with one rounding whatever its width.
        Source::Plain(DType::I64) => each(src, out, |b| T::from_i64(i64::from_le_bytes(b))),
        Source::Plain(DType::I32) => each(src, out, |b| T::from_i64(i32::from_le_bytes(b).into())),
        Source::Plain(DType::I16) => each(src, out, |b| T::from_i64(i16::from_le_bytes(b).into())),
        Source::Plain(DType::I8) => each(src, out, |b: [u8; 1]| T::from_i64((b[0] as i8).into())),
        Source::Plain(DType::U64) => each(src, out, |b| T::from_u64(u64::from_le_bytes(b))),
        Source::Plain(DType::U32) => each(src, out, |b| T::from_u64(u32::from_le_bytes(b).into())),
        Source::Plain(DType::U16) => each(src, out, |b| T::from_u64(u16::from_le_bytes(b).into())),
        Source::Plain(DType::U8 | DType::Bool) => each(src, out, |b: [u8; 1]| T::from_u64(b[0].into())),
        Source::F8E4M3Fn => each(src, out, |b: [u8; 1]| T::from_f32(f8_e4m3fn(b[0]))),
        Source::F8E5M2 => each(src, out, |b: [u8; 1]| T::from_f32(f16_to_f32(u16::from(b[0]) << 8))),
        Source::F8E4M3Fnuz => each(src, out, |b: [u8; 1]| T::from_f32(fnuz(b[0], 3, 8))),
        Source::F8E5M2Fnuz => each(src, out, |b: [u8; 1]| T::from_f32(fnuz(b[0], 2, 16))),
    }
}

/// An IEEE binary16 value (a NaN keeps its sign and payload).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exp = u32::from(h >> 10) & 0x1f;
    let man = u32::from(h) & 0x3ff;
    let bits = match exp {
        0 if man == 0 => sign,
        0 => {
            // Subnormal: man × 2^-24, normalized around its top bit `p`.
            let p = 31 - man.leading_zeros();
            sign | (p + 103) << 23 | (man << (23 - p)) & 0x7f_ffff
        }
        31 => sign | 0x7f80_0000 | man << 13,
        _ => sign | (exp + 112) << 23 | man << 13,
    };
    f32::from_bits(bits)
}

/// The binary16 bits of the `f32` with bits `bits` when binary16 holds it
/// exactly (a NaN: when its payload fits in 10 bits; sign and payload
/// kept): the one candidate, checked by widening it back.
pub(crate) fn f16_exact(bits: u32) -> Option<u16> {
    let sign = (bits >> 16) as u16 & 0x8000;
    let (exp, man) = ((bits >> 23 & 0xff) as i32 - 127, bits & 0x7f_ffff);
    let h = match exp {
        128 => 0x7c00 | (man >> 13) as u16,
        -14..=15 => ((exp + 15) as u16) << 10 | (man >> 13) as u16,
        // A binary16 subnormal: m × 2^-24.
        -24..=-15 => ((man | 0x80_0000) >> (-1 - exp)) as u16,
        _ => 0,
    };
    (f16_to_f32(sign | h).to_bits() == bits).then_some(sign | h)
}

/// A bfloat16 value: the top half of an `f32`.
pub fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits(u32::from(h) << 16)
}

/// `2^e` for the small exponents FP8 uses.
fn pow2(e: i32) -> f32 {
    f32::from_bits(((e + 127) as u32) << 23)
}

/// A finite FP8 value from its fields: `man_bits` mantissa bits, exponent bias `bias`.
fn minifloat(b: u8, man_bits: u32, bias: i32) -> f32 {
    let exp = i32::from(b & 0x7f) >> man_bits;
    let man = u32::from(b) & ((1 << man_bits) - 1);
    let mag = if exp == 0 {
        man as f32 * pow2(1 - bias - man_bits as i32)
    } else {
        (man | 1 << man_bits) as f32 * pow2(exp - bias - man_bits as i32)
    };
    if b & 0x80 != 0 {
        -mag
    } else {
        mag
    }
}

/// FP8 E4M3 "fn": bias 7, no infinities, `S.1111.111` is NaN.
fn f8_e4m3fn(b: u8) -> f32 {
    if b & 0x7f == 0x7f {
        return f32::from_bits(u32::from(b & 0x80) << 24 | 0x7fc0_0000);
    }
    minifloat(b, 3, 7)
}

/// FP8 "fnuz" formats: `0x80` (what would be negative zero) is the only NaN.
fn fnuz(b: u8, man_bits: u32, bias: i32) -> f32 {
    if b == 0x80 {
        return f32::NAN;
    }
    minifloat(b, man_bits, bias)
}

impl<'a> Component<'a> {
    /// How conversion reads this component's elements
    /// ([`ErrorKind::Unsupported`] for an unknown logical type).
    pub fn source(&self) -> Result<Source> {
        Source::of(self.dtype, self.logical_type())
            .ok_or_else(|| self.error(ErrorKind::Unsupported { what: "converting elements of an unknown logical type" }))
    }

    /// Decode and convert every element to `f32` (see the module docs).
    #[cfg(feature = "alloc")]
    pub fn to_f32_vec(&self) -> Result<alloc::vec::Vec<f32>> {
        let from = self.source()?;
        let bytes = self.to_vec()?;
        let mut v = alloc::vec![0f32; bytes.len() / from.width()];
        to_f32(from, &bytes, &mut v).map_err(|e| e.in_component(self.role))?;
        Ok(v)
    }

    /// Decode and convert every element to `f64` (see the module docs).
    #[cfg(feature = "alloc")]
    pub fn to_f64_vec(&self) -> Result<alloc::vec::Vec<f64>> {
        let from = self.source()?;
        let bytes = self.to_vec()?;
        let mut v = alloc::vec![0f64; bytes.len() / from.width()];
        to_f64(from, &bytes, &mut v).map_err(|e| e.in_component(self.role))?;
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(from: Source, bytes: &[u8]) -> f32 {
        let mut out = [0f32; 1];
        assert_eq!(to_f32(from, bytes, &mut out).unwrap(), 1);
        out[0]
    }

    fn fp8(from: Source, b: u8) -> f32 {
        one(from, &[b])
    }

    #[test]
    fn f16_widens_exactly_every_value() {
        for h in 0..=u16::MAX {
            let ours = f16_to_f32(h);
            let reference = crate::cbor::f16_to_f64(h);
            if reference.is_nan() {
                assert!(ours.is_nan(), "{h:#x}");
                assert_eq!(ours.to_bits() >> 31, u32::from(h >> 15), "sign of {h:#x}");
                assert_eq!(ours.to_bits() & 0x7f_ffff, u32::from(h & 0x3ff) << 13, "payload of {h:#x}");
            } else {
                assert_eq!(ours as f64, reference, "{h:#x}");
                assert_eq!(ours.is_sign_negative(), reference.is_sign_negative(), "{h:#x}");
            }
        }
    }

    /// Every binary16 value narrows back from its f32, and an f32 narrows
    /// exactly when `half` (the reference) round-trips it.
    #[test]
    fn f16_narrows_exactly_what_it_holds() {
        for h in 0..=u16::MAX {
            assert_eq!(f16_exact(f16_to_f32(h).to_bits()), Some(h), "{h:#x}");
        }
        let mut x: u32 = 0x2545_f491;
        for i in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            // Random bits, and random f16 neighbourhoods (low bits cleared).
            let bits = if i % 2 == 0 { x } else { x & !0x1fff };
            let f = f32::from_bits(bits);
            let reference = half::f16::from_f32(f);
            let exact = !f.is_nan() && reference.to_f32().to_bits() == bits;
            if !f.is_nan() {
                assert_eq!(f16_exact(bits), exact.then_some(reference.to_bits()), "{bits:#x}");
            }
        }
    }

    #[test]
    fn bf16_is_the_top_half() {
        assert_eq!(bf16_to_f32(0x3f80), 1.0);
        assert_eq!(bf16_to_f32(0xc040), -3.0);
        assert_eq!(one(Source::Plain(DType::BF16), &[0x80, 0x3f]), 1.0);
    }

    #[test]
    fn fp8_known_values() {
        use Source::*;
        // E4M3FN: 1.0, -1.0, max 448, min normal 2^-6, min subnormal 2^-9, -0, NaN both signs.
        assert_eq!(fp8(F8E4M3Fn, 0x38), 1.0);
        assert_eq!(fp8(F8E4M3Fn, 0xb8), -1.0);
        assert_eq!(fp8(F8E4M3Fn, 0x7e), 448.0);
        assert_eq!(fp8(F8E4M3Fn, 0x08), (1.0 / (1u64 << 6) as f32));
        assert_eq!(fp8(F8E4M3Fn, 0x01), (1.0 / (1u64 << 9) as f32));
        assert_eq!(fp8(F8E4M3Fn, 0x80).to_bits(), (-0.0f32).to_bits());
        assert!(fp8(F8E4M3Fn, 0x7f).is_nan() && fp8(F8E4M3Fn, 0xff).is_nan());
        assert!(fp8(F8E4M3Fn, 0xff).is_sign_negative());
        // E5M2: 1.0, max 57344, infinities, NaN, min subnormal 2^-16.
        assert_eq!(fp8(F8E5M2, 0x3c), 1.0);
        assert_eq!(fp8(F8E5M2, 0x7b), 57344.0);
        assert_eq!(fp8(F8E5M2, 0x7c), f32::INFINITY);
        assert_eq!(fp8(F8E5M2, 0xfc), f32::NEG_INFINITY);
        assert!(fp8(F8E5M2, 0x7d).is_nan());
        assert_eq!(fp8(F8E5M2, 0x01), (1.0 / (1u64 << 16) as f32));
        // E4M3FNUZ: 1.0 = 0x40, max 240, min subnormal 2^-10, 0x80 NaN.
        assert_eq!(fp8(F8E4M3Fnuz, 0x40), 1.0);
        assert_eq!(fp8(F8E4M3Fnuz, 0x7f), 240.0);
        assert_eq!(fp8(F8E4M3Fnuz, 0xff), -240.0);
        assert_eq!(fp8(F8E4M3Fnuz, 0x01), (1.0 / (1u64 << 10) as f32));
        assert!(fp8(F8E4M3Fnuz, 0x80).is_nan());
        // E5M2FNUZ: 1.0 = 0x40, max 57344, min subnormal 2^-17, 0x80 NaN.
        assert_eq!(fp8(F8E5M2Fnuz, 0x40), 1.0);
        assert_eq!(fp8(F8E5M2Fnuz, 0x7f), 57344.0);
        assert_eq!(fp8(F8E5M2Fnuz, 0x01), (1.0 / (1u64 << 17) as f32));
        assert!(fp8(F8E5M2Fnuz, 0x80).is_nan());
    }

    #[test]
    fn fp8_codes_increase_and_mirror() {
        // Positive codes decode in increasing order up to the first NaN or
        // infinity, and each negative code is its positive code negated.
        for from in [Source::F8E4M3Fn, Source::F8E5M2, Source::F8E4M3Fnuz, Source::F8E5M2Fnuz] {
            let mut last = -1.0f32;
            for b in 0..0x80u8 {
                let v = fp8(from, b);
                if !v.is_finite() {
                    break;
                }
                assert!(v > last, "{from:?} {b:#x}: {v} after {last}");
                last = v;
                if b != 0 || !matches!(from, Source::F8E4M3Fnuz | Source::F8E5M2Fnuz) {
                    assert_eq!(fp8(from, b | 0x80).to_bits(), (-v).to_bits(), "{from:?} {b:#x}");
                }
            }
        }
    }

    #[test]
    fn integers_and_wide_floats_round_to_nearest() {
        assert_eq!(one(Source::Plain(DType::I8), &[0xff]), -1.0);
        assert_eq!(one(Source::Plain(DType::U8), &[0xff]), 255.0);
        assert_eq!(one(Source::Plain(DType::I16), &(-300i16).to_le_bytes()), -300.0);
        assert_eq!(one(Source::Plain(DType::U16), &60000u16.to_le_bytes()), 60000.0);
        assert_eq!(one(Source::Plain(DType::I32), &16_777_217i32.to_le_bytes()), 16_777_216.0);
        assert_eq!(one(Source::Plain(DType::U32), &u32::MAX.to_le_bytes()), 4_294_967_296.0);
        assert_eq!(one(Source::Plain(DType::I64), &i64::MIN.to_le_bytes()), -9.223372e18);
        assert_eq!(one(Source::Plain(DType::U64), &u64::MAX.to_le_bytes()), 1.8446744e19);
        assert_eq!(one(Source::Plain(DType::F64), &0.1f64.to_le_bytes()), 0.1f32);
        assert_eq!(one(Source::Plain(DType::F64), &1e300f64.to_le_bytes()), f32::INFINITY);
        // An f64 NaN keeps its sign and top payload bits, quieted.
        let nan = f64::from_bits(0xfff0_0000_2000_0000 | 1 << 51);
        assert_eq!(one(Source::Plain(DType::F64), &nan.to_le_bytes()).to_bits(), 0xffc0_0001);
        // Integers go to f64 exactly where f64 holds them.
        let mut wide = [0f64; 1];
        to_f64(Source::Plain(DType::I32), &16_777_217i32.to_le_bytes(), &mut wide).unwrap();
        assert_eq!(wide[0], 16_777_217.0);
        let h = 0xfd01u16; // an f16 NaN with a payload: f64 keeps it
        to_f64(Source::Plain(DType::F16), &h.to_le_bytes(), &mut wide).unwrap();
        assert_eq!(wide[0].to_bits(), 0xfff4_0400_0000_0000);
    }

    #[test]
    fn bool_is_zero_or_one() {
        let mut out = [0f32; 3];
        assert_eq!(to_f32(Source::Plain(DType::Bool), &[0, 1, 1], &mut out).unwrap(), 3);
        assert_eq!(out, [0.0, 1.0, 1.0]);
        let e = to_f32(Source::Plain(DType::Bool), &[0, 2, 1], &mut out).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::BadData { .. }));
    }

    #[test]
    fn sizes_are_checked() {
        let mut out = [0f32; 1];
        let e = to_f32(Source::Plain(DType::F16), &[0, 0, 0], &mut out).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::PartialElement { length: 3, width: 2 });
        let e = to_f32(Source::Plain(DType::F16), &[0, 0, 0, 0], &mut out).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BufferTooSmall { needed: 8 });
        let mut bytes = [0u8; 16];
        let e = convert_into(Source::Plain(DType::F16), DType::I32, &[0, 0], &mut bytes).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::TypeMismatch);
        // Unaligned output: host-order bytes anywhere.
        assert_eq!(convert_into(Source::Plain(DType::F16), DType::F32, &[0, 0x3c], &mut bytes[1..5]).unwrap(), 1);
        assert_eq!(f32::from_ne_bytes(bytes[1..5].try_into().unwrap()), 1.0);
    }

    #[test]
    fn sources_follow_the_logical_type() {
        assert_eq!(Source::of(DType::U8, Some(LogicalType::F8E5M2)), Some(Source::F8E5M2));
        assert_eq!(Source::of(DType::F32, Some(LogicalType::Complex64)), Some(Source::Plain(DType::F32)));
        assert_eq!(Source::of(DType::U8, Some(LogicalType::Other("mx4"))), None);
        assert_eq!(Source::of(DType::BF16, None), Some(Source::Plain(DType::BF16)));
    }

    #[cfg(feature = "alloc")]
    #[test]
    fn components_convert_from_a_file() {
        let file = crate::File::parse(crate::doc_example_file()).unwrap();
        let w = file.require("weight").unwrap().data().unwrap();
        assert_eq!(w.to_f32_vec().unwrap(), [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(w.to_f64_vec().unwrap(), [1.0, 2.0, 3.0, 4.0]);
    }
}
