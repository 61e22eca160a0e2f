//! An object to add (§3.3) and its parts (§3.4).

use super::super::attr::AttrValue;
use super::super::data::{Data, Scalar};
use crate::v2::types::DType;
use alloc::string::String;
use alloc::vec::Vec;

/// How a part's bytes are stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Encoding {
    /// Raw (no `encoding` field): the only one canonical form allows.
    #[default]
    Raw,
    /// `zt.zstd-seekable/1`: frames of `frame` decoded bytes (≤ 16 MiB),
    /// each compressed at `level` (ruzstd has one level; libzstd honours it).
    ZstdSeekable {
        /// zstd level.
        level: i32,
        /// Decoded bytes per frame.
        frame: u32,
    },
}

impl Encoding {
    /// `zt.zstd-seekable/1` with 1 MiB frames at level 3.
    pub const ZSTD_SEEKABLE: Encoding = Encoding::ZstdSeekable { level: 3, frame: super::seekable::DEFAULT_FRAME };
}

/// One part of a [`NewObject`]: its role name, storage type, optional
/// logical type, bytes and encoding.
pub struct NewPart<'a> {
    pub(crate) name: String,
    pub(crate) dtype: DType,
    pub(crate) logical: Option<String>,
    pub(crate) data: Data<'a>,
    pub(crate) encoding: Encoding,
}

impl<'a> NewPart<'a> {
    /// A raw part of `dtype` with these (little-endian) bytes. `bool` is
    /// not a v2 storage type: [`DType::Bool`] is written as `u8` with the
    /// logical type `bool`.
    pub fn new(name: impl Into<String>, dtype: DType, data: impl Into<Data<'a>>) -> Self {
        let (dtype, logical) = match dtype {
            DType::Bool => (DType::U8, Some("bool".into())),
            d => (d, None),
        };
        NewPart { name: name.into(), dtype, logical, data: data.into(), encoding: Encoding::Raw }
    }

    /// A raw part from typed elements.
    pub fn from_slice<T: Scalar>(name: impl Into<String>, data: &'a [T]) -> Self {
        NewPart::new(name, T::DTYPE, Data::from_slice(data))
    }

    /// The logical type (`type`, Appendix A: `bool`, `f8_e4m3fn`, `complex64`, ...).
    pub fn logical(mut self, t: impl Into<String>) -> Self {
        self.logical = Some(t.into());
        self
    }

    /// The encoding (non-canonical writers only).
    pub fn encoding(mut self, e: Encoding) -> Self {
        self.encoding = e;
        self
    }
}

/// An object: name, shape, layout, attributes and parts.
pub struct NewObject<'a> {
    pub(crate) name: String,
    pub(crate) shape: Vec<u64>,
    pub(crate) layout: String,
    pub(crate) attributes: Vec<(String, AttrValue)>,
    pub(crate) parts: Vec<NewPart<'a>>,
}

impl<'a> NewObject<'a> {
    /// An object of `layout` (`"dense"`, `"zt.sparse_csr/1"`, ...) without parts yet.
    pub fn new(name: impl Into<String>, shape: &[u64], layout: impl Into<String>) -> Self {
        NewObject { name: name.into(), shape: shape.to_vec(), layout: layout.into(), attributes: Vec::new(), parts: Vec::new() }
    }

    /// A dense object: one raw part `data`.
    pub fn dense(name: impl Into<String>, shape: &[u64], dtype: DType, data: impl Into<Data<'a>>) -> Self {
        NewObject::new(name, shape, "dense").part(NewPart::new("data", dtype, data))
    }

    /// Add a part.
    pub fn part(mut self, p: NewPart<'a>) -> Self {
        self.parts.push(p);
        self
    }

    /// Set an object attribute (setting a key again replaces it).
    pub fn attribute(mut self, key: impl Into<String>, value: impl Into<AttrValue>) -> Self {
        let key = key.into();
        let value = value.into();
        match self.attributes.iter_mut().find(|(k, _)| *k == key) {
            Some(e) => e.1 = value,
            None => self.attributes.push((key, value)),
        }
        self
    }

    /// The object's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}
