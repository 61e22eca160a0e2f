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
        assert!(msg.starts_with("truncated v1.x file") && msg.contains("footer missing"), "{cut}: {msg}");
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
    assert!(e.to_string().starts_with("unknown dtype \"f31\" (v1.x file, object \"w\", component \"data\""), "{e}");

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

#[test]
fn a_truncated_v2_file_says_so_with_its_size() {
    let f = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/v2/valid/tied.zt"
    ))
    .unwrap();
    // Shorter than magic + footer (FileTooSmall), and long enough but cut
    // inside the data, the manifest or the footer (BadMagic): all "truncated".
    for cut in [8, 20, 47, 48, f.len() / 2, f.len() - 41, f.len() - 1] {
        let e = File::parse(&f[..cut]).unwrap_err();
        let want = if cut < 48 {
            ErrorKind::FileTooSmall { len: cut as u64 }
        } else {
            ErrorKind::BadMagic
        };
        assert_eq!(e.kind(), want, "{cut}");
        let msg = e.to_string();
        assert!(
            msg.starts_with("truncated v2 file") && msg.contains(&format!("{cut} bytes")),
            "{cut}: {msg}"
        );
        assert!(!msg.contains("not a zTensor file"), "{cut}: {msg}");
    }
    // The same through a positional reader, which reads only both ends.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("cut.zt");
    std::fs::write(&p, &f[..f.len() - 1]).unwrap();
    let e = ztensor::fs::Reader::open_with(&p, ztensor::fs::Mode::Positional)
        .err()
        .unwrap();
    assert!(e.to_string().starts_with("truncated v2 file"), "{e}");
}

#[test]
fn a_v1_file_shorter_than_its_footer_is_truncated() {
    let f = good();
    for cut in [8, 12, 16] {
        let e = File::parse(&f[..cut]).unwrap_err();
        assert_eq!(
            e.kind(),
            ErrorKind::FileTooSmall { len: cut as u64 },
            "{cut}"
        );
        assert!(
            e.to_string().starts_with("truncated v1.x file"),
            "{cut}: {e}"
        );
    }
}

#[test]
fn refusals_name_the_generation_once_it_is_known() {
    let mut b = Blobs::new();
    let off = b.add(&[0u8; 16]);
    let f = v1_file(&b, &encode(&manifest("1.2.0", [("w", dense("f31", &[4], off, 16))])));
    let e = File::parse(&f).unwrap_err();
    assert_eq!(e.layout(), Some(ztensor::Layout::V1));
    assert!(e.to_string().contains("(v1.x file, object \"w\""), "{e}");
    let v2 = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/v2/hostile/c_hash_mismatch.zt")).unwrap();
    let e = File::parse(&v2).unwrap_err();
    assert_eq!(e.layout(), Some(ztensor::Layout::V2));
    assert!(e.to_string().contains("(v2 file"), "{e}");
    // Before the container is read, there is no generation to name.
    let e = File::parse(b"PK\x03\x04 not a zTensor file at all").unwrap_err();
    assert_eq!(e.layout(), None);
    assert!(!e.to_string().contains(" file,") && !e.to_string().contains(" file)"), "{e}");
}

/// A digest mismatch whose algorithm is not attached says nothing of which
/// bytes were hashed: v1.2 digests cover the stored bytes, v2's the decoded
/// ones (issue 30: a v2 sha256 mismatch said "stored bytes are corrupt").
#[test]
fn a_bare_digest_mismatch_does_not_say_stored_bytes() {
    let msg = ztensor::Error::new(ErrorKind::DigestMismatch).to_string();
    assert!(msg.starts_with("digest mismatch") && !msg.contains("stored"), "{msg}");
}

#[test]
fn a_v2_refusal_names_its_object_and_part() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/v2/hostile/");
    // (file, kind, object, part): a part's field, a part's blob, an
    // object's layout rule (no part), a root rule (no object).
    let cases = [
        ("s_dtype_unknown.zt", ErrorKind::UnknownDType, Some("w"), Some("data")),
        ("s_blob_misaligned.zt", ErrorKind::BlobMisaligned, Some("w"), Some("data")),
        ("qg_bits_7.zt", ErrorKind::LayoutAttribute { key: "bits" }, Some("q"), None),
        ("s_no_objects.zt", ErrorKind::MissingField { field: "objects" }, None, None),
    ];
    for (name, kind, object, part) in cases {
        let f = std::fs::read(format!("{dir}{name}")).unwrap();
        for e in [File::parse(&f).unwrap_err(), File::parse_with_scratch(&f, &mut [[0; 2]; 64]).unwrap_err()] {
            assert_eq!(e.kind(), kind, "{name}: {e}");
            assert_eq!(e.object().map(|n| n.as_str()), object, "{name}: {e}");
            assert_eq!(e.role().map(|n| n.as_str()), part, "{name}: {e}");
            if let Some(o) = object {
                assert!(e.to_string().contains(&format!("object \"{o}\"")), "{name}: {e}");
            }
        }
    }
}
