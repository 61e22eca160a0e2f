//! `.zt` input of any version this crate reads (v0.1, v1.0–v1.2): every
//! object, of every format (known or not), with its shape, attributes and
//! components (role, dtype, logical type) is carried over; file attributes
//! too. The reader has already normalized legacy dtypes (`float32`, v1.1's
//! `f8_e4m3`/`complex64`, ...) to v1.2 storage + logical types; big-endian
//! v0.1 data is swapped to little-endian here, and sparse index components
//! of pre-1.2 files that are not `u64` (allowed by v1.1) are widened to
//! `u64`, as v1.2 requires.
//!
//! Input digests are verified before the data is used. Each output
//! component keeps its input digest's algorithm unless `--digest` says
//! otherwise (the digest is recomputed: stored bytes may change).

use super::{owned_data, slice_data, swapped_data, DigestOpt, Out};
use crate::Fail;
use ztensor::digest::{Digest, Verified};
use ztensor::schema::{ComponentKey, ObjectKey, Role};
use ztensor::write::{AttrValue, Data};
use ztensor::write::v1_2::{Checksum, NewComponent, NewObject};
use ztensor::{Component, DType, Encoding, Endian, File, Format, Object};

/// Object and component fields the writer reproduces: the schema's own;
/// others are dropped (with a warning).
const OBJECT_KEYS: &[&str] = ObjectKey::NAMES;
const COMPONENT_KEYS: &[&str] = ComponentKey::NAMES;

/// Decoded bytes to convert (stored bytes where the size is unknown).
pub fn total(file: &File<'_>) -> u64 {
    file.objects().flat_map(|o| o.components()).map(|c| c.decoded_len().unwrap_or(c.length())).sum()
}

pub fn write(file: &File<'_>, out: &mut Out) -> Result<(), Fail> {
    let v = file.version();
    let pre_1_2 = !(v.major == 1 && v.minor >= 2);
    for (k, v) in file.attributes().iter() {
        let key =
            k.as_str().ok_or_else(|| out.bad_input("a file attribute key is not text; it cannot be carried over"))?;
        out.set_attribute(key, AttrValue::from_value(v))?;
    }
    for o in file.objects() {
        let obj = object(&o, v.major == 0, pre_1_2, out)?;
        out.add(obj)?;
    }
    Ok(())
}

fn object<'a>(o: &Object<'a>, v0: bool, pre_1_2: bool, out: &mut Out) -> Result<NewObject<'a>, Fail> {
    let ctx = |msg: String| format!("{msg} (object {:?})", o.name());
    // (A v0.1 object's fields are its tensor map: its custom fields are its attributes.)
    if !v0 {
        for (k, _) in o.fields().iter() {
            if !k.as_str().is_some_and(|k| OBJECT_KEYS.contains(&k)) {
                out.warn(ctx(format!("unknown object field {k:?} is not carried over")));
            }
        }
    }
    let shape: Vec<u64> = o.shape().dims().collect();
    let mut obj = NewObject::new(o.name(), o.format(), &shape);
    for (k, v) in o.attributes().iter() {
        let key = k
            .as_str()
            .ok_or_else(|| out.bad_input(ctx("an attribute key is not text; it cannot be carried over".into())))?;
        obj = obj.attribute(key, AttrValue::from_value(v));
    }
    for c in o.components() {
        let cctx = |msg: String| format!("{msg} (object {:?}, component {:?})", o.name(), c.role());
        for (k, _) in c.fields().iter() {
            if !k.as_str().is_some_and(|k| COMPONENT_KEYS.contains(&k)) {
                out.warn(cctx(format!("unknown component field {k:?} is not carried over")));
            }
        }
        match c.verify_digest() {
            Ok(Verified::Ok | Verified::NoDigest) => {}
            Ok(Verified::Unverifiable) => out
                .warn(cctx(format!("digest {:?} of an unknown algorithm was not verified", c.digest().unwrap_or("")))),
            Err(e) => return Err(out.bad_input(e.in_object(o.name()))),
        }
        let index = pre_1_2
            && c.dtype() != DType::U64
            && match o.format() {
                Format::SparseCsr => [Role::Indices.name(), Role::Indptr.name()].contains(&c.role()),
                Format::SparseCoo => c.role() == Role::Coords.name(),
                _ => false,
            };
        let (dtype, data) = if index {
            let bytes = c.to_vec().map_err(|e| out.bad_input(e.in_object(o.name())))?;
            let wide = widen(&bytes, c.dtype()).map_err(|e| out.bad_input(cctx(e)))?;
            (DType::U64, owned_data(wide, &out.progress))
        } else {
            (c.dtype(), data(&c, o, out)?)
        };
        let mut nc = NewComponent::new(c.role(), dtype, data);
        if let Some(t) = c.logical_type() {
            nc = nc.logical_type(t);
        }
        if let DigestOpt::Keep = out.digest {
            let sum = match c.digest().map(Digest::parse) {
                None => Checksum::None,
                Some(Ok(Digest::Sha256(_))) => Checksum::Sha256,
                Some(Ok(Digest::Crc32c(_))) => Checksum::Crc32c,
                Some(_) => {
                    out.warn(cctx("the digest of an unknown algorithm is dropped".into()));
                    Checksum::None
                }
            };
            nc = nc.checksum(sum);
        }
        obj = obj.component(nc);
    }
    Ok(obj)
}

/// A component's decoded little-endian bytes: borrowed from the input where they are stored so.
fn data<'a>(c: &Component<'a>, o: &Object<'a>, out: &Out) -> Result<Data<'a>, Fail> {
    let bad = |e: ztensor::Error| out.bad_input(e.in_object(o.name()));
    Ok(match (c.encoding(), c.endian()) {
        (Encoding::Raw, Endian::Little) => slice_data(c.stored_bytes().map_err(bad)?, &out.progress),
        (Encoding::Raw, Endian::Big) => {
            swapped_data(c.stored_bytes().map_err(bad)?, c.dtype().width() as usize, &out.progress)
        }
        // `to_vec` decodes and puts elements in little-endian order.
        (Encoding::Zstd | Encoding::ZstdSeekable | Encoding::Unknown, _) => {
            owned_data(c.to_vec().map_err(bad)?, &out.progress)
        }
    })
}

/// Integer indices of any width (little-endian) as `u64`.
fn widen(bytes: &[u8], dtype: DType) -> Result<Vec<u8>, String> {
    let w = dtype.width() as usize;
    let mut out = Vec::with_capacity(bytes.len() / w.max(1) * 8);
    for e in bytes.chunks_exact(w) {
        let mut b = [0u8; 8];
        b[..w].copy_from_slice(e);
        let v = match dtype {
            DType::U8 | DType::U16 | DType::U32 | DType::U64 => u64::from_le_bytes(b),
            DType::I8 | DType::I16 | DType::I32 | DType::I64 => {
                let shift = 64 - 8 * w as u32;
                let v = (i64::from_le_bytes(b) << shift) >> shift;
                u64::try_from(v).map_err(|_| format!("negative sparse index {v}"))?
            }
            other => return Err(format!("sparse indices of type {other} cannot be converted to u64")),
        };
        out.extend_from_slice(&v.to_le_bytes());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widening() {
        let b: Vec<u8> = [1i32, 7, 300].iter().flat_map(|v| v.to_le_bytes()).collect();
        let w = widen(&b, DType::I32).unwrap();
        assert_eq!(w, [1u64, 7, 300].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
        assert!(widen(&(-2i16).to_le_bytes(), DType::I16).unwrap_err().contains("negative"));
        assert_eq!(widen(&[0xff], DType::U8).unwrap(), 255u64.to_le_bytes());
        assert!(widen(&[0, 0, 0, 0], DType::F32).is_err());
    }
}
