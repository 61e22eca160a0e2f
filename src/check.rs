//! Data-level checks (O(data)): what metadata alone cannot show.
//!
//! CSR `indptr` starts at 0, never decreases and ends at nnz; CSR column
//! indices are below the column count; COO coordinates are inside the shape;
//! bool bytes are 0 or 1; zstd data decodes to exactly the declared length;
//! digests match.

use crate::error::{Error, ErrorKind, Result};
use crate::manifest::schema::Role;
use crate::object::{Component, Object};
use crate::types::{DType, Encoding, Endian, Format};

/// A component's stored bytes as verification fetched them: borrowed from
/// memory, or read into a buffer (positional sources).
pub(crate) enum Stored<'s> {
    Borrowed(&'s [u8]),
    #[cfg(feature = "alloc")]
    Owned(alloc::vec::Vec<u8>),
}

impl Stored<'_> {
    pub(crate) fn get(&self) -> &[u8] {
        match self {
            Stored::Borrowed(b) => b,
            #[cfg(feature = "alloc")]
            Stored::Owned(v) => v,
        }
    }
}

impl core::ops::Deref for Stored<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.get()
    }
}

/// The stored bytes of a component, from the file it was parsed from.
pub(crate) fn in_memory<'a>(c: &Component<'a>) -> Result<Stored<'a>> {
    c.stored_bytes().map(Stored::Borrowed)
}

/// The component's decoded bytes in stored element order (v0.1 may be big-endian).
fn decoded<'a>(c: &Component<'a>) -> Result<Stored<'a>> {
    match c.encoding() {
        Encoding::Raw => Ok(Stored::Borrowed(c.stored_bytes()?)),
        #[cfg(feature = "alloc")]
        Encoding::Zstd | Encoding::ZstdSeekable | Encoding::Unknown => {
            // `to_vec` converts to little-endian; integer readers below take that order.
            // (The digest is verification's own step, not this decode's.)
            c.unverified().to_vec().map(Stored::Owned)
        }
        #[cfg(not(feature = "alloc"))]
        Encoding::Zstd | Encoding::ZstdSeekable | Encoding::Unknown => {
            Err(c.error(ErrorKind::Unsupported { what: "zstd decoding needs the `alloc` feature" }))
        }
    }
}

/// Integer elements of a component as `u64`; `None` for a negative value.
fn ints<'b>(c: &Component<'_>, bytes: &'b [u8]) -> Result<impl Iterator<Item = Option<u64>> + 'b> {
    let dtype = c.dtype();
    if !dtype.is_integer() {
        return Err(c.error(ErrorKind::IndexDType));
    }
    let w = dtype.width() as usize;
    let big = c.endian() == Endian::Big && c.encoding() == Encoding::Raw;
    Ok(bytes.chunks_exact(w).map(move |e| {
        let mut b = [0u8; 8];
        if big {
            for (i, &x) in e.iter().rev().enumerate() {
                b[i] = x;
            }
        } else {
            b[..w].copy_from_slice(e);
        }
        let v = u64::from_le_bytes(b);
        let negative = matches!(dtype, DType::I8 | DType::I16 | DType::I32 | DType::I64) && (b[w - 1] & 0x80) != 0;
        (!negative).then_some(v)
    }))
}

/// Number of logical elements of `c` (decoding it when no size is declared).
fn logical_len<'a, 's>(c: &Component<'a>, load: &impl Fn(&Component<'a>) -> Result<Stored<'s>>) -> Result<u64> {
    let per = c.dtype().width() * c.logical_type().and_then(|t| t.ratio()).unwrap_or(1);
    let n = match c.decoded_len() {
        Some(n) => n,
        None => {
            let s = load(c)?;
            let n = decoded(&c.with_stored(s.get()))?.get().len() as u64;
            n
        }
    };
    Ok(crate::types::div_pow2(n, per))
}

fn bad(o: &Object<'_>, c: &Component<'_>, what: &'static str) -> Error {
    Error::new(ErrorKind::BadData { what }).in_object(o.name()).in_component(c.role())
}

impl<'a> Object<'a> {
    /// Check this object's data: every component decodes to its declared
    /// length, and the rules of its format hold for the values (see the
    /// module docs). Digests are not checked here: [`Component::verify_digest`].
    pub fn check_data(&self) -> Result<()> {
        for c in self.components() {
            component_data(self, &c)?;
        }
        format_data(self, &in_memory)
    }
}

/// The data rules of one component whose stored bytes `c` can reach:
/// it decodes to its declared length; bool bytes are 0 or 1.
pub(crate) fn component_data(o: &Object<'_>, c: &Component<'_>) -> Result<()> {
    let in_obj = |e: Error| e.in_object(o.name());
    // Streamed: a component is never held decoded just to be checked.
    let bool_ok = |b: &[u8]| c.dtype() != DType::Bool || b.iter().all(|&x| x <= 1);
    let stored = c.stored_bytes().map_err(in_obj)?;
    match c.encoding() {
        Encoding::Raw => {
            if !bool_ok(stored) {
                return Err(bad(o, c, "bool byte other than 0 or 1"));
            }
        }
        #[cfg(feature = "alloc")]
        Encoding::Zstd => {
            let limit = c.decoded_len().unwrap_or(crate::read::DEFAULT_DECODE_LIMIT);
            let mut bools = true;
            let n = crate::zstd::for_each_chunk(stored, limit, |b| {
                bools &= bool_ok(b);
                Ok(())
            })
            .map_err(|e| in_obj(e.in_component(c.role())))?;
            if let Some(expected) = c.decoded_len() {
                if n != expected {
                    return Err(in_obj(c.error(ErrorKind::LengthMismatch { expected, actual: n })));
                }
            } else if crate::types::rem_pow2(n, c.dtype().width()) != 0 {
                let width = c.dtype().width();
                return Err(in_obj(c.error(ErrorKind::PartialElement { length: n, width })));
            }
            if !bools {
                return Err(bad(o, c, "bool byte other than 0 or 1"));
            }
        }
        #[cfg(not(feature = "alloc"))]
        Encoding::Zstd => {
            return Err(in_obj(c.error(ErrorKind::Unsupported { what: "zstd decoding needs the `alloc` feature" })));
        }
        // v2 parts are checked by `crate::v2::verify`, never here.
        Encoding::ZstdSeekable | Encoding::Unknown => {
            return Err(in_obj(c.error(ErrorKind::Unsupported { what: "v2 encodings in a v1 check" })));
        }
    }
    Ok(())
}

/// The data rules of the object's format (CSR, COO), with component bytes from `load`.
/// Out of line without `alloc`: inlined into the verify loop, its three
/// components and their views added to the loop's frame.
#[cfg_attr(not(feature = "alloc"), inline(never))]
pub(crate) fn format_data<'a, 's>(o: &Object<'a>, load: &impl Fn(&Component<'a>) -> Result<Stored<'s>>) -> Result<()> {
    match o.format() {
        Format::SparseCsr => check_csr(o, load),
        Format::SparseCoo => check_coo(o, load),
        _ => Ok(()),
    }
}

// The sparse checks hold one component at a time (each step out of line
// without `alloc`): three `Component`s in one frame set the firmware's
// stack peak.

fn check_csr<'a, 's>(o: &Object<'a>, load: &impl Fn(&Component<'a>) -> Result<Stored<'s>>) -> Result<()> {
    let nnz = values_len(o, load)?;
    csr_indptr(o, load, nnz)?;
    csr_indices(o, load, o.shape().dim(1).unwrap_or(0))
}

/// The number of (logical) values of a sparse object.
#[cfg_attr(not(feature = "alloc"), inline(never))]
fn values_len<'a, 's>(o: &Object<'a>, load: &impl Fn(&Component<'a>) -> Result<Stored<'s>>) -> Result<u64> {
    logical_len(&o.require(Role::Values.name())?, load)
}

/// CSR `indptr` starts at 0, never decreases and ends at `nnz`.
#[cfg_attr(not(feature = "alloc"), inline(never))]
fn csr_indptr<'a, 's>(o: &Object<'a>, load: &impl Fn(&Component<'a>) -> Result<Stored<'s>>, nnz: u64) -> Result<()> {
    let indptr = o.require(Role::Indptr.name())?;
    let ps = load(&indptr)?;
    let p = decoded(&indptr.with_stored(ps.get()))?;
    let mut prev = None;
    for v in ints(&indptr, p.get())? {
        let v = v.ok_or_else(|| bad(o, &indptr, "negative CSR indptr"))?;
        match prev {
            None if v != 0 => return Err(bad(o, &indptr, "CSR indptr does not start at 0")),
            Some(p) if v < p => return Err(bad(o, &indptr, "CSR indptr decreases")),
            _ => {}
        }
        prev = Some(v);
    }
    if prev.unwrap_or(0) != nnz {
        return Err(bad(o, &indptr, "CSR indptr does not end at the number of values"));
    }
    Ok(())
}

/// CSR column indices are below the column count.
#[cfg_attr(not(feature = "alloc"), inline(never))]
fn csr_indices<'a, 's>(o: &Object<'a>, load: &impl Fn(&Component<'a>) -> Result<Stored<'s>>, cols: u64) -> Result<()> {
    let indices = o.require(Role::Indices.name())?;
    let is = load(&indices)?;
    let i = decoded(&indices.with_stored(is.get()))?;
    for v in ints(&indices, i.get())? {
        if v.map_or(true, |v| v >= cols) {
            return Err(bad(o, &indices, "CSR column index out of range"));
        }
    }
    Ok(())
}

fn check_coo<'a, 's>(o: &Object<'a>, load: &impl Fn(&Component<'a>) -> Result<Stored<'s>>) -> Result<()> {
    let nnz = values_len(o, load)?;
    coo_coords(o, load, nnz)
}

/// COO coordinates lie inside the shape.
#[cfg_attr(not(feature = "alloc"), inline(never))]
fn coo_coords<'a, 's>(o: &Object<'a>, load: &impl Fn(&Component<'a>) -> Result<Stored<'s>>, nnz: u64) -> Result<()> {
    let coords = o.require(Role::Coords.name())?;
    let cs = load(&coords)?;
    let b = decoded(&coords.with_stored(cs.get()))?;
    let mut dims = o.shape().dims();
    // `coords` is ndim runs of nnz: `left` counts down the current run (no
    // 64-bit remainder, which 32-bit targets would link a routine for).
    let (mut limit, mut left) = (0, 0u64);
    for v in ints(&coords, b.get())? {
        if nnz > 0 && left == 0 {
            limit = dims.next().unwrap_or(0);
            left = nnz;
        }
        left = left.saturating_sub(1);
        if v.map_or(true, |v| v >= limit) {
            return Err(bad(o, &coords, "COO coordinate out of range"));
        }
    }
    Ok(())
}
