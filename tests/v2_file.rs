#![cfg(feature = "alloc")]
//! Format v2 through the public API: every file upstream (PyPI `ztensor`
//! 2.1.2) wrote in `tests/fixtures/v2/valid`, opened with [`File::parse`]
//! and from its tail, each part read bit-identically (the sha256 of its
//! decoded bytes, from `manifest.json`), verified, and its content digest.

mod host_order;

use sha2::{Digest as _, Sha256};
use std::fs;
use ztensor::{Encoding, ErrorKind, File, Version};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/v2");

fn json(path: &str) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(format!("{DIR}/{path}")).unwrap()).unwrap()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A part of the record, compared with the component of the same role.
fn check_component(c: &ztensor::Component<'_>, want: &serde_json::Value, ctx: &str) {
    assert_eq!(c.dtype().name(), want["dtype"], "{ctx}");
    assert_eq!(c.logical_type().map(|t| t.name()), want["type"].as_str(), "{ctx}");
    assert_eq!(c.encoding_id(), want["encoding"].as_str().unwrap_or("raw"), "{ctx}");
    assert_eq!(c.decoded_len(), want["decoded_length"].as_u64(), "{ctx}");
    assert!(c.digest().unwrap().starts_with("xxh3:") && c.digest_covers_decoded(), "{ctx}");
    let known = !want["type"].as_str().is_some_and(|t| t.starts_with("vendor."));
    if !known {
        // An unknown type opens; decoding it is refused, its bytes stay reachable.
        let e = c.to_vec().unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Unsupported { .. }), "{ctx}: {e}");
        assert_eq!(c.stored_bytes().unwrap().len() as u64, c.length(), "{ctx}");
        return;
    }
    let bytes = c.to_vec().unwrap_or_else(|e| panic!("{ctx}: {e}"));
    assert_eq!(hex(&Sha256::digest(&bytes)), want["sha256"].as_str().unwrap(), "{ctx}: sha256 of decoded bytes");
    let mut out = vec![0u8; bytes.len()];
    assert_eq!(c.read_into(&mut out).unwrap(), bytes.len(), "{ctx}");
    assert_eq!(out, bytes, "{ctx}");
    match c.encoding() {
        // Raw parts are zero-copy.
        // (On a big-endian host, multi-byte elements are refused instead.)
        Encoding::Raw if cfg!(target_endian = "little") || c.dtype().width() == 1 => {
            assert_eq!(c.zero_copy_bytes().unwrap(), &bytes[..], "{ctx}")
        }
        Encoding::Raw => assert_eq!(c.zero_copy_bytes().unwrap_err().kind(), host_order::NOT_HOST_ORDER, "{ctx}"),
        Encoding::ZstdSeekable => assert!(c.zero_copy_bytes().is_err(), "{ctx}"),
        e => panic!("{ctx}: encoding {e:?}"),
    }
}

#[test]
fn reads_upstream_v2_files_bit_identically() {
    let m = json("manifest.json");
    let files = m["files"].as_object().unwrap();
    assert!(files.len() >= 15);
    let mut parts = 0;
    for (name, rec) in files {
        let bytes = fs::read(format!("{DIR}/valid/{name}")).unwrap();
        let f = File::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(f.version(), Version::V2, "{name}");
        assert_eq!(f.layout(), ztensor::container::Layout::V2, "{name}");
        // The same file from its tail alone: the 40-byte footer, then the manifest.
        let t = ztensor::Tail::from_footer(&bytes[bytes.len() - 40..], bytes.len() as u64).unwrap();
        let man = &bytes[t.manifest_offset as usize..(t.manifest_offset + t.manifest_len) as usize];
        let tail = File::parse_tail(&bytes[bytes.len() - 40..], man, bytes.len() as u64).unwrap();
        assert_eq!(tail.len(), f.len(), "{name}");
        assert!(tail.names().eq(f.names()), "{name}");
        let report = f.verify_with(ztensor::verify::Options::ALL, |x| panic!("{name}: {x:?}"));
        assert!(report.is_ok(), "{name}");
        let unknown = name == "unknown_vocab.zt";
        if !unknown {
            assert_eq!(report.digests_checked, report.components, "{name}");
        }
        // Upstream digests every part: the content digest is defined.
        assert!(f.content_digest().is_some(), "{name}");
        if let Some(r) = rec.get("repeat") {
            let count = r["count"].as_u64().unwrap() as usize;
            let cycle = r["cycle"].as_array().unwrap();
            assert_eq!(f.len(), count, "{name}");
            for (i, o) in f.objects().enumerate() {
                assert_eq!(o.name(), format!("t{i:05}"), "{name}");
                assert_eq!(f.get(o.name()).unwrap().index(), i, "{name}");
                check_component(&o.data().unwrap(), &cycle[i % cycle.len()], &format!("{name}/{}", o.name()));
                parts += 1;
            }
            continue;
        }
        let objs = rec["objects"].as_object().unwrap();
        assert_eq!(f.len(), objs.len(), "{name}");
        for (oname, want) in objs {
            let o = f.get(oname).unwrap_or_else(|| panic!("{name}: no object {oname}"));
            assert_eq!(o.name(), oname);
            assert_eq!(o.format().name(), want["layout"].as_str().unwrap(), "{name}/{oname}");
            let shape: Vec<u64> = want["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap()).collect();
            assert_eq!(o.shape().to_vec(), shape, "{name}/{oname}");
            assert_eq!(o.shape().numel(), shape.iter().product::<u64>(), "{name}/{oname}");
            let want_parts = want["parts"].as_object().unwrap();
            assert_eq!(o.component_count(), want_parts.len(), "{name}/{oname}");
            for (role, pw) in want_parts {
                let c = o.require(role).unwrap();
                assert_eq!(c.role(), role);
                check_component(&c, pw, &format!("{name}/{oname}/{role}"));
                parts += 1;
            }
        }
    }
    assert!(parts > 20_000);
}

#[test]
fn typed_zero_copy_and_attributes() {
    let bytes = fs::read(format!("{DIR}/valid/convert.zt")).unwrap();
    let f = File::parse(&bytes).unwrap();
    let o = f.objects().find(|o| o.data().is_ok_and(|c| c.dtype() == ztensor::DType::F32)).unwrap();
    let c = o.data().unwrap();
    let typed = host_order::typed_read::<f32>(&c);
    assert_eq!(typed.len() as u64, o.shape().numel());
    if let Some(v) = host_order::zero_copy(c.as_slice::<f32>()) {
        let bits = |x: &[f32]| x.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(v), bits(&typed), "the view and the typed read agree bit for bit (NaNs too)");
        assert_eq!(v.as_ptr() as usize - bytes.as_ptr() as usize, c.offset() as usize, "zero-copy");
    }
    assert!(matches!(c.as_slice::<i64>().unwrap_err().kind(), ErrorKind::TypeMismatch));
    let bytes = fs::read(format!("{DIR}/valid/types_canonical.zt")).unwrap();
    let f = File::parse(&bytes).unwrap();
    assert!(!f.attributes().is_empty());
    assert!(f.fields().get("objects").is_some());
}

#[test]
fn content_digest_ignores_placement() {
    let read = |n: &str| fs::read(format!("{DIR}/valid/{n}")).unwrap();
    let (a, b) = (read("types_canonical.zt"), read("types_4k.zt"));
    let (a, b) = (File::parse(&a).unwrap(), File::parse(&b).unwrap());
    assert_ne!(a.tail().manifest_offset, b.tail().manifest_offset);
    assert_eq!(a.content_digest().unwrap(), b.content_digest().unwrap());
    let c = read("tied.zt");
    assert_ne!(File::parse(&c).unwrap().content_digest(), a.content_digest());
}

#[test]
fn a_data_shard_opens_with_no_objects() {
    let bytes = fs::read(format!("{DIR}/hostile/c_data_shard.zt")).unwrap();
    let f = File::parse(&bytes).unwrap();
    assert_eq!((f.version(), f.len()), (Version::V2, 0));
}

#[test]
fn parts_in_shards_need_the_shard_file() {
    let bytes = fs::read(format!("{DIR}/sharded/model.zt")).unwrap();
    let f = File::parse(&bytes).unwrap();
    let c = f.get("a").unwrap().data().unwrap();
    assert_eq!(c.shard(), Some("00001-of-00002"));
    let e = c.to_vec().unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Unsupported { .. }), "{e}");
    assert!(e.to_string().contains("shard"), "{e}");
    let local = f.get("local").unwrap().data().unwrap();
    assert_eq!(local.shard(), None);
    assert!(local.to_vec().is_ok());
}

#[test]
#[cfg(feature = "std")]
fn fs_reader_reads_v2_files_in_both_modes() {
    use ztensor::fs::{Mode, Reader};
    let m = json("manifest.json");
    for name in ["types_canonical.zt", "zstd_seekable.zt", "csr_u64.zt"] {
        let objs = m["files"][name]["objects"].as_object().unwrap();
        for mode in [Mode::Mmap, Mode::Positional] {
            let r = Reader::open_with(format!("{DIR}/valid/{name}"), mode).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(r.file().version(), Version::V2);
            for (oname, want) in objs {
                let o = r.file().get(oname).unwrap();
                for (role, pw) in want["parts"].as_object().unwrap() {
                    let c = o.require(role).unwrap();
                    let v = r.to_vec(&c).unwrap_or_else(|e| panic!("{name}/{oname}/{role} {mode:?}: {e}"));
                    assert_eq!(hex(&Sha256::digest(&v)), pw["sha256"].as_str().unwrap(), "{name}/{oname}/{role} {mode:?}");
                    let mut out = vec![0u8; v.len()];
                    assert_eq!(r.read_into(&c, &mut out).unwrap(), v.len());
                    assert_eq!(out, v);
                }
            }
            let report = r.file().verify_from(&r, ztensor::verify::Options::ALL, |x| panic!("{name} {mode:?}: {x:?}"));
            assert_eq!(report.digests_checked, report.components, "{name} {mode:?}");
        }
    }
}

#[test]
#[cfg(feature = "std")]
fn fs_reader_reads_parts_from_shards() {
    use ztensor::fs::{Mode, Reader};
    let want = json("sharded.json");
    for root in ["model.zt", "renamed-root.zt"] {
        for mode in [Mode::Mmap, Mode::Positional] {
            let r = Reader::open_with(format!("{DIR}/sharded/{root}"), mode).unwrap();
            let objs = want["objects"].as_object().unwrap();
            for (oname, w) in objs {
                let c = r.file().get(oname).unwrap().data().unwrap();
                assert_eq!(c.shard(), w["shard"].as_str(), "{root}/{oname}");
                let v = r.to_vec(&c).unwrap_or_else(|e| panic!("{root}/{oname} {mode:?}: {e}"));
                assert_eq!(hex(&Sha256::digest(&v)), w["sha256"].as_str().unwrap(), "{root}/{oname} {mode:?}");
            }
            let report = r.file().verify_from(&r, ztensor::verify::Options::ALL, |x| panic!("{root} {mode:?}: {x:?}"));
            assert!(report.digests_checked >= objs.len(), "{root} {mode:?}");
        }
    }
}

#[test]
#[cfg(feature = "std")]
fn a_missing_shard_fails_reads_of_its_parts_not_the_open() {
    use ztensor::fs::{Error, Reader};
    let r = Reader::open(format!("{DIR}/sharded/missing.zt")).unwrap();
    let mut missing = 0;
    for o in r.file().objects() {
        let c = o.data().unwrap();
        match r.to_vec(&c) {
            Ok(_) => {}
            Err(Error::Format(e)) => {
                assert_eq!(e.kind(), ErrorKind::ShardMissing, "{}: {e}", o.name());
                assert!(e.to_string().contains(c.shard().unwrap()), "{e}");
                missing += 1;
            }
            Err(e) => panic!("{}: {e}", o.name()),
        }
    }
    assert_eq!(missing, 1);
    let report = r.file().verify_from(&r, ztensor::verify::Options::ALL, |_| {});
    assert_eq!(report.problems, 1);
    assert_eq!(report.first_problem.unwrap().kind(), ErrorKind::ShardMissing);
}
