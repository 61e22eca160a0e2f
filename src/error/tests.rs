use super::*;
extern crate alloc;
use alloc::string::ToString;

#[cfg(feature = "error-names")]
#[test]
fn display_is_one_line_with_location() {
    let e = Error::at(ErrorKind::Misaligned { offset: 65 }, 120)
        .in_object("layer.0.weight")
        .in_component("data");
    let s = e.to_string();
    assert_eq!(
        s,
        "offset 65 is not a multiple of 64 (object \"layer.0.weight\", component \"data\", manifest byte 120)"
    );
    assert!(!s.contains('\n'));
}

#[test]
fn long_names_truncate_on_char_boundary() {
    let long = "é".repeat(100);
    let n = Name::new(&long);
    assert!(n.is_truncated());
    assert!(n.as_str().len() <= NAME_CAP);
    assert!(n.as_str().chars().all(|c| c == 'é'));
}

#[cfg(feature = "error-names")]
#[test]
fn messages_name_the_offending_value() {
    let e = Error::at(ErrorKind::UnknownDType, 7).with_value("f31").in_object("w");
    assert_eq!(e.to_string(), "unknown dtype \"f31\" (object \"w\", manifest byte 7)");
    assert_eq!(e.value().unwrap().as_str(), "f31");
    let e = Error::new(ErrorKind::UnknownEncoding).with_value("lz4");
    assert_eq!(e.to_string(), "unknown encoding \"lz4\" (expected raw or zstd)");
    assert_eq!(Error::new(ErrorKind::UnknownDType).to_string(), "unknown dtype");
}

#[test]
fn offsets_are_kept_and_first_wins() {
    let e = Error::at(ErrorKind::CborEof, 120).or_at(7);
    assert_eq!(e.manifest_offset(), Some(120));
    assert_eq!(Error::new(ErrorKind::CborEof).or_at(7).manifest_offset(), Some(7));
    assert_eq!(Error::new(ErrorKind::CborEof).manifest_offset(), None);
    assert_eq!(Error::at(ErrorKind::CborEof, (1 << 30) + 5).manifest_offset(), Some((1 << 30) + 5));
}

#[cfg(not(feature = "error-names"))]
#[test]
fn no_names_are_kept_with_no_error_names() {
    let e = Error::at(ErrorKind::UnknownDType, 7).with_value("f31").in_object("w").in_component("data");
    assert!(e.object().is_none() && e.role().is_none() && e.value().is_none());
    assert_eq!(e.to_string(), "unknown dtype (manifest byte 7)");
}

#[test]
fn a_missing_footer_is_not_called_bad_magic() {
    use crate::container::truncated;
    use crate::types::Layout;
    let e = truncated(Layout::V1, 100);
    assert_eq!(e.kind(), ErrorKind::BadMagic);
    assert!(e.to_string().starts_with("truncated v1.x file"), "{e}");
    assert!(e.to_string().contains("100 bytes") && e.to_string().contains("16-byte footer"), "{e}");
    assert!(!e.to_string().contains("not a zTensor file"));
    let e = truncated(Layout::V2, 47);
    assert_eq!(e.kind(), ErrorKind::FileTooSmall { len: 47 });
    assert!(e.to_string().starts_with("truncated v2 file") && e.to_string().contains("40-byte footer"), "{e}");
}

#[cfg(feature = "error-names")]
#[test]
fn first_location_wins() {
    let e = Error::new(ErrorKind::NotFound).in_object("a").in_object("b");
    assert_eq!(e.object().unwrap().as_str(), "a");
}
