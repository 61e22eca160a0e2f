//! CBOR encoding of the manifest with minicbor's `Encoder` on a `Vec`:
//! definite lengths, minimal integer heads, a fixed key order.

use crate::schema::{ComponentKey, ObjectKey, RootKey};
use crate::types::{DType, Encoding};
use alloc::string::String;
use alloc::vec::Vec;
use core::convert::Infallible;
use minicbor::data::{Int, Tag};
use minicbor::encode::Error;
use minicbor::Encoder;

/// The version this writer puts in `version`.
pub(crate) const VERSION: &str = "1.2.0";

/// The manifest bytes as minicbor's writer. minicbor's own `Write` for
/// `Vec` is an out-of-line call per item head; this one inlines.
pub(crate) struct Out<'a>(&'a mut Vec<u8>);

impl minicbor::encode::Write for Out<'_> {
    type Error = Infallible;

    #[inline(always)]
    fn write_all(&mut self, buf: &[u8]) -> Result<(), Infallible> {
        self.0.extend_from_slice(buf);
        Ok(())
    }
}

/// An encoder appending to `out` (writes cannot fail).
#[inline(always)]
pub(crate) fn cbor(out: &mut Vec<u8>) -> Encoder<Out<'_>> {
    Encoder::new(Out(out))
}

/// Writing into a `Vec` cannot fail: the error branch is dead code.
#[inline(always)]
fn done<T>(r: Result<T, Error<Infallible>>) {
    debug_assert!(r.is_ok());
    let _ = r;
}

#[inline]
pub(crate) fn uint(out: &mut Vec<u8>, v: u64) {
    done(cbor(out).u64(v));
}
#[inline]
pub(crate) fn text(out: &mut Vec<u8>, s: &str) {
    done(cbor(out).str(s));
}
pub(crate) fn bytes(out: &mut Vec<u8>, b: &[u8]) {
    done(cbor(out).bytes(b));
}
#[inline]
pub(crate) fn map(out: &mut Vec<u8>, n: u64) {
    done(cbor(out).map(n));
}
#[inline]
pub(crate) fn array(out: &mut Vec<u8>, n: u64) {
    done(cbor(out).array(n));
}
pub(crate) fn tag(out: &mut Vec<u8>, t: u64) {
    done(cbor(out).tag(Tag::new(t)));
}
pub(crate) fn bool(out: &mut Vec<u8>, b: bool) {
    done(cbor(out).bool(b));
}
pub(crate) fn null(out: &mut Vec<u8>) {
    done(cbor(out).null());
}
/// A negative integer `-1 - n` (major type 1).
pub(crate) fn negint(out: &mut Vec<u8>, n: u64) {
    // -1 - n for any u64 n is within CBOR's integer range.
    done(cbor(out).int(Int::try_from(-1 - n as i128).expect("CBOR negative integer")));
}

/// A float in the shortest width that keeps its exact bits (f16, f32 or
/// f64), as the reference writer does. NaNs are narrowed with bit
/// operations: a float cast may change a NaN's sign or payload.
pub(crate) fn float(out: &mut Vec<u8>, x: f64) {
    match f64_to_f32_exact(x) {
        Some(f) => match crate::cast::f16_exact(f) {
            // The head and the bits as they are: minicbor's `f16` takes an
            // f32 and converts it again (which quiets NaNs).
            Some(h) => out.extend_from_slice(&[0xf9, (h >> 8) as u8, h as u8]),
            None => done(cbor(out).f32(f32::from_bits(f))),
        },
        None => done(cbor(out).f64(x)),
    }
}

/// The f32 bits of `x` when f32 holds it exactly (a NaN: sign and payload).
fn f64_to_f32_exact(x: f64) -> Option<u32> {
    let b = x.to_bits();
    if x.is_nan() {
        // Payload bits below f32's 23-bit mantissa must be zero.
        let sign = (b >> 32) as u32 & 0x8000_0000;
        return (b & ((1u64 << 29) - 1) == 0).then_some(sign | 0x7f80_0000 | (b >> 29) as u32 & 0x007f_ffff);
    }
    let f = x as f32;
    ((f as f64).to_bits() == b).then_some(f.to_bits())
}

/// Total length of `parts` as CBOR text items (each shorter than 24 bytes).
const fn items_len(parts: &[&str]) -> usize {
    let (mut n, mut i) = (0, 0);
    while i < parts.len() {
        n += 1 + parts[i].len();
        i += 1;
    }
    n
}

/// `parts` as CBOR text items back to back, built at compile time from the
/// schema's names (one-byte heads: every name is shorter than 24 bytes).
const fn text_items<const N: usize>(parts: &[&str]) -> [u8; N] {
    let mut out = [0u8; N];
    let (mut at, mut i) = (0, 0);
    while i < parts.len() {
        let s = parts[i].as_bytes();
        assert!(s.len() < 24, "a key longer than a one-byte head");
        out[at] = 0x60 | s.len() as u8;
        at += 1;
        let mut j = 0;
        while j < s.len() {
            out[at] = s[j];
            at += 1;
            j += 1;
        }
        i += 1;
    }
    assert!(at == N);
    out
}

/// `const NAME: &[u8; N]`: the text items of the given names.
macro_rules! items {
    ($($K:ident = [$($s:expr),+];)*) => {$(
        const $K: &[u8; items_len(&[$($s),+])] = &text_items(&[$($s),+]);
    )*};
}

// Keys as encoded text items: fixed-size copies, no `memcpy` call per key.
items! {
    K_SHAPE = [ObjectKey::Shape.name()];
    K_FORMAT = [ObjectKey::Format.name()];
    K_ATTRIBUTES = [ObjectKey::Attributes.name()];
    K_COMPONENTS = [ObjectKey::Components.name()];
    K_DTYPE = [ComponentKey::DType.name()];
    K_TYPE = [ComponentKey::Type.name()];
    K_OFFSET = [ComponentKey::Offset.name()];
    K_LENGTH = [ComponentKey::Length.name()];
    K_ULEN = [ComponentKey::UncompressedLength.name()];
    K_ENCODING_RAW = [ComponentKey::Encoding.name(), Encoding::Raw.name()];
    K_ENCODING_ZSTD = [ComponentKey::Encoding.name(), Encoding::Zstd.name()];
    K_DIGEST = [ComponentKey::Digest.name()];
}

/// What the manifest says about one component, besides its role and
/// logical type (which the caller's component holds).
#[derive(Clone, Debug)]
pub(crate) struct CompMeta {
    pub dtype: DType,
    pub offset: u64,
    pub length: u64,
    /// `Some` for zstd components: the decoded size.
    pub zstd_len: Option<u64>,
    pub digest: Option<String>,
}

impl Default for CompMeta {
    fn default() -> Self {
        CompMeta { dtype: DType::U8, offset: 0, length: 0, zstd_len: None, digest: None }
    }
}

/// Encode a component map. Key order: `dtype`, `type`, `offset`, `length`,
/// `uncompressed_length`, `encoding`, `digest`, then `extra` (raw key/value
/// pairs kept from an appended file).
pub(crate) fn component(out: &mut Vec<u8>, c: &CompMeta, ltype: Option<&str>, extra: &[(&[u8], &[u8])]) {
    let n = 4 + ltype.is_some() as u64 + c.zstd_len.is_some() as u64 + c.digest.is_some() as u64;
    map(out, n + extra.len() as u64);
    out.extend_from_slice(K_DTYPE);
    text(out, c.dtype.name());
    if let Some(t) = ltype {
        out.extend_from_slice(K_TYPE);
        text(out, t);
    }
    out.extend_from_slice(K_OFFSET);
    uint(out, c.offset);
    out.extend_from_slice(K_LENGTH);
    uint(out, c.length);
    if let Some(u) = c.zstd_len {
        out.extend_from_slice(K_ULEN);
        uint(out, u);
        out.extend_from_slice(K_ENCODING_ZSTD);
    } else {
        out.extend_from_slice(K_ENCODING_RAW);
    }
    if let Some(d) = &c.digest {
        out.extend_from_slice(K_DIGEST);
        text(out, d);
    }
    raw_pairs(out, extra);
}

fn raw_pairs(out: &mut Vec<u8>, pairs: &[(&[u8], &[u8])]) {
    for (k, v) in pairs {
        out.extend_from_slice(k);
        out.extend_from_slice(v);
    }
}

/// Encode one entry of `objects`: the name, then the object map with keys
/// `shape`, `format`, `attributes` (when given), `components`, then `extra`.
/// Component `i` is `comps[i]` with role and logical type `names(i)`;
/// `comp_extra[i]` follows its known keys.
#[allow(clippy::too_many_arguments)]
pub(crate) fn object<'r>(
    out: &mut Vec<u8>,
    name: &str,
    shape: &[u64],
    format: &str,
    attributes: Option<&[u8]>,
    comps: &[CompMeta],
    names: impl Fn(usize) -> (&'r str, Option<&'r str>),
    comp_extra: &[Vec<(&[u8], &[u8])>],
    extra: &[(&[u8], &[u8])],
) {
    // One reservation for the common case (short roles, no digest).
    out.reserve(name.len() + format.len() + 40 + 9 * shape.len() + 96 * comps.len());
    text(out, name);
    map(out, 3 + attributes.is_some() as u64 + extra.len() as u64);
    out.extend_from_slice(K_SHAPE);
    array(out, shape.len() as u64);
    for &d in shape {
        uint(out, d);
    }
    out.extend_from_slice(K_FORMAT);
    text(out, format);
    if let Some(a) = attributes {
        out.extend_from_slice(K_ATTRIBUTES);
        out.extend_from_slice(a);
    }
    out.extend_from_slice(K_COMPONENTS);
    map(out, comps.len() as u64);
    for (i, c) in comps.iter().enumerate() {
        let (role, ltype) = names(i);
        text(out, role);
        component(out, c, ltype, comp_extra.get(i).map_or(&[][..], |v| &v[..]));
    }
    raw_pairs(out, extra);
}

/// The manifest up to its `objects` entries: `version`, `attributes` (the
/// encoded map, when there are any), the `objects` map head for `count`
/// entries (which follow, encoded back to back).
pub(crate) fn manifest_head(attrs: Option<&[u8]>, count: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + attrs.map_or(0, <[u8]>::len));
    map(&mut out, 2 + attrs.is_some() as u64);
    text(&mut out, RootKey::Version.name());
    text(&mut out, VERSION);
    if let Some(a) = attrs {
        text(&mut out, RootKey::Attributes.name());
        out.extend_from_slice(a);
    }
    text(&mut out, RootKey::Objects.name());
    map(&mut out, count);
    out
}

/// The whole manifest: [`manifest_head`], then `entries`.
pub(crate) fn manifest(attrs: Option<&[u8]>, count: u64, entries: &[u8]) -> Vec<u8> {
    let mut out = manifest_head(attrs, count);
    out.extend_from_slice(entries);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn enc(f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
        let mut v = Vec::new();
        f(&mut v);
        v
    }

    #[test]
    fn floats_take_the_shortest_exact_width() {
        assert_eq!(enc(|o| float(o, 1.5)), [0xf9, 0x3e, 0x00]);
        assert_eq!(enc(|o| float(o, 3.0)), [0xf9, 0x42, 0x00]);
        assert_eq!(enc(|o| float(o, -0.0)), [0xf9, 0x80, 0x00]);
        assert_eq!(enc(|o| float(o, 65504.0)), [0xf9, 0x7b, 0xff]);
        assert_eq!(enc(|o| float(o, 5.960464477539063e-8)), [0xf9, 0x00, 0x01]);
        assert_eq!(enc(|o| float(o, f64::INFINITY)), [0xf9, 0x7c, 0x00]);
        assert_eq!(enc(|o| float(o, f64::NAN)), [0xf9, 0x7e, 0x00]);
        assert_eq!(enc(|o| float(o, 1e10))[0], 0xfa);
        assert_eq!(enc(|o| float(o, 100000.0))[0], 0xfa);
        assert_eq!(enc(|o| float(o, 0.1))[0], 0xfb);
        assert_eq!(enc(|o| float(o, core::f64::consts::PI))[0], 0xfb);
        // A NaN payload that f32 cannot carry stays f64.
        assert_eq!(enc(|o| float(o, f64::from_bits(0x7ff8_0000_0000_0001)))[0], 0xfb);
        // NaNs keep sign and payload, in every width (bit operations, not
        // float casts: those may change a NaN, and Miri makes them do so).
        assert_eq!(enc(|o| float(o, -f64::NAN)), [0xf9, 0xfe, 0x00]);
        assert_eq!(enc(|o| float(o, f64::from_bits(0x7ff4_0000_0000_0000))), [0xf9, 0x7d, 0x00]);
        assert_eq!(enc(|o| float(o, f64::from_bits(0xfff0_0020_0000_0000))), [0xfa, 0xff, 0x80, 0x01, 0x00]);
        assert_eq!(enc(|o| float(o, f64::from_bits(0x7ff0_0000_2000_0000))), [0xfa, 0x7f, 0x80, 0x00, 0x01]);
        // Exhaustive: every f16 value round-trips through the check.
        // (Every 17th under Miri, which interprets.)
        for h in (0..=u16::MAX).step_by(if cfg!(miri) { 17 } else { 1 }) {
            let v = crate::cbor::f16_to_f64(h);
            if !v.is_nan() {
                assert_eq!(crate::cast::f16_exact((v as f32).to_bits()), Some(h), "{h:#x}");
            }
        }
    }

    #[test]
    fn key_constants_are_their_text_items() {
        for (k, s) in [
            (&K_SHAPE[..], "shape"),
            (K_FORMAT, "format"),
            (K_ATTRIBUTES, "attributes"),
            (K_COMPONENTS, "components"),
            (K_DTYPE, "dtype"),
            (K_TYPE, "type"),
            (K_OFFSET, "offset"),
            (K_LENGTH, "length"),
            (K_ULEN, "uncompressed_length"),
            (K_DIGEST, "digest"),
        ] {
            assert_eq!(k, enc(|o| text(o, s)));
        }
        assert_eq!(&K_ENCODING_RAW[..], enc(|o| {
            text(o, "encoding");
            text(o, "raw")
        }));
        assert_eq!(&K_ENCODING_ZSTD[..], enc(|o| {
            text(o, "encoding");
            text(o, "zstd")
        }));
    }

    #[test]
    fn integers_use_minimal_heads() {
        assert_eq!(enc(|o| uint(o, 23)), [0x17]);
        assert_eq!(enc(|o| uint(o, 24)), [0x18, 24]);
        assert_eq!(enc(|o| uint(o, 65536)), [0x1a, 0, 1, 0, 0]);
        assert_eq!(enc(|o| negint(o, 6)), [0x26]);
        assert_eq!(enc(|o| negint(o, u64::MAX)), vec![0x3b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
        assert_eq!(enc(|o| negint(o, (1 << 63) - 1)), [0x3b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    }
}
