//! Writing zTensor files: [`Writer`] writes **format v2** by default, in
//! canonical form (§6.3: the same tensors give the same bytes, the bytes
//! PyPI `ztensor` 2.x writes), and v1.2 for readers of the 1.x generation
//! when asked ([`Version::V1_2`]).
//!
//! One [`Writer`] fronts both generations' encoders ([`v2::Writer`] and
//! [`v1_2::Writer`]): objects are described once, as format v2 describes
//! them ([`NewObject`]: a name, a shape, a layout and named [`NewPart`]s),
//! and written deterministically by the chosen generation's encoder. Each
//! object is checked by the reader's own rules before any of its bytes is
//! written, so the writer refuses exactly what a reader would refuse.
//!
//! ```
//! use ztensor::write::{NewObject, NewPart, Writer};
//! use ztensor::DType;
//!
//! // Canonical v2: objects in ascending bytewise name order.
//! let mut w = Writer::new(Vec::new());
//! w.add_dense("bias", &[2], DType::F32, &[0u8, 0, 0, 63, 0, 0, 0, 191][..]).unwrap();
//! w.add(NewObject::new("m", &[2, 3], "zt.sparse_csr/1")
//!     .part(NewPart::from_slice("indices", &[0u64, 2]))
//!     .part(NewPart::from_slice("indptr", &[0u64, 1, 2]))
//!     .part(NewPart::from_slice("values", &[1.0f32, 2.0]))).unwrap();
//! w.set_attribute("framework", "doc").unwrap();
//! let bytes = w.finish().unwrap();
//!
//! let file = ztensor::File::parse(&bytes).unwrap();
//! assert_eq!(file.version().major, 2);
//! assert_eq!(file.require("bias").unwrap().data().unwrap().to_vec_of::<f32>().unwrap(), [0.5, -0.5]);
//! ```
//!
//! The same objects as v1.2, for readers of the 1.x generation (`ztensor`
//! up to 1.2.3, which cannot read v2):
//!
//! ```
//! use ztensor::write::{NewObject, NewPart, Version, Writer};
//!
//! let mut w = Writer::with_version(Vec::new(), Version::V1_2).unwrap();
//! w.add(NewObject::dense("mask", &[3], ztensor::DType::Bool, &[1u8, 0, 1][..])).unwrap();
//! let bytes = w.finish().unwrap();
//! assert!(bytes.starts_with(b"ZTEN1000"));
//! assert_eq!(ztensor::File::parse(&bytes).unwrap().require("mask").unwrap().data().unwrap().dtype(), ztensor::DType::Bool);
//! ```
//!
//! Non-canonical v2 (another alignment, `sha256` or no digests,
//! `zt.zstd-seekable/1` parts, data shards) is [`Version::V2`] with
//! [`Options::non_canonical`]; see [`v2`] for what canonical form requires.
//!
//! ```
//! use ztensor::write::{DigestAlg, Encoding, NewObject, NewPart, Options, Version, Writer};
//!
//! // Blobs 4096-aligned (a power of two from 4096 to 1 GiB), sha256 digests
//! // (over the decoded bytes; xxh3 is canonical's, DigestAlg::None writes none).
//! let options = Options::non_canonical(4096).digest(DigestAlg::Sha256);
//! assert!(!options.is_canonical() && Options::canonical().is_canonical());
//! let mut w = Writer::with_version(Vec::new(), Version::V2(options)).unwrap();
//! // Compression is per part: zt.zstd-seekable/1 (level 3, 1 MiB frames).
//! let data = vec![7u8; 100_000];
//! w.add(NewObject::new("z", &[100_000], "dense")
//!     .part(NewPart::new("data", ztensor::DType::U8, &data[..]).encoding(Encoding::ZSTD_SEEKABLE))).unwrap();
//! let bytes = w.finish().unwrap();
//! assert!(bytes.len() < 20_000);
//!
//! let file = ztensor::File::parse(&bytes).unwrap();
//! let c = file.require("z").unwrap().data().unwrap();
//! assert_eq!(c.encoding(), ztensor::Encoding::ZstdSeekable);
//! assert_eq!(c.to_vec().unwrap(), data); // decoded, sha256 checked on the way
//! assert!(file.verify_with(ztensor::verify::Options::ALL, |_| {}).is_ok());
//! ```
//!
//! To a file: [`Writer::create_with`] (published atomically); with
//! [`Options::shards`] the blobs go to data shards beside it (§7).
//! [`v1_2::Writer`] writes what only v1.2 has (per-component zstd and
//! CRC-32C digests, `quantized_group`) and appends to v1.2 files;
//! [`v2::Writer::append`] appends to v2 files.
//!
//! Sinks: any append-only [`Sink`] will do: a `Vec<u8>`, a
//! `std::io::Write` through [`IoSink`], a file published atomically
//! through [`FileSink`] ([`Writer::create`]), or a `no_std` program's own.
//! (Canonical v2 reads back through the sink to share identical blobs:
//! `Vec<u8>` and `FileSink` can.)

mod attr;
mod check;
mod data;
mod enc;
#[cfg(feature = "std")]
mod fs;
mod hash;
mod names;
mod object;
mod sink;
pub mod v1_2;
pub mod v2;
mod zstd;

pub use attr::AttrValue;
pub use data::{Data, Scalar};
#[cfg(feature = "std")]
pub use fs::FileSink;
#[cfg(feature = "std")]
pub use sink::IoSink;
pub use sink::Sink;
pub use v2::{DigestAlg, Encoding, Error, Kind, NewObject, NewPart, Options, Result};

use crate::types::{DType, Format, LogicalType};
use alloc::string::String;

/// The generation a [`Writer`] writes, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    /// Format v2 with these options ([`Options::canonical`], the default,
    /// or [`Options::non_canonical`]).
    V2(Options),
    /// zTensor v1.2, for readers of the 1.x generation: 64-byte aligned
    /// raw blobs (a part with [`Encoding::ZstdSeekable`] becomes one zstd
    /// frame at its level), no digests, objects in the order added.
    /// Layouts `dense`, `zt.sparse_csr/1` and `zt.sparse_coo/1` (u64
    /// indices) become v1.2's `dense`, `sparse_csr` and `sparse_coo`;
    /// `bool` over `u8` becomes v1.2's `bool` storage type.
    V1_2,
}

impl Default for Version {
    fn default() -> Self {
        Version::V2(Options::canonical())
    }
}

/// The encoder a [`Writer`] fronts. (One per writer, never moved in bulk:
/// the size of the larger variant costs nothing.)
#[allow(clippy::large_enum_variant)]
enum Gen<S: Sink> {
    V2(v2::Writer<S>),
    V1_2(v1_2::Writer<S>),
}

/// A streaming writer of format v2 (canonical by default) or v1.2. See
/// the [module docs](self).
pub struct Writer<S: Sink> {
    gen: Gen<S>,
    version: Version,
}

impl<S: Sink> core::fmt::Debug for Writer<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Writer").field("version", &self.version).field("objects", &self.len()).finish_non_exhaustive()
    }
}

/// A v1.2 writer's error in the front's terms, names kept.
fn from_v1_2(e: crate::Error) -> Error {
    let mut out = Error::from(e);
    if let Some(o) = e.object() {
        out = out.in_object(o.as_str());
    }
    if let Some(r) = e.role() {
        out = out.in_part(r.as_str());
    }
    out
}

impl<S: Sink> Writer<S> {
    /// A writer of canonical format v2 (§6.3).
    pub fn new(sink: S) -> Self {
        Writer { gen: Gen::V2(v2::Writer::new(sink)), version: Version::default() }
    }

    /// A writer of `version` (options a v2 writer refuses are refused here).
    pub fn with_version(sink: S, version: Version) -> Result<Self> {
        let gen = match version {
            Version::V2(opts) => Gen::V2(v2::Writer::with_options(sink, opts)?),
            Version::V1_2 => Gen::V1_2(v1_2::Writer::new(sink)),
        };
        Ok(Writer { gen, version })
    }

    /// The generation and options this writer writes.
    pub fn version(&self) -> Version {
        self.version
    }

    /// Add an object: check it (the reader's rules, at the offsets it will
    /// get), then write its parts. On error nothing of the object is
    /// recorded and the writer stays usable (unless the sink failed).
    pub fn add(&mut self, obj: NewObject<'_>) -> Result<()> {
        match &mut self.gen {
            Gen::V2(w) => w.add(obj),
            Gen::V1_2(w) => {
                let name = obj.name.clone();
                let o = to_v1_2(obj).map_err(|e| e.in_object(&name))?;
                w.add(o).map_err(from_v1_2)
            }
        }
    }

    /// Add a dense raw object: `add(NewObject::dense(name, shape, dtype, data))`.
    pub fn add_dense<'a>(&mut self, name: &str, shape: &[u64], dtype: DType, data: impl Into<Data<'a>>) -> Result<()> {
        self.add(NewObject::dense(name, shape, dtype, data))
    }

    /// Set a file attribute (setting a key again replaces it).
    pub fn set_attribute(&mut self, key: &str, value: impl Into<AttrValue>) -> Result<()> {
        match &mut self.gen {
            Gen::V2(w) => w.set_attribute(key, value),
            Gen::V1_2(w) => w.set_attribute(key, value).map_err(from_v1_2),
        }
    }

    /// Number of objects added.
    pub fn len(&self) -> usize {
        match &self.gen {
            Gen::V2(w) => w.len(),
            Gen::V1_2(w) => w.len(),
        }
    }

    /// Whether no object has been added.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes written to the sink so far.
    pub fn position(&self) -> u64 {
        match &self.gen {
            Gen::V2(w) => w.position(),
            Gen::V1_2(w) => w.position(),
        }
    }

    /// The sink.
    pub fn sink(&self) -> &S {
        match &self.gen {
            Gen::V2(w) => w.sink(),
            Gen::V1_2(w) => w.sink(),
        }
    }

    /// Write the manifest and footer, finish the sink (a [`FileSink`]
    /// publishes the file now) and return it.
    pub fn finish(self) -> Result<S> {
        match self.gen {
            Gen::V2(w) => w.finish(),
            Gen::V1_2(w) => w.finish().map_err(from_v1_2),
        }
    }
}

#[cfg(feature = "std")]
impl Writer<FileSink> {
    /// A canonical v2 file at `path`, published atomically by
    /// [`finish`](Writer::finish) (temporary file, fsync, rename: see
    /// [`FileSink`]).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), ztensor::write::Error> {
    /// let mut w = ztensor::write::Writer::create("model.zt")?;
    /// w.add_dense("w", &[2], ztensor::DType::F32, &[0u8; 8][..])?;
    /// w.finish()?;
    /// # Ok(()) }
    /// ```
    pub fn create(path: impl AsRef<std::path::Path>) -> Result<Self> {
        Self::create_with(path, Version::default())
    }

    /// A file at `path` of `version` (sharded v2 output writes its data
    /// shards beside `path`).
    pub fn create_with(path: impl AsRef<std::path::Path>, version: Version) -> Result<Self> {
        let gen = match version {
            Version::V2(opts) => Gen::V2(v2::Writer::create_with(path, opts)?),
            Version::V1_2 => Gen::V1_2(v1_2::Writer::create(path).map_err(from_v1_2)?),
        };
        Ok(Writer { gen, version })
    }
}

/// The v1.2 format of a v2 layout.
fn format_of(layout: &str) -> Result<Format<'static>> {
    Ok(match layout {
        "dense" => Format::Dense,
        "zt.sparse_csr/1" => Format::SparseCsr,
        "zt.sparse_coo/1" => Format::SparseCoo,
        _ => {
            return Err(Error::new(Kind::Option(
                "v1.2 has no equivalent of this layout (v1.2: dense, zt.sparse_csr/1, zt.sparse_coo/1)",
            )))
        }
    })
}

/// The v1.2 name of a v2 logical type (Appendix A; v1.2 spells two of them differently).
fn logical_of(t: &str) -> Result<LogicalType<'static>> {
    let name = match t {
        "f8_e4m3fn" => "f8_e4m3fn",
        "f8_e5m2" => "f8_e5m2",
        "f8_e4m3fnuz" => "f8_e4m3fnuz",
        "f8_e5m2fnuz" => "f8_e5m2fnuz",
        "f8_e8m0" => "f8_e8m0fnu",
        "complex64" => "complex64",
        "complex128" => "complex128",
        _ => return Err(Error::new(Kind::Option("v1.2 has no equivalent of this logical type"))),
    };
    Ok(LogicalType::parse(name))
}

/// A v2 object as v1.2's (see [`Version::V1_2`]).
fn to_v1_2(obj: NewObject<'_>) -> Result<v1_2::NewObject<'_>> {
    let mut o = v1_2::NewObject::new(obj.name, format_of(&obj.layout)?, &obj.shape);
    for (k, v) in obj.attributes {
        o = o.attribute(&k, v);
    }
    for p in obj.parts {
        let logical: Option<String> = p.logical;
        let mut c = match (p.dtype, logical.as_deref()) {
            (DType::U8, Some("bool")) => v1_2::NewComponent::new(p.name, DType::Bool, p.data),
            (d, None) => v1_2::NewComponent::new(p.name, d, p.data),
            (d, Some(t)) => {
                let t = logical_of(t).map_err(|e| e.in_part(&p.name))?;
                v1_2::NewComponent::new(p.name, d, p.data).logical_type(t)
            }
        };
        if let Encoding::ZstdSeekable { level, .. } = p.encoding {
            c = c.compression(v1_2::Compression::Zstd(level));
        }
        o = o.component(c);
    }
    Ok(o)
}

#[cfg(test)]
mod front_tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec::Vec;

    #[test]
    fn the_default_is_canonical_v2_and_v1_2_is_one_option_away() {
        let mut w = Writer::new(Vec::new());
        w.add_dense("a", &[2], DType::F32, &[0u8, 0, 128, 63, 0, 0, 0, 64][..]).unwrap();
        let front = w.finish().unwrap();
        let mut w = v2::Writer::new(Vec::new());
        w.add_dense("a", &[2], DType::F32, &[0u8, 0, 128, 63, 0, 0, 0, 64][..]).unwrap();
        assert_eq!(front, w.finish().unwrap(), "the v2 encoder's canonical bytes");

        let mut w = Writer::with_version(Vec::new(), Version::V1_2).unwrap();
        w.add_dense("a", &[2], DType::F32, &[0u8, 0, 128, 63, 0, 0, 0, 64][..]).unwrap();
        let front = w.finish().unwrap();
        let mut w = v1_2::Writer::new(Vec::new());
        w.add_dense("a", &[2], DType::F32, &[0u8, 0, 128, 63, 0, 0, 0, 64]).unwrap();
        assert_eq!(front, w.finish().unwrap(), "the v1.2 encoder's bytes");
    }

    #[test]
    fn v1_2_takes_v2_objects_and_refuses_what_it_cannot_hold_by_name() {
        let mut w = Writer::with_version(Vec::new(), Version::V1_2).unwrap();
        // Objects in any order; layouts, bool and logical types mapped.
        w.add(
            NewObject::new("m", &[2, 3], "zt.sparse_csr/1")
                .part(NewPart::from_slice("values", &[1.0f32, 2.0]))
                .part(NewPart::from_slice("indices", &[0u64, 2]))
                .part(NewPart::from_slice("indptr", &[0u64, 1, 2]))
                .attribute("origin", "scipy"),
        )
        .unwrap();
        w.add(NewObject::dense("b", &[2], DType::Bool, &[1u8, 0][..])).unwrap();
        w.add(
            NewObject::new("e", &[1], "dense").part(NewPart::new("data", DType::U8, &[0x7fu8][..]).logical("f8_e8m0")),
        )
        .unwrap();
        let e = w.add(NewObject::new("q", &[32], "zt.mx/1")).unwrap_err();
        assert_eq!(e.object.as_deref(), Some("q"));
        assert!(e.to_string().contains("layout"), "{e}");
        let e = w
            .add(
                NewObject::new("f", &[2], "dense").part(NewPart::new("data", DType::U8, &[0u8][..]).logical("f4_e2m1")),
            )
            .unwrap_err();
        assert_eq!((e.object.as_deref(), e.part.as_deref()), (Some("f"), Some("data")));
        // A v1.2 rule, reported with the names.
        let e = w.add_dense("short", &[3], DType::F32, &[0u8; 8][..]).unwrap_err();
        assert_eq!(e.object.as_deref(), Some("short"));
        assert_eq!(w.len(), 3);
        let bytes = w.finish().unwrap();
        let f = crate::File::parse(&bytes).unwrap();
        assert_eq!(f.version().to_string(), "1.2.0");
        assert_eq!(f.require("m").unwrap().format(), Format::SparseCsr);
        assert_eq!(f.require("m").unwrap().attributes().len(), 1);
        assert_eq!(f.require("b").unwrap().data().unwrap().dtype(), DType::Bool);
        assert_eq!(f.require("e").unwrap().data().unwrap().logical_type().map(|t| t.name()), Some("f8_e8m0fnu"));
    }
}
