//! Format v2: every hand-made file of `tests/fixtures/v2/hostile.json`
//! through the public [`File`] API, each refused with the specific
//! [`ErrorKind`] its rule maps to (at open, or by `verify` for data rules),
//! and the valid ones accepted. Runs in the no-alloc build too.

use std::fs;
use ztensor::verify::Options;
use ztensor::{ErrorKind, File};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/v2");

/// Whether `k` is the crate kind for the v2 rule named `rule` (the names of
/// `hostile.json`, which are the v2 reader's own).
fn is(rule: &str, k: ErrorKind) -> bool {
    use ErrorKind as E;
    match rule {
        "TooShort" => matches!(k, E::FileTooSmall { .. }),
        "BadMagic" => k == E::BadMagic,
        "UnsupportedVersion" => matches!(k, E::UnsupportedVersion { major } if major != 2),
        "ManifestTooLarge" => matches!(k, E::ManifestTooLarge { size } if size > 1 << 30),
        "ManifestOutOfBounds" => matches!(k, E::ManifestOutOfBounds { .. }),
        "BadDataShardFooter" => k == E::BadDataShardFooter,
        "ManifestHashMismatch" => k == E::ManifestHashMismatch,
        "CborTruncated" => k == E::CborEof,
        "CborInvalid" => k == E::CborInvalid,
        "CborNonShortest" => matches!(k, E::NotDeterministic { what } if what.contains("shortest")),
        "CborIndefinite" => matches!(k, E::NotDeterministic { what } if what.contains("indefinite")),
        "CborTag" => matches!(k, E::NotDeterministic { what } if what.contains("tag")),
        "CborSimple" => matches!(k, E::NotDeterministic { what } if what.contains("simple")),
        "CborNonCanonicalFloat" => matches!(k, E::NotDeterministic { what } if what.contains("float")),
        "CborUnsortedKeys" => matches!(k, E::NotDeterministic { what } if what.contains("order")),
        "CborDuplicateKey" => k == E::DuplicateKey,
        "CborTrailingBytes" => matches!(k, E::TrailingBytes { count } if count > 0),
        "CborTooDeep" => k == E::TooDeep,
        "CborInvalidUtf8" => k == E::CborInvalidUtf8,
        "WrongType" => matches!(k, E::WrongType { .. }),
        "MissingField" => matches!(k, E::MissingField { .. }),
        "BadName" => k == E::BadName,
        "EmptyParts" => k == E::EmptyParts,
        "RankTooLarge" => k == E::RankTooLarge,
        "ShapeOverflow" => k == E::ShapeOverflow,
        "UnknownDtype" => k == E::UnknownDType,
        "BlobNotPair" => matches!(k, E::WrongType { field: "blob", .. }),
        "BlobMisaligned" => k == E::BlobMisaligned,
        "BlobBelowFloor" => k == E::BlobBelowFloor,
        "BlobOutOfBounds" => k == E::BlobOutOfBounds,
        "BlobOverlap" => k == E::BlobOverlap,
        "EncodingLengthPair" => k == E::EncodingLengthPair,
        "BadDigest" => k == E::BadDigest,
        "UnknownShard" => k == E::UnknownShard,
        "BadShardName" => k == E::BadShardName,
        "BadShardSize" => k == E::BadShardSize,
        "TypeDtypeMismatch" => k == E::LogicalTypeDtype,
        "LayoutParts" => matches!(k, E::LayoutParts { .. }),
        "LayoutPartType" => k == E::LayoutPartType,
        "LayoutRank" => k == E::BadShape,
        "LayoutAttribute" => matches!(k, E::LayoutAttribute { .. }),
        "SizeMismatch" => k == E::SizeMismatch,
        "BoolValue" => matches!(k, E::BadData { what } if what.contains("bool")),
        "F4OddNibble" => matches!(k, E::BadData { what } if what.contains("f4_e2m1")),
        "CsrIndptr" => matches!(k, E::BadData { what: "CSR indptr" }),
        "CsrIndices" => matches!(k, E::BadData { what: "CSR column indices" }),
        "CooOutOfRange" => matches!(k, E::BadData { what } if what.contains("out of range")),
        "CooDuplicate" => matches!(k, E::BadData { what } if what.contains("duplicate")),
        "Seekable" => matches!(k, E::Seekable { .. }),
        "DecodedLength" => k == E::DecodedLength,
        "DigestMismatch" => k == E::DigestMismatch,
        other => panic!("no crate kind for v2 rule {other}"),
    }
}

/// Seekable parts decode only with `alloc`: without it, their verification
/// says so instead of naming the rule.
fn needs_alloc(name: &str) -> bool {
    name.starts_with("z_")
}

#[test]
fn every_v2_rule_through_file() {
    let table: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(format!("{DIR}/hostile.json")).unwrap()).unwrap();
    let files = table["files"].as_object().unwrap();
    assert!(files.len() > 200);
    let mut checked = 0;
    for (name, rec) in files {
        let bytes = fs::read(format!("{DIR}/hostile/{name}")).unwrap();
        let want = rec["error"].as_str().unwrap();
        let opened = File::parse(&bytes);
        match (rec["stage"].as_str().unwrap(), want) {
            ("open", "ok") => {
                let f = opened.unwrap_or_else(|e| panic!("{name}: refused ({e})"));
                assert_eq!(f.version().major, 2, "{name}");
            }
            ("open", rule) => {
                let e = opened.err().unwrap_or_else(|| panic!("{name}: accepted, want {rule}"));
                assert!(is(rule, e.kind()), "{name}: {:?} ({e}) is not {rule}", e.kind());
            }
            ("verify", rule) => {
                let f = opened.unwrap_or_else(|e| panic!("{name}: refused at open ({e})"));
                let report = f.verify_with(Options::ALL, |_| {});
                if needs_alloc(name) && !cfg!(feature = "alloc") {
                    let e = report.first_problem.unwrap_or_else(|| panic!("{name}: verified without a decoder"));
                    assert!(matches!(e.kind(), ErrorKind::Unsupported { .. }), "{name}: {e}");
                } else if rule == "ok" {
                    assert!(report.is_ok(), "{name}: {:?}", report.first_problem);
                } else {
                    let e = report.first_problem.unwrap_or_else(|| panic!("{name}: verified, want {rule}"));
                    assert!(is(rule, e.kind()), "{name}: {:?} ({e}) is not {rule}", e.kind());
                    assert_eq!(e.object().map(|o| o.as_str()), rec["object"].as_str(), "{name}");
                }
            }
            (stage, _) => panic!("{name}: stage {stage}"),
        }
        checked += 1;
    }
    assert_eq!(checked, files.len());
}

/// Appendix A's byte rules hold for reads by position too, which read a raw
/// part straight into the caller's buffer and check it there.
#[test]
#[cfg(feature = "std")]
fn byte_rules_hold_for_positional_reads() {
    use ztensor::fs::{Mode, Reader};
    for (name, what) in [
        ("t_bool_value.zt", "bool"),
        ("t_f4_odd_nibble.zt", "f4_e2m1"),
    ] {
        for mode in [Mode::Mmap, Mode::Positional] {
            let r = Reader::open_with(format!("{DIR}/hostile/{name}"), mode).unwrap();
            let c = r.file().get("w").unwrap().components().next().unwrap();
            let mut out = vec![0u8; c.length() as usize];
            let e = r.read_into(&c, &mut out).unwrap_err();
            assert!(e.to_string().contains(what), "{name} {mode:?}: {e}");
            assert!(r.to_vec(&c).is_err(), "{name} {mode:?}");
        }
    }
}
