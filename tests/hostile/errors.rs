//! Running out of scratch, and how errors display.

use super::*;

// ============================================================== scratch

/// Running out of caller scratch is an error, never a silently skipped check.
#[test]
fn tiny_scratch_never_skips_a_check() {
    // Non-ascending, partially overlapping blobs: the slow overlap path needs scratch.
    let f = two_blobs(128, 128, 64, 128, 192);
    for n in [0usize, 1] {
        let mut scratch = vec![[0u64; 2]; n];
        let e = File::parse_with_scratch(&f, &mut scratch).unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::Overlap { .. } | ErrorKind::ScratchTooSmall { .. }
            ),
            "{e}"
        );
    }
    // Unknown keys duplicated in a component.
    let f = dense_file("1.2.0", |o| push(data(o), [("n", uint(0)), ("n", uint(1))]));
    let mut scratch = vec![[0u64; 2]; 1];
    let e = File::parse_with_scratch(&f, &mut scratch).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::DuplicateKey | ErrorKind::ScratchTooSmall { .. }
        ),
        "{e}"
    );
}

// ============================================================== Display

#[test]
fn display_is_one_line_and_names_the_object() {
    let name = "layer.0.weight";
    let mut b = Blobs::new();
    let off = b.add_len(16);
    let files = [
        v1_file(
            &b,
            &encode(&manifest(
                "1.2.0",
                [(name, dense("f32", &[4], off + 8, 16))],
            )),
        ),
        v1_file(
            &b,
            &encode(&manifest("1.2.0", [(name, dense("f32", &[5], off, 16))])),
        ),
        v1_file(
            &b,
            &encode(&manifest(
                "1.2.0",
                [
                    (name, dense("f32", &[4], off, 16)),
                    (name, dense("f32", &[4], off, 16)),
                ],
            )),
        ),
        v1_file(
            &b,
            &encode(&manifest(
                "1.2.0",
                [(name, obj(&[4], "dense", [("x", comp("f32", off, 16))]))],
            )),
        ),
        v1_file(
            &b,
            &encode(&manifest("1.2.0", [(name, dense("f128", &[4], off, 16))])),
        ),
        v1_file(
            &b,
            &encode(&manifest("1.2.0", [(name, map([("shape", shape(&[4]))]))])),
        ),
    ];
    for f in &files {
        let e = reject(f);
        let s = e.to_string();
        assert!(!s.contains('\n') && !s.contains('\r'), "{s:?}");
        assert!(s.contains("\"layer.0.weight\""), "{s:?}");
        assert!(!format!("{e:?}").contains('\n'));
    }
    let s = reject(&files[0]).to_string();
    assert!(s.contains("offset 72") && s.contains("\"data\""), "{s}");
    // A long name is cut, and says so.
    let long = "n".repeat(200);
    let e = reject(&v1_file(
        &b,
        &encode(&manifest(
            "1.2.0",
            [(long.as_str(), dense("f32", &[5], off, 16))],
        )),
    ));
    assert!(e.object().unwrap().is_truncated());
    assert!(e.to_string().contains('…'));
}
