//! Edge cases that must NOT be rejected.

use super::*;

// ============================================================== positive edge cases

#[test]
fn unknown_format_type_and_fields_are_exposed() {
    let mut b = Blobs::new();
    let (x, y, z) = (b.add_len(4), b.add_len(8), b.add_len(7));
    let mut o = obj(
        &[4],
        "block_sparse_x",
        [
            (
                "blocks",
                comp_with(
                    "u8",
                    x,
                    4,
                    [("type", text("int4_packed_x")), ("y", text("hello"))],
                ),
            ),
            ("block_index", comp("u64", y, 8)),
        ],
    );
    push(
        &mut o,
        [("x", uint(7)), ("attributes", map([("k", text("v"))]))],
    );
    // An unknown logical type on a dense object: no length rule applies.
    let d = obj(
        &[4],
        "dense",
        [(
            "data",
            comp_with("u8", z, 7, [("type", text("int4_packed_x"))]),
        )],
    );
    let mut m = manifest("1.2.0", [("d", d), ("w", o)]);
    push(
        &mut m,
        [
            ("producer", text("hand")),
            ("extra", map([("deep", arr([uint(1), null()]))])),
        ],
    );
    let f = v1_file(&b, &encode(&m));
    let file = accept(&f);
    assert_eq!(file.fields().get("producer").and_then(|v| v.as_str()), Some("hand"));
    assert!(file.fields().get("extra").and_then(|v| v.as_map()).is_some());
    let w = file.require("w").unwrap();
    assert_eq!(w.format(), Format::Other("block_sparse_x"));
    assert_eq!(w.fields().get("x").and_then(|v| v.as_u64()), Some(7));
    assert_eq!(w.attributes().get("k").and_then(|v| v.as_str()), Some("v"));
    assert_eq!(w.component_count(), 2);
    let blocks = w.require("blocks").unwrap();
    assert_eq!(
        blocks.logical_type(),
        Some(LogicalType::Other("int4_packed_x"))
    );
    assert_eq!(
        blocks.fields().get("y").and_then(|v| v.as_str()),
        Some("hello")
    );
    assert_eq!(blocks.stored_bytes().unwrap(), &[1, 2, 3, 4]);
    assert_eq!(
        typed_read_and_view::<u64>(&w.require("block_index").unwrap()).len(),
        1
    );
    let d = file.require("d").unwrap().data().unwrap();
    assert_eq!(d.logical_type(), Some(LogicalType::Other("int4_packed_x")));
    assert_eq!(d.length(), 7);
}

#[test]
fn indefinite_length_containers_are_accepted() {
    let mut b = Blobs::new();
    let off = b.add_len(24);
    let s_off = b.add_len(1);
    let comp_map = Cbor::new()
        .map_indef()
        .text("dtype")
        .text("f32")
        .text("offset")
        .uint(off)
        .text("length")
        .uint(24)
        .brk()
        .build();
    let object = Cbor::new()
        .map_indef()
        .text("shape")
        .arr_indef()
        .uint(2)
        .uint(3)
        .brk()
        .text("format")
        .text("dense")
        .text("attributes")
        .map_indef()
        .text("list")
        .arr_indef()
        .uint(1)
        .map_indef()
        .brk()
        .brk()
        .text("s")
        .text_indef()
        .text("ab")
        .text("c")
        .brk()
        .brk()
        .text("components")
        .map_indef()
        .text("data")
        .raw(&comp_map)
        .brk()
        .brk()
        .build();
    let m = Cbor::new()
        .map_indef()
        .text("version")
        .text("1.2.0")
        .text("attributes")
        .map_indef()
        .brk()
        .text("objects")
        .map_indef()
        .text("m")
        .raw(&object)
        .text("scalar")
        .value(&dense("u8", &[], s_off, 1))
        .brk()
        .brk()
        .build();
    let b2 = b;
    let f = v1_file(&b2, &m);
    let file = accept(&f);
    assert_eq!(file.len(), 2);
    let o = file.require("m").unwrap();
    assert_eq!(o.shape().dims().collect::<Vec<_>>(), [2, 3]);
    assert_eq!(o.shape().numel(), 6);
    assert_eq!(o.component_count(), 1);
    assert_eq!(o.data().unwrap().offset(), off);
    assert_eq!(typed_read_and_view::<f32>(&o.data().unwrap()).len(), 6);
    assert_eq!(o.attributes().len(), 2);
    assert!(o.attributes().get("list").unwrap().as_array().is_some());
    assert_eq!(file.require("scalar").unwrap().shape().ndim(), 0);
    assert!(file.attributes().is_empty());
    // Tail-only parse agrees.
    let r = manifest_range(&f);
    let t = File::parse_tail(&f[f.len() - 16..], &f[r], f.len() as u64).unwrap();
    assert_eq!(
        t.require("m").unwrap().shape().dims().collect::<Vec<_>>(),
        [2, 3]
    );
}

#[test]
fn nulls_mean_absent() {
    let f = dense_file("1.2.0", |o| {
        push(
            data(o),
            [
                ("type", null()),
                ("digest", null()),
                ("encoding", null()),
                ("uncompressed_length", null()),
            ],
        );
        push(o, [("attributes", null())]);
    });
    let file = accept(&f);
    let w = file.require("w").unwrap();
    let d = w.data().unwrap();
    assert_eq!(d.logical_type(), None);
    assert_eq!(d.digest(), None);
    assert_eq!(d.encoding(), Encoding::Raw);
    assert_eq!(d.uncompressed_length(), None);
    assert!(w.attributes().is_empty());
    let f = root_file(|m| push(m, [("attributes", null())]));
    accept(&f);
    // A `type` equal to the dtype is no logical type.
    let f = dense_file("1.2.0", |o| push(data(o), [("type", text("f32"))]));
    assert_eq!(
        accept(&f)
            .require("w")
            .unwrap()
            .data()
            .unwrap()
            .logical_type(),
        None
    );
    // Explicit "raw".
    let f = dense_file("1.2.0", |o| push(data(o), [("encoding", text("raw"))]));
    assert_eq!(
        accept(&f).require("w").unwrap().data().unwrap().encoding(),
        Encoding::Raw
    );
}

#[test]
fn zero_length_component_at_manifest_start() {
    // NOTES item 1: a zero-length blob written last, the manifest at its offset.
    let mut b = Blobs::new();
    let x = b.add_len(64);
    let z = b.add_empty();
    assert_eq!(z, 128);
    let m = manifest(
        "1.2.0",
        [
            ("x", dense("u8", &[64], x, 64)),
            ("zero_written_last_f64", dense("f64", &[0, 4], z, 0)),
        ],
    );
    let f = v1_file(&b, &encode(&m));
    assert_eq!(manifest_range(&f).start as u64, z);
    let file = accept(&f);
    let d = file
        .require("zero_written_last_f64")
        .unwrap()
        .data()
        .unwrap();
    assert_eq!(d.offset(), z);
    assert_eq!(d.stored_bytes().unwrap(), &[] as &[u8]);
    // Tail-only too.
    let r = manifest_range(&f);
    File::parse_tail(&f[f.len() - 16..], &f[r], f.len() as u64).unwrap();
    // And with 16 data bytes (manifest at 80, zero-length at 64 sharing x's offset).
    let mut b = Blobs::new();
    let x = b.add_len(16);
    let m = manifest(
        "1.2.0",
        [
            ("x", dense("u8", &[16], x, 16)),
            ("z", dense("u8", &[0], x, 0)),
        ],
    );
    accept(&v1_file(&b, &encode(&m)));
    // Empty file: manifest at 8, nothing else.
    let f = v1_manifest_only(&encode(&manifest("1.2.0", [])));
    assert!(accept(&f).is_empty());
}

#[test]
fn objects_before_version() {
    // v1.1 rules must apply even though "objects" comes first.
    let mut b = Blobs::new();
    let c = b.add_len(24);
    let z = b.add_len(10);
    let objects = map([
        (
            "c",
            obj(&[3], "dense", [("data", comp("complex64", c, 24))]),
        ),
        (
            "z",
            obj(
                &[4],
                "dense",
                [(
                    "data",
                    comp_with("f32", z, 10, [("encoding", text("zstd"))]),
                )],
            ),
        ),
    ]);
    let m = map([
        ("objects", objects.clone()),
        ("attributes", map([("a", uint(1))])),
        ("version", text("1.1.0")),
    ]);
    let f = v1_file(&b, &encode(&m));
    let Some(file) = legacy(&f) else { return };
    assert_eq!(file.version().minor, 1);
    assert_eq!(file.len(), 2);
    let d = file.require("c").unwrap().data().unwrap();
    assert_eq!(
        (d.dtype(), d.logical_type()),
        (DType::F32, Some(LogicalType::Complex64))
    );
    assert_eq!(file.object(1).unwrap().name(), "z");
    assert_eq!(file.attributes().get("a").and_then(|v| v.as_u64()), Some(1));
    // ... and v1.2 rules: the same objects are refused in a 1.2 file.
    let m = map([("objects", objects.clone()), ("version", text("1.2.0"))]);
    reject_kind(&v1_file(&b, &encode(&m)), ErrorKind::UnknownDType);
    let m = map([
        (
            "objects",
            map([(
                "z",
                obj(
                    &[4],
                    "dense",
                    [(
                        "data",
                        comp_with("f32", z, 10, [("encoding", text("zstd"))]),
                    )],
                ),
            )]),
        ),
        ("version", text("1.2.0")),
    ]);
    let e = reject_kind(
        &v1_file(&b, &encode(&m)),
        ErrorKind::MissingUncompressedLength,
    );
    assert_loc(&e, Some("z"), Some("data"));
    // Deferred validation still checks everything else.
    let m = map([("objects", objects.clone()), ("version", text("2.0.0"))]);
    reject_kind(
        &v1_file(&b, &encode(&m)),
        ErrorKind::UnsupportedVersion { major: 2 },
    );
    let m = map([
        ("objects", map([("a", dense("u8", &[1], 72, 1))])),
        ("version", text("1.2.0")),
    ]);
    reject_kind(
        &v1_file(&b, &encode(&m)),
        ErrorKind::Misaligned { offset: 72 },
    );
    let m = map([
        (
            "objects",
            map([("a", map([("shape", arr([])), ("shape", arr([]))]))]),
        ),
        ("version", text("1.2.0")),
    ]);
    reject_kind(&v1_file(&b, &encode(&m)), ErrorKind::DuplicateKey);
    let mut b2 = Blobs::new();
    let (p, q) = (b2.add_len(8), b2.add_len(8));
    let m = map([
        (
            "objects",
            map([
                ("b", dense("u8", &[8], q, 8)),
                ("a", dense("u8", &[8], p, 8)),
                ("b", dense("u8", &[8], p, 8)),
            ]),
        ),
        ("version", text("1.2.0")),
    ]);
    reject_kind(&v1_file(&b2, &encode(&m)), ErrorKind::DuplicateKey);
}

#[test]
fn tail_only_parse_matches_full_parse() {
    let mut b = Blobs::new();
    let (x, y, z) = (b.add_len(16), b.add_len(24), b.add_len(8));
    let m = manifest(
        "1.2.0",
        [
            ("b", dense("f32", &[4], x, 16)),
            (
                "a",
                obj(
                    &[3],
                    "dense",
                    [(
                        "data",
                        comp_with("f32", y, 24, [("type", text("complex64"))]),
                    )],
                ),
            ),
            ("c", obj(&[2], "x_fmt", [("p", comp("u32", z, 8))])),
        ],
    );
    let f = v1_file(&b, &encode(&m));
    let full = accept(&f);
    let r = manifest_range(&f);
    let tail = Tail::from_footer(&f[f.len() - 16..], f.len() as u64).unwrap();
    assert_eq!(tail.manifest_offset as usize, r.start);
    let t = File::parse_tail(&f[f.len() - 16..], &f[r.clone()], f.len() as u64).unwrap();
    assert_eq!(t.len(), full.len());
    assert_eq!(t.version(), full.version());
    assert!(t.bytes().is_none());
    for (a, b) in full.objects().zip(t.objects()) {
        assert_eq!(a.name(), b.name());
        assert_eq!(a.format(), b.format());
        assert_eq!(
            a.shape().dims().collect::<Vec<_>>(),
            b.shape().dims().collect::<Vec<_>>()
        );
        for (ca, cb) in a.components().zip(b.components()) {
            assert_eq!(
                (
                    ca.role(),
                    ca.dtype(),
                    ca.logical_type(),
                    ca.offset(),
                    ca.length()
                ),
                (
                    cb.role(),
                    cb.dtype(),
                    cb.logical_type(),
                    cb.offset(),
                    cb.length()
                )
            );
            assert_eq!(ca.stored_bytes().unwrap().len() as u64, ca.length());
            let e = cb.stored_bytes().unwrap_err();
            assert_eq!(e.kind(), ErrorKind::NoData);
            assert_eq!(e.role().map(|n| n.as_str()), Some(cb.role()));
        }
    }
    assert_eq!(
        t.require("b")
            .unwrap()
            .data()
            .unwrap()
            .as_slice::<f32>()
            .unwrap_err()
            .kind(),
        // A big-endian host refuses for the byte order before looking for the data.
        if host_can_view::<f32>() {
            ErrorKind::NoData
        } else {
            NOT_HOST_ORDER
        }
    );
    // The whole file also works as the "footer" argument (its last 16 bytes count).
    let t2 = File::parse_tail(&f, &f[r], f.len() as u64).unwrap();
    assert_eq!(t2.len(), 3);
}

#[test]
fn names_with_nul_and_unicode_are_accepted() {
    let mut b = Blobs::new();
    let names = ["\0", "a\0b", "A", "a", ".", "日本語", "🦀/x y\t", "é"];
    let objs: Vec<_> = names
        .iter()
        .map(|&n| (n, dense("u8", &[1], b.add_len(1), 1)))
        .collect();
    let f = v1_file(&b, &encode(&manifest("1.2.0", objs)));
    let file = accept(&f);
    for n in names {
        assert_eq!(file.require(n).unwrap().name(), n);
    }
}

#[test]
fn edge_shapes_are_accepted() {
    let mut b = Blobs::new();
    let (s, one) = (b.add_len(8), b.add_len(4));
    let z = b.add_empty();
    let m = manifest(
        "1.2.0",
        [
            ("scalar", dense("f64", &[], s, 8)),
            ("one", dense("f32", &[1], one, 4)),
            ("zero", dense("f32", &[0], z, 0)),
            ("zero2", dense("i16", &[3, 0], z, 0)),
            ("zero3", dense("u8", &[0, 5, 2], z, 0)),
            ("huge_zero", dense("u8", &[u64::MAX, 0], z, 0)),
            // The prefix overflows, but a zero dimension makes the product 0.
            ("overflow_then_zero", dense("u8", &[1 << 32, 1 << 32, 0], z, 0)),
        ],
    );
    let f = v1_file(&b, &encode(&m));
    let file = accept(&f);
    assert_eq!(file.require("scalar").unwrap().shape().numel(), 1);
    assert_eq!(file.require("zero3").unwrap().shape().numel(), 0);
    assert_eq!(file.require("overflow_then_zero").unwrap().shape().numel(), 0);
}

#[test]
fn duplicate_role_past_the_first_eight_components() {
    // Roles beyond the first eight are checked through the scratch's sort.
    let mut b = Blobs::new();
    let o = b.add_len(4);
    let mut comps: Vec<(String, Value)> = (0..10).map(|i| (format!("r{i}"), comp("u8", o, 4))).collect();
    comps.push(("r3".to_string(), comp("u8", o, 4)));
    let m = manifest("1.2.0", [("x", obj(&[4], "custom_x", comps.iter().map(|(k, v)| (k.as_str(), v.clone()))))]);
    let e = reject_kind(&v1_file(&b, &encode(&m)), ErrorKind::DuplicateKey);
    assert_eq!(e.object().unwrap().as_str(), "x");
    comps.pop();
    let m = manifest("1.2.0", [("x", obj(&[4], "custom_x", comps.iter().map(|(k, v)| (k.as_str(), v.clone()))))]);
    assert_eq!(accept(&v1_file(&b, &encode(&m))).require("x").unwrap().component_count(), 10);
}

#[test]
fn nesting_and_tag_chains_within_the_limit_are_accepted() {
    let ok = Cbor::new()
        .map(1)
        .text("a")
        .nested_arrays(32, false)
        .build();
    accept(&file_raw_attrs(&ok));
    let ok = Cbor::new().map(1).text("a").nested_arrays(32, true).build();
    accept(&file_raw_attrs(&ok));
    // Tags nest their content: a chain counts toward the depth limit.
    let mut tags = vec![0xa1, 0x61, b'a'];
    tags.extend(std::iter::repeat(0xc1).take(32));
    tags.push(0x00);
    accept(&file_raw_attrs(&tags));
    let mut tags = vec![0xa1, 0x61, b'a'];
    tags.extend(std::iter::repeat(0xc1).take(10_000));
    tags.push(0x00);
    reject_kind(&file_raw_attrs(&tags), ErrorKind::TooDeep);
    // Floats of every width, negative ints, bytes, simple values in attributes.
    let a = Cbor::new()
        .map(7)
        .text("h")
        .raw(&[0xf9, 0x3e, 0x00])
        .text("s")
        .raw(&[0xfa, 0x50, 0x15, 0x02, 0xf9])
        .text("d")
        .raw(&[0xfb, 0x3f, 0xb9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a])
        .text("n")
        .raw(&[0x3b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])
        .text("b")
        .bytes(&[1, 2, 3])
        .text("u")
        .raw(&[0xf7])
        .text("t")
        .bool(true)
        .build();
    let f = file_raw_attrs(&a);
    let file = accept(&f);
    let at = file.require("w").unwrap().attributes();
    assert_eq!(at.get("h").and_then(|v| v.as_f64()), Some(1.5));
    assert_eq!(at.get("n").and_then(|v| v.as_i64()), Some(i64::MIN));
}

#[test]
fn sparse_nonconformant_v1_1_and_complex_values() {
    // v1.1 CSR with i32 indices/indptr (the 1.1 spec allowed mixed integer types).
    let f = sparse_file(
        "1.1.0",
        "sparse_csr",
        &[2, 3],
        &[
            ("values", "f32", 8),
            ("indices", "i32", 8),
            ("indptr", "i32", 12),
        ],
    );
    legacy(&f);
    // Complex values count logical elements: 2 complex64 values = 16 bytes, 2 indices.
    let mut b = Blobs::new();
    let (v, i, p) = (b.add_len(16), b.add_len(16), b.add_len(24));
    let o = obj(
        &[2, 3],
        "sparse_csr",
        [
            (
                "values",
                comp_with("f32", v, 16, [("type", text("complex64"))]),
            ),
            ("indices", comp("u64", i, 16)),
            ("indptr", comp("u64", p, 24)),
        ],
    );
    accept(&v1_file(&b, &encode(&manifest("1.2.0", [("s", o)]))));
}

#[test]
fn values_of_an_unknown_logical_type_have_no_count() {
    // 4 bytes of `int4_packed_x` values: no count, so neither 2 indices
    // (CSR) nor 2 x 2 coordinates (COO) disagree with it.
    let mut b = Blobs::new();
    let (v, i, p, c) = (b.add_len(4), b.add_len(16), b.add_len(24), b.add_len(32));
    let values = || comp_with("u8", v, 4, [("type", text("int4_packed_x"))]);
    let csr = obj(&[2, 3], "sparse_csr", [("values", values()), ("indices", comp("u64", i, 16)), ("indptr", comp("u64", p, 24))]);
    let coo = obj(&[2, 3], "sparse_coo", [("values", values()), ("coords", comp("u64", c, 32))]);
    accept(&v1_file(&b, &encode(&manifest("1.2.0", [("s", csr), ("t", coo)]))));
}
