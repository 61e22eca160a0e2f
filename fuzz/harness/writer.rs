//! (e) writer_roundtrip: the writer's output reads back as written.

use super::*;

// ====================================================================
// (e) writer_roundtrip: the writer's output reads back as written
// ====================================================================

use ztensor::write::AttrValue;

use ztensor::write::v1_2::{Checksum, Compression, NewComponent, NewObject, Writer};

#[derive(Arbitrary, Debug)]
pub struct WFile {
    attrs: Vec<(String, WAttr)>,
    objects: Vec<WObject>,
    append: Vec<WObject>,
}

#[derive(Arbitrary, Debug, Clone)]
enum WAttr {
    Uint(u64),
    NegInt(u64),
    Float(f64),
    Text(String),
    Bytes(Vec<u8>),
    Bool(bool),
    Null,
    Array(Vec<WAttr>),
    Map(Vec<(WAttr, WAttr)>),
    Tag(u64, Box<WAttr>),
    Cbor(Vec<u8>),
    Deep(u8),
}

#[derive(Arbitrary, Debug)]
struct WObject {
    name: String,
    kind: WKind,
    compression: Option<i8>,
    checksum: u8,
    attrs: Vec<(String, WAttr)>,
    ltype: Option<u8>,
}

#[derive(Arbitrary, Debug)]
enum WKind {
    Dense { dtype: u8, dims: Vec<u8>, fill: Vec<u8>, exact: bool },
    Csr { rows: u8, cols: u8, nnz_per_row: Vec<u8> },
    Coo { dims: Vec<u8>, nnz: u8 },
    Quantized { dims: Vec<u8>, groups: u8 },
    Custom { format: String, dims: Vec<u8>, comps: Vec<(String, u8, Vec<u8>, Option<i8>)> },
}

fn to_attr(a: &WAttr) -> AttrValue {
    match a {
        WAttr::Uint(n) => AttrValue::Uint(*n),
        WAttr::NegInt(n) => AttrValue::NegInt(*n),
        WAttr::Float(f) => AttrValue::Float(*f),
        WAttr::Text(s) => AttrValue::Text(s.clone()),
        WAttr::Bytes(b) => AttrValue::Bytes(b.clone()),
        WAttr::Bool(b) => AttrValue::Bool(*b),
        WAttr::Null => AttrValue::Null,
        WAttr::Array(v) => AttrValue::Array(v.iter().map(to_attr).collect()),
        WAttr::Map(v) => AttrValue::Map(v.iter().map(|(k, v)| (to_attr(k), to_attr(v))).collect()),
        WAttr::Tag(t, v) => AttrValue::Tag(*t, Box::new(to_attr(v))),
        WAttr::Cbor(b) => AttrValue::Cbor(b.clone()),
        WAttr::Deep(n) => {
            let mut v = AttrValue::Uint(0);
            for _ in 0..*n {
                v = AttrValue::Array(vec![v]);
            }
            v
        }
    }
}

/// Does the value read back equal the value written?
fn attr_eq(v: Value<'_>, a: &AttrValue) -> bool {
    match (v.get(), a) {
        (_, AttrValue::Cbor(b)) => v.raw() == &b[..],
        (ValueRef::Uint(x), AttrValue::Uint(y)) => x == *y,
        (ValueRef::NegInt(x), AttrValue::NegInt(y)) => x == *y,
        (ValueRef::Float(x), AttrValue::Float(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        (ValueRef::Text(c), AttrValue::Text(s)) => c.contiguous() == Some(s.as_bytes()),
        (ValueRef::Bytes(c), AttrValue::Bytes(b)) => c.contiguous() == Some(&b[..]),
        (ValueRef::Bool(x), AttrValue::Bool(y)) => x == *y,
        (ValueRef::Null, AttrValue::Null) => true,
        (ValueRef::Array(x), AttrValue::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(v, a)| attr_eq(v, a)),
        (ValueRef::Map(x), AttrValue::Map(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((k, v), (ka, va))| attr_eq(k, ka) && attr_eq(v, va))
        }
        (ValueRef::Tag(t, x), AttrValue::Tag(u, y)) => t == *u && attr_eq(x, y),
        _ => false,
    }
}

/// Final attributes after setting `attrs` in order (a key set again keeps
/// its first position, takes the last value).
fn final_attrs(attrs: &[(String, WAttr)]) -> Vec<(String, AttrValue)> {
    let mut out: Vec<(String, AttrValue)> = Vec::new();
    for (k, v) in attrs.iter().take(8) {
        let v = to_attr(v);
        match out.iter_mut().find(|(x, _)| x == k) {
            Some(e) => e.1 = v,
            None => out.push((k.clone(), v)),
        }
    }
    out
}

/// One object to write, with its components' decoded bytes.
struct Planned {
    name: String,
    format: String,
    dims: Vec<u64>,
    comps: Vec<(String, DType, Vec<u8>)>,
    checksum: Checksum,
    attrs: Vec<(String, AttrValue)>,
    /// Whether its data satisfies `check_data` by construction.
    sound: bool,
}

fn u64s(v: impl IntoIterator<Item = u64>) -> Vec<u8> {
    v.into_iter().flat_map(u64::to_le_bytes).collect()
}

fn plan(o: &WObject) -> (Planned, Compression, Option<u8>) {
    let small = |v: &[u8]| -> Vec<u64> { v.iter().take(4).map(|&x| x as u64 % 6).collect() };
    let (format, dims, comps, sound) = match &o.kind {
        WKind::Dense { dtype, dims, fill, exact } => {
            let dt = DType::ALL[*dtype as usize % 13];
            let dims = small(dims);
            let n = (dims.iter().product::<u64>() * dt.width()) as usize;
            let fill = if fill.is_empty() { vec![1] } else { fill.clone() };
            let mut bytes: Vec<u8> =
                (0..n).map(|i| if dt == DType::Bool { fill[i % fill.len()] & 1 } else { fill[i % fill.len()] }).collect();
            if !exact {
                bytes.push(0); // one byte too many: refused
            }
            ("dense".to_string(), dims, vec![("data".to_string(), dt, bytes)], *exact)
        }
        WKind::Csr { rows, cols, nnz_per_row } => {
            let (rows, cols) = (*rows as u64 % 6, *cols as u64 % 6);
            let mut indptr = vec![0u64];
            let mut indices = Vec::new();
            for r in 0..rows {
                let k = nnz_per_row.get(r as usize).map_or(0, |&x| x as u64 % (cols + 1));
                indices.extend(0..k);
                indptr.push(indptr.last().unwrap() + k);
            }
            let values: Vec<u8> = (0..indices.len() as u64).flat_map(|i| (i as f32).to_le_bytes()).collect();
            (
                "sparse_csr".to_string(),
                vec![rows, cols],
                vec![
                    ("values".to_string(), DType::F32, values),
                    ("indices".to_string(), DType::U64, u64s(indices)),
                    ("indptr".to_string(), DType::U64, u64s(indptr)),
                ],
                true,
            )
        }
        WKind::Coo { dims, nnz } => {
            let dims: Vec<u64> = small(dims).into_iter().map(|d| d + 1).collect();
            let nnz = *nnz as u64 % 5;
            let mut coords = Vec::new();
            for d in &dims {
                coords.extend((0..nnz).map(|i| i % d));
            }
            let values: Vec<u8> = (0..nnz).flat_map(|i| (i as f64).to_le_bytes()).collect();
            (
                "sparse_coo".to_string(),
                dims,
                vec![("values".to_string(), DType::F64, values), ("coords".to_string(), DType::U64, u64s(coords))],
                true,
            )
        }
        WKind::Quantized { dims, groups } => {
            let g = *groups as usize % 4 + 1;
            (
                "quantized_group".to_string(),
                small(dims),
                vec![
                    ("packed_weight".to_string(), DType::I32, vec![3; 4 * g]),
                    ("scales".to_string(), DType::F16, vec![0; 2 * g]),
                    ("zeros".to_string(), DType::F16, vec![0; 2 * g]),
                ],
                true,
            )
        }
        WKind::Custom { format, dims, comps } => (
            format.clone(),
            small(dims),
            comps.iter().take(4).map(|(r, d, b, _)| (r.clone(), DType::ALL[*d as usize % 13], b.clone())).collect(),
            false,
        ),
    };
    let compression = match o.compression {
        None => Compression::Raw,
        Some(l) => Compression::Zstd(l as i32 % 8),
    };
    let checksum = [Checksum::None, Checksum::Crc32c, Checksum::Sha256][o.checksum as usize % 3];
    (
        Planned { name: o.name.clone(), format, dims, comps, checksum, attrs: final_attrs(&o.attrs), sound },
        compression,
        o.ltype,
    )
}

fn new_object<'p>(p: &'p Planned, compression: Compression, ltype: Option<u8>, o: &WObject) -> NewObject<'p> {
    let format = Format::parse(&p.format);
    let mut obj = NewObject::new(p.name.as_str(), format, &p.dims).compression(compression).checksum(p.checksum);
    for (i, (role, dt, bytes)) in p.comps.iter().enumerate() {
        let mut c = NewComponent::new(role.as_str(), *dt, &bytes[..]);
        if let WKind::Custom { comps, .. } = &o.kind {
            if let Some(level) = comps[i].3 {
                c = c.compression(Compression::Zstd(level as i32 % 8));
            }
        }
        obj = obj.component(c);
    }
    if let Some(k) = ltype {
        obj = obj.logical_type(LogicalType::parse(LTYPES[k as usize % 6]));
    }
    for (k, v) in &p.attrs {
        obj = obj.attribute(k, v.clone());
    }
    obj
}

/// Write, read back, compare; then append and compare again.
pub fn writer_roundtrip(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(d) = WFile::arbitrary(&mut u) else { return };
    let planned: Vec<_> = d.objects.iter().take(16).map(plan).collect();

    let write = || {
        let mut w = Writer::new(Vec::new());
        let mut file_attrs: Vec<(String, AttrValue)> = Vec::new();
        for (k, v) in d.attrs.iter().take(8) {
            let v = to_attr(v);
            if w.set_attribute(k, v.clone()).is_ok() {
                match file_attrs.iter_mut().find(|(x, _)| x == k) {
                    Some(e) => e.1 = v,
                    None => file_attrs.push((k.clone(), v)),
                }
            }
        }
        let mut accepted = Vec::new();
        for (i, (p, c, l)) in planned.iter().enumerate() {
            let before = (w.len(), w.contains(&p.name));
            match w.add(new_object(p, *c, *l, &d.objects[i])) {
                Ok(()) => {
                    assert_eq!(w.len(), before.0 + 1);
                    assert!(!before.1, "a duplicate name was accepted");
                    accepted.push(i);
                }
                Err(_) => assert_eq!((w.len(), w.contains(&p.name)), before, "a refused object changed the writer"),
            }
        }
        let bytes = w.finish().unwrap_or_else(|e| panic!("finish after accepted objects failed: {e}"));
        (bytes, accepted, file_attrs)
    };
    let (bytes, accepted, file_attrs) = write();
    let (again, _, _) = write();
    assert!(bytes == again, "the writer is not deterministic");

    let f = File::parse(&bytes).unwrap_or_else(|e| panic!("the writer's output does not open: {e}"));
    assert_eq!(f.version(), ztensor::Version::V1_2);
    assert_eq!(f.len(), accepted.len());
    check_attrs(f.attributes(), &file_attrs);
    for (o, &i) in f.objects().zip(&accepted) {
        let (p, compression, _) = &planned[i];
        check_written(&o, p, *compression);
    }
    walk_file(&f, Some(&bytes));

    // Append to the file in memory: old objects keep their bytes.
    let Ok(mut w) = Writer::append_to_vec(bytes.clone()) else {
        panic!("append_to_vec refused the writer's own file")
    };
    let more: Vec<_> = d.append.iter().take(4).map(plan).collect();
    let mut added = Vec::new();
    for (i, (p, c, l)) in more.iter().enumerate() {
        if w.add(new_object(p, *c, *l, &d.append[i])).is_ok() {
            added.push(i);
        }
    }
    let appended = w.finish().unwrap_or_else(|e| panic!("finish after append failed: {e}"));
    let g = File::parse(&appended).unwrap_or_else(|e| panic!("the appended file does not open: {e}"));
    assert_eq!(g.len(), f.len() + added.len());
    check_attrs(g.attributes(), &file_attrs);
    for (a, b) in f.objects().zip(g.objects()) {
        assert_eq!(a.name(), b.name());
        assert_eq!(a.shape().to_vec(), b.shape().to_vec());
        for (x, y) in a.components().zip(b.components()) {
            assert_eq!((x.role(), x.offset(), x.length(), x.digest()), (y.role(), y.offset(), y.length(), y.digest()));
            assert_eq!(x.stored_bytes().unwrap(), y.stored_bytes().unwrap());
        }
        assert_eq!(a.attributes().len(), b.attributes().len());
    }
    for (o, &i) in g.objects().skip(f.len()).zip(&added) {
        let (p, compression, _) = &more[i];
        check_written(&o, p, *compression);
    }
    walk_file(&g, Some(&appended));
}

fn check_attrs(m: ztensor::Map<'_>, want: &[(String, AttrValue)]) {
    assert_eq!(m.len(), want.len(), "attribute count");
    for (k, v) in want {
        let got = m.get(k).unwrap_or_else(|| panic!("attribute {k:?} lost"));
        assert!(attr_eq(got, v), "attribute {k:?}: wrote {v:?}, read {got:?}");
    }
}

fn check_written(o: &Object<'_>, p: &Planned, compression: Compression) {
    assert_eq!(o.name(), p.name);
    assert_eq!(o.format().name(), p.format);
    assert_eq!(o.shape().to_vec(), p.dims);
    check_attrs(o.attributes(), &p.attrs);
    let comps: Vec<_> = o.components().collect();
    assert_eq!(comps.len(), p.comps.len());
    for (c, (role, dt, bytes)) in comps.iter().zip(&p.comps) {
        assert_eq!(c.role(), role);
        assert_eq!(c.dtype(), *dt);
        assert_eq!(c.offset() % 64, 0);
        let v = c.to_vec().unwrap_or_else(|e| panic!("{:?}/{role}: {e}", p.name));
        assert!(v == *bytes, "{:?}/{role}: data differs", p.name);
        if compression == Compression::Raw && c.encoding() == Encoding::Raw {
            assert_eq!(c.stored_bytes().unwrap(), &bytes[..]);
        }
        match p.checksum {
            Checksum::None => assert!(c.digest().is_none()),
            _ => assert!(matches!(c.verify_digest(), Ok(Verified::Ok)), "digest of {:?}/{role}", p.name),
        }
    }
    if p.sound {
        o.check_data().unwrap_or_else(|e| panic!("check_data of a written {}: {e}", p.format));
    }
}
