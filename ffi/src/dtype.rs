//! Storage types: `zt_dtype`, its names and sizes.

#[cfg(not(feature = "compact"))]
use core::ffi::c_char;
use ztensor_core::DType;

/// Storage type of a component (spec §2; v1.2 names whatever the file's version).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum zt_dtype {
    /// IEEE 754 binary64.
    ZT_DTYPE_F64 = 0,
    /// IEEE 754 binary32.
    ZT_DTYPE_F32 = 1,
    /// IEEE 754 binary16.
    ZT_DTYPE_F16 = 2,
    /// bfloat16.
    ZT_DTYPE_BF16 = 3,
    /// Signed 64-bit integer.
    ZT_DTYPE_I64 = 4,
    /// Signed 32-bit integer.
    ZT_DTYPE_I32 = 5,
    /// Signed 16-bit integer.
    ZT_DTYPE_I16 = 6,
    /// Signed 8-bit integer.
    ZT_DTYPE_I8 = 7,
    /// Unsigned 64-bit integer.
    ZT_DTYPE_U64 = 8,
    /// Unsigned 32-bit integer.
    ZT_DTYPE_U32 = 9,
    /// Unsigned 16-bit integer.
    ZT_DTYPE_U16 = 10,
    /// Unsigned 8-bit integer (also FP8, with a logical type).
    ZT_DTYPE_U8 = 11,
    /// One byte, 0 or 1.
    ZT_DTYPE_BOOL = 12,
}

#[cfg(not(feature = "compact"))]
pub(crate) fn dtype_of(v: u32) -> Option<DType> {
    DType::ALL.get(v as usize).copied()
}

/// The v1.2 name of a `zt_dtype` (`"f32"`, `"bf16"`, `"bool"`, ...), or
/// NULL for a value that is not a `zt_dtype`.
///
/// Ownership: a static NUL-terminated string; never free it.
/// Thread-safety: safe from any thread.
// Not in the compact build (docs/embedded.md), nor `zt_dtype_size`.
#[cfg(not(feature = "compact"))]
#[no_mangle]
pub extern "C" fn zt_dtype_name(dtype: u32) -> *const c_char {
    let s: &'static core::ffi::CStr = match dtype_of(dtype) {
        Some(DType::F64) => c"f64",
        Some(DType::F32) => c"f32",
        Some(DType::F16) => c"f16",
        Some(DType::BF16) => c"bf16",
        Some(DType::I64) => c"i64",
        Some(DType::I32) => c"i32",
        Some(DType::I16) => c"i16",
        Some(DType::I8) => c"i8",
        Some(DType::U64) => c"u64",
        Some(DType::U32) => c"u32",
        Some(DType::U16) => c"u16",
        Some(DType::U8) => c"u8",
        Some(DType::Bool) => c"bool",
        None => return core::ptr::null(),
    };
    s.as_ptr()
}

/// Bytes per element of a `zt_dtype` (1, 2, 4 or 8), or 0 for a value that
/// is not a `zt_dtype`.
///
/// Ownership: nothing to free. Thread-safety: safe from any thread.
#[cfg(not(feature = "compact"))]
#[no_mangle]
pub extern "C" fn zt_dtype_size(dtype: u32) -> usize {
    dtype_of(dtype).map_or(0, |d| d.width() as usize)
}

pub(crate) fn c_dtype(d: DType) -> zt_dtype {
    use zt_dtype::*;
    match d {
        DType::F64 => ZT_DTYPE_F64,
        DType::F32 => ZT_DTYPE_F32,
        DType::F16 => ZT_DTYPE_F16,
        DType::BF16 => ZT_DTYPE_BF16,
        DType::I64 => ZT_DTYPE_I64,
        DType::I32 => ZT_DTYPE_I32,
        DType::I16 => ZT_DTYPE_I16,
        DType::I8 => ZT_DTYPE_I8,
        DType::U64 => ZT_DTYPE_U64,
        DType::U32 => ZT_DTYPE_U32,
        DType::U16 => ZT_DTYPE_U16,
        DType::U8 => ZT_DTYPE_U8,
        DType::Bool => ZT_DTYPE_BOOL,
    }
}

#[cfg(all(test, not(feature = "compact")))]
mod tests {
    use super::*;

    #[test]
    fn dtype_enum_matches_the_core_order() {
        for (i, d) in DType::ALL.iter().enumerate() {
            assert_eq!(c_dtype(*d) as u32, i as u32);
            let name = unsafe { std::ffi::CStr::from_ptr(zt_dtype_name(i as u32)) };
            assert_eq!(name.to_str().unwrap(), d.name());
            assert_eq!(zt_dtype_size(i as u32) as u64, d.width());
        }
        assert!(zt_dtype_name(13).is_null());
        assert_eq!(zt_dtype_size(13), 0);
    }
}
