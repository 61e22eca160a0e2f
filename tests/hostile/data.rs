//! Where the data is: placement, overlap, shapes and lengths.

use super::*;

// ============================================================== placement

#[test]
fn misaligned_offset() {
    let mut b = Blobs::new();
    b.add_len(200);
    for off in [8u64, 16, 65, 72, 100, 127] {
        let o = dense("u8", &[4], off, 4);
        let e = reject_kind(
            &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
            ErrorKind::Misaligned { offset: off },
        );
        assert_loc(&e, Some("w"), Some("data"));
    }
    // Zero-length blobs must be aligned too.
    let o = dense("u8", &[0], 72, 0);
    reject_kind(
        &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
        ErrorKind::Misaligned { offset: 72 },
    );
}

#[test]
fn blob_overlapping_header() {
    let mut b = Blobs::new();
    b.add_len(16);
    let limit = b.end();
    for (off, len) in [(0u64, 8u64), (0, 16), (0, 0)] {
        let o = dense("u8", &[len], off, len);
        let e = reject_kind(
            &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
            ErrorKind::OutOfBounds {
                offset: off,
                length: len,
                limit,
            },
        );
        assert_loc(&e, Some("w"), Some("data"));
    }
}

#[test]
fn blob_reaching_into_manifest() {
    let mut b = Blobs::new();
    let off = b.add_len(16);
    let limit = b.end();
    assert_eq!(limit, 80);
    for len in [17u64, 100, 1 << 20] {
        let o = dense("u8", &[len], off, len);
        let f = v1_file(&b, &encode(&manifest("1.2.0", [("w", o)])));
        let e = reject_kind(
            &f,
            ErrorKind::OutOfBounds {
                offset: off,
                length: len,
                limit,
            },
        );
        assert_loc(&e, Some("w"), Some("data"));
    }
    // A blob entirely past the manifest / the end of the file.
    for off in [128u64, 1 << 40] {
        let o = dense("u8", &[4], off, 4);
        reject_kind(
            &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
            ErrorKind::OutOfBounds {
                offset: off,
                length: 4,
                limit,
            },
        );
    }
    // A zero-length blob well past the manifest start.
    let o = dense("u8", &[0], 192, 0);
    reject_kind(
        &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
        ErrorKind::OutOfBounds {
            offset: 192,
            length: 0,
            limit,
        },
    );
}

/// NOTES.md item 1: a zero-length blob sits at or before the manifest start
/// (`offset + length <= manifest_start` always holds for reference files);
/// one pointing past the manifest start is outside the data region
/// (DESIGN: "blobs live strictly between the header and the manifest").
#[test]
fn zero_length_blob_past_unaligned_manifest_start() {
    let mut b = Blobs::new();
    b.add_len(16);
    assert_eq!(b.end(), 80);
    let o = dense("u8", &[0], 128, 0);
    reject_kind(
        &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
        ErrorKind::OutOfBounds {
            offset: 128,
            length: 0,
            limit: 80,
        },
    );
}

#[test]
fn offset_plus_length_overflows() {
    let b = blobs16();
    let limit = b.end();
    for (off, len) in [
        (u64::MAX - 63, 64u64),
        (u64::MAX - 63, u64::MAX),
        (64, u64::MAX),
        (!63u64, 1 << 63),
    ] {
        let o = obj(&[len], "x_fmt", [("data", comp("u8", off, len))]);
        let e = reject_kind(
            &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
            ErrorKind::OutOfBounds {
                offset: off,
                length: len,
                limit,
            },
        );
        assert_loc(&e, Some("w"), Some("data"));
    }
}

// ============================================================== overlap

#[track_caller]
fn assert_overlap(f: &[u8], spans: &[(&str, u64, u64)]) {
    let e = reject_match!(f, ErrorKind::Overlap { .. });
    let ErrorKind::Overlap { offset, length } = e.kind() else {
        unreachable!()
    };
    let hit = spans.iter().find(|s| (s.1, s.2) == (offset, length));
    let (name, ..) =
        hit.unwrap_or_else(|| panic!("overlap reported for a blob that is not involved: {e}"));
    assert_loc(&e, Some(name), Some("data"));
}

#[test]
fn partial_overlap_ascending_order() {
    // a = [64, 192), b = [128, 192)
    assert_overlap(
        &two_blobs(64, 128, 128, 64, 128),
        &[("a", 64, 128), ("b", 128, 64)],
    );
    // a = [64, 129), b = [128, 256)
    assert_overlap(
        &two_blobs(64, 65, 128, 128, 192),
        &[("a", 64, 65), ("b", 128, 128)],
    );
}

#[test]
fn partial_overlap_descending_order() {
    // a = [128, 256), b = [64, 192): b comes first in the file.
    assert_overlap(
        &two_blobs(128, 128, 64, 128, 192),
        &[("a", 128, 128), ("b", 64, 128)],
    );
    // Containment, larger one listed second: a = [128, 192), b = [64, 320).
    assert_overlap(
        &two_blobs(128, 64, 64, 256, 256),
        &[("a", 128, 64), ("b", 64, 256)],
    );
}

#[test]
fn overlap_containment_and_same_start() {
    // a = [64, 320) contains b = [128, 192).
    assert_overlap(
        &two_blobs(64, 256, 128, 64, 256),
        &[("a", 64, 256), ("b", 128, 64)],
    );
    // Same start, different lengths.
    assert_overlap(
        &two_blobs(64, 128, 64, 64, 128),
        &[("a", 64, 128), ("b", 64, 64)],
    );
    assert_overlap(
        &two_blobs(64, 64, 64, 128, 128),
        &[("a", 64, 64), ("b", 64, 128)],
    );
}

#[test]
fn overlap_among_many_blobs_and_within_one_object() {
    // Ten ascending blobs; the last object's blob overlaps the fourth.
    let mut b = Blobs::new();
    let offs: Vec<u64> = (0..10).map(|_| b.add_len(40)).collect();
    let mut objs: Vec<(String, Value)> = offs
        .iter()
        .enumerate()
        .map(|(i, &o)| (format!("o{i}"), dense("u8", &[40], o, 40)))
        .collect();
    // identical to o3: weight tying, fine...
    objs.push(("z".into(), dense("u8", &[40], offs[3], 40)));
    let m = map([
        ("version", text("1.2.0")),
        (
            "objects",
            map(objs.iter().map(|(k, v)| (k.as_str(), v.clone()))),
        ),
    ]);
    accept(&v1_file(&b, &encode(&m)));
    // ... but shifted by nothing and one byte longer is not.
    objs.last_mut().unwrap().1 = dense("u8", &[41], offs[3], 41);
    let m = map([
        ("version", text("1.2.0")),
        (
            "objects",
            map(objs.iter().map(|(k, v)| (k.as_str(), v.clone()))),
        ),
    ]);
    assert_overlap(
        &v1_file(&b, &encode(&m)),
        &[("o3", offs[3], 40), ("z", offs[3], 41)],
    );
    // Two components of one object (unknown format).
    let mut b = Blobs::new();
    b.add_len(128);
    let o = obj(
        &[1],
        "x_fmt",
        [("p", comp("u8", 64, 128)), ("q", comp("u8", 128, 16))],
    );
    let e = reject_match!(
        v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
        ErrorKind::Overlap { .. }
    );
    assert_eq!(e.object().map(|n| n.as_str()), Some("w"));
    assert!(e.role().is_some());
}

#[test]
fn weight_tying_and_zero_length_sharing_are_accepted() {
    // Identical ranges, adjacent in the manifest.
    accept(&two_blobs(64, 128, 64, 128, 128));
    // Identical ranges, not adjacent, not ascending: a, c tied; b before them.
    let mut b = Blobs::new();
    let (x, y) = (b.add_len(64), b.add_len(64));
    let m = manifest(
        "1.2.0",
        [
            ("a", dense("u8", &[64], y, 64)),
            ("b", dense("u8", &[64], x, 64)),
            ("c", dense("u8", &[64], y, 64)),
        ],
    );
    let f = v1_file(&b, &encode(&m));
    let file = accept(&f);
    assert_eq!(
        file.require("a")
            .unwrap()
            .data()
            .unwrap()
            .stored_bytes()
            .unwrap(),
        file.require("c")
            .unwrap()
            .data()
            .unwrap()
            .stored_bytes()
            .unwrap()
    );
    // Zero-length blobs at another blob's offset, and inside another blob.
    let mut b = Blobs::new();
    let (x, y) = (b.add_len(128), b.add_len(64));
    let m = manifest(
        "1.2.0",
        [
            ("a", dense("u8", &[128], x, 128)),
            ("b", dense("f32", &[0], x, 0)),
            ("c", dense("u8", &[64], y, 64)),
            ("d", dense("i16", &[3, 0], x + 64, 0)),
            ("e", dense("u8", &[0], y, 0)),
        ],
    );
    accept(&v1_file(&b, &encode(&m)));
    // Touching blobs.
    accept(&two_blobs(64, 64, 128, 64, 128));
    accept(&two_blobs(128, 64, 64, 64, 128));
}

// ============================================================== shapes and lengths

#[test]
fn shape_product_overflow() {
    let b = blobs16();
    for dims in [&[1u64 << 32, 1 << 32][..], &[u64::MAX, 2], &[5, 1 << 62, 1]] {
        let o = obj(dims, "dense", [("data", comp("u8", 64, 16))]);
        let e = reject_kind(
            &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
            ErrorKind::ShapeOverflow,
        );
        assert_loc(&e, Some("w"), None);
    }
    // numel fits, numel × width does not.
    let o = obj(&[1 << 61], "dense", [("data", comp("f64", 64, 16))]);
    let e = reject_kind(
        &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
        ErrorKind::ShapeOverflow,
    );
    assert_eq!(e.object().map(|n| n.as_str()), Some("w"));
    // numel × width fits, × 2 for complex does not.
    let o = obj(
        &[1 << 60],
        "dense",
        [(
            "data",
            comp_with("f64", 64, 16, [("type", text("complex128"))]),
        )],
    );
    reject_kind(
        &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
        ErrorKind::ShapeOverflow,
    );
    // v0.1
    let f = v0_one(|t| set(t, "shape", shape(&[1 << 40, 1 << 40])));
    reject_kind(&f, ErrorKind::ShapeOverflow);
}

#[test]
fn dense_length_mismatch() {
    for (dims, dtype, len, expected) in [
        (&[4u64][..], "f32", 12u64, 16u64),
        (&[2, 2], "f32", 20, 16),
        (&[], "f64", 0, 8),
        (&[0], "f32", 4, 0),
        (&[3, 0], "i16", 2, 0),
        (&[5], "bool", 4, 5),
    ] {
        let mut b = Blobs::new();
        let off = b.add_len(len as usize);
        let o = obj(dims, "dense", [("data", comp(dtype, off, len))]);
        let e = reject_kind(
            &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
            ErrorKind::LengthMismatch {
                expected,
                actual: len,
            },
        );
        assert_loc(&e, Some("w"), Some("data"));
    }
    // complex64 needs × 2: 3 elements are 24 bytes, not 12.
    let mut b = Blobs::new();
    let off = b.add_len(24);
    let c = |len| {
        obj(
            &[3],
            "dense",
            [(
                "data",
                comp_with("f32", off, len, [("type", text("complex64"))]),
            )],
        )
    };
    reject_kind(
        &v1_file(&b, &encode(&manifest("1.2.0", [("c", c(12))]))),
        ErrorKind::LengthMismatch {
            expected: 24,
            actual: 12,
        },
    );
    let f = v1_file(&b, &encode(&manifest("1.2.0", [("c", c(24))])));
    let file = accept(&f);
    assert_eq!(
        file.require("c").unwrap().data().unwrap().logical_type(),
        Some(LogicalType::Complex64)
    );
    // v0.1
    let e = reject_kind(
        &v0_one(|t| set(t, "size", uint(12))),
        ErrorKind::LengthMismatch {
            expected: 16,
            actual: 12,
        },
    );
    assert_loc(&e, Some("t"), Some("data"));
}

#[test]
fn partial_element_in_unknown_format() {
    let mut b = Blobs::new();
    let off = b.add_len(6);
    for (dtype, len, width) in [("f32", 6u64, 4u64), ("f64", 4, 8), ("u16", 5, 2)] {
        let o = obj(&[1], "block_sparse_x", [("blocks", comp(dtype, off, len))]);
        let e = reject_kind(
            &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
            ErrorKind::PartialElement { length: len, width },
        );
        assert_loc(&e, Some("w"), Some("blocks"));
    }
}
