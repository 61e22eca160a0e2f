//! `zt_component_ptr` on parts it cannot point at (audit "Hardening v2",
//! L3): a part in a v2 data shard lives in another file, outside the
//! mapping, so the answer is `ZT_ERR_NOT_ZERO_COPY` (the documented status
//! for "no pointer for this part: use zt_component_read"), said in words.

use std::path::PathBuf;
use ztensor::*;

mod common;
use common::*;

fn sharded_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/v2/sharded/model.zt")
}

/// `zt_component_ptr` of object `name`'s `data`: the status, and whether
/// the pointer and length were left NULL and 0.
unsafe fn ptr_of(f: *const zt_file, name: &str) -> (zt_status, bool) {
    let mut o = zt_object { index: 0, owner: 0 };
    let (n, nl) = s(name);
    ok(unsafe { zt_find(f, n, nl, &mut o) });
    let (mut p, mut len) = (1usize as *const u8, 1usize);
    let st = unsafe { zt_component_ptr(f, &o, c"data".as_ptr(), 4, &mut p, &mut len) };
    (st, p.is_null() && len == 0)
}

#[test]
fn a_part_in_a_data_shard_is_not_zero_copy() {
    let root = sharded_root();
    let bytes = std::fs::read(&root).unwrap();
    unsafe {
        let mut f = core::ptr::null_mut();
        ok(zt_open(cpath(&root).as_ptr(), 0, &mut f));
        assert_eq!(ptr_of(f, "local"), (zt_status::ZT_OK, false), "{}", last_error());
        for name in ["a", "c"] {
            assert_eq!(ptr_of(f, name), (zt_status::ZT_ERR_NOT_ZERO_COPY, true), "{name}: {}", last_error());
            let msg = last_error();
            assert!(msg.contains("data shard") && !msg.contains("Reader") && !msg.contains("::"), "{msg}");
            // What the status says to do works.
            let mut o = zt_object { index: 0, owner: 0 };
            ok(zt_find(f, name.as_ptr().cast(), name.len(), &mut o));
            let mut buf = vec![0u8; 1 << 16];
            let mut n = 0;
            ok(zt_component_read(f, &o, c"data".as_ptr(), 4, buf.as_mut_ptr().cast(), buf.len(), &mut n));
            assert!(n > 0);
        }
        zt_close(f);
        // Opened from memory: no shard is reachable, and still no pointer.
        let mut m = core::ptr::null_mut();
        ok(zt_open_mem(bytes.as_ptr(), bytes.len(), &mut m));
        assert_eq!(ptr_of(m, "a"), (zt_status::ZT_ERR_NOT_ZERO_COPY, true), "{}", last_error());
        zt_close(m);
    }
}
