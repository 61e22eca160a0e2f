//! Every function that takes a `zt_object`, given one it must refuse: an
//! object of another handle (of the same bytes), one forged with owner 0,
//! stale indices (the object count, `SIZE_MAX`) with the right owner, a
//! NULL object and a NULL handle. Each call first succeeds with the right
//! object, so a refusal is about the object alone.

use super::support::*;
use core::ffi::{c_char, c_void};
use core::ptr::{null, null_mut};
use ztensor::*;

/// A call of one function on `(file, obj)`, its other arguments valid.
type Call = fn(*const zt_file, *const zt_object) -> zt_status;

/// The functions taking a `zt_object` in this build, the object being
/// `csr_with_attrs` of `ATTRIBUTES`; whether a NULL object means the file.
fn calls() -> Vec<(&'static str, Call, bool)> {
    #[cfg_attr(feature = "compact", allow(unused_mut))]
    let mut v: Vec<(&'static str, Call, bool)> = vec![
        ("zt_object_name", |f, o| unsafe { zt_object_name(f, o, &mut null(), &mut 0) }, false),
        ("zt_object_get_info", |f, o| unsafe { zt_object_get_info(f, o, &mut zeroed()) }, false),
        ("zt_object_shape", |f, o| unsafe { zt_object_shape(f, o, vec![0; 2].as_mut_ptr(), 2, null_mut()) }, false),
        ("zt_attribute_count", |f, o| unsafe { zt_attribute_count(f, o, &mut 0) }, true),
        ("zt_attribute_at", |f, o| unsafe { zt_attribute_at(f, o, 0, &mut zeroed()) }, true),
        ("zt_attribute_find", |f, o| unsafe { zt_attribute_find(f, o, c"nnz".as_ptr(), NUL, &mut zeroed()) }, true),
        ("zt_component", |f, o| unsafe { zt_component(f, o, VALUES, NUL, &mut zeroed()) }, false),
        ("zt_component_at", |f, o| unsafe { zt_component_at(f, o, 2, &mut zeroed()) }, false),
        (
            "zt_component_ptr",
            |f, o| unsafe { zt_component_ptr(f, o, c"indptr".as_ptr(), NUL, &mut null(), &mut 0) },
            false,
        ),
        (
            "zt_component_read",
            |f, o| buffered(|d, c, w| unsafe { zt_component_read(f, o, VALUES, NUL, d, c, w) }),
            false,
        ),
    ];
    #[cfg(not(feature = "compact"))]
    v.extend([
        ("zt_object_format", (|f, o| unsafe { zt_object_format(f, o, &mut null(), &mut 0) }) as Call, false),
        (
            "zt_component_read_range",
            |f, o| buffered(|d, _, _| unsafe { zt_component_read_range(f, o, VALUES, NUL, 8, d, 8) }),
            false,
        ),
        ("zt_component_verify", |f, o| unsafe { zt_component_verify(f, o, VALUES, NUL, 0, &mut false) }, false),
    ]);
    #[cfg(feature = "std")]
    v.push((
        "zt_component_read_as",
        |f, o| {
            buffered(|d, c, w| unsafe {
                zt_component_read_as(f, o, VALUES, NUL, zt_dtype::ZT_DTYPE_F64 as u32, d, c, w)
            })
        },
        false,
    ));
    v
}

const VALUES: *const c_char = c"values".as_ptr();

/// `read` into a buffer of 32 bytes (`values`: 16 bytes of f32, 32 as f64).
fn buffered(read: impl FnOnce(*mut c_void, usize, *mut usize) -> zt_status) -> zt_status {
    let mut buf = vec![0u8; 32];
    read(buf.as_mut_ptr().cast(), 32, &mut 0)
}

pub fn foreign_objects() {
    let (a, b) = (open(ATTRIBUTES), open(ATTRIBUTES));
    let from_a = find(&a, b"csr_with_attrs");
    let own = find(&b, b"csr_with_attrs");
    assert_eq!(from_a.index, own.index);
    assert!(from_a.owner != own.owner && own.owner != 0, "each handle tags its objects");
    let stale = zt_object { index: 5, owner: own.owner };
    let far = zt_object { index: usize::MAX, owner: own.owner };
    let forged = zt_object { index: own.index, owner: 0 };
    for (name, call, null_is_file) in calls() {
        let at = |got: zt_status, want: zt_status, says: &str| {
            let msg = last_error();
            assert_eq!(got, want, "{name}: {msg}");
            assert!(want == ZT_OK || msg.contains(says), "{name}: {msg:?} does not say {says:?}");
        };
        at(call(b.ptr(), &own), ZT_OK, "");
        at(call(b.ptr(), &from_a), ZT_ERR_INVALID_ARGUMENT, "a zt_object from another file");
        at(call(b.ptr(), &forged), ZT_ERR_INVALID_ARGUMENT, "a zt_object from another file");
        at(call(b.ptr(), &stale), ZT_ERR_INVALID_ARGUMENT, "object index out of range");
        at(call(b.ptr(), &far), ZT_ERR_INVALID_ARGUMENT, "object index out of range");
        at(call(null(), &own), ZT_ERR_INVALID_ARGUMENT, "`file` is NULL");
        if !null_is_file {
            at(call(b.ptr(), null()), ZT_ERR_INVALID_ARGUMENT, "`obj` is NULL");
        }
    }
    // The object's own handle still takes it.
    let mut n = 0;
    ok(unsafe { zt_attribute_count(a.ptr(), &from_a, &mut n) });
    assert_eq!(n, 2);
}
