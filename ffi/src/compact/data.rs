//! The compact build's attributes, components and verification: the
//! header's functions of the same names (see `mod.rs`).

use super::{guard, handle, object, text_arg, zt_file, Fail, Msg};
use crate::args::{arg, buffer, cleared, out_ref, put, put_opt};
use crate::dtype::c_dtype;
use crate::value::describe_into;
use crate::{zt_attribute, zt_component_info, zt_encoding, zt_object, zt_status, zt_verify_counts};
use crate::{ZT_VERIFY_ALL, ZT_VERIFY_ALLOW_UNVERIFIABLE, ZT_VERIFY_DATA, ZT_VERIFY_DIGESTS, ZT_VERIFY_STRICT};
use core::ffi::c_char;
use ztensor_core::compact::{Component, Fault, Kind, Map, Object};
use ztensor_core::read::{MAX_ZSTD_RATIO, ZSTD_MAX_BLOCK};
use ztensor_core::verify::Options;
use ztensor_core::Encoding;

/// The attributes of `obj`, or of the file when `obj` is NULL.
///
/// # Safety
/// `obj` is NULL or readable.
unsafe fn attributes(h: &zt_file, obj: *const zt_object) -> Result<Map<'static>, Msg> {
    if obj.is_null() {
        Ok(h.file.attributes())
    } else {
        arg!(object(h, obj)).map(|(_, o)| o.attributes())
    }
}

/// Number of attributes of `obj`, or of the file when `obj` is NULL.
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `count` NULL or writable.
#[cfg_attr(feature = "compact", no_mangle)]
pub unsafe extern "C" fn zt_attribute_count(
    file: *const zt_file,
    obj: *const zt_object,
    count: *mut usize,
) -> zt_status {
    guard(|| {
        let m = arg!(attributes(arg!(handle(file))?, obj))?;
        arg!(put(count, m.len(), "`count` is NULL"))?;
        Ok(())
    })
}

/// The attribute at position `index` of `obj` (or of the file).
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `attr` NULL or writable.
#[cfg_attr(feature = "compact", no_mangle)]
pub unsafe extern "C" fn zt_attribute_at(
    file: *const zt_file,
    obj: *const zt_object,
    index: usize,
    attr: *mut zt_attribute,
) -> zt_status {
    guard(|| {
        let attr = arg!(cleared(attr, Msg::AttrNull))?;
        let m = arg!(attributes(arg!(handle(file))?, obj))?;
        let (k, v) = m.iter().nth(index).ok_or(Fail::Str(zt_status::ZT_ERR_INVALID_ARGUMENT, "attribute index out of range"))?;
        describe_into(attr, k, v);
        Ok(())
    })
}

/// The attribute whose text key is `key` of `obj` (or of the file).
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `key` valid for `key_len`
/// bytes (or NUL-terminated); `attr` NULL or writable.
#[cfg_attr(feature = "compact", no_mangle)]
pub unsafe extern "C" fn zt_attribute_find(
    file: *const zt_file,
    obj: *const zt_object,
    key: *const c_char,
    key_len: usize,
    attr: *mut zt_attribute,
) -> zt_status {
    guard(|| {
        let attr = arg!(cleared(attr, Msg::AttrNull))?;
        let h = arg!(handle(file))?;
        let key = arg!(text_arg(key, key_len, Msg::KeyNull))?;
        let m = arg!(attributes(h, obj))?;
        let (k, v) = m
            .iter()
            .find(|(k, _)| k.as_str().map(str::as_bytes) == Some(key))
            .ok_or(Fail::Text(Msg::NoAttribute))?;
        describe_into(attr, k, v);
        Ok(())
    })
}

/// The handle, the component `role` of the object `obj` (decoded into
/// the caller's `slot`: no copy of it into the result), and the bytes it
/// decodes to when known.
///
/// # Safety
/// `file` NULL or live, `obj` NULL or readable, `role` valid for
/// `role_len` bytes or NUL-terminated.
unsafe fn component<'a, 's>(
    file: *const zt_file,
    obj: *const zt_object,
    role: *const c_char,
    role_len: usize,
    slot: &'s mut Option<Component<'static>>,
) -> Result<(&'a zt_file, &'s Component<'static>, Option<u64>), Msg> {
    arg!(object(file, obj)).and_then(|(h, o)| {
        let role = arg!(text_arg(role, role_len, Msg::RoleNull))?;
        *slot = o.component(role);
        match slot {
            Some(c) => Ok((h, &*c, decoded_len(&o, c))),
            None => Err(Msg::NoComponent),
        }
    })
}

/// The bytes `c` decodes to, when known: the stored length (raw), the
/// declared size (zstd) or, where a v1.1 file declares none, the size
/// shape and type imply for a dense object's `data` (as the full reader).
#[cfg(feature = "v1-legacy")]
fn decoded_len(o: &Object<'_>, c: &Component<'_>) -> Option<u64> {
    match c.decoded_len() {
        None if c.role == "data" && o.format() == ztensor_core::Format::Dense => {
            c.ratio().and_then(|r| mul_pow2(o.shape().numel(), (c.dtype.width() * r) as u32))
        }
        n => n,
    }
}

/// [`decoded_len`] of a build that reads v1.2 only (without
/// `v1-legacy`), where zstd components declare their size.
#[cfg(not(feature = "v1-legacy"))]
fn decoded_len(_: &Object<'_>, c: &Component<'_>) -> Option<u64> {
    c.decoded_len()
}

/// `n * m`, `None` on overflow, for an `m` that is a power of two (a width
/// times a ratio, at most 16): no carry comes up from the low half, so the
/// product overflows exactly when the high half's does (32 x 32 bits).
#[cfg(feature = "v1-legacy")]
fn mul_pow2(n: u64, m: u32) -> Option<u64> {
    ((n >> 32) * m as u64 >> 32 == 0).then(|| n.wrapping_mul(m as u64))
}

/// Write the description of `c` (which decodes to `decoded` bytes) of the
/// file `h` to `*info`, which the caller zeroed: only the fields that can
/// be other than zero are written (little-endian elements; no shards, the
/// compact reader refuses sharded files; digests over the stored bytes in
/// v1.x, over the decoded bytes in v2, §3.4).
///
fn describe_component(info: &mut zt_component_info, h: &zt_file, c: &Component<'_>, decoded: Option<u64>) {
    (info.role, info.role_len) = (c.role.as_ptr().cast(), c.role.len());
    info.dtype = c_dtype(c.dtype);
    // (A build without v2, the firmware's, meets raw and zstd only: one
    // test, for its flash budget.)
    #[cfg(not(feature = "v2"))]
    let _ = h;
    #[cfg(not(feature = "v2"))]
    if c.encoding != Encoding::Raw {
        info.encoding = zt_encoding::ZT_ENCODING_ZSTD;
    }
    #[cfg(feature = "v2")]
    {
        info.encoding = match c.encoding {
            Encoding::Raw => zt_encoding::ZT_ENCODING_RAW,
            Encoding::Zstd => zt_encoding::ZT_ENCODING_ZSTD,
            Encoding::ZstdSeekable => zt_encoding::ZT_ENCODING_ZSTD_SEEKABLE,
            Encoding::Unknown => zt_encoding::ZT_ENCODING_UNKNOWN,
        };
        info.digest_over_decoded = h.file.version().major == 2;
    }
    if let Some(name) = c.logical.map(|t| t.name()) {
        (info.logical_type, info.logical_type_len) = (name.as_ptr().cast(), name.len());
    }
    (info.offset, info.length) = (c.offset, c.length);
    if let Some(n) = c.uncompressed_length {
        (info.uncompressed_length, info.has_uncompressed_length) = (n, true);
    }
    if let Some(n) = decoded {
        (info.decoded_length, info.has_decoded_length) = (n, true);
    }
    if let Some(d) = c.digest {
        (info.digest, info.digest_len) = (d.as_ptr().cast(), d.len());
    }
    #[cfg(not(feature = "v2"))]
    let id = c.encoding.name();
    #[cfg(feature = "v2")]
    let id = h.file.encoding_id(c);
    (info.encoding_id, info.encoding_id_len) = (id.as_ptr().cast(), id.len());
}

/// The component `role` of an object (the header's `zt_component`).
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `role` valid for
/// `role_len` bytes (or NUL-terminated); `info` NULL or writable.
#[cfg_attr(feature = "compact", no_mangle)]
pub unsafe extern "C" fn zt_component(
    file: *const zt_file,
    obj: *const zt_object,
    role: *const c_char,
    role_len: usize,
    info: *mut zt_component_info,
) -> zt_status {
    guard(|| {
        let info = arg!(cleared(info, Msg::InfoNull))?;
        let slot = &mut None;
        arg!(component(file, obj, role, role_len, slot))
            .map(|(h, c, decoded)| describe_component(info, h, c, decoded))
            .map_err(Fail::Text)
    })
}

/// The component at position `index` of an object.
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `info` NULL or writable.
#[cfg_attr(feature = "compact", no_mangle)]
pub unsafe extern "C" fn zt_component_at(
    file: *const zt_file,
    obj: *const zt_object,
    index: usize,
    info: *mut zt_component_info,
) -> zt_status {
    guard(|| {
        let info = arg!(cleared(info, Msg::InfoNull))?;
        let (h, o) = arg!(object(file, obj))?;
        let c = o.components().nth(index).ok_or(Fail::Str(zt_status::ZT_ERR_INVALID_ARGUMENT, "component index out of range"))?;
        describe_component(info, h, &c, decoded_len(&o, &c));
        Ok(())
    })
}

/// Zero-copy access to a raw component's stored bytes (into the caller's
/// memory); `ZT_ERR_NOT_ZERO_COPY` for zstd (and multi-byte elements on a
/// big-endian host).
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `role` valid for
/// `role_len` bytes (or NUL-terminated); `ptr`, `len` NULL or writable.
#[cfg_attr(feature = "compact", no_mangle)]
pub unsafe extern "C" fn zt_component_ptr(
    file: *const zt_file,
    obj: *const zt_object,
    role: *const c_char,
    role_len: usize,
    ptr: *mut *const u8,
    len: *mut usize,
) -> zt_status {
    guard(|| {
        let (Some(ptr), Some(len)) = (arg!(out_ref(ptr)), arg!(out_ref(len))) else {
            return Err(Fail::Text(Msg::PtrOrLenNull));
        };
        let (ptr, len) = (ptr.write(core::ptr::null()), len.write(0));
        let slot = &mut None;
        let (h, c, _) = arg!(component(file, obj, role, role_len, slot))?;
        if c.encoding != Encoding::Raw {
            return Err(Fail::Text(Msg::Compressed));
        }
        if c.dtype.width() > 1 && cfg!(target_endian = "big") {
            return Err(Fail::Str(zt_status::ZT_ERR_NOT_ZERO_COPY, "no zero-copy view: elements are not in host byte order"));
        }
        let bytes = h.file.stored(&c);
        (*ptr, *len) = (bytes.as_ptr(), bytes.len());
        Ok(())
    })
}

/// Copy a raw component into `dst` (the header's `zt_component_read`):
/// `ZT_ERR_BUFFER_TOO_SMALL` with the size needed in `*written` (also for
/// zstd, whose declared size is checked as by the full reader), and
/// `ZT_ERR_UNSUPPORTED` for zstd data, which this build does not decode.
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `role` valid for
/// `role_len` bytes (or NUL-terminated); `dst` NULL or writable for `cap`
/// bytes; `written` NULL or writable.
#[cfg_attr(feature = "compact", no_mangle)]
pub unsafe extern "C" fn zt_component_read(
    file: *const zt_file,
    obj: *const zt_object,
    role: *const c_char,
    role_len: usize,
    dst: *mut core::ffi::c_void,
    cap: usize,
    written: *mut usize,
) -> zt_status {
    guard(|| {
        let written = arg!(out_ref(written)).ok_or(Msg::WrittenNull)?.write(0);
        let slot = &mut None;
        let (h, c, decoded) = arg!(component(file, obj, role, role_len, slot))?;
        let raw = c.encoding == Encoding::Raw;
        if let Some(n) = decoded {
            // A declared size the stored bytes cannot produce is refused
            // before a caller allocates it (the full reader's rule).
            if !raw && n > c.length.saturating_mul(MAX_ZSTD_RATIO).saturating_add(ZSTD_MAX_BLOCK) {
                return Err(Fail::Text(Msg::DeclaredSize));
            }
            if (cap as u64) < n {
                *written = usize::try_from(n).unwrap_or(usize::MAX);
                return Err(Fail::Text(Msg::ComponentTooSmall));
            }
        }
        let dst = arg!(buffer(dst.cast::<u8>(), cap, Msg::CapOver, Msg::DstNull))?;
        if !raw {
            return Err(Fail::Fault(0, Fault { kind: Kind::Zstd, at: c.at as u32 }));
        }
        // Raw: `cap` holds the stored length (checked above).
        let bytes = h.file.stored(&c);
        // v2: an unknown logical type is not decoded, bool and f4_e2m1
        // bytes obey their rules (Appendix A), as the full library reads them.
        #[cfg(feature = "v2")]
        {
            let (_, o) = arg!(object(file, obj))?;
            h.file.check_decoded(&o, c, bytes).map_err(|f| Fail::Fault(0, f))?;
        }
        // SAFETY: `dst` holds `cap` bytes, which hold the stored ones
        // (checked above); a copy without the slice's length check, which
        // would bring a panic path into the firmware.
        unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), dst.as_mut_ptr(), bytes.len()) };
        *written = bytes.len();
        Ok(())
    })
}

/// Verify the whole file (the header's `zt_verify`).
///
/// # Safety
/// `file` NULL or live.
#[cfg_attr(feature = "compact", no_mangle)]
pub unsafe extern "C" fn zt_verify(file: *const zt_file, flags: u32) -> zt_status {
    arg!(zt_verify_report(file, flags, core::ptr::null_mut()))
}

/// `zt_verify`, and what it looked at (the header's `zt_verify_report`):
/// digests (over the stored bytes in v1.x, the decoded bytes in v2), the
/// data rules of raw components; a zstd component's data is a problem when
/// data is checked, and in v2 a zstd-seekable part is one when digests are
/// checked too (`ZT_ERR_UNSUPPORTED`: not decoded by this build).
///
/// # Safety
/// `file` NULL or live; `counts` NULL or writable.
#[cfg_attr(feature = "compact", no_mangle)]
pub unsafe extern "C" fn zt_verify_report(
    file: *const zt_file,
    flags: u32,
    counts: *mut zt_verify_counts,
) -> zt_status {
    guard(|| {
        let zero = zt_verify_counts { objects: 0, components: 0, digests_checked: 0, unverifiable: 0, problems: 0 };
        arg!(put_opt(counts, zero));
        let h = arg!(handle(file))?;
        let allow = flags & ZT_VERIFY_ALLOW_UNVERIFIABLE != 0;
        if flags & !(ZT_VERIFY_ALL | ZT_VERIFY_STRICT | ZT_VERIFY_ALLOW_UNVERIFIABLE) != 0
            || (allow && flags & ZT_VERIFY_STRICT != 0)
        {
            return Err(Fail::Text(Msg::VerifyFlag));
        }
        let checks = if flags & ZT_VERIFY_ALL == 0 { ZT_VERIFY_ALL } else { flags };
        let options = Options {
            digests: checks & ZT_VERIFY_DIGESTS != 0,
            data: checks & ZT_VERIFY_DATA != 0,
            strict: !allow,
        };
        let r = h.file.verify(options);
        let c = zt_verify_counts {
            objects: r.objects,
            components: r.components,
            digests_checked: r.digests_checked,
            unverifiable: r.unverifiable,
            problems: r.problems,
        };
        arg!(put_opt(counts, c));
        match r.first {
            None => Ok(()),
            Some(f) => Err(Fail::Fault(r.problems, f)),
        }
    })
}
