//! `zt_load` through its raw-pointer paths: requests whose `status` holds
//! bytes that are no `zt_status` before the call (it is only written),
//! buffers of exactly the decoded size on 2 worker threads, overlapping
//! buffers refused before any is written, NULL and oversized arguments.

use super::support::*;
use core::mem::{size_of, MaybeUninit};
use core::ptr::{addr_of_mut, null, null_mut};
use ztensor::*;
use ztensor_core::v2::types::DType;

/// A v2 file of three raw parts: "a" (300 bytes), "b" (8 f32), "c" (1 byte).
fn model() -> Vec<u8> {
    let mut w = ztensor_core::write::v2::Writer::new(Vec::new());
    let a: Vec<u8> = (0..300).map(|i| i as u8).collect();
    w.add_dense("a", &[300], DType::U8, &a[..]).unwrap();
    w.add_dense("b", &[8], DType::F32, &[7u8; 32][..]).unwrap();
    w.add_dense("c", &[1], DType::U8, &[9u8][..]).unwrap();
    w.finish().unwrap()
}

/// A request for `name`'s "data" into `dst` (`len` bytes).
fn request(h: &Handle<'_>, name: &[u8], dst: *mut u8, len: usize) -> zt_load_request {
    zt_load_request {
        object: find(h, name),
        role: c"data".as_ptr(),
        role_len: NUL,
        dst: dst.cast(),
        dst_len: len,
        status: zt_status::ZT_OK,
    }
}

/// `zt_load` of `reqs` laid out as a C caller may leave them: each
/// `status` holding 0xA5 bytes, no `zt_status`, until the call writes it
/// (reading the requests back is undefined behaviour, which Miri reports,
/// unless every status was written). The call's status and the requests.
fn load(f: *const zt_file, reqs: Vec<zt_load_request>, threads: u32) -> (zt_status, Vec<zt_load_request>) {
    let mut raw: Vec<MaybeUninit<zt_load_request>> = reqs.into_iter().map(MaybeUninit::new).collect();
    for r in &mut raw {
        // SAFETY: the field's bytes, in storage that claims no validity.
        unsafe { addr_of_mut!((*r.as_mut_ptr()).status).cast::<u8>().write_bytes(0xa5, size_of::<zt_status>()) };
    }
    let s = unsafe { zt_load(f, raw.as_mut_ptr().cast(), raw.len(), threads, 0) };
    // SAFETY: every status written by the call (Miri checks it).
    (s, raw.into_iter().map(|r| unsafe { r.assume_init() }).collect())
}

pub fn whole_model() {
    let bytes = model();
    let h = open(&bytes);
    let (mut a, mut b, mut c) = (vec![0u8; 300], vec![0u8; 32], vec![0u8; 1]);
    let reqs = vec![
        request(&h, b"a", a.as_mut_ptr(), 300),
        request(&h, b"b", b.as_mut_ptr(), 32),
        request(&h, b"c", c.as_mut_ptr(), 1),
    ];
    let (st, reqs) = load(h.ptr(), reqs, 2);
    ok(st);
    assert!(reqs.iter().all(|r| r.status == zt_status::ZT_OK));
    assert!(a.iter().enumerate().all(|(i, &x)| x == i as u8) && b == [7; 32] && c == [9]);

    // Overlapping buffers: both refused, neither written; the third loads.
    let mut shared = vec![0u8; 300];
    let p = shared.as_mut_ptr();
    let reqs = vec![
        request(&h, b"a", p, 300),
        request(&h, b"c", unsafe { p.add(299) }, 1),
        request(&h, b"b", b.as_mut_ptr(), 32),
    ];
    let (st, reqs) = load(h.ptr(), reqs, 2);
    expect(st, zt_status::ZT_ERR_INVALID_ARGUMENT, "overlaps");
    let statuses: Vec<_> = reqs.iter().map(|r| r.status).collect();
    use zt_status::{ZT_ERR_INVALID_ARGUMENT as INVALID, ZT_OK as OK};
    assert_eq!(statuses, [INVALID, INVALID, OK]);
    assert!(shared.iter().all(|&x| x == 0));

    // Arguments.
    let mut one = [request(&h, b"c", c.as_mut_ptr(), 1)];
    invalid(unsafe { zt_load(h.ptr(), null_mut(), 1, 1, 0) }, "`reqs` is NULL");
    invalid(unsafe { zt_load(h.ptr(), one.as_mut_ptr(), usize::MAX / 2, 1, 0) }, "`n` is too large");
    let (st, back) = load(null(), vec![request(&h, b"c", c.as_mut_ptr(), 1)], 1);
    invalid(st, "`file` is NULL");
    assert_eq!(back[0].status, zt_status::ZT_ERR_INVALID_ARGUMENT);
    one[0].dst = null_mut();
    invalid(unsafe { zt_load(h.ptr(), one.as_mut_ptr(), 1, 1, 0) }, "`dst` is NULL");
    one[0].dst_len = usize::MAX;
    one[0].dst = c.as_mut_ptr().cast();
    invalid(unsafe { zt_load(h.ptr(), one.as_mut_ptr(), 1, 1, 0) }, "over PTRDIFF_MAX");
    ok(unsafe { zt_load(h.ptr(), null_mut(), 0, 0, ZT_LOAD_NO_VERIFY) });
}
