//! `.safetensors` input: an 8-byte little-endian header size, a JSON header
//! (`{"name": {"dtype", "shape", "data_offsets"}, ..., "__metadata__": {..}}`),
//! then the tensors' bytes (little-endian, row-major).
//!
//! The JSON is parsed by the small strict parser below (duplicate keys are
//! refused, nesting is bounded): a header is a few kilobytes of plain JSON,
//! and owning the parser keeps the messages exact.

use super::{slice_data, Out};
use crate::Fail;
use ztensor::write::NewObject;
use ztensor::{DType, LogicalType};

/// One tensor of the file.
pub struct Tensor<'a> {
    pub name: String,
    pub shape: Vec<u64>,
    pub dtype: DType,
    pub logical: Option<LogicalType<'static>>,
    pub bytes: &'a [u8],
    begin: u64,
}

/// A parsed file: tensors in data order, and `__metadata__`.
pub struct Safetensors<'a> {
    pub tensors: Vec<Tensor<'a>>,
    pub metadata: Vec<(String, String)>,
}

/// The zTensor storage type (and logical type) of a safetensors dtype, and
/// its size in bits.
pub fn map_dtype(s: &str) -> Option<(DType, Option<LogicalType<'static>>, u64)> {
    use DType::*;
    Some(match s {
        "BOOL" => (Bool, None, 8),
        "U8" => (U8, None, 8),
        "I8" => (I8, None, 8),
        "I16" => (I16, None, 16),
        "U16" => (U16, None, 16),
        "F16" => (F16, None, 16),
        "BF16" => (BF16, None, 16),
        "I32" => (I32, None, 32),
        "U32" => (U32, None, 32),
        "F32" => (F32, None, 32),
        "F64" => (F64, None, 64),
        "I64" => (I64, None, 64),
        "U64" => (U64, None, 64),
        // torch.float8_e4m3fn / float8_e5m2: the spec's FP8 logical types on u8.
        "F8_E4M3" => (U8, Some(LogicalType::F8E4M3Fn), 8),
        "F8_E5M2" => (U8, Some(LogicalType::F8E5M2), 8),
        // OCP MX scale type (torch.float8_e8m0fnu): not in the spec's list;
        // the spec's logical types are open, ml_dtypes' name is used.
        "F8_E8M0" => (U8, Some(LogicalType::Other("f8_e8m0fnu")), 8),
        // Sub-byte OCP MX types, packed as safetensors packs them (the shape
        // counts elements; the bytes are elements × bits / 8).
        "F4" => (U8, Some(LogicalType::Other("f4_e2m1fn")), 4),
        "F6_E2M3" => (U8, Some(LogicalType::Other("f6_e2m3fn")), 6),
        "F6_E3M2" => (U8, Some(LogicalType::Other("f6_e3m2fn")), 6),
        // Interleaved [re, im] f32 pairs (newer safetensors releases).
        "C64" => (F32, Some(LogicalType::Complex64), 64),
        _ => return None,
    })
}

/// Parse and check the header; every tensor's bytes are located and sized.
pub fn parse(bytes: &[u8]) -> Result<Safetensors<'_>, String> {
    if bytes.len() < 8 {
        return Err(format!("file too small for a safetensors header ({} bytes)", bytes.len()));
    }
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap_or_default());
    let rest = bytes.len() as u64 - 8;
    if n > rest {
        return Err(format!("safetensors header size {n} exceeds the {rest} bytes that follow it (truncated file?)"));
    }
    let header =
        std::str::from_utf8(&bytes[8..8 + n as usize]).map_err(|_| "safetensors header is not UTF-8".to_owned())?;
    let data = &bytes[8 + n as usize..];
    let root = Json::parse(header).map_err(|e| format!("safetensors header: {e}"))?;
    let Json::Obj(entries) = root else {
        return Err("safetensors header is not a JSON object".into());
    };
    let mut out = Safetensors { tensors: Vec::new(), metadata: Vec::new() };
    for (name, v) in entries {
        if name == "__metadata__" {
            let Json::Obj(m) = v else { return Err("safetensors __metadata__ is not a JSON object".into()) };
            for (k, v) in m {
                let Json::Str(s) = v else {
                    return Err(format!("safetensors __metadata__ value of {k:?} is not a string"));
                };
                out.metadata.push((k, s));
            }
            continue;
        }
        let t = tensor(&name, v, data).map_err(|e| format!("tensor {name:?}: {e}"))?;
        out.tensors.push(t);
    }
    // Data order (then name): the output streams through the input once.
    out.tensors.sort_by(|a, b| (a.begin, &a.name).cmp(&(b.begin, &b.name)));
    Ok(out)
}

fn tensor<'a>(name: &str, v: Json, data: &'a [u8]) -> Result<Tensor<'a>, String> {
    let Json::Obj(fields) = v else { return Err("not a JSON object".into()) };
    let get = |k: &str| fields.iter().find(|(f, _)| f == k).map(|(_, v)| v);
    let dtype = match get("dtype") {
        Some(Json::Str(s)) => s.clone(),
        Some(_) => return Err("`dtype` is not a string".into()),
        None => return Err("missing `dtype`".into()),
    };
    let (dt, logical, bits) = map_dtype(&dtype).ok_or_else(|| format!("unsupported safetensors dtype {dtype:?}"))?;
    let shape = match get("shape") {
        Some(Json::Arr(a)) => a.iter().map(Json::as_u64).collect::<Option<Vec<u64>>>(),
        _ => None,
    }
    .ok_or("`shape` is not an array of non-negative integers")?;
    let offsets = match get("data_offsets") {
        Some(Json::Arr(a)) if a.len() == 2 => a.iter().map(Json::as_u64).collect::<Option<Vec<u64>>>(),
        _ => None,
    }
    .ok_or("`data_offsets` is not a pair of non-negative integers")?;
    let (begin, end) = (offsets[0], offsets[1]);
    if begin > end || end > data.len() as u64 {
        return Err(format!(
            "data_offsets [{begin}, {end}] lie outside the {} bytes of data (truncated file?)",
            data.len()
        ));
    }
    let numel = shape.iter().try_fold(1u64, |a, &d| a.checked_mul(d)).ok_or("shape overflows")?;
    let bits_total = numel.checked_mul(bits).ok_or("shape overflows")?;
    if bits_total % 8 != 0 {
        return Err(format!("{numel} elements of {dtype} do not fill whole bytes"));
    }
    if end - begin != bits_total / 8 {
        return Err(format!(
            "shape {shape:?} of {dtype} needs {} bytes, data_offsets give {}",
            bits_total / 8,
            end - begin
        ));
    }
    Ok(Tensor { name: name.to_owned(), shape, dtype: dt, logical, bytes: &data[begin as usize..end as usize], begin })
}

impl Safetensors<'_> {
    /// Bytes to convert.
    pub fn total(&self) -> u64 {
        self.tensors.iter().map(|t| t.bytes.len() as u64).sum()
    }

    /// Write every tensor as a dense object, `__metadata__` as text file attributes.
    pub fn write(&self, out: &mut Out) -> Result<(), Fail> {
        for (k, v) in &self.metadata {
            out.set_attribute(k, v.as_str().into())?;
        }
        for t in &self.tensors {
            let mut obj = NewObject::dense(t.name.as_str(), &t.shape, t.dtype, slice_data(t.bytes, &out.progress));
            if let Some(l) = t.logical {
                obj = obj.logical_type(l);
            }
            out.add(obj)?;
        }
        Ok(())
    }
}

// ------------------------------------------------------------------ JSON

/// A JSON value. Numbers are kept as their text.
#[derive(Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<Json>),
    /// Entries in document order; duplicate keys are refused.
    Obj(Vec<(String, Json)>),
}

const MAX_DEPTH: usize = 64;

impl Json {
    /// Parse one JSON document (surrounding whitespace allowed).
    pub fn parse(s: &str) -> Result<Json, String> {
        let mut p = Parser { b: s.as_bytes(), i: 0 };
        p.ws();
        let v = p.value(0)?;
        p.ws();
        if p.i != p.b.len() {
            return Err(format!("unexpected {} at byte {}", p.what(), p.i));
        }
        Ok(v)
    }

    /// A non-negative integer that fits `u64`.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Num(s) if s.bytes().all(|c| c.is_ascii_digit()) => s.parse().ok(),
            _ => None,
        }
    }
}

struct Parser<'s> {
    b: &'s [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while matches!(self.b.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn what(&self) -> String {
        match self.b.get(self.i) {
            None => "end of header".into(),
            Some(c) if c.is_ascii_graphic() => format!("'{}'", *c as char),
            Some(c) => format!("byte 0x{c:02x}"),
        }
    }

    fn err<T>(&self, expected: &str) -> Result<T, String> {
        Err(format!("expected {expected}, found {} at byte {}", self.what(), self.i))
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.b.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > MAX_DEPTH {
            return Err(format!("JSON nested deeper than {MAX_DEPTH} levels"));
        }
        match self.b.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut out: Vec<(String, Json)> = Vec::new();
                self.ws();
                if self.eat(b'}') {
                    return Ok(Json::Obj(out));
                }
                loop {
                    self.ws();
                    if self.b.get(self.i) != Some(&b'"') {
                        return self.err("a string key");
                    }
                    let k = self.string()?;
                    if out.iter().any(|(e, _)| *e == k) {
                        return Err(format!("duplicate key {k:?}"));
                    }
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
                        return Ok(Json::Obj(out));
                    }
                    return self.err("',' or '}'");
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut out = Vec::new();
                self.ws();
                if self.eat(b']') {
                    return Ok(Json::Arr(out));
                }
                loop {
                    self.ws();
                    out.push(self.value(depth + 1)?);
                    self.ws();
                    if self.eat(b',') {
                        continue;
                    }
                    if self.eat(b']') {
                        return Ok(Json::Arr(out));
                    }
                    return self.err("',' or ']'");
                }
            }
            Some(b'"') => Ok(Json::Str(self.string()?)),
            Some(b't') if self.b[self.i..].starts_with(b"true") => {
                self.i += 4;
                Ok(Json::Bool(true))
            }
            Some(b'f') if self.b[self.i..].starts_with(b"false") => {
                self.i += 5;
                Ok(Json::Bool(false))
            }
            Some(b'n') if self.b[self.i..].starts_with(b"null") => {
                self.i += 4;
                Ok(Json::Null)
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => self.err("a JSON value"),
        }
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.i;
        self.eat(b'-');
        let digits = |p: &mut Self| {
            let s = p.i;
            while matches!(p.b.get(p.i), Some(b'0'..=b'9')) {
                p.i += 1;
            }
            p.i - s
        };
        let int_start = self.i;
        let n = digits(self);
        if n == 0 || (n > 1 && self.b[int_start] == b'0') {
            self.i = start;
            return self.err("a number");
        }
        if self.eat(b'.') && digits(self) == 0 {
            return self.err("a digit");
        }
        if self.eat(b'e') || self.eat(b'E') {
            let _ = self.eat(b'+') || self.eat(b'-');
            if digits(self) == 0 {
                return self.err("a digit");
            }
        }
        Ok(Json::Num(String::from_utf8_lossy(&self.b[start..self.i]).into_owned()))
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let h = self.b.get(self.i..self.i + 4).and_then(|h| std::str::from_utf8(h).ok());
        let v = h.and_then(|h| u32::from_str_radix(h, 16).ok().filter(|_| h.bytes().all(|c| c.is_ascii_hexdigit())));
        match v {
            Some(v) => {
                self.i += 4;
                Ok(v)
            }
            None => self.err("4 hex digits"),
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.i += 1; // the opening quote
        let mut out = String::new();
        loop {
            let start = self.i;
            while matches!(self.b.get(self.i), Some(c) if *c != b'"' && *c != b'\\' && *c >= 0x20) {
                self.i += 1;
            }
            // The input is a &str and we stopped at ASCII: a char boundary.
            out.push_str(std::str::from_utf8(&self.b[start..self.i]).map_err(|e| e.to_string())?);
            match self.b.get(self.i) {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let c = self.b.get(self.i).copied();
                    self.i += 1;
                    match c {
                        Some(b'"') => out.push('"'),
                        Some(b'\\') => out.push('\\'),
                        Some(b'/') => out.push('/'),
                        Some(b'b') => out.push('\u{8}'),
                        Some(b'f') => out.push('\u{c}'),
                        Some(b'n') => out.push('\n'),
                        Some(b'r') => out.push('\r'),
                        Some(b't') => out.push('\t'),
                        Some(b'u') => {
                            let hi = self.hex4()?;
                            let cp = if (0xD800..0xDC00).contains(&hi) {
                                if !(self.eat(b'\\') && self.eat(b'u')) {
                                    return self.err("a low surrogate escape");
                                }
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(format!("invalid surrogate pair in string at byte {}", self.i));
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else {
                                hi
                            };
                            match char::from_u32(cp) {
                                Some(ch) => out.push(ch),
                                None => return Err(format!("lone surrogate \\u{hi:04x} in string")),
                            }
                        }
                        _ => {
                            self.i -= 1;
                            return self.err("an escape character");
                        }
                    }
                }
                None => return Err("unterminated string".into()),
                Some(_) => return self.err("no control characters in strings"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json() {
        let v =
            Json::parse(r#" {"a": [1, -2.5e3, true, false, null], "b\u00e9\ud83d\ude00": "x\"\n", "c": {}} "#).unwrap();
        let Json::Obj(e) = v else { panic!() };
        assert_eq!(e[0].0, "a");
        assert_eq!(e[1].0, "bé😀");
        assert_eq!(e[1].1, Json::Str("x\"\n".into()));
        assert_eq!(Json::Num("18446744073709551615".into()).as_u64(), Some(u64::MAX));
        assert_eq!(Json::Num("18446744073709551616".into()).as_u64(), None);
        assert_eq!(Json::Num("-1".into()).as_u64(), None);
        assert_eq!(Json::Num("1.0".into()).as_u64(), None);
        for bad in [
            "",
            "{",
            "{\"a\":1,}",
            "[1,]",
            "{\"a\":1,\"a\":2}",
            "01",
            "1.",
            "\"\\x\"",
            "\"a",
            "\"\\ud800\"",
            "{} x",
            "\"\t\"",
            "nul",
            "-",
        ] {
            assert!(Json::parse(bad).is_err(), "{bad:?}");
        }
        let deep = "[".repeat(100) + &"]".repeat(100);
        assert!(Json::parse(&deep).unwrap_err().contains("deeper"));
    }

    fn file(header: &str, data: &[u8]) -> Vec<u8> {
        let mut v = (header.len() as u64).to_le_bytes().to_vec();
        v.extend_from_slice(header.as_bytes());
        v.extend_from_slice(data);
        v
    }

    #[test]
    fn headers() {
        let f = file(
            r#"{"b":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[4,6]},"a":{"dtype":"I16","shape":[2],"data_offsets":[0,4]},"__metadata__":{"k":"v"}}  "#,
            &[1, 2, 3, 4, 5, 6],
        );
        let s = parse(&f).unwrap();
        assert_eq!(s.metadata, [("k".to_owned(), "v".to_owned())]);
        assert_eq!(s.tensors[0].name, "a");
        assert_eq!(s.tensors[0].bytes, [1, 2, 3, 4]);
        assert_eq!(s.tensors[1].logical, Some(LogicalType::F8E4M3Fn));
        let err = |h: &str, d: &[u8]| parse(&file(h, d)).err().unwrap();
        assert!(err(r#"{"a":{"dtype":"Q9","shape":[1],"data_offsets":[0,1]}}"#, &[0])
            .contains("unsupported safetensors dtype \"Q9\""));
        assert!(err(r#"{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,1]}}"#, &[0]).contains("needs 2 bytes"));
        assert!(err(r#"{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}}"#, &[0]).contains("outside"));
        assert!(err(r#"{"__metadata__":{"k":1}}"#, &[]).contains("not a string"));
        assert!(err(r#"[]"#, &[]).contains("not a JSON object"));
        assert!(parse(&[1, 0, 0]).err().unwrap().contains("too small"));
        assert!(parse(&[9, 0, 0, 0, 0, 0, 0, 0, b'{']).err().unwrap().contains("exceeds"));
        // F4: two elements per byte.
        let f4 = file(r#"{"q":{"dtype":"F4","shape":[2,3],"data_offsets":[0,3]}}"#, &[0; 3]);
        let s = parse(&f4).unwrap();
        assert_eq!(s.tensors[0].logical, Some(LogicalType::Other("f4_e2m1fn")));
        assert!(err(r#"{"q":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}}"#, &[0; 2]).contains("whole bytes"));
    }
}
