//! `zt` on format v2 files (tests/fixtures/v2), run as a separate process:
//! `info` (text and JSON), `cat` (decoded bytes, bit-identical to the
//! generator's sha256), `verify` (digests over decoded bytes, data rules,
//! shards), `id` (content digest).

use serde_json::Value as Json;
use sha2::{Digest as _, Sha256};
use std::path::Path;
use std::process::{Command, Output};

fn v2(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("tests/fixtures/v2").join(rel).display().to_string()
}

fn zt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zt")).args(args).output().expect("run zt")
}

fn json(rel: &str) -> Json {
    serde_json::from_str(&std::fs::read_to_string(v2(rel)).unwrap()).unwrap()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

#[test]
fn info_json_describes_parts() {
    let m = json("manifest.json");
    for name in ["zstd_seekable.zt", "coo.zt", "mx.zt", "gguf.zt", "unknown_vocab.zt"] {
        let o = zt(&["info", "--json", &v2(&format!("valid/{name}"))]);
        assert!(o.status.success(), "{name}: {}", text(&o.stderr));
        let got: Json = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(got["version"], "2", "{name}");
        let want = m["files"][name]["objects"].as_object().unwrap();
        let objs = got["objects"].as_array().unwrap();
        assert_eq!(objs.len(), want.len(), "{name}");
        for obj in objs {
            let w = &want[obj["name"].as_str().unwrap()];
            assert_eq!(obj["format"], w["layout"], "{name}");
            assert_eq!(obj["shape"], w["shape"], "{name}");
            let comps = obj["components"].as_object().unwrap();
            assert_eq!(comps.len(), w["parts"].as_object().unwrap().len(), "{name}");
            for (role, c) in comps {
                let pw = &w["parts"][role];
                assert_eq!(c["dtype"], pw["dtype"], "{name}/{role}");
                assert_eq!(c["type"], pw["type"], "{name}/{role}");
                assert_eq!(c["encoding"], pw["encoding"].as_str().unwrap_or("raw"), "{name}/{role}");
                let decoded = c["uncompressed_length"].as_u64().or(c["length"].as_u64());
                assert_eq!(decoded, pw["decoded_length"].as_u64(), "{name}/{role}");
                assert!(c["digest"].as_str().unwrap().starts_with("xxh3:"), "{name}/{role}");
                assert!(c["offset"].as_u64().unwrap() % 4096 == 0, "{name}/{role}");
                assert_eq!(c["shard"], Json::Null, "{name}/{role}");
            }
        }
    }
    let o = zt(&["info", "--json", &v2("sharded/model.zt")]);
    let got: Json = serde_json::from_slice(&o.stdout).unwrap();
    let want = json("sharded.json");
    for obj in got["objects"].as_array().unwrap() {
        let n = obj["name"].as_str().unwrap();
        assert_eq!(obj["components"]["data"]["shard"], want["objects"][n]["shard"], "{n}");
    }
    let o = zt(&["info", &v2("valid/zstd_seekable.zt")]);
    let out = text(&o.stdout);
    assert!(out.contains("zTensor 2,") && out.contains("zt.zstd-seekable/1"), "{out}");
}

#[test]
fn cat_writes_decoded_bytes_bit_identically() {
    let m = json("manifest.json");
    for name in ["types_canonical.zt", "zstd_seekable.zt", "csr_u64.zt", "quant_group.zt"] {
        let path = v2(&format!("valid/{name}"));
        for (oname, w) in m["files"][name]["objects"].as_object().unwrap() {
            for (role, pw) in w["parts"].as_object().unwrap() {
                let o = zt(&["cat", &path, oname, "--component", role]);
                assert!(o.status.success(), "{name}/{oname}/{role}: {}", text(&o.stderr));
                assert_eq!(hex(&Sha256::digest(&o.stdout)), pw["sha256"].as_str().unwrap(), "{name}/{oname}/{role}");
            }
        }
    }
    // Parts in a shard file, found beside the root.
    let want = json("sharded.json");
    for (oname, w) in want["objects"].as_object().unwrap() {
        let o = zt(&["cat", &v2("sharded/model.zt"), oname]);
        assert!(o.status.success(), "{oname}: {}", text(&o.stderr));
        assert_eq!(hex(&Sha256::digest(&o.stdout)), w["sha256"].as_str().unwrap(), "{oname}");
    }
}

#[test]
fn cat_refuses_unknown_types_and_encodings_and_bad_bytes() {
    for (file, obj) in [
        ("valid/unknown_vocab.zt", "custom_type"),
        ("hostile/s_unknown_encoding.zt", "w"),
        ("hostile/t_bool_value.zt", "w"),
    ] {
        let o = zt(&["cat", &v2(file), obj]);
        assert_eq!(o.status.code(), Some(1), "{file}");
        assert!(o.stdout.is_empty(), "{file}");
        assert!(!o.stderr.is_empty(), "{file}");
    }
    let o = zt(&["cat", &v2("sharded/missing.zt"), "d"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("shard file not found"), "{}", text(&o.stderr));
}

#[test]
fn verify_checks_digests_data_rules_and_shards() {
    let m = json("manifest.json");
    for name in m["files"].as_object().unwrap().keys() {
        let o = zt(&["verify", &v2(&format!("valid/{name}"))]);
        let out = text(&o.stdout);
        assert!(o.status.success(), "{name}: {out} {}", text(&o.stderr));
        assert!(out.contains(": OK (") && out.contains(", 0 parts without digest"), "{name}: {out}");
    }
    let o = zt(&["verify", &v2("sharded/model.zt")]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("4 digests verified"), "{}", text(&o.stdout));
    // Every data rule of the hostile table is a failed verification.
    let table = json("hostile.json");
    let mut failed = 0;
    for (file, rec) in table["files"].as_object().unwrap() {
        if rec["stage"] != "verify" {
            continue;
        }
        let o = zt(&["verify", &v2(&format!("hostile/{file}"))]);
        let ok = rec["error"] == "ok";
        assert_eq!(o.status.success(), ok, "{file}: {} {}", text(&o.stdout), text(&o.stderr));
        failed += !ok as usize;
    }
    assert!(failed >= 20, "{failed}");
    let o = zt(&["verify", &v2("sharded/missing.zt")]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains("shard file not found") && err.contains("warning: shard \"00003-of-00003\" not found"), "{err}");
}

#[test]
fn id_prints_the_content_digest() {
    let (a, b) = (v2("valid/types_canonical.zt"), v2("valid/types_4k.zt"));
    let o = zt(&["id", &a, &b, &v2("valid/tied.zt")]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let ids: Vec<&str> = out.lines().map(|l| l.split_once("  ").unwrap().0).collect();
    assert_eq!(ids.len(), 3);
    assert!(ids[0].starts_with("sha256:") && ids[0].len() == 7 + 64, "{out}");
    assert_eq!(ids[0], ids[1], "placement does not change the content digest");
    assert_ne!(ids[0], ids[2]);
    // A v1 file has none.
    let v1 = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("tests/fixtures/v1.2");
    let any = std::fs::read_dir(v1).unwrap().map(|e| e.unwrap().path()).find(|p| p.extension().is_some_and(|x| x == "zt")).unwrap();
    let o = zt(&["id", any.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("v2 files only"), "{}", text(&o.stderr));
}

/// `zt verify` and the core's per-part and whole-file checks agree on good
/// and corrupt v2 files: raw and seekable parts, xxh3 and sha256 digests
/// (issue 30, H2: one per-part verify for every caller).
#[test]
fn verify_agrees_with_the_cores_checks() {
    use ztensor::v2::types::DType;
    use ztensor::write::v2::{DigestAlg, Encoding, NewObject, NewPart, Options, Writer};
    let dir = std::env::temp_dir().join(format!("zt-cli-v2-agree-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let content: Vec<u8> = (0..20_000).map(|i| (i * 7 % 251) as u8).collect();
    for enc in [Encoding::Raw, Encoding::ZstdSeekable { level: 3, frame: 4096 }] {
        for alg in [DigestAlg::Xxh3, DigestAlg::Sha256] {
            let mut w = Writer::with_options(Vec::new(), Options::non_canonical(4096).digest(alg)).unwrap();
            let part = NewPart::new("data", DType::U8, &content[..]).encoding(enc);
            w.add(NewObject::new("x", &[20_000], "dense").part(part)).unwrap();
            let good = w.finish().unwrap();
            let mut bad = good.clone();
            let at = match enc {
                Encoding::Raw => bad.windows(64).position(|w| w == &content[..64]).unwrap() + 100,
                _ => 4096 + 40, // the first frame's compressed bytes
            };
            bad[at] ^= 0x10;
            for (tag, bytes) in [("good", good), ("bad", bad)] {
                let what = format!("{enc:?} {alg:?} {tag}");
                let path = dir.join("f.zt");
                std::fs::write(&path, &bytes).unwrap();
                let f = ztensor::File::parse(&bytes).unwrap();
                let whole = f.verify_with(ztensor::verify::Options::ALL, |_| {});
                let part = f.get("x").unwrap().component("data").unwrap().verify_digest();
                assert_eq!(part.is_ok(), whole.is_ok(), "{what}: {part:?}");
                let o = zt(&["verify", path.to_str().unwrap()]);
                assert_eq!(o.status.success(), whole.is_ok(), "{what}: {}", text(&o.stderr));
                if whole.is_ok() {
                    assert!(text(&o.stdout).contains("1 digest verified"), "{what}: {}", text(&o.stdout));
                }
            }
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// `zt convert` of a v2 file streams each part to the writer, a seekable
/// part a frame at a time, checking it as it passes (issue 30, H1): a
/// file of 8 MiB of zeros in a few KiB converts to v2 and to v1.2, and
/// verifies; a part whose frame is corrupt, or whose seek table claims a
/// frame of 4 GiB, is refused naming the object and part, and leaves no
/// file (output or temporary) behind.
#[test]
fn convert_streams_seekable_parts_and_leaves_nothing_on_error() {
    use ztensor::v2::types::DType;
    use ztensor::write::v2::{Encoding, NewObject, NewPart, Options, Writer};
    use ztensor::write::Data;
    const LEN: u64 = 8 << 20;
    let dir = std::env::temp_dir().join(format!("zt-cli-v2-stream-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut w = Writer::with_options(Vec::new(), Options::non_canonical(4096)).unwrap();
    let zeros = Data::from_reader(LEN, std::io::Read::take(std::io::repeat(0), LEN));
    let enc = Encoding::ZstdSeekable { level: 1, frame: 1 << 20 };
    w.add(NewObject::new("z", &[LEN], "dense").part(NewPart::new("data", DType::U8, zeros).encoding(enc))).unwrap();
    let good = w.finish().unwrap();
    assert!(good.len() < 16 * 1024, "{}", good.len());
    let input = dir.join("in.zt");
    std::fs::write(&input, &good).unwrap();
    for version in ["2", "1.2"] {
        let out = dir.join(format!("out-{version}.zt"));
        let o = zt(&["convert", "-q", input.to_str().unwrap(), out.to_str().unwrap(), "--format-version", version]);
        assert!(o.status.success(), "{version}: {}", text(&o.stderr));
        let o = zt(&["verify", out.to_str().unwrap()]);
        assert!(o.status.success(), "{version}: {}", text(&o.stderr));
        let f = ztensor::fs::Reader::open(&out).unwrap();
        let c = f.file().get("z").unwrap().component("data").unwrap();
        assert!(f.to_vec(&c).unwrap().iter().all(|&b| b == 0));
        std::fs::remove_file(&out).unwrap();
    }
    // The part's blob: its seek table's first entry, and a byte of its second frame.
    let m = ztensor::v2::Manifest::parse(&good).unwrap();
    let p = m.objects().next().unwrap().part("data").unwrap();
    let end = (p.offset + p.length) as usize;
    let frames = u32::from_le_bytes(good[end - 9..end - 5].try_into().unwrap()) as usize;
    let stride = if good[end - 5] & 0x80 != 0 { 12 } else { 8 };
    let first = end - 9 - frames * stride;
    let second_frame = p.offset as usize + u32::from_le_bytes(good[first..first + 4].try_into().unwrap()) as usize;
    let mut lying = good.clone();
    lying[first + 4..first + 8].copy_from_slice(&u32::MAX.to_le_bytes());
    let mut corrupt = good.clone();
    corrupt[second_frame + 8] ^= 0x55;
    for (name, bytes, says) in [("lying", lying, "frame over 16 MiB"), ("corrupt", corrupt, "zt.zstd-seekable/1")] {
        std::fs::write(&input, &bytes).unwrap();
        for version in ["2", "1.2"] {
            let out = dir.join("out.zt");
            let o = zt(&["convert", "-q", input.to_str().unwrap(), out.to_str().unwrap(), "--format-version", version]);
            let err = text(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{name} {version}: {err}");
            assert!(err.contains(says) && err.contains("(object \"z\", part \"data\")"), "{name} {version}: {err}");
            let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
            assert_eq!(left, ["in.zt"], "{name} {version}");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Converting over an existing sharded OUT (issue 30, M2): the new shards
/// take the other family of names, the old ones go, OUT verifies, and the
/// summary counts the new shards' bytes as it did the first time.
#[test]
fn convert_over_a_sharded_output_replaces_it_whole() {
    let dir = std::env::temp_dir().join(format!("zt-cli-v2-reshard-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out.zt");
    let run = || {
        let args = ["convert", &v2("valid/zstd_seekable.zt"), out.to_str().unwrap(), "--format-version", "2"];
        let o = zt(&[&args[..], &["--shard-size", "4K"]].concat());
        assert!(o.status.success(), "{}", text(&o.stderr));
        let summary = text(&o.stderr);
        let o = zt(&["verify", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let mut names: Vec<String> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        (summary.split_once("->").unwrap().1.to_string(), names)
    };
    let (first, names) = run();
    assert!(names.len() > 2 && names[..names.len() - 1].iter().all(|n| n.ends_with("-of-00004.zt")), "{names:?}");
    let (second, renamed) = run();
    assert_eq!(renamed.len(), names.len());
    assert!(renamed[..renamed.len() - 1].iter().all(|n| n.ends_with("-of-00004.1.zt")), "{renamed:?}");
    assert_eq!(second.split(" in ").next(), first.split(" in ").next(), "the bytes written");
    std::fs::remove_dir_all(dir).unwrap();
}
