//! (d) structured: arbitrary manifests around real blobs. The descriptions
//! (`Arbitrary`), the entry points and the checks; `encode` turns a
//! description into a file.

use super::*;

mod encode;
use encode::*;

// ====================================================================
// (d) structured: arbitrary manifests around real blobs
// ====================================================================

#[derive(Arbitrary, Debug)]
pub struct SFile {
    v0: bool,
    version: SVersion,
    root_attrs: Option<Vec<(SKey, SAttr)>>,
    root_extra: Option<SAttr>,
    objects: Vec<SObject>,
    blobs: Vec<SBlob>,
    /// Rarely, one corrupted byte of the file (index, xor).
    corrupt: Option<(u16, u8)>,
    /// Generate a file valid by construction (and demand that it opens).
    valid: bool,
}

#[derive(Arbitrary, Debug)]
enum SVersion {
    V1_2,
    V1_1,
    V1_0,
    Num(u8, u8, Option<u8>),
    Text(String),
    NotText(u64),
    Missing,
}

#[derive(Arbitrary, Debug)]
enum SKey {
    Text(String),
    Short(u8),
    Int(u64),
}

#[derive(Arbitrary, Debug)]
enum SAttr {
    Uint(u64),
    NegInt(u64),
    Text(String),
    Bytes(Vec<u8>),
    Bool(bool),
    Null,
    Undefined,
    F64(f64),
    F16(u16),
    F32(u32),
    Simple(u8),
    Array(Vec<SAttr>),
    Map(Vec<(SKey, SAttr)>),
    Tag(u64, Box<SAttr>),
    IndefText(Vec<String>),
    IndefBytes(Vec<Vec<u8>>),
    IndefArray(Vec<SAttr>),
    IndefMap(Vec<(SKey, SAttr)>),
    /// `n` nested one-element arrays.
    Deep(u8),
    /// Raw bytes: probably malformed.
    Raw(Vec<u8>),
}

#[derive(Arbitrary, Debug)]
struct SObject {
    name: SName,
    shape: Option<Vec<SDim>>,
    format: Option<SFormat>,
    attrs: Option<Vec<(SKey, SAttr)>>,
    comps: Vec<SComp>,
    extra: Option<SAttr>,
    indefinite: bool,
}

#[derive(Arbitrary, Debug)]
enum SName {
    Index(u8),
    Text(String),
    Empty,
    SameAsPrevious,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum SDim {
    Small(u8),
    Mid(u16),
    Huge(u64),
    Pow2(u8),
}

#[derive(Arbitrary, Debug)]
enum SFormat {
    Dense,
    Csr,
    Coo,
    Quantized,
    Other(String),
    NotText(u8),
}

#[derive(Arbitrary, Debug)]
struct SComp {
    role: SRole,
    dtype: Option<SDType>,
    ltype: Option<SLType>,
    offset: Option<SOff>,
    length: Option<SLen>,
    ulen: Option<SLen>,
    encoding: Option<SEnc>,
    digest: Option<SDigest>,
    endian: Option<bool>,
    extra: Option<SAttr>,
}

#[derive(Arbitrary, Debug)]
enum SRole {
    Data,
    Values,
    Indices,
    Indptr,
    Coords,
    Packed,
    Scales,
    Zeros,
    Other(String),
}

#[derive(Arbitrary, Debug)]
enum SDType {
    Known(u8),
    V11(u8),
    V0(u8),
    Text(String),
    NotText(u8),
}

#[derive(Arbitrary, Debug)]
enum SLType {
    Known(u8),
    Other(String),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum SOff {
    Blob(u8),
    Aligned(u16),
    Raw(u64),
    ManifestStart,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum SLen {
    Blob,
    Implied,
    Small(u8),
    Raw(u64),
}

#[derive(Arbitrary, Debug)]
enum SEnc {
    Raw,
    Zstd,
    Text(String),
}

#[derive(Arbitrary, Debug)]
enum SDigest {
    Crc32c,
    Sha256,
    Crc32cWrong,
    Text(String),
}

#[derive(Arbitrary, Debug)]
enum SBlob {
    Bytes(Vec<u8>),
    /// Small integers as u64 LE (index-like).
    Indices(Vec<u8>),
    ZstdRaw(Vec<u8>),
    ZstdRle(u8, u16, Option<u32>),
    Garbage(u16),
}

const DTYPES: [&str; 13] = ["f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "u64", "u32", "u16", "u8", "bool"];
const V0_DTYPES: [&str; 13] = [
    "float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16",
    "uint8", "bool",
];
const V11_DTYPES: [&str; 5] = ["f8_e4m3", "f8_e5m2", "complex64", "complex128", "f8_e4m3fn"];

/// What the generator encoded for one component, to compare with what is read.
#[derive(Debug)]
struct Expect {
    name: String,
    dims: Option<Vec<u64>>,
    comps: Vec<(String, u64, u64)>,
    /// For valid files: the decoded content of each component.
    content: Vec<Option<Vec<u8>>>,
}

struct Blob {
    offset: u64,
    stored: Vec<u8>,
    /// Decoded content (equal to `stored` unless zstd).
    content: Vec<u8>,
}

pub fn structured(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(d) = SFile::arbitrary(&mut u) else { return };
    if d.valid {
        let (file, expects) = build_valid(&d);
        let f = File::parse(&file).unwrap_or_else(|e| panic!("a valid-by-construction file was refused: {e}\n{d:?}"));
        check_expect(&f, &expects, true);
        for (o, x) in f.objects().zip(&expects) {
            let c = o.data().unwrap();
            let want = x.content[0].as_ref().unwrap();
            assert_eq!(&c.to_vec().unwrap(), want, "content of {:?}", o.name());
            assert!(matches!(c.verify_digest(), Ok(Verified::Ok | Verified::NoDigest)));
            o.check_data().unwrap_or_else(|e| panic!("check_data of a valid object: {e}"));
        }
        assert_eq!(f.verify(|e| panic!("verify: {e}"), |_, _| {}), 0);
        open_walk(&file);
        return;
    }
    let (file, expects) = build_structured(&d);
    if let Ok(f) = File::parse(&file) {
        if d.corrupt.is_none() {
            check_expect(&f, &expects, false);
        }
    }
    open_walk(&file);
}

/// For corpus statistics: (valid-by-construction mode, file opened) for a
/// `structured` input, `None` when the bytes describe nothing.
pub fn structured_outcome(data: &[u8]) -> Option<(bool, bool)> {
    let mut u = Unstructured::new(data);
    let d = SFile::arbitrary(&mut u).ok()?;
    let (file, _) = if d.valid { build_valid(&d) } else { build_structured(&d) };
    Some((d.valid, File::parse(&file).is_ok()))
}

/// What was opened is what was encoded.
fn check_expect(f: &File<'_>, expects: &[Expect], strict: bool) {
    assert_eq!(f.len(), expects.len(), "object count");
    for (i, x) in expects.iter().enumerate() {
        let o = f.object(i).unwrap();
        assert_eq!(o.name(), x.name);
        assert_eq!(f.get(&x.name).map(|o| o.index()), Some(i), "lookup of {:?}", x.name);
        if let Some(dims) = &x.dims {
            assert_eq!(&o.shape().to_vec(), dims, "shape of {:?}", x.name);
        }
        let comps: Vec<(String, u64, u64)> =
            o.components().map(|c| (c.role().to_string(), c.offset(), c.length())).collect();
        let _ = strict;
        assert_eq!(comps, x.comps, "components of {:?}", x.name);
    }
}

/// The file a `structured` input builds (for debugging a finding), `None`
/// when the bytes describe nothing.
pub fn structured_file(data: &[u8]) -> Option<Vec<u8>> {
    let mut u = Unstructured::new(data);
    let d = SFile::arbitrary(&mut u).ok()?;
    Some(if d.valid { build_valid(&d).0 } else { build_structured(&d).0 })
}

/// Decode `data` as the structured target would (for debugging a finding).
pub fn describe_structured(data: &[u8]) -> String {
    let mut u = Unstructured::new(data);
    match SFile::arbitrary(&mut u) {
        Ok(d) => format!("{d:#?}"),
        Err(e) => format!("(no description: {e})"),
    }
}
