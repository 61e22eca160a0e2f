//! The writer's other layouts: sparse matrices (u64 indices in v1.2, u32
//! in v2) and quantized groups with index arrays at odd addresses and
//! counts whose byte size overflows, `zt_writer_add_object` with its
//! component array, and the v2-only layouts refused by a v1.2 writer.

use super::library::{cpath, temp_dir};
use super::support::*;
use super::writer::{comp, create_v1_2, le};
use core::ptr::null;
use zt_dtype::*;
use ztensor::*;

/// `v` as the host-order bytes of its words, at an odd address.
fn odd_words<T: Copy>(v: &[T]) -> Shifted {
    Shifted::new(unsafe { core::slice::from_raw_parts(v.as_ptr().cast::<u8>(), core::mem::size_of_val(v)) })
}

pub fn v1_2_layouts() {
    let dir = temp_dir("layouts");
    let path = dir.join("out.zt");
    let w = create_v1_2(&path);
    let values = le([10.0f64, 20.0, 30.0], |x| x.to_le_bytes().to_vec());
    let (indices, indptr) = (odd_words(&[0u64, 2, 1]), odd_words(&[0u64, 2, 2, 3]));
    let (ip, pp): (*const u64, *const u64) = (indices.bytes().as_ptr().cast(), indptr.bytes().as_ptr().cast());
    let f64_ = ZT_DTYPE_F64 as u32;
    let csr = |values: *const u8, idx: *const u64, idx_n: usize, ptr_n: usize| unsafe {
        zt_writer_add_sparse_csr(w, c"csr".as_ptr(), NUL, f64_, 3, 4, values.cast(), 24, idx, idx_n, pp, ptr_n, null())
    };
    invalid(csr(null(), ip, 3, 4), "`values` is NULL");
    invalid(csr(values.as_ptr(), null(), 3, 4), "`indices` is NULL or too long");
    invalid(csr(values.as_ptr(), ip, usize::MAX / 2, 4), "`indices` is NULL or too long");
    invalid(csr(values.as_ptr(), ip, 3, usize::MAX / 4), "`indptr` is NULL or too long");
    expect(csr(values.as_ptr(), ip, 2, 4), ZT_ERR_FORMAT, "");
    ok(csr(values.as_ptr(), ip, 3, 4));
    let coords = odd_words(&[0u64, 2, 1, 0]);
    let cp: *const u64 = coords.bytes().as_ptr().cast();
    let (shape, values) = ([3u64, 2], [7i32, -8]);
    let coo = |coords: *const u64, n: usize| unsafe {
        let i32_ = ZT_DTYPE_I32 as u32;
        zt_writer_add_sparse_coo(
            w,
            c"coo".as_ptr(),
            NUL,
            i32_,
            shape.as_ptr(),
            2,
            values.as_ptr().cast(),
            8,
            coords,
            n,
            null(),
        )
    };
    invalid(coo(null(), 4), "`coords` is NULL or too long");
    invalid(coo(cp, usize::MAX), "`coords` is NULL or too long");
    ok(coo(cp, 4));
    let (i32s, u32s) = ([0u32, 1], [0u32, 1, 1]);
    unsafe {
        let s = zt_writer_add_sparse_csr_u32(
            w,
            c"c32".as_ptr(),
            NUL,
            f64_,
            2,
            2,
            values.as_ptr().cast(),
            8,
            i32s.as_ptr(),
            1,
            u32s.as_ptr(),
            3,
            null(),
        );
        invalid(s, "format v2 option");
        let s = zt_writer_add_sparse_coo_u32(
            w,
            c"o32".as_ptr(),
            NUL,
            f64_,
            [2u64].as_ptr(),
            1,
            values.as_ptr().cast(),
            8,
            i32s.as_ptr(),
            1,
            null(),
        );
        invalid(s, "format v2 option");
    }

    // quantized_group: each component NULL, a role out of place, the
    // packing string, a logical type in the options.
    let packed = le([0x1234_5678i32; 4], |x| x.to_le_bytes().to_vec());
    let scales = le([0.5f32, 0.25], |x| x.to_le_bytes().to_vec());
    let zeros = [8u8, 8];
    let (pw, sc, ze) = (
        comp(None, ZT_DTYPE_I32, &packed),
        comp(None, ZT_DTYPE_F32, &scales),
        comp(Some(b"zeros"), ZT_DTYPE_U8, &zeros),
    );
    let wrong = comp(Some(b"zeros"), ZT_DTYPE_F32, &scales);
    let qg = |pw: *const zt_write_component,
              sc: *const zt_write_component,
              ze: *const zt_write_component,
              packing: (*const core::ffi::c_char, usize),
              o: *const zt_write_options| unsafe {
        zt_writer_add_quantized_group(
            w,
            c"q".as_ptr(),
            NUL,
            [2u64, 16].as_ptr(),
            2,
            pw,
            sc,
            ze,
            4,
            16,
            packing.0,
            packing.1,
            o,
        )
    };
    let packing = (c"8_per_i32".as_ptr(), NUL);
    invalid(qg(null(), &sc, &ze, packing, null()), "a quantized_group component is NULL");
    invalid(qg(&pw, null(), &ze, packing, null()), "a quantized_group component is NULL");
    invalid(qg(&pw, &sc, null(), packing, null()), "a quantized_group component is NULL");
    invalid(qg(&pw, &wrong, &ze, packing, null()), "does not match its position");
    invalid(qg(&pw, &sc, &ze, (null(), 3), null()), "`packing` is NULL or not UTF-8");
    let fp8 = zt_write_options { logical_type: c"f8_e4m3fn".as_ptr(), logical_type_len: NUL, ..zeroed() };
    invalid(qg(&pw, &sc, &ze, packing, &fp8), "not used by quantized_group");
    ok(qg(&pw, &sc, &ze, packing, null()));
    unsafe {
        let p: zt_quant_group_params = zeroed();
        invalid(
            zt_writer_add_quant_group(w, c"g".as_ptr(), NUL, null(), 0, &p, &pw, &sc, null(), null()),
            "format v2 layout",
        );
        invalid(zt_writer_add_mx(w, c"m".as_ptr(), NUL, null(), 0, 32, -1, &pw, &sc, null()), "format v2 layout");
        invalid(
            zt_writer_add_gguf(w, c"g".as_ptr(), NUL, c"q8_0".as_ptr(), NUL, null(), 0, 32, 34, null(), 0, null()),
            "format v2 layout",
        );
    }

    // Any format by name, from an array of components.
    let parts = [comp(Some(b"a"), ZT_DTYPE_U16, &[1, 0, 2, 0]), comp(Some(b"b"), ZT_DTYPE_BOOL, &[1])];
    let mut unnamed = [comp(Some(b"a"), ZT_DTYPE_U16, &[1, 0, 2, 0]), comp(None, ZT_DTYPE_BOOL, &[1])];
    unnamed[1].role_len = 1;
    let object = |format: *const core::ffi::c_char, list: *const zt_write_component, n: usize| unsafe {
        zt_writer_add_object(w, c"custom".as_ptr(), NUL, format, NUL, null(), 0, list, n, null())
    };
    invalid(object(c"my_format".as_ptr(), null(), 2), "`components` is NULL");
    invalid(object(c"my_format".as_ptr(), parts.as_ptr(), usize::MAX), "`component_count` too large");
    invalid(object(c"my_format".as_ptr(), unnamed.as_ptr(), 2), "component `role` is NULL or not UTF-8");
    invalid(object(null(), parts.as_ptr(), 2), "`format` is NULL or not UTF-8");
    ok(object(c"my_format".as_ptr(), parts.as_ptr(), 2));
    ok(unsafe { zt_writer_finish(w) });

    // Read back: the index arrays as they were given.
    let (mut f, mut n) = (dangling(), 0);
    ok(unsafe { zt_open(cpath(&path).as_ptr(), ZT_OPEN_POSITIONAL, &mut f) });
    let mut got = vec![0u8; 32];
    let mut o = zeroed::<zt_object>();
    unsafe {
        assert_eq!(zt_object_count(f), 4);
        ok(zt_find(f, c"csr".as_ptr(), NUL, &mut o));
        ok(zt_component_read(f, &o, c"indptr".as_ptr(), NUL, got.as_mut_ptr().cast(), 32, &mut n));
        assert_eq!(&got[..n], indptr.bytes());
        ok(zt_find(f, c"coo".as_ptr(), NUL, &mut o));
        ok(zt_component_read(f, &o, c"coords".as_ptr(), NUL, got.as_mut_ptr().cast(), 32, &mut n));
        assert_eq!(&got[..n], coords.bytes());
        ok(zt_verify(f, 0));
        zt_close(f);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
