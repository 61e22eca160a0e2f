//! Error messages say what is wrong in the user's terms: a truncated file
//! is not "not a zTensor file"; an unknown dtype names itself.

mod common;

use common::*;
use ztensor::{ErrorKind, File};

fn good() -> Vec<u8> {
    let mut b = Blobs::new();
    let off = b.add(&[0u8; 16]);
    v1_file(&b, &encode(&manifest("1.2.0", [("w", dense("f32", &[4], off, 16))])))
}

#[test]
fn a_truncated_file_says_its_footer_is_missing() {
    let f = good();
    for cut in [17, 64, f.len() / 2, f.len() - 1] {
        let e = File::parse(&f[..cut]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BadMagic, "{cut}");
        let msg = e.to_string();
        assert!(msg.starts_with("footer missing"), "{cut}: {msg}");
        assert!(msg.contains("ZTEN1000") && msg.contains("truncated"), "{cut}: {msg}");
        assert!(!msg.contains("not a zTensor file"), "{cut}: {msg}");
    }
}

#[test]
fn a_foreign_file_is_still_not_a_ztensor_file() {
    let mut f = good();
    f[..8].copy_from_slice(b"PK\x03\x04\0\0\0\0");
    assert!(File::parse(&f).unwrap_err().to_string().starts_with("bad magic: not a zTensor file"));
}

#[test]
fn unknown_dtype_and_encoding_name_the_value() {
    let mut b = Blobs::new();
    let off = b.add(&[0u8; 16]);
    let f = v1_file(&b, &encode(&manifest("1.2.0", [("w", dense("f31", &[4], off, 16))])));
    let e = File::parse(&f).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::UnknownDType);
    assert_eq!(e.value().unwrap().as_str(), "f31");
    assert!(e.to_string().starts_with("unknown dtype \"f31\" (object \"w\", component \"data\""), "{e}");

    let c = comp_with("f32", off, 16, [("encoding", text("lz4"))]);
    let f = v1_file(&b, &encode(&manifest("1.2.0", [("w", obj(&[4], "dense", [("data", c)]))])));
    let e = File::parse(&f).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::UnknownEncoding);
    assert!(e.to_string().starts_with("unknown encoding \"lz4\" (expected raw or zstd)"), "{e}");

    // v0.1 names its dtypes differently; the message quotes what the file says.
    let f = v0_file(&b, &encode(&arr([v0_tensor("t", "float31", &[4], off, 16)])));
    let e = File::parse(&f).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::UnknownDType);
    assert!(e.to_string().starts_with("unknown dtype \"float31\""), "{e}");
}
