//! Typed access to the known object formats: CSR and COO parts, and the
//! parameters of `quantized_group`.

use crate::error::{Error, ErrorKind, Result};
use crate::object::{Component, Object};
use crate::types::Format;

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

fn wrong_format(o: &Object<'_>, expected: &'static str) -> Error {
    Error::new(ErrorKind::WrongType { field: "format", expected }).in_object(o.name())
}

impl<'a> Object<'a> {
    /// The parts of a `sparse_csr` object.
    pub fn csr(&self) -> Result<Csr<'a>> {
        if self.format() != Format::SparseCsr {
            return Err(wrong_format(self, "sparse_csr"));
        }
        Ok(Csr {
            rows: self.shape().dim(0).unwrap_or(0),
            cols: self.shape().dim(1).unwrap_or(0),
            values: self.require("values")?,
            indices: self.require("indices")?,
            indptr: self.require("indptr")?,
        })
    }

    /// The parts of a `sparse_coo` object.
    pub fn coo(&self) -> Result<Coo<'a>> {
        if self.format() != Format::SparseCoo {
            return Err(wrong_format(self, "sparse_coo"));
        }
        Ok(Coo { ndim: self.shape().ndim(), values: self.require("values")?, coords: self.require("coords")? })
    }

    /// `bits`, `group_size` and `packing` of a `quantized_group` object
    /// (their types were checked at open; absent ones are `None`).
    pub fn quant_params(&self) -> QuantParams<'a> {
        let a = self.attributes();
        QuantParams {
            bits: a.get("bits").and_then(|v| v.as_u64()),
            group_size: a.get("group_size").and_then(|v| v.as_u64()),
            packing: a.get("packing").and_then(|v| v.as_str()),
        }
    }
}

/// The open-time rule for `quantized_group` attributes: when present,
/// `bits` and `group_size` are unsigned integers and `packing` is text.
pub(crate) fn check_quant_params(a: crate::value::Map<'_>) -> Result<()> {
    for (field, want_text) in [("bits", false), ("group_size", false), ("packing", true)] {
        if let Some(v) = a.get(field) {
            let ok = if want_text { v.as_str().is_some() } else { v.as_u64().is_some() };
            if !ok {
                let expected = if want_text { "a text string" } else { "an unsigned integer" };
                return Err(Error::at(ErrorKind::WrongType { field, expected }, v.manifest_offset()));
            }
        }
    }
    Ok(())
}
