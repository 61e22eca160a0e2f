//! The full library's own entry points: `zt_open` by path (positional:
//! Miri cannot map files), `zt_open_mem` and `zt_close`, the static texts
//! (`zt_version`, `zt_status_str`, `zt_dtype_name`, `zt_dtype_size`), the
//! per-thread `zt_last_error` and its cut of long messages, and
//! `zt_component_read_as` into buffers at odd addresses.

use super::support::*;
use core::ffi::{c_char, CStr};
use core::ptr::{null, null_mut};
use std::path::{Path, PathBuf};
use ztensor::*;

/// A fresh directory for the test `tag`.
pub fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("zt-miri-abi-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `p` as a C path: its bytes, as the OS takes them.
pub fn cpath(p: &Path) -> std::ffi::CString {
    std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(p.as_os_str())).unwrap()
}

/// `zt_open` of `path`: the status and `*out` (NULL after a failure).
fn open_path(path: *const c_char, flags: u32) -> (zt_status, *mut zt_file) {
    let mut f = dangling();
    let s = unsafe { zt_open(path, flags, &mut f) };
    assert_eq!(f.is_null(), s != ZT_OK, "`*out` is set exactly on success");
    (s, f)
}

pub fn open_by_path() {
    let dir = temp_dir("open");
    // A name that is not UTF-8: bytes as the OS takes them.
    let path = dir.join(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(b"attr\xff.zt"));
    std::fs::write(&path, ATTRIBUTES).unwrap();
    std::fs::write(dir.join("junk.zt"), b"not a zTensor file").unwrap();
    let p = cpath(&path);
    unsafe {
        invalid(zt_open(p.as_ptr(), ZT_OPEN_POSITIONAL, null_mut()), "`out` is NULL");
    }
    invalid(open_path(null(), ZT_OPEN_POSITIONAL).0, "`path` is NULL");
    invalid(open_path(p.as_ptr(), 4).0, "unknown `zt_open` flag");
    expect(open_path(cpath(&dir.join("absent.zt")).as_ptr(), ZT_OPEN_POSITIONAL).0, ZT_ERR_IO, "cannot open");
    expect(open_path(cpath(&dir).as_ptr(), ZT_OPEN_POSITIONAL).0, ZT_ERR_IO, "not a regular file");
    expect(open_path(cpath(&dir.join("junk.zt")).as_ptr(), ZT_OPEN_POSITIONAL).0, ZT_ERR_FORMAT, "junk.zt");
    let (s, f) = open_path(p.as_ptr(), ZT_OPEN_POSITIONAL);
    ok(s);
    let mut info: zt_file_info = zeroed();
    let mut csr = zt_object { index: 0, owner: 0 };
    let (mut ptr, mut n): (*const u8, usize) = (dangling(), 9);
    let mut buf = vec![0u8; 16];
    unsafe {
        ok(zt_file_get_info(f, &mut info));
        assert_eq!((info.mode, info.file_length, info.object_count), (zt_mode::ZT_MODE_POSITIONAL, 1339, 5));
        ok(zt_find(f, c"csr_with_attrs".as_ptr(), NUL, &mut csr));
        // Positional: no pointer into a mapping; reads go through the descriptor.
        expect(zt_component_ptr(f, &csr, c"values".as_ptr(), NUL, &mut ptr, &mut n), ZT_ERR_NOT_ZERO_COPY, "");
        assert_eq!((ptr, n), (null(), 0));
        ok(zt_component_read(f, &csr, c"values".as_ptr(), NUL, buf.as_mut_ptr().cast(), 16, &mut n));
        let mut part = vec![0u8; 4];
        ok(zt_component_read_range(f, &csr, c"values".as_ptr(), NUL, 12, part.as_mut_ptr().cast(), 4));
        assert_eq!(part, buf[12..]);
        ok(zt_verify(f, 0));
        zt_close(f);
        zt_close(null_mut());
    }
    // The same bytes through memory.
    let h = open(ATTRIBUTES);
    let mut mem = vec![0u8; 16];
    unsafe {
        ok(zt_component_read(
            h.ptr(),
            &find(&h, b"csr_with_attrs"),
            c"values".as_ptr(),
            NUL,
            mem.as_mut_ptr().cast(),
            16,
            &mut n,
        ))
    };
    assert_eq!(mem, buf);
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn open_memory() {
    let open_mem = |p: *const u8, len: usize| {
        let mut f = dangling();
        let s = unsafe { zt_open_mem(p, len, &mut f) };
        assert_eq!(f.is_null(), s != ZT_OK, "`*out` is set exactly on success");
        unsafe { zt_close(f) };
        s
    };
    invalid(unsafe { zt_open_mem(ATTRIBUTES.as_ptr(), ATTRIBUTES.len(), null_mut()) }, "`out` is NULL");
    invalid(open_mem(null(), 5), "`ptr` is NULL");
    invalid(open_mem(ATTRIBUTES.as_ptr(), isize::MAX as usize + 1), "`len` is too large");
    expect(open_mem(null(), 0), ZT_ERR_FORMAT, "");
    expect(open_mem(ATTRIBUTES.as_ptr(), ATTRIBUTES.len() - 1), ZT_ERR_FORMAT, "");
    ok(open_mem(ATTRIBUTES.as_ptr(), ATTRIBUTES.len()));
    // At an odd address: nothing in the file is aligned, everything reads.
    let odd = Shifted::new(ATTRIBUTES);
    let h = open(odd.bytes());
    let (mut p, mut n): (*const u8, usize) = (null(), 0);
    unsafe { ok(zt_component_ptr(h.ptr(), &find(&h, b"csr_with_attrs"), c"indptr".as_ptr(), NUL, &mut p, &mut n)) };
    assert_eq!((p as usize % 2, n), (1, 32));
}

/// The static text at `p`.
fn text(p: *const c_char) -> &'static str {
    assert!(!p.is_null());
    unsafe { CStr::from_ptr(p) }.to_str().unwrap()
}

pub fn static_texts() {
    let v = format!("{ZT_VERSION_MAJOR}.{ZT_VERSION_MINOR}.{ZT_VERSION_PATCH}");
    assert_eq!(text(zt_version()), v);
    let statuses: Vec<&str> = (0..=10).map(|s| text(zt_status_str(s))).collect();
    assert_eq!((statuses[0], statuses[6]), ("ok", "buffer too small"));
    assert!(statuses.iter().all(|s| !s.is_empty() && *s != "unknown status"));
    for s in [-1, 11, i32::MIN, i32::MAX] {
        assert_eq!(text(zt_status_str(s)), "unknown status");
    }
    let names: Vec<(&str, usize)> = (0..13).map(|d| (text(zt_dtype_name(d)), zt_dtype_size(d))).collect();
    assert_eq!((names[0], names[3], names[11], names[12]), (("f64", 8), ("bf16", 2), ("u8", 1), ("bool", 1)));
    for d in [13, u32::MAX] {
        assert_eq!((zt_dtype_name(d), zt_dtype_size(d)), (null(), 0));
    }
}

pub fn last_error_per_thread() {
    invalid(unsafe { zt_file_get_info(null(), null_mut()) }, "`info` is NULL");
    // Another thread starts with "" and keeps its own message.
    std::thread::spawn(|| {
        assert_eq!(last_error(), "");
        invalid(unsafe { zt_object_at(null(), 0, null_mut()) }, "`file` is NULL");
    })
    .join()
    .unwrap();
    assert_eq!(last_error(), "`info` is NULL");
    // A message longer than the buffer is cut on a character boundary.
    let long = std::env::temp_dir().join("é".repeat(300));
    expect(open_path(cpath(&long).as_ptr(), ZT_OPEN_POSITIONAL).0, ZT_ERR_IO, "cannot open");
    let m = last_error();
    assert!(m.len() < 512 && m.ends_with('é'), "{m}");
}

pub fn read_as() {
    let h = open(ATTRIBUTES);
    let u8s = find(&h, b"dense_no_attrs");
    let data = c"data".as_ptr();
    let mut raw = vec![0u8; 2];
    let mut w = 0;
    let read_as = |dtype: zt_dtype, dst: *mut u8, cap: usize, w: *mut usize| unsafe {
        zt_component_read_as(h.ptr(), &u8s, data, NUL, dtype as u32, dst.cast(), cap, w)
    };
    unsafe { ok(zt_component_read(h.ptr(), &u8s, data, NUL, raw.as_mut_ptr().cast(), 2, &mut w)) };
    invalid(read_as(zt_dtype::ZT_DTYPE_I32, raw.as_mut_ptr(), 2, &mut w), "ZT_DTYPE_F32 or ZT_DTYPE_F64 only");
    invalid(read_as(zt_dtype::ZT_DTYPE_F32, null_mut(), 0, null_mut()), "`written` is NULL");
    expect(read_as(zt_dtype::ZT_DTYPE_F32, null_mut(), 0, &mut w), ZT_ERR_BUFFER_TOO_SMALL, "");
    assert_eq!(w, 8);
    expect(read_as(zt_dtype::ZT_DTYPE_F64, null_mut(), 0, &mut w), ZT_ERR_BUFFER_TOO_SMALL, "");
    assert_eq!(w, 16);
    let mut short = vec![0xa5u8; 7];
    expect(read_as(zt_dtype::ZT_DTYPE_F32, short.as_mut_ptr(), 7, &mut w), ZT_ERR_BUFFER_TOO_SMALL, "");
    assert_eq!((w, &short[..]), (8, &[0xa5; 7][..]));
    invalid(read_as(zt_dtype::ZT_DTYPE_F32, null_mut(), 8, &mut w), "`dst` is NULL");
    // Converted into an odd address (any alignment), the bytes after untouched.
    let mut big = vec![0xa5u8; 12];
    ok(read_as(zt_dtype::ZT_DTYPE_F32, big[1..].as_mut_ptr(), 11, &mut w));
    let got: Vec<f32> = big[1..9].chunks(4).map(|c| f32::from_ne_bytes(c.try_into().unwrap())).collect();
    assert_eq!((w, got, &big[9..]), (8, vec![raw[0] as f32, raw[1] as f32], &[0xa5; 3][..]));
    // f32 to f32 is a plain read, at any address too.
    let mut f32s = vec![0u8; 17];
    let csr = find(&h, b"csr_with_attrs");
    ok(unsafe {
        zt_component_read_as(
            h.ptr(),
            &csr,
            c"values".as_ptr(),
            NUL,
            zt_dtype::ZT_DTYPE_F32 as u32,
            f32s[1..].as_mut_ptr().cast(),
            16,
            &mut w,
        )
    });
    assert_eq!(w, 16);
}
