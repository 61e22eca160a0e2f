//! Verify on read through the C ABI (issue #32): a flipped byte in a part
//! with a digest makes `zt_component_read` (and a whole-range
//! `zt_component_read_range`) answer `ZT_ERR_DIGEST_MISMATCH`, naming the
//! object and component, on mapped and positional handles alike;
//! `ZT_READ_NO_VERIFY` at open skips the check.

use core::ptr::null_mut;
use ztensor::*;
use ztensor_core::write::v1_2::{Checksum, NewObject, Writer};
use ztensor_core::write::v2 as w2;
use ztensor_core::DType;

mod common;
use common::*;

const N: usize = 1024;

/// (what, file bytes with one byte of `w`'s data flipped).
fn corrupt_files() -> Vec<(&'static str, Vec<u8>)> {
    let d: Vec<u8> = (0..N as u32).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let mut w = Writer::new(Vec::new());
    w.add(NewObject::dense("w", &[N as u64], DType::F32, &d[..]).checksum(Checksum::Crc32c)).unwrap();
    let v1 = w.finish().unwrap();
    let mut w = w2::Writer::new(Vec::new());
    w.add_dense("w", &[N as u64], ztensor_core::v2::types::DType::F32, &d).unwrap();
    let v2 = w.finish().unwrap();
    [("v1.2 crc32c", v1), ("v2 xxh3", v2)]
        .into_iter()
        .map(|(what, mut b)| {
            let at = ztensor_core::File::parse(&b).unwrap().require("w").unwrap().data().unwrap().offset() as usize;
            b[at + 7] ^= 1;
            (what, b)
        })
        .collect()
}

#[test]
fn a_flipped_byte_is_a_digest_mismatch_on_every_handle() {
    let dir = temp_dir("read_verify", "flip");
    for (what, bytes) in corrupt_files() {
        let path = dir.join("bad.zt");
        std::fs::write(&path, &bytes).unwrap();
        for open_flags in [0, ZT_OPEN_POSITIONAL] {
            unsafe {
                let mut f = null_mut();
                ok(zt_open(cpath(&path).as_ptr(), open_flags, &mut f));
                let mut o = zt_object { index: 0, owner: 0 };
                ok(zt_find(f, s("w").0, 1, &mut o));
                let (role, role_len) = s("data");
                let mut buf = vec![0u8; 4 * N];
                let mut got = 0;
                let st = zt_component_read(f, &o, role, role_len, buf.as_mut_ptr().cast(), buf.len(), &mut got);
                assert_eq!(st, zt_status::ZT_ERR_DIGEST_MISMATCH, "{what}, flags {open_flags}");
                let e = last_error();
                assert!(e.contains("object \"w\"") && e.contains("component \"data\""), "{what}: {e}");
                let st = zt_component_read_range(f, &o, role, role_len, 0, buf.as_mut_ptr().cast(), buf.len());
                assert_eq!(st, zt_status::ZT_ERR_DIGEST_MISMATCH, "{what}, flags {open_flags}");
                // Part of the component: nothing to check it against.
                ok(zt_component_read_range(f, &o, role, role_len, 0, buf.as_mut_ptr().cast(), 16));
                zt_close(f);

                // Opened with ZT_READ_NO_VERIFY: the bytes come back as stored.
                ok(zt_open(cpath(&path).as_ptr(), open_flags | ZT_READ_NO_VERIFY, &mut f));
                ok(zt_find(f, s("w").0, 1, &mut o));
                ok(zt_component_read(f, &o, role, role_len, buf.as_mut_ptr().cast(), buf.len(), &mut got));
                assert_eq!(got, 4 * N);
                // zt_component_verify still finds it.
                let mut checked = false;
                let st = zt_component_verify(f, &o, role, role_len, 0, &mut checked);
                assert_eq!(st, zt_status::ZT_ERR_DIGEST_MISMATCH, "{what}");
                zt_close(f);
            }
        }
    }
    assert_eq!(unsafe { zt_open(cpath(&dir.join("bad.zt")).as_ptr(), 4, &mut null_mut()) }, zt_status::ZT_ERR_INVALID_ARGUMENT);
}
