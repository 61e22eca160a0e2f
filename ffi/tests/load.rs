//! `zt_load` (issue #33): every part of a model on 1 and 2 threads equals
//! `zt_component_read`'s bytes, on mapped, positional and in-memory
//! handles; a corrupt part fails its request alone and the call returns
//! the first failed request's status; bad requests (unknown role, wrong
//! `dst_len`, NULL or overlapping `dst`) and bad arguments.

use core::ptr::{null, null_mut};
use ztensor::*;
use ztensor_core::v2::types::DType;
use ztensor_core::write::v2 as w2;

mod common;
use common::*;

const BIG: usize = 2 * ztensor_core::load::PIECE as usize + 1000;

/// A v2 file: "big" (raw, read in pieces), "seek" (zstd-seekable, in runs
/// of frames), "small" (raw), in that manifest order.
fn model() -> Vec<u8> {
    let big: Vec<u8> = (0..BIG).map(|i| (i * 7 % 251) as u8).collect();
    let small: Vec<u8> = (0..1000).map(|i| i as u8).collect();
    let mut w = w2::Writer::with_options(Vec::new(), w2::Options::non_canonical(4096)).unwrap();
    w.add_dense("big", &[BIG as u64], DType::U8, &big[..]).unwrap();
    let enc = w2::Encoding::ZstdSeekable { level: 1, frame: 1 << 20 };
    let part = w2::NewPart::new("data", DType::U8, &big[..]).encoding(enc);
    w.add(w2::NewObject::new("seek", &[BIG as u64], "dense").part(part)).unwrap();
    w.add_dense("small", &[1000], DType::U8, &small[..]).unwrap();
    w.finish().unwrap()
}

fn object(f: *const zt_file, i: usize) -> zt_object {
    let mut o = zt_object { index: 0, owner: 0 };
    ok(unsafe { zt_object_at(f, i, &mut o) });
    o
}

/// `zt_component_read` of object `i`'s "data".
fn read(f: *const zt_file, i: usize) -> Vec<u8> {
    let o = object(f, i);
    let (role, len) = s("data");
    let mut need = 0;
    unsafe { zt_component_read(f, &o, role, len, null_mut(), 0, &mut need) };
    let mut v = vec![0u8; need];
    let mut n = 0;
    ok(unsafe { zt_component_read(f, &o, role, len, v.as_mut_ptr().cast(), v.len(), &mut n) });
    v
}

fn request(f: *const zt_file, i: usize, role: &'static str, dst: &mut [u8]) -> zt_load_request {
    zt_load_request {
        object: object(f, i),
        role: s(role).0,
        role_len: role.len(),
        dst: dst.as_mut_ptr().cast(),
        dst_len: dst.len(),
        status: zt_status::ZT_ERR_PANIC,
    }
}

/// Load every object's "data" into fresh buffers: the call's status, each
/// request's, and the buffers.
fn load_all(f: *const zt_file, threads: u32, flags: u32) -> (zt_status, Vec<zt_status>, Vec<Vec<u8>>) {
    let n = unsafe { zt_object_count(f) };
    let mut bufs: Vec<Vec<u8>> = (0..n).map(|i| vec![0u8; read_len(f, i)]).collect();
    let mut reqs: Vec<_> = bufs.iter_mut().enumerate().map(|(i, b)| request(f, i, "data", b)).collect();
    let st = unsafe { zt_load(f, reqs.as_mut_ptr(), n, threads, flags) };
    (st, reqs.iter().map(|r| r.status).collect(), bufs)
}

fn read_len(f: *const zt_file, i: usize) -> usize {
    let (o, (role, len)) = (object(f, i), s("data"));
    let mut need = 0;
    unsafe { zt_component_read(f, &o, role, len, null_mut(), 0, &mut need) };
    need
}

#[test]
fn every_part_equals_zt_component_read_on_every_handle() {
    let bytes = model();
    let dir = temp_dir("load", "all");
    let path = dir.join("m.zt");
    std::fs::write(&path, &bytes).unwrap();
    for how in ["mmap", "positional", "memory"] {
        let mut f = null_mut();
        ok(unsafe {
            match how {
                "mmap" => zt_open(cpath(&path).as_ptr(), 0, &mut f),
                "positional" => zt_open(cpath(&path).as_ptr(), ZT_OPEN_POSITIONAL, &mut f),
                _ => zt_open_mem(bytes.as_ptr(), bytes.len(), &mut f),
            }
        });
        for threads in [1, 2, 0] {
            for flags in [0, ZT_LOAD_NO_VERIFY] {
                let (st, statuses, bufs) = load_all(f, threads, flags);
                assert_eq!(st, zt_status::ZT_OK, "{how} {threads}: {}", last_error());
                assert!(statuses.iter().all(|&s| s == zt_status::ZT_OK), "{how} {threads}: {statuses:?}");
                for (i, b) in bufs.iter().enumerate() {
                    assert!(*b == read(f, i), "{how} {threads} threads: object {i}");
                }
            }
        }
        unsafe { zt_close(f) };
    }
}

#[test]
fn a_corrupt_part_fails_its_request_and_the_call_says_so() {
    let mut bytes = model();
    let at = ztensor_core::File::parse(&bytes).unwrap().require("big").unwrap().data().unwrap().offset() as usize;
    bytes[at + BIG / 2] ^= 1;
    let dir = temp_dir("load", "corrupt");
    let path = dir.join("m.zt");
    std::fs::write(&path, &bytes).unwrap();
    for flags in [0, ZT_OPEN_POSITIONAL] {
        let mut f = null_mut();
        ok(unsafe { zt_open(cpath(&path).as_ptr(), flags, &mut f) });
        for threads in [1, 2] {
            let (st, statuses, bufs) = load_all(f, threads, 0);
            assert_eq!(st, zt_status::ZT_ERR_DIGEST_MISMATCH);
            assert_eq!(statuses, [zt_status::ZT_ERR_DIGEST_MISMATCH, zt_status::ZT_OK, zt_status::ZT_OK]);
            let e = last_error();
            assert!(e.contains("object \"big\"") && e.contains("\"data\""), "{e}");
            assert!(bufs[1] == read(f, 1) && bufs[2] == read(f, 2));
            // Without verification it loads, flipped byte and all.
            let (st, _, bufs) = load_all(f, threads, ZT_LOAD_NO_VERIFY);
            assert_eq!(st, zt_status::ZT_OK);
            assert_eq!(bufs[0][BIG / 2] ^ 1, bufs[1][BIG / 2]);
        }
        unsafe { zt_close(f) };
    }
}

#[test]
fn bad_requests_fail_alone() {
    let bytes = model();
    let mut f = null_mut();
    ok(unsafe { zt_open_mem(bytes.as_ptr(), bytes.len(), &mut f) });
    let want = read(f, 2);
    let (mut a, mut b, mut short, mut long, mut unknown) = (vec![0u8; 1000], vec![0u8; 1000], vec![0u8; 999], vec![0u8; 1001], vec![0u8; 1000]);
    let mut shared = vec![0u8; 1500];
    let mut reqs = vec![
        request(f, 2, "data", &mut a),
        request(f, 2, "data", &mut short),
        request(f, 2, "weights", &mut unknown),
        request(f, 2, "data", &mut long),
        request(f, 2, "data", &mut b),
        request(f, 2, "data", &mut shared[..1000]),
        request(f, 2, "data", &mut shared[500..]),
        request(f, 2, "data", &mut []),
    ];
    reqs[7].dst = null_mut();
    reqs[7].dst_len = 1000;
    let st = unsafe { zt_load(f, reqs.as_mut_ptr(), reqs.len(), 2, 0) };
    use zt_status::*;
    let got: Vec<_> = reqs.iter().map(|r| r.status).collect();
    let want_status = [
        ZT_OK,
        ZT_ERR_BUFFER_TOO_SMALL,
        ZT_ERR_NOT_FOUND,
        ZT_ERR_INVALID_ARGUMENT,
        ZT_OK,
        ZT_ERR_INVALID_ARGUMENT,
        ZT_ERR_INVALID_ARGUMENT,
        ZT_ERR_INVALID_ARGUMENT,
    ];
    assert_eq!(got, want_status);
    // The first failed request's status and message.
    assert_eq!(st, ZT_ERR_BUFFER_TOO_SMALL);
    assert!(last_error().contains("999"), "{}", last_error());
    assert!(a == want && b == want);
    assert!(short.iter().chain(&long).chain(&shared).all(|&x| x == 0));

    // Arguments: every request's status says what the call does.
    let mut one = [request(f, 2, "data", &mut a)];
    assert_eq!(unsafe { zt_load(null(), one.as_mut_ptr(), 1, 1, 0) }, ZT_ERR_INVALID_ARGUMENT);
    assert_eq!(one[0].status, ZT_ERR_INVALID_ARGUMENT);
    assert_eq!(unsafe { zt_load(f, one.as_mut_ptr(), 1, 1, 4) }, ZT_ERR_INVALID_ARGUMENT);
    assert!(last_error().contains("flag"), "{}", last_error());
    assert_eq!(unsafe { zt_load(f, null_mut(), 1, 1, 0) }, ZT_ERR_INVALID_ARGUMENT);
    assert_eq!(unsafe { zt_load(f, null_mut(), 0, 1, 0) }, ZT_OK);
    // An object from another handle.
    let mut g = null_mut();
    ok(unsafe { zt_open_mem(bytes.as_ptr(), bytes.len(), &mut g) });
    let mut other = [request(g, 2, "data", &mut a)];
    assert_eq!(unsafe { zt_load(f, other.as_mut_ptr(), 1, 1, 0) }, ZT_ERR_INVALID_ARGUMENT);
    unsafe {
        zt_close(g);
        zt_close(f);
    }
}
