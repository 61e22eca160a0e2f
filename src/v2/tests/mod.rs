//! The v2 reader against upstream's files (tests/fixtures/v2/valid, read
//! bit-identically against manifest.json) and the hand-made hostile files
//! (tests/fixtures/v2/hostile, each refused with its rule).

extern crate std;

use std::string::{String, ToString};
use std::vec::Vec;
use std::{format, fs, println};

use serde_json::Value as Json;
use sha2::{Digest as _, Sha256};

use super::*;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/v2");

fn json(path: &str) -> Json {
    serde_json::from_str(&fs::read_to_string(format!("{DIR}/{path}")).unwrap()).unwrap()
}

/// Open through the no-alloc entry point (scratch from the test's heap), so
/// these tests run in the `--no-default-features` build too.
fn open(file: &[u8]) -> Result<Manifest<'_>> {
    // One span per non-empty blob reference (tied references count each time), plus the manifest.
    let mut scratch = std::vec![[0u64; 2]; crate::v2::manifest::slots_for(file.len())];
    Manifest::parse_with(file, &mut scratch)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The decoded bytes of a part in `file`: raw, or zstd-seekable through the
/// crate's decoder (`None` without `alloc`: the seek table is still checked).
fn decoded(p: &Part<'_>, file: &[u8]) -> Option<Vec<u8>> {
    let blob = p.blob(file).unwrap();
    match p.encoding {
        None => Some(blob.to_vec()),
        #[cfg(not(feature = "alloc"))]
        Some("zt.zstd-seekable/1") => {
            seekable::SeekTable::parse(blob, p.decoded_size()).unwrap();
            None
        }
        #[cfg(feature = "alloc")]
        Some("zt.zstd-seekable/1") => {
            // Through a plain zstd decoder (the seek table is a skippable frame) and through the seek table.
            let whole = crate::zstd::decode_sized(blob, p.decoded_size() as usize).unwrap();
            let t = seekable::SeekTable::parse(blob, p.decoded_size()).unwrap();
            let mut out = std::vec![0u8; p.decoded_size() as usize];
            seekable::decode_into(blob, p.decoded_size(), &mut out).unwrap();
            assert_eq!(out, whole);
            // A range decodes only the frames that cover it.
            if t.len() > 1 {
                let r = t.frames_for(t.frame_size - 1, t.frame_size + 1);
                assert_eq!(r, 0..2);
                let f = t.frame(1);
                assert_eq!(f.decoded_offset, t.frame_size);
                let mut one = std::vec![0u8; f.decoded_len as usize];
                seekable::decode_frames(blob, &t, 1..2, &mut one).unwrap();
                assert_eq!(one[..], whole[f.decoded_offset as usize..(f.decoded_offset + f.decoded_len) as usize]);
            }
            Some(whole)
        }
        Some(e) => panic!("encoding {e}"),
    }
}

fn check_part(file: &[u8], o: &Object<'_, '_>, pname: &str, want: &Json, ctx: &str) {
    let p = o.part(pname).unwrap_or_else(|| panic!("{ctx}: no part {pname}"));
    assert_eq!(p.dtype.name(), want["dtype"], "{ctx}");
    assert_eq!(p.type_name, want["type"].as_str(), "{ctx}");
    assert_eq!(p.encoding, want["encoding"].as_str(), "{ctx}");
    assert_eq!(p.decoded_size(), want["decoded_length"].as_u64().unwrap(), "{ctx}");
    // Upstream digests every part with xxh3.
    assert!(matches!(p.digest, Some(Digest::Xxh3(_))), "{ctx}");
    let Some(bytes) = decoded(&p, file) else { return };
    assert_eq!(hex(&Sha256::digest(&bytes)), want["sha256"].as_str().unwrap(), "{ctx}: sha256 of decoded bytes");
    assert!(verify::part(&p, None, &bytes).unwrap(), "{ctx}");
}

#[test]
fn reads_upstream_fixtures_bit_identically() {
    let m = json("manifest.json");
    let files = m["files"].as_object().unwrap();
    assert!(files.len() >= 15);
    for (name, rec) in files {
        let file = fs::read(format!("{DIR}/valid/{name}")).unwrap();
        let man = open(&file).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Some(r) = rec.get("repeat") {
            let count = r["count"].as_u64().unwrap() as usize;
            assert_eq!(man.len(), count, "{name}");
            let cycle = r["cycle"].as_array().unwrap();
            let mut seen = 0;
            for (i, o) in man.objects().enumerate() {
                assert_eq!(o.name, format!("t{i:05}"), "{name}");
                assert_eq!(o.dims().collect::<Vec<_>>(), [1]);
                check_part(&file, &o, "data", &cycle[i % cycle.len()], &format!("{name}/{}", o.name));
                seen += 1;
            }
            assert_eq!(seen, count);
            continue;
        }
        let objs = rec["objects"].as_object().unwrap();
        assert_eq!(man.len(), objs.len(), "{name}");
        for (oname, want) in objs {
            let o = man.object(oname).unwrap_or_else(|| panic!("{name}: no object {oname}"));
            assert_eq!(o.layout, want["layout"], "{name}/{oname}");
            let shape: Vec<u64> = want["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap()).collect();
            assert_eq!(o.dims().collect::<Vec<_>>(), shape, "{name}/{oname}");
            let parts = want["parts"].as_object().unwrap();
            assert_eq!(o.num_parts(), parts.len(), "{name}/{oname}");
            for (pname, pw) in parts {
                check_part(&file, &o, pname, pw, &format!("{name}/{oname}/{pname}"));
            }
            let encoded = o.parts().any(|p| !p.unwrap().is_raw());
            if !o.layout.starts_with("vendor.") && (cfg!(feature = "alloc") || !encoded) {
                verify::object(&o, &file).unwrap_or_else(|e| panic!("{name}/{oname}: {e}"));
            }
        }
    }
}

#[test]
fn profiles_of_upstream_fixtures() {
    let file = fs::read(format!("{DIR}/valid/quant_group.zt")).unwrap();
    let m = open(&file).unwrap();
    let Profile::QuantGroup(q) = m.object("awq").unwrap().profile() else { panic!() };
    assert_eq!((q.bits, q.group_size, q.axis, q.per_word), (4, 128, 0, 8));
    assert_eq!(q.zero_point, layout::ZeroPoint::Tensor { same_as_data: true });
    let Profile::QuantGroup(q) = m.object("bias8").unwrap().profile() else { panic!() };
    assert_eq!(q.zero_point, layout::ZeroPoint::Implied(8));
    let file = fs::read(format!("{DIR}/valid/csr_u64.zt")).unwrap();
    let m = open(&file).unwrap();
    assert_eq!(m.object("m").unwrap().profile(), Profile::Csr { index: types::DType::U64 });
    let file = fs::read(format!("{DIR}/valid/mx.zt")).unwrap();
    let m = open(&file).unwrap();
    let Profile::Mx(x) = m.object("mxfp8_e5m2_axis0").unwrap().profile() else { panic!() };
    assert_eq!((x.block_size, x.axis, x.element), (32, 0, Some(types::LogicalType::F8E5M2)));
    let file = fs::read(format!("{DIR}/valid/gguf.zt")).unwrap();
    let m = open(&file).unwrap();
    assert_eq!(
        m.object("q8_0").unwrap().profile(),
        Profile::Gguf { ty: "q8_0", elems_per_block: 32, block_bytes: 34 }
    );
    let file = fs::read(format!("{DIR}/valid/unknown_vocab.zt")).unwrap();
    let m = open(&file).unwrap();
    assert_eq!(m.object("custom_layout").unwrap().profile(), Profile::Unknown("vendor.thing/1"));
}

#[test]
fn no_alloc_scratch_and_tail() {
    let file = fs::read(format!("{DIR}/valid/types_canonical.zt")).unwrap();
    let mut scratch = [[0u64; 2]; 128];
    let m = Manifest::parse_with(&file, &mut scratch).unwrap();
    let n = m.len();
    assert!(n > 20);
    let mut small = [[0u64; 2]; 8];
    assert_eq!(Manifest::parse_with(&file, &mut small).unwrap_err().kind, Kind::ScratchTooSmall);
    // The crate's error says how many slots suffice, and they do.
    let e = crate::File::parse_with_scratch(&file, &mut small).unwrap_err();
    let crate::ErrorKind::ScratchTooSmall { needed } = e.kind() else { panic!("{e}") };
    let mut enough = std::vec![[0u64; 2]; needed as usize];
    assert_eq!(crate::File::parse_with_scratch(&file, &mut enough).unwrap().len(), n);
    // Direct access by an object's offset (what a name index keeps); any other offset never panics.
    for o in m.objects() {
        assert_eq!(m.object_at(o.offset).unwrap().name, o.name);
    }
    for off in 0..m.bytes().len() + 2 {
        if let Some(o) = m.object_at(off) {
            let _ = (o.dims().count(), o.parts().count(), o.profile());
        }
    }
    let f = m.footer();
    let tail = &file[file.len() - 40..];
    let man = &file[f.manifest_offset as usize..(f.manifest_offset + f.manifest_length) as usize];
    let t = Manifest::parse_tail_with(tail, man, file.len() as u64, &mut scratch).unwrap();
    assert_eq!(t.len(), n);
    // Appended file: the footer at EOF names the second generation.
    let file = fs::read(format!("{DIR}/valid/appended.zt")).unwrap();
    let m = open(&file).unwrap();
    assert_eq!(m.objects().map(|o| o.name).collect::<Vec<_>>(), ["gen1", "gen2"]);
    assert!(m.attributes().is_none());
    let file = fs::read(format!("{DIR}/valid/types_canonical.zt")).unwrap();
    let m = open(&file).unwrap();
    let a = m.attributes().unwrap();
    assert_eq!(a.get("int"), Some(AttrValue::Other(&[0x26])));
    assert_eq!(a.get("text"), Some(AttrValue::Text("ü")));
}

/// The error a hostile entry expects, by stage.
fn outcome(file: &[u8], stage: &str, object: Option<&str>) -> Result<(), String> {
    let m = open(file).map_err(|e| format!("{:?}", e.kind))?;
    if stage == "verify" {
        let o = m.object(object.unwrap()).ok_or("no such object".to_string())?;
        verify::object(&o, file).map_err(|e| format!("{:?}", e.kind))?;
    }
    Ok(())
}

#[test]
fn refuses_every_hostile_file_with_its_rule() {
    let table = json("hostile.json");
    let entries = table["files"].as_object().unwrap();
    assert!(entries.len() > 100);
    let mut bad = Vec::new();
    for (name, e) in entries {
        let file = fs::read(format!("{DIR}/hostile/{name}")).unwrap();
        let want = e["error"].as_str().unwrap();
        let got = outcome(&file, e["stage"].as_str().unwrap_or("open"), e["object"].as_str());
        let got = match got {
            Ok(()) => "ok".to_string(),
            Err(k) => k,
        };
        // Without `alloc` there is no zstd decoder: seekable parts whose rule needs decoding say so.
        let undecodable = cfg!(not(feature = "alloc")) && name.starts_with("z_") && got == "NotAvailable";
        if got != want && !undecodable {
            bad.push(format!("{name} ({}): want {want}, got {got}", e["rule"].as_str().unwrap_or("")));
        }
        // The no-alloc path gives the same answer.
        if e["stage"].as_str().unwrap_or("open") == "open" {
            let mut scratch = [[0u64; 2]; 64];
            let r = Manifest::parse_with(&file, &mut scratch).map(|_| ()).map_err(|e| format!("{:?}", e.kind));
            let r = r.err().unwrap_or_else(|| "ok".to_string());
            if r != want {
                bad.push(format!("{name} without alloc: want {want}, got {r}"));
            }
        }
    }
    for b in &bad {
        println!("{b}");
    }
    assert!(bad.is_empty(), "{} hostile files answered wrongly", bad.len());
}

#[test]
fn content_digest_ignores_placement_and_dedup() {
    let read = |n: &str| fs::read(format!("{DIR}/valid/{n}")).unwrap();
    let (a, b) = (read("types_canonical.zt"), read("types_4k.zt"));
    let (ma, mb) = (open(&a).unwrap(), open(&b).unwrap());
    // The same tensors at 64 KiB and 4 KiB placement; the root attributes differ (file-level, not content).
    assert_ne!(a.len(), b.len());
    assert!(ma.content_digest_sha256().is_some());
    assert_eq!(ma.content_digest_sha256(), mb.content_digest_sha256());
    assert_eq!(ma.content_digest_xxh3(), mb.content_digest_xxh3());
    let (c, d) = (read("convert.zt"), read("convert_4k.zt"));
    let (mc, md) = (open(&c).unwrap(), open(&d).unwrap());
    assert_eq!(mc.content_digest_sha256(), md.content_digest_sha256());
    assert_ne!(ma.content_digest_sha256(), mc.content_digest_sha256());
    // Pinned: the digest the hand-written encoder gave before minicbor took
    // over (the same on every fixture of valid/), so the encoding stays put.
    assert_eq!(hex(&mc.content_digest_sha256().unwrap()), "dc28eec3389633039ae6f5dd456d8d6635db5a0fe4fc1e2ad32e178866cf3f46");
    // The encoded value is deterministic CBOR of the §6.4 shape.
    let mut v = Vec::new();
    assert!(mc.content_value(|b| v.extend_from_slice(b)));
    cbor::validate(&v).unwrap();
    let val: ciborium::Value = ciborium::from_reader(&v[..]).unwrap();
    let arr = val.as_array().unwrap();
    assert_eq!(arr[0].as_text(), Some("zt.content/1"));
    let objs = arr[1].as_map().unwrap();
    assert_eq!(objs.len(), mc.len());
    let (k, o) = &objs[0];
    assert_eq!(k.as_text(), Some("d.i8")); // encoded order: shorter names first
    let keys: Vec<_> = o.as_map().unwrap().iter().map(|(k, _)| k.as_text().unwrap().to_string()).collect();
    assert_eq!(keys, ["parts", "shape", "layout"]);
    // Undefined without every digest.
    let file = fs::read(format!("{DIR}/hostile/s_no_digest.zt")).unwrap();
    let m = open(&file).unwrap();
    assert!(m.content_digest_sha256().is_none());
    assert!(!m.content_value(|_| panic!("fed bytes")));
}


#[test]
fn attributes_iterate_in_manifest_order_with_raw_values() {
    let mut seen = 0;
    for name in ["types_canonical.zt", "quant_group.zt", "unknown_vocab.zt"] {
        let file = fs::read(format!("{DIR}/valid/{name}")).unwrap();
        let m = open(&file).unwrap();
        let maps = m.attributes().into_iter().chain(m.objects().filter_map(|o| o.attributes()));
        for a in maps {
            let entries: Vec<_> = a.iter().collect();
            assert_eq!(entries.len(), a.len());
            let whole: ciborium::Value = ciborium::from_reader(a.raw()).unwrap();
            let whole = whole.as_map().unwrap();
            assert_eq!(whole.len(), entries.len());
            for ((k, v), (wk, wv)) in entries.iter().zip(whole) {
                assert_eq!(Some(*k), wk.as_text(), "{name}");
                let value: ciborium::Value = ciborium::from_reader(*v).unwrap();
                // (Compared as text: a NaN value is not equal to itself.)
                assert_eq!(format!("{value:?}"), format!("{wv:?}"), "{name}: {k}");
            }
            seen += entries.len();
        }
    }
    assert!(seen > 3, "too few attributes in the fixtures: {seen}");
}

mod robustness;
