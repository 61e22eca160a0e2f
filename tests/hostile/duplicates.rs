//! Duplicate keys (compared by content), object names and roles.

use super::*;

// ============================================================== duplicate keys

#[test]
fn duplicate_root_keys() {
    // "version" twice.
    let m = map([
        ("version", text("1.2.0")),
        ("objects", map([])),
        ("version", text("1.2.0")),
    ]);
    let mb = encode(&m);
    let e = reject_kind(&v1_manifest_only(&mb), ErrorKind::DuplicateKey);
    assert_eq!(
        e.manifest_offset(),
        Some(rfind(&mb, &ctext("version")) as u64)
    );
    // "objects" twice, "attributes" twice, an unknown key twice.
    for key in ["objects", "attributes", "x"] {
        let f = root_file(|m| {
            if key != "objects" {
                push(m, [(key, map([]))]);
            }
            push(m, [(key, map([]))]);
        });
        let e = reject_kind(&f, ErrorKind::DuplicateKey);
        assert_loc(&e, None, None);
        assert_eq!(
            e.manifest_offset(),
            Some(rfind(manifest_of(&f), &ctext(key)) as u64),
            "{key}"
        );
    }
    // Non-text keys twice.
    let f = root_file(|m| {
        if let Value::Map(e) = m {
            e.push((uint(7), uint(0)));
            e.push((uint(7), uint(1)));
        }
    });
    reject_kind(&f, ErrorKind::DuplicateKey);
}

#[test]
fn duplicate_root_attribute_keys() {
    let f = root_file(|m| {
        push(
            m,
            [(
                "attributes",
                map([("a", uint(1)), ("b", uint(2)), ("a", uint(3))]),
            )],
        )
    });
    let e = reject_kind(&f, ErrorKind::DuplicateKey);
    assert_eq!(
        e.manifest_offset(),
        Some(rfind(manifest_of(&f), &ctext("a")) as u64)
    );
}

#[test]
fn duplicate_object_keys() {
    for key in ["shape", "format", "components", "attributes", "x"] {
        let f = dense_file("1.2.0", |o| {
            let v = match key {
                "shape" => shape(&[4]),
                "format" => text("dense"),
                "components" => map([("data", comp("f32", 64, 16))]),
                _ => map([]),
            };
            if key == "attributes" || key == "x" {
                push(o, [(key, v.clone())]);
            }
            push(o, [(key, v)]);
        });
        let e = reject_kind(&f, ErrorKind::DuplicateKey);
        assert_loc(&e, Some("w"), None);
        assert_eq!(
            e.manifest_offset(),
            Some(rfind(manifest_of(&f), &ctext(key)) as u64),
            "{key}"
        );
    }
    // Integer keys.
    let f = dense_file("1.2.0", |o| {
        if let Value::Map(e) = o {
            e.push((int(-1), uint(0)));
            e.push((int(-1), uint(0)));
        }
    });
    let e = reject_kind(&f, ErrorKind::DuplicateKey);
    assert_loc(&e, Some("w"), None);
}

#[test]
fn duplicate_component_keys() {
    for (key, v) in [
        ("dtype", text("f32")),
        ("offset", uint(64)),
        ("length", uint(16)),
        ("encoding", text("raw")),
        ("type", null()),
        ("digest", null()),
        ("uncompressed_length", null()),
        ("note", text("x")),
    ] {
        let f = dense_file("1.2.0", |o| {
            if !matches!(key, "dtype" | "offset" | "length") {
                push(data(o), [(key, v.clone())]);
            }
            push(data(o), [(key, v)]);
        });
        let e = reject_kind(&f, ErrorKind::DuplicateKey);
        assert_loc(&e, Some("w"), Some("data"));
        assert_eq!(
            e.manifest_offset(),
            Some(rfind(manifest_of(&f), &ctext(key)) as u64),
            "{key}"
        );
    }
}

#[test]
fn duplicate_attribute_keys_nested() {
    // At the top of the object's attributes.
    let f = dense_file("1.2.0", |o| {
        push(
            o,
            [("attributes", map([("bits", uint(4)), ("bits", uint(8))]))],
        )
    });
    let e = reject_kind(&f, ErrorKind::DuplicateKey);
    assert_loc(&e, Some("w"), None);
    // In a nested map, after other keys (insertion order, like the writer's).
    let f = dense_file("1.2.0", |o| {
        push(
            o,
            [(
                "attributes",
                map([("n", map([("z", uint(1)), ("a", uint(2)), ("z", uint(3))]))]),
            )],
        )
    });
    let e = reject_kind(&f, ErrorKind::DuplicateKey);
    assert_loc(&e, Some("w"), None);
    assert_eq!(
        e.manifest_offset(),
        Some(rfind(manifest_of(&f), &ctext("z")) as u64)
    );
    // In a map inside an array inside a map.
    let f = dense_file("1.2.0", |o| {
        push(
            o,
            [(
                "attributes",
                map([("l", arr([uint(0), map([("k", uint(1)), ("k", uint(1))])]))]),
            )],
        )
    });
    reject_kind(&f, ErrorKind::DuplicateKey);
    // Same key in sibling maps is fine.
    let f = dense_file("1.2.0", |o| {
        push(
            o,
            [(
                "attributes",
                map([("p", map([("k", uint(1))])), ("q", map([("k", uint(1))]))]),
            )],
        )
    });
    accept(&f);
    // Many keys (more than a small linear scan handles), one duplicate.
    let mut entries: Vec<(String, Value)> =
        (0..40).map(|i| (format!("k{i:02}"), uint(i))).collect();
    entries.push(("k17".into(), uint(0)));
    let attrs = Value::Map(
        entries
            .into_iter()
            .map(|(k, v)| (Value::Text(k), v))
            .collect(),
    );
    let f = dense_file("1.2.0", |o| push(o, [("attributes", attrs)]));
    reject_kind(&f, ErrorKind::DuplicateKey);
    // In an indefinite-length map.
    let a = Cbor::new()
        .map_indef()
        .text("a")
        .uint(1)
        .text("b")
        .uint(2)
        .text("a")
        .uint(3)
        .brk()
        .build();
    reject_kind(&file_raw_attrs(&a), ErrorKind::DuplicateKey);
    // In a component's unknown field.
    let a = Cbor::new()
        .map(2)
        .text("a")
        .uint(1)
        .text("a")
        .uint(3)
        .build();
    let e = reject_kind(&file_raw_comp_field(&a), ErrorKind::DuplicateKey);
    assert_loc(&e, Some("w"), Some("data"));
    // In the root attributes, nested.
    let f = root_file(|m| {
        push(
            m,
            [(
                "attributes",
                map([("m", map([("x", null()), ("x", null())]))]),
            )],
        )
    });
    reject_kind(&f, ErrorKind::DuplicateKey);
}

/// The same key spelled with a non-minimal head, or as chunked text, is the
/// same CBOR data-model value (RFC 8949 §5.6): still a duplicate. Otherwise
/// two readers of one file disagree on an attribute's value.
#[test]
fn duplicate_attribute_keys_in_different_encodings() {
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "text key with a non-minimal head",
            Cbor::new()
                .map(2)
                .text("x")
                .uint(1)
                .raw(&[0x78, 0x01, b'x'])
                .uint(2)
                .build(),
        ),
        (
            "text key as chunked text",
            Cbor::new()
                .map(2)
                .text("x")
                .uint(1)
                .text_indef()
                .text("x")
                .brk()
                .uint(2)
                .build(),
        ),
        (
            "text key split into two chunks",
            Cbor::new()
                .map(2)
                .text("xy")
                .uint(1)
                .text_indef()
                .text("x")
                .text("y")
                .brk()
                .uint(2)
                .build(),
        ),
        (
            "integer key with a non-minimal head",
            Cbor::new()
                .map(2)
                .uint(1)
                .uint(1)
                .raw(&[0x18, 0x01])
                .uint(2)
                .build(),
        ),
        (
            "byte-string key as chunked bytes",
            Cbor::new()
                .map(2)
                .bytes(b"k")
                .uint(1)
                .bytes_indef()
                .bytes(b"k")
                .brk()
                .uint(2)
                .build(),
        ),
    ];
    let accepted: Vec<&str> = cases
        .iter()
        .filter(|(_, a)| File::parse(&file_raw_attrs(a)).is_ok())
        .map(|(what, _)| *what)
        .collect();
    assert!(
        accepted.is_empty(),
        "duplicate keys accepted: {accepted:#?}"
    );
    for (what, a) in &cases {
        let e = reject(&file_raw_attrs(a));
        assert_eq!(e.kind(), ErrorKind::DuplicateKey, "{what}: {e}");
    }
}

#[test]
fn duplicate_object_names_unsorted() {
    let mut b = Blobs::new();
    let (o1, o2, o3) = (b.add_len(16), b.add_len(16), b.add_len(16));
    let m = manifest(
        "1.2.0",
        [
            ("b", dense("f32", &[4], o1, 16)),
            ("a", dense("f32", &[4], o2, 16)),
            ("b", dense("f32", &[4], o3, 16)),
        ],
    );
    let e = reject_kind(&v1_file(&b, &encode(&m)), ErrorKind::DuplicateKey);
    assert_loc(&e, Some("b"), None);
    // Many objects, unsorted, one duplicate far from its twin.
    let mut b = Blobs::new();
    let mut objs: Vec<(String, Value)> = Vec::new();
    for i in (0..30).rev() {
        objs.push((format!("t{i}"), dense("u8", &[1], b.add_len(1), 1)));
    }
    objs.push(("t12".into(), dense("u8", &[1], b.add_len(1), 1)));
    let m = map([
        ("version", text("1.2.0")),
        (
            "objects",
            map(objs.iter().map(|(k, v)| (k.as_str(), v.clone()))),
        ),
    ]);
    let e = reject_kind(&v1_file(&b, &encode(&m)), ErrorKind::DuplicateKey);
    assert_loc(&e, Some("t12"), None);
}

#[test]
fn duplicate_object_names_adjacent() {
    let mut b = Blobs::new();
    let (o1, o2) = (b.add_len(16), b.add_len(16));
    let m = manifest(
        "1.2.0",
        [
            ("a", dense("f32", &[4], o1, 16)),
            ("a", dense("f32", &[4], o2, 16)),
        ],
    );
    let e = reject_kind(&v1_file(&b, &encode(&m)), ErrorKind::DuplicateKey);
    assert_loc(&e, Some("a"), None);
    // Sorted names with one adjacent duplicate in the middle.
    let mut b = Blobs::new();
    let names = ["a", "b", "c", "c", "d"];
    let objs: Vec<_> = names
        .iter()
        .map(|&n| (n, dense("u8", &[1], b.add_len(1), 1)))
        .collect();
    let e = reject_kind(
        &v1_file(&b, &encode(&manifest("1.2.0", objs))),
        ErrorKind::DuplicateKey,
    );
    assert_loc(&e, Some("c"), None);
    // Same name, same blob (a tied duplicate is still a duplicate).
    let m = manifest(
        "1.2.0",
        [
            ("a", dense("f32", &[4], 64, 16)),
            ("a", dense("f32", &[4], 64, 16)),
        ],
    );
    reject_kind(&v1_file(&blobs16(), &encode(&m)), ErrorKind::DuplicateKey);
}

#[test]
fn duplicate_component_roles() {
    let f = dense_file("1.2.0", |o| {
        push(at(o, "components"), [("data", comp("f32", 64, 16))])
    });
    let e = reject_kind(&f, ErrorKind::DuplicateKey);
    assert_eq!(e.object().map(|n| n.as_str()), Some("w"));
    assert_eq!(
        e.manifest_offset(),
        Some(rfind(manifest_of(&f), &ctext("data")) as u64)
    );
    // Unknown format, several roles, one repeated.
    let mut b = Blobs::new();
    let (x, y) = (b.add_len(4), b.add_len(4));
    let o = obj(
        &[4],
        "x_fmt",
        [
            ("p", comp("u8", x, 4)),
            ("q", comp("u8", y, 4)),
            ("p", comp("u8", x, 4)),
        ],
    );
    let e = reject_kind(
        &v1_file(&b, &encode(&manifest("1.2.0", [("w", o)]))),
        ErrorKind::DuplicateKey,
    );
    assert_eq!(e.object().map(|n| n.as_str()), Some("w"));
}

#[test]
fn v0_duplicate_names() {
    let mut b = Blobs::new();
    let (o1, o2) = (b.add_len(16), b.add_len(16));
    let m = arr([
        v0_tensor("t", "float32", &[4], o1, 16),
        v0_tensor("t", "float32", &[4], o2, 16),
    ]);
    let e = reject_kind(&v0_file(&b, &encode(&m)), ErrorKind::DuplicateKey);
    assert_loc(&e, Some("t"), None);
    // Duplicate keys inside a v0.1 tensor map.
    let f = v0_one(|t| push(t, [("name", text("u"))]));
    reject_kind(&f, ErrorKind::DuplicateKey);
    let f = v0_one(|t| push(t, [("layout", text("dense")), ("layout", text("dense"))]));
    reject_kind(&f, ErrorKind::DuplicateKey);
}
