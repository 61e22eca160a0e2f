//! Lazy, borrowing access to any CBOR value of a validated manifest
//! (attributes and unknown fields).

use crate::cbor::{self, Len, Reader};

/// A CBOR value inside a validated manifest, decoded on demand.
#[derive(Clone, Copy)]
pub struct Value<'a> {
    buf: &'a [u8],
    pos: usize,
}

/// What a [`Value`] is.
#[derive(Clone, Copy, Debug)]
pub enum ValueRef<'a> {
    /// An unsigned integer.
    Uint(u64),
    /// A negative integer `-1 - n`, carrying `n` (CBOR reaches −2⁶⁴).
    NegInt(u64),
    /// A byte string.
    Bytes(Chunks<'a>),
    /// A text string.
    Text(Chunks<'a>),
    /// An array.
    Array(Array<'a>),
    /// A map.
    Map(Map<'a>),
    /// A tagged value: tag number and content.
    Tag(u64, Value<'a>),
    /// `true` / `false`.
    Bool(bool),
    /// `null`.
    Null,
    /// `undefined`.
    Undefined,
    /// Another simple value.
    Simple(u8),
    /// A half, single or double float, widened to `f64`.
    Float(f64),
}

impl<'a> Value<'a> {
    pub(crate) fn new(buf: &'a [u8], pos: usize) -> Self {
        Value { buf, pos }
    }

    /// Byte offset of this value in the manifest.
    pub fn manifest_offset(&self) -> usize {
        self.pos
    }

    /// The encoded CBOR bytes of this value.
    pub fn raw(&self) -> &'a [u8] {
        let mut r = Reader::at(self.buf, self.pos);
        let end = if r.skip_item().is_some() { r.pos } else { self.pos };
        &self.buf[self.pos..end]
    }

    /// Decode what this value is.
    #[inline(never)]
    pub fn get(&self) -> ValueRef<'a> {
        let Some((major, arg, pos)) = cbor::decode_head(self.buf, self.pos) else { return ValueRef::Undefined };
        let chunks = Chunks { buf: self.buf, pos, len: cbor::len_of(arg) };
        // Integers and tags always have an argument; the one simple item
        // without (a break) reads as 23, undefined.
        let v = arg.unwrap_or(23);
        match major {
            cbor::MAJOR_UINT => ValueRef::Uint(v),
            cbor::MAJOR_NINT => ValueRef::NegInt(v),
            cbor::MAJOR_BYTES => ValueRef::Bytes(chunks),
            cbor::MAJOR_TEXT => ValueRef::Text(chunks),
            cbor::MAJOR_ARRAY => ValueRef::Array(Array { buf: self.buf, pos, len: chunks.len }),
            cbor::MAJOR_MAP => ValueRef::Map(Map::new(self.buf, pos, chunks.len)),
            cbor::MAJOR_TAG => ValueRef::Tag(v, Value::new(self.buf, pos)),
            // Floats told apart by the argument's width; a simple value under
            // 32 is always in the initial byte.
            _ => match pos - self.pos {
                3 => ValueRef::Float(widen(v as u32, 5, 10)),
                5 => ValueRef::Float(widen(v as u32, 8, 23)),
                9 => ValueRef::Float(f64::from_bits(v)),
                _ => match v as u8 {
                    b @ (20 | 21) => ValueRef::Bool(b == 21),
                    22 => ValueRef::Null,
                    23 => ValueRef::Undefined,
                    s => ValueRef::Simple(s),
                },
            },
        }
    }

    /// What the C layer's `zt_attribute` says of this value, read once
    /// (no [`ValueRef`] built): see [`Described`].
    #[doc(hidden)]
    #[inline(never)]
    pub fn describe(&self) -> Described<'a> {
        let mut d = Described { kind: 5, has_int: false, bool_value: false, int_value: 0, uint_value: 0, float_value: 0.0, data: None, count: 0 };
        let Some((major, arg, pos)) = cbor::decode_head(self.buf, self.pos) else { return d };
        // (As `get` reads it: a break's argument is 23, undefined.)
        let v = arg.unwrap_or(23);
        d.kind = match major {
            cbor::MAJOR_UINT | cbor::MAJOR_NINT => {
                let neg = major == cbor::MAJOR_NINT;
                if let Ok(i) = i64::try_from(v) {
                    d.has_int = true;
                    d.int_value = if neg { -1 - i } else { i };
                }
                d.float_value = int_to_f64(v, neg);
                d.uint_value = v;
                major
            }
            // Bytes 7, text 6.
            cbor::MAJOR_BYTES | cbor::MAJOR_TEXT => {
                d.data = Chunks { buf: self.buf, pos, len: cbor::len_of(arg) }.contiguous();
                9 - major
            }
            // Array 8, map 9: items, entries (counted when indefinite).
            cbor::MAJOR_ARRAY | cbor::MAJOR_MAP => {
                d.count = match cbor::len_of(arg) {
                    Some(n) => n,
                    None => {
                        let (mut r, mut len, mut n) = (Reader::at(self.buf, pos), None, 0);
                        while item(&mut r, &mut len).is_some() {
                            n += 1;
                        }
                        n >> (major == cbor::MAJOR_MAP) as u32
                    }
                };
                major + 4
            }
            cbor::MAJOR_TAG => {
                d.uint_value = v;
                10
            }
            // Floats by the argument's width, as `get`.
            _ => match pos - self.pos {
                3 | 5 | 9 => {
                    d.float_value = match pos - self.pos {
                        3 => widen(v as u32, 5, 10),
                        5 => widen(v as u32, 8, 23),
                        _ => f64::from_bits(v),
                    };
                    2
                }
                _ => match v as u8 {
                    b @ (20 | 21) => {
                        d.bool_value = b == 21;
                        3
                    }
                    22 => 4,
                    23 => 5,
                    s => {
                        d.uint_value = s.into();
                        11
                    }
                },
            },
        };
        d
    }

    /// The value without any tags around it.
    pub fn untagged(&self) -> Value<'a> {
        let mut v = *self;
        while let ValueRef::Tag(_, inner) = v.get() {
            v = inner;
        }
        v
    }

    /// As an unsigned integer.
    pub fn as_u64(&self) -> Option<u64> {
        match self.get() {
            ValueRef::Uint(v) => Some(v),
            _ => None,
        }
    }

    /// As a signed integer, if it fits.
    pub fn as_i64(&self) -> Option<i64> {
        self.get().as_i64()
    }

    /// As a float (integers convert too).
    pub fn as_f64(&self) -> Option<f64> {
        self.get().as_f64()
    }

    /// As a boolean.
    pub fn as_bool(&self) -> Option<bool> {
        match self.get() {
            ValueRef::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// As text, when it is one definite-length string.
    pub fn as_str(&self) -> Option<&'a str> {
        // (The head read here, not by `get`: no `ValueRef` built.)
        if *self.buf.get(self.pos)? >> 5 != cbor::MAJOR_TEXT {
            return None;
        }
        crate::utf8::str(cbor::keys::definite(self.buf, self.pos)?)
    }

    /// As bytes, when it is one definite-length byte string.
    pub fn as_bytes(&self) -> Option<&'a [u8]> {
        match self.get() {
            ValueRef::Bytes(c) => c.contiguous(),
            _ => None,
        }
    }

    /// As an array.
    pub fn as_array(&self) -> Option<Array<'a>> {
        match self.get() {
            ValueRef::Array(a) => Some(a),
            _ => None,
        }
    }

    /// As a map.
    pub fn as_map(&self) -> Option<Map<'a>> {
        match self.get() {
            ValueRef::Map(m) => Some(m),
            _ => None,
        }
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self.get(), ValueRef::Null)
    }
}

/// A value as the C layer's `zt_attribute` describes it ([`Value::describe`]):
/// `kind` in the order of its `zt_value_kind` (0 unsigned, 1 negative, 2
/// float, 3 bool, 4 null, 5 undefined, 6 text, 7 bytes, 8 array, 9 map,
/// 10 tag, 11 another simple value), the fields as [`ValueRef`] and its
/// conversions give them, zero (or `None`) where the value has none.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Described<'a> {
    /// What the value is (see above).
    pub kind: u8,
    /// Whether `int_value` holds the (unsigned or negative) integer.
    pub has_int: bool,
    /// `true` / `false`.
    pub bool_value: bool,
    /// The integer, when `has_int`.
    pub int_value: i64,
    /// An integer's `n`, a tag's number or a simple value.
    pub uint_value: u64,
    /// A float, or an integer converted.
    pub float_value: f64,
    /// A definite-length string's content.
    pub data: Option<&'a [u8]>,
    /// An array's items, a map's entries.
    pub count: usize,
}

/// The binary16 or binary32 float `bits` (`eb` exponent, `mb` mantissa
/// bits) as an `f64`, exactly, by bit operations (no soft-float call; a NaN
/// keeps its sign and payload, as `cbor::f16_to_f64` and `f32_to_f64`).
fn widen(bits: u32, eb: u32, mb: u32) -> f64 {
    let top = (1 << eb) - 1;
    let rebias = 1024 - (1 << (eb - 1));
    let mut frac = bits << (32 - mb);
    let mut e = (bits >> mb) & top;
    if e == top {
        e = 0x7ff;
    } else if e != 0 {
        e += rebias;
    } else if frac != 0 {
        // Subnormal: its leading 1 becomes the implicit bit.
        let lz = frac.leading_zeros();
        frac = frac << lz << 1;
        e = rebias - lz;
    }
    let sign = (bits >> (eb + mb)) & 1;
    f64::from_bits(((sign << 11 | e) as u64) << 52 | (frac as u64) << 20)
}

/// `n as f64`, or `-1 - n` when `neg`, rounded once (to nearest, ties to
/// even) by 32-bit operations: smaller than the soft-float calls on targets
/// without a double-precision FPU.
fn int_to_f64(n: u64, neg: bool) -> f64 {
    // -1 - n is -(n + 1) (2^64, bit 63 of 2^63, when it overflows); the
    // sign is set in the bits (no float negation).
    let (n, carry) = n.overflowing_add(neg.into());
    let sign = u64::from(neg) << 63;
    let (mut hi, mut lo, mut e) = ((n >> 32) as u32 | u32::from(carry) << 31, n as u32, 1085 + u32::from(carry));
    if hi == 0 {
        if lo == 0 {
            return 0.0;
        }
        (hi, lo, e) = (lo, 0, 1053);
    }
    // The leading 1 to bit 63 of hi:lo; 53 bits kept, 11 rounded off.
    let lz = hi.leading_zeros();
    hi = hi << lz | lo >> 1 >> (31 - lz);
    lo <<= lz;
    let mut mant = u64::from(hi) << 21 | u64::from(lo >> 11);
    let rest = lo & 0x7ff;
    if rest > 0x400 || rest == 0x400 && mant & 1 == 1 {
        mant += 1;
    }
    // The leading 1 of `mant` adds one to the exponent (two if rounding carried).
    f64::from_bits(sign | (u64::from(e - lz) << 52) + mant)
}

impl ValueRef<'_> {
    /// As a signed integer, if it is one that fits (`Value::as_i64`).
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            ValueRef::Uint(v) => i64::try_from(v).ok(),
            ValueRef::NegInt(n) => i64::try_from(n).ok().map(|n| -1 - n),
            _ => None,
        }
    }

    /// As a float, integers converted (`Value::as_f64`).
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            ValueRef::Float(f) => Some(f),
            ValueRef::Uint(v) => Some(int_to_f64(v, false)),
            ValueRef::NegInt(n) => Some(int_to_f64(n, true)),
            _ => None,
        }
    }
}

impl core::fmt::Debug for Value<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.get() {
            ValueRef::Text(c) => match c.contiguous().and_then(crate::utf8::str) {
                Some(s) => write!(f, "{s:?}"),
                None => f.write_str("(_ text)"),
            },
            ValueRef::Array(a) => f.debug_list().entries(a.iter()).finish(),
            ValueRef::Map(m) => f.debug_map().entries(m.iter()).finish(),
            ValueRef::Tag(t, v) => write!(f, "{t}({v:?})"),
            other => write!(f, "{other:?}"),
        }
    }
}

/// The content of a byte or text string: one slice, or indefinite-length chunks.
#[derive(Clone, Copy)]
pub struct Chunks<'a> {
    buf: &'a [u8],
    pos: usize,
    len: Len,
}

impl<'a> Chunks<'a> {
    /// The bytes, when the string is definite-length.
    #[inline]
    pub fn contiguous(&self) -> Option<&'a [u8]> {
        let n = self.len? as usize;
        self.buf.get(self.pos..self.pos + n)
    }

    /// Every chunk in order (one for a definite-length string).
    pub fn iter(&self) -> impl Iterator<Item = &'a [u8]> + 'a {
        let mut r = Reader::at(self.buf, self.pos);
        let mut single = self.contiguous();
        let indefinite = self.len.is_none();
        core::iter::from_fn(move || {
            if !indefinite {
                return single.take();
            }
            if r.take_break().unwrap_or(true) {
                return None;
            }
            let (_, n) = r.head().ok()?;
            r.bytes(n?).ok()
        })
    }

    /// Total length in bytes.
    pub fn len(&self) -> usize {
        self.iter().map(<[u8]>::len).sum()
    }

    /// Whether the string is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl core::fmt::Debug for Chunks<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A CBOR array.
#[derive(Clone, Copy, Debug)]
pub struct Array<'a> {
    buf: &'a [u8],
    pos: usize,
    len: Len,
}

impl<'a> Array<'a> {
    /// The items in order.
    pub fn iter(&self) -> impl Iterator<Item = Value<'a>> + 'a {
        let (mut r, mut len) = (Reader::at(self.buf, self.pos), self.len);
        core::iter::from_fn(move || item(&mut r, &mut len).map(|p| Value::new(r.buf, p)))
    }

    /// Number of items (O(1) for definite arrays).
    pub fn len(&self) -> usize {
        match self.len {
            Some(n) => n as usize,
            None => self.iter().count(),
        }
    }

    /// Whether the array is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A CBOR map, in encoded order.
#[derive(Clone, Copy)]
pub struct Map<'a> {
    buf: &'a [u8],
    pos: usize,
    len: Len,
    /// Whether a text key is hidden from this view (the known fields of a
    /// v0.1 tensor map).
    hidden: Option<fn(&[u8]) -> bool>,
}

impl<'a> Map<'a> {
    pub(crate) fn new(buf: &'a [u8], pos: usize, len: Len) -> Self {
        Map { buf, pos, len, hidden: None }
    }

    /// The view of the (well-formed) map whose head is at `pos`.
    pub(crate) fn read(buf: &'a [u8], pos: usize, field: &'static str) -> crate::error::Result<Self> {
        let mut h = Reader::at(buf, pos);
        let len = h.map(field)?;
        Ok(Map::new(buf, h.pos, len))
    }

    /// The bytes this map lies in (the manifest).
    pub(crate) fn buf(&self) -> &'a [u8] {
        self.buf
    }

    pub(crate) fn empty() -> Self {
        Map { buf: &[], pos: 0, len: Some(0), hidden: None }
    }

    pub(crate) fn hiding(mut self, hidden: fn(&[u8]) -> bool) -> Self {
        self.hidden = Some(hidden);
        self
    }

    /// Key/value pairs in encoded order.
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = (Value<'a>, Value<'a>)> + 'a {
        let (mut r, mut len, hidden) = (Reader::at(self.buf, self.pos), self.len, self.hidden);
        core::iter::from_fn(move || entry(&mut r, &mut len, hidden))
    }

    /// The value of a text key.
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        if self.hidden.is_some_and(|h| h(key.as_bytes())) {
            return None;
        }
        // Keys compared as they lie (a definite text key equal to `key`), no
        // views built: the same answer as searching `iter()`.
        let (mut r, mut len) = (Reader::at(self.buf, self.pos), self.len);
        while let Some(k) = item(&mut r, &mut len) {
            let is_key = match cbor::decode_head(self.buf, k) {
                Some((cbor::MAJOR_TEXT, Some(n), at)) => self.buf.get(at..at.checked_add(n as usize)?) == Some(key.as_bytes()),
                _ => false,
            };
            if is_key {
                return Some(Value::new(self.buf, r.pos));
            }
            r.skip_item()?;
        }
        None
    }

    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        match (self.len, self.hidden.is_none()) {
            (Some(n), true) => n as usize,
            _ => self.iter().count(),
        }
    }

    /// Whether the map has no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Where the next item of an array (or key of a map) read by `r` (`len`
/// left) is, `None` at its end or a malformed item. Out of line: the
/// iterators and the counts share one copy. (A position, not a `Value`:
/// returned in registers.)
#[inline(never)]
fn item(r: &mut Reader<'_>, len: &mut Len) -> Option<usize> {
    // `Reader::more` without building an error (the bytes' end is an end
    // too); 0xff: a break.
    match len {
        Some(0) => return None,
        Some(n) => *n -= 1,
        None if *r.buf.get(r.pos)? == 0xff => {
            r.pos += 1;
            return None;
        }
        None => {}
    }
    let at = r.pos;
    r.skip_item()?;
    Some(at)
}

/// The next entry of a map read by `r` (`len` entries left), hidden keys
/// passed over.
fn entry<'a>(r: &mut Reader<'a>, len: &mut Len, hidden: Option<fn(&[u8]) -> bool>) -> Option<(Value<'a>, Value<'a>)> {
    loop {
        let k = Value::new(r.buf, item(r, len)?);
        let v = Value::new(r.buf, r.pos);
        r.skip_item()?;
        if hidden.is_some_and(|h| k.as_str().is_some_and(|s| h(s.as_bytes()))) {
            continue;
        }
        return Some((k, v));
    }
}

impl core::fmt::Debug for Map<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests;
