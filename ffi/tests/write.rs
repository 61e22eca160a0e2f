//! The write API through its C entry points, writing v1.2
//! (`ZT_FORMAT_VERSION_1_2`; the default, v2, is tested in write_v2.rs):
//! the same objects written through `zt_writer_*` and through the Rust
//! v1.2 `Writer` give byte-identical files, which the Rust reader reads
//! back bit for bit.

use core::ptr::{null, null_mut};
use std::path::PathBuf;
use ztensor::*;
use ztensor_core::write::AttrValue;
use ztensor_core::write::v1_2::{Checksum, Compression, NewComponent, NewObject, Writer};
use ztensor_core::{DType, File, LogicalType};

mod common;
use common::*;

fn temp_dir(tag: &str) -> PathBuf {
    common::temp_dir("write", tag)
}

/// A v1.2 writer of `path` (`zt_writer_create` writes v2).
unsafe fn create_v1_2(path: &std::path::Path, w: &mut *mut zt_writer) {
    let mut o = core::mem::MaybeUninit::<zt_writer_options>::uninit();
    ok(unsafe { zt_writer_options_init(o.as_mut_ptr()) });
    let o = zt_writer_options {
        format_version: zt_format_version::ZT_FORMAT_VERSION_1_2 as u32,
        ..unsafe { o.assume_init() }
    };
    ok(unsafe { zt_writer_create_with_options(cpath(path).as_ptr(), &o, w) });
}

fn le<T: Copy>(v: &[T]) -> &[u8] {
    // Test data is built on little-endian hosts only (checked below).
    unsafe { core::slice::from_raw_parts(v.as_ptr().cast(), core::mem::size_of_val(v)) }
}

fn comp(role: Option<&str>, dtype: zt_dtype, data: &[u8]) -> zt_write_component {
    let (r, rl) = role.map_or((null(), 0), s);
    zt_write_component {
        role: r,
        role_len: rl,
        dtype: dtype as u32,
        logical_type: null(),
        logical_type_len: 0,
        data: data.as_ptr().cast(),
        len: data.len(),
    }
}

#[test]
#[cfg_attr(target_endian = "big", ignore = "test data assumes a little-endian host")]
fn c_and_rust_writers_make_identical_files() {
    let dir = temp_dir("same");
    let (c_out, rust_out) = (dir.join("c.zt"), dir.join("rust.zt"));

    // Odd bit patterns survive: -0.0, a NaN payload, subnormals.
    let dense = [1.0f32, -0.0, f32::from_bits(0x7fc0_1234), f32::from_bits(1), 3.5, -2.25];
    let values = [10.0f64, 20.0, 30.0];
    let indices = [0u64, 2, 1];
    let indptr = [0u64, 2, 2, 3];
    let coo_vals = [7i32, -8];
    let coords = [0u64, 2, 1, 0];
    let packed = [0x1234_5678i32; 4];
    let scales = [0.5f32, 0.25];
    let zeros = [8u8, 8];
    let fp8 = [0x38u8, 0x40, 0xb8];
    let complex = [1.0f32, 2.0, 3.0, 4.0];

    // --- through the C API
    unsafe {
        let mut w = null_mut();
        create_v1_2(&c_out, &mut w);
        let shape = [2u64, 3];
        let (n, nl) = s("dense_raw");
        ok(zt_writer_add_dense(
            w,
            n,
            nl,
            zt_dtype::ZT_DTYPE_F32 as u32,
            shape.as_ptr(),
            2,
            dense.as_ptr().cast(),
            24,
            null(),
        ));

        let tags = [attr("layer", zt_attr_kind::ZT_ATTR_INT), attr("name", zt_attr_kind::ZT_ATTR_TEXT)];
        let mut tags = tags;
        tags[0].int_value = -3;
        tags[1].data = "q".as_ptr().cast();
        tags[1].data_len = 1;
        let mut o = zeroed_options();
        o.encoding = zt_encoding::ZT_ENCODING_ZSTD as u32;
        o.digest = zt_digest::ZT_DIGEST_SHA256 as u32;
        o.attributes = tags.as_ptr();
        o.attribute_count = 2;
        let (n, nl) = s("dense_zstd");
        ok(zt_writer_add_dense(
            w,
            n,
            nl,
            zt_dtype::ZT_DTYPE_F32 as u32,
            shape.as_ptr(),
            2,
            dense.as_ptr().cast(),
            24,
            &o,
        ));

        let mut o = zeroed_options();
        o.digest = zt_digest::ZT_DIGEST_CRC32C as u32;
        let (n, nl) = s("csr");
        ok(zt_writer_add_sparse_csr(
            w,
            n,
            nl,
            zt_dtype::ZT_DTYPE_F64 as u32,
            3,
            4,
            values.as_ptr().cast(),
            24,
            indices.as_ptr(),
            3,
            indptr.as_ptr(),
            4,
            &o,
        ));

        let coo_shape = [3u64, 2];
        let (n, nl) = s("coo");
        ok(zt_writer_add_sparse_coo(
            w,
            n,
            nl,
            zt_dtype::ZT_DTYPE_I32 as u32,
            coo_shape.as_ptr(),
            2,
            coo_vals.as_ptr().cast(),
            8,
            coords.as_ptr(),
            4,
            null(),
        ));

        let q_shape = [2u64, 16];
        let (pk, pkl) = s("8_per_i32");
        let (n, nl) = s("q");
        let mut zs = comp(None, zt_dtype::ZT_DTYPE_U8, &zeros);
        zs.role = "zeros".as_ptr().cast();
        zs.role_len = 5;
        ok(zt_writer_add_quantized_group(
            w,
            n,
            nl,
            q_shape.as_ptr(),
            2,
            &comp(None, zt_dtype::ZT_DTYPE_I32, le(&packed)),
            &comp(None, zt_dtype::ZT_DTYPE_F32, le(&scales)),
            &zs,
            4,
            16,
            pk,
            pkl,
            null(),
        ));

        let mut parts = [comp(Some("data"), zt_dtype::ZT_DTYPE_U8, &fp8)];
        parts[0].logical_type = "f8_e4m3fn".as_ptr().cast();
        parts[0].logical_type_len = 9;
        let (n, nl) = s("fp8");
        let (f, fl) = s("dense");
        ok(zt_writer_add_object(w, n, nl, f, fl, [3u64].as_ptr(), 1, parts.as_ptr(), 1, null()));

        let mut o = zeroed_options();
        o.logical_type = c"complex64".as_ptr();
        o.logical_type_len = ZT_NUL_TERMINATED;
        let (n, nl) = s("z");
        ok(zt_writer_add_dense(
            w,
            n,
            nl,
            zt_dtype::ZT_DTYPE_F32 as u32,
            [2u64].as_ptr(),
            1,
            complex.as_ptr().cast(),
            16,
            &o,
        ));

        let parts =
            [comp(Some("a"), zt_dtype::ZT_DTYPE_U16, &[1, 0, 2, 0]), comp(Some("b"), zt_dtype::ZT_DTYPE_BOOL, &[1])];
        let (n, nl) = s("custom");
        let (f, fl) = s("my_format");
        ok(zt_writer_add_object(w, n, nl, f, fl, null(), 0, parts.as_ptr(), 2, null()));

        let (k, kl) = s("framework");
        ok(zt_writer_set_attribute_text(w, k, kl, c"c".as_ptr(), ZT_NUL_TERMINATED));
        ok(zt_writer_set_attribute_int(w, c"epoch".as_ptr(), ZT_NUL_TERMINATED, -7));
        ok(zt_writer_set_attribute_uint(w, c"big".as_ptr(), ZT_NUL_TERMINATED, u64::MAX));
        ok(zt_writer_set_attribute_float(w, c"lr".as_ptr(), ZT_NUL_TERMINATED, 0.1));
        ok(zt_writer_set_attribute_bool(w, c"ok".as_ptr(), ZT_NUL_TERMINATED, true));
        ok(zt_writer_set_attribute_cbor(w, c"list".as_ptr(), ZT_NUL_TERMINATED, [0x82, 0x01, 0xf6].as_ptr(), 3));
        let mut a = attr("none", zt_attr_kind::ZT_ATTR_NULL);
        ok(zt_writer_set_attribute(w, &a));
        a = attr("raw", zt_attr_kind::ZT_ATTR_BYTES);
        a.data = [1u8, 2].as_ptr().cast();
        a.data_len = 2;
        ok(zt_writer_set_attribute(w, &a));
        ok(zt_writer_set_attribute_text(w, k, kl, c"c-api".as_ptr(), ZT_NUL_TERMINATED)); // replaces in place
        ok(zt_writer_finish(w));
    }

    // --- the same through the Rust writer
    let mut w = Writer::create(&rust_out).unwrap();
    w.add(NewObject::dense_slice("dense_raw", &[2, 3], &dense)).unwrap();
    w.add(
        NewObject::dense_slice("dense_zstd", &[2, 3], &dense)
            .compression(Compression::ZSTD)
            .checksum(Checksum::Sha256)
            .attribute("layer", -3)
            .attribute("name", "q"),
    )
    .unwrap();
    w.add(NewObject::sparse_csr_slices("csr", [3, 4], &values, &indices, &indptr).checksum(Checksum::Crc32c)).unwrap();
    w.add(NewObject::sparse_coo_slices("coo", &[3, 2], &coo_vals, &coords)).unwrap();
    w.add(NewObject::quantized_group(
        "q",
        &[2, 16],
        (DType::I32, le(&packed).into()),
        (DType::F32, le(&scales).into()),
        (DType::U8, (&zeros[..]).into()),
        4,
        16,
        "8_per_i32",
    ))
    .unwrap();
    w.add(NewObject::dense("fp8", &[3], DType::U8, &fp8[..]).logical_type(LogicalType::F8E4M3Fn)).unwrap();
    w.add(NewObject::dense_slice("z", &[2], &complex).logical_type(LogicalType::Complex64)).unwrap();
    w.add(
        NewObject::new("custom", ztensor_core::Format::Other("my_format"), &[])
            .component(NewComponent::new("a", DType::U16, &[1u8, 0, 2, 0][..]))
            .component(NewComponent::new("b", DType::Bool, &[1u8][..])),
    )
    .unwrap();
    w.set_attribute("framework", "c").unwrap();
    w.set_attribute("epoch", -7).unwrap();
    w.set_attribute("big", u64::MAX).unwrap();
    w.set_attribute("lr", 0.1).unwrap();
    w.set_attribute("ok", true).unwrap();
    w.set_attribute("list", AttrValue::Cbor(vec![0x82, 0x01, 0xf6])).unwrap();
    w.set_attribute("none", AttrValue::Null).unwrap();
    w.set_attribute("raw", &[1u8, 2][..]).unwrap();
    w.set_attribute("framework", "c-api").unwrap();
    w.finish().unwrap();

    let (a, b) = (std::fs::read(&c_out).unwrap(), std::fs::read(&rust_out).unwrap());
    assert_eq!(a, b, "the C API and the Rust writer disagree");

    // --- and the Rust reader reads back every bit
    let f = File::parse(&a).unwrap();
    assert_eq!(f.len(), 8);
    for name in ["dense_raw", "dense_zstd"] {
        let got = f.require(name).unwrap().data().unwrap().to_vec().unwrap();
        assert_eq!(got, le(&dense), "{name}");
    }
    let m = f.require("csr").unwrap();
    assert_eq!(m.require("values").unwrap().to_vec().unwrap(), le(&values));
    assert_eq!(m.require("indptr").unwrap().to_vec().unwrap(), le(&indptr));
    m.require("indices").unwrap().verify_digest().unwrap();
    assert_eq!(f.require("q").unwrap().require("packed_weight").unwrap().to_vec().unwrap(), le(&packed));
    assert_eq!(f.attributes().get("framework").and_then(|v| v.as_str()), Some("c-api"));
    for o in f.objects() {
        o.check_data().unwrap();
        for c in o.components() {
            c.verify_digest().unwrap();
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn refusals_leave_the_writer_usable_and_abort_leaves_nothing() {
    let dir = temp_dir("errors");
    let out = dir.join("out.zt");
    let data = [1.0f32, 2.0];
    unsafe {
        let mut w = null_mut();
        create_v1_2(&out, &mut w);
        let (n, nl) = s("x");
        let f32_ = zt_dtype::ZT_DTYPE_F32 as u32;
        // Shape 3 needs 12 bytes.
        let s3 = zt_writer_add_dense(w, n, nl, f32_, [3u64].as_ptr(), 1, data.as_ptr().cast(), 8, null());
        assert_eq!(s3, zt_status::ZT_ERR_FORMAT);
        assert!(last_error().contains("require 12"), "{}", last_error());
        ok(zt_writer_add_dense(w, n, nl, f32_, [2u64].as_ptr(), 1, data.as_ptr().cast(), 8, null()));
        let dup = zt_writer_add_dense(w, n, nl, f32_, [2u64].as_ptr(), 1, data.as_ptr().cast(), 8, null());
        assert_eq!(dup, zt_status::ZT_ERR_FORMAT);
        assert!(last_error().contains("already added"), "{}", last_error());
        let bad = zt_writer_add_dense(w, n, nl, 13, [2u64].as_ptr(), 1, data.as_ptr().cast(), 8, null());
        assert_eq!(bad, zt_status::ZT_ERR_INVALID_ARGUMENT);
        // Nothing at the destination until finish; only the temporary file.
        assert!(!out.exists());
        let entries: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(entries.len(), 1);
        zt_writer_abort(w);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
