//! `zt_component_read_as`: a component's elements converted to `f32` or
//! `f64` (the core's `cast` module), on top of `zt_component_read`.

use crate::args::{arg, buffer, put, put_opt};
use crate::guard::{guard, Detail, Fail, Phase};
use crate::{zt_component_read, zt_dtype, zt_file, zt_last_error, zt_object, zt_status};
use core::ffi::c_char;
use ztensor_core::cast::{self, Source};
use ztensor_core::{DType, Error as CoreError, ErrorKind};

/// Decode a component into the caller's buffer `dst` of `cap` bytes with
/// every element converted to `dtype`, `ZT_DTYPE_F32` or `ZT_DTYPE_F64`
/// (host byte order, any alignment). `*written` receives the bytes written.
///
/// Every storage type converts: `f16`, `bf16`, FP8 (`u8` with logical type
/// `f8_e4m3fn`, `f8_e5m2`, `f8_e4m3fnuz`, `f8_e5m2fnuz`), bool (0 or 1) and
/// integers widen exactly; `f64` and integers wider than the target's
/// mantissa round to nearest. NaNs keep their sign (and payload where the
/// target holds it). Complex components convert part by part
/// (interleaved `[re, im]`).
///
/// Sizing works as with `zt_component_read`: `ZT_ERR_BUFFER_TOO_SMALL`
/// when `cap` is less than elements × `zt_dtype_size(dtype)`, with that
/// size in `*written` (call with `dst = NULL, cap = 0` to ask; the element
/// count is checked against what the stored bytes can produce).
/// `ZT_ERR_INVALID_ARGUMENT` for another target `dtype`;
/// `ZT_ERR_UNSUPPORTED` for a logical type this library does not know (what
/// its elements mean is unknown); `ZT_ERR_CORRUPT_DATA` for a bool byte
/// other than 0 or 1, and every error of `zt_component_read`. When the
/// component already has the target type this is `zt_component_read`;
/// otherwise the decoded bytes pass through a temporary buffer of the
/// library's, released before returning.
///
/// Ownership: the caller owns `dst`. Thread-safety: safe on a shared
/// handle (each thread with its own `dst`).
///
/// # Safety
/// `file` NULL or live; `obj` NULL or readable; `role` valid for
/// `role_len` bytes (or NUL-terminated); `dst` NULL or writable for `cap`
/// bytes; `written` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_component_read_as(
    file: *const zt_file,
    obj: *const zt_object,
    role: *const c_char,
    role_len: usize,
    dtype: u32,
    dst: *mut core::ffi::c_void,
    cap: usize,
    written: *mut usize,
) -> zt_status {
    guard(|| {
        arg!(put(written, 0, "`written` is NULL"))?;
        let to = match dtype {
            d if d == zt_dtype::ZT_DTYPE_F32 as u32 => DType::F32,
            d if d == zt_dtype::ZT_DTYPE_F64 as u32 => DType::F64,
            _ => return Err(Fail::invalid("zt_component_read_as converts to ZT_DTYPE_F32 or ZT_DTYPE_F64 only")),
        };
        let (_, name, c) = arg!(crate::component::component(file, obj, role, role_len))?;
        let from = c.source().map_err(|e| Fail::core(e.in_object(name), Phase::Data))?;
        if from == Source::Plain(to) {
            return nested(arg!(zt_component_read(file, obj, role, role_len, dst, cap, written)));
        }
        // The decoded size, checked by zt_component_read before anyone allocates it.
        let mut stored = 0usize;
        // SAFETY: the caller's pointers (this function's `# Safety`), and
        // `stored` is writable.
        let s = unsafe { zt_component_read(file, obj, role, role_len, core::ptr::null_mut(), 0, &mut stored) };
        if s != zt_status::ZT_ERR_BUFFER_TOO_SMALL {
            nested(s)?;
        }
        let needed = (stored / from.width()) as u64 * to.width();
        if (cap as u64) < needed {
            arg!(put_opt(written, usize::try_from(needed).unwrap_or(usize::MAX)));
            let e = CoreError::new(ErrorKind::BufferTooSmall { needed }).in_object(name).in_component(c.role());
            return Err(Fail { status: zt_status::ZT_ERR_BUFFER_TOO_SMALL, detail: Detail::Core(e) });
        }
        let too_large = Fail::invalid("`cap` is over PTRDIFF_MAX");
        let out = arg!(buffer(dst.cast::<u8>(), cap, too_large, Fail::invalid("`dst` is NULL")))?;
        let mut decoded = vec![0u8; stored];
        let mut n = 0usize;
        // SAFETY: the caller's pointers (this function's `# Safety`), and
        // `decoded` is writable for `stored` bytes, `n` for one `usize`.
        nested(unsafe { zt_component_read(file, obj, role, role_len, decoded.as_mut_ptr().cast(), stored, &mut n) })?;
        let count = cast::convert_into(from, to, &decoded[..n], out)
            .map_err(|e| Fail::core(e.in_object(name).in_component(c.role()), Phase::Data))?;
        arg!(put_opt(written, count * to.width() as usize));
        Ok(())
    })
}

/// The result of a nested entry point: its status, with the message it recorded.
fn nested(s: zt_status) -> Result<(), Fail> {
    if s == zt_status::ZT_OK {
        return Ok(());
    }
    // SAFETY: zt_last_error returns a NUL-terminated string of this thread.
    let msg = unsafe { core::ffi::CStr::from_ptr(zt_last_error()) };
    Err(Fail { status: s, detail: Detail::Owned(msg.to_string_lossy().into_owned()) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{zt_close, zt_find, zt_open_mem, ZT_NUL_TERMINATED};
    use ztensor_core::write::IoSink;
    use ztensor_core::write::v1_2::{NewObject, Writer};
    use ztensor_core::LogicalType;

    /// A file with one dense object per case, written by the core writer.
    fn file_with(objects: &[(&str, DType, Option<&str>, Vec<u8>)]) -> Vec<u8> {
        let mut w = Writer::new(IoSink::new(Vec::new()));
        for (name, dtype, logical, bytes) in objects {
            let width = dtype.width() as usize;
            let mut o = NewObject::dense(*name, &[(bytes.len() / width) as u64], *dtype, bytes.as_slice());
            if let Some(t) = logical {
                o = o.logical_type(LogicalType::parse(t));
            }
            w.add(o).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    fn read_as(bytes: &[u8], name: &str, dtype: u32, cap: usize) -> (zt_status, usize, Vec<u8>) {
        let mut f = core::ptr::null_mut();
        let mut out = vec![0u8; cap];
        unsafe {
            assert_eq!(zt_open_mem(bytes.as_ptr(), bytes.len(), &mut f), zt_status::ZT_OK);
            let mut o = zt_object { index: 0, owner: 0 };
            assert_eq!(zt_find(f, name.as_ptr().cast(), name.len(), &mut o), zt_status::ZT_OK);
            let mut n = 0;
            let dst = if cap == 0 { core::ptr::null_mut() } else { out.as_mut_ptr().cast() };
            let s = zt_component_read_as(f, &o, c"data".as_ptr(), ZT_NUL_TERMINATED, dtype, dst, cap, &mut n);
            zt_close(f);
            (s, n, out)
        }
    }

    fn floats(b: &[u8]) -> Vec<f32> {
        b.chunks_exact(4).map(|c| f32::from_ne_bytes(c.try_into().unwrap())).collect()
    }

    #[test]
    fn converts_every_storage_to_f32() {
        let file = file_with(&[
            ("h", DType::F16, None, vec![0x00, 0x3c, 0x00, 0xc0]),
            ("b", DType::BF16, None, vec![0x80, 0x3f, 0x40, 0xc0]),
            ("i", DType::I8, None, vec![0xff, 0x7f]),
            ("q", DType::U8, Some("f8_e4m3fn"), vec![0x38, 0x7e]),
            ("f", DType::F32, None, [1.5f32, -2.0].iter().flat_map(|x| x.to_le_bytes()).collect()),
        ]);
        let want: [(&str, [f32; 2]); 5] =
            [("h", [1.0, -2.0]), ("b", [1.0, -3.0]), ("i", [-1.0, 127.0]), ("q", [1.0, 448.0]), ("f", [1.5, -2.0])];
        for (name, values) in want {
            let f32_ = zt_dtype::ZT_DTYPE_F32 as u32;
            // Sizing: NULL, 0 says how much is needed.
            let (s, n, _) = read_as(&file, name, f32_, 0);
            assert_eq!((s, n), (zt_status::ZT_ERR_BUFFER_TOO_SMALL, 8), "{name}");
            let (s, n, _) = read_as(&file, name, f32_, 7);
            assert_eq!((s, n), (zt_status::ZT_ERR_BUFFER_TOO_SMALL, 8), "{name}");
            let (s, n, out) = read_as(&file, name, f32_, 8);
            assert_eq!((s, n), (zt_status::ZT_OK, 8), "{name}");
            assert_eq!(floats(&out), values, "{name}");
        }
        let (s, n, out) = read_as(&file, "h", zt_dtype::ZT_DTYPE_F64 as u32, 16);
        assert_eq!((s, n), (zt_status::ZT_OK, 16));
        assert_eq!(f64::from_ne_bytes(out[8..].try_into().unwrap()), -2.0);
    }

    #[test]
    fn refuses_other_targets_and_unknown_logical_types() {
        let file = file_with(&[("u", DType::U8, Some("mx4"), vec![1, 2])]);
        let (s, _, _) = read_as(&file, "u", zt_dtype::ZT_DTYPE_I32 as u32, 64);
        assert_eq!(s, zt_status::ZT_ERR_INVALID_ARGUMENT);
        let (s, _, _) = read_as(&file, "u", zt_dtype::ZT_DTYPE_F32 as u32, 64);
        assert_eq!(s, zt_status::ZT_ERR_UNSUPPORTED);
        let msg = unsafe { core::ffi::CStr::from_ptr(zt_last_error()) }.to_str().unwrap().to_string();
        assert!(msg.contains("\"u\"") && msg.contains("logical type"), "{msg}");
    }
}
