//! The format v2 writer through its pointers: `zt_writer_options_init`,
//! `zt_writer_options` read by its `struct_size` (smaller, a newer
//! caller's larger struct with its extra bytes zero or not, at an odd
//! address), the v2 layouts with their structs (u32 sparse indices,
//! `zt_quant_group_params`, mx, gguf, any layout by name), canonical
//! order; then read back, compressed parts by range.

use super::library::{cpath, temp_dir};
use super::support::*;
use super::writer::{comp, create, dense, le};
use core::ptr::{null, null_mut};
use zt_dtype::*;
use ztensor::*;

/// `zt_writer_options_init`'s defaults, for format v2.
fn v2_options() -> zt_writer_options {
    let mut o = core::mem::MaybeUninit::<zt_writer_options>::uninit();
    ok(unsafe { zt_writer_options_init(o.as_mut_ptr()) });
    // SAFETY: written by the call.
    let o = unsafe { o.assume_init() };
    assert_eq!(
        (o.struct_size, o.format_version, o.alignment, o.shard_size),
        (core::mem::size_of::<zt_writer_options>(), 0, 0, 0)
    );
    zt_writer_options { format_version: zt_format_version::ZT_FORMAT_VERSION_2 as u32, ..o }
}

/// A newer caller's `zt_writer_options`: larger, with fields after ours.
#[repr(C)]
struct Newer {
    o: zt_writer_options,
    more: [u8; 16],
}

pub fn options_by_struct_size() {
    let dir = temp_dir("options");
    let path = cpath(&dir.join("x.zt"));
    let try_create = |o: *const zt_writer_options| {
        let mut w = dangling();
        let s = unsafe { zt_writer_create_with_options(path.as_ptr(), o, &mut w) };
        assert_eq!(w.is_null(), s != ZT_OK);
        unsafe { zt_writer_abort(w) };
        s
    };
    invalid(unsafe { zt_writer_options_init(null_mut()) }, "`options` is NULL");
    ok(try_create(null()));
    let v2 = v2_options();
    invalid(try_create(&zt_writer_options { struct_size: 8, ..v2 }), "`struct_size` is not sizeof(zt_writer_options)");
    invalid(try_create(&zt_writer_options { struct_size: usize::MAX, ..v2 }), "`struct_size` is too large");
    let mut newer = Newer { o: zt_writer_options { struct_size: core::mem::size_of::<Newer>(), ..v2 }, more: [0; 16] };
    // (A pointer to the whole struct: its `struct_size` bytes are read.)
    ok(try_create(core::ptr::addr_of!(newer).cast()));
    newer.more[15] = 1;
    invalid(try_create(core::ptr::addr_of!(newer).cast()), "sets fields this library does not know");
    // At an odd address: read unaligned.
    let bytes = unsafe {
        core::slice::from_raw_parts((&v2 as *const zt_writer_options).cast::<u8>(), core::mem::size_of_val(&v2))
    };
    let odd = Shifted::new(bytes);
    ok(try_create(odd.bytes().as_ptr().cast()));
    invalid(try_create(&zt_writer_options { format_version: 7, ..v2 }), "`format_version` is not a zt_format_version");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "nothing left behind");
    // Canonical form: objects in ascending bytewise name order.
    let w = create(&dir.join("c.zt"), &v2);
    let one = ([1u8].as_ptr(), 1);
    ok(dense(w, b"b", ZT_DTYPE_U8 as u32, [1u64].as_ptr(), 1, one, null()));
    expect(
        dense(w, b"a", ZT_DTYPE_U8 as u32, [1u64].as_ptr(), 1, one, null()),
        ZT_ERR_FORMAT,
        "ascending bytewise name order",
    );
    unsafe { zt_writer_abort(w) };
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn v2_layouts() {
    let dir = temp_dir("v2");
    let path = dir.join("v2.zt");
    // Not canonical: 4 KiB blobs, raw (compression: `seekable_ranges`).
    let o = zt_writer_options { canonical: zt_canonical::ZT_CANONICAL_NO as u32, ..v2_options() };
    let w = create(&path, &o);
    let ramp: Vec<u8> = (0..=255).collect();
    let raw = zt_write_options { digest: zt_digest::ZT_DIGEST_XXH3 as u32, ..zeroed() };
    ok(dense(w, b"ramp", ZT_DTYPE_U8 as u32, [256u64].as_ptr(), 1, (ramp.as_ptr(), 256), null()));
    expect(
        dense(w, b"ramp", ZT_DTYPE_U8 as u32, [256u64].as_ptr(), 1, (ramp.as_ptr(), 256), null()),
        ZT_ERR_FORMAT,
        "already added",
    );
    let sha = zt_write_options { digest: zt_digest::ZT_DIGEST_SHA256 as u32, ..zeroed() };
    invalid(dense(w, b"x", ZT_DTYPE_U8 as u32, [1u64].as_ptr(), 1, (ramp.as_ptr(), 1), &sha), "one digest");
    let zstd = zt_write_options { encoding: zt_encoding::ZT_ENCODING_ZSTD as u32, ..zeroed() };
    invalid(dense(w, b"x", ZT_DTYPE_U8 as u32, [1u64].as_ptr(), 1, (ramp.as_ptr(), 1), &zstd), "v1.2's");
    // u32 sparse indices at odd addresses.
    let values = le([1.0f32, 2.0, 3.0], |x| x.to_le_bytes().to_vec());
    let (idx, ptr) = (
        Shifted::new(&le([0u32, 2, 1], |x| x.to_ne_bytes().to_vec())),
        Shifted::new(&le([0u32, 2, 2, 3], |x| x.to_ne_bytes().to_vec())),
    );
    let (ip, pp): (*const u32, *const u32) = (idx.bytes().as_ptr().cast(), ptr.bytes().as_ptr().cast());
    let csr32 = |i: *const u32, n: usize| unsafe {
        zt_writer_add_sparse_csr_u32(
            w,
            c"csr32".as_ptr(),
            NUL,
            ZT_DTYPE_F32 as u32,
            3,
            4,
            values.as_ptr().cast(),
            12,
            i,
            n,
            pp,
            4,
            &raw,
        )
    };
    invalid(csr32(null(), 3), "`indices` is NULL or too long");
    invalid(csr32(ip, usize::MAX / 2), "`indices` is NULL or too long");
    ok(csr32(ip, 3));
    let coords = Shifted::new(&le([0u32, 2, 1, 0], |x| x.to_ne_bytes().to_vec()));
    let (i8s, i8_) = ([7i8, -8], ZT_DTYPE_I8 as u32);
    let coo32 = |c: *const u32, n: usize| unsafe {
        zt_writer_add_sparse_coo_u32(
            w,
            c"coo32".as_ptr(),
            NUL,
            i8_,
            [3u64, 2].as_ptr(),
            2,
            i8s.as_ptr().cast(),
            2,
            c,
            n,
            &raw,
        )
    };
    invalid(coo32(null(), 4), "`coords` is NULL or too long");
    ok(coo32(coords.bytes().as_ptr().cast(), 4));
    // zt.quant_group/1: the parameters struct and three components.
    // 4-bit codes in u32 words, lsb first (0); f16 scales; zeros packed as the data.
    let p = zt_quant_group_params { bits: 4, group_size: 128, word: ZT_DTYPE_U32 as u32, ..zeroed() };
    let p = zt_quant_group_params {
        scale_form: zt_quant_scale_form::ZT_QUANT_F16_FACTORS as u32,
        zero_point: zt_quant_zero_point::ZT_QUANT_ZERO_SAME_AS_DATA as u32,
        ..p
    };
    let (qd, qs, qz) = (vec![0x11u8; 1024], vec![0x3cu8; 32], vec![0x88u8; 8]);
    let (d, sc, z) =
        (comp(None, ZT_DTYPE_U32, &qd), comp(Some(b"scales"), ZT_DTYPE_F16, &qs), comp(None, ZT_DTYPE_U32, &qz));
    let quant = |p: *const zt_quant_group_params, z: *const zt_write_component| unsafe {
        zt_writer_add_quant_group(w, c"quant".as_ptr(), NUL, [256u64, 8].as_ptr(), 2, p, &d, &sc, z, &raw)
    };
    invalid(quant(null(), &z), "`params` is NULL");
    invalid(quant(&p, null()), "`zeros` is NULL, but the zero point is a tensor");
    invalid(
        quant(&zt_quant_group_params { zero_point: 0, ..p }, &z),
        "`zeros` is given, but the zero point is not a tensor",
    );
    invalid(quant(&zt_quant_group_params { word: ZT_DTYPE_F32 as u32, ..p }, &z), "`params.word`");
    invalid(quant(&zt_quant_group_params { order: 2, ..p }, &z), "`params.order`");
    ok(quant(&p, &z));
    // zt.mx/1 and gguf.<type>/1.
    let (md, ms) = (vec![0x21u8; 64], vec![127u8; 4]);
    let mut mx = [comp(None, ZT_DTYPE_U8, &md), comp(None, ZT_DTYPE_U8, &ms)];
    (mx[0].logical_type, mx[0].logical_type_len) = (c"f4_e2m1".as_ptr(), NUL);
    (mx[1].logical_type, mx[1].logical_type_len) = (b"f8_e8m0".as_ptr().cast(), 7);
    let add_mx = |axis: i64, scales: *const zt_write_component| unsafe {
        zt_writer_add_mx(w, c"mx".as_ptr(), NUL, [2u64, 64].as_ptr(), 2, 32, axis, &mx[0], scales, &raw)
    };
    invalid(add_mx(-2, &mx[1]), "`axis` is negative");
    invalid(add_mx(-1, null()), "a zt.mx/1 component is NULL");
    ok(add_mx(-1, &mx[1]));
    let blocks = vec![0u8; 4 * 34];
    let gguf = |ty: (*const core::ffi::c_char, usize), data: *const u8| unsafe {
        zt_writer_add_gguf(
            w,
            c"gguf".as_ptr(),
            NUL,
            ty.0,
            ty.1,
            [2u64, 64].as_ptr(),
            2,
            32,
            34,
            data.cast(),
            blocks.len(),
            &raw,
        )
    };
    invalid(gguf((c"".as_ptr(), NUL), blocks.as_ptr()), "`type` is empty or contains '/'");
    invalid(gguf((c"q8_0/x".as_ptr(), NUL), blocks.as_ptr()), "`type` is empty or contains '/'");
    invalid(gguf((null(), 4), blocks.as_ptr()), "`type` is NULL or not UTF-8");
    invalid(gguf((c"q8_0".as_ptr(), NUL), null()), "`data` is NULL");
    ok(gguf((b"q8_0zzz".as_ptr().cast(), 4), blocks.as_ptr()));
    unsafe {
        let s = zt_writer_add_quantized_group(
            w,
            c"qg".as_ptr(),
            NUL,
            null(),
            0,
            &d,
            &sc,
            &z,
            4,
            16,
            c"8_per_i32".as_ptr(),
            NUL,
            null(),
        );
        invalid(s, "a v2 writer takes zt_writer_add_quant_group");
    }
    let parts = [comp(Some(b"blob"), ZT_DTYPE_U8, &[1, 2, 3])];
    ok(unsafe {
        zt_writer_add_object(
            w,
            c"x.custom".as_ptr(),
            NUL,
            c"x.custom/1".as_ptr(),
            NUL,
            null(),
            0,
            parts.as_ptr(),
            1,
            null(),
        )
    });
    ok(unsafe { zt_writer_finish(w) });
    read_back_v2(&path, &ramp, &qd);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The v2 file of `v2_layouts`, read through the C functions (positional).
fn read_back_v2(path: &std::path::Path, ramp: &[u8], quant: &[u8]) {
    let (mut f, mut n) = (dangling(), 0);
    ok(unsafe { zt_open(cpath(path).as_ptr(), ZT_OPEN_POSITIONAL, &mut f) });
    let h = f as *const zt_file;
    let mut o = zeroed::<zt_object>();
    let mut c = zeroed::<zt_component_info>();
    let mut info = zeroed::<zt_file_info>();
    let mut got = vec![0u8; 1024];
    unsafe {
        ok(zt_file_get_info(h, &mut info));
        assert_eq!((info.version_major, info.object_count), (2, 7));
        ok(zt_find(h, c"ramp".as_ptr(), NUL, &mut o));
        ok(zt_component(h, &o, c"data".as_ptr(), NUL, &mut c));
        assert_eq!((c.encoding, c.digest_over_decoded, c.offset % 4096), (zt_encoding::ZT_ENCODING_RAW, true, 0));
        assert!(bytes_at(c.digest, c.digest_len).starts_with(b"xxh3:"));
        ok(zt_component_read(h, &o, c"data".as_ptr(), NUL, got.as_mut_ptr().cast(), 256, &mut n));
        assert_eq!(&got[..n], ramp);
        ok(zt_find(h, c"quant".as_ptr(), NUL, &mut o));
        ok(zt_component_read(h, &o, c"data".as_ptr(), NUL, got.as_mut_ptr().cast(), 1024, &mut n));
        assert_eq!(&got[..n], quant);
        ok(zt_verify(h, 0));
        zt_close(f);
    }
}

/// `zt.zstd-seekable/1` in frames of 64 bytes: ranges decode the frames
/// that cover them, by path (positional) and from memory.
pub fn seekable_ranges() {
    let dir = temp_dir("seekable");
    let path = dir.join("s.zt");
    let seekable = zt_encoding::ZT_ENCODING_ZSTD_SEEKABLE as u32;
    let w = create(
        &path,
        &zt_writer_options {
            canonical: zt_canonical::ZT_CANONICAL_NO as u32,
            compression: seekable,
            frame_size: 64,
            ..v2_options()
        },
    );
    let ramp: Vec<u8> = (0..128).collect();
    ok(dense(w, b"ramp", ZT_DTYPE_U8 as u32, [128u64].as_ptr(), 1, (ramp.as_ptr(), 128), null()));
    ok(unsafe { zt_writer_finish(w) });
    let (mut f, mut n) = (dangling(), 0);
    ok(unsafe { zt_open(cpath(&path).as_ptr(), ZT_OPEN_POSITIONAL, &mut f) });
    let bytes = std::fs::read(&path).unwrap();
    let mem = open(&bytes);
    for h in [f as *const zt_file, mem.ptr()] {
        let mut o = zeroed::<zt_object>();
        let mut c = zeroed::<zt_component_info>();
        let mut part = vec![0u8; 8];
        let mut all = vec![0u8; 128];
        unsafe {
            ok(zt_find(h, c"ramp".as_ptr(), NUL, &mut o));
            ok(zt_component(h, &o, c"data".as_ptr(), NUL, &mut c));
            assert_eq!((c.encoding, c.decoded_length), (zt_encoding::ZT_ENCODING_ZSTD_SEEKABLE, 128));
            assert_eq!(bytes_at(c.encoding_id, c.encoding_id_len), b"zt.zstd-seekable/1");
            // Across the two frames' boundary; past the end.
            ok(zt_component_read_range(h, &o, c"data".as_ptr(), NUL, 60, part.as_mut_ptr().cast(), 8));
            assert_eq!(part, ramp[60..68]);
            invalid(zt_component_read_range(h, &o, c"data".as_ptr(), NUL, 125, part.as_mut_ptr().cast(), 8), "");
            ok(zt_component_read(h, &o, c"data".as_ptr(), NUL, all.as_mut_ptr().cast(), 128, &mut n));
            assert_eq!(all, ramp);
            ok(zt_component_verify(h, &o, c"data".as_ptr(), NUL, 0, &mut false));
            ok(zt_verify(h, 0));
        }
    }
    unsafe { zt_close(f) };
    std::fs::remove_dir_all(&dir).unwrap();
}
