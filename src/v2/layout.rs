//! Layouts (§5): `dense` and every registered profile's at-open rules, one
//! function per layout that checks an object and returns its parameters.

use super::error::{Error, Kind, Result};
use super::manifest::{AttrValue, Attributes, Object};
use super::part::Part;
use super::types::{is_float, DType, ElemType, LogicalType};

/// The `gguf.<type>/1` types of the registry.
pub const GGUF_TYPES: [&str; 22] = [
    "q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q8_1", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k", "q8_k", "iq1_s", "iq1_m",
    "iq2_xxs", "iq2_xs", "iq2_s", "iq3_xxs", "iq3_s", "iq4_nl", "iq4_xs", "mxfp4",
];

/// An object's layout with the parameters its decoder needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Profile<'a> {
    /// `dense`.
    Dense,
    /// `zt.sparse_csr/1` with `u32` or `u64` indices.
    Csr {
        /// The index type of `indices` and `indptr`.
        index: DType,
    },
    /// `zt.sparse_coo/1` with `u32` or `u64` coordinates.
    Coo {
        /// The type of `coords`.
        index: DType,
    },
    /// `zt.quant_group/1`.
    QuantGroup(QuantGroup),
    /// `zt.mx/1`.
    Mx(Mx),
    /// `gguf.<type>/1`.
    Gguf {
        /// The ggml type name.
        ty: &'a str,
        /// Logical elements per block.
        elems_per_block: u64,
        /// Bytes per block.
        block_bytes: u64,
    },
    /// A layout this reader does not know: structural access only.
    Unknown(&'a str),
}

/// `packing.order` of `zt.quant_group/1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// The lowest index in the low bits.
    LsbFirst,
    /// The lowest index in the high bits.
    MsbFirst,
}

/// `scale_form` of `zt.quant_group/1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScaleForm {
    /// Multipliers widened to f32.
    F32Factors,
    /// Multipliers at f16/bf16 width.
    F16Factors,
    /// `f8_e8m0` exponent bytes.
    E8m0Exponent,
}

/// `zero_point` of `zt.quant_group/1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZeroPoint {
    /// No zero point.
    None,
    /// One constant for every code.
    Implied(i64),
    /// A `zeros` part packed like `data` (`true`) or one plain element per group (`false`).
    Tensor {
        /// `packing == "same_as_data"`.
        same_as_data: bool,
    },
}

/// Parameters of a `zt.quant_group/1` object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuantGroup {
    /// Bits per code.
    pub bits: u64,
    /// Codes per group along `axis` (0: per channel).
    pub group_size: u64,
    /// The grouped axis.
    pub axis: u64,
    /// The storage word.
    pub word: DType,
    /// Code order in a word.
    pub order: Order,
    /// Codes per word.
    pub per_word: u64,
    /// How to read `scales`.
    pub scale_form: ScaleForm,
    /// The zero point.
    pub zero_point: ZeroPoint,
}

/// Parameters of a `zt.mx/1` object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mx {
    /// Elements per block.
    pub block_size: u64,
    /// The blocked axis.
    pub axis: u64,
    /// The element type: `f4_e2m1`, `f8_e4m3fn`, `f8_e5m2`, or `i8` (`None`).
    pub element: Option<LogicalType<'static>>,
}

/// `(n / d, n % d)`, `d > 0` (every caller checks it or knows it). On
/// 32-bit targets (firmware) without the compiler's 64-bit division
/// routine: 32-bit division when both fit, else binary long division (the
/// sizes of §5's rules are u64 but rarely over 32 bits).
pub(crate) fn div_rem(n: u64, d: u64) -> (u64, u64) {
    #[cfg(target_pointer_width = "32")]
    if let (Ok(n), Ok(d @ 1..)) = (u32::try_from(n), u32::try_from(d)) {
        return ((n / d) as u64, (n % d) as u64);
    }
    #[cfg(target_pointer_width = "32")]
    return long_div_rem(n, d);
    #[cfg(not(target_pointer_width = "32"))]
    (n / d, n % d)
}

/// `(n / d, n % d)` a bit at a time, from the top (`d > 0`).
#[cfg(any(target_pointer_width = "32", test))]
fn long_div_rem(n: u64, d: u64) -> (u64, u64) {
    let (mut q, mut r) = (0u64, 0u64);
    for i in (0..64).rev() {
        // The bit shifted out of `r` (when `d` is over 2^63) counts too.
        let carry = r >> 63;
        r = r << 1 | (n >> i & 1);
        if carry != 0 || r >= d {
            r = r.wrapping_sub(d);
            q |= 1 << i;
        }
    }
    (q, r)
}

fn err(kind: Kind, ctx: &'static str) -> Error {
    Error::ctx(kind, ctx)
}

/// What a layout's rules read of a part (§3.4): its name, storage type,
/// `type` and decoded size.
#[derive(Clone, Copy, Debug)]
pub struct PartInfo<'a> {
    /// The part's name.
    pub name: &'a str,
    /// Storage type.
    pub dtype: DType,
    /// The `type` text, if any.
    pub type_name: Option<&'a str>,
    /// Bytes the part denotes ([`Part::decoded_size`]).
    pub size: u64,
}

impl<'a> PartInfo<'a> {
    fn elem(&self) -> ElemType<'a> {
        ElemType::of(self.dtype, self.type_name)
    }

    fn logical(&self) -> Option<LogicalType<'static>> {
        self.type_name.and_then(LogicalType::v2)
    }
}

/// The parts of an object as a layout sees them: the first three (no
/// registered layout has more) and how many there are.
pub struct PartSet<'a> {
    buf: [Option<PartInfo<'a>>; 3],
    len: usize,
    /// How many parts the object has.
    pub(crate) total: usize,
}

impl<'a> PartSet<'a> {
    /// An empty set for an object of `total` parts.
    pub fn new(total: usize) -> Self {
        PartSet { buf: [None; 3], len: 0, total }
    }

    /// Add the next part (beyond three, only counted).
    pub fn push(&mut self, p: &Part<'a>) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = Some(PartInfo { name: p.name, dtype: p.dtype, type_name: p.type_name, size: p.decoded_size() });
        }
        self.len += 1;
    }

    /// The part called `name` among the first three.
    pub(crate) fn get(&self, name: &str) -> Option<PartInfo<'a>> {
        self.buf.iter().flatten().find(|p| p.name == name).copied()
    }
}

/// What a layout's rules read of an object (§5): its layout id, shape and
/// attributes. The v2 reader's [`super::Object`] and the compact reader's
/// v2 object give it, so that one set of rules serves both readers.
pub trait Shaped<'a> {
    /// The `layout` id.
    fn layout(&self) -> &'a str;
    /// Number of dimensions.
    fn rank(&self) -> usize;
    /// Dimension `i`.
    fn dim(&self, i: usize) -> Option<u64>;
    /// Product of the dimensions (validated not to overflow).
    fn num_elements(&self) -> u64;
    /// The value of the text key `key` in the map `within`, or (`None`)
    /// in the object's `attributes`.
    fn attr(&self, within: Option<&Attributes<'a>>, key: &str) -> Option<AttrValue<'a>>;
}

/// The v2 reader's object, through its public views.
impl<'a> Shaped<'a> for Object<'a, '_> {
    fn layout(&self) -> &'a str {
        self.layout
    }
    fn rank(&self) -> usize {
        Object::rank(self)
    }
    fn dim(&self, i: usize) -> Option<u64> {
        Object::dim(self, i)
    }
    fn num_elements(&self) -> u64 {
        Object::num_elements(self)
    }
    fn attr(&self, within: Option<&Attributes<'a>>, key: &str) -> Option<AttrValue<'a>> {
        within.copied().or(self.attributes())?.get(key)
    }
}

/// Check an object against its layout's at-open rules, given its parts.
pub fn check<'a>(o: &impl Shaped<'a>, parts: &PartSet<'a>) -> Result<Profile<'a>> {
    let name = o.layout();
    let e = |k| move |mut x: Error| {
        if x.context.is_empty() {
            x.context = k;
        }
        x
    };
    match name {
        "dense" => dense(o, parts).map_err(e("dense")),
        "zt.sparse_csr/1" => csr(o, parts).map_err(e("zt.sparse_csr/1")),
        "zt.sparse_coo/1" => coo(o, parts).map_err(e("zt.sparse_coo/1")),
        "zt.quant_group/1" => quant_group(o, parts).map_err(e("zt.quant_group/1")),
        "zt.mx/1" => mx(o, parts).map_err(e("zt.mx/1")),
        _ => match name.strip_prefix("gguf.").and_then(|t| t.strip_suffix("/1")) {
            Some(t) if GGUF_TYPES.contains(&t) => gguf(o, parts, t).map_err(e("gguf")),
            _ => Ok(Profile::Unknown(name)),
        },
    }
}

/// The parts named in `names` (at most three) in that order, when the
/// object has exactly those (no others); the slots past `names` repeat the
/// first. (One function for every layout's part list, not one per length.
/// With `alloc`, inline in each layout's rules: the parts are not copied
/// through its return.)
#[cfg_attr(feature = "alloc", inline(always))]
fn exactly<'a>(set: &PartSet<'a>, names: &[&str]) -> Result<[PartInfo<'a>; 3]> {
    let bad = err(Kind::LayoutParts, "");
    if set.total != names.len() || set.len != names.len() {
        return Err(bad);
    }
    let mut out = [set.buf[0].ok_or(bad)?; 3];
    for (slot, n) in out.iter_mut().zip(names) {
        *slot = set.get(n).ok_or(bad)?;
    }
    Ok(out)
}

/// `decoded_size(p) == p.type's size function at n` (skipped for an unknown type).
fn size_is(p: &PartInfo<'_>, n: u64) -> Result<()> {
    match p.elem() {
        ElemType::Unknown(..) => Ok(()),
        t => match t.size(n) {
            Some(s) if s == p.size => Ok(()),
            _ => Err(err(Kind::SizeMismatch, "")),
        },
    }
}

fn bytes_are(p: &PartInfo<'_>, n: Option<u64>) -> Result<()> {
    if n == Some(p.size) {
        Ok(())
    } else {
        Err(err(Kind::SizeMismatch, ""))
    }
}

fn dense<'a>(o: &impl Shaped<'a>, set: &PartSet<'a>) -> Result<Profile<'a>> {
    let [data, ..] = exactly(set, &["data"])?;
    size_is(&data, o.num_elements())?;
    Ok(Profile::Dense)
}

/// A plain `u32`/`u64` index part.
fn index_part(p: &PartInfo<'_>) -> Result<DType> {
    match (p.dtype, p.type_name) {
        (DType::U32 | DType::U64, None) => Ok(p.dtype),
        _ => Err(err(Kind::LayoutPartType, "")),
    }
}

fn csr<'a>(o: &impl Shaped<'a>, set: &PartSet<'a>) -> Result<Profile<'a>> {
    if o.rank() != 2 {
        return Err(err(Kind::LayoutRank, ""));
    }
    let [values, indices, indptr] = exactly(set, &["values", "indices", "indptr"])?;
    let index = index_part(&indices)?;
    if indptr.dtype != index || indptr.type_name.is_some() {
        return Err(err(Kind::LayoutPartType, ""));
    }
    let w = index.width();
    let (nnz, rest) = div_rem(indices.size, w);
    if rest != 0 {
        return Err(err(Kind::SizeMismatch, "indices"));
    }
    let rows = o.dim(0).unwrap_or(0);
    bytes_are(&indptr, rows.checked_add(1).and_then(|r| r.checked_mul(w)))?;
    size_is(&values, nnz)?;
    Ok(Profile::Csr { index })
}

fn coo<'a>(o: &impl Shaped<'a>, set: &PartSet<'a>) -> Result<Profile<'a>> {
    if o.rank() < 1 {
        return Err(err(Kind::LayoutRank, ""));
    }
    let [values, coords, _] = exactly(set, &["values", "coords"])?;
    let index = index_part(&coords)?;
    let per = index.width() * o.rank() as u64;
    let (n, rest) = div_rem(coords.size, per);
    if rest != 0 {
        return Err(err(Kind::SizeMismatch, "coords"));
    }
    size_is(&values, n)?;
    Ok(Profile::Coo { index })
}

fn uint_attr<'a>(o: &impl Shaped<'a>, a: Option<&Attributes<'a>>, key: &'static str) -> Result<u64> {
    match o.attr(a, key) {
        Some(AttrValue::Uint(v)) => Ok(v),
        _ => Err(err(Kind::LayoutAttribute, key)),
    }
}

fn text_attr<'a>(o: &impl Shaped<'a>, a: Option<&Attributes<'a>>, key: &'static str) -> Result<&'a str> {
    match o.attr(a, key) {
        Some(AttrValue::Text(v)) => Ok(v),
        _ => Err(err(Kind::LayoutAttribute, key)),
    }
}

fn map_attr<'a>(o: &impl Shaped<'a>, a: Option<&Attributes<'a>>, key: &'static str) -> Result<Attributes<'a>> {
    match o.attr(a, key) {
        Some(AttrValue::Map(m)) => Ok(m),
        _ => Err(err(Kind::LayoutAttribute, key)),
    }
}

/// A CBOR integer (major 0 or 1) as i64.
fn int_attr<'a>(o: &impl Shaped<'a>, a: Option<&Attributes<'a>>, key: &'static str) -> Result<i64> {
    let bad = err(Kind::LayoutAttribute, key);
    match o.attr(a, key) {
        Some(AttrValue::Uint(v)) => i64::try_from(v).map_err(|_| bad),
        Some(AttrValue::Other(b)) if !b.is_empty() && b[0] >> 5 == 1 => {
            let ai = b[0] & 0x1f;
            let v = match ai {
                0..=23 => ai as u64,
                24..=27 => b[1..].iter().take(1 << (ai - 24)).fold(0u64, |v, &x| v << 8 | x as u64),
                _ => return Err(bad),
            };
            i64::try_from(v).map(|v| -1 - v).map_err(|_| bad)
        }
        _ => Err(bad),
    }
}

/// The product of every dimension but `axis`.
fn lanes<'a>(o: &impl Shaped<'a>, axis: usize) -> Option<u64> {
    (0..o.rank()).filter(|&i| i != axis).try_fold(1u64, |p, i| p.checked_mul(o.dim(i)?))
}

fn quant_group<'a>(o: &impl Shaped<'a>, set: &PartSet<'a>) -> Result<Profile<'a>> {
    let bits = uint_attr(o, None, "bits")?;
    let group_size = uint_attr(o, None, "group_size")?;
    let axis = uint_attr(o, None, "axis")?;
    let packing = map_attr(o, None, "packing")?;
    let scale_form = text_attr(o, None, "scale_form")?;
    let zp = map_attr(o, None, "zero_point")?;
    let word = match text_attr(o, Some(&packing), "word")? {
        "u8" => DType::U8,
        "u16" => DType::U16,
        "u32" => DType::U32,
        "u64" => DType::U64,
        _ => return Err(err(Kind::LayoutAttribute, "word")),
    };
    let order = match text_attr(o, Some(&packing), "order")? {
        "lsb_first" => Order::LsbFirst,
        "msb_first" => Order::MsbFirst,
        _ => return Err(err(Kind::LayoutAttribute, "order")),
    };
    let per_word = uint_attr(o, Some(&packing), "per_word")?;
    let word_bits = 8 * word.width();
    if !matches!(bits, 2 | 3 | 4 | 5 | 6 | 8) || div_rem(word_bits, bits).1 != 0 {
        return Err(err(Kind::LayoutAttribute, "bits"));
    }
    if per_word != div_rem(word_bits, bits).0 {
        return Err(err(Kind::LayoutAttribute, "per_word"));
    }
    let scale_form = match scale_form {
        "f32_factors" => ScaleForm::F32Factors,
        "f16_factors" => ScaleForm::F16Factors,
        "e8m0_exponent" => ScaleForm::E8m0Exponent,
        _ => return Err(err(Kind::LayoutAttribute, "scale_form")),
    };
    let zero_point = match text_attr(o, Some(&zp), "form")? {
        "none" => ZeroPoint::None,
        "implied" => ZeroPoint::Implied(int_attr(o, Some(&zp), "value")?),
        "tensor" => match text_attr(o, Some(&zp), "packing")? {
            "same_as_data" => ZeroPoint::Tensor { same_as_data: true },
            "plain" => ZeroPoint::Tensor { same_as_data: false },
            _ => return Err(err(Kind::LayoutAttribute, "packing")),
        },
        _ => return Err(err(Kind::LayoutAttribute, "form")),
    };
    let (data, scales, zeros) = if let ZeroPoint::Tensor { .. } = zero_point {
        let [d, s, z] = exactly(set, &["data", "scales", "zeros"])?;
        (d, s, Some(z))
    } else {
        let [d, s, _] = exactly(set, &["data", "scales"])?;
        (d, s, None)
    };
    if !data.dtype.is_integer() || data.dtype.width() != word.width() {
        return Err(err(Kind::LayoutPartType, "data"));
    }
    let scales_ok = match scale_form {
        ScaleForm::F32Factors | ScaleForm::F16Factors => is_float(scales.dtype) && scales.type_name.is_none(),
        ScaleForm::E8m0Exponent => scales.dtype == DType::U8 && scales.logical() == Some(LogicalType::F8E8M0),
    };
    if !scales_ok {
        return Err(err(Kind::LayoutPartType, "scales"));
    }
    if axis >= o.rank() as u64 {
        return Err(err(Kind::LayoutAttribute, "axis"));
    }
    let along = o.dim(axis as usize).unwrap_or(0);
    // group_size 0: per channel.
    let (groups, rest) = if group_size == 0 { (along, 0) } else { div_rem(along, group_size) };
    if rest != 0 {
        return Err(err(Kind::LayoutAttribute, "group_size"));
    }
    let cells = lanes(o, axis as usize).and_then(|l| l.checked_mul(groups));
    bytes_are(&data, div_rem(o.num_elements(), per_word).0.checked_mul(word.width())).map_err(|e| Error { context: "data", ..e })?;
    bytes_are(&scales, cells.and_then(|c| c.checked_mul(scales.dtype.width()))).map_err(|e| Error { context: "scales", ..e })?;
    if let (Some(z), ZeroPoint::Tensor { same_as_data }) = (zeros, zero_point) {
        let want = if same_as_data {
            cells.and_then(|c| div_rem(c, per_word).0.checked_mul(word.width()))
        } else {
            cells.and_then(|c| c.checked_mul(z.dtype.width()))
        };
        bytes_are(&z, want).map_err(|e| Error { context: "zeros", ..e })?;
    }
    Ok(Profile::QuantGroup(QuantGroup { bits, group_size, axis, word, order, per_word, scale_form, zero_point }))
}

fn mx<'a>(o: &impl Shaped<'a>, set: &PartSet<'a>) -> Result<Profile<'a>> {
    let [data, scales, _] = exactly(set, &["data", "scales"])?;
    if scales.dtype != DType::U8 || scales.logical() != Some(LogicalType::F8E8M0) {
        return Err(err(Kind::LayoutPartType, "scales"));
    }
    let element = match (data.dtype, data.elem()) {
        (DType::I8, ElemType::Plain(_)) => None,
        (_, ElemType::Logical(l @ (LogicalType::F4E2M1 | LogicalType::F8E4M3Fn | LogicalType::F8E5M2))) => Some(l),
        (_, ElemType::Unknown(..)) => None, // unknown element type: structural only
        _ => return Err(err(Kind::LayoutPartType, "data")),
    };
    let block_size = uint_attr(o, None, "block_size")?;
    if block_size < 2 {
        return Err(err(Kind::LayoutAttribute, "block_size"));
    }
    if text_attr(o, None, "scale_form")? != "e8m0_exponent" {
        return Err(err(Kind::LayoutAttribute, "scale_form"));
    }
    if o.rank() == 0 {
        return Err(err(Kind::LayoutRank, ""));
    }
    let axis = match o.attr(None, "axis") {
        None => o.rank() as u64 - 1,
        Some(AttrValue::Uint(v)) if v < o.rank() as u64 => v,
        Some(_) => return Err(err(Kind::LayoutAttribute, "axis")),
    };
    if div_rem(o.dim(axis as usize).unwrap_or(0), block_size).1 != 0 {
        return Err(err(Kind::LayoutAttribute, "block_size"));
    }
    let elements = o.num_elements();
    size_is(&data, elements).map_err(|e| Error { context: "data", ..e })?;
    bytes_are(&scales, Some(div_rem(elements, block_size).0)).map_err(|e| Error { context: "scales", ..e })?;
    Ok(Profile::Mx(Mx { block_size, axis, element }))
}

fn gguf<'a>(o: &impl Shaped<'a>, set: &PartSet<'a>, ty: &'a str) -> Result<Profile<'a>> {
    let [data, ..] = exactly(set, &["data"])?;
    if data.dtype != DType::U8 || data.type_name.is_some() {
        return Err(err(Kind::LayoutPartType, "data"));
    }
    let elems_per_block = uint_attr(o, None, "elems_per_block")?;
    let block_bytes = uint_attr(o, None, "block_bytes")?;
    if elems_per_block == 0 {
        return Err(err(Kind::LayoutAttribute, "elems_per_block"));
    }
    let (blocks, rest) = div_rem(o.num_elements(), elems_per_block);
    if rest != 0 {
        return Err(err(Kind::LayoutAttribute, "elems_per_block"));
    }
    if block_bytes == 0 {
        return Err(err(Kind::LayoutAttribute, "block_bytes"));
    }
    bytes_are(&data, blocks.checked_mul(block_bytes))?;
    Ok(Profile::Gguf { ty, elems_per_block, block_bytes })
}

#[cfg(test)]
mod tests {
    #[test]
    fn long_division_equals_the_operators() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let edges = [1, 2, 3, 7, 8, 255, u32::MAX as u64, 1 << 32, (1 << 63) - 1, 1 << 63, (1 << 63) + 1, u64::MAX];
        for _ in 0..20_000 {
            let (n, r) = (next(), next());
            // Divisors of every width, and the edges.
            for d in [r >> (r % 64), r, edges[(r % edges.len() as u64) as usize]] {
                for n in [n, n >> (n % 64), d, d.wrapping_sub(1), edges[(n % edges.len() as u64) as usize]] {
                    if d != 0 {
                        assert_eq!(super::long_div_rem(n, d), (n / d, n % d), "{n} / {d}");
                        assert_eq!(super::div_rem(n, d), (n / d, n % d), "{n} / {d}");
                    }
                }
            }
        }
    }
}
