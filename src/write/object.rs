//! Objects to write: shape, format, attributes and components.

use super::attr::{AttrValue, Attrs};
use super::data::{Data, Scalar};
use super::hash::Checksum;
use crate::error::Result;
use crate::schema::{QuantAttr, Role};
use crate::types::{DType, Format, LogicalType};
use alloc::borrow::Cow;
use alloc::vec::Vec;

/// How a component's bytes are stored (spec: `encoding`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Compression {
    /// `raw`: the elements themselves (memory-mappable).
    #[default]
    Raw,
    /// `zstd` at a level (the reference's default is 3). With the pure-Rust
    /// encoder every level uses ruzstd's one implemented strategy (about
    /// level 1); with the `libzstd` feature the level is honoured.
    Zstd(i32),
    /// `zstd` at a level where the frame is smaller than the raw bytes,
    /// else `raw` (no `uncompressed_length`): incompressible data stays
    /// memory-mappable and no larger. The frame is built in memory before
    /// it is written (a streamed source is read whole first);
    /// [`Writer::kept_raw`](super::v1_2::Writer::kept_raw) counts the components
    /// it stored raw.
    ZstdIfSmaller(i32),
}

impl Compression {
    /// zstd at the reference's default level, 3.
    pub const ZSTD: Compression = Compression::Zstd(3);
}

/// One component to write: role, storage type, optional logical type, bytes,
/// and (optionally) its own encoding and digest, overriding the object's.
#[derive(Debug)]
pub struct NewComponent<'a> {
    pub(crate) role: Cow<'a, str>,
    pub(crate) dtype: DType,
    pub(crate) logical: Option<LogicalType<'a>>,
    pub(crate) data: Data<'a>,
    pub(crate) compression: Option<Compression>,
    pub(crate) checksum: Option<Checksum>,
}

impl<'a> NewComponent<'a> {
    /// A component with role `role` holding `data` as `dtype` elements.
    pub fn new(role: impl Into<Cow<'a, str>>, dtype: DType, data: impl Into<Data<'a>>) -> Self {
        NewComponent { role: role.into(), dtype, logical: None, data: data.into(), compression: None, checksum: None }
    }

    /// Typed elements (the dtype follows from `T`).
    pub fn from_slice<T: Scalar>(role: impl Into<Cow<'a, str>>, data: &'a [T]) -> Self {
        Self::new(role, T::DTYPE, Data::from_slice(data))
    }

    /// Set the logical type (`type`): FP8 on `u8`, complex on `f32`/`f64`,
    /// or any other name.
    pub fn logical_type(mut self, t: LogicalType<'a>) -> Self {
        self.logical = Some(t);
        self
    }

    /// Encoding for this component (default: the object's).
    pub fn compression(mut self, c: Compression) -> Self {
        self.compression = Some(c);
        self
    }

    /// Digest for this component (default: the object's).
    pub fn checksum(mut self, c: Checksum) -> Self {
        self.checksum = Some(c);
        self
    }
}

/// An object to write: a name, a shape, a format, attributes and components.
///
/// Constructors exist for the spec's formats; [`NewObject::new`] plus
/// [`NewObject::component`] builds any other. The writer checks the object
/// exactly as the reader would (see [`Writer::add`](super::v1_2::Writer::add)).
///
/// ```
/// use ztensor::write::v1_2::{Checksum, Compression, NewObject};
/// use ztensor::{DType, LogicalType};
/// let fp8 = [0x38u8, 0x40, 0xb8];
/// let obj = NewObject::dense("w8", &[3], DType::U8, &fp8)
///     .logical_type(LogicalType::F8E4M3Fn)
///     .compression(Compression::ZSTD)
///     .checksum(Checksum::Sha256)
///     .attribute("scale", 0.5);
/// # let _ = obj;
/// ```
#[derive(Debug)]
pub struct NewObject<'a> {
    pub(crate) name: Cow<'a, str>,
    pub(crate) format: Format<'a>,
    pub(crate) shape: Dims,
    pub(crate) attributes: Attrs,
    /// The first attribute that could not be encoded (reported by `add`).
    pub(crate) attr_error: Option<crate::Error>,
    pub(crate) components: Vec<NewComponent<'a>>,
    pub(crate) compression: Compression,
    pub(crate) checksum: Checksum,
}

impl<'a> NewObject<'a> {
    /// An object of any format, without components yet.
    pub fn new(name: impl Into<Cow<'a, str>>, format: Format<'a>, shape: &[u64]) -> Self {
        NewObject {
            name: name.into(),
            format,
            shape: Dims::new(shape),
            attributes: Attrs::default(),
            attr_error: None,
            components: Vec::new(),
            compression: Compression::Raw,
            checksum: Checksum::default(),
        }
    }

    /// A dense object: row-major `data` of `dtype` elements.
    pub fn dense(name: impl Into<Cow<'a, str>>, shape: &[u64], dtype: DType, data: impl Into<Data<'a>>) -> Self {
        Self::new(name, Format::Dense, shape).component(NewComponent::new(Role::Data.name(), dtype, data))
    }

    /// A dense object from typed elements.
    pub fn dense_slice<T: Scalar>(name: impl Into<Cow<'a, str>>, shape: &[u64], data: &'a [T]) -> Self {
        Self::dense(name, shape, T::DTYPE, Data::from_slice(data))
    }

    /// A `sparse_csr` matrix: `values` (nnz elements of `dtype`), `indices`
    /// (nnz column indices) and `indptr` (rows + 1 row pointers), both `u64`
    /// little-endian bytes.
    pub fn sparse_csr(
        name: impl Into<Cow<'a, str>>,
        shape: [u64; 2],
        dtype: DType,
        values: impl Into<Data<'a>>,
        indices: impl Into<Data<'a>>,
        indptr: impl Into<Data<'a>>,
    ) -> Self {
        Self::new(name, Format::SparseCsr, &shape)
            .component(NewComponent::new(Role::Values.name(), dtype, values))
            .component(NewComponent::new(Role::Indices.name(), DType::U64, indices))
            .component(NewComponent::new(Role::Indptr.name(), DType::U64, indptr))
    }

    /// [`NewObject::sparse_csr`] from typed slices.
    pub fn sparse_csr_slices<T: Scalar>(
        name: impl Into<Cow<'a, str>>,
        shape: [u64; 2],
        values: &'a [T],
        indices: &'a [u64],
        indptr: &'a [u64],
    ) -> Self {
        Self::sparse_csr(name, shape, T::DTYPE, Data::from_slice(values), Data::from_slice(indices), Data::from_slice(indptr))
    }

    /// A `sparse_coo` tensor: `values` (nnz elements of `dtype`) and
    /// `coords` (ndim × nnz `u64`, all dim-0 indices first, then dim-1, ...).
    pub fn sparse_coo(
        name: impl Into<Cow<'a, str>>,
        shape: &[u64],
        dtype: DType,
        values: impl Into<Data<'a>>,
        coords: impl Into<Data<'a>>,
    ) -> Self {
        Self::new(name, Format::SparseCoo, shape)
            .component(NewComponent::new(Role::Values.name(), dtype, values))
            .component(NewComponent::new(Role::Coords.name(), DType::U64, coords))
    }

    /// [`NewObject::sparse_coo`] from typed slices.
    pub fn sparse_coo_slices<T: Scalar>(
        name: impl Into<Cow<'a, str>>,
        shape: &[u64],
        values: &'a [T],
        coords: &'a [u64],
    ) -> Self {
        Self::sparse_coo(name, shape, T::DTYPE, Data::from_slice(values), Data::from_slice(coords))
    }

    /// A `quantized_group` object: `packed_weight`, `scales` and `zeros`
    /// (each a dtype and its bytes), with the attributes `bits`,
    /// `group_size` and `packing`.
    #[allow(clippy::too_many_arguments)]
    pub fn quantized_group(
        name: impl Into<Cow<'a, str>>,
        shape: &[u64],
        packed_weight: (DType, Data<'a>),
        scales: (DType, Data<'a>),
        zeros: (DType, Data<'a>),
        bits: u64,
        group_size: u64,
        packing: &str,
    ) -> Self {
        Self::new(name, Format::QuantizedGroup, shape)
            .component(NewComponent::new(Role::PackedWeight.name(), packed_weight.0, packed_weight.1))
            .component(NewComponent::new(Role::Scales.name(), scales.0, scales.1))
            .component(NewComponent::new(Role::Zeros.name(), zeros.0, zeros.1))
            .attribute(QuantAttr::Bits.name(), bits)
            .attribute(QuantAttr::GroupSize.name(), group_size)
            .attribute(QuantAttr::Packing.name(), packing)
    }

    /// Add a component (written in the order added).
    pub fn component(mut self, c: NewComponent<'a>) -> Self {
        self.components.push(c);
        self
    }

    /// Add a component from its parts.
    pub fn with_component(self, role: impl Into<Cow<'a, str>>, dtype: DType, data: impl Into<Data<'a>>) -> Self {
        self.component(NewComponent::new(role, dtype, data))
    }

    /// Set the logical type of the primary component: `data` for dense
    /// objects, else `values`, else the last component added.
    pub fn logical_type(mut self, t: LogicalType<'a>) -> Self {
        let i = [Role::Data.name(), Role::Values.name()]
            .iter()
            .find_map(|r| self.components.iter().position(|c| c.role == *r))
            .or(self.components.len().checked_sub(1));
        if let Some(i) = i {
            self.components[i].logical = Some(t);
        }
        self
    }

    /// Set an attribute (insertion order; setting a key again replaces it).
    pub fn attribute(mut self, key: &str, value: impl Into<AttrValue>) -> Self {
        self.set_attribute(key, value);
        self
    }

    /// [`NewObject::attribute`] in place. An unencodable value (nested
    /// deeper than the reader accepts) is reported when the object is added.
    pub fn set_attribute(&mut self, key: &str, value: impl Into<AttrValue>) {
        if let Err(e) = self.attributes.set(key, &value.into()) {
            self.attr_error.get_or_insert(e);
        }
    }

    /// Default encoding of the components (default: raw).
    pub fn compression(mut self, c: Compression) -> Self {
        self.compression = c;
        self
    }

    /// Default digest of the components (default: none).
    pub fn checksum(mut self, c: Checksum) -> Self {
        self.checksum = c;
        self
    }

    /// The object's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn attr_check(&self) -> Result<()> {
        self.attr_error.map_or(Ok(()), Err)
    }
}

/// A shape: up to four dimensions inline (no allocation), more on the heap.
#[derive(Clone, Debug)]
pub(crate) enum Dims {
    Inline([u64; 4], u8),
    Heap(Vec<u64>),
}

impl Dims {
    fn new(d: &[u64]) -> Self {
        if d.len() <= 4 {
            let mut a = [0; 4];
            a[..d.len()].copy_from_slice(d);
            Dims::Inline(a, d.len() as u8)
        } else {
            Dims::Heap(d.to_vec())
        }
    }
}

impl core::ops::Deref for Dims {
    type Target = [u64];
    fn deref(&self) -> &[u64] {
        match self {
            Dims::Inline(a, n) => &a[..*n as usize],
            Dims::Heap(v) => v,
        }
    }
}
