//! The `zt` command, run as a separate process on the reference fixtures
//! (tests/fixtures, see NOTES.md there) and on a few hand-made files.

use serde_json::Value as Json;
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The repository root (fixtures and samples live there, beside the core).
fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("cli/ is inside the repository")
}

fn zt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zt")).args(args).output().expect("run zt")
}

fn fixture(rel: &str) -> String {
    repo().join("tests/fixtures").join(rel).display().to_string()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("zt exited normally, not by a signal")
}

/// Every fixture file, relative to tests/fixtures.
fn fixtures() -> Vec<String> {
    let root = repo().join("tests/fixtures");
    let mut out = Vec::new();
    for v in ["v0.1", "v1.1", "v1.2"] {
        for e in std::fs::read_dir(root.join(v)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "zt") {
                out.push(format!("{v}/{}", p.file_name().unwrap().to_str().unwrap()));
            }
        }
    }
    out.sort();
    assert!(out.len() >= 25, "fixtures missing: {}", out.len());
    out
}

/// Fixtures the library refuses (see tests/reference_fixtures.rs).
fn refused(rel: &str) -> bool {
    rel == "v1.2/sparse_nonconformant.zt" || rel == "v1.2/names_edge.zt"
}

fn expected(rel: &str) -> Json {
    let p = PathBuf::from(fixture(rel)).with_extension("expected.json");
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

/// v0.1 manifests spell dtypes the numpy way; `zt` always prints v1.2 names.
fn v12_dtype(s: &str) -> &str {
    match s {
        "float64" => "f64",
        "float32" => "f32",
        "float16" => "f16",
        "bfloat16" => "bf16",
        "int64" => "i64",
        "int32" => "i32",
        "int16" => "i16",
        "int8" => "i8",
        "uint64" => "u64",
        "uint32" => "u32",
        "uint16" => "u16",
        "uint8" => "u8",
        other => other,
    }
}

fn info_json(path: &str) -> Json {
    let o = zt(&["info", "--json", path]);
    assert_eq!(code(&o), 0, "{path}: {}", stderr(&o));
    assert!(o.stderr.is_empty(), "{path}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{path}: not one JSON value: {e}"))
}

/// A scratch path for a hand-made or damaged file.
fn scratch(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("zt-cli-{}-{name}", std::process::id()))
}

fn write_scratch(name: &str, bytes: &[u8]) -> String {
    let p = scratch(name);
    std::fs::write(&p, bytes).unwrap();
    p.display().to_string()
}

// ------------------------------------------------------------------ info

#[test]
fn info_text_lists_objects_and_components() {
    for (rel, names) in [
        ("v1.2/zstd.zt", &["bf16_zstd", "csr_zstd_sha256", "zeros_f32_1024"][..]),
        ("v1.1/sparse.zt", &["sparse_csr", "indptr", "values"][..]),
        ("v0.1/dense_all_dtypes.zt", &["dense_f64", "dense_f32"][..]),
        ("v1.2/quantized.zt", &["packed_weight", "scales", "zeros", "quantized_group"][..]),
        ("v1.2/fp8_complex.zt", &["f8_e4m3fn", "complex128", "u8 (f8_e5m2)"][..]),
    ] {
        let o = zt(&["info", &fixture(rel)]);
        assert_eq!(code(&o), 0, "{rel}: {}", stderr(&o));
        let text = stdout(&o);
        for n in names {
            assert!(text.contains(n), "{rel}: {n} missing from\n{text}");
        }
        assert!(text.lines().last().unwrap().starts_with("total: "), "{rel}:\n{text}");
    }
    let text = stdout(&zt(&["info", &fixture("v1.2/zstd.zt")]));
    assert!(text.starts_with(&format!("{}: zTensor 1.2.0, 9 objects", fixture("v1.2/zstd.zt"))), "{text}");
    assert!(text.contains("227.56x"), "{text}"); // zeros_f32_1024: 4096 / 18
    let text = stdout(&zt(&["info", &fixture("v0.1/empty.zt")]));
    assert!(text.contains("zTensor 0.1, 0 objects"), "{text}");
}

#[test]
fn info_json_matches_every_fixture() {
    let mut components = 0;
    for rel in fixtures() {
        if refused(&rel) {
            continue;
        }
        let got = info_json(&fixture(&rel));
        let exp = expected(&rel);
        let version = exp["spec_version"].as_str().unwrap_or("0.1");
        assert_eq!(got["version"], version, "{rel}");
        assert!(got["attributes"].is_object(), "{rel}");
        let (objs, eobjs) = (got["objects"].as_array().unwrap(), exp["objects"].as_array().unwrap());
        assert_eq!(objs.len(), eobjs.len(), "{rel}");
        for (o, e) in objs.iter().zip(eobjs) {
            let ctx = format!("{rel} / {}", e["name"]);
            assert_eq!(o["name"], e["name"], "{ctx}");
            assert_eq!(o["shape"], e["shape"], "{ctx}");
            assert_eq!(o["format"], e["format"], "{ctx}");
            assert_eq!(o["attributes"], *e.get("attributes").unwrap_or(&serde_json::json!({})), "{ctx}");
            let (cs, ecs) = (o["components"].as_object().unwrap(), e["components"].as_object().unwrap());
            assert_eq!(cs.len(), ecs.len(), "{ctx}");
            for (role, ec) in ecs {
                let c = &cs[role];
                let ctx = format!("{ctx} / {role}");
                assert_eq!(c["dtype"], v12_dtype(ec["dtype"].as_str().unwrap()), "{ctx}");
                assert_eq!(c["type"], ec["type"], "{ctx}");
                assert_eq!(c["encoding"], ec["encoding"], "{ctx}");
                assert_eq!(c["offset"].as_u64().unwrap() % 64, 0, "{ctx}");
                assert!(c["length"].is_u64(), "{ctx}");
                for k in ["uncompressed_length", "digest"] {
                    assert!(c.get(k).is_some(), "{ctx}: no {k}");
                }
                if ec["encoding"] == "raw" {
                    assert_eq!(c["length"], ec["decoded_len"], "{ctx}");
                    assert_eq!(c["uncompressed_length"], Json::Null, "{ctx}");
                }
                components += 1;
            }
        }
    }
    assert!(components > 20_000, "{components}");
}

#[test]
fn info_json_fields_by_version() {
    // v1.2 zstd: uncompressed_length and digests present.
    let j = info_json(&fixture("v1.2/zstd.zt"));
    let obj = |name: &str| j["objects"].as_array().unwrap().iter().find(|o| o["name"] == name).unwrap().clone();
    let ramp = &obj("ramp_i64_sha256")["components"]["data"];
    assert_eq!(ramp["encoding"], "zstd");
    assert_eq!(ramp["uncompressed_length"], 2048);
    assert!(ramp["digest"].as_str().unwrap().starts_with("sha256:"));
    assert_eq!(obj("bf16_zstd")["components"]["data"]["digest"], Json::Null);
    // v1.1 zstd: no uncompressed_length.
    let j = info_json(&fixture("v1.1/zstd.zt"));
    for o in j["objects"].as_array().unwrap() {
        assert_eq!(o["components"]["data"]["uncompressed_length"], Json::Null);
    }
    // Object order is manifest order: sorted for v1.x, insertion order for v0.1.
    let j = info_json(&fixture("v1.2/many_objects.zt"));
    let names: Vec<&str> = j["objects"].as_array().unwrap().iter().map(|o| o["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 20_000);
    assert_eq!(&names[..4], ["t0", "t1", "t10", "t100"]);
    let j = info_json(&fixture("v0.1/dense_all_dtypes.zt"));
    assert_eq!(j["objects"][0]["name"], "dense_f64");
    assert_eq!(j["objects"][0]["components"]["data"]["dtype"], "f64");
    // Logical types.
    let j = info_json(&fixture("v1.2/extensions.zt"));
    let text = j.to_string();
    assert!(text.contains("\"int4_packed_x\"") && text.contains("\"block_sparse_x\""), "{text}");
}

// --------------------------------------------------------- hand-made files

fn head(out: &mut Vec<u8>, major: u8, n: u64) {
    let m = major << 5;
    match n {
        0..=23 => out.push(m | n as u8),
        24..=0xff => out.extend([m | 24, n as u8]),
        0x100..=0xffff => {
            out.push(m | 25);
            out.extend((n as u16).to_be_bytes());
        }
        0x1_0000..=0xffff_ffff => {
            out.push(m | 26);
            out.extend((n as u32).to_be_bytes());
        }
        _ => {
            out.push(m | 27);
            out.extend(n.to_be_bytes());
        }
    }
}

fn text(out: &mut Vec<u8>, s: &str) {
    head(out, 3, s.len() as u64);
    out.extend(s.as_bytes());
}

/// A v1.2 file with one dense `u8` object `x` of two bytes (1, 2) whose
/// `attributes` value is `attrs` (raw CBOR) and whose digest is `digest`.
fn hand_made(attrs: &[u8], digest: Option<&str>) -> Vec<u8> {
    let mut m = Vec::new();
    head(&mut m, 5, 2);
    text(&mut m, "version");
    text(&mut m, "1.2.0");
    text(&mut m, "objects");
    head(&mut m, 5, 1);
    text(&mut m, "x");
    head(&mut m, 5, 4);
    text(&mut m, "shape");
    head(&mut m, 4, 1);
    head(&mut m, 0, 2);
    text(&mut m, "format");
    text(&mut m, "dense");
    text(&mut m, "attributes");
    m.extend(attrs);
    text(&mut m, "components");
    head(&mut m, 5, 1);
    text(&mut m, "data");
    head(&mut m, 5, 3 + digest.is_some() as u64);
    text(&mut m, "dtype");
    text(&mut m, "u8");
    text(&mut m, "offset");
    head(&mut m, 0, 64);
    text(&mut m, "length");
    head(&mut m, 0, 2);
    if let Some(d) = digest {
        text(&mut m, "digest");
        text(&mut m, d);
    }
    let mut f = b"ZTEN1000".to_vec();
    f.resize(64, 0);
    f.extend([1, 2]);
    f.extend(&m);
    f.extend((m.len() as u64).to_le_bytes());
    f.extend(b"ZTEN1000");
    f
}

#[test]
fn cbor_attributes_map_to_json() {
    let mut a = Vec::new();
    head(&mut a, 5, 11);
    text(&mut a, "bytes");
    a.extend([0x42, 0x00, 0xff]);
    text(&mut a, "tag");
    a.extend([0xc1, 0x05]); // 1(5)
    text(&mut a, "nan");
    a.extend([0xf9, 0x7e, 0x00]);
    text(&mut a, "inf");
    a.extend([0xfb, 0x7f, 0xf0, 0, 0, 0, 0, 0, 0]);
    text(&mut a, "ninf");
    a.extend([0xfa, 0xff, 0x80, 0, 0]);
    a.push(0x01); // integer key 1
    text(&mut a, "one");
    text(&mut a, "indef");
    a.extend([0x7f, 0x62, b'a', b'b', 0x61, b'c', 0xff]);
    text(&mut a, "min");
    a.extend([0x3b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]); // -2^64
    text(&mut a, "half");
    a.extend([0xf9, 0x3e, 0x00]);
    a.extend([0x41, 0xab]); // byte-string key h'ab'
    a.push(0xf5);
    text(&mut a, "undef");
    a.push(0xf7);
    let path = write_scratch("attrs.zt", &hand_made(&a, None));
    let o = zt(&["info", "--json", &path]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let raw = stdout(&o);
    assert!(raw.contains("\"min\":-18446744073709551616"), "{raw}");
    let j: Json = serde_json::from_str(&raw).unwrap();
    let got = &j["objects"][0]["attributes"];
    let want = serde_json::json!({
        "bytes": "00ff", "tag": 5, "nan": "NaN", "inf": "Infinity", "ninf": "-Infinity",
        "1": "one", "indef": "abc", "min": -18446744073709551616.0, "half": 1.5, "ab": true,
        "undef": null,
    });
    assert_eq!(got, &want);
    // Text output shows the same attributes.
    let text = stdout(&zt(&["info", &path]));
    assert!(text.contains("\"indef\":\"abc\""), "{text}");
    std::fs::remove_file(path).unwrap();
}

/// Audit "Hardening v2", L4: `zt info` shows long attribute values (byte
/// strings, text, arrays, at file and object level) shortened with their
/// length, so a 1 MiB attribute makes a short line, not megabytes of hex;
/// `zt info --json` keeps every value whole.
#[test]
fn info_text_shortens_long_attributes_and_json_keeps_them() {
    use ztensor::write::v2::{NewObject, Writer};
    use ztensor::write::AttrValue;
    let blob: Vec<u8> = (0..(1u32 << 20) + 1).map(|i| i as u8).collect();
    let text = "é".repeat(1 << 19) + "z";
    let list: Vec<AttrValue> = (0..100_000u64).map(AttrValue::Uint).collect();
    let path = scratch("long-attrs.zt");
    let mut w = Writer::create(&path).unwrap();
    w.set_attribute("blob", AttrValue::Bytes(blob.clone())).unwrap();
    w.set_attribute("list", list).unwrap();
    w.set_attribute("short", "kept whole").unwrap();
    w.set_attribute("text", text.as_str()).unwrap();
    let o = NewObject::dense("w", &[1], ztensor::v2::types::DType::U8, &[1u8][..]).attribute("blob", blob.as_slice());
    w.add(o).unwrap();
    w.finish().unwrap();
    let path = path.display().to_string();

    let o = zt(&["info", &path]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    for line in out.lines() {
        assert!(line.chars().count() <= 600, "a line of {} chars: {:.200}…", line.chars().count(), line);
    }
    let file_attrs = out.lines().find(|l| l.starts_with("attributes: ")).unwrap();
    let object_attrs = out.lines().find(|l| l.trim_start().starts_with("attributes: ")).unwrap();
    assert!(file_attrs.contains("1048577 bytes: 00 01 02 03"), "{file_attrs}");
    assert!(file_attrs.contains("100000 items"), "{file_attrs}");
    assert!(file_attrs.contains("[0,1,2,3"), "{file_attrs}");
    assert!(file_attrs.contains("1048577 bytes of text: \"éééé"), "{file_attrs}");
    assert!(file_attrs.contains("\"short\":\"kept whole\""), "{file_attrs}");
    assert!(object_attrs.contains("1048577 bytes: 00 01 02 03"), "{object_attrs}");

    let j = info_json(&path);
    assert_eq!(j["attributes"]["blob"].as_str().unwrap(), hex::encode(&blob));
    assert_eq!(j["attributes"]["text"].as_str().unwrap(), text);
    assert_eq!(j["attributes"]["list"].as_array().unwrap().len(), 100_000);
    assert_eq!(j["objects"][0]["attributes"]["blob"].as_str().unwrap(), hex::encode(&blob));
    std::fs::remove_file(path).unwrap();
}

#[test]
fn unknown_digest_algorithm_is_a_warning_when_allowed() {
    let path = write_scratch("md5.zt", &hand_made(&[0xa0], Some("md5:0123456789abcdef")));
    let o = zt(&["verify", "--allow-unverifiable", &path]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("warning") && err.contains("md5"), "{err}");
    assert!(stdout(&o).contains("OK"));
    // A known algorithm that does not match is a failure.
    let bad = "sha256:0000000000000000000000000000000000000000000000000000000000000000";
    let path2 = write_scratch("badsha.zt", &hand_made(&[0xa0], Some(bad)));
    let o = zt(&["verify", &path2]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("digest mismatch"), "{}", stderr(&o));
    std::fs::remove_file(path).unwrap();
    std::fs::remove_file(path2).unwrap();
}

// ------------------------------------------------------------------- cat

fn sha256_hex(b: &[u8]) -> String {
    Sha256::digest(b).iter().map(|x| format!("{x:02x}")).collect()
}

fn expected_sha(rel: &str, name: &str, role: &str) -> String {
    let e = expected(rel);
    let o = e["objects"].as_array().unwrap().iter().find(|o| o["name"] == name).unwrap();
    o["components"][role]["sha256"].as_str().unwrap().to_owned()
}

#[test]
fn cat_writes_decoded_bytes() {
    for (rel, name, role) in [
        ("v1.2/zstd.zt", "ramp_i64_sha256", "data"),   // zstd, declared length
        ("v1.2/zstd.zt", "zeros_f32_1024", "data"),    // zstd, 227x
        ("v1.2/zstd.zt", "csr_zstd_sha256", "indptr"), // zstd sparse component
        ("v1.2/zstd.zt", "zero_size_zstd", "data"),    // zstd of nothing
        ("v1.1/zstd.zt", "ramp_i64", "data"),          // zstd, no uncompressed_length
        ("v1.1/zstd.zt", "bf16_zstd", "data"),
        ("v1.2/sparse.zt", "csr_f32", "values"),
        ("v1.2/dense_all_dtypes.zt", "dense_f64", "data"), // raw
        ("v0.1/dense_all_dtypes.zt", "dense_f32", "data"), // v0.1
        ("v1.2/fp8_complex.zt", "f8_e4m3fn_zstd_sha256", "data"),
    ] {
        let path = fixture(rel);
        let args: Vec<&str> =
            if role == "data" { vec!["cat", &path, name] } else { vec!["cat", &path, name, "--component", role] };
        let o = zt(&args);
        assert_eq!(code(&o), 0, "{rel} {name} {role}: {}", stderr(&o));
        assert_eq!(sha256_hex(&o.stdout), expected_sha(rel, name, role), "{rel} {name} {role}");
    }
    // -c, --component=ROLE, options before positionals, and `--`.
    let path = fixture("v1.2/sparse.zt");
    let want = expected_sha("v1.2/sparse.zt", "csr_f32", "indices");
    for args in [
        vec!["cat", "-c", "indices", &path, "csr_f32"],
        vec!["cat", "--component=indices", &path, "csr_f32"],
        vec!["cat", &path, "-cindices", "--", "csr_f32"],
    ] {
        let o = zt(&args);
        assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
        assert_eq!(sha256_hex(&o.stdout), want, "{args:?}");
    }
}

#[test]
fn cat_missing_object_or_component_fails() {
    let path = fixture("v1.2/zstd.zt");
    for (args, what) in [
        (vec!["cat", &path, "no_such_object"], "no_such_object"),
        (vec!["cat", &path, "bf16_zstd", "--component", "values"], "values"),
    ] {
        let o = zt(&args);
        assert_eq!(code(&o), 1, "{args:?}");
        assert!(o.stdout.is_empty());
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with(&format!("zt: {path}: not found")) && err.contains(what), "{err}");
    }
}

#[test]
fn closed_stdout_is_not_a_panic() {
    for args in [
        vec!["cat".to_owned(), fixture("v1.2/zstd.zt"), "zeros_f32_1024".to_owned()],
        vec!["info".to_owned(), fixture("v1.2/many_objects.zt")],
        vec!["info".to_owned(), "--json".to_owned(), fixture("v1.2/many_objects.zt")],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_zt"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = child.stdout.take().unwrap();
        let mut one = [0u8; 1];
        out.read_exact(&mut one).unwrap();
        drop(out);
        let mut err = String::new();
        child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
    }
}

// ---------------------------------------------------------------- verify

#[test]
fn verify_accepts_every_good_fixture() {
    for rel in fixtures() {
        if refused(&rel) {
            continue;
        }
        let o = zt(&["verify", &fixture(&rel)]);
        assert_eq!(code(&o), 0, "{rel}: {}", stderr(&o));
        assert!(o.stderr.is_empty(), "{rel}: {}", stderr(&o));
        assert!(stdout(&o).contains(": OK ("), "{rel}: {}", stdout(&o));
    }
    let out = stdout(&zt(&["verify", &fixture("v1.2/checksums.zt")]));
    assert!(out.contains("5 digests verified"), "{out}");
}

#[test]
fn verify_refuses_nonconformant_sparse_indices() {
    let path = fixture("v1.2/sparse_nonconformant.zt");
    let o = zt(&["verify", &path]);
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with(&format!("zt: {path}: index component")), "{err}");
    assert!(stdout(&o).contains("FAILED"));
    // info and cat refuse it too, with one line.
    for args in [vec!["info", &path], vec!["cat", &path, "csr_i32_indices"]] {
        let o = zt(&args);
        assert_eq!(code(&o), 1, "{args:?}");
        assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    }
}

/// Offset of the first stored byte of a component with a digest and data.
fn digested_blob(path: &str) -> (u64, String) {
    let j = info_json(path);
    for o in j["objects"].as_array().unwrap() {
        for (role, c) in o["components"].as_object().unwrap() {
            if c["digest"].is_string() && c["length"].as_u64().unwrap() > 0 {
                return (c["offset"].as_u64().unwrap(), format!("{} {role}", o["name"]));
            }
        }
    }
    panic!("no digested blob in {path}");
}

#[test]
fn verify_reports_a_flipped_byte() {
    let path = fixture("v1.2/checksums.zt");
    let (offset, what) = digested_blob(&path);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[offset as usize] ^= 0x5a;
    let bad = write_scratch("flipped.zt", &bytes);
    let o = zt(&["verify", &bad]);
    assert_eq!(code(&o), 1, "{what}");
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with(&format!("zt: {bad}: digest mismatch")), "{err}");
    assert!(stdout(&o).contains("FAILED (1 problem)"), "{}", stdout(&o));
    // info does not read data: it still works.
    assert_eq!(code(&zt(&["info", &bad])), 0);
    std::fs::remove_file(bad).unwrap();
}

#[test]
fn verify_reports_corrupt_zstd() {
    // v1.1 has no digests: only decoding can catch this.
    let path = fixture("v1.1/zstd.zt");
    let j = info_json(&path);
    let o = j["objects"].as_array().unwrap().iter().find(|o| o["name"] == "ramp_i64").unwrap();
    let offset = o["components"]["data"]["offset"].as_u64().unwrap() as usize;
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[offset] ^= 0xff; // the zstd frame magic
    let bad = write_scratch("badzstd.zt", &bytes);
    let o = zt(&["verify", &bad]);
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("zstd") && err.contains("ramp_i64"), "{err}");
    let o = zt(&["cat", &bad, "ramp_i64"]);
    assert_eq!(code(&o), 1);
    assert!(o.stdout.is_empty());
    std::fs::remove_file(bad).unwrap();
}

#[test]
fn truncated_and_missing_files_fail_with_one_line() {
    let bytes = std::fs::read(fixture("v1.2/checksums.zt")).unwrap();
    for cut in [0, 7, 100, bytes.len() - 1] {
        let bad = write_scratch(&format!("cut{cut}.zt"), &bytes[..cut]);
        for cmd in [vec!["verify", &bad], vec!["info", &bad], vec!["info", "--json", &bad], vec!["cat", &bad, "x"]] {
            let o = zt(&cmd);
            assert_eq!(code(&o), 1, "{cmd:?}");
            let err = stderr(&o);
            assert_eq!(err.lines().count(), 1, "{cmd:?}: {err}");
            assert!(err.starts_with(&format!("zt: {bad}: ")), "{err}");
            assert!(!err.contains("panic"), "{err}");
        }
        std::fs::remove_file(bad).unwrap();
    }
    let missing = scratch("does-not-exist.zt").display().to_string();
    let o = zt(&["info", &missing]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).starts_with(&format!("zt: {missing}: ")), "{}", stderr(&o));
    let dir = env!("CARGO_TARGET_TMPDIR");
    let o = zt(&["verify", dir]);
    assert_eq!(code(&o), 1);
    assert_eq!(stderr(&o).lines().count(), 1);
}

/// A digest of an unknown algorithm: the file opens, but `zt verify` fails
/// naming the object and component, unless `--allow-unverifiable` (then a
/// warning and exit 0). `--strict`, the old opt-in, is the default.
fn unverifiable_verdicts(path: &str, alg: &str, object: &str, component: &str) {
    let o = zt(&["info", path]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let what = format!("unknown digest algorithm \"{alg}\", not verified (object \"{object}\", component \"{component}\")");
    for args in [&["verify"][..], &["verify", "--strict"][..]] {
        let o = zt(&[args, &[path]].concat());
        assert_eq!(code(&o), 1, "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert_eq!(err, format!("zt: {path}: {what}\n"), "{args:?}");
        assert_eq!(stdout(&o), format!("{path}: FAILED (1 problem)\n"));
    }
    let o = zt(&["verify", "--allow-unverifiable", path]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stderr(&o), format!("zt: {path}: warning: {what}\n"));
    assert!(stdout(&o).starts_with(&format!("{path}: OK (")) && stdout(&o).ends_with(", 1 warning)\n"), "{}", stdout(&o));
    let o = zt(&["verify", "--strict", "--allow-unverifiable", path]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}

#[test]
fn verify_fails_on_an_unknown_v1_digest_algorithm_unless_allowed() {
    let path = write_scratch("md5-unverifiable.zt", &hand_made(&[0xa0], Some("md5:0123456789abcdef")));
    unverifiable_verdicts(&path, "md5", "x", "data");
    // Known algorithms pass.
    let o = zt(&["verify", &fixture("v1.2/checksums.zt")]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    std::fs::remove_file(path).unwrap();
}

#[test]
fn verify_fails_on_an_unregistered_v2_digest_algorithm_unless_allowed() {
    unverifiable_verdicts(&fixture("v2/hostile/s_digest_other_alg.zt"), "blake3", "w", "data");
}

// ------------------------------------------------ several files and stdin

/// Run zt with `input` on stdin.
fn zt_stdin(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_zt"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

#[test]
fn info_and_verify_take_several_files() {
    let (a, b) = (fixture("v1.2/zstd.zt"), fixture("v1.1/sparse.zt"));
    let o = zt(&["info", &a, &b]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    let one = |p: &str| stdout(&zt(&["info", p]));
    assert_eq!(out, format!("{}\n{}", one(&a), one(&b)));
    // JSON: one document per file, each naming its file first.
    let o = zt(&["info", "--json", &a, &b]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let docs: Vec<Json> = serde_json::Deserializer::from_slice(&o.stdout).into_iter().map(Result::unwrap).collect();
    assert_eq!(docs.len(), 2);
    for (d, p) in docs.iter().zip([&a, &b]) {
        assert_eq!(d["file"], p.as_str());
        let mut alone = info_json(p);
        alone.as_object_mut().unwrap().insert("file".into(), Json::from(p.as_str()));
        assert_eq!(d, &alone);
    }
    // A missing file among others: reported, the others still shown, exit 1.
    let missing = scratch("missing-among-others.zt").display().to_string();
    let o = zt(&["info", &a, &missing, &b]);
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o), format!("{}\n{}", one(&a), one(&b)));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with(&format!("zt: {missing}: ")), "{err}");
    // verify: a verdict per file; one failure fails the whole.
    let o = zt(&["verify", &a, &b]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(out.starts_with(&format!("{a}: OK (")) && out.contains(&format!("\n{b}: OK (")), "{out}");
    let bad = fixture("v1.2/sparse_nonconformant.zt");
    let o = zt(&["verify", &a, &bad, &b]);
    assert_eq!(code(&o), 1);
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(out.contains(&format!("{bad}: FAILED")), "{out}");
}

#[test]
fn dash_reads_stdin() {
    let path = fixture("v1.2/zstd.zt");
    let bytes = std::fs::read(&path).unwrap();
    let o = zt_stdin(&["info", "--json", "-"], &bytes);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(o.stdout, zt(&["info", "--json", &path]).stdout);
    let o = zt_stdin(&["verify", "-"], &bytes);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).starts_with("<stdin>: OK ("), "{}", stdout(&o));
    let o = zt_stdin(&["cat", "-", "zeros_f32_1024"], &bytes);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(o.stdout, zt(&["cat", &path, "zeros_f32_1024"]).stdout);
    // Errors name <stdin>.
    let o = zt_stdin(&["info", "-"], b"not a tensor file");
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).starts_with("zt: <stdin>: "), "{}", stderr(&o));
    // stdin can be read once only.
    let o = zt_stdin(&["verify", "-", "-"], &bytes);
    assert_eq!(code(&o), 1);
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
}

#[test]
fn messages_carry_no_os_error_codes() {
    let missing = scratch("no-such-file.zt").display().to_string();
    for args in [vec!["info", &missing], vec!["verify", &missing], vec!["cat", &missing, "x"]] {
        let o = zt(&args);
        assert_eq!(code(&o), 1);
        let err = stderr(&o);
        assert_eq!(err, format!("zt: {missing}: No such file or directory\n"), "{args:?}");
    }
    let dir = env!("CARGO_TARGET_TMPDIR");
    for args in [vec!["info", dir], vec!["verify", dir], vec!["cat", dir, "x"]] {
        let o = zt(&args);
        assert_eq!(code(&o), 1);
        assert_eq!(stderr(&o), format!("zt: {dir}: is a directory\n"), "{args:?}");
    }
}

// ------------------------------------------------------ usage and help

#[test]
fn usage_errors_exit_2() {
    let f = fixture("v1.2/zstd.zt");
    for args in [
        vec![],
        vec!["frobnicate"],
        vec!["convert", &f],
        vec!["--bogus"],
        vec!["info"],
        vec!["info", "--bogus", &f],
        vec!["info", "-x", &f],
        // (`info FILE extra` is no longer a usage error: info takes several files.)
        vec!["info", "--json=yes", &f],
        vec!["cat", &f],
        vec!["cat", &f, "bf16_zstd", "--component"],
        vec!["cat", &f, "bf16_zstd", "extra"],
        vec!["verify"],
        vec!["verify", "--json", &f],
        vec!["help", "frobnicate"],
    ] {
        let o = zt(&args);
        assert_eq!(code(&o), 2, "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        let err = stderr(&o);
        assert!(err.starts_with("zt: ") && err.contains("usage: zt"), "{args:?}: {err}");
        assert!(err.lines().count() <= 3, "{args:?}: {err}");
    }
}

/// Words of the command line are quoted 'so'; names from a file "so"
/// (escaped as Rust strings: control characters stay visible).
#[test]
fn quoting_is_consistent() {
    let f = fixture("v1.2/zstd.zt");
    for (args, word) in [
        (vec!["frobnicate"], "'frobnicate'"),
        (vec!["info", "--bogus", &f], "'--bogus'"),
        (vec!["cat", &f, "bf16_zstd", "extra"], "'extra'"),
        (vec!["verify", "--json", &f], "'--json'"),
        (vec!["convert", &f, "out.zt", "--digest", "md5"], "'md5'"),
    ] {
        let o = zt(&args);
        assert_eq!(code(&o), 2, "{args:?}");
        let first = stderr(&o).lines().next().unwrap_or("").to_owned();
        assert!(first.contains(word) && !first.contains('"'), "{args:?}: {first}");
    }
    let o = zt(&["cat", &f, "no\tsuch"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("(object \"no\\tsuch\")"), "{}", stderr(&o));
}

#[test]
fn help_exits_0() {
    for args in [
        vec!["--help"],
        vec!["-h"],
        vec!["help"],
        vec!["help", "info"],
        vec!["info", "--help"],
        vec!["info", "-h"],
        vec!["cat", "--help"],
        vec!["cat", "some.zt", "-h"],
        vec!["verify", "--help"],
        vec!["--version"],
    ] {
        let o = zt(&args);
        assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
        assert!(o.stderr.is_empty());
        let out = stdout(&o);
        assert!(out.starts_with("zt") || out.starts_with("Usage: zt"), "{args:?}: {out}");
    }
    let top = stdout(&zt(&["--help"]));
    for cmd in ["info", "cat", "verify"] {
        assert!(top.contains(cmd), "{top}");
    }
    assert!(top.contains("convert"), "{top}");
}

/// `zt verify` runs the data rules too (the C samples carry files whose
/// manifest is sound but whose data is not).
#[test]
fn verify_runs_the_data_rules() {
    let dir = repo().join("examples-c/samples/hostile/data");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path().to_string_lossy().into_owned();
        let o = zt(&["verify", &p]);
        assert_eq!(code(&o), 1, "{p}: {}", stderr(&o));
        assert!(stderr(&o).lines().count() >= 1, "{p}");
        n += 1;
    }
    assert!(n >= 3, "{n}");
    // A v1.1 CSR whose zstd values declare no size: nnz comes from decoding them.
    let good = repo().join("examples-c/samples/good/v1.1_zstd_unknown_size.zt");
    let o = zt(&["verify", &good.to_string_lossy()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}
