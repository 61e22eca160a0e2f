//! The C descriptors of what to write (`zt_write_attribute`,
//! `zt_write_options`, `zt_write_component`) and their decoding, shared by
//! the v1.2 and v2 writers.

use super::args::{data_arg, dtype_arg, opt_str_arg, str_arg};
use crate::args::{arg, get, slice};
use crate::guard::Fail;
use core::ffi::{c_char, c_void};
use ztensor_core::write::v2::{DigestAlg, Encoding, NewPart};
use ztensor_core::write::{AttrValue, Data};
use ztensor_core::write::v1_2::{Checksum, Compression, NewComponent, NewObject};
use ztensor_core::{DType, LogicalType};

/// Which digest `zt_write_options.digest` records for every component of an
/// object, computed over the stored bytes (the compressed frame for zstd).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum zt_digest {
    /// No digest (the default).
    ZT_DIGEST_NONE = 0,
    /// `"sha256:<64 lowercase hex digits>"`: cryptographic.
    ZT_DIGEST_SHA256 = 1,
    /// `"crc32c:0x<8 uppercase hex digits>"`: fast, catches accidental corruption.
    /// v1.2 only.
    ZT_DIGEST_CRC32C = 2,
    /// `"xxh3:<16 lowercase hex digits>"` (XXH3-64): format v2 only, where
    /// the digest is chosen for the whole file (`zt_writer_options.digest`);
    /// an object may name the file's digest, not another.
    ZT_DIGEST_XXH3 = 3,
}

/// What a `zt_write_attribute` holds.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum zt_attr_kind {
    /// A signed integer: `int_value` (written as the shortest CBOR integer).
    ZT_ATTR_INT = 0,
    /// An unsigned integer: `uint_value` (for values above `INT64_MAX`).
    ZT_ATTR_UINT = 1,
    /// A float: `float_value` (written in the shortest of f16/f32/f64 that
    /// keeps it exactly).
    ZT_ATTR_FLOAT = 2,
    /// `true` / `false`: `bool_value`.
    ZT_ATTR_BOOL = 3,
    /// `null` (no value field is read).
    ZT_ATTR_NULL = 4,
    /// UTF-8 text: `data`, `data_len` (or `ZT_NUL_TERMINATED`).
    ZT_ATTR_TEXT = 5,
    /// A byte string: `data`, `data_len`.
    ZT_ATTR_BYTES = 6,
    /// One pre-encoded CBOR data item (an array, a map, a tag, ... or the
    /// `cbor` bytes of a `zt_attribute` read from another file): `data`,
    /// `data_len`. It must be exactly one well-formed item.
    ZT_ATTR_CBOR = 7,
}

/// One attribute to write: a text key and a typed value. Only the field
/// that `kind` names is read (plus `data`/`data_len` for text, bytes and
/// CBOR). Zero-initialize it, then set `key`, `kind` and the value.
#[repr(C)]
pub struct zt_write_attribute {
    /// The key (UTF-8).
    pub key: *const c_char,
    /// Length of `key` in bytes, or `ZT_NUL_TERMINATED`.
    pub key_len: usize,
    /// A `zt_attr_kind`.
    pub kind: u32,
    /// `ZT_ATTR_INT`: the value.
    pub int_value: i64,
    /// `ZT_ATTR_UINT`: the value.
    pub uint_value: u64,
    /// `ZT_ATTR_FLOAT`: the value.
    pub float_value: f64,
    /// `ZT_ATTR_BOOL`: the value.
    pub bool_value: bool,
    /// `ZT_ATTR_TEXT` / `ZT_ATTR_BYTES` / `ZT_ATTR_CBOR`: the bytes.
    pub data: *const c_void,
    /// Length of `data` in bytes (`ZT_NUL_TERMINATED` allowed for text).
    pub data_len: usize,
}

/// Options of one object. A NULL `zt_write_options *` and a zero-initialized
/// struct (`zt_write_options o = {0};`) both mean the defaults: raw
/// encoding, no digest, no logical type, no attributes (on a writer with
/// `zt_writer_options`, RAW and no digest take the writer's compression
/// and digest).
///
/// On a format v2 writer: `encoding` RAW takes the writer's compression,
/// `ZT_ENCODING_ZSTD_SEEKABLE` (at `zstd_level`) compresses this object's
/// parts (refused in canonical form), `ZT_ENCODING_ZSTD` is refused (v1.2's);
/// `digest` 0 is the writer's, and naming another than the writer's is
/// refused (a v2 file has one digest).
#[repr(C)]
pub struct zt_write_options {
    /// A `zt_encoding`: `ZT_ENCODING_RAW` (default), `ZT_ENCODING_ZSTD`
    /// (v1.2) or `ZT_ENCODING_ZSTD_SEEKABLE` (v2), for every component of
    /// the object.
    pub encoding: u32,
    /// The zstd level when `encoding` is `ZT_ENCODING_ZSTD`: 0 means the
    /// default (3); -131072..=22 otherwise. The library's pure-Rust zstd
    /// encoder writes about level 1 whatever the level.
    pub zstd_level: i32,
    /// A `zt_digest` for every component of the object.
    pub digest: u32,
    /// Logical type of the object's primary component (`data` for dense,
    /// `values` for sparse, else the last component): `"f8_e4m3fn"`,
    /// `"complex64"`, ... NULL or empty for none. It must suit the dtype
    /// (FP8 on u8, complex64 on f32, complex128 on f64).
    pub logical_type: *const c_char,
    /// Length of `logical_type` in bytes, or `ZT_NUL_TERMINATED`.
    pub logical_type_len: usize,
    /// The object's attributes, in this order (a key given twice keeps the
    /// last value); NULL when `attribute_count` is 0.
    pub attributes: *const zt_write_attribute,
    /// Number of entries in `attributes`.
    pub attribute_count: usize,
}

/// One component of an object to write (`zt_writer_add_object`,
/// `zt_writer_add_quantized_group`).
#[repr(C)]
pub struct zt_write_component {
    /// The role (`"data"`, `"values"`, ...). For
    /// `zt_writer_add_quantized_group`: NULL (implied) or the expected role.
    pub role: *const c_char,
    /// Length of `role` in bytes, or `ZT_NUL_TERMINATED`.
    pub role_len: usize,
    /// A `zt_dtype`: the storage type of the elements.
    pub dtype: u32,
    /// Logical type of the elements; NULL or empty for none.
    pub logical_type: *const c_char,
    /// Length of `logical_type` in bytes, or `ZT_NUL_TERMINATED`.
    pub logical_type_len: usize,
    /// The elements, little-endian (the host order on x86 and ARM). May be
    /// NULL when `len` is 0.
    pub data: *const c_void,
    /// Length of `data` in bytes.
    pub len: usize,
}

/// The value of a `zt_write_attribute`, and its key.
///
/// # Safety
/// `a`'s pointers are valid as its documentation says.
pub(super) unsafe fn attribute<'a>(a: &zt_write_attribute) -> Result<(&'a str, AttrValue), Fail> {
    let key = arg!(str_arg(a.key, a.key_len, "attribute `key` is NULL or not UTF-8"))?;
    let value = match a.kind {
        0 => AttrValue::from(a.int_value),
        1 => AttrValue::Uint(a.uint_value),
        2 => AttrValue::Float(a.float_value),
        3 => AttrValue::Bool(a.bool_value),
        4 => AttrValue::Null,
        5 => {
            AttrValue::Text(arg!(str_arg(a.data.cast(), a.data_len, "attribute text is NULL or not UTF-8"))?.to_owned())
        }
        6 => AttrValue::Bytes(arg!(data_arg(a.data, a.data_len, "attribute bytes are NULL"))?.to_vec()),
        7 => AttrValue::Cbor(arg!(data_arg(a.data, a.data_len, "attribute CBOR is NULL"))?.to_vec()),
        _ => return Err(Fail::invalid("attribute `kind` is not a zt_attr_kind")),
    };
    Ok((key, value))
}

/// Options of one object, checked but not yet tied to a format version.
pub(super) struct ObjectOptions<'a> {
    /// A `zt_encoding`: 0, 1 or 2.
    encoding: u32,
    /// The zstd level; 0 for the default.
    level: i32,
    /// A `zt_digest`: 0 to 3.
    digest: u32,
    /// The logical type of the primary component.
    pub(super) logical: Option<&'a str>,
    attributes: Vec<(&'a str, AttrValue)>,
}

/// Most negative zstd level (`ZSTD_minCLevel()`).
pub(super) const ZSTD_MIN_LEVEL: i32 = -(1 << 17);

/// A zstd level argument: 0 (the default) or -131072..=22.
pub(super) fn zstd_level(l: i32, what: &'static str) -> Result<i32, Fail> {
    if l == 0 || (ZSTD_MIN_LEVEL..=22).contains(&l) {
        Ok(l)
    } else {
        Err(Fail::invalid(what))
    }
}

/// # Safety
/// `opts` is NULL or points to a valid `zt_write_options`.
pub(super) unsafe fn options<'a>(opts: *const zt_write_options) -> Result<ObjectOptions<'a>, Fail> {
    let mut o = ObjectOptions { encoding: 0, level: 0, digest: 0, logical: None, attributes: Vec::new() };
    let Ok(opts) = arg!(get(opts, ())) else { return Ok(o) };
    o.encoding = match opts.encoding {
        0 => 0,
        e @ (1 | 2) => {
            o.level = zstd_level(opts.zstd_level, "`zstd_level` is out of range (-131072..=22)")?;
            e
        }
        _ => return Err(Fail::invalid("`encoding` is not a zt_encoding")),
    };
    if opts.digest > 3 {
        return Err(Fail::invalid("`digest` is not a zt_digest"));
    }
    o.digest = opts.digest;
    o.logical = arg!(opt_str_arg(opts.logical_type, opts.logical_type_len, "`logical_type` is not UTF-8"))?;
    let too_large = Fail::invalid("`attributes` is NULL or `attribute_count` too large");
    let list = arg!(slice(opts.attributes, opts.attribute_count, too_large))?;
    for a in list {
        o.attributes.push(arg!(attribute(a))?);
    }
    Ok(o)
}

/// What a v1.2 writer's options give objects that do not choose.
#[derive(Clone, Copy)]
pub(super) struct V1Defaults {
    pub compression: Compression,
    pub checksum: Checksum,
}

/// What a v2 writer gives every part: the file's digest, and the encoding
/// of objects that do not choose one.
#[derive(Clone, Copy)]
pub(super) struct V2Defaults {
    pub digest: DigestAlg,
    pub encoding: Encoding,
    pub canonical: bool,
}

impl<'a> ObjectOptions<'a> {
    /// The options of a v1.2 object (the writer's defaults where these say nothing).
    pub(super) fn apply(self, mut obj: NewObject<'a>, d: V1Defaults) -> Result<NewObject<'a>, Fail> {
        let compression = match (self.encoding, self.level) {
            (0, _) => d.compression,
            (1, 0) => Compression::ZSTD,
            (1, l) => Compression::Zstd(l),
            _ => return Err(Fail::invalid("`encoding` ZT_ENCODING_ZSTD_SEEKABLE is a format v2 encoding")),
        };
        let checksum = match self.digest {
            0 => d.checksum,
            1 => Checksum::Sha256,
            2 => Checksum::Crc32c,
            _ => return Err(Fail::invalid("`digest` ZT_DIGEST_XXH3 is a format v2 digest")),
        };
        obj = obj.compression(compression).checksum(checksum);
        if let Some(t) = self.logical {
            obj = obj.logical_type(LogicalType::parse(t));
        }
        for (k, v) in self.attributes {
            obj.set_attribute(k, v);
        }
        Ok(obj)
    }

    /// The encoding every part of a v2 object gets.
    pub(super) fn encoding(&self, d: V2Defaults) -> Result<Encoding, Fail> {
        let digest = match self.digest {
            0 => None,
            1 => Some(DigestAlg::Sha256),
            3 => Some(DigestAlg::Xxh3),
            _ => return Err(Fail::invalid("`digest` ZT_DIGEST_CRC32C is a v1.2 digest")),
        };
        if digest.is_some_and(|g| g != d.digest) {
            return Err(Fail::invalid(
                "`digest`: a v2 file has one digest for every part; choose it in zt_writer_options.digest",
            ));
        }
        match (self.encoding, self.level) {
            (0, _) => Ok(d.encoding),
            (1, _) => {
                Err(Fail::invalid("`encoding` ZT_ENCODING_ZSTD is v1.2's: v2 compresses as ZT_ENCODING_ZSTD_SEEKABLE"))
            }
            _ if d.canonical => Err(Fail::invalid("`encoding`: canonical form stores every part raw")),
            (_, l) => Ok(seekable(l, 0)),
        }
    }

    /// The object attributes, for a v2 object (in order; a key again replaces it).
    pub(super) fn attributes(&mut self) -> Vec<(&'a str, AttrValue)> {
        core::mem::take(&mut self.attributes)
    }
}

/// `zt.zstd-seekable/1` at `level` (0: 3) in frames of `frame` bytes (0: 1 MiB).
pub(super) fn seekable(level: i32, frame: u32) -> Encoding {
    let Encoding::ZstdSeekable { level: default_level, frame: default_frame } = Encoding::ZSTD_SEEKABLE else {
        unreachable!("ZSTD_SEEKABLE is zstd-seekable")
    };
    Encoding::ZstdSeekable {
        level: if level == 0 { default_level } else { level },
        frame: if frame == 0 { default_frame } else { frame },
    }
}

/// One component (v1.2) or part (v2) to write, decoded.
pub(super) struct Part<'a> {
    pub role: &'a str,
    pub dtype: DType,
    pub logical: Option<&'a str>,
    pub data: Data<'a>,
}

impl<'a> Part<'a> {
    /// A part of `role` with these bytes and no logical type.
    pub(super) fn new(role: &'a str, dtype: DType, data: Data<'a>) -> Self {
        Part { role, dtype, logical: None, data }
    }

    /// As a v1.2 component.
    pub(super) fn v1(self) -> NewComponent<'a> {
        let c = NewComponent::new(self.role, self.dtype, self.data);
        match self.logical {
            Some(t) => c.logical_type(LogicalType::parse(t)),
            None => c,
        }
    }

    /// As a v2 part.
    pub(super) fn v2(self, encoding: Encoding) -> NewPart<'a> {
        let p = NewPart::new(self.role, self.dtype, self.data).encoding(encoding);
        match self.logical {
            Some(t) => p.logical(t),
            None => p,
        }
    }
}

/// A component descriptor, decoded. `expected` is the role the caller must
/// name (or leave NULL) for the fixed formats.
///
/// # Safety
/// `c`'s pointers are valid as its documentation says.
pub(super) unsafe fn component<'a>(c: &zt_write_component, expected: Option<&'static str>) -> Result<Part<'a>, Fail> {
    let role: &str = match expected {
        Some(r) if c.role.is_null() => r,
        Some(r) => {
            if arg!(str_arg(c.role, c.role_len, "component `role` is not UTF-8"))? != r {
                return Err(Fail::invalid("component `role` does not match its position (see the function's roles)"));
            }
            r
        }
        None => arg!(str_arg(c.role, c.role_len, "component `role` is NULL or not UTF-8"))?,
    };
    let dtype = dtype_arg(c.dtype)?;
    let data = arg!(data_arg(c.data, c.len, "component `data` is NULL"))?;
    let logical = arg!(opt_str_arg(c.logical_type, c.logical_type_len, "component `logical_type` is not UTF-8"))?;
    Ok(Part { role, dtype, logical, data: Data::bytes(data) })
}

/// The component at `c`, which must not be NULL.
///
/// # Safety
/// `c` is NULL or valid (with its pointers).
pub(super) unsafe fn required<'a>(
    c: *const zt_write_component,
    role: &'static str,
    what: &'static str,
) -> Result<Part<'a>, Fail> {
    let c = arg!(get(c, Fail::invalid(what)))?;
    arg!(component(c, Some(role)))
}
