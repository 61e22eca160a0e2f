//! `.safetensors` input: an 8-byte little-endian header size, a JSON header
//! (`{"name": {"dtype", "shape", "data_offsets"}, ..., "__metadata__": {..}}`),
//! then the tensors' bytes (little-endian, row-major).
//!
//! The JSON is read by serde_json into the small [`Json`] tree below, which
//! keeps document order and refuses duplicate keys and deep nesting.

use super::{slice_data, Out};
use crate::Fail;
use serde::de::{self, DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use std::fmt;
use ztensor::write::v1_2::NewObject;
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

/// A JSON value, as serde_json reads it, with objects kept in document
/// order and duplicate keys refused at every level.
#[derive(Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Num(serde_json::Number),
    Str(String),
    Arr(Vec<Json>),
    /// Entries in document order; duplicate keys are refused.
    Obj(Vec<(String, Json)>),
}

const MAX_DEPTH: usize = 64;

impl Json {
    /// Parse one JSON document (surrounding whitespace allowed).
    pub fn parse(s: &str) -> Result<Json, String> {
        let mut d = serde_json::Deserializer::from_str(s);
        let v = Level(0).deserialize(&mut d).map_err(|e| e.to_string())?;
        d.end().map_err(|e| e.to_string())?;
        Ok(v)
    }

    /// A non-negative integer that fits `u64`.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Num(n) => n.as_u64(),
            _ => None,
        }
    }
}

/// Reads a value nested `.0` levels deep.
#[derive(Clone, Copy)]
struct Level(usize);

impl<'de> DeserializeSeed<'de> for Level {
    type Value = Json;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        if self.0 > MAX_DEPTH {
            return Err(D::Error::custom(format!("JSON nested deeper than {MAX_DEPTH} levels")));
        }
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Level {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Json, E> {
        Ok(Json::Bool(b))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Json, E> {
        Ok(Json::Num(n.into()))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Json, E> {
        Ok(Json::Num(n.into()))
    }

    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(f).map(Json::Num).ok_or_else(|| E::custom("number out of range"))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Json, E> {
        Ok(Json::Str(s.to_owned()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(Level(self.0 + 1))? {
            out.push(v);
        }
        Ok(Json::Arr(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut out: Vec<(String, Json)> = Vec::new();
        while let Some(k) = map.next_key::<String>()? {
            if out.iter().any(|(e, _)| *e == k) {
                return Err(A::Error::custom(format!("duplicate key {k:?}")));
            }
            let v = map.next_value_seed(Level(self.0 + 1))?;
            out.push((k, v));
        }
        Ok(Json::Obj(out))
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
        let num = |s: &str| Json::parse(s).unwrap().as_u64();
        assert_eq!(num("18446744073709551615"), Some(u64::MAX));
        assert_eq!(num("18446744073709551616"), None);
        assert_eq!(num("-1"), None);
        assert_eq!(num("1.0"), None);
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
