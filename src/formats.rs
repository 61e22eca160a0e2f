//! Typed access to the known object formats: CSR and COO parts (v1.x
//! `sparse_csr`/`sparse_coo`, v2 `zt.sparse_csr/1`/`zt.sparse_coo/1` with
//! `u32` or `u64` indices), the parameters of v1's `quantized_group`, and
//! of v2's `zt.quant_group/1`, `zt.mx/1` and `gguf.<type>/1` profiles.

use crate::error::{Error, ErrorKind, Result};
use crate::manifest::schema::{QuantAttr, Role};
use crate::object::{Component, Object};
use crate::types::{DType, Format};
use crate::v2::layout::{Mx, Profile, QuantGroup};

/// The parts of a `sparse_csr` object.
#[derive(Clone, Copy, Debug)]
pub struct Csr<'a> {
    /// Rows of the logical matrix.
    pub rows: u64,
    /// Columns of the logical matrix.
    pub cols: u64,
    /// Non-zero elements.
    pub values: Component<'a>,
    /// Column index of each value.
    pub indices: Component<'a>,
    /// Row pointers, `rows + 1` of them.
    pub indptr: Component<'a>,
}

impl<'a> Csr<'a> {
    /// The integer type of `indices` and `indptr` (v2: `u32` or `u64`).
    pub fn index_dtype(&self) -> DType {
        self.indices.dtype()
    }

    /// Column indices, zero-copy (`u32`, as v2 files may store them).
    pub fn indices_u32(&self) -> Result<&'a [u32]> {
        self.indices.as_slice()
    }

    /// Row pointers, zero-copy (`u32`).
    pub fn indptr_u32(&self) -> Result<&'a [u32]> {
        self.indptr.as_slice()
    }

    /// Column indices, zero-copy (`u64`, raw, aligned, little-endian host).
    /// [`Csr::indices_to_vec`] works on any host.
    pub fn indices_u64(&self) -> Result<&'a [u64]> {
        self.indices.as_slice()
    }

    /// Row pointers, zero-copy (`u64`, raw, aligned, little-endian host).
    /// [`Csr::indptr_to_vec`] works on any host.
    pub fn indptr_u64(&self) -> Result<&'a [u64]> {
        self.indptr.as_slice()
    }

    /// Column indices, decoded: any host byte order, encoding and integer dtype.
    #[cfg(feature = "alloc")]
    pub fn indices_to_vec(&self) -> Result<alloc::vec::Vec<u64>> {
        index_vec(&self.indices)
    }

    /// Row pointers, decoded: any host byte order, encoding and integer dtype.
    #[cfg(feature = "alloc")]
    pub fn indptr_to_vec(&self) -> Result<alloc::vec::Vec<u64>> {
        index_vec(&self.indptr)
    }
}

/// The parts of a `sparse_coo` object.
#[derive(Clone, Copy, Debug)]
pub struct Coo<'a> {
    /// Number of dimensions.
    pub ndim: usize,
    /// Non-zero elements.
    pub values: Component<'a>,
    /// `ndim × nnz` coordinates, all of dimension 0 first, then dimension 1, ...
    pub coords: Component<'a>,
}

impl<'a> Coo<'a> {
    /// The integer type of `coords` (v2: `u32` or `u64`).
    pub fn index_dtype(&self) -> DType {
        self.coords.dtype()
    }

    /// All coordinates, zero-copy (`u32`, as v2 files may store them).
    pub fn coords_u32(&self) -> Result<&'a [u32]> {
        self.coords.as_slice()
    }

    /// All coordinates, zero-copy (`u64`, raw, aligned, little-endian host).
    pub fn coords_u64(&self) -> Result<&'a [u64]> {
        self.coords.as_slice()
    }

    /// The coordinates of dimension `d`, zero-copy.
    pub fn dim_u64(&self, d: usize) -> Result<&'a [u64]> {
        let all = self.coords_u64()?;
        let nnz = all.len() / self.ndim.max(1);
        all.get(d * nnz..(d + 1) * nnz).ok_or_else(|| self.coords.error(ErrorKind::NotFound))
    }

    /// All coordinates, decoded: any host byte order, encoding and integer dtype.
    #[cfg(feature = "alloc")]
    pub fn coords_to_vec(&self) -> Result<alloc::vec::Vec<u64>> {
        index_vec(&self.coords)
    }

    /// The coordinates of dimension `d`, decoded (see [`Coo::coords_to_vec`]).
    #[cfg(feature = "alloc")]
    pub fn dim_to_vec(&self, d: usize) -> Result<alloc::vec::Vec<u64>> {
        let mut all = self.coords_to_vec()?;
        let nnz = all.len() / self.ndim.max(1);
        if d >= self.ndim {
            return Err(self.coords.error(ErrorKind::NotFound));
        }
        all.truncate((d + 1) * nnz);
        all.drain(..d * nnz);
        Ok(all)
    }
}

/// An index component's values as `u64`, whatever the host's byte order,
/// the encoding and the integer dtype (v1.0/v1.1 files may use any); a
/// negative index is [`ErrorKind::BadData`].
#[cfg(feature = "alloc")]
fn index_vec(c: &Component<'_>) -> Result<alloc::vec::Vec<u64>> {
    let dtype = c.dtype();
    if !dtype.is_integer() {
        return Err(c.error(ErrorKind::IndexDType));
    }
    let signed = matches!(dtype, crate::DType::I8 | crate::DType::I16 | crate::DType::I32 | crate::DType::I64);
    let w = dtype.width() as usize;
    // `to_vec` yields little-endian elements on every host.
    let bytes = c.to_vec()?;
    bytes
        .chunks_exact(w)
        .map(|e| {
            let mut b = [0u8; 8];
            b[..w].copy_from_slice(e);
            if signed && e[w - 1] & 0x80 != 0 {
                return Err(c.error(ErrorKind::BadData { what: "negative index" }));
            }
            Ok(u64::from_le_bytes(b))
        })
        .collect()
}

/// Parameters of a `quantized_group` object, from its attributes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QuantParams<'a> {
    /// Bits per quantized value.
    pub bits: Option<u64>,
    /// Values sharing one scale and zero point.
    pub group_size: Option<u64>,
    /// How values are packed (e.g. `"8_per_i32"`).
    pub packing: Option<&'a str>,
}

/// The block constants of a `gguf.<type>/1` object (v2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GgufBlocks<'a> {
    /// The ggml type name (`"q4_0"`, `"q4_k"`, ...).
    pub ty: &'a str,
    /// Logical elements per block.
    pub elems_per_block: u64,
    /// Bytes per block.
    pub block_bytes: u64,
}

fn wrong_format(o: &Object<'_>, expected: &'static str) -> Error {
    Error::new(ErrorKind::WrongType { field: "format", expected }).in_object(o.name())
}

impl<'a> Object<'a> {
    /// v2: the object's layout with its parameters, as checked at open
    /// (`None` for v1.x and v0.1 files). [`Object::csr`], [`Object::coo`],
    /// [`Object::quant_group`], [`Object::mx`] and [`Object::gguf`] give
    /// each profile's parts and parameters.
    ///
    /// ```
    /// use ztensor::write::{NewObject, NewPart, Writer};
    /// use ztensor::{DType, Profile};
    ///
    /// let mut w = Writer::new(Vec::new());
    /// w.add(NewObject::new("m", &[2, 3], "zt.sparse_csr/1")
    ///     .part(NewPart::from_slice("indices", &[0u32, 2]))
    ///     .part(NewPart::from_slice("indptr", &[0u32, 1, 2]))
    ///     .part(NewPart::from_slice("values", &[1.5f32, -2.0]))).unwrap();
    /// w.add(NewObject::dense("w", &[2], DType::F32, &[0u8; 8][..])).unwrap();
    /// let bytes = w.finish().unwrap();
    ///
    /// let file = ztensor::File::parse(&bytes).unwrap();
    /// for o in file.objects() {
    ///     match o.profile() {
    ///         Some(Profile::Dense) => assert_eq!(o.name(), "w"),
    ///         Some(Profile::Csr { .. }) => {
    ///             let csr = o.csr().unwrap();
    ///             assert_eq!((csr.rows, csr.cols, csr.index_dtype()), (2, 3, DType::U32));
    ///             assert_eq!(csr.indptr_to_vec().unwrap(), [0, 1, 2]);
    ///             assert_eq!(csr.indices_to_vec().unwrap(), [0, 2]);
    ///             assert_eq!(csr.values.to_vec_of::<f32>().unwrap(), [1.5, -2.0]);
    ///         }
    ///         // zt.quant_group/1 and zt.mx/1 carry their parameters: o.quant_group(), o.mx().
    ///         Some(Profile::QuantGroup(q)) => println!("{} bits per code, groups of {}", q.bits, q.group_size),
    ///         Some(Profile::Mx(mx)) => println!("blocks of {} along axis {}", mx.block_size, mx.axis),
    ///         Some(Profile::Gguf { ty, .. }) => println!("ggml {ty} blocks: o.gguf()"),
    ///         Some(Profile::Coo { .. }) => println!("coordinates: o.coo()"),
    ///         Some(Profile::Unknown(layout)) => println!("{layout}: bytes and metadata only"),
    ///         None => println!("a v1.x file: o.format()"),
    ///     }
    /// }
    /// ```
    pub fn profile(&self) -> Option<Profile<'a>> {
        if !crate::container::READS_V2 || self.ctx.version.major != 2 {
            return None;
        }
        crate::v2::view::profile(self.ctx.buf, self.name)
    }

    /// The parts of a `sparse_csr` (v1.x) or `zt.sparse_csr/1` (v2) object.
    pub fn csr(&self) -> Result<Csr<'a>> {
        if self.format() != Format::SparseCsr && !matches!(self.profile(), Some(Profile::Csr { .. })) {
            return Err(wrong_format(self, "sparse_csr"));
        }
        Ok(Csr {
            rows: self.shape().dim(0).unwrap_or(0),
            cols: self.shape().dim(1).unwrap_or(0),
            values: self.require(Role::Values.name())?,
            indices: self.require(Role::Indices.name())?,
            indptr: self.require(Role::Indptr.name())?,
        })
    }

    /// The parts of a `sparse_coo` (v1.x) or `zt.sparse_coo/1` (v2) object.
    pub fn coo(&self) -> Result<Coo<'a>> {
        if self.format() != Format::SparseCoo && !matches!(self.profile(), Some(Profile::Coo { .. })) {
            return Err(wrong_format(self, "sparse_coo"));
        }
        Ok(Coo { ndim: self.shape().ndim(), values: self.require(Role::Values.name())?, coords: self.require(Role::Coords.name())? })
    }

    /// `bits`, `group_size` and `packing` of a `quantized_group` object
    /// (their types were checked at open; absent ones are `None`).
    pub fn quant_params(&self) -> QuantParams<'a> {
        let a = self.attributes();
        QuantParams {
            bits: a.get(QuantAttr::Bits.name()).and_then(|v| v.as_u64()),
            group_size: a.get(QuantAttr::GroupSize.name()).and_then(|v| v.as_u64()),
            packing: a.get(QuantAttr::Packing.name()).and_then(|v| v.as_str()),
        }
    }

    /// The parameters of a v2 `zt.quant_group/1` object (bits, group size,
    /// axis, packing, scale form, zero point).
    pub fn quant_group(&self) -> Result<QuantGroup> {
        match self.profile() {
            Some(Profile::QuantGroup(q)) => Ok(q),
            _ => Err(wrong_format(self, "zt.quant_group/1")),
        }
    }

    /// The parameters of a v2 `zt.mx/1` object (block size, axis, element type).
    pub fn mx(&self) -> Result<Mx> {
        match self.profile() {
            Some(Profile::Mx(m)) => Ok(m),
            _ => Err(wrong_format(self, "zt.mx/1")),
        }
    }

    /// The block constants of a v2 `gguf.<type>/1` object.
    pub fn gguf(&self) -> Result<GgufBlocks<'a>> {
        match self.profile() {
            Some(Profile::Gguf { ty, elems_per_block, block_bytes }) => Ok(GgufBlocks { ty, elems_per_block, block_bytes }),
            _ => Err(wrong_format(self, "gguf.<type>/1")),
        }
    }
}
