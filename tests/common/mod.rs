//! Builders for hand-made zTensor files, shared by the integration tests.
//!
//! * [`Value`] (ciborium's, which keeps map order and allows duplicate keys)
//!   plus the small constructors below build manifests that are well-formed
//!   CBOR; [`encode`] turns them into bytes.
//! * [`Cbor`] (`cbor.rs`, on minicbor, shared with the fuzz harness) writes
//!   raw CBOR item by item, for what ciborium cannot express: indefinite
//!   lengths, non-UTF-8 text, reserved additional information, stray
//!   breaks, deep nesting, non-minimal heads, claimed lengths with no data
//!   behind them.
//! * [`Blobs`] lays out the data region (blobs at 64-aligned offsets, zero
//!   padding) and [`v1_file`] / [`v0_file`] wrap it with a header, a manifest
//!   and a footer exactly as the reference writers do (see
//!   `tests/fixtures/NOTES.md`): the manifest follows the last blob directly.
//!
//! ```ignore
//! let mut blobs = Blobs::new();
//! let off = blobs.add(&[0u8; 16]);
//! let m = manifest("1.2.0", vec![("w", dense("f32", &[4], off, 16))]);
//! let bytes = v1_file(&blobs, &encode(&m));
//! ```
#![allow(dead_code)]

pub use ciborium::value::Value;

/// Header and footer magic of v1.x files.
pub const MAGIC_V1: &[u8; 8] = b"ZTEN1000";
/// Header magic of v0.1 files.
pub const MAGIC_V0: &[u8; 8] = b"ZTEN0001";
/// Blob alignment.
pub const ALIGN: u64 = 64;

// ---------------------------------------------------------------- values

/// A text string.
pub fn text(s: &str) -> Value {
    Value::Text(s.to_owned())
}

/// An unsigned integer.
pub fn uint(n: u64) -> Value {
    Value::Integer(n.into())
}

/// A (possibly negative) integer.
pub fn int(n: i64) -> Value {
    Value::Integer(n.into())
}

/// CBOR null.
pub fn null() -> Value {
    Value::Null
}

/// An array.
pub fn arr(items: impl IntoIterator<Item = Value>) -> Value {
    Value::Array(items.into_iter().collect())
}

/// A map with text keys, in the given order (duplicates kept).
pub fn map<'k>(entries: impl IntoIterator<Item = (&'k str, Value)>) -> Value {
    Value::Map(entries.into_iter().map(|(k, v)| (text(k), v)).collect())
}

/// A map with arbitrary keys, in the given order (duplicates kept).
pub fn map_any(entries: impl IntoIterator<Item = (Value, Value)>) -> Value {
    Value::Map(entries.into_iter().collect())
}

/// A `shape` array.
pub fn shape(dims: &[u64]) -> Value {
    arr(dims.iter().map(|&d| uint(d)))
}

/// A component map: `dtype`, `offset`, `length`.
pub fn comp(dtype: &str, offset: u64, length: u64) -> Value {
    map([
        ("dtype", text(dtype)),
        ("offset", uint(offset)),
        ("length", uint(length)),
    ])
}

/// A component map with extra fields appended after the required ones.
pub fn comp_with<'k>(
    dtype: &str,
    offset: u64,
    length: u64,
    extra: impl IntoIterator<Item = (&'k str, Value)>,
) -> Value {
    let mut m = comp(dtype, offset, length);
    push(&mut m, extra);
    m
}

/// An object map: `shape`, `format`, `components`.
pub fn obj<'k>(
    dims: &[u64],
    format: &str,
    comps: impl IntoIterator<Item = (&'k str, Value)>,
) -> Value {
    map([
        ("shape", shape(dims)),
        ("format", text(format)),
        ("components", map(comps)),
    ])
}

/// A dense object with one raw `data` component.
pub fn dense(dtype: &str, dims: &[u64], offset: u64, length: u64) -> Value {
    obj(dims, "dense", [("data", comp(dtype, offset, length))])
}

/// A v1.x root map: `version`, `objects` (in the given order, duplicates kept).
pub fn manifest<'k>(version: &str, objects: impl IntoIterator<Item = (&'k str, Value)>) -> Value {
    map([("version", text(version)), ("objects", map(objects))])
}

/// Append text-keyed entries to a map value.
pub fn push<'k>(m: &mut Value, extra: impl IntoIterator<Item = (&'k str, Value)>) {
    match m {
        Value::Map(entries) => entries.extend(extra.into_iter().map(|(k, v)| (text(k), v))),
        _ => panic!("push: not a map"),
    }
}

/// Replace (or add) a text-keyed entry of a map value.
pub fn set(m: &mut Value, key: &str, v: Value) {
    match m {
        Value::Map(entries) => match entries.iter_mut().find(|(k, _)| k.as_text() == Some(key)) {
            Some(e) => e.1 = v,
            None => entries.push((text(key), v)),
        },
        _ => panic!("set: not a map"),
    }
}

/// Remove a text-keyed entry of a map value.
pub fn remove(m: &mut Value, key: &str) {
    match m {
        Value::Map(entries) => entries.retain(|(k, _)| k.as_text() != Some(key)),
        _ => panic!("remove: not a map"),
    }
}

/// The value of a text key (mutable), for editing nested maps.
pub fn at<'v>(m: &'v mut Value, key: &str) -> &'v mut Value {
    match m {
        Value::Map(entries) => {
            &mut entries
                .iter_mut()
                .find(|(k, _)| k.as_text() == Some(key))
                .expect("key")
                .1
        }
        _ => panic!("at: not a map"),
    }
}

/// Encode a value as CBOR (definite lengths, minimal heads).
pub fn encode(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    ciborium::ser::into_writer(v, &mut out).expect("encode");
    out
}

// ---------------------------------------------------------------- raw CBOR

mod cbor;
pub use cbor::Cbor;

/// [`Cbor::raw`] of a value encoded by ciborium.
pub trait CborValue {
    fn value(&mut self, v: &Value) -> &mut Self;
}

impl CborValue for Cbor {
    fn value(&mut self, v: &Value) -> &mut Self {
        let b = encode(v);
        self.raw(&b)
    }
}

// ---------------------------------------------------------------- files

/// The data region of a file, from offset 0 (the first 8 bytes are the
/// header's place): blobs at 64-aligned offsets, zero padding between.
#[derive(Clone, Debug)]
pub struct Blobs {
    buf: Vec<u8>,
}

impl Default for Blobs {
    fn default() -> Self {
        Self::new()
    }
}

impl Blobs {
    /// An empty data region: the manifest would start at 8.
    pub fn new() -> Self {
        Blobs { buf: vec![0; 8] }
    }

    /// Zero-pad to the next multiple of 64.
    pub fn pad(&mut self) -> &mut Self {
        let n = self.buf.len().next_multiple_of(ALIGN as usize);
        self.buf.resize(n, 0);
        self
    }

    /// Add a blob at the next 64-aligned offset; returns that offset.
    pub fn add(&mut self, bytes: &[u8]) -> u64 {
        self.pad();
        let off = self.buf.len() as u64;
        self.buf.extend_from_slice(bytes);
        off
    }

    /// Add `n` bytes of a repeating pattern (1, 2, 3, ...).
    pub fn add_len(&mut self, n: usize) -> u64 {
        let b: Vec<u8> = (0..n).map(|i| (i % 251) as u8 + 1).collect();
        self.add(&b)
    }

    /// A zero-length blob: the next 64-aligned offset (pads up to it, as the
    /// reference writer does).
    pub fn add_empty(&mut self) -> u64 {
        self.pad();
        self.buf.len() as u64
    }

    /// Where the manifest will start.
    pub fn end(&self) -> u64 {
        self.buf.len() as u64
    }

    /// The region's bytes (header place included, zeroed).
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }
}

/// Assemble a file: `header`, the data region after its first 8 bytes,
/// the manifest, `size` as u64 LE, and `footer` (none for v0.1).
pub fn assemble(
    header: &[u8; 8],
    blobs: &Blobs,
    manifest: &[u8],
    size: u64,
    footer: Option<&[u8; 8]>,
) -> Vec<u8> {
    let mut f = Vec::with_capacity(blobs.buf.len() + manifest.len() + 16);
    f.extend_from_slice(header);
    f.extend_from_slice(&blobs.buf[8..]);
    f.extend_from_slice(manifest);
    f.extend_from_slice(&size.to_le_bytes());
    if let Some(m) = footer {
        f.extend_from_slice(m);
    }
    f
}

/// A v1.x file: `ZTEN1000`, blobs, manifest, u64 LE size, `ZTEN1000`.
pub fn v1_file(blobs: &Blobs, manifest: &[u8]) -> Vec<u8> {
    assemble(
        MAGIC_V1,
        blobs,
        manifest,
        manifest.len() as u64,
        Some(MAGIC_V1),
    )
}

/// A v1.x file with no blobs: the manifest starts at 8.
pub fn v1_manifest_only(manifest: &[u8]) -> Vec<u8> {
    v1_file(&Blobs::new(), manifest)
}

/// A v0.1 file: `ZTEN0001`, blobs, manifest (a CBOR array), u64 LE size as
/// the last 8 bytes.
pub fn v0_file(blobs: &Blobs, manifest: &[u8]) -> Vec<u8> {
    assemble(MAGIC_V0, blobs, manifest, manifest.len() as u64, None)
}

/// A v0.1 tensor map (definite length): name, offset, size, dtype, shape, encoding.
pub fn v0_tensor(name: &str, dtype: &str, dims: &[u64], offset: u64, size: u64) -> Value {
    map([
        ("name", text(name)),
        ("offset", uint(offset)),
        ("size", uint(size)),
        ("dtype", text(dtype)),
        ("shape", shape(dims)),
        ("encoding", text("raw")),
    ])
}

/// Where the manifest of a well-formed file starts and how long it is
/// (from its footer / trailer).
pub fn manifest_range(file: &[u8]) -> std::ops::Range<usize> {
    let n = file.len();
    let (size_at, trailer) = if file.ends_with(MAGIC_V1) {
        (n - 16, 16)
    } else {
        (n - 8, 8)
    };
    let size = u64::from_le_bytes(file[size_at..size_at + 8].try_into().unwrap()) as usize;
    let start = n - trailer - size;
    start..start + size
}

/// Byte position of the first occurrence of `needle` in `hay` at or after `from`.
pub fn find_from(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// Byte position of the first occurrence of `needle` in `hay`.
pub fn find(hay: &[u8], needle: &[u8]) -> usize {
    find_from(hay, needle, 0).unwrap_or_else(|| panic!("{needle:02x?} not found"))
}

/// Byte position of the last occurrence of `needle` in `hay`.
pub fn rfind(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len())
        .rposition(|w| w == needle)
        .unwrap_or_else(|| panic!("{needle:02x?} not found"))
}

/// The CBOR encoding of a text string (to search a manifest for a key).
pub fn ctext(s: &str) -> Vec<u8> {
    Cbor::new().text(s).build()
}
