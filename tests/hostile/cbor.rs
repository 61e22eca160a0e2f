//! CBOR well-formedness of the manifest.

use super::*;

// ============================================================== CBOR well-formedness

#[test]
fn cbor_eof() {
    // Root map whose last value is missing.
    let m = Cbor::new()
        .map(2)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .build();
    reject_kind(&v1_manifest_only(&m), ErrorKind::CborEof);
    // A uint head announcing 8 bytes, with 3 behind it.
    let m = Cbor::new()
        .map(3)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .map(0)
        .text("x")
        .raw(&[0x1b, 0, 0, 0])
        .build();
    reject_kind(&v1_manifest_only(&m), ErrorKind::CborEof);
    // The same in a known field (shape element).
    let m = Cbor::new()
        .map(2)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .map(1)
        .text("w")
        .map(1)
        .text("shape")
        .arr(1)
        .raw(&[0x1a, 0])
        .build();
    reject_kind(&v1_manifest_only(&m), ErrorKind::CborEof);
    // An indefinite root map with no break.
    let m = Cbor::new()
        .map_indef()
        .text("version")
        .text("1.2.0")
        .text("objects")
        .map(0)
        .build();
    reject_kind(&v1_manifest_only(&m), ErrorKind::CborEof);
    // An indefinite attribute array that never ends.
    reject_kind(
        &file_raw_root_field(&[0x9f, 0x01, 0x02]),
        ErrorKind::CborEof,
    );
    // A v0.1 manifest cut inside an item head.
    let m = Cbor::new()
        .arr(1)
        .map(1)
        .text("name")
        .raw(&[0x19, 0x01])
        .build();
    reject_kind(&v0_file(&Blobs::new(), &m), ErrorKind::CborEof);
}

#[test]
fn cbor_invalid_initial_bytes() {
    // Reserved additional information 28..30 in every major type, and
    // indefinite length where the major type has none (uint, nint, tag).
    let mut bad: Vec<u8> = Vec::new();
    for major in 0u8..8 {
        for ai in 28u8..=30 {
            bad.push(major << 5 | ai);
        }
    }
    bad.extend([0x1f, 0x3f, 0xdf]);
    for b in bad {
        // ... as a root field value (generic skip),
        reject_kind(
            &file_raw_root_field(&[b, 0, 0, 0, 0, 0, 0, 0, 0]),
            ErrorKind::CborInvalid,
        );
        // ... as an attribute value,
        reject_kind(
            &file_raw_attrs(&[0xa1, 0x61, b'a', b, 0, 0, 0, 0, 0, 0, 0, 0]),
            ErrorKind::CborInvalid,
        );
        // ... as the manifest's root item.
        reject_kind(
            &v1_manifest_only(&[b, 0, 0, 0, 0, 0, 0, 0, 0]),
            ErrorKind::CborInvalid,
        );
    }
    // In a known field: a shape element and an offset.
    let f = dense_file("1.2.0", |o| set(o, "shape", Value::Array(vec![])));
    let m = manifest_of(&f).to_vec();
    let at = find(&m, &ctext("shape")) + 6;
    assert_eq!(m[at], 0x80);
    let mut m2 = m.clone();
    m2.splice(at..at + 1, [0x81, 0x1c]);
    reject_kind(&v1_file(&blobs16(), &m2), ErrorKind::CborInvalid);
    // Two-byte simple values below 32 are not well-formed (RFC 8949 §3.3).
    reject_kind(
        &file_raw_attrs(&[0xa1, 0x61, b'a', 0xf8, 0x10]),
        ErrorKind::CborInvalid,
    );
}

#[test]
fn cbor_bad_indefinite() {
    // A stray break where a root key should be.
    let m = Cbor::new()
        .map(3)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .map(0)
        .brk()
        .uint(0)
        .build();
    reject_kind(&v1_manifest_only(&m), ErrorKind::CborBadIndefinite);
    // A break inside a definite array.
    reject_kind(
        &file_raw_attrs(&[0xa1, 0x61, b'a', 0x82, 0x01, 0xff]),
        ErrorKind::CborBadIndefinite,
    );
    // A break as a whole attribute value.
    reject_kind(
        &file_raw_attrs(&[0xa1, 0x61, b'a', 0xff]),
        ErrorKind::CborBadIndefinite,
    );
    // Indefinite text with a non-text chunk; with a nested indefinite chunk.
    reject_kind(
        &file_raw_attrs(&[0xa1, 0x61, b'a', 0x7f, 0x01, 0xff]),
        ErrorKind::CborBadIndefinite,
    );
    reject_kind(
        &file_raw_attrs(&[0xa1, 0x61, b'a', 0x7f, 0x7f, 0xff, 0xff]),
        ErrorKind::CborBadIndefinite,
    );
    // Indefinite bytes with a text chunk.
    reject_kind(
        &file_raw_attrs(&[0xa1, 0x61, b'a', 0x5f, 0x61, b'x', 0xff]),
        ErrorKind::CborBadIndefinite,
    );
    // Indefinite map closed after a key (odd number of items).
    reject_kind(
        &file_raw_attrs(&[0xbf, 0x61, b'a', 0xff]),
        ErrorKind::CborBadIndefinite,
    );
}

/// A break (`0xff`) outside an indefinite-length item is not well-formed
/// CBOR (RFC 8949 §3.2.1): where the format expects a typed item, the error
/// is still malformed CBOR, not "field has the wrong type".
#[test]
fn cbor_stray_break_where_a_typed_item_is_expected() {
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    // As the manifest's root item.
    cases.push(("v1 root".into(), v1_manifest_only(&[0xff])));
    cases.push(("v0.1 root".into(), v0_file(&Blobs::new(), &[0xff])));
    // As a known field's value.
    let f = dense_file("1.2.0", |_| {});
    let m = manifest_of(&f).to_vec();
    for key in [
        "version",
        "objects",
        "shape",
        "format",
        "components",
        "dtype",
        "offset",
        "length",
    ] {
        let k = ctext(key);
        let at = find(&m, &k) + k.len();
        let mut m2 = m[..at].to_vec();
        m2.push(0xff);
        cases.push((key.into(), v1_file(&blobs16(), &m2)));
    }
    // As an object name / role.
    cases.push(("object name".into(), file_raw_object_name(&[0xff])));
    let wrong: Vec<String> = cases
        .iter()
        .map(|(what, f)| (what, reject(f)))
        .filter(|(_, e)| e.kind() != ErrorKind::CborBadIndefinite)
        .map(|(what, e)| format!("{what}: got {:?}", e.kind()))
        .collect();
    assert!(
        wrong.is_empty(),
        "stray break not reported as CborBadIndefinite: {wrong:#?}"
    );
}

#[test]
fn cbor_invalid_utf8() {
    let bad: [&[u8]; 4] = [
        &[0xff, 0xfe],
        &[0xc0, 0x80],
        &[0xed, 0xa0, 0x80],
        &[b'a', 0xe2, 0x82],
    ];
    for b in bad {
        let t = Cbor::new().text_bytes(b).build();
        // Object name.
        let e = reject_kind(&file_raw_object_name(&t), ErrorKind::CborInvalidUtf8);
        assert!(e.manifest_offset().is_some());
        // Attribute value, attribute key, root unknown key, chunk of indefinite text.
        let mut a = vec![0xa1, 0x61, b'a'];
        a.extend(&t);
        reject_kind(&file_raw_attrs(&a), ErrorKind::CborInvalidUtf8);
        let mut a = vec![0xa1];
        a.extend(&t);
        a.push(0x00);
        reject_kind(&file_raw_attrs(&a), ErrorKind::CborInvalidUtf8);
        let mut a = vec![0xa1, 0x61, b'a', 0x7f, 0x61, b'o', 0x61, b'k'];
        a.extend(&t);
        a.push(0xff);
        reject_kind(&file_raw_attrs(&a), ErrorKind::CborInvalidUtf8);
    }
}

/// Text the format interprets (dtype, encoding, format, roles, unknown keys
/// of schema maps) is still a CBOR text string: invalid UTF-8 there is
/// malformed CBOR, not an unknown dtype / encoding.
#[test]
fn cbor_invalid_utf8_in_interpreted_strings() {
    let t = Cbor::new().text_bytes(&[0xff, 0xfe]).build();
    // A component map with `key: value` given raw.
    let comp_raw = |key: &[u8], val: &[u8]| {
        let mut c = Cbor::new();
        c.map(4).text("offset").uint(64).text("length").uint(16);
        if key != ctext("dtype").as_slice() {
            c.text("dtype").text("f32");
        } else {
            c.text("x").uint(0);
        }
        c.raw(key).raw(val).build()
    };
    let file_with_comp = |c: &[u8], role: &[u8]| {
        let m = Cbor::new()
            .map(2)
            .text("version")
            .text("1.2.0")
            .text("objects")
            .map(1)
            .text("w")
            .map(3)
            .text("shape")
            .value(&shape(&[4]))
            .text("format")
            .text("dense")
            .text("components")
            .map(1)
            .raw(role)
            .raw(c)
            .build();
        v1_file(&blobs16(), &m)
    };
    let data_role = ctext("data");
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    for (what, f) in [
        (
            "dtype",
            file_with_comp(&comp_raw(&ctext("dtype"), &t), &data_role),
        ),
        (
            "encoding",
            file_with_comp(&comp_raw(&ctext("encoding"), &t), &data_role),
        ),
        (
            "type",
            file_with_comp(&comp_raw(&ctext("type"), &t), &data_role),
        ),
        (
            "digest",
            file_with_comp(&comp_raw(&ctext("digest"), &t), &data_role),
        ),
        (
            "unknown component key",
            file_with_comp(&comp_raw(&t, &[0x00]), &data_role),
        ),
        ("role", file_with_comp(&comp_raw(&ctext("y"), &[0x00]), &t)),
    ] {
        cases.push((what.to_string(), f));
    }
    // format
    let m = Cbor::new()
        .map(2)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .map(1)
        .text("w")
        .map(3)
        .text("shape")
        .value(&shape(&[4]))
        .text("format")
        .raw(&t)
        .text("components")
        .value(&map([("data", comp("f32", 64, 16))]))
        .build();
    cases.push(("format".into(), v1_file(&blobs16(), &m)));
    // version
    let m = Cbor::new()
        .map(2)
        .text("version")
        .raw(&t)
        .text("objects")
        .map(0)
        .build();
    cases.push(("version".into(), v1_manifest_only(&m)));
    // v0.1 dtype and encoding
    for key in ["dtype", "encoding", "name"] {
        let mut tm = encode(&v0_tensor("t", "float32", &[4], 64, 16));
        let k = ctext(key);
        let at = find(&tm, &k) + k.len();
        let old_len = 1 + tm[at] as usize - 0x60;
        tm.splice(at..at + old_len, t.iter().copied());
        let mut m = vec![0x81];
        m.extend(tm);
        cases.push((format!("v0.1 {key}"), v0_file(&blobs16(), &m)));
    }
    let wrong: Vec<String> = cases
        .iter()
        .map(|(what, f)| (what, reject(f)))
        .filter(|(_, e)| e.kind() != ErrorKind::CborInvalidUtf8)
        .map(|(what, e)| format!("{what}: got {:?}", e.kind()))
        .collect();
    assert!(
        wrong.is_empty(),
        "invalid UTF-8 not reported as CborInvalidUtf8: {wrong:#?}"
    );
}

#[test]
fn cbor_length_too_large() {
    let big = 1u64 << 36;
    let claim = |major: u8, n: u64| Cbor::new().head8(major, n).build();
    // The shape array claims 2^36 dimensions.
    let m = Cbor::new()
        .map(2)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .map(1)
        .text("w")
        .map(1)
        .text("shape")
        .raw(&claim(4, big))
        .build();
    let e = reject_kind(
        &v1_manifest_only(&m),
        ErrorKind::LengthTooLarge { claimed: big },
    );
    assert_eq!(e.manifest_offset(), Some(find(&m, &claim(4, big)) as u64));
    // The root map, the objects map, an object name, attribute arrays, maps,
    // text and byte strings.
    reject_kind(
        &v1_manifest_only(&claim(5, big)),
        ErrorKind::LengthTooLarge { claimed: big },
    );
    let m = Cbor::new()
        .map(2)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .raw(&claim(5, big))
        .build();
    reject_kind(
        &v1_manifest_only(&m),
        ErrorKind::LengthTooLarge { claimed: big },
    );
    reject_kind(
        &file_raw_object_name(&claim(3, big)),
        ErrorKind::LengthTooLarge { claimed: big },
    );
    for major in [2u8, 3, 4, 5] {
        for n in [big, u64::MAX, 1 << 63] {
            let mut a = vec![0xa1, 0x61, b'a'];
            a.extend(claim(major, n));
            reject_kind(
                &file_raw_attrs(&a),
                ErrorKind::LengthTooLarge { claimed: n },
            );
            reject_kind(
                &file_raw_root_field(&claim(major, n)),
                ErrorKind::LengthTooLarge { claimed: n },
            );
        }
    }
    // A v0.1 manifest array claiming 2^36 tensors.
    reject_kind(
        &v0_file(&Blobs::new(), &claim(4, big)),
        ErrorKind::LengthTooLarge { claimed: big },
    );
}

/// 100k levels of nesting, wherever a value can stand, are refused where
/// the limit is crossed: the refusal's manifest offset lies within the first
/// few hundred bytes, so the single-pass reader stopped there instead of
/// walking the other ~100k levels. The work is bounded by the offset, not by
/// a clock (a timed assertion fails on slow or emulated hosts).
#[test]
fn cbor_too_deep_is_refused_early() {
    const N: usize = 100_000;
    // Every case below puts the nesting within this many bytes of the
    // manifest's start, and a level takes at most 3 bytes.
    const BOUND: u64 = 128 + 3 * (MAX_DEPTH as u64 + 1);
    let refused_early = |file: &[u8]| {
        let e = reject_kind(file, ErrorKind::TooDeep);
        let off = e.manifest_offset().expect("a TooDeep refusal has an offset");
        assert!(off < BOUND, "refused at manifest byte {off}, past {BOUND}: {e}");
        assert!(manifest_of(file).len() as u64 > 100 * BOUND, "the nesting is much longer than the bound");
    };
    for indefinite in [false, true] {
        let deep = Cbor::new().nested_arrays(N, indefinite).build();
        let mut attrs = vec![0xa1, 0x61, b'a'];
        attrs.extend(&deep);
        refused_early(&file_raw_attrs(&attrs));
        refused_early(&file_raw_root_field(&deep));
        refused_early(&file_raw_comp_field(&deep));
        // As the key of an unknown root field.
        let m = Cbor::new()
            .map(3)
            .text("version")
            .text("1.2.0")
            .text("objects")
            .map(0)
            .raw(&deep)
            .uint(0)
            .build();
        refused_early(&v1_manifest_only(&m));
        // In a custom field of a v0.1 tensor.
        let mut t = encode(&v0_tensor("t", "float32", &[4], 64, 16));
        t[0] += 1; // one more pair
        t.extend(ctext("deep"));
        t.extend(&deep);
        let mut m = vec![0x81];
        m.extend(t);
        refused_early(&v0_file(&blobs16(), &m));
    }
    // Deeply nested maps: {"a": {"a": ... }}.
    let mut deep = Vec::with_capacity(3 * N + 1);
    for _ in 0..N {
        deep.extend([0xa1, 0x61, b'a']);
    }
    deep.push(0x00);
    refused_early(&file_raw_root_field(&deep));
    // The deepest rejection is reported where the limit was crossed.
    let deep = Cbor::new().nested_arrays(N, false).build();
    let f = file_raw_root_field(&deep);
    let e = reject_kind(&f, ErrorKind::TooDeep);
    let mstart = find(manifest_of(&f), &[0x81, 0x81]) as u64;
    let off = e.manifest_offset().expect("offset");
    assert!(
        off > mstart && off < mstart + MAX_DEPTH as u64,
        "offset {off}"
    );
}

#[test]
fn cbor_trailing_bytes() {
    let m = encode(&manifest("1.2.0", [("w", dense("f32", &[4], 64, 16))]));
    for extra in [&[0x00][..], &[0xa0], &[0xff], &[0, 0, 0, 0, 0, 0, 0, 0]] {
        let mut m2 = m.clone();
        m2.extend_from_slice(extra);
        let e = reject_kind(
            &v1_file(&blobs16(), &m2),
            ErrorKind::TrailingBytes {
                count: extra.len() as u64,
            },
        );
        assert_eq!(e.manifest_offset(), Some(m.len() as u64));
    }
    // v0.1
    let mut m = encode(&arr([v0_tensor("t", "float32", &[4], 64, 16)]));
    m.push(0x80);
    reject_kind(
        &v0_file(&blobs16(), &m),
        ErrorKind::TrailingBytes { count: 1 },
    );
}

/// The library refuses chunked (indefinite-length) text wherever the format
/// interprets the text (names, dtypes, ...): names are borrowed `&str`s.
/// Attribute values may be chunked.
#[test]
fn indefinite_text_in_schema_fields_is_refused_cleanly() {
    let name = Cbor::new().text_indef().text("w").brk().build();
    reject_kind(&file_raw_object_name(&name), ErrorKind::IndefiniteText);
    // ... but fine inside attributes.
    let f = file_raw_attrs(
        &Cbor::new()
            .map(1)
            .text("a")
            .text_indef()
            .text("x")
            .text("y")
            .brk()
            .build(),
    );
    let file = accept(&f);
    assert!(file.get("w").unwrap().attributes().get("a").is_some());
}
