#![cfg(feature = "std")]
//! Files written by the reference implementation (`ztensor` 1.2.3, 1.1.1 and
//! 0.1.4 from PyPI; see tests/fixtures/gen) read back exactly as the
//! generator recorded: names, shapes, formats, types and the sha256 of every
//! component's decoded bytes, computed by the generator from its own arrays.

mod host_order;

use host_order::{host_can_view, typed_read_and_view, NOT_HOST_ORDER};
use serde_json::Value as Json;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use ztensor::{DType, Encoding, ErrorKind, File, Format, LogicalType, Version};

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    for v in ["v0.1", "v1.1", "v1.2"] {
        for e in std::fs::read_dir(root.join(v)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "zt") {
                out.push(p);
            }
        }
    }
    out.sort();
    assert!(out.len() >= 25, "fixtures missing: {}", out.len());
    out
}

fn expected(p: &Path) -> Json {
    let j = p.with_extension("expected.json");
    serde_json::from_slice(&std::fs::read(&j).unwrap()).unwrap()
}

/// Files the reference wrote that break a rule we enforce (see NOTES.md),
/// with the error we must give.
fn refused(p: &Path) -> Option<ErrorKind> {
    let name = p.file_name()?.to_str()?;
    let dir = p.parent()?.file_name()?.to_str()?;
    match (dir, name) {
        // i32/u32 indices and i64 coords: v1.2 requires u64.
        ("v1.2", "sparse_nonconformant.zt") => Some(ErrorKind::IndexDType),
        // An empty object name: DESIGN.md requires non-empty names.
        ("v1.2", "names_edge.zt") => Some(ErrorKind::EmptyName),
        _ => None,
    }
}

/// The manifest's dtype spelling, mapped to ours (v0.1 uses numpy names).
fn dtype_of(s: &str, v0: bool) -> DType {
    if v0 {
        DType::from_v0_1(s).unwrap()
    } else {
        DType::from_v1_1(s).unwrap().0
    }
}

#[test]
fn every_reference_fixture_reads_bit_identically() {
    let mut checked_components = 0;
    for path in fixtures() {
        let bytes = std::fs::read(&path).unwrap();
        let exp = expected(&path);
        let label = path.display().to_string();
        if let Some(kind) = refused(&path) {
            let err = File::parse(&bytes).unwrap_err();
            assert_eq!(err.kind(), kind, "{label}: {err}");
            continue;
        }
        let file = File::parse(&bytes).unwrap_or_else(|e| panic!("{label}: {e}"));
        let v0 = exp["magic"] == "ZTEN0001";
        match exp["spec_version"].as_str() {
            Some(v) => assert_eq!(file.version(), Version::parse(v).unwrap(), "{label}"),
            None => assert_eq!(file.version(), Version::V0_1, "{label}"),
        }
        let objects = exp["objects"].as_array().unwrap();
        assert_eq!(file.len(), objects.len(), "{label}");
        for (obj, e) in file.objects().zip(objects) {
            let name = e["name"].as_str().unwrap();
            assert_eq!(obj.name(), name, "{label}");
            let ctx = format!("{label} / {name}");
            let shape: Vec<u64> = e["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap()).collect();
            assert_eq!(obj.shape().to_vec(), shape, "{ctx}");
            assert_eq!(obj.format().name(), e["format"].as_str().unwrap(), "{ctx}");
            // Lookup by name finds the same object.
            assert_eq!(file.get(name).unwrap().index(), obj.index(), "{ctx}");
            let comps = e["components"].as_object().unwrap();
            assert_eq!(obj.component_count(), comps.len(), "{ctx}");
            for (role, ce) in comps {
                let c = obj.component(role).unwrap_or_else(|| panic!("{ctx}: no {role}"));
                assert_eq!(c.dtype(), dtype_of(ce["dtype"].as_str().unwrap(), v0), "{ctx}/{role}");
                assert_eq!(c.logical_type().map(|t| t.name()), ce["type"].as_str(), "{ctx}/{role}");
                assert_eq!(c.encoding().name(), ce["encoding"].as_str().unwrap(), "{ctx}/{role}");
                let decoded = c.to_vec().unwrap_or_else(|err| panic!("{ctx}/{role}: {err}"));
                assert_eq!(decoded.len() as u64, ce["decoded_len"].as_u64().unwrap(), "{ctx}/{role}");
                assert_eq!(hex::encode(Sha256::digest(&decoded)), ce["sha256"].as_str().unwrap(), "{ctx}/{role}");
                // Every digest the reference wrote verifies.
                if c.digest().is_some() {
                    assert_eq!(c.verify_digest().unwrap(), ztensor::digest::Verified::Ok, "{ctx}/{role}");
                }
                checked_components += 1;
            }
        }
    }
    assert!(checked_components > 20_000, "{checked_components}");
}

#[test]
fn tail_only_parse_lists_the_same_objects() {
    for path in fixtures() {
        if refused(&path).is_some() {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let whole = File::parse(&bytes).unwrap();
        let footer = &bytes[bytes.len() - 16..];
        let tail = ztensor::Tail::from_footer(footer, bytes.len() as u64).unwrap();
        let r = tail.manifest_range();
        let m = &bytes[r.start as usize..r.end as usize];
        let t = File::parse_tail(footer, m, bytes.len() as u64).unwrap();
        assert_eq!(t.len(), whole.len());
        for (a, b) in t.objects().zip(whole.objects()) {
            assert_eq!(a.name(), b.name());
            assert_eq!(a.shape().to_vec(), b.shape().to_vec());
            for (ca, cb) in a.components().zip(b.components()) {
                assert_eq!((ca.offset(), ca.length()), (cb.offset(), cb.length()));
                assert_eq!(ca.stored_bytes().unwrap_err().kind(), ErrorKind::NoData);
            }
        }
    }
}

fn open(rel: &str) -> (Vec<u8>, Json) {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(rel);
    (std::fs::read(&p).unwrap(), expected(&p))
}

#[test]
fn typed_zero_copy_views_of_raw_data() {
    let (bytes, _) = open("v1.2/dense_all_dtypes.zt");
    // Copy into a 64-byte aligned buffer so every blob is aligned in memory.
    let mut aligned = vec![0u64; bytes.len().div_ceil(8) + 8];
    let off = (64 - (aligned.as_ptr() as usize % 64)) % 64;
    let buf = &mut bytemuck_bytes(&mut aligned)[off..off + bytes.len()];
    buf.copy_from_slice(&bytes);
    let file = File::parse(buf).unwrap();
    let mut seen = 0;
    for obj in file.objects() {
        let c = obj.data().unwrap();
        let n = obj.shape().numel() as usize;
        // Typed reads (any host) and, where the host has one, the zero-copy
        // view: the same elements, as many as the shape says.
        let got = match c.dtype() {
            DType::F64 => typed_read_and_view::<f64>(&c).len(),
            DType::F32 => typed_read_and_view::<f32>(&c).len(),
            DType::F16 | DType::BF16 | DType::U16 => typed_read_and_view::<u16>(&c).len(),
            DType::I64 => typed_read_and_view::<i64>(&c).len(),
            DType::I32 => typed_read_and_view::<i32>(&c).len(),
            DType::I16 => typed_read_and_view::<i16>(&c).len(),
            DType::I8 => typed_read_and_view::<i8>(&c).len(),
            DType::U64 => typed_read_and_view::<u64>(&c).len(),
            DType::U32 => typed_read_and_view::<u32>(&c).len(),
            DType::U8 | DType::Bool => typed_read_and_view::<u8>(&c).len(),
        };
        assert_eq!(got, n, "{}", obj.name());
        if c.dtype() == DType::F32 {
            // The element type is checked before anything else, on any host.
            assert_eq!(c.as_slice::<u32>().unwrap_err().kind(), ErrorKind::TypeMismatch);
        }
        seen += 1;
    }
    assert_eq!(seen, 13);
}

fn bytemuck_bytes(v: &mut [u64]) -> &mut [u8] {
    let len = v.len() * 8;
    // SAFETY-free: build through zerocopy.
    zerocopy::IntoBytes::as_mut_bytes(v).get_mut(..len).unwrap()
}

#[test]
fn zero_copy_is_refused_where_it_would_be_wrong() {
    let (bytes, _) = open("v1.2/zstd.zt");
    let file = File::parse(&bytes).unwrap();
    let z = file
        .objects()
        .flat_map(|o| o.components().collect::<Vec<_>>())
        .find(|c| c.encoding() == Encoding::Zstd && c.dtype() == DType::U8)
        .unwrap();
    assert!(matches!(z.as_slice::<u8>().unwrap_err().kind(), ErrorKind::NotZeroCopy { .. }));
    // A view at an odd address is refused, never silently misread.
    let (bytes, _) = open("v1.2/dense_all_dtypes.zt");
    let mut shifted = vec![0u8; bytes.len() + 8];
    let mut at = 0;
    for start in 0..8 {
        if (shifted[start..].as_ptr() as usize + 64) % 4 != 0 {
            at = start;
            break;
        }
    }
    shifted[at..at + bytes.len()].copy_from_slice(&bytes);
    let file = File::parse(&shifted[at..at + bytes.len()]).unwrap();
    let c = file.objects().map(|o| o.data().unwrap()).find(|c| c.dtype() == DType::F32).unwrap();
    let refusal = c.as_slice::<f32>().unwrap_err().kind();
    assert!(matches!(refusal, ErrorKind::NotZeroCopy { .. }));
    // A big-endian host refuses for the byte order before looking at the address.
    let expected = if host_can_view::<f32>() {
        ErrorKind::NotZeroCopy { reason: "the data is not aligned for this type in memory" }
    } else {
        NOT_HOST_ORDER
    };
    assert_eq!(refusal, expected);
    assert!(c.to_vec_of::<f32>().is_ok());
}

#[test]
fn fp8_and_complex_logical_types() {
    let (bytes, _) = open("v1.2/fp8_complex.zt");
    let file = File::parse(&bytes).unwrap();
    let c = file.require("complex64").unwrap().data().unwrap();
    assert_eq!((c.dtype(), c.logical_type()), (DType::F32, Some(LogicalType::Complex64)));
    let f = file.require("f8_e4m3fn").unwrap().data().unwrap();
    assert_eq!((f.dtype(), f.logical_type()), (DType::U8, Some(LogicalType::F8E4M3Fn)));
}

#[test]
fn sparse_and_quantized_objects() {
    let (bytes, _) = open("v1.2/quantized.zt");
    let file = File::parse(&bytes).unwrap();
    let q = file.objects().find(|o| o.format() == Format::QuantizedGroup).unwrap();
    assert!(q.attributes().get("bits").unwrap().as_u64().is_some());
    for role in ["packed_weight", "scales", "zeros"] {
        assert!(q.component(role).is_some());
    }
    let (bytes, _) = open("v1.2/sparse.zt");
    let file = File::parse(&bytes).unwrap();
    assert!(file.objects().any(|o| o.format() == Format::SparseCsr));
    assert!(file.objects().any(|o| o.format() == Format::SparseCoo));
}

#[test]
fn attributes_of_every_kind() {
    let (bytes, _) = open("v1.2/attributes.zt");
    let file = File::parse(&bytes).unwrap();
    let mut n = 0;
    for o in file.objects() {
        for (k, v) in o.attributes().iter() {
            assert!(k.as_str().is_some());
            let _ = format!("{v:?}");
            n += 1;
        }
    }
    assert!(n > 5, "{n}");
}

#[test]
fn many_objects_lookup() {
    let (bytes, _) = open("v1.2/many_objects.zt");
    let file = File::parse(&bytes).unwrap();
    assert_eq!(file.len(), 20_000);
    for i in (0..20_000).step_by(97) {
        let name = format!("t{i}");
        assert_eq!(file.get(&name).unwrap().name(), name);
    }
    assert!(file.get("t20000").is_none());
    assert_eq!(file.object(19_999).unwrap().index(), 19_999);
}

#[test]
fn names_match_objects_in_manifest_order() {
    for path in fixtures() {
        if refused(&path).is_some() {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let file = File::parse(&bytes).unwrap();
        let names: Vec<&str> = file.names().collect();
        let from_objects: Vec<&str> = file.objects().map(|o| o.name()).collect();
        assert_eq!(names, from_objects, "{}", path.display());
        assert_eq!(names.len(), file.len());
    }
}
