#![cfg(feature = "std")]
//! The writer: round trips through the reader (property tests over dtypes,
//! logical types, shapes, formats, encodings, digests, attributes and
//! sources), determinism, refusals, streaming, crash safety and append.

use proptest::prelude::*;
use std::path::{Path, PathBuf};
use ztensor::write::{AttrValue, Data, FileSink, Sink};
use ztensor::write::v1_2::{Checksum, Compression, NewComponent, NewObject, Writer};
use ztensor::{DType, Encoding, ErrorKind, File, Format, LogicalType, Value, ValueRef};

// ------------------------------------------------------------------ model

/// How a component's bytes reach the writer.
#[derive(Clone, Debug)]
enum Source {
    Bytes,
    /// Chunks of this size (the last one shorter).
    Chunks(usize),
    /// A `std::io::Read`.
    Reader,
}

#[derive(Clone, Debug)]
struct CompSpec {
    role: String,
    dtype: DType,
    ltype: Option<String>,
    bytes: Vec<u8>,
    compression: Compression,
    checksum: Checksum,
    source: Source,
}

#[derive(Clone, Debug)]
struct ObjSpec {
    name: String,
    format: String,
    shape: Vec<u64>,
    attrs: Vec<(String, AttrValue)>,
    comps: Vec<CompSpec>,
}

impl ObjSpec {
    fn to_new(&self) -> NewObject<'_> {
        let mut o = NewObject::new(self.name.as_str(), Format::parse(&self.format), &self.shape);
        for (k, v) in &self.attrs {
            o.set_attribute(k, v.clone());
        }
        for c in &self.comps {
            let len = c.bytes.len() as u64;
            let data = match c.source {
                Source::Bytes => Data::bytes(&c.bytes),
                Source::Chunks(n) => Data::from_chunks(len, c.bytes.chunks(n)),
                Source::Reader => Data::from_reader(len, &c.bytes[..]),
            };
            let mut nc =
                NewComponent::new(c.role.as_str(), c.dtype, data).compression(c.compression).checksum(c.checksum);
            if let Some(t) = &c.ltype {
                nc = nc.logical_type(LogicalType::parse(t));
            }
            o = o.component(nc);
        }
        o
    }
}

fn write_all(attrs: &[(String, AttrValue)], objs: &[ObjSpec]) -> Vec<u8> {
    let mut w = Writer::new(Vec::new());
    for (k, v) in attrs {
        w.set_attribute(k, v.clone()).unwrap();
    }
    for o in objs {
        w.add(o.to_new()).unwrap_or_else(|e| panic!("{}: {e}", o.name));
    }
    w.finish().unwrap()
}

/// A reader value as an `AttrValue`, to compare with what was written.
fn to_attr(v: Value<'_>) -> AttrValue {
    match v.get() {
        ValueRef::Uint(n) => AttrValue::Uint(n),
        ValueRef::NegInt(n) => AttrValue::NegInt(n),
        ValueRef::Float(f) => AttrValue::Float(f),
        ValueRef::Text(_) => AttrValue::Text(v.as_str().unwrap().to_owned()),
        ValueRef::Bytes(_) => AttrValue::Bytes(v.as_bytes().unwrap().to_vec()),
        ValueRef::Bool(b) => AttrValue::Bool(b),
        ValueRef::Null => AttrValue::Null,
        ValueRef::Array(a) => AttrValue::Array(a.iter().map(to_attr).collect()),
        ValueRef::Map(m) => AttrValue::Map(m.iter().map(|(k, v)| (to_attr(k), to_attr(v))).collect()),
        ValueRef::Tag(t, inner) => AttrValue::Tag(t, Box::new(to_attr(inner))),
        other => panic!("unexpected {other:?}"),
    }
}

fn attrs_of(m: ztensor::Map<'_>) -> Vec<(String, AttrValue)> {
    m.iter().map(|(k, v)| (k.as_str().unwrap().to_owned(), to_attr(v))).collect()
}

/// Everything the reader says matches the model.
fn check(bytes: &[u8], attrs: &[(String, AttrValue)], objs: &[ObjSpec]) {
    let f = File::parse(bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(f.version(), ztensor::Version::V1_2);
    assert_eq!(attrs_of(f.attributes()), attrs);
    assert_eq!(f.len(), objs.len());
    for (o, s) in f.objects().zip(objs) {
        assert_eq!(o.name(), s.name);
        assert_eq!(f.require(&s.name).unwrap().index(), o.index());
        assert_eq!(o.shape().to_vec(), s.shape);
        assert_eq!(o.format().name(), s.format);
        assert_eq!(attrs_of(o.attributes()), s.attrs, "{}", s.name);
        assert_eq!(o.component_count(), s.comps.len());
        for (c, cs) in o.components().zip(&s.comps) {
            let at = format!("{}/{}", s.name, cs.role);
            assert_eq!(c.role(), cs.role, "{at}");
            assert_eq!(c.dtype(), cs.dtype, "{at}");
            let lt = cs.ltype.as_deref().filter(|t| *t != cs.dtype.name());
            assert_eq!(c.logical_type().map(|t| t.name()), lt, "{at}");
            assert_eq!(c.offset() % 64, 0, "{at}");
            match cs.compression {
                Compression::Raw => {
                    assert_eq!(c.encoding(), Encoding::Raw, "{at}");
                    assert_eq!(c.length(), cs.bytes.len() as u64, "{at}");
                    assert_eq!(c.stored_bytes().unwrap(), cs.bytes, "{at}");
                }
                Compression::Zstd(_) => {
                    assert_eq!(c.encoding(), Encoding::Zstd, "{at}");
                    assert_eq!(c.uncompressed_length(), Some(cs.bytes.len() as u64), "{at}");
                }
                // zstd where smaller, else raw.
                Compression::ZstdIfSmaller(_) => match c.encoding() {
                    Encoding::Zstd => {
                        assert_eq!(c.uncompressed_length(), Some(cs.bytes.len() as u64), "{at}");
                        assert!(c.length() < cs.bytes.len() as u64, "{at}");
                    }
                    Encoding::Raw => {
                        assert_eq!(c.uncompressed_length(), None, "{at}");
                        assert_eq!(c.stored_bytes().unwrap(), cs.bytes, "{at}");
                    }
                    other => panic!("{at}: the v1.2 writer wrote {other:?}"),
                },
            }
            assert_eq!(c.to_vec().unwrap(), cs.bytes, "{at}");
            let digest = c.digest();
            match cs.checksum {
                Checksum::None => assert_eq!(digest, None, "{at}"),
                Checksum::Crc32c => {
                    let d = digest.unwrap();
                    assert!(d.starts_with("crc32c:0x") && d.len() == 17, "{at}: {d}");
                    assert!(d[9..].bytes().all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b)), "{d}");
                }
                Checksum::Sha256 => {
                    let d = digest.unwrap();
                    assert!(d.starts_with("sha256:") && d.len() == 71, "{at}: {d}");
                    assert!(d[7..].bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)), "{d}");
                }
            }
            if digest.is_some() {
                assert_eq!(c.verify_digest().unwrap(), ztensor::digest::Verified::Ok, "{at}");
            }
        }
    }
    // Layout: header, zero padding to 64, manifest then footer at the end.
    assert_eq!(&bytes[..8], b"ZTEN1000");
    if bytes.len() > 64 + 24 {
        assert!(bytes[8..64].iter().all(|&b| b == 0) || f.tail().manifest_offset < 64);
    }
}

// ------------------------------------------------------------- strategies

fn dtype() -> impl Strategy<Value = DType> {
    prop::sample::select(DType::ALL.to_vec())
}

fn bytes(n: usize) -> impl Strategy<Value = Vec<u8>> {
    // Half the time compressible (few distinct bytes), else random.
    prop_oneof![prop::collection::vec(0u8..3, n..=n), prop::collection::vec(any::<u8>(), n..=n)]
}

fn encoding() -> impl Strategy<Value = Compression> {
    prop_oneof![
        3 => Just(Compression::Raw),
        2 => (-5i32..20).prop_map(Compression::Zstd),
        1 => (-5i32..20).prop_map(Compression::ZstdIfSmaller),
    ]
}

fn checksum() -> impl Strategy<Value = Checksum> {
    prop::sample::select(vec![Checksum::None, Checksum::Crc32c, Checksum::Sha256])
}

fn source() -> impl Strategy<Value = Source> {
    prop_oneof![Just(Source::Bytes), (1usize..40).prop_map(Source::Chunks), Just(Source::Reader)]
}

/// A component of `dtype` with `n` stored elements.
fn comp(role: &'static str, dtype: DType, ltype: Option<String>, n: usize) -> BoxedStrategy<CompSpec> {
    (bytes(n * dtype.width() as usize), encoding(), checksum(), source()).prop_map(
        move |(bytes, compression, checksum, source)| CompSpec {
            role: role.to_owned(),
            dtype,
            ltype: ltype.clone(),
            bytes,
            compression,
            checksum,
            source,
        },
    )
    .boxed()
}

fn float() -> impl Strategy<Value = f64> {
    use prop::num::f64::*;
    prop_oneof![
        (NORMAL | SUBNORMAL | ZERO | INFINITE),
        prop::sample::select(vec![1.5, 3.0, 0.1, 1e10, 100000.0, 65504.0, -0.0, 5.960464477539063e-8]),
        any::<f32>().prop_filter("not NaN", |f| !f.is_nan()).prop_map(f64::from),
    ]
}

fn attr_value() -> BoxedStrategy<AttrValue> {
    let leaf = prop_oneof![
        any::<u64>().prop_map(AttrValue::Uint),
        any::<u64>().prop_map(AttrValue::NegInt),
        any::<i8>().prop_map(AttrValue::from),
        float().prop_map(AttrValue::Float),
        ".{0,12}".prop_map(AttrValue::Text),
        prop::collection::vec(any::<u8>(), 0..8).prop_map(AttrValue::Bytes),
        any::<bool>().prop_map(AttrValue::Bool),
        Just(AttrValue::Null),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(AttrValue::Array),
            // Distinct keys: a map with duplicate keys is refused.
            prop::collection::btree_map("[a-z]{0,3}", inner.clone(), 0..4)
                .prop_map(|m| AttrValue::Map(m.into_iter().map(|(k, v)| (AttrValue::Text(k), v)).collect())),
            prop::collection::btree_map(any::<i16>(), inner.clone(), 0..3)
                .prop_map(|m| AttrValue::Map(m.into_iter().map(|(k, v)| (AttrValue::from(k), v)).collect())),
            (0u64..100_000, inner).prop_map(|(t, v)| AttrValue::Tag(t, Box::new(v))),
        ]
    })
    .boxed()
}

fn attrs() -> impl Strategy<Value = Vec<(String, AttrValue)>> {
    prop::collection::btree_map("[a-z_]{1,6}", attr_value(), 0..4).prop_map(|m| m.into_iter().collect())
}

fn shape(max_dims: usize) -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(0u64..5, 0..=max_dims)
}

fn dense() -> BoxedStrategy<(String, Vec<u64>, Vec<CompSpec>)> {
    let typed = prop_oneof![
        dtype().prop_map(|d| (d, None)),
        prop::sample::select(vec!["f8_e4m3fn", "f8_e5m2", "f8_e4m3fnuz", "f8_e5m2fnuz"])
            .prop_map(|t| (DType::U8, Some(t.to_owned()))),
        Just((DType::F32, Some("complex64".to_owned()))),
        Just((DType::F64, Some("complex128".to_owned()))),
        dtype().prop_map(|d| (d, Some(d.name().to_owned()))),
    ];
    (typed, shape(3)).prop_flat_map(|((d, t), shape)| {
        let ratio = if t.as_deref().is_some_and(|t| t.starts_with("complex")) { 2 } else { 1 };
        let n = shape.iter().product::<u64>() as usize * ratio;
        comp("data", d, t, n).prop_map(move |c| ("dense".to_owned(), shape.clone(), vec![c]))
    })
    .boxed()
}

fn u64s(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn with_index(mut c: CompSpec, role: &str, idx: &[u64]) -> CompSpec {
    c.role = role.to_owned();
    c.dtype = DType::U64;
    c.ltype = None;
    c.bytes = u64s(idx);
    c
}

fn csr() -> BoxedStrategy<(String, Vec<u64>, Vec<CompSpec>)> {
    (0u64..4, 1u64..5)
        .prop_flat_map(|(rows, cols)| {
            let mask = prop::collection::vec(any::<bool>(), (rows * cols) as usize);
            (Just((rows, cols)), mask, dtype())
        })
        .prop_flat_map(|((rows, cols), mask, d)| {
            let nnz = mask.iter().filter(|&&b| b).count();
            let mut indices = Vec::new();
            let mut indptr = vec![0u64];
            for r in 0..rows {
                for c in 0..cols {
                    if mask[(r * cols + c) as usize] {
                        indices.push(c);
                    }
                }
                indptr.push(indices.len() as u64);
            }
            let t = if d == DType::U8 { Some("f8_e5m2".to_owned()) } else { None };
            (comp("values", d, t, nnz), comp("indices", DType::U64, None, 0), comp("indptr", DType::U64, None, 0))
                .prop_map(move |(v, i, p)| {
                    let comps = vec![v, with_index(i, "indices", &indices), with_index(p, "indptr", &indptr)];
                    ("sparse_csr".to_owned(), vec![rows, cols], comps)
                })
        })
    .boxed()
}

fn coo() -> BoxedStrategy<(String, Vec<u64>, Vec<CompSpec>)> {
    (prop::collection::vec(1u64..6, 1..4), 0usize..6, dtype()).prop_flat_map(|(shape, nnz, d)| {
        let coords = prop::collection::vec(0u64..5, shape.len() * nnz);
        (comp("values", d, None, nnz), comp("coords", DType::U64, None, 0), coords).prop_map(move |(v, c, coords)| {
            ("sparse_coo".to_owned(), shape.clone(), vec![v, with_index(c, "coords", &coords)])
        })
    })
    .boxed()
}

fn quantized() -> BoxedStrategy<(String, Vec<u64>, Vec<CompSpec>)> {
    (1usize..6, 1usize..4, prop::sample::select(vec![DType::I32, DType::U8]), prop::sample::select(vec![DType::F16, DType::F32]))
        .prop_flat_map(|(n, groups, pd, sd)| {
            (comp("packed_weight", pd, None, n), comp("scales", sd, None, groups), comp("zeros", sd, None, groups))
                .prop_map(move |(p, s, z)| ("quantized_group".to_owned(), vec![n as u64 * 8, 1], vec![p, s, z]))
        })
    .boxed()
}

fn other() -> BoxedStrategy<(String, Vec<u64>, Vec<CompSpec>)> {
    let one = (prop::sample::select(vec!["blocks", "block_index", "x", "lut"]), dtype(), 0usize..5, prop::option::of("[a-z0-9_]{1,8}"))
        .prop_flat_map(|(role, d, n, t)| comp(role, d, t, n));
    (prop::collection::vec(one, 0..4), shape(2)).prop_map(|(mut comps, shape)| {
        comps.sort_by(|a, b| a.role.cmp(&b.role));
        comps.dedup_by(|a, b| a.role == b.role);
        ("block_sparse_x".to_owned(), shape, comps)
    })
    .boxed()
}

fn object() -> BoxedStrategy<ObjSpec> {
    let body = prop_oneof![4 => dense(), 2 => csr(), 2 => coo(), 1 => quantized(), 1 => other()];
    (body, attrs()).prop_map(|((format, shape, comps), mut attrs)| {
        if format == "quantized_group" {
            attrs.retain(|(k, _)| !["bits", "group_size", "packing"].contains(&k.as_str()));
            attrs.push(("bits".into(), 4u8.into()));
            attrs.push(("group_size".into(), 128u32.into()));
            attrs.push(("packing".into(), "8_per_i32".into()));
        }
        ObjSpec { name: String::new(), format, shape, attrs, comps }
    })
    .boxed()
}

fn objects() -> impl Strategy<Value = Vec<ObjSpec>> {
    prop::collection::vec(("[a-zA-Z0-9_.é/ ]{1,10}", object()), 0..6).prop_map(|v| {
        let mut seen = std::collections::HashSet::new();
        v.into_iter()
            .filter_map(|(name, mut o)| {
                seen.insert(name.clone()).then(|| {
                    o.name = name;
                    o
                })
            })
            .collect()
    })
}

proptest! {
    // 96 cases; more with PROPTEST_CASES=n.
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(96)
    ))]

    /// Whatever is written reads back exactly; writing is deterministic; an
    /// append that adds nothing reproduces the file.
    #[test]
    fn round_trip(file_attrs in attrs(), objs in objects()) {
        let bytes = write_all(&file_attrs, &objs);
        check(&bytes, &file_attrs, &objs);
        prop_assert_eq!(&write_all(&file_attrs, &objs), &bytes);
        let again = Writer::append_to_vec(bytes.clone()).unwrap().finish().unwrap();
        prop_assert_eq!(&again, &bytes);
    }

    /// Appending objects keeps every old blob byte for byte and reads back
    /// as if everything had been written at once.
    #[test]
    fn append_round_trip(objs in objects(), split in 0usize..6) {
        let split = split.min(objs.len());
        let first = write_all(&[], &objs[..split]);
        let blob_end = File::parse(&first).unwrap().tail().manifest_offset as usize;
        let mut w = Writer::append_to_vec(first.clone()).unwrap();
        for o in &objs[split..] {
            w.add(o.to_new()).unwrap();
        }
        let bytes = w.finish().unwrap();
        prop_assert_eq!(&bytes[..blob_end], &first[..blob_end]);
        check(&bytes, &[], &objs);
    }
}

// ------------------------------------------------------------ determinism

#[test]
fn same_objects_same_bytes() {
    let build = || {
        let mut w = Writer::new(Vec::new());
        w.set_attribute("framework", "test").unwrap();
        w.set_attribute("nested", AttrValue::map([("z", 1u8.into()), ("a", vec![AttrValue::from(0.1)].into())])).unwrap();
        let big: Vec<f32> = (0..10_000).map(|i| (i as f32).sin()).collect();
        w.add(NewObject::dense_slice("big", &[100, 100], &big).compression(Compression::ZSTD).checksum(Checksum::Sha256))
            .unwrap();
        w.add(NewObject::sparse_coo_slices("coo", &[4, 4], &[1i8, 2], &[0, 3, 1, 2]).checksum(Checksum::Crc32c)).unwrap();
        w.add_slice("z", &[0], &[0u8; 0]).unwrap();
        w.finish().unwrap()
    };
    let a = build();
    assert_eq!(a, build());
    // And to a file through FileSink: the same bytes.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("d.zt");
    let mut w = Writer::create(&p).unwrap();
    w.set_attribute("framework", "test").unwrap();
    w.set_attribute("nested", AttrValue::map([("z", 1u8.into()), ("a", vec![AttrValue::from(0.1)].into())])).unwrap();
    let big: Vec<f32> = (0..10_000).map(|i| (i as f32).sin()).collect();
    w.add(NewObject::dense_slice("big", &[100, 100], &big).compression(Compression::ZSTD).checksum(Checksum::Sha256))
        .unwrap();
    w.add(NewObject::sparse_coo_slices("coo", &[4, 4], &[1i8, 2], &[0, 3, 1, 2]).checksum(Checksum::Crc32c)).unwrap();
    w.add_slice("z", &[0], &[0u8; 0]).unwrap();
    w.finish().unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), a);
}

// --------------------------------------------------------------- refusals

fn refused(obj: NewObject<'_>) -> ErrorKind {
    let mut w = Writer::new(Vec::new());
    w.add_slice("taken", &[1], &[1u8]).unwrap();
    let before = w.position();
    let e = w.add(obj).unwrap_err();
    assert_eq!(w.position(), before, "nothing written for a refused object: {e}");
    // The writer is still usable and the file valid.
    let bytes = w.finish().unwrap();
    assert_eq!(File::parse(&bytes).unwrap().len(), 1);
    e.kind()
}

#[test]
fn refuses_what_the_reader_refuses() {
    let u64s = |v: &[u64]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    // Names.
    assert_eq!(refused(NewObject::dense("", &[1], DType::U8, &[1])), ErrorKind::EmptyName);
    assert_eq!(refused(NewObject::dense("taken", &[1], DType::U8, &[1])), ErrorKind::DuplicateKey);
    // Dense length vs shape, partial elements, overflow.
    assert_eq!(
        refused(NewObject::dense("d", &[2, 3], DType::F32, &[0u8; 20])),
        ErrorKind::LengthMismatch { expected: 24, actual: 20 }
    );
    assert_eq!(
        refused(NewObject::dense("d", &[2], DType::F32, &[0u8; 7])),
        ErrorKind::PartialElement { length: 7, width: 4 }
    );
    assert_eq!(
        refused(NewObject::dense("d", &[1 << 40, 1 << 40], DType::U8, &[0u8; 1])),
        ErrorKind::ShapeOverflow
    );
    assert_eq!(
        refused(NewObject::dense("d", &[3], DType::F32, &[0u8; 12]).logical_type(LogicalType::Complex64)),
        ErrorKind::LengthMismatch { expected: 24, actual: 12 }
    );
    // zstd: the decoded length is what counts.
    assert_eq!(
        refused(NewObject::dense("d", &[4], DType::U8, &[0u8; 3]).compression(Compression::ZSTD)),
        ErrorKind::LengthMismatch { expected: 4, actual: 3 }
    );
    // Logical type vs dtype.
    for (d, t) in [(DType::I8, LogicalType::F8E4M3Fn), (DType::F64, LogicalType::Complex64), (DType::F32, LogicalType::Complex128)] {
        let n = d.width() as usize * 2;
        assert_eq!(
            refused(NewObject::dense("d", &[1], d, vec![0u8; n]).logical_type(t)),
            ErrorKind::WrongType { field: "type", expected: "a logical type matching the dtype" }
        );
    }
    // Missing components.
    assert_eq!(refused(NewObject::new("d", Format::Dense, &[1])), ErrorKind::MissingComponent { role: "data" });
    assert_eq!(
        refused(NewObject::new("c", Format::SparseCsr, &[1, 1]).with_component("values", DType::F32, &[0u8; 4])),
        ErrorKind::MissingComponent { role: "indices" }
    );
    assert_eq!(
        refused(NewObject::new("c", Format::SparseCoo, &[1]).with_component("values", DType::F32, &[0u8; 4])),
        ErrorKind::MissingComponent { role: "coords" }
    );
    assert_eq!(
        refused(
            NewObject::new("q", Format::QuantizedGroup, &[8])
                .with_component("packed_weight", DType::I32, &[0u8; 4])
                .with_component("scales", DType::F16, &[0u8; 2])
        ),
        ErrorKind::MissingComponent { role: "zeros" }
    );
    // Sparse index dtypes must be u64.
    let csr_with = |idx: DType| {
        NewObject::new("c", Format::SparseCsr, &[2, 2])
            .with_component("values", DType::F32, vec![0u8; 4])
            .with_component("indices", idx, vec![0u8; idx.width() as usize])
            .with_component("indptr", DType::U64, u64s(&[0, 1, 1]))
    };
    for d in [DType::I32, DType::U32, DType::I64, DType::F64] {
        assert_eq!(refused(csr_with(d)), ErrorKind::IndexDType, "{d}");
    }
    assert_eq!(
        refused(NewObject::sparse_coo("c", &[2], DType::F32, vec![0u8; 4], vec![0u8; 4]).with_component("x", DType::U8, &[1])),
        ErrorKind::PartialElement { length: 4, width: 8 }
    );
    let coo_i64 = NewObject::new("c", Format::SparseCoo, &[2])
        .with_component("values", DType::F32, vec![0u8; 4])
        .with_component("coords", DType::I64, vec![0u8; 8]);
    assert_eq!(refused(coo_i64), ErrorKind::IndexDType);
    // CSR shape must be 2-D; indptr = rows + 1; indices = nnz.
    let csr = |shape: &[u64], vals: usize, idx: &[u64], ptr: &[u64]| {
        NewObject::new("c", Format::SparseCsr, shape)
            .with_component("values", DType::F64, vec![0u8; vals * 8])
            .with_component("indices", DType::U64, u64s(idx))
            .with_component("indptr", DType::U64, u64s(ptr))
    };
    assert_eq!(refused(csr(&[2, 2, 2], 1, &[0], &[0, 1, 1])), ErrorKind::BadShape);
    assert_eq!(refused(csr(&[4], 1, &[0], &[0, 1, 1])), ErrorKind::BadShape);
    assert_eq!(refused(csr(&[2, 2], 1, &[0], &[0, 1])), ErrorKind::CountMismatch { expected: 3, actual: 2 });
    assert_eq!(refused(csr(&[2, 2], 2, &[0], &[0, 1, 2])), ErrorKind::CountMismatch { expected: 2, actual: 1 });
    // COO coords = ndim × nnz.
    assert_eq!(
        refused(NewObject::sparse_coo_slices("c", &[3, 3], &[1f32, 2.0], &[0, 1, 2])),
        ErrorKind::CountMismatch { expected: 4, actual: 3 }
    );
    // Roles.
    assert_eq!(refused(NewObject::new("o", Format::Other("x"), &[]).with_component("", DType::U8, &[1])), ErrorKind::EmptyName);
    assert_eq!(
        refused(
            NewObject::new("o", Format::Other("x"), &[])
                .with_component("r", DType::U8, &[1])
                .with_component("r", DType::U8, &[1])
        ),
        ErrorKind::DuplicateKey
    );
    // Attributes.
    let dup = AttrValue::Map(vec![("k".into(), 1u8.into()), ("k".into(), 2u8.into())]);
    assert_eq!(refused(NewObject::dense("a", &[1], DType::U8, &[1]).attribute("m", dup.clone())), ErrorKind::DuplicateKey);
    let mut deep = AttrValue::Null;
    for _ in 0..70 {
        deep = AttrValue::Array(vec![deep]);
    }
    assert_eq!(refused(NewObject::dense("a", &[1], DType::U8, &[1]).attribute("deep", deep.clone())), ErrorKind::TooDeep);
    assert_eq!(
        refused(NewObject::dense("a", &[1], DType::U8, &[1]).attribute("raw", AttrValue::Cbor(vec![0x62, b'a']))),
        ErrorKind::LengthTooLarge { claimed: 2 }
    );
    assert_eq!(
        refused(NewObject::dense("a", &[1], DType::U8, &[1]).attribute("raw", AttrValue::Cbor(vec![0x62, 0xff, 0xfe]))),
        ErrorKind::CborInvalidUtf8
    );
    let mut w = Writer::new(Vec::new());
    assert_eq!(w.set_attribute("m", dup).unwrap_err().kind(), ErrorKind::DuplicateKey);
    assert_eq!(w.set_attribute("deep", deep).unwrap_err().kind(), ErrorKind::TooDeep);
    // The error says where.
    let mut w = Writer::new(Vec::new());
    let e = w.add(NewObject::dense("layer.0", &[2], DType::F32, &[0u8; 4])).unwrap_err();
    assert_eq!(e.object().unwrap().as_str(), "layer.0");
    assert_eq!(e.role().unwrap().as_str(), "data");
}

/// What the writer accepts, the reader accepts: unknown formats and
/// logical types, non-text keys in nested maps, tags, scalars, zero sizes.
#[test]
fn accepts_the_open_parts_of_the_spec() {
    let mut w = Writer::new(Vec::new());
    w.add(NewObject::dense("scalar", &[], DType::F64, &2.5f64.to_le_bytes())).unwrap();
    w.add(NewObject::dense("int4", &[4], DType::U8, &[1, 2, 3, 4]).logical_type(LogicalType::Other("int4_packed_x")))
        .unwrap();
    w.add(
        NewObject::new("blk", Format::Other("block_sparse_x"), &[8, 8])
            .with_component("blocks", DType::F16, vec![0u8; 8])
            .with_component("block_index", DType::I32, vec![0u8; 4])
            .attribute("tagged", AttrValue::Tag(1, Box::new(1_700_000_000u64.into())))
            .attribute("keys", AttrValue::Map(vec![(1u8.into(), "one".into()), (AttrValue::NegInt(0), AttrValue::Null)])),
    )
    .unwrap();
    w.add(NewObject::sparse_csr_slices::<f32>("empty_csr", [3, 3], &[], &[], &[0, 0, 0, 0])).unwrap();
    w.add(NewObject::dense("zero_zstd", &[0], DType::F32, &[]).compression(Compression::ZSTD).checksum(Checksum::Crc32c))
        .unwrap();
    let bytes = w.finish().unwrap();
    let f = File::parse(&bytes).unwrap();
    assert_eq!(f.require("scalar").unwrap().shape().ndim(), 0);
    assert_eq!(f.require("int4").unwrap().data().unwrap().logical_type(), Some(LogicalType::Other("int4_packed_x")));
    let z = f.require("zero_zstd").unwrap().data().unwrap();
    assert!(z.length() > 0);
    assert_eq!(z.uncompressed_length(), Some(0));
    assert_eq!(z.to_vec().unwrap(), Vec::<u8>::new());
    z.verify_digest().unwrap();
}

// --------------------------------------------------------------- streaming

/// A large tensor fed in pieces never needs to be whole in memory: chunks
/// are generated on the fly.
#[test]
fn streams_large_components() {
    const N: u64 = 24 << 20;
    let gen = |i: u64| -> Vec<u8> { (0..1 << 16).map(|j| ((i * 65536 + j) % 251) as u8).collect() };
    for comp in [Compression::Raw, Compression::Zstd(1)] {
        let mut w = Writer::new(Vec::new());
        let chunks = (0..N >> 16).map(gen);
        w.add(NewObject::dense("big", &[N], DType::U8, Data::from_chunks(N, chunks)).compression(comp).checksum(Checksum::Crc32c))
            .unwrap();
        let reader = std::io::Read::take(std::io::repeat(7), 3 << 20);
        w.add(NewObject::dense("rep", &[3 << 20], DType::U8, Data::from_reader(3 << 20, reader)).compression(comp))
            .unwrap();
        let bytes = w.finish().unwrap();
        let f = File::parse(&bytes).unwrap();
        let big = f.require("big").unwrap().data().unwrap();
        big.verify_digest().unwrap();
        let got = big.to_vec().unwrap();
        assert_eq!(got.len() as u64, N);
        assert!(got.chunks(1 << 16).enumerate().all(|(i, c)| c == gen(i as u64)));
        assert_eq!(f.require("rep").unwrap().data().unwrap().to_vec().unwrap(), vec![7u8; 3 << 20]);
        if comp != Compression::Raw {
            assert!(bytes.len() < 2 << 20, "compressed: {}", bytes.len());
        }
    }
}

struct FailingRead(usize);

impl std::io::Read for FailingRead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.0 == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "source went away"));
        }
        let n = buf.len().min(self.0);
        buf[..n].fill(1);
        self.0 -= n;
        Ok(n)
    }
}

#[test]
fn source_errors_fail_the_object_not_the_writer() {
    for comp in [Compression::Raw, Compression::ZSTD] {
        let mut w = Writer::new(Vec::new());
        let e = w
            .add(NewObject::dense("a", &[1000], DType::U8, Data::from_reader(1000, FailingRead(300))).compression(comp))
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Io);
        assert_eq!(e.object().unwrap().as_str(), "a");
        assert_eq!(w.take_io_error().unwrap().kind(), std::io::ErrorKind::ConnectionReset);
        assert!(!w.contains("a"));
        w.add_slice("b", &[2], &[1u16, 2]).unwrap();
        let bytes = w.finish().unwrap();
        let f = File::parse(&bytes).unwrap();
        assert_eq!(f.len(), 1);
        assert_eq!(f.require("b").unwrap().data().unwrap().to_vec_of::<u16>().unwrap(), [1, 2]);
    }
}

struct BrokenPipe(usize);

impl std::io::Write for BrokenPipe {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.0 < buf.len() {
            return Err(std::io::Error::new(std::io::ErrorKind::BrokenPipe, "closed"));
        }
        self.0 -= buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn io_sink_errors_break_the_writer() {
    let mut w = Writer::new(ztensor::write::IoSink::new(BrokenPipe(100)));
    assert_eq!(w.add_slice("a", &[64], &[0u32; 64]).unwrap_err().kind(), ErrorKind::Io);
    assert_eq!(w.take_io_error().unwrap().kind(), std::io::ErrorKind::BrokenPipe);
    assert_eq!(w.add_slice("b", &[1], &[0u8]).unwrap_err().kind(), ErrorKind::Io);
    assert!(w.finish().is_err());
    // A healthy io::Write gets the same bytes as a Vec.
    let mut w = Writer::new(ztensor::write::IoSink::new(Vec::new()));
    w.add_slice("a", &[3], &[1u8, 2, 3]).unwrap();
    let via_io = w.finish().unwrap().into_inner();
    let mut w = Writer::new(Vec::new());
    w.add_slice("a", &[3], &[1u8, 2, 3]).unwrap();
    assert_eq!(via_io, w.finish().unwrap());
}

// ------------------------------------------------------------ crash safety

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

fn small_file(path: &Path, value: u8) -> Vec<u8> {
    let mut w = Writer::create(path).unwrap();
    w.add_slice("v", &[4], &[value; 4]).unwrap();
    w.finish().unwrap();
    std::fs::read(path).unwrap()
}

#[test]
fn create_publishes_only_on_finish() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("model.zt");

    // Dropped mid-way: no file at all, no temporary left.
    {
        let mut w = Writer::create(&p).unwrap();
        w.add_slice("a", &[1000], &[1u8; 1000]).unwrap();
        assert!(w.sink().temp_path().exists());
        assert!(!p.exists());
    }
    assert_eq!(entries(dir.path()), Vec::<String>::new());

    // Finished: published, temporary gone.
    let old = small_file(&p, 1);
    assert_eq!(entries(dir.path()), ["model.zt"]);
    assert_eq!(File::parse(&old).unwrap().require("v").unwrap().data().unwrap().to_vec().unwrap(), [1; 4]);

    // Replacing it, dropped mid-way: the old file stays whole.
    {
        let mut w = Writer::create(&p).unwrap();
        w.add_slice("a", &[1 << 20], &vec![9u8; 1 << 20]).unwrap();
    }
    assert_eq!(std::fs::read(&p).unwrap(), old);
    assert_eq!(entries(dir.path()), ["model.zt"]);

    // Replacing it, an error mid-way (the source fails), then dropped.
    {
        let mut w = Writer::create(&p).unwrap();
        w.add_slice("a", &[10], &[2u8; 10]).unwrap();
        let e = w.add(NewObject::dense("b", &[1 << 20], DType::U8, Data::from_reader(1 << 20, FailingRead(5000)))).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Io);
    }
    assert_eq!(std::fs::read(&p).unwrap(), old);
    assert_eq!(entries(dir.path()), ["model.zt"]);

    // A refused object, then finish: replaced by a valid file.
    let mut w = Writer::create(&p).unwrap();
    assert!(w.add(NewObject::dense("x", &[2], DType::U8, &[1])).is_err());
    w.add_slice("y", &[1], &[3u8]).unwrap();
    let sink: FileSink = w.finish().unwrap();
    assert!(sink.is_published());
    drop(sink);
    let f = std::fs::read(&p).unwrap();
    assert_eq!(File::parse(&f).unwrap().objects().map(|o| o.name().to_owned()).collect::<Vec<_>>(), ["y"]);
    assert_eq!(entries(dir.path()), ["model.zt"]);
}

/// A sink that fails on `finish` (as a full disk would at fsync).
#[derive(Debug)]
struct FailAtFinish(Vec<u8>);

impl Sink for FailAtFinish {
    fn write_all(&mut self, b: &[u8]) -> ztensor::Result<()> {
        self.0.extend_from_slice(b);
        Ok(())
    }
    fn finish(&mut self) -> ztensor::Result<()> {
        Err(ztensor::Error::new(ErrorKind::Io))
    }
}

#[test]
fn finish_errors_are_reported() {
    let mut w = Writer::new(FailAtFinish(Vec::new()));
    w.add_slice("a", &[1], &[1u8]).unwrap();
    assert_eq!(w.finish().unwrap_err().kind(), ErrorKind::Io);
    // A FileSink whose directory vanished cannot publish; nothing is left behind.
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let mut w = Writer::create(sub.join("x.zt")).unwrap();
    w.add_slice("a", &[1], &[1u8]).unwrap();
    let tmp = w.sink().temp_path().to_path_buf();
    std::fs::remove_file(&tmp).unwrap();
    std::fs::remove_dir(&sub).unwrap();
    assert_eq!(w.finish().unwrap_err().kind(), ErrorKind::Io);
    assert!(!sub.exists());
}

#[test]
fn append_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.zt");
    let old = small_file(&p, 5);
    let blob_end = File::parse(&old).unwrap().tail().manifest_offset as usize;

    // Dropped mid-way, or failing mid-way: the old file is untouched.
    {
        let mut w = Writer::append(&p).unwrap();
        w.add_slice("new", &[3], &[1u8, 2, 3]).unwrap();
    }
    {
        let mut w = Writer::append(&p).unwrap();
        assert_eq!(w.add_slice("v", &[1], &[1u8]).unwrap_err().kind(), ErrorKind::DuplicateKey);
        let _ = w.add(NewObject::dense("b", &[100], DType::U8, Data::from_reader(100, FailingRead(10))));
    }
    assert_eq!(std::fs::read(&p).unwrap(), old);
    assert_eq!(entries(dir.path()), ["a.zt"]);

    let mut w = Writer::append(&p).unwrap();
    w.set_attribute("appended", true).unwrap();
    w.add(NewObject::dense_slice("new", &[3], &[1i64, 2, 3]).compression(Compression::ZSTD).checksum(Checksum::Sha256))
        .unwrap();
    w.finish().unwrap();
    let new = std::fs::read(&p).unwrap();
    assert_eq!(&new[..blob_end], &old[..blob_end]);
    let f = File::parse(&new).unwrap();
    assert_eq!(f.objects().map(|o| o.name()).collect::<Vec<_>>(), ["v", "new"]);
    assert_eq!(f.require("v").unwrap().data().unwrap().to_vec().unwrap(), [5; 4]);
    assert_eq!(f.require("new").unwrap().data().unwrap().to_vec_of::<i64>().unwrap(), [1, 2, 3]);
    assert_eq!(f.attributes().get("appended").unwrap().as_bool(), Some(true));
    assert_eq!(entries(dir.path()), ["a.zt"]);

    // Not a v1.2 file / not a file.
    let v11 = fixtures().join("v1.1/dense_all_dtypes.zt");
    assert!(matches!(Writer::append(&v11).unwrap_err().kind(), ErrorKind::Unsupported { .. }));
    let v01 = fixtures().join("v0.1/empty.zt");
    assert!(matches!(Writer::append(&v01).unwrap_err().kind(), ErrorKind::Unsupported { .. }));
    assert_eq!(Writer::append(dir.path().join("missing.zt")).unwrap_err().kind(), ErrorKind::Io);
    std::fs::write(dir.path().join("junk.zt"), [0u8; 100]).unwrap();
    assert_eq!(Writer::append(dir.path().join("junk.zt")).unwrap_err().kind(), ErrorKind::BadMagic);
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Files the reference wrote can be appended to: every old object keeps its
/// metadata (digests, attributes, types, offsets) and data.
#[test]
fn append_to_reference_files() {
    let dir = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(fixtures().join("v1.2")).unwrap() {
        let src = e.unwrap().path();
        let name = src.file_name().unwrap().to_str().unwrap().to_owned();
        if !name.ends_with(".zt") || name == "names_edge.zt" || name == "sparse_nonconformant.zt" {
            continue;
        }
        let p = dir.path().join(&name);
        std::fs::copy(&src, &p).unwrap();
        let old = std::fs::read(&p).unwrap();
        let mut w = Writer::append(&p).unwrap();
        w.add_slice("zz_appended", &[2], &[1.5f32, 2.5]).unwrap();
        w.finish().unwrap();
        let new = std::fs::read(&p).unwrap();
        let (fo, fnew) = (File::parse(&old).unwrap(), File::parse(&new).unwrap());
        assert_eq!(fnew.len(), fo.len() + 1, "{name}");
        for o in fo.objects() {
            let n = fnew.require(o.name()).unwrap();
            assert_eq!(n.shape().to_vec(), o.shape().to_vec());
            assert_eq!(n.format(), o.format());
            assert_eq!(format!("{:?}", n.attributes()), format!("{:?}", o.attributes()), "{name}/{}", o.name());
            for c in o.components() {
                let d = n.require(c.role()).unwrap();
                assert_eq!((d.dtype(), d.logical_type(), d.encoding()), (c.dtype(), c.logical_type(), c.encoding()));
                assert_eq!((d.offset(), d.length(), d.digest()), (c.offset(), c.length(), c.digest()));
                assert_eq!(d.uncompressed_length(), c.uncompressed_length());
                assert_eq!(d.to_vec().unwrap(), c.to_vec().unwrap());
                d.verify_digest().unwrap();
            }
        }
    }
}

/// Every v1.2 reference fixture, rewritten object by object with this
/// writer (same dtypes, types, encodings, digest algorithms, attributes),
/// reads back with the same data.
#[test]
fn rewrites_reference_fixtures() {
    for e in std::fs::read_dir(fixtures().join("v1.2")).unwrap() {
        let src = e.unwrap().path();
        let name = src.file_name().unwrap().to_str().unwrap().to_owned();
        if !name.ends_with(".zt") || name == "names_edge.zt" || name == "sparse_nonconformant.zt" {
            continue;
        }
        let old = std::fs::read(&src).unwrap();
        let f = File::parse(&old).unwrap();
        let mut w = Writer::new(Vec::new());
        let datas: Vec<Vec<Vec<u8>>> = f.objects().map(|o| o.components().map(|c| c.to_vec().unwrap()).collect()).collect();
        for (o, data) in f.objects().zip(&datas) {
            let shape = o.shape().to_vec();
            let mut n = NewObject::new(o.name(), o.format(), &shape);
            for (k, v) in o.attributes().iter() {
                n = n.attribute(k.as_str().unwrap(), v);
            }
            for (c, d) in o.components().zip(data) {
                let mut nc = NewComponent::new(c.role(), c.dtype(), &d[..]);
                if let Some(t) = c.logical_type() {
                    nc = nc.logical_type(t);
                }
                if c.encoding() == Encoding::Zstd {
                    nc = nc.compression(Compression::ZSTD);
                }
                match c.digest().map(|d| d.split(':').next().unwrap()) {
                    Some("sha256") => nc = nc.checksum(Checksum::Sha256),
                    Some("crc32c") => nc = nc.checksum(Checksum::Crc32c),
                    _ => nc = nc.checksum(Checksum::None),
                }
                n = n.component(nc);
            }
            w.add(n).unwrap();
        }
        let bytes = w.finish().unwrap();
        let g = File::parse(&bytes).unwrap();
        assert_eq!(g.len(), f.len(), "{name}");
        for (a, b) in f.objects().zip(g.objects()) {
            assert_eq!(a.name(), b.name());
            assert_eq!(format!("{:?}", a.attributes()), format!("{:?}", b.attributes()), "{name}");
            for (x, y) in a.components().zip(b.components()) {
                assert_eq!((x.role(), x.dtype(), x.logical_type(), x.encoding()), (y.role(), y.dtype(), y.logical_type(), y.encoding()));
                assert_eq!(x.digest().is_some(), y.digest().is_some());
                assert_eq!(x.to_vec().unwrap(), y.to_vec().unwrap(), "{name}/{}", a.name());
                y.verify_digest().unwrap();
            }
        }
    }
}
