//! `zt_open_source` (issue #33): a file read through the caller's
//! callbacks. The tail alone at open, a part's own bytes when it is read,
//! `close` called exactly once, `open_shard` for v2 shards, and a failing
//! callback's code in `zt_last_error`.

use core::ffi::{c_char, c_int, c_void};
use std::path::PathBuf;
use std::sync::Mutex;
use ztensor::*;

mod common;
use common::*;

/// The callbacks' context: the file's bytes, the reads asked for, the
/// number of `close` calls, and a code to fail reads with from the nth on.
struct Ctx {
    bytes: Vec<u8>,
    reads: Mutex<Vec<(u64, usize)>>,
    closed: Mutex<usize>,
    fail_from: Option<(usize, c_int)>,
    shard_dir: Option<PathBuf>,
    shards_closed: Mutex<usize>,
}

fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures").join(rel)
}

fn ctx(rel: &str) -> Box<Ctx> {
    Box::new(Ctx {
        bytes: std::fs::read(fixture(rel)).unwrap(),
        reads: Mutex::new(vec![]),
        closed: Mutex::new(0),
        fail_from: None,
        shard_dir: None,
        shards_closed: Mutex::new(0),
    })
}

unsafe extern "C" fn read_at(ctx: *mut c_void, offset: u64, buf: *mut c_void, len: usize) -> c_int {
    let c = unsafe { &*(ctx as *const Ctx) };
    let mut reads = c.reads.lock().unwrap();
    reads.push((offset, len));
    if let Some((n, code)) = c.fail_from {
        if reads.len() > n {
            return code;
        }
    }
    match c.bytes.get(offset as usize..offset as usize + len) {
        Some(b) => {
            unsafe { core::ptr::copy_nonoverlapping(b.as_ptr(), buf.cast::<u8>(), len) };
            0
        }
        None => -5,
    }
}

unsafe extern "C" fn close(ctx: *mut c_void) {
    *unsafe { &*(ctx as *const Ctx) }.closed.lock().unwrap() += 1;
}

/// A shard's context is leaked to the callback and counted back in `close_shard`.
struct Shard {
    bytes: Vec<u8>,
    parent: *const Ctx,
}

unsafe extern "C" fn shard_read(ctx: *mut c_void, offset: u64, buf: *mut c_void, len: usize) -> c_int {
    let s = unsafe { &*(ctx as *const Shard) };
    let b = &s.bytes[offset as usize..offset as usize + len];
    unsafe { core::ptr::copy_nonoverlapping(b.as_ptr(), buf.cast::<u8>(), len) };
    0
}

unsafe extern "C" fn shard_close(ctx: *mut c_void) {
    let s = unsafe { Box::from_raw(ctx as *mut Shard) };
    *unsafe { &*s.parent }.shards_closed.lock().unwrap() += 1;
}

unsafe extern "C" fn open_shard(ctx: *mut c_void, name: *const c_char, len: usize, out: *mut zt_source) -> c_int {
    let c = unsafe { &*(ctx as *const Ctx) };
    let name = std::str::from_utf8(unsafe { core::slice::from_raw_parts(name.cast::<u8>(), len) }).unwrap();
    let Ok(bytes) = std::fs::read(c.shard_dir.as_ref().unwrap().join(format!("model-{name}.zt"))) else {
        return 2;
    };
    let size = bytes.len() as u64;
    let s = Box::into_raw(Box::new(Shard { bytes, parent: c }));
    unsafe {
        (*out).ctx = s.cast();
        (*out).size = size;
        (*out).read_at = Some(shard_read);
        (*out).close = Some(shard_close);
    }
    0
}

fn source(c: &Ctx) -> zt_source {
    zt_source {
        struct_size: size_of::<zt_source>(),
        ctx: c as *const Ctx as *mut c_void,
        size: c.bytes.len() as u64,
        read_at: Some(read_at),
        close: Some(close),
        open_shard: Some(open_shard),
    }
}

unsafe fn find(f: *const zt_file, name: &str) -> zt_object {
    let mut o = zt_object { index: 0, owner: 0 };
    let (n, nl) = s(name);
    ok(unsafe { zt_find(f, n, nl, &mut o) });
    o
}

#[test]
fn open_list_and_read_one_tensor() {
    for (rel, name) in [("v2/valid/types_canonical.zt", "dtype.f32"), ("v1.2/dense_all_dtypes.zt", "dense_f32")] {
        let c = ctx(rel);
        unsafe {
            let mut f = core::ptr::null_mut();
            ok(zt_open_source(&source(&c), 0, &mut f));
            let opened = c.reads.lock().unwrap().len();
            assert!((1..=2).contains(&opened), "{rel}: {opened} reads");
            let mut info: zt_file_info = core::mem::zeroed();
            ok(zt_file_get_info(f, &mut info));
            assert_eq!(info.mode, zt_mode::ZT_MODE_POSITIONAL);
            assert_eq!(c.reads.lock().unwrap().len(), opened, "listing reads nothing");
            let o = find(f, name);
            let mut ci: zt_component_info = core::mem::zeroed();
            ok(zt_component(f, &o, c"data".as_ptr(), 4, &mut ci));
            c.reads.lock().unwrap().clear();
            let mut buf = vec![0u8; ci.length as usize];
            let mut n = 0;
            ok(zt_component_read(f, &o, c"data".as_ptr(), 4, buf.as_mut_ptr().cast(), buf.len(), &mut n));
            assert_eq!(*c.reads.lock().unwrap(), vec![(ci.offset, ci.length as usize)], "{rel}");
            assert_eq!(buf, c.bytes[ci.offset as usize..(ci.offset + ci.length) as usize]);
            // No pointer into a source.
            let (mut p, mut len) = (1usize as *const u8, 1usize);
            let st = zt_component_ptr(f, &o, c"data".as_ptr(), 4, &mut p, &mut len);
            assert_eq!((st, p.is_null(), len), (zt_status::ZT_ERR_NOT_ZERO_COPY, true, 0));
            assert!(last_error().contains("positional reads"), "{}", last_error());
            ok(zt_verify(f, 0));
            assert_eq!(*c.closed.lock().unwrap(), 0);
            zt_close(f);
            assert_eq!(*c.closed.lock().unwrap(), 1, "{rel}");
        }
    }
}

#[test]
fn v2_shards_through_open_shard() {
    let mut c = ctx("v2/sharded/model.zt");
    c.shard_dir = Some(fixture("v2/sharded"));
    unsafe {
        let mut f = core::ptr::null_mut();
        ok(zt_open_source(&source(&c), 0, &mut f));
        ok(zt_verify(f, 0));
        let o = find(f, "a");
        let mut buf = vec![0u8; 16];
        let mut n = 0;
        ok(zt_component_read(f, &o, c"data".as_ptr(), 4, buf.as_mut_ptr().cast(), buf.len(), &mut n));
        assert_eq!(n, 16);
        zt_close(f);
        assert_eq!((*c.closed.lock().unwrap(), *c.shards_closed.lock().unwrap()), (1, 2));
    }
}

#[test]
fn a_failing_callback_gives_a_status_with_its_code() {
    unsafe {
        // At open: close is still called once.
        let mut c = ctx("v1.2/zstd.zt");
        c.fail_from = Some((0, 42));
        let mut f = 1usize as *mut zt_file;
        assert_eq!(zt_open_source(&source(&c), 0, &mut f), zt_status::ZT_ERR_IO);
        assert!(f.is_null());
        assert!(last_error().contains("returned 42"), "{}", last_error());
        assert_eq!(*c.closed.lock().unwrap(), 1);
        // After open: reads and verify fail with the code; nothing crashes.
        let mut c = ctx("v2/valid/types_canonical.zt");
        c.fail_from = Some((1, 77));
        ok(zt_open_source(&source(&c), 0, &mut f));
        let o = find(f, "dtype.f32");
        let mut buf = vec![0u8; 1 << 16];
        let mut n = 0;
        let st = zt_component_read(f, &o, c"data".as_ptr(), 4, buf.as_mut_ptr().cast(), buf.len(), &mut n);
        assert_eq!(st, zt_status::ZT_ERR_IO);
        assert!(last_error().contains("returned 77"), "{}", last_error());
        assert_ne!(zt_verify(f, 0), zt_status::ZT_OK);
        assert!(last_error().contains("returned 77"), "{}", last_error());
        zt_close(f);
        assert_eq!(*c.closed.lock().unwrap(), 1);
        // A source that says it is longer than it is: an error at open.
        let c = ctx("v1.2/zstd.zt");
        let mut src = source(&c);
        src.size += 1000;
        assert_ne!(zt_open_source(&src, 0, &mut f), zt_status::ZT_OK);
        assert!(f.is_null());
        assert_eq!(*c.closed.lock().unwrap(), 1);
    }
}

#[test]
fn arguments_are_checked_and_close_still_runs_once() {
    unsafe {
        let c = ctx("v1.2/zstd.zt");
        let mut f = core::ptr::null_mut();
        assert_eq!(zt_open_source(core::ptr::null(), 0, &mut f), zt_status::ZT_ERR_INVALID_ARGUMENT);
        let mut src = source(&c);
        src.struct_size = 8;
        assert_eq!(zt_open_source(&src, 0, &mut f), zt_status::ZT_ERR_INVALID_ARGUMENT);
        assert!(last_error().contains("struct_size"), "{}", last_error());
        assert_eq!(*c.closed.lock().unwrap(), 0, "too small to know `close`");
        src = source(&c);
        src.read_at = None;
        assert_eq!(zt_open_source(&src, 0, &mut f), zt_status::ZT_ERR_INVALID_ARGUMENT);
        assert_eq!(zt_open_source(&source(&c), 0, core::ptr::null_mut()), zt_status::ZT_ERR_INVALID_ARGUMENT);
        assert_eq!(zt_open_source(&source(&c), 1 << 20, &mut f), zt_status::ZT_ERR_INVALID_ARGUMENT);
        assert_eq!(*c.closed.lock().unwrap(), 3);
        // A caller of the first version without `open_shard`: its struct ends before it.
        let mut src = source(&c);
        src.struct_size = core::mem::offset_of!(zt_source, open_shard);
        ok(zt_open_source(&src, ZT_READ_NO_VERIFY, &mut f));
        zt_close(f);
        assert_eq!(*c.closed.lock().unwrap(), 4);
    }
}
