//! v2 files built in memory by the crate's writer, with placement and
//! digests fixed (4096-byte blobs, no digest), then patched by hand where
//! a test needs bytes the rules forbid.

use ztensor::fs::{Mode, Reader};
use ztensor::write::v2::{DigestAlg, Encoding, NewObject, NewPart, Options, Writer};
use ztensor::File;

pub use ztensor::v2::types::DType;

/// A part to write: name, dtype, logical type, bytes, encoding.
pub struct P(pub &'static str, pub DType, pub Option<&'static str>, pub Vec<u8>, pub Encoding);

/// A raw part.
pub fn raw(name: &'static str, dtype: DType, logical: Option<&'static str>, data: Vec<u8>) -> P {
    P(name, dtype, logical, data, Encoding::Raw)
}

/// A `zt.zstd-seekable/1` part of `frame`-byte frames.
pub fn seekable(name: &'static str, dtype: DType, logical: Option<&'static str>, data: Vec<u8>, frame: u32) -> P {
    P(name, dtype, logical, data, Encoding::ZstdSeekable { level: 3, frame })
}

/// A file of one object `name` with these parts.
pub fn file(name: &str, shape: &[u64], layout: &str, parts: Vec<P>) -> Vec<u8> {
    let opts = Options::non_canonical(4096).digest(DigestAlg::None);
    let mut w = Writer::with_options(Vec::new(), opts).unwrap();
    let mut o = NewObject::new(name, shape, layout);
    for P(n, d, t, data, e) in parts {
        let mut p = NewPart::new(n, d, data).encoding(e);
        if let Some(t) = t {
            p = p.logical(t);
        }
        o = o.part(p);
    }
    w.add(o).unwrap();
    w.finish().unwrap()
}

/// `bytes` with byte `at` of the stored blob of `object`/`role` set to `value`.
pub fn patch(mut bytes: Vec<u8>, object: &str, role: &str, at: u64, value: u8) -> Vec<u8> {
    let off = File::parse(&bytes).unwrap().require(object).unwrap().require(role).unwrap().offset();
    bytes[(off + at) as usize] = value;
    bytes
}

/// `bytes` written to a temporary file, opened in each mode.
pub fn readers(bytes: &[u8]) -> (tempfile::TempDir, Vec<Reader>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.zt");
    std::fs::write(&path, bytes).unwrap();
    let rs = [Mode::Mmap, Mode::Positional].map(|m| Reader::open_with(&path, m).unwrap());
    (dir, rs.into())
}
