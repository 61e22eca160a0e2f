//! Components and their bytes through the C functions of every build:
//! descriptions, zero-copy pointers, reads into buffers of exactly the
//! size asked (one byte short, at an odd address, larger with the bytes
//! after left alone), `cap` and `len` over `PTRDIFF_MAX`, ranges past the
//! end or whose end overflows, zstd, digests and whole-file verification
//! on a file with one byte changed.

use super::support::*;
use core::ffi::c_char;
use core::ptr::{null, null_mut};
use ztensor::*;

const VALUES: *const c_char = c"values".as_ptr();
const DATA: *const c_char = c"data".as_ptr();

/// The description of `role` of `obj`.
#[track_caller]
fn describe(h: &Handle<'_>, obj: &zt_object, role: *const c_char) -> zt_component_info {
    let mut c = zeroed();
    ok(unsafe { zt_component(h.ptr(), obj, role, NUL, &mut c) });
    c
}

/// `zt_component_read` of `role` into `dst` (`cap` bytes): status and `*written`.
fn read(h: &Handle<'_>, obj: &zt_object, role: *const c_char, dst: *mut u8, cap: usize) -> (zt_status, usize) {
    let mut w = 99;
    let s = unsafe { zt_component_read(h.ptr(), obj, role, NUL, dst.cast(), cap, &mut w) };
    (s, w)
}

pub fn descriptions() {
    let h = open(ATTRIBUTES);
    let csr = find(&h, b"csr_with_attrs");
    let mut c: zt_component_info = zeroed();
    unsafe {
        invalid(zt_component(h.ptr(), &csr, VALUES, NUL, null_mut()), "`info` is NULL");
        ok(zt_component(h.ptr(), &csr, VALUES, NUL, &mut c));
        assert!(inside(ATTRIBUTES, c.role, c.role_len) && bytes_at(c.role, c.role_len) == b"values");
        assert_eq!((c.dtype, c.encoding), (zt_dtype::ZT_DTYPE_F32, zt_encoding::ZT_ENCODING_RAW));
        assert_eq!((c.length, c.decoded_length, c.has_decoded_length), (16, 16, true));
        assert_eq!((c.logical_type, c.digest, c.shard), (null(), null(), null()));
        assert_eq!(bytes_at(c.encoding_id, c.encoding_id_len), b"raw");
        let offset = c.offset;
        // An explicit length shorter than the buffer: "values" of "valuesXYZ".
        ok(zt_component(h.ptr(), &csr, b"valuesXYZ".as_ptr().cast(), 6, &mut c));
        assert_eq!(c.offset, offset);
        // No such role (the empty one, not UTF-8): NOT_FOUND, `*info` zeroed.
        for (role, len) in [(null(), 0), (b"\xff".as_ptr().cast(), 1), (c"value".as_ptr(), NUL)] {
            c.length = 99;
            expect(zt_component(h.ptr(), &csr, role, len, &mut c), ZT_ERR_NOT_FOUND, "");
            assert_eq!(c.length, 0);
        }
        invalid(zt_component(h.ptr(), &csr, null(), 6, &mut c), "`role` is NULL");
        invalid(zt_component(h.ptr(), &csr, VALUES, usize::MAX - 1, &mut c), "PTRDIFF_MAX");
        // By position: each found again by the role it gives (its length).
        let mut roles = Vec::new();
        for i in 0..3 {
            ok(zt_component_at(h.ptr(), &csr, i, &mut c));
            let mut again = zeroed::<zt_component_info>();
            ok(zt_component(h.ptr(), &csr, c.role, c.role_len, &mut again));
            assert_eq!((again.offset, again.length), (c.offset, c.length));
            roles.push(bytes_at(c.role, c.role_len).to_vec());
        }
        roles.sort();
        assert_eq!(roles, [&b"indices"[..], b"indptr", b"values"]);
        c.length = 99;
        invalid(zt_component_at(h.ptr(), &csr, 3, &mut c), "component index out of range");
        assert_eq!(c.length, 0);
        invalid(zt_component_at(h.ptr(), &csr, 0, null_mut()), "`info` is NULL");
    }
}

pub fn zero_copy_and_reads() {
    let h = open(ATTRIBUTES);
    let csr = find(&h, b"csr_with_attrs");
    let (mut p, mut n): (*const u8, usize) = (dangling(), 99);
    let stored = unsafe {
        invalid(zt_component_ptr(h.ptr(), &csr, VALUES, NUL, null_mut(), &mut n), "`ptr` or `len` is NULL");
        invalid(zt_component_ptr(h.ptr(), &csr, VALUES, NUL, &mut p, null_mut()), "`ptr` or `len` is NULL");
        expect(zt_component_ptr(h.ptr(), &csr, c"nope".as_ptr(), NUL, &mut p, &mut n), ZT_ERR_NOT_FOUND, "");
        assert_eq!((p, n), (null(), 0), "NULL and 0 on failure");
        ok(zt_component_ptr(h.ptr(), &csr, VALUES, NUL, &mut p, &mut n));
        assert!(inside(ATTRIBUTES, p.cast(), n) && n == 16);
        bytes_at(p.cast(), n).to_vec()
    };
    // Sizing: NULL and 0 ask; one byte short is refused, the buffer untouched.
    invalid(unsafe { zt_component_read(h.ptr(), &csr, VALUES, NUL, null_mut(), 0, null_mut()) }, "`written` is NULL");
    assert_eq!(read(&h, &csr, VALUES, null_mut(), 0), (ZT_ERR_BUFFER_TOO_SMALL, 16));
    let mut short = vec![0u8; 15];
    assert_eq!(read(&h, &csr, VALUES, short.as_mut_ptr(), 15), (ZT_ERR_BUFFER_TOO_SMALL, 16));
    assert_eq!(short, [0; 15]);
    let (s, _) = read(&h, &csr, VALUES, null_mut(), 16);
    invalid(s, "`dst` is NULL");
    // A `cap` over PTRDIFF_MAX is refused before anything is written.
    let mut exact = vec![0u8; 16];
    let (s, _) = read(&h, &csr, VALUES, exact.as_mut_ptr(), isize::MAX as usize + 1);
    invalid(s, "`cap` is over PTRDIFF_MAX");
    assert_eq!(read(&h, &csr, VALUES, exact.as_mut_ptr(), 16), (ZT_OK, 16));
    assert_eq!(exact, stored);
    // At an odd address in a larger buffer: the bytes after stay as they were.
    let mut big = vec![0xa5u8; 40];
    assert_eq!(read(&h, &csr, VALUES, big[3..].as_mut_ptr(), 37), (ZT_OK, 16));
    assert_eq!((&big[3..19], &big[..3], &big[19..]), (&stored[..], &[0xa5; 3][..], &[0xa5; 21][..]));
    // Zero-size components: nothing to write, NULL is fine.
    let h = open(SCALARS);
    let empty = find(&h, b"zero_3x0_i16");
    assert_eq!(read(&h, &empty, DATA, null_mut(), 0), (ZT_OK, 0));
    unsafe { ok(zt_component_ptr(h.ptr(), &empty, DATA, NUL, &mut p, &mut n)) };
    assert_eq!(n, 0);
    let scalar = find(&h, b"scalar_f64");
    let mut one = vec![0u8; 8];
    assert_eq!(read(&h, &scalar, DATA, one.as_mut_ptr(), 8), (ZT_OK, 8));
}

pub fn compressed() {
    let h = open(ZSTD);
    let o = find(&h, b"bf16_zstd");
    let c = describe(&h, &o, DATA);
    assert_eq!(
        (c.encoding, c.has_uncompressed_length, c.uncompressed_length),
        (zt_encoding::ZT_ENCODING_ZSTD, true, 128)
    );
    assert!(c.length < 128);
    let (mut p, mut n): (*const u8, usize) = (dangling(), 99);
    let s = unsafe { zt_component_ptr(h.ptr(), &o, DATA, NUL, &mut p, &mut n) };
    expect(s, ZT_ERR_NOT_ZERO_COPY, "compressed");
    assert_eq!((p, n), (null(), 0));
    assert_eq!(read(&h, &o, DATA, null_mut(), 0), (ZT_ERR_BUFFER_TOO_SMALL, 128));
    let mut out = vec![0u8; 128];
    let (s, w) = read(&h, &o, DATA, out.as_mut_ptr(), 128);
    if !cfg!(feature = "std") {
        // The no-heap builds list zstd but do not decode it.
        assert_eq!((s, w, &out[..]), (ZT_ERR_UNSUPPORTED, 0, &[0; 128][..]));
        return;
    }
    assert_eq!((s, w), (ZT_OK, 128));
    #[cfg(feature = "std")]
    {
        // A range of the decoded bytes, as the whole read gives them.
        let mut part = vec![0u8; 10];
        ok(unsafe { zt_component_read_range(h.ptr(), &o, DATA, NUL, 100, part.as_mut_ptr().cast(), 10) });
        assert_eq!(part, out[100..110]);
    }
}

#[cfg(not(feature = "compact"))]
pub fn ranges() {
    let h = open(ATTRIBUTES);
    let csr = find(&h, b"csr_with_attrs");
    let mut all = vec![0u8; 16];
    assert_eq!(read(&h, &csr, VALUES, all.as_mut_ptr(), 16), (ZT_OK, 16));
    let range = |start: u64, dst: *mut u8, len: usize| unsafe {
        zt_component_read_range(h.ptr(), &csr, VALUES, NUL, start, dst.cast(), len)
    };
    let mut eight = vec![0u8; 8];
    ok(range(4, eight.as_mut_ptr(), 8));
    assert_eq!(eight, all[4..12]);
    ok(range(16, null_mut(), 0));
    ok(range(0, null_mut(), 0));
    eight.fill(0xa5);
    // Past the end, an end that overflows, NULL, a length over PTRDIFF_MAX:
    // refused, nothing written.
    invalid(range(9, eight.as_mut_ptr(), 8), "");
    invalid(range(u64::MAX, eight.as_mut_ptr(), 1), "");
    invalid(range(0, null_mut(), 1), "`dst` is NULL");
    invalid(range(0, eight.as_mut_ptr(), isize::MAX as usize + 1), "`len` is over PTRDIFF_MAX");
    assert_eq!(eight, [0xa5; 8]);
    invalid(
        unsafe { zt_component_read_range(h.ptr(), &csr, null(), 3, 0, eight.as_mut_ptr().cast(), 8) },
        "`role` is NULL",
    );
}

/// The offset of the data of `name` in `CHECKSUMS`.
fn data_offset(name: &[u8]) -> usize {
    let h = open(CHECKSUMS);
    describe(&h, &find(&h, name), DATA).offset as usize
}

pub fn verification() {
    let h = open(CHECKSUMS);
    let mut counts: zt_verify_counts = garbage();
    let zero = |c: &zt_verify_counts| (c.objects, c.components, c.digests_checked, c.unverifiable, c.problems);
    unsafe {
        invalid(zt_verify_report(null(), 0, &mut counts), "`file` is NULL");
        assert_eq!(zero(&counts), (0, 0, 0, 0, 0), "zeroed when refused");
        counts = garbage();
        invalid(zt_verify_report(h.ptr(), 0x10, &mut counts), "unknown `zt_verify` flag");
        assert_eq!(zero(&counts), (0, 0, 0, 0, 0));
        invalid(zt_verify(null(), 0), "`file` is NULL");
        invalid(zt_verify(h.ptr(), 0x10), "unknown `zt_verify` flag");
        ok(zt_verify(h.ptr(), ZT_VERIFY_STRICT));
        ok(zt_verify_report(h.ptr(), 0, &mut counts));
    }
    assert_eq!(zero(&counts), (6, 6, 5, 0, 0));
    // One byte of `sha256_f32`'s data changed: its digest no longer matches.
    let bad = flipped(CHECKSUMS, data_offset(b"sha256_f32"));
    let b = open(&bad);
    unsafe {
        expect(
            zt_verify_report(b.ptr(), ZT_VERIFY_DIGESTS, &mut counts),
            ZT_ERR_DIGEST_MISMATCH,
            "1 problem found; first: ",
        );
        assert_eq!(zero(&counts), (6, 6, 4, 0, 1));
        // Data only (any f32 bytes are data), no counts asked.
        ok(zt_verify_report(b.ptr(), ZT_VERIFY_DATA, null_mut()));
    }
}

#[cfg(not(feature = "compact"))]
pub fn component_digests() {
    let h = open(CHECKSUMS);
    let check = |h: &Handle<'_>, name: &[u8], flags: u32, checked: *mut bool| unsafe {
        zt_component_verify(h.ptr(), &find(h, name), DATA, NUL, flags, checked)
    };
    let mut checked;
    for (name, want) in [
        (&b"sha256_f32"[..], true),
        (b"crc32c_u8_leading_zero", true),
        (b"sha256_zero_size", true),
        (b"none_u8", false),
    ] {
        checked = !want;
        ok(check(&h, name, 0, &mut checked));
        assert_eq!(checked, want, "{}", String::from_utf8_lossy(name));
    }
    checked = true;
    expect(check(&h, b"none_u8", ZT_VERIFY_STRICT, &mut checked), ZT_ERR_UNSUPPORTED, "no digest");
    assert!(!checked);
    invalid(check(&h, b"none_u8", ZT_VERIFY_DIGESTS, &mut checked), "unknown `zt_component_verify` flag");
    ok(check(&h, b"sha256_f32", 0, null_mut()));
    let bad = flipped(CHECKSUMS, data_offset(b"sha256_f32"));
    let b = open(&bad);
    checked = true;
    expect(check(&b, b"sha256_f32", 0, &mut checked), ZT_ERR_DIGEST_MISMATCH, "");
    assert!(!checked);
}
