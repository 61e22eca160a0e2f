//! NumPy `.npy` input: `\x93NUMPY`, a version, a header length, a Python
//! dict literal (`{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`),
//! then the array's bytes.
//!
//! Supported `descr`s: booleans, 8- to 64-bit integers, 16- to 64-bit
//! floats and 64/128-bit complex (`f32`/`f64` pairs with the `complex64`/
//! `complex128` logical types), in either byte order: big-endian (`>`)
//! elements are swapped to little-endian. Fortran-ordered arrays are
//! transposed to row-major order (in memory). Object arrays (pickled Python
//! objects), strings, datetimes, `longdouble`, void and structured dtypes
//! are refused.

use super::{owned_data, slice_data, swap_elements, swapped_data, Out, Progress};
use crate::Fail;
use std::rc::Rc;
use ztensor::write::Data;
use ztensor::write::v1_2::NewObject;
use ztensor::{DType, LogicalType};

/// The magic string every `.npy` file starts with.
pub const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// What an `.npy` header says.
#[derive(Debug)]
pub struct Header {
    pub dtype: DType,
    pub logical: Option<LogicalType<'static>>,
    /// Multi-byte elements stored big-endian.
    pub swap: bool,
    pub fortran: bool,
    pub shape: Vec<u64>,
    /// Bytes per array element (a complex element is two floats).
    pub itemsize: u64,
    /// Bytes of array data.
    pub nbytes: u64,
}

/// The size of the whole header (magic to data) from the file's first 12 bytes.
pub fn header_size(b: &[u8]) -> Result<usize, String> {
    if b[..b.len().min(6)] != MAGIC[..b.len().min(6)] {
        return Err("not a NumPy .npy array (bad magic)".into());
    }
    if b.len() < 10 {
        return Err("truncated .npy header".into());
    }
    let size = match b[6] {
        1 => 10 + u16::from_le_bytes([b[8], b[9]]) as usize,
        2 | 3 if b.len() >= 12 => 12 + u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize,
        2 | 3 => return Err("truncated .npy header".into()),
        v => return Err(format!("unsupported .npy format version {v}.{}", b[7])),
    };
    // numpy itself refuses headers over 10 000 bytes by default.
    if size > MAX_HEADER {
        return Err(format!(".npy header of {size} bytes is implausibly large"));
    }
    Ok(size)
}

/// The largest header accepted.
const MAX_HEADER: usize = 1 << 20;

/// Parse a whole header (`b` holds at least [`header_size`] bytes); returns
/// it and where the data starts.
pub fn parse_header(b: &[u8]) -> Result<(Header, usize), String> {
    let size = header_size(b)?;
    let text = b.get(if b[6] == 1 { 10 } else { 12 }..size).ok_or("truncated .npy header")?;
    // Versions 1 and 2 are latin-1 (in practice ASCII), 3 is UTF-8.
    let text = std::str::from_utf8(text).map_err(|_| ".npy header is not ASCII/UTF-8 text".to_owned())?;
    let mut p = Lit { b: text.as_bytes(), i: 0 };
    let dict = p.parse().map_err(|e| format!(".npy header {e}"))?;
    let Py::Dict(entries) = dict else { return Err(".npy header is not a Python dict".into()) };
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    for (k, v) in entries {
        match k {
            Py::Str(k) if k == "descr" && descr.is_none() => descr = Some(v),
            Py::Str(k) if k == "fortran_order" && fortran.is_none() => fortran = Some(v),
            Py::Str(k) if k == "shape" && shape.is_none() => shape = Some(v),
            k => return Err(format!(".npy header has an unexpected key {k}")),
        }
    }
    let descr = match descr {
        Some(Py::Str(s)) => s,
        Some(Py::List(_)) => return Err("structured (record) dtypes are not supported".into()),
        Some(other) => return Err(format!(".npy 'descr' {other} is not a dtype string")),
        None => return Err(".npy header has no 'descr'".into()),
    };
    let fortran = match fortran {
        Some(Py::Bool(b)) => b,
        _ => return Err(".npy header has no boolean 'fortran_order'".into()),
    };
    let shape = match shape {
        Some(Py::Tuple(items)) => items
            .iter()
            .map(|d| match d {
                Py::Int(n) => Some(*n),
                _ => None,
            })
            .collect::<Option<Vec<u64>>>(),
        _ => None,
    }
    .ok_or(".npy 'shape' is not a tuple of non-negative integers")?;
    let (dtype, logical, swap) = map_descr(&descr)?;
    let itemsize = dtype.width() * logical.and_then(|l| l.ratio()).unwrap_or(1);
    let nbytes = shape
        .iter()
        .try_fold(itemsize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| format!("shape {shape:?} overflows"))?;
    Ok((Header { dtype, logical, swap, fortran, shape, itemsize, nbytes }, size))
}

/// zTensor types of a NumPy `descr` (`<f4`, `|b1`, `>c16`, ...), and
/// whether elements must be byte-swapped.
pub fn map_descr(s: &str) -> Result<(DType, Option<LogicalType<'static>>, bool), String> {
    use DType::*;
    let (order, code) = match s.as_bytes().first() {
        Some(c @ (b'<' | b'>' | b'|' | b'=')) => (*c, &s[1..]),
        _ => (b'|', s),
    };
    let (dt, logical) = match code {
        "b1" => (Bool, None),
        "i1" => (I8, None),
        "u1" => (U8, None),
        "i2" => (I16, None),
        "u2" => (U16, None),
        "f2" => (F16, None),
        "i4" => (I32, None),
        "u4" => (U32, None),
        "f4" => (F32, None),
        "i8" => (I64, None),
        "u8" => (U64, None),
        "f8" => (F64, None),
        "c8" => (F32, Some(LogicalType::Complex64)),
        "c16" => (F64, Some(LogicalType::Complex128)),
        _ => {
            let why = match code.as_bytes().first() {
                Some(b'O') => "object arrays (pickled Python objects) are not supported",
                Some(b'U' | b'S' | b'a') => "string arrays are not supported",
                Some(b'M' | b'm') => "datetime/timedelta arrays are not supported",
                Some(b'V') => "void/structured dtypes are not supported (bfloat16 and FP8 arrays saved from ml_dtypes look like this)",
                Some(b'f' | b'c') => "extended-precision floats (longdouble) are not supported",
                _ => "not a supported NumPy dtype",
            };
            return Err(format!("dtype {s:?}: {why}"));
        }
    };
    // Only `<`, `>`, `|` appear in files numpy writes; `=` means the writer's
    // native order, taken to be this host's.
    let big = order == b'>' || (order == b'=' && cfg!(target_endian = "big"));
    if order == b'|' && dt.width() > 1 {
        return Err(format!("dtype {s:?} has no byte order"));
    }
    Ok((dt, logical, big && dt.width() > 1))
}

/// The array bytes as row-major little-endian data for the writer.
pub fn data<'a>(h: &Header, bytes: &'a [u8], p: &Rc<Progress>) -> Data<'a> {
    if h.fortran && h.shape.len() > 1 {
        let mut v = to_c_order(bytes, &h.shape, h.itemsize as usize);
        if h.swap {
            swap_elements(&mut v, h.dtype.width() as usize);
        }
        return owned_data(v, p);
    }
    if h.swap {
        return swapped_data(bytes, h.dtype.width() as usize, p);
    }
    slice_data(bytes, p)
}

/// Transpose a Fortran-ordered (column-major) array into C (row-major) order.
pub fn to_c_order(src: &[u8], shape: &[u64], itemsize: usize) -> Vec<u8> {
    let n = shape.len();
    let mut out = Vec::with_capacity(src.len());
    if src.is_empty() || itemsize == 0 {
        return out;
    }
    // Fortran strides, in elements.
    let mut strides = vec![1usize; n];
    for k in 1..n {
        strides[k] = strides[k - 1] * shape[k - 1] as usize;
    }
    let mut idx = vec![0usize; n];
    let mut off = 0usize;
    let count = src.len() / itemsize;
    for _ in 0..count {
        out.extend_from_slice(&src[off * itemsize..(off + 1) * itemsize]);
        // Advance the C-order index, last dimension fastest.
        let mut k = n;
        while k > 0 {
            k -= 1;
            idx[k] += 1;
            off += strides[k];
            if idx[k] < shape[k] as usize {
                break;
            }
            off -= idx[k] * strides[k];
            idx[k] = 0;
        }
    }
    out
}

/// Convert a standalone `.npy` file into one dense object called `name`.
pub fn parse(bytes: &[u8]) -> Result<(Header, &[u8]), String> {
    let (h, start) = parse_header(bytes)?;
    let data = &bytes[start.min(bytes.len())..];
    check_len(&h, data.len() as u64)?;
    Ok((h, data))
}

/// The data is exactly as long as the header says.
pub fn check_len(h: &Header, have: u64) -> Result<(), String> {
    if have < h.nbytes {
        return Err(format!("truncated: the array needs {} bytes of data, {have} present", h.nbytes));
    }
    if have > h.nbytes {
        return Err(format!("{} unexpected bytes after the array data", have - h.nbytes));
    }
    Ok(())
}

/// The dense object of an array.
pub fn object<'a>(name: &str, h: &Header, data: Data<'a>) -> NewObject<'a> {
    let mut obj = NewObject::dense(name.to_owned(), &h.shape, h.dtype, data);
    if let Some(l) = h.logical {
        obj = obj.logical_type(l);
    }
    obj
}

/// Write a standalone `.npy` array as the object `name`.
pub fn write(h: &Header, bytes: &[u8], name: &str, out: &mut Out) -> Result<(), Fail> {
    let d = data(h, bytes, &out.progress);
    out.add(object(name, h, d))
}

// ------------------------------------------------- Python literal subset

/// The Python literals an `.npy` header uses.
#[derive(Debug, PartialEq)]
enum Py {
    Str(String),
    Int(u64),
    Bool(bool),
    None,
    Tuple(Vec<Py>),
    List(Vec<Py>),
    Dict(Vec<(Py, Py)>),
}

impl std::fmt::Display for Py {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Py::Str(s) => write!(f, "{s:?}"),
            Py::Int(n) => write!(f, "{n}"),
            Py::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
            Py::None => f.write_str("None"),
            Py::Tuple(_) => f.write_str("(a tuple)"),
            Py::List(_) => f.write_str("[a list]"),
            Py::Dict(_) => f.write_str("{a dict}"),
        }
    }
}

struct Lit<'s> {
    b: &'s [u8],
    i: usize,
}

impl Lit<'_> {
    fn parse(&mut self) -> Result<Py, String> {
        self.ws();
        let v = self.value(0)?;
        self.ws();
        if self.i != self.b.len() {
            return self.err("the end");
        }
        Ok(v)
    }

    fn ws(&mut self) {
        while matches!(self.b.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn err<T>(&self, expected: &str) -> Result<T, String> {
        let found = match self.b.get(self.i) {
            None => "its end".to_owned(),
            Some(c) if c.is_ascii_graphic() => format!("'{}'", *c as char),
            Some(c) => format!("byte 0x{c:02x}"),
        };
        Err(format!("is malformed: expected {expected}, found {found} at byte {}", self.i))
    }

    fn eat(&mut self, c: u8) -> bool {
        let hit = self.b.get(self.i) == Some(&c);
        self.i += hit as usize;
        hit
    }

    fn word(&mut self, w: &str) -> bool {
        let hit = self.b[self.i..].starts_with(w.as_bytes())
            && !matches!(self.b.get(self.i + w.len()), Some(c) if c.is_ascii_alphanumeric() || *c == b'_');
        if hit {
            self.i += w.len();
        }
        hit
    }

    /// Items up to `close`, comma-separated, trailing comma allowed; also
    /// says whether any comma was seen.
    fn items(&mut self, close: u8, depth: usize) -> Result<(Vec<Py>, bool), String> {
        let (mut out, mut comma) = (Vec::new(), false);
        loop {
            self.ws();
            if self.eat(close) {
                return Ok((out, comma));
            }
            out.push(self.value(depth + 1)?);
            self.ws();
            if self.eat(b',') {
                comma = true;
                continue;
            }
            if self.eat(close) {
                return Ok((out, comma));
            }
            return self.err(&format!("',' or '{}'", close as char));
        }
    }

    fn value(&mut self, depth: usize) -> Result<Py, String> {
        if depth > 32 {
            return Err("is nested too deeply".into());
        }
        match self.b.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut out = Vec::new();
                loop {
                    self.ws();
                    if self.eat(b'}') {
                        return Ok(Py::Dict(out));
                    }
                    let k = self.value(depth + 1)?;
                    self.ws();
                    if !self.eat(b':') {
                        return self.err("':'");
                    }
                    self.ws();
                    let v = self.value(depth + 1)?;
                    out.push((k, v));
                    self.ws();
                    if self.eat(b',') {
                        continue;
                    }
                    if self.eat(b'}') {
                        return Ok(Py::Dict(out));
                    }
                    return self.err("',' or '}'");
                }
            }
            Some(b'(') => {
                self.i += 1;
                let (mut items, comma) = self.items(b')', depth)?;
                // `(3)` is just 3 in Python; `(3,)` is a tuple.
                if items.len() == 1 && !comma {
                    return Ok(items.remove(0));
                }
                Ok(Py::Tuple(items))
            }
            Some(b'[') => {
                self.i += 1;
                Ok(Py::List(self.items(b']', depth)?.0))
            }
            Some(&q @ (b'\'' | b'"')) => {
                self.i += 1;
                let mut s = Vec::new();
                loop {
                    match self.b.get(self.i) {
                        None => return self.err("the end of a string"),
                        Some(&c) if c == q => {
                            self.i += 1;
                            break;
                        }
                        Some(b'\\') => {
                            let c = self.b.get(self.i + 1).copied().ok_or("is malformed: unterminated string")?;
                            s.push(match c {
                                b'n' => b'\n',
                                b't' => b'\t',
                                b'r' => b'\r',
                                b'0' => 0,
                                c => c,
                            });
                            self.i += 2;
                        }
                        Some(&c) => {
                            s.push(c);
                            self.i += 1;
                        }
                    }
                }
                String::from_utf8(s).map(Py::Str).map_err(|_| "is malformed: a string is not UTF-8".into())
            }
            Some(b'0'..=b'9') => {
                let start = self.i;
                while matches!(self.b.get(self.i), Some(b'0'..=b'9')) {
                    self.i += 1;
                }
                let digits = std::str::from_utf8(&self.b[start..self.i]).unwrap_or("");
                let n = digits.parse::<u64>().map_err(|_| format!("has an integer out of range: {digits}"))?;
                let _ = self.eat(b'L'); // Python 2 long literals
                Ok(Py::Int(n))
            }
            _ if self.word("True") => Ok(Py::Bool(true)),
            _ if self.word("False") => Ok(Py::Bool(false)),
            _ if self.word("None") => Ok(Py::None),
            _ => self.err("a Python literal"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy(dict: &str, data: &[u8]) -> Vec<u8> {
        let mut h = dict.as_bytes().to_vec();
        while (h.len() + 11) % 64 != 0 {
            h.push(b' ');
        }
        h.push(b'\n');
        let mut v = MAGIC.to_vec();
        v.extend_from_slice(&[1, 0]);
        v.extend_from_slice(&(h.len() as u16).to_le_bytes());
        v.extend_from_slice(&h);
        v.extend_from_slice(data);
        v
    }

    #[test]
    fn headers() {
        let f = npy("{'descr': '>i2', 'fortran_order': False, 'shape': (2, 1), }", &[0, 1, 0, 2]);
        let (h, d) = parse(&f).unwrap();
        assert_eq!(
            (h.dtype, h.swap, h.fortran, h.shape.as_slice(), h.nbytes),
            (DType::I16, true, false, &[2u64, 1][..], 4)
        );
        assert_eq!(d, [0, 1, 0, 2]);
        let (h, _) = parse(&npy("{\"descr\":\"<c8\",\"fortran_order\":True,\"shape\":(3L,)}", &[0; 24])).unwrap();
        assert_eq!((h.dtype, h.logical, h.itemsize, h.fortran), (DType::F32, Some(LogicalType::Complex64), 8, true));
        let (h, _) = parse(&npy("{'descr': '|b1', 'fortran_order': False, 'shape': ()}", &[1])).unwrap();
        assert!(h.shape.is_empty());
        let err = |d: &str, data: &[u8]| parse(&npy(d, data)).unwrap_err();
        assert!(err("{'descr': '|O', 'fortran_order': False, 'shape': (1,)}", &[0; 8]).contains("object arrays"));
        assert!(err("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,)}", &[0; 4]).contains("structured"));
        assert!(err("{'descr': '<U3', 'fortran_order': False, 'shape': (1,)}", &[0; 12]).contains("string"));
        assert!(err("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", &[0; 4]).contains("truncated"));
        assert!(err("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", &[0; 5]).contains("unexpected bytes"));
        assert!(
            err("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", &[0; 4]).contains("unexpected key")
        );
        assert!(err("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}", &[0; 4]).contains("fortran_order"));
        assert!(err("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)", &[0; 4]).contains("malformed"));
        assert!(err("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}", &[0; 4]).contains("malformed"));
        assert!(parse(b"\x93NUMPY\x09\x00\x00\x00").unwrap_err().contains("version 9"));
        assert!(parse(b"PK\x03\x04").unwrap_err().contains("bad magic"));
    }

    #[test]
    fn fortran_transpose() {
        // 2x3 array [[0,1,2],[3,4,5]] in Fortran order: 0,3,1,4,2,5.
        assert_eq!(to_c_order(&[0, 3, 1, 4, 2, 5], &[2, 3], 1), [0, 1, 2, 3, 4, 5]);
        // 2x2x2 with 2-byte items; value = C index.
        let c: Vec<u8> = (0..8u8).collect();
        let shape = [2u64, 2, 2];
        let mut f = [0u8; 8];
        for i in 0..2 {
            for j in 0..2 {
                for k in 0..2 {
                    f[i + 2 * j + 4 * k] = c[4 * i + 2 * j + k];
                }
            }
        }
        let f2: Vec<u8> = f.iter().flat_map(|&b| [b, 0xee]).collect();
        let c2: Vec<u8> = c.iter().flat_map(|&b| [b, 0xee]).collect();
        assert_eq!(to_c_order(&f2, &shape, 2), c2);
        assert!(to_c_order(&[], &[0, 3], 4).is_empty());
    }
}
