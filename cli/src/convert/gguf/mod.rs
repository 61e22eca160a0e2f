//! GGUF input (llama.cpp's format, versions 2 and 3), projected as
//! upstream ztensor 2.x projects it: every tensor one object with a single
//! part `data` holding its bytes as stored; the unquantized ggml types
//! (`f32`, `f16`, `bf16`, `f64`, `i8`…`i64`) as `dense` objects of that
//! dtype, the quantized ones as `gguf.<type>/1` objects (`u8` block array,
//! attributes `elems_per_block` and `block_bytes`; profiles/gguf.md); the
//! dims reversed to a row-major shape (the logical shape, in elements);
//! every metadata pair a file attribute of the same key (integers, floats,
//! booleans, text, arrays as CBOR arrays). v1.2 has no layout for ggml
//! blocks: as v1.2 output, a quantized tensor is refused by name.

#[cfg(test)]
pub mod build;
#[cfg(test)]
mod fuzz;
mod ggml;
mod parse;
#[cfg(test)]
mod tests;

pub use parse::{parse, Gguf, Tensor, MAGIC};

use super::{slice_data, Out};
use crate::Fail;
use std::path::Path;
use ztensor::write::v2::{Encoding, Error as V2Error, NewObject as V2Object, NewPart, Writer as V2Writer};
use ztensor::write::FileSink;
use ztensor::write::v1_2::{NewComponent, NewObject};
use ztensor::{DType, Format};

impl Gguf<'_> {
    /// Bytes of tensor data to convert.
    pub fn total(&self) -> u64 {
        self.tensors.iter().map(|t| t.data.len() as u64).sum()
    }

    /// Refuse, before any output exists, what v1.2 cannot hold.
    pub fn check_v12(&self) -> Result<(), String> {
        self.tensors.iter().try_for_each(|t| t.ty.dense.map(drop).ok_or_else(|| no_v12(t)))
    }

    /// Into a v1.2 file: metadata, then the (dense) tensors in data order.
    pub fn write(&self, out: &mut Out) -> Result<(), Fail> {
        for (k, v) in &self.metadata {
            out.set_attribute(k, v.clone())?;
        }
        let mut order: Vec<_> = self.tensors.iter().collect();
        order.sort_by(|a, b| (a.offset, &a.name).cmp(&(b.offset, &b.name)));
        for t in order {
            let dtype = t.ty.dense.ok_or_else(|| out.bad_input(no_v12(t)))?;
            let data = slice_data(t.data, &out.progress);
            out.add(NewObject::new(&t.name, Format::Dense, &t.shape).component(NewComponent::new("data", dtype, data)))?;
        }
        Ok(())
    }

    /// Into a v2 writer: metadata, then every tensor in name order (canonical order).
    pub fn write_v2(
        &self,
        w: &mut V2Writer<FileSink>,
        encoding: Option<Encoding>,
        in_path: &Path,
        refused: impl Fn(V2Error) -> Fail,
    ) -> Result<(), Fail> {
        for (k, v) in &self.metadata {
            w.set_attribute(k, v.clone()).map_err(|e| Fail::input(in_path, format!("metadata {k:?}: {e}")))?;
        }
        let mut order: Vec<_> = self.tensors.iter().collect();
        order.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
        for t in order {
            let mut part = NewPart::new("data", t.ty.dense.unwrap_or(DType::U8), t.data);
            if let Some(e) = encoding {
                part = part.encoding(e);
            }
            let mut obj = V2Object::new(&t.name, &t.shape, t.ty.layout()).part(part);
            if t.ty.dense.is_none() {
                obj = obj.attribute("elems_per_block", t.ty.elems_per_block).attribute("block_bytes", t.ty.block_bytes);
            }
            w.add(obj).map_err(&refused)?;
        }
        Ok(())
    }
}

/// Why a quantized tensor cannot be v1.2 output.
fn no_v12(t: &Tensor<'_>) -> String {
    format!(
        "tensor {:?}: ggml type {} has no v1.2 equivalent (v2, the default, keeps it as layout {})",
        t.name,
        t.ty.name,
        t.ty.layout()
    )
}
