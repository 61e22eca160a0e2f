//! Helpers shared by the C ABI write tests (`write.rs`, `write_v2.rs`).
#![allow(dead_code)]

use core::ffi::c_char;
use core::ptr::null;
use std::path::{Path, PathBuf};
use ztensor::*;

/// A fresh directory for the test `tag` of the test binary `suite`.
pub fn temp_dir(suite: &str, tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("zt-ffi-{suite}-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn cpath(p: &Path) -> std::ffi::CString {
    std::ffi::CString::new(p.to_str().unwrap()).unwrap()
}

/// A string argument: pointer and length.
pub fn s(x: &str) -> (*const c_char, usize) {
    (x.as_ptr().cast(), x.len())
}

pub fn last_error() -> String {
    unsafe { std::ffi::CStr::from_ptr(zt_last_error()) }.to_string_lossy().into_owned()
}

#[track_caller]
pub fn ok(s: zt_status) {
    assert_eq!(s, zt_status::ZT_OK, "{}", last_error());
}

/// `zt_write_options` all zero: the defaults.
pub fn zeroed_options() -> zt_write_options {
    zt_write_options {
        encoding: 0,
        zstd_level: 0,
        digest: 0,
        logical_type: null(),
        logical_type_len: 0,
        attributes: null(),
        attribute_count: 0,
    }
}

/// An attribute of `kind` with every value field zero.
pub fn attr(key: &str, kind: zt_attr_kind) -> zt_write_attribute {
    zt_write_attribute {
        key: key.as_ptr().cast(),
        key_len: key.len(),
        kind: kind as u32,
        int_value: 0,
        uint_value: 0,
        float_value: 0.0,
        bool_value: false,
        data: null(),
        data_len: 0,
    }
}
