//! The manifest schema: missing fields, wrong CBOR types, versions, names.

use super::*;

// ============================================================== missing fields

#[test]
fn missing_root_fields() {
    for field in ["version", "objects"] {
        let f = root_file(|m| remove(m, field));
        let e = reject_kind(&f, ErrorKind::MissingField { field });
        assert_loc(&e, None, None);
        assert_eq!(e.manifest_offset(), Some(0));
    }
}

#[test]
fn missing_object_fields() {
    for field in ["shape", "format", "components"] {
        let f = dense_file("1.2.0", |o| remove(o, field));
        let e = reject_kind(&f, ErrorKind::MissingField { field });
        assert_loc(&e, Some("w"), None);
    }
}

#[test]
fn missing_component_fields() {
    for field in ["dtype", "offset", "length"] {
        let f = dense_file("1.2.0", |o| remove(data(o), field));
        let e = reject_kind(&f, ErrorKind::MissingField { field });
        assert_loc(&e, Some("w"), Some("data"));
        assert!(e.manifest_offset().is_some());
    }
}

#[test]
fn v0_missing_fields() {
    let e = reject_kind(
        &v0_one(|t| remove(t, "name")),
        ErrorKind::MissingField { field: "name" },
    );
    assert_loc(&e, None, None);
    for field in ["offset", "size", "dtype", "shape", "encoding"] {
        let e = reject_kind(
            &v0_one(|t| remove(t, field)),
            ErrorKind::MissingField { field },
        );
        assert_loc(&e, Some("t"), None);
    }
}

// ============================================================== wrong CBOR types

#[test]
fn wrong_types() {
    type Edit = Box<dyn Fn(&mut Value)>;
    /// (field, expected, edit of the root map, object, role)
    type Case = (
        &'static str,
        &'static str,
        Edit,
        Option<&'static str>,
        Option<&'static str>,
    );
    let cases: Vec<Case> = vec![
        // (field, expected, edit of the root map, object, role)
        (
            "version",
            "a text string",
            Box::new(|m: &mut Value| set(m, "version", uint(1))),
            None,
            None,
        ),
        (
            "version",
            "a text string",
            Box::new(|m: &mut Value| set(m, "version", Value::Float(1.2))),
            None,
            None,
        ),
        (
            "objects",
            "a map",
            Box::new(|m: &mut Value| set(m, "objects", arr([]))),
            None,
            None,
        ),
        (
            "attributes",
            "a map",
            Box::new(|m: &mut Value| push(m, [("attributes", arr([]))])),
            None,
            None,
        ),
        (
            "attributes",
            "a map",
            Box::new(|m: &mut Value| push(m, [("attributes", text("x"))])),
            None,
            None,
        ),
        (
            "object",
            "a map",
            Box::new(|m: &mut Value| set(at(m, "objects"), "w", text("x"))),
            Some("w"),
            None,
        ),
        (
            "shape",
            "an array",
            Box::new(|m: &mut Value| set(at(at(m, "objects"), "w"), "shape", map([]))),
            Some("w"),
            None,
        ),
        (
            "shape",
            "an array",
            Box::new(|m: &mut Value| set(at(at(m, "objects"), "w"), "shape", uint(4))),
            Some("w"),
            None,
        ),
        (
            "shape",
            "an unsigned integer",
            Box::new(|m: &mut Value| set(at(at(m, "objects"), "w"), "shape", arr([int(-4)]))),
            Some("w"),
            None,
        ),
        (
            "shape",
            "an unsigned integer",
            Box::new(|m: &mut Value| set(at(at(m, "objects"), "w"), "shape", arr([text("4")]))),
            Some("w"),
            None,
        ),
        (
            "shape",
            "an unsigned integer",
            Box::new(|m: &mut Value| {
                set(at(at(m, "objects"), "w"), "shape", arr([Value::Float(4.0)]))
            }),
            Some("w"),
            None,
        ),
        (
            "format",
            "a text string",
            Box::new(|m: &mut Value| set(at(at(m, "objects"), "w"), "format", uint(0))),
            Some("w"),
            None,
        ),
        (
            "format",
            "a text string",
            Box::new(|m: &mut Value| set(at(at(m, "objects"), "w"), "format", null())),
            Some("w"),
            None,
        ),
        (
            "components",
            "a map",
            Box::new(|m: &mut Value| {
                set(
                    at(at(m, "objects"), "w"),
                    "components",
                    arr([comp("f32", 64, 16)]),
                )
            }),
            Some("w"),
            None,
        ),
        (
            "attributes",
            "a map",
            Box::new(|m: &mut Value| push(at(at(m, "objects"), "w"), [("attributes", arr([]))])),
            Some("w"),
            None,
        ),
        (
            "component",
            "a map",
            Box::new(|m: &mut Value| {
                set(at(at(at(m, "objects"), "w"), "components"), "data", uint(1))
            }),
            Some("w"),
            Some("data"),
        ),
        (
            "dtype",
            "a text string",
            Box::new(|m: &mut Value| set(data(at(at(m, "objects"), "w")), "dtype", uint(4))),
            Some("w"),
            Some("data"),
        ),
        (
            "dtype",
            "a text string",
            Box::new(|m: &mut Value| set(data(at(at(m, "objects"), "w")), "dtype", null())),
            Some("w"),
            Some("data"),
        ),
        (
            "offset",
            "an unsigned integer",
            Box::new(|m: &mut Value| set(data(at(at(m, "objects"), "w")), "offset", text("64"))),
            Some("w"),
            Some("data"),
        ),
        (
            "offset",
            "an unsigned integer",
            Box::new(|m: &mut Value| set(data(at(at(m, "objects"), "w")), "offset", int(-64))),
            Some("w"),
            Some("data"),
        ),
        (
            "offset",
            "an unsigned integer",
            Box::new(|m: &mut Value| set(data(at(at(m, "objects"), "w")), "offset", null())),
            Some("w"),
            Some("data"),
        ),
        (
            "length",
            "an unsigned integer",
            Box::new(|m: &mut Value| {
                set(
                    data(at(at(m, "objects"), "w")),
                    "length",
                    Value::Float(16.0),
                )
            }),
            Some("w"),
            Some("data"),
        ),
        (
            "uncompressed_length",
            "an unsigned integer",
            Box::new(|m: &mut Value| {
                push(
                    data(at(at(m, "objects"), "w")),
                    [("uncompressed_length", text("16"))],
                )
            }),
            Some("w"),
            Some("data"),
        ),
        (
            "encoding",
            "a text string",
            Box::new(|m: &mut Value| {
                push(data(at(at(m, "objects"), "w")), [("encoding", uint(0))])
            }),
            Some("w"),
            Some("data"),
        ),
        (
            "digest",
            "a text string",
            Box::new(|m: &mut Value| push(data(at(at(m, "objects"), "w")), [("digest", uint(0))])),
            Some("w"),
            Some("data"),
        ),
        (
            "type",
            "a text string",
            Box::new(|m: &mut Value| push(data(at(at(m, "objects"), "w")), [("type", arr([]))])),
            Some("w"),
            Some("data"),
        ),
    ];
    for (field, expected, edit, object, role) in cases {
        let f = root_file(|m| edit(m));
        let e = reject(&f);
        assert_eq!(e.kind(), ErrorKind::WrongType { field, expected }, "{e}");
        assert_loc(&e, object, role);
        assert!(e.manifest_offset().is_some(), "{e}");
    }
    // The root is not a map.
    let m = encode(&arr([text("1.2.0"), map([])]));
    let e = reject_match!(
        v1_manifest_only(&m),
        ErrorKind::WrongType {
            expected: "a map",
            ..
        }
    );
    assert_eq!(e.manifest_offset(), Some(0));
    // An object name that is not text.
    let e = reject_match!(
        file_raw_object_name(&[0x01]),
        ErrorKind::WrongType {
            expected: "a text string",
            ..
        }
    );
    assert_eq!(
        e.manifest_offset(),
        Some(find(manifest_of(&file_raw_object_name(&[0x01])), &[0xa1, 0x01]) as u64 + 1)
    );
    // A component role that is not text.
    let f = root_file(|m| {
        if let Value::Map(e) = at(at(at(m, "objects"), "w"), "components") {
            e.push((uint(1), comp("f32", 64, 16)));
        }
    });
    reject_match!(
        f,
        ErrorKind::WrongType {
            expected: "a text string",
            ..
        }
    );
}

#[test]
fn v0_wrong_types() {
    // The v0.1 manifest is an array, not a map.
    let m = encode(&map([("t", v0_tensor("t", "float32", &[4], 64, 16))]));
    reject_match!(
        v0_file(&blobs16(), &m),
        ErrorKind::WrongType {
            expected: "an array",
            ..
        }
    );
    // A tensor entry that is not a map.
    let m = encode(&arr([text("t")]));
    reject_match!(
        v0_file(&blobs16(), &m),
        ErrorKind::WrongType {
            expected: "a map",
            ..
        }
    );
    for (field, v, expected) in [
        ("name", uint(1), "a text string"),
        ("offset", text("64"), "an unsigned integer"),
        ("size", int(-16), "an unsigned integer"),
        ("dtype", uint(1), "a text string"),
        ("shape", uint(4), "an array"),
        ("encoding", null(), "a text string"),
        ("data_endianness", uint(0), "a text string"),
    ] {
        let e = reject(&v0_one(|t| set(t, field, v)));
        assert_eq!(e.kind(), ErrorKind::WrongType { field, expected }, "{e}");
    }
}

// ============================================================== versions

#[test]
fn bad_version() {
    for v in [
        "1",
        "x.y",
        "",
        "1.",
        ".1",
        "1.2.3.4",
        "v1.2",
        "1.2.0-rc1",
        " 1.2",
        "1.x",
        "-1.2",
        "１.２",
    ] {
        let f = root_file(|m| set(m, "version", text(v)));
        let e = reject_kind(&f, ErrorKind::BadVersion);
        assert_eq!(
            e.manifest_offset(),
            Some(find(manifest_of(&f), &ctext(v)) as u64),
            "{v:?}"
        );
    }
}

#[test]
fn unsupported_version() {
    for (v, major) in [
        ("2.0.0", 2),
        ("0.9", 0),
        ("0.1.0", 0),
        ("3.1", 3),
        ("10.0.0", 10),
    ] {
        let f = root_file(|m| set(m, "version", text(v)));
        reject_kind(&f, ErrorKind::UnsupportedVersion { major });
    }
}

#[test]
fn supported_versions_accepted() {
    for v in ["1.0", "1.0.0", "1.1.0", "1.2.0", "1.2", "1.3.0", "1.99.7"] {
        let f = root_file(|m| set(m, "version", text(v)));
        let file = match v.starts_with("1.0") || v.starts_with("1.1") {
            true => match legacy(&f) {
                Some(file) => file,
                None => continue,
            },
            false => accept(&f),
        };
        assert_eq!(file.version().major, 1);
    }
}

// ============================================================== names

#[test]
fn empty_names() {
    let m = manifest("1.2.0", [("", dense("f32", &[4], 64, 16))]);
    let mb = encode(&m);
    let e = reject_kind(&v1_file(&blobs16(), &mb), ErrorKind::EmptyName);
    assert_eq!(
        e.manifest_offset(),
        Some(find(&mb, &[0xa1, 0x60]) as u64 + 1)
    );
    // Empty among others.
    let mut b = Blobs::new();
    let (x, y) = (b.add_len(16), b.add_len(16));
    let m = manifest(
        "1.2.0",
        [
            ("a", dense("f32", &[4], x, 16)),
            ("", dense("f32", &[4], y, 16)),
        ],
    );
    reject_kind(&v1_file(&b, &encode(&m)), ErrorKind::EmptyName);
    // Empty role.
    let f = dense_file("1.2.0", |o| {
        push(at(o, "components"), [("", comp("u8", 64, 1))])
    });
    let e = reject_kind(&f, ErrorKind::EmptyName);
    assert_eq!(e.object().map(|n| n.as_str()), Some("w"));
    // v0.1
    reject_kind(&v0_one(|t| set(t, "name", text(""))), ErrorKind::EmptyName);
}
