//! Reading a GGUF file (versions 2 and 3, little-endian): the `GGUF`
//! magic, a u32 version, u64 tensor and metadata counts, the metadata
//! key/value pairs, the tensor infos (name, u32 `n_dims`, u64 dims fastest
//! first, u32 ggml type, u64 offset into the data section), then the data
//! section at the next multiple of `general.alignment` (default 32).
//!
//! Nothing is trusted: every length and count is checked against the bytes
//! left before anything is allocated for it, so a hostile header cannot
//! make the parser allocate more than a bounded multiple of the file's size
//! (the metadata is parsed into `AttrValue`s: an array element takes at
//! least one byte on disk and 32 bytes parsed, plus a string's text).
//! Each tensor's data must lie inside the file, start at a multiple of the
//! alignment and overlap no other tensor's; names and metadata keys must
//! be unique; quantized rows must be whole blocks.

use super::ggml::{self, GgmlType};
use std::collections::HashSet;
use ztensor::write::AttrValue;

/// The first four bytes of a GGUF file.
pub const MAGIC: &[u8] = b"GGUF";
/// ggml's `GGML_MAX_DIMS`.
pub const MAX_DIMS: u32 = 4;
/// Array nesting allowed in a metadata value (an array of arrays is 2):
/// what upstream 2.1.2 converts, and what v2's CBOR nesting limit (32)
/// leaves for a file attribute (the manifest, its attributes map, 30
/// arrays; the innermost array's elements are at level 32).
pub const MAX_NESTING: usize = 30;
/// `general.alignment` when the file does not set it.
pub const DEFAULT_ALIGNMENT: u64 = 32;
/// Smallest tensor info on disk: name length, `n_dims`, type, offset.
const MIN_TENSOR_INFO: u64 = 8 + 4 + 4 + 8;
/// Smallest metadata pair on disk: key length, value type, a 1-byte value.
const MIN_KV: u64 = 8 + 4 + 1;

/// A parsed GGUF file.
#[derive(Debug)]
pub struct Gguf<'a> {
    /// The metadata pairs in file order (`general.alignment` included).
    pub metadata: Vec<(String, AttrValue)>,
    /// Tensors in tensor-info order.
    pub tensors: Vec<Tensor<'a>>,
}

/// One tensor, checked and located.
#[derive(Debug)]
pub struct Tensor<'a> {
    pub name: String,
    /// Row-major (the GGUF dims reversed).
    pub shape: Vec<u64>,
    pub ty: GgmlType,
    /// Offset in the data section.
    pub offset: u64,
    /// Its bytes in the file.
    pub data: &'a [u8],
}

/// A read position in the file.
struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn left(&self) -> u64 {
        (self.b.len() - self.at) as u64
    }

    /// The next `n` bytes; `what` names the field when they are not there.
    fn take(&mut self, n: u64, what: impl Fn() -> String) -> Result<&'a [u8], String> {
        if n > self.left() {
            return Err(format!(
                "truncated GGUF: {} needs {n} bytes at byte {}, only {} left",
                what(),
                self.at,
                self.left()
            ));
        }
        let s = &self.b[self.at..self.at + n as usize];
        self.at += n as usize;
        Ok(s)
    }

    fn array<const N: usize>(&mut self, what: impl Fn() -> String) -> Result<[u8; N], String> {
        Ok(self.take(N as u64, what)?.try_into().unwrap_or([0; N]))
    }

    fn u32(&mut self, what: impl Fn() -> String) -> Result<u32, String> {
        self.array(what).map(u32::from_le_bytes)
    }

    fn u64(&mut self, what: impl Fn() -> String) -> Result<u64, String> {
        self.array(what).map(u64::from_le_bytes)
    }

    /// A u64 length, then that many bytes of UTF-8.
    fn string(&mut self, what: impl Fn() -> String) -> Result<&'a str, String> {
        let len = self.u64(|| format!("the length of {}", what()))?;
        let b = self.take(len, &what)?;
        std::str::from_utf8(b).map_err(|_| format!("{} is not UTF-8", what()))
    }

    /// One metadata value of GGUF value type `ty`, `depth` arrays down.
    fn value(&mut self, ty: u32, depth: usize, key: &str) -> Result<AttrValue, String> {
        let what = || format!("the value of metadata {key:?}");
        Ok(match ty {
            0 => AttrValue::Uint(self.array::<1>(what)?[0].into()),
            1 => int(i8::from_le_bytes(self.array(what)?).into()),
            2 => AttrValue::Uint(u16::from_le_bytes(self.array(what)?).into()),
            3 => int(i16::from_le_bytes(self.array(what)?).into()),
            4 => AttrValue::Uint(self.u32(what)?.into()),
            5 => int(i32::from_le_bytes(self.array(what)?).into()),
            6 => AttrValue::Float(f32::from_le_bytes(self.array(what)?).into()),
            7 => match self.array::<1>(what)?[0] {
                0 => AttrValue::Bool(false),
                1 => AttrValue::Bool(true),
                b => return Err(format!("metadata {key:?}: bool byte {b} is neither 0 nor 1")),
            },
            8 => AttrValue::Text(self.string(what)?.to_owned()),
            9 => self.array_value(depth, key)?,
            10 => AttrValue::Uint(self.u64(what)?),
            11 => int(i64::from_le_bytes(self.array(what)?)),
            12 => AttrValue::Float(f64::from_le_bytes(self.array(what)?)),
            t => return Err(format!("metadata {key:?}: unknown GGUF value type {t}")),
        })
    }

    /// An array value: element type, count, elements.
    fn array_value(&mut self, depth: usize, key: &str) -> Result<AttrValue, String> {
        if depth >= MAX_NESTING {
            return Err(format!("metadata {key:?}: arrays nested deeper than {MAX_NESTING}"));
        }
        let ty = self.u32(|| format!("the array element type of metadata {key:?}"))?;
        let count = self.u64(|| format!("the array length of metadata {key:?}"))?;
        let min = min_size(ty).ok_or_else(|| format!("metadata {key:?}: unknown GGUF value type {ty}"))?;
        if count.saturating_mul(min) > self.left() {
            return Err(format!(
                "metadata {key:?}: an array of {count} elements needs at least {} bytes, only {} left",
                count.saturating_mul(min),
                self.left()
            ));
        }
        let mut items = Vec::with_capacity(count as usize);
        for _ in 0..count {
            items.push(self.value(ty, depth + 1, key)?);
        }
        Ok(AttrValue::Array(items))
    }
}

/// A signed GGUF integer as CBOR.
fn int(v: i64) -> AttrValue {
    if v < 0 {
        AttrValue::NegInt(!(v as u64))
    } else {
        AttrValue::Uint(v as u64)
    }
}

/// Bytes one value of a GGUF value type takes at least.
fn min_size(ty: u32) -> Option<u64> {
    Some(match ty {
        0 | 1 | 7 => 1,
        2 | 3 => 2,
        4..=6 => 4,
        8 | 10..=12 => 8,
        9 => 12,
        _ => return None,
    })
}

fn check_count(n: u64, min: u64, left: u64, what: &str) -> Result<(), String> {
    if n.saturating_mul(min) > left {
        return Err(format!(
            "GGUF claims {n} {what}, which need at least {} bytes, only {left} left",
            n.saturating_mul(min)
        ));
    }
    Ok(())
}

/// A tensor info as read, before it is checked.
struct Info {
    name: String,
    /// GGUF order: fastest first.
    dims: Vec<u64>,
    ty: u32,
    offset: u64,
}

/// Parse and check a whole GGUF file.
pub fn parse(b: &[u8]) -> Result<Gguf<'_>, String> {
    let mut c = Cursor { b, at: 0 };
    if c.take(4, || "the magic".into())? != MAGIC {
        return Err("not a GGUF file (no GGUF magic)".into());
    }
    let version = c.u32(|| "the version".into())?;
    match version {
        2 | 3 => {}
        1 => return Err("GGUF version 1 is not supported (only versions 2 and 3)".into()),
        v if matches!(v.swap_bytes(), 1..=3) => {
            return Err(format!("big-endian GGUF (version {}) is not supported", v.swap_bytes()))
        }
        v => return Err(format!("GGUF version {v} is not supported (only versions 2 and 3)")),
    }
    let n_tensors = c.u64(|| "the tensor count".into())?;
    let n_kv = c.u64(|| "the metadata count".into())?;
    check_count(n_kv, MIN_KV, c.left(), "metadata pairs")?;
    check_count(n_tensors, MIN_TENSOR_INFO, c.left(), "tensors")?;

    let mut metadata: Vec<(String, AttrValue)> = Vec::with_capacity(n_kv as usize);
    let mut keys = HashSet::with_capacity(n_kv as usize);
    let mut alignment = DEFAULT_ALIGNMENT;
    for i in 0..n_kv {
        let key = c.string(|| format!("metadata key {i}"))?;
        let ty = c.u32(|| format!("the value type of metadata {key:?}"))?;
        let value = c.value(ty, 0, key)?;
        if !keys.insert(key) {
            return Err(format!("duplicate metadata key {key:?}"));
        }
        if key == "general.alignment" {
            alignment = match value {
                AttrValue::Uint(a) if a.is_power_of_two() => a,
                _ => return Err("metadata \"general.alignment\" is not a power-of-two unsigned integer".into()),
            };
        }
        metadata.push((key.to_owned(), value));
    }

    let mut infos = Vec::with_capacity(n_tensors as usize);
    for i in 0..n_tensors {
        let name = c.string(|| format!("the name of tensor {i}"))?.to_owned();
        let n_dims = c.u32(|| format!("the dimension count of tensor {name:?}"))?;
        if n_dims > MAX_DIMS {
            return Err(format!("tensor {name:?} has {n_dims} dimensions (GGUF allows at most {MAX_DIMS})"));
        }
        let mut dims = Vec::with_capacity(n_dims as usize);
        for d in 0..n_dims {
            dims.push(c.u64(|| format!("dimension {d} of tensor {name:?}"))?);
        }
        let ty = c.u32(|| format!("the type of tensor {name:?}"))?;
        let offset = c.u64(|| format!("the data offset of tensor {name:?}"))?;
        infos.push(Info { name, dims, ty, offset });
    }

    let data_start = (c.at as u64)
        .checked_next_multiple_of(alignment)
        .filter(|s| *s <= b.len() as u64 || infos.is_empty())
        .ok_or_else(|| {
            format!("the data section (aligned to {alignment}) would start past the end of the file ({} bytes)", b.len())
        })?;
    let tensors = locate(infos, b, data_start, alignment)?;
    Ok(Gguf { metadata, tensors })
}

/// Check every tensor info and find its bytes in the data section.
fn locate(infos: Vec<Info>, b: &[u8], data_start: u64, alignment: u64) -> Result<Vec<Tensor<'_>>, String> {
    let mut names = HashSet::with_capacity(infos.len());
    for i in &infos {
        if !names.insert(i.name.as_str()) {
            return Err(format!("duplicate tensor name {:?}", i.name));
        }
    }
    let section = b.len() as u64 - data_start.min(b.len() as u64);
    let mut tensors = Vec::with_capacity(infos.len());
    for Info { name, dims, ty, offset } in infos {
        let bad = |msg: String| format!("tensor {name:?}: {msg}");
        let ty = ggml::lookup(ty).map_err(bad)?;
        if let Some(d) = dims.iter().find(|d| **d > i64::MAX as u64) {
            return Err(bad(format!("dimension {d} is past ggml's limit (2^63 - 1)")));
        }
        let elements = elements(&dims)
            .ok_or_else(|| bad(format!("the product of its dimensions {dims:?} overflows 64 bits")))?;
        let fastest = dims.first().copied().unwrap_or(1);
        if fastest % ty.elems_per_block != 0 {
            return Err(bad(format!(
                "its fastest-varying dimension {fastest} is not a multiple of {}, the block size of {}",
                ty.elems_per_block, ty.name
            )));
        }
        let size = (elements / ty.elems_per_block)
            .checked_mul(ty.block_bytes)
            .ok_or_else(|| bad(format!("its size in bytes ({elements} {} elements) overflows 64 bits", ty.name)))?;
        if offset % alignment != 0 {
            return Err(bad(format!("data offset {offset} is not a multiple of the alignment {alignment}")));
        }
        if offset.checked_add(size).is_none_or(|end| end > section) {
            return Err(bad(format!(
                "its {size} bytes at data offset {offset} extend past the end of the file (the data section holds {section} bytes)"
            )));
        }
        let start = (data_start + offset) as usize;
        let data = &b[start..start + size as usize];
        let mut shape = dims;
        shape.reverse();
        tensors.push(Tensor { name, shape, ty, offset, data });
    }
    no_overlap(&tensors)?;
    Ok(tensors)
}

/// The product of `dims`: 0 if any is 0 (in whatever order, as the v2
/// reader counts), `None` if it overflows.
pub fn elements(dims: &[u64]) -> Option<u64> {
    if dims.contains(&0) {
        return Some(0);
    }
    dims.iter().try_fold(1u64, |n, d| n.checked_mul(*d))
}

/// Refuse two tensors whose (non-empty) bytes overlap.
fn no_overlap(tensors: &[Tensor<'_>]) -> Result<(), String> {
    let mut spans: Vec<(u64, u64, &str)> = tensors
        .iter()
        .filter(|t| !t.data.is_empty())
        .map(|t| (t.offset, t.offset + t.data.len() as u64, t.name.as_str()))
        .collect();
    spans.sort_unstable();
    for w in spans.windows(2) {
        let ((_, end, a), (start, _, b)) = (w[0], w[1]);
        if start < end {
            return Err(format!("the data of tensors {a:?} and {b:?} overlap"));
        }
    }
    Ok(())
}
