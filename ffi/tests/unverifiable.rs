//! `zt_verify` on a file with a digest of an algorithm this library does
//! not know (v1.2 `sha512:`, v2 `blake3`): the file opens and reads, but is
//! not verified (`ZT_ERR_UNSUPPORTED`, `zt_last_error` naming the object
//! and component) unless `ZT_VERIFY_ALLOW_UNVERIFIABLE`.

use core::ptr::null_mut;
use std::path::{Path, PathBuf};
use ztensor::*;

mod common;
use common::*;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures").join(rel)
}

/// Every object's every component reads; `zt_verify` fails unless allowed.
unsafe fn check(path: &Path, object: &str, role: &str) {
    unsafe {
        let mut f = null_mut();
        ok(zt_open(cpath(path).as_ptr(), 0, &mut f));
        for i in 0..zt_object_count(f) {
            let mut o = zt_object { index: 0, owner: 0 };
            ok(zt_object_at(f, i, &mut o));
            let mut info = core::mem::zeroed::<zt_object_info>();
            ok(zt_object_get_info(f, &o, &mut info));
            for j in 0..info.component_count {
                let mut c = core::mem::zeroed::<zt_component_info>();
                ok(zt_component_at(f, &o, j, &mut c));
                let mut buf = vec![0u8; c.length.max(c.decoded_length) as usize + 1];
                let mut got = 0;
                ok(zt_component_read(f, &o, c.role, c.role_len, buf.as_mut_ptr().cast(), buf.len(), &mut got));
            }
        }
        let want = format!("(object \"{object}\", component \"{role}\")");
        for flags in [0, ZT_VERIFY_ALL, ZT_VERIFY_STRICT, ZT_VERIFY_ALL | ZT_VERIFY_STRICT] {
            assert_eq!(zt_verify(f, flags), zt_status::ZT_ERR_UNSUPPORTED, "flags {flags}");
            let e = last_error();
            assert!(e.starts_with("1 problem found; first: ") && e.contains("not verified") && e.contains(&want), "{e}");
            let mut counts = core::mem::zeroed::<zt_verify_counts>();
            assert_eq!(zt_verify_report(f, flags, &mut counts), zt_status::ZT_ERR_UNSUPPORTED);
            assert_eq!((counts.unverifiable, counts.problems), (1, 1));
        }
        for flags in [ZT_VERIFY_ALLOW_UNVERIFIABLE, ZT_VERIFY_ALL | ZT_VERIFY_ALLOW_UNVERIFIABLE] {
            ok(zt_verify(f, flags));
            let mut counts = core::mem::zeroed::<zt_verify_counts>();
            ok(zt_verify_report(f, flags, &mut counts));
            assert_eq!((counts.unverifiable, counts.problems), (1, 0));
        }
        let refused = zt_verify(f, ZT_VERIFY_STRICT | ZT_VERIFY_ALLOW_UNVERIFIABLE);
        assert_eq!(refused, zt_status::ZT_ERR_INVALID_ARGUMENT);
        zt_close(f);
    }
}

#[test]
fn unregistered_v2_digest_is_not_verified_unless_allowed() {
    unsafe { check(&fixture("v2/hostile/s_digest_other_alg.zt"), "w", "data") };
}

#[test]
fn unknown_v1_digest_is_not_verified_unless_allowed() {
    // v1.2 fixture with one `sha256:` digest renamed `sha512:` (same length).
    let mut bytes = std::fs::read(fixture("v1.2/checksums.zt")).unwrap();
    let at = bytes.windows(10).position(|w| w == b"sha256:8e6").unwrap();
    bytes[at..at + 7].copy_from_slice(b"sha512:");
    let dir = temp_dir("unverifiable", "v1");
    let path = dir.join("sha512.zt");
    std::fs::write(&path, &bytes).unwrap();
    // The object holding it: the one the file's own verification names.
    let f = ztensor_core::File::parse(&bytes).unwrap();
    let r = f.verify_with(ztensor_core::verify::Options::ALL, |_| {});
    let e = r.first_problem.unwrap();
    let (o, c) = (e.object().unwrap().to_string(), e.role().unwrap().to_string());
    unsafe { check(&path, &o, &c) };
    std::fs::remove_dir_all(dir).unwrap();
}
