//! `zt convert --format-version 1.2` (v1.2 output, for readers of the 1.x
//! generation; the default, v2, is tested in cli_convert_v2.rs), run as a
//! separate process: the committed samples in
//! tests/fixtures/convert (made by make_samples.py there; expected.json is
//! numpy's own account of every array), the reference fixtures of every
//! version, hand-made files for what no reference writer produces, and the
//! reference Python reader (ztensor 1.2.3) on a converted safetensors file.

/// The core's test builders (hand-made .zt files), shared with its own tests.
#[path = "../../tests/common/mod.rs"]
mod common;

use common::*;
use serde_json::Value as Json;
use sha2::{Digest as _, Sha256};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use ztensor::digest::Verified;
use ztensor::{Encoding, File};

/// The repository root (fixtures and samples live there, beside the core).
fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("cli/ is inside the repository")
}

fn zt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zt")).args(args).output().expect("run zt")
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("zt exited normally, not by a signal")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn sample(name: &str) -> PathBuf {
    repo().join("tests/fixtures/convert").join(name)
}

fn fixture(rel: &str) -> PathBuf {
    repo().join("tests/fixtures").join(rel)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn sha(b: &[u8]) -> String {
    hex::encode(Sha256::digest(b))
}

fn expected() -> Json {
    serde_json::from_slice(&std::fs::read(sample("expected.json")).unwrap()).unwrap()
}

/// Convert to v1.2; assert success with nothing on stderr (stderr is not a TTY: no
/// progress bar; `--quiet`: no summary line, see `summary_line_unless_quiet`).
fn convert(input: &Path, out: &Path, extra: &[&str]) -> Vec<u8> {
    let mut args = vec!["convert", "--quiet", s(input), s(out), "--format-version", "1.2"];
    args.extend_from_slice(extra);
    let o = zt(&args);
    assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
    assert!(o.stderr.is_empty(), "{args:?}: {}", stderr(&o));
    assert!(o.stdout.is_empty(), "{args:?}");
    std::fs::read(out).unwrap()
}

/// A failure: exit 1, exactly one `zt: ` line on stderr, no panic. Returns the line.
fn fails(args: &[&str]) -> String {
    let o = zt(args);
    let err = stderr(&o);
    assert_eq!(code(&o), 1, "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("zt: ") && err.ends_with('\n'), "{args:?}: {err}");
    assert!(!err.contains("panicked") && !err.contains("internal error"), "{args:?}: {err}");
    err
}

/// Files in a directory (to prove no temporary file was left behind).
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// Check a converted file against expected.json's entries.
fn check_against(bytes: &[u8], want: &[Json], what: &str) {
    let f = File::parse(bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(f.version().to_string(), "1.2.0", "{what}");
    assert_eq!(f.len(), want.len(), "{what}");
    for (o, w) in f.objects().zip(want) {
        let ctx = format!("{what}: {}", o.name());
        assert_eq!(o.name(), w["name"].as_str().unwrap(), "{what}");
        let shape: Vec<u64> = w["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap()).collect();
        assert_eq!(o.shape().to_vec(), shape, "{ctx}");
        assert_eq!(o.format().name(), "dense", "{ctx}");
        assert_eq!(o.component_count(), 1, "{ctx}");
        let c = o.data().unwrap();
        assert_eq!(c.dtype().name(), w["dtype"].as_str().unwrap(), "{ctx}");
        assert_eq!(c.logical_type().map(|t| t.name()), w["type"].as_str(), "{ctx}");
        assert_eq!(sha(&c.to_vec().unwrap()), w["sha256"].as_str().unwrap(), "{ctx}");
    }
}

/// After `--compress=LEVEL`: each component is zstd and smaller than its
/// decoded bytes, or raw where a zstd frame (the library's own, at LEVEL)
/// would not be smaller. Returns the number of zstd components.
fn assert_compressed_unless_larger(packed: &[u8], level: i32, what: &str) -> usize {
    use ztensor::write::v1_2::{Compression, NewObject, Writer};
    let f = File::parse(packed).unwrap();
    let mut zstd = 0;
    for c in f.objects().flat_map(|o| o.components()) {
        match c.encoding() {
            Encoding::Zstd => {
                assert!(c.length() < c.decoded_len().unwrap(), "{what}: {} not smaller", c.role());
                zstd += 1;
            }
            Encoding::Raw => {
                assert_eq!(c.uncompressed_length(), None, "{what}");
                let raw = c.stored_bytes().unwrap();
                let mut w = Writer::new(Vec::new());
                let obj = NewObject::dense("x", &[raw.len() as u64], ztensor::DType::U8, raw);
                w.add(obj.compression(Compression::Zstd(level))).unwrap();
                let frame = File::parse(&w.finish().unwrap()).unwrap().require("x").unwrap().data().unwrap().length();
                assert!(frame >= raw.len() as u64, "{what}: kept raw although zstd gives {frame} < {} bytes", raw.len());
            }
            other => panic!("{what}: convert wrote {other:?} into a v1.2 file"),
        }
    }
    zstd
}

// ------------------------------------------------------------ samples

#[test]
fn converts_every_committed_sample() {
    let exp = expected();
    let dir = tempfile::tempdir().unwrap();
    let samples = exp["samples"].as_object().unwrap();
    assert!(samples.len() >= 9);
    let mut zstd = 0;
    for (name, want) in samples {
        let want = want.as_array().unwrap();
        let out = dir.path().join(format!("{name}.zt"));
        let plain = convert(&sample(name), &out, &[]);
        check_against(&plain, want, name);
        let f = File::parse(&plain).unwrap();
        for c in f.objects().flat_map(|o| o.components()) {
            // v1.2 output carries a crc32c digest by default.
            assert_eq!(c.encoding(), Encoding::Raw, "{name}");
            assert!(c.digest().is_some_and(|d| d.starts_with("crc32c:0x")), "{name}: {:?}", c.digest());
            assert_eq!(c.offset() % 64, 0);
        }
        // Attributes: safetensors __metadata__ as text file attributes.
        if let Some(attrs) = exp["attributes"].get(name.as_str()) {
            let got: Vec<(String, String)> = f
                .attributes()
                .iter()
                .map(|(k, v)| (k.as_str().unwrap().to_owned(), v.as_str().unwrap().to_owned()))
                .collect();
            let mut want: Vec<(String, String)> =
                attrs.as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned())).collect();
            let mut got_sorted = got.clone();
            got_sorted.sort();
            want.sort();
            assert_eq!(got_sorted, want, "{name}");
        } else {
            assert!(f.attributes().is_empty(), "{name}");
        }
        // Compressed, with digests: same contents, every digest checks out.
        // (A component zstd would not make smaller stays raw.)
        for (flags, alg, level) in [
            (&["--compress", "--digest", "sha256"][..], "sha256:", 3),
            (&["--compress=19", "--digest=crc32c"][..], "crc32c:", 19),
        ] {
            let packed = convert(&sample(name), &out, flags);
            check_against(&packed, want, name);
            zstd += assert_compressed_unless_larger(&packed, level, name);
            let f = File::parse(&packed).unwrap();
            for c in f.objects().flat_map(|o| o.components()) {
                assert!(c.digest().unwrap().starts_with(alg), "{name}");
                assert_eq!(c.verify_digest().unwrap(), Verified::Ok, "{name}");
            }
            let v = zt(&["verify", s(&out)]);
            assert_eq!(code(&v), 0, "{name}: {}", stderr(&v));
        }
    }
    assert_eq!(listing(dir.path()).len(), samples.len(), "temporary files left behind");
    // (The samples are small: most of their tensors are smaller raw.)
    assert!(zstd >= 4, "only {zstd} components compressed");
}

#[test]
fn refuses_unsupported_samples() {
    let exp = expected();
    let dir = tempfile::tempdir().unwrap();
    let refused = exp["refused"].as_object().unwrap();
    assert!(refused.len() >= 3);
    for (name, word) in refused {
        let out = dir.path().join("out.zt");
        let err = fails(&["convert", s(&sample(name)), s(&out)]);
        assert!(err.starts_with(&format!("zt: {}: ", s(&sample(name)))), "{err}");
        assert!(err.contains(word.as_str().unwrap()), "{name}: {err}");
        assert!(listing(dir.path()).is_empty(), "{name}: {:?}", listing(dir.path()));
    }
}

// ------------------------------------------------------------ .zt inputs

/// Every reference fixture of `version` that the library reads.
fn reference_fixtures(version: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(fixture(version))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "zt"))
        .filter(|p| !matches!(p.file_name().unwrap().to_str(), Some("sparse_nonconformant.zt" | "names_edge.zt")))
        .collect();
    v.sort();
    v
}

/// `out` holds exactly `input`'s objects, attributes and decoded bytes.
fn assert_same_content(input: &[u8], out: &[u8], what: &str) {
    let a = File::parse(input).unwrap();
    let b = File::parse(out).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(b.version().to_string(), "1.2.0", "{what}");
    let attrs = |m: ztensor::Map<'_>| m.iter().map(|(k, v)| (k.raw().to_vec(), v.raw().to_vec())).collect::<Vec<_>>();
    assert_eq!(attrs(a.attributes()), attrs(b.attributes()), "{what}");
    assert_eq!(a.len(), b.len(), "{what}");
    for (x, y) in a.objects().zip(b.objects()) {
        let ctx = format!("{what}: {}", x.name());
        assert_eq!(x.name(), y.name(), "{what}");
        assert_eq!(x.shape().to_vec(), y.shape().to_vec(), "{ctx}");
        assert_eq!(x.format(), y.format(), "{ctx}");
        assert_eq!(attrs(x.attributes()), attrs(y.attributes()), "{ctx}");
        assert_eq!(x.component_count(), y.component_count(), "{ctx}");
        for (c, d) in x.components().zip(y.components()) {
            assert_eq!(c.role(), d.role(), "{ctx}");
            assert_eq!(c.dtype(), d.dtype(), "{ctx}");
            assert_eq!(c.logical_type(), d.logical_type(), "{ctx}");
            assert_eq!(c.to_vec().unwrap(), d.to_vec().unwrap(), "{ctx} {}", c.role());
        }
    }
}

#[test]
fn upgrades_every_v0_1_and_v1_1_reference_fixture() {
    let dir = tempfile::tempdir().unwrap();
    let mut n = 0;
    for v in ["v0.1", "v1.1"] {
        for p in reference_fixtures(v) {
            let what = format!("{v}/{}", p.file_name().unwrap().to_str().unwrap());
            let input = std::fs::read(&p).unwrap();
            let out = dir.path().join("up.zt");
            let bytes = convert(&p, &out, &[]);
            assert_same_content(&input, &bytes, &what);
            for c in File::parse(&bytes).unwrap().objects().flat_map(|o| o.components()) {
                assert_eq!(c.encoding(), Encoding::Raw, "{what}");
            }
            let packed = convert(&p, &out, &["--compress", "--digest", "sha256"]);
            assert_same_content(&input, &packed, &what);
            assert_compressed_unless_larger(&packed, 3, &what);
            for c in File::parse(&packed).unwrap().objects().flat_map(|o| o.components()) {
                assert_eq!(c.verify_digest().unwrap(), Verified::Ok, "{what}");
            }
            n += 1;
        }
    }
    assert!(n >= 10, "only {n} fixtures");
}

#[test]
fn reencodes_v1_2_fixtures_and_keeps_digest_algorithms() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("re.zt");
    let back = dir.path().join("back.zt");
    for p in reference_fixtures("v1.2") {
        let what = p.file_name().unwrap().to_str().unwrap().to_owned();
        let input = std::fs::read(&p).unwrap();
        // Default: raw, each component keeps its digest algorithm.
        let plain = convert(&p, &out, &[]);
        assert_same_content(&input, &plain, &what);
        let a = File::parse(&input).unwrap();
        let b = File::parse(&plain).unwrap();
        for (c, d) in a.objects().flat_map(|o| o.components()).zip(b.objects().flat_map(|o| o.components())) {
            let alg = |x: Option<&str>| x.map(|s| s.split(':').next().unwrap().to_owned());
            assert_eq!(alg(c.digest()), alg(d.digest()), "{what}");
            assert_eq!(d.encoding(), Encoding::Raw, "{what}");
            assert_ne!(d.verify_digest().unwrap(), Verified::Unverifiable, "{what}");
        }
        // zstd + crc32c, then back to raw without digests.
        let packed = convert(&p, &out, &["--compress=5", "--digest", "crc32c"]);
        assert_same_content(&input, &packed, &what);
        let raw = convert(&out, &back, &["--digest=none"]);
        assert_same_content(&input, &raw, &what);
        for c in File::parse(&raw).unwrap().objects().flat_map(|o| o.components()) {
            assert_eq!((c.encoding(), c.digest()), (Encoding::Raw, None), "{what}");
        }
    }
    // Raw v1.2 without digests converts to itself, byte for byte.
    let p = fixture("v1.2/dense_all_dtypes.zt");
    let input = std::fs::read(&p).unwrap();
    let again = convert(&p, &out, &[]);
    assert_same_content(&input, &again, "dense_all_dtypes");
    assert_eq!(convert(&out, &back, &[]), again, "converting a converted file changes nothing");
}

#[test]
fn v0_1_big_endian_data_and_custom_fields() {
    let dir = tempfile::tempdir().unwrap();
    let be: Vec<u8> = [1.5f32, -2.0, 3.25].iter().flat_map(|v| v.to_be_bytes()).collect();
    let le: Vec<u8> = [1.5f32, -2.0, 3.25].iter().flat_map(|v| v.to_le_bytes()).collect();
    let be16: Vec<u8> = [0x0102u16, 0xfffe].iter().flat_map(|v| v.to_be_bytes()).collect();
    let mut blobs = Blobs::new();
    let o1 = blobs.add(&be);
    let o2 = blobs.add(&be16);
    let o3 = blobs.add(&[1, 2, 3]);
    let mut t1 = v0_tensor("w", "float32", &[3], o1, 12);
    push(&mut t1, [("data_endianness", text("big")), ("origin", text("old tool")), ("scale", int(-3))]);
    let mut t2 = v0_tensor("h", "uint16", &[2], o2, 4);
    push(&mut t2, [("data_endianness", text("big"))]);
    let t3 = v0_tensor("b", "uint8", &[3], o3, 3);
    let file = v0_file(&blobs, &encode(&arr([t1, t2, t3])));
    let input = dir.path().join("old.zt");
    std::fs::write(&input, &file).unwrap();
    let out = dir.path().join("new.zt");
    let bytes = convert(&input, &out, &[]);
    assert_same_content(&file, &bytes, "v0.1 big-endian");
    let f = File::parse(&bytes).unwrap();
    assert_eq!(f.require("w").unwrap().data().unwrap().stored_bytes().unwrap(), &le[..]);
    assert_eq!(f.require("h").unwrap().data().unwrap().to_vec_of::<u16>().unwrap(), [0x0102, 0xfffe]);
    let w = f.require("w").unwrap();
    assert_eq!(w.attributes().get("origin").unwrap().as_str(), Some("old tool"));
    assert_eq!(w.attributes().get("scale").unwrap().as_i64(), Some(-3));
    assert!(w.attributes().get("data_endianness").is_none());
}

#[test]
fn v1_1_legacy_dtypes_and_narrow_sparse_indices() {
    let dir = tempfile::tempdir().unwrap();
    let mut blobs = Blobs::new();
    let fp8 = blobs.add(&[0x38, 0x40]);
    let cplx_bytes: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let cplx = blobs.add(&cplx_bytes);
    let vals_bytes: Vec<u8> = [5.0f32, 6.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let vals = blobs.add(&vals_bytes);
    let idx_bytes: Vec<u8> = [2i32, 0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let idx = blobs.add(&idx_bytes);
    let ptr = blobs.add(&[0, 1, 2]);
    let m = manifest(
        "1.1.0",
        [
            ("fp8", dense("f8_e4m3", &[2], fp8, 2)),
            ("cplx", dense("complex64", &[2], cplx, 16)),
            (
                "csr",
                obj(
                    &[2, 3],
                    "sparse_csr",
                    [
                        ("values", comp("f32", vals, 8)),
                        ("indices", comp("i32", idx, 8)),
                        ("indptr", comp("u8", ptr, 3)),
                    ],
                ),
            ),
        ],
    );
    let file = v1_file(&blobs, &encode(&m));
    let input = dir.path().join("v11.zt");
    std::fs::write(&input, &file).unwrap();
    let out = dir.path().join("v12.zt");
    let bytes = convert(&input, &out, &[]);
    let f = File::parse(&bytes).unwrap();
    let c = f.require("fp8").unwrap().data().unwrap();
    assert_eq!((c.dtype().name(), c.logical_type().unwrap().name()), ("u8", "f8_e4m3fn"));
    let c = f.require("cplx").unwrap().data().unwrap();
    assert_eq!((c.dtype().name(), c.logical_type().unwrap().name()), ("f32", "complex64"));
    assert_eq!(c.to_vec().unwrap(), cplx_bytes);
    let csr = f.require("csr").unwrap();
    assert_eq!(csr.require("indices").unwrap().to_vec_of::<u64>().unwrap(), [2, 0]);
    assert_eq!(csr.require("indptr").unwrap().to_vec_of::<u64>().unwrap(), [0, 1, 2]);
    assert_eq!(csr.require("values").unwrap().to_vec().unwrap(), vals_bytes);
    assert!(zt(&["verify", s(&out)]).status.success());
}

#[test]
fn unknown_fields_are_reported_and_bad_digests_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut blobs = Blobs::new();
    let off = blobs.add(&[1, 2, 3, 4]);
    let mut o = dense("u8", &[4], off, 4);
    push(&mut o, [("x_note", text("kept nowhere"))]);
    let good = v1_file(&blobs, &encode(&manifest("1.2.0", [("a", o.clone())])));
    let input = dir.path().join("in.zt");
    std::fs::write(&input, &good).unwrap();
    let out = dir.path().join("out.zt");
    let o2 = zt(&["convert", s(&input), s(&out)]);
    assert_eq!(code(&o2), 0, "{}", stderr(&o2));
    let err = stderr(&o2);
    assert!(err.starts_with(&format!("zt: {}: warning: ", s(&input))) && err.contains("x_note"), "{err}");
    // A digest that does not match: refused, nothing written.
    let bad_digest = format!("sha256:{}", "0".repeat(64));
    let mut o = dense("u8", &[4], off, 4);
    set(at(at(&mut o, "components"), "data"), "digest", text(&bad_digest));
    let bad = v1_file(&blobs, &encode(&manifest("1.2.0", [("a", o)])));
    std::fs::write(&input, &bad).unwrap();
    std::fs::remove_file(&out).unwrap();
    let err = fails(&["convert", s(&input), s(&out)]);
    assert!(err.contains("digest"), "{err}");
    assert!(!out.exists());
}

// ------------------------------------------------------------ safetensors

/// A safetensors file: `(name, dtype, shape, bytes)` in data order, and `__metadata__`.
fn safetensors(tensors: &[(&str, &str, Vec<u64>, Vec<u8>)], meta: &[(&str, &str)]) -> Vec<u8> {
    let mut header = serde_json::Map::new();
    let mut data = Vec::new();
    for (name, dtype, shape, b) in tensors {
        let t = serde_json::json!({"dtype": dtype, "shape": shape, "data_offsets": [data.len(), data.len() + b.len()]});
        header.insert(name.to_string(), t);
        data.extend_from_slice(b);
    }
    if !meta.is_empty() {
        let m: serde_json::Map<String, Json> = meta.iter().map(|(k, v)| (k.to_string(), Json::from(*v))).collect();
        header.insert("__metadata__".into(), Json::Object(m));
    }
    let mut h = serde_json::to_vec(&Json::Object(header)).unwrap();
    while h.len() % 8 != 0 {
        h.push(b' ');
    }
    let mut f = (h.len() as u64).to_le_bytes().to_vec();
    f.extend_from_slice(&h);
    f.extend_from_slice(&data);
    f
}

fn bytes_of(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
}

#[test]
fn safetensors_every_dtype() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str, Option<&str>, u64)] = &[
        ("BOOL", "bool", None, 8),
        ("U8", "u8", None, 8),
        ("I8", "i8", None, 8),
        ("I16", "i16", None, 16),
        ("U16", "u16", None, 16),
        ("F16", "f16", None, 16),
        ("BF16", "bf16", None, 16),
        ("I32", "i32", None, 32),
        ("U32", "u32", None, 32),
        ("F32", "f32", None, 32),
        ("F64", "f64", None, 64),
        ("I64", "i64", None, 64),
        ("U64", "u64", None, 64),
        ("F8_E4M3", "u8", Some("f8_e4m3fn"), 8),
        ("F8_E5M2", "u8", Some("f8_e5m2"), 8),
        ("F8_E8M0", "u8", Some("f8_e8m0fnu"), 8),
        ("F4", "u8", Some("f4_e2m1fn"), 4),
        ("F6_E2M3", "u8", Some("f6_e2m3fn"), 6),
        ("F6_E3M2", "u8", Some("f6_e3m2fn"), 6),
        ("C64", "f32", Some("complex64"), 64),
    ];
    let tensors: Vec<(&str, &str, Vec<u64>, Vec<u8>)> = cases
        .iter()
        .enumerate()
        .map(|(i, (st, ..))| {
            let bits = cases[i].3;
            let shape = vec![2, 4];
            let mut b = bytes_of((8 * bits / 8) as usize, i as u8);
            if *st == "BOOL" {
                // Bool bytes are 0 or 1: convert refuses others (cli_convert_rules.rs).
                b.iter_mut().for_each(|x| *x &= 1);
            }
            (*st, *st, shape, b)
        })
        .collect();
    let file = safetensors(&tensors, &[("format", "pt"), ("note", "ünïcode ✓")]);
    let input = dir.path().join("all.safetensors");
    std::fs::write(&input, &file).unwrap();
    let out = dir.path().join("all.zt");
    let bytes = convert(&input, &out, &[]);
    let f = File::parse(&bytes).unwrap();
    assert_eq!(f.len(), cases.len());
    assert_eq!(f.attributes().get("note").unwrap().as_str(), Some("ünïcode ✓"));
    assert_eq!(f.attributes().get("format").unwrap().as_str(), Some("pt"));
    for ((st, dt, lt, _), (_, _, shape, b)) in cases.iter().zip(&tensors) {
        let o = f.require(st).unwrap();
        assert_eq!(&o.shape().to_vec(), shape, "{st}");
        let c = o.data().unwrap();
        assert_eq!(c.dtype().name(), *dt, "{st}");
        assert_eq!(c.logical_type().map(|t| t.name()), *lt, "{st}");
        assert_eq!(c.stored_bytes().unwrap(), &b[..], "{st}");
    }
    // Objects follow the data order of the file.
    let names: Vec<&str> = f.objects().map(|o| o.name()).collect();
    assert_eq!(names, cases.iter().map(|c| c.0).collect::<Vec<_>>());

    // Unknown dtypes and inconsistent headers: one line, naming the tensor.
    for (t, word) in [
        (("w", "F7", vec![2], vec![0, 0]), "unsupported safetensors dtype \"F7\""),
        (("w", "F32", vec![3], vec![0; 8]), "needs 12 bytes"),
        (("w", "F4", vec![3], vec![0; 2]), "whole bytes"),
    ] {
        std::fs::write(&input, safetensors(&[t], &[])).unwrap();
        let err = fails(&["convert", s(&input), s(&out)]);
        assert!(err.contains(word) && err.contains("tensor \"w\""), "{err}");
    }
    // A duplicate key (hand-written header).
    let header =
        br#"{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}"#;
    let mut f = (header.len() as u64).to_le_bytes().to_vec();
    f.extend_from_slice(header);
    f.push(9);
    std::fs::write(&input, &f).unwrap();
    assert!(fails(&["convert", s(&input), s(&out)]).contains("duplicate key \"a\""));
}

// ------------------------------------------------------------ behaviour

#[test]
fn output_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = [
        sample("sample.safetensors"),
        sample("arrays.npz"),
        sample("arrays_compressed.npz"),
        sample("f64_fortran.npy"),
        fixture("v0.1/dense_all_dtypes.zt"),
        fixture("v1.1/sparse.zt"),
        fixture("v1.2/quantized.zt"),
    ];
    for input in &inputs {
        for flags in [&[][..], &["--compress", "--digest", "sha256"][..]] {
            let a = convert(input, &dir.path().join("a.zt"), flags);
            let b = convert(input, &dir.path().join("b.zt"), flags);
            assert_eq!(a, b, "{input:?} {flags:?}");
        }
    }
}

#[test]
fn a_failed_conversion_leaves_no_output_and_keeps_an_existing_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
    for (name, keep) in
        [("sample.safetensors", 700), ("arrays.npz", 3000), ("arrays_compressed.npz", 2000), ("f32_c.npy", 150)]
    {
        let b = std::fs::read(sample(name)).unwrap();
        inputs.push((format!("truncated_{name}"), b[..keep].to_vec()));
    }
    let zt_in = std::fs::read(fixture("v1.2/zstd.zt")).unwrap();
    inputs.push(("truncated.zt".into(), zt_in[..zt_in.len() - 5].to_vec()));
    // Fails midway, after other objects were written: the last member is corrupt.
    inputs.push(("late_failure.npz".into(), std::fs::read(sample("late_failure.npz")).unwrap()));
    inputs.push(("late_object.npz".into(), std::fs::read(sample("late_object.npz")).unwrap()));
    for (name, bytes) in &inputs {
        std::fs::write(d.join(name), bytes).unwrap();
    }
    let before = listing(d);
    for (name, _) in &inputs {
        let input = d.join(name);
        let out = d.join("out.zt");
        let err = fails(&["convert", s(&input), s(&out)]);
        assert!(err.starts_with(&format!("zt: {}: ", s(&input))), "{err}");
        assert_eq!(listing(d), before, "{name}: {err}");
        // An existing OUT stays as it was.
        std::fs::write(&out, b"precious").unwrap();
        let err = fails(&["convert", s(&input), s(&out)]);
        assert!(err.starts_with(&format!("zt: {}: ", s(&input))), "{err}");
        assert_eq!(std::fs::read(&out).unwrap(), b"precious", "{name}");
        std::fs::remove_file(&out).unwrap();
        assert_eq!(listing(d), before, "{name}");
    }
    // The late failures really are late: the first members are fine.
    assert!(fails(&["convert", s(&d.join("late_failure.npz")), s(&d.join("o.zt"))]).contains("member \"last.npy\""));
    assert!(fails(&["convert", s(&d.join("late_object.npz")), s(&d.join("o.zt"))]).contains("object arrays"));
}

/// OUT may not be IN: by device and inode, so also through a symbolic or a
/// hard link (it used to replace a .safetensors input with .zt bytes).
#[test]
fn refuses_to_overwrite_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let st = d.join("model.safetensors");
    std::fs::copy(sample("sample.safetensors"), &st).unwrap();
    let zt_in = d.join("same.zt");
    std::fs::copy(fixture("v1.1/zstd.zt"), &zt_in).unwrap();
    let hard = d.join("hard.zt");
    std::fs::hard_link(&zt_in, &hard).unwrap();
    let soft = d.join("soft.zt");
    std::os::unix::fs::symlink(&zt_in, &soft).unwrap();
    let sub = d.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let dotted = sub.join("../same.zt");
    let before: Vec<Vec<u8>> = [&st, &zt_in].iter().map(|p| std::fs::read(p).unwrap()).collect();
    let listed = listing(d);
    for (input, out) in
        [(&st, &st), (&zt_in, &zt_in), (&zt_in, &hard), (&zt_in, &soft), (&hard, &soft), (&zt_in, &dotted)]
    {
        let err = fails(&["convert", s(input), s(out), "--compress"]);
        assert!(err.starts_with(&format!("zt: {}: is the input file", s(out))), "{err}");
        let after: Vec<Vec<u8>> = [&st, &zt_in].iter().map(|p| std::fs::read(p).unwrap()).collect();
        assert!(after == before, "{input:?} -> {out:?} changed the input");
        assert_eq!(listing(d), listed);
    }
    assert!(std::fs::symlink_metadata(&soft).unwrap().file_type().is_symlink());
    // A copy is another file: converting onto a copy of the input is fine.
    let copy = d.join("copy.zt");
    std::fs::copy(&zt_in, &copy).unwrap();
    convert(&zt_in, &copy, &["--compress"]);
}

/// OUT's extension may not name another format.
#[test]
fn refuses_an_output_named_like_another_format() {
    let dir = tempfile::tempdir().unwrap();
    let input = sample("sample.safetensors");
    for name in ["out.npy", "out.safetensors", "out.NPZ", "model.pt", "model.gguf", "x.json"] {
        let out = dir.path().join(name);
        let err = fails(&["convert", s(&input), s(&out)]);
        assert!(err.starts_with(&format!("zt: {}: refusing to write a zTensor file", s(&out))), "{err}");
        assert!(err.contains(".zt"), "{err}");
        assert!(listing(dir.path()).is_empty(), "{name}");
    }
    // Nor '-': a file named "-" would be a surprise, and stdout cannot be renamed into place.
    let o = zt(&["convert", s(&input), "-"]);
    assert_eq!(code(&o), 1);
    assert_eq!(stderr(&o), "zt: OUT cannot be '-': zt convert writes a file (name it)\n");
    assert!(!Path::new("-").exists());
    // .zt and names without (or with an unrelated) extension are fine.
    for name in ["out.zt", "out", "out.ztensor", "v1.2"] {
        convert(&input, &dir.path().join(name), &[]);
    }
}

#[test]
fn summary_line_unless_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let input = sample("arrays.npz");
    let out = dir.path().join("a.zt");
    let o = zt(&["convert", s(&input), s(&out), "--compress", "--format-version", "1.2"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    let objects = File::parse(&std::fs::read(&out).unwrap()).unwrap().len();
    let (read, written) = (std::fs::metadata(&input).unwrap().len(), std::fs::metadata(&out).unwrap().len());
    let ratio = format!("({:.2}x)", read as f64 / written as f64);
    assert!(err.starts_with(&format!("zt: {}: {objects} objects, ", s(&out))), "{err}");
    assert!(err.contains(&format!("{read} B -> ")) || err.contains(" KiB -> "), "{err}");
    assert!(err.contains(&ratio) && err.trim_end().ends_with(" s"), "{ratio}: {err}");
    // Components zstd would not make smaller are kept raw, and counted.
    let f = std::fs::read(&out).unwrap();
    let raw = File::parse(&f).unwrap().objects().flat_map(|o| o.components()).filter(|c| c.encoding() == Encoding::Raw).count();
    assert!(raw > 0);
    assert!(err.contains(&format!("), {raw} components kept raw (zstd would not make them smaller), in ")), "{err}");
    for q in ["-q", "--quiet"] {
        let o = zt(&["convert", q, s(&input), s(&out)]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert!(o.stderr.is_empty(), "{}", stderr(&o));
    }
}

#[test]
fn compress_level_as_a_separate_argument() {
    let dir = tempfile::tempdir().unwrap();
    let input = sample("sample.safetensors");
    let (a, b) = (dir.path().join("a.zt"), dir.path().join("b.zt"));
    let joined = convert(&input, &a, &["--compress=5"]);
    let separate = convert(&input, &b, &["--compress", "5"]);
    assert_eq!(joined, separate);
    // Before the positionals too, and bare --compress before them still works.
    let o = zt(&["convert", "-q", "--format-version", "1.2", "--compress", "7", s(&input), s(&b)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = zt(&["convert", "-q", "--format-version", "1.2", "--compress", s(&input), s(&b)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let f = std::fs::read(&b).unwrap();
    assert_compressed_unless_larger(&f, 3, "sample.safetensors");
    let o = zt(&["convert", "-q", "--format-version", "1.2", "--compress", s(&sample("arrays.npz")), s(&b)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(assert_compressed_unless_larger(&std::fs::read(&b).unwrap(), 3, "arrays.npz") > 0);
    let o = zt(&["convert", s(&input), s(&b), "--compress", "23"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}

#[test]
fn usage_errors_exit_2() {
    let good = sample("f32_c.npy");
    let g = s(&good);
    // A path of this test's own: no usage error may create it.
    let x_path = std::env::temp_dir().join(format!("zt-usage-{}.zt", std::process::id()));
    let _ = std::fs::remove_file(&x_path);
    let x = x_path.to_str().unwrap();
    for args in [
        &["convert"][..],
        &["convert", g],
        &["convert", g, x, "extra"],
        &["convert", g, x, "--compress=0"],
        &["convert", g, x, "--compress=23"],
        &["convert", g, x, "--compress=fast"],
        &["convert", g, x, "--digest", "md5"],
        &["convert", g, x, "--digest"],
        &["convert", g, x, "--level", "3"],
        &["convert", g, x, "-x"],
    ] {
        let o = zt(args);
        let err = stderr(&o);
        assert_eq!(code(&o), 2, "{args:?}: {err}");
        assert!(err.contains("usage: zt convert"), "{args:?}: {err}");
        assert!(!Path::new(x).exists(), "{args:?}");
    }
    for args in [&["convert", "--help"][..], &["convert", g, "-h"], &["help", "convert"]] {
        let o = zt(args);
        assert_eq!(code(&o), 0);
        let help = String::from_utf8(o.stdout).unwrap();
        assert!(help.starts_with("Usage: zt convert IN OUT"), "{help}");
        for word in ["--compress", "--digest", ".safetensors", ".npy", ".npz", ".zt", "temporary file"] {
            assert!(help.contains(word), "{word}");
        }
    }
    let top = String::from_utf8(zt(&["--help"]).stdout).unwrap();
    assert!(top.contains("convert IN OUT"), "{top}");
}

#[test]
fn bad_input_exits_1_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = d.join("out.zt");
    std::fs::write(d.join("hello.bin"), b"hello world, not a tensor file").unwrap();
    std::fs::write(d.join("empty.safetensors"), b"").unwrap();
    std::fs::write(d.join("empty.npy"), b"").unwrap();
    std::fs::write(d.join("junk.zt"), b"ZTEN1000 garbage").unwrap();
    std::fs::write(d.join("huge_header.safetensors"), u64::MAX.to_le_bytes()).unwrap();
    for (name, word) in [
        ("missing.npy", "No such file"),
        ("hello.bin", "unrecognized input format"),
        ("empty.safetensors", "too small"),
        ("empty.npy", "truncated .npy header"),
        ("junk.zt", ""),
        ("huge_header.safetensors", "exceeds"),
    ] {
        let input = d.join(name);
        let err = fails(&["convert", s(&input), s(&out)]);
        assert!(err.starts_with(&format!("zt: {}: ", s(&input))), "{err}");
        assert!(err.contains(word), "{name}: {err}");
        assert!(!out.exists());
    }
    // An unwritable OUT is blamed on OUT.
    let nowhere = d.join("no/such/dir/out.zt");
    let err = fails(&["convert", s(&sample("f32_c.npy")), s(&nowhere)]);
    assert!(err.starts_with(&format!("zt: {}: ", s(&nowhere))), "{err}");
    let err = fails(&["convert", s(&sample("f32_c.npy")), s(d)]);
    assert!(err.contains("is a directory"), "{err}");
}

// ------------------------------------------------------------ the reference reader

const REFERENCE_VERSION: &str = "1.2.3";

fn python() -> String {
    std::env::var("ZT_REFERENCE_PYTHON").ok().filter(|s| !s.is_empty()).unwrap_or_else(|| "python3".to_owned())
}

/// Run the reference interpreter; panic loudly if it cannot run.
fn run_python(script: &str, args: &[&Path]) -> String {
    let py = python();
    let out = Command::new(&py).arg("-c").arg(script).args(args).output().unwrap_or_else(|e| {
        panic!("\n\nREFERENCE NOT AVAILABLE: cannot run `{py}` ({e}).\nSet ZT_REFERENCE_PYTHON to a Python with `pip install ztensor=={REFERENCE_VERSION} numpy`.\n\n")
    });
    if !out.status.success() {
        panic!("\n\nreference run with `{py}` failed ({}):\n{}\n", out.status, String::from_utf8_lossy(&out.stderr));
    }
    String::from_utf8(out.stdout).unwrap()
}

/// What the reference reader sees: for every object, its shape (from the
/// manifest as the reference parses it, and of `read_numpy`'s array) and
/// the SHA-256 of `read_numpy`'s bytes (of the raw component where numpy
/// has no dtype for it without ml_dtypes, i.e. bf16).
const READ_SCRIPT: &str = r#"
import hashlib, json, sys
import numpy as np
import ztensor
r = ztensor.Reader(sys.argv[1])
out = {}
for name in r.keys():
    try:
        a = r.read_numpy(name)
        out[name] = {"via": "read_numpy", "numpy_shape": list(a.shape), "dtype": str(a.dtype),
                     "sha256": hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()}
    except Exception as e:
        buf, dt = r._inner._read_component_raw(name, "data")
        b = bytes(np.asarray(buf).tobytes())
        out[name] = {"via": "raw", "error": repr(e), "dtype": dt, "sha256": hashlib.sha256(b).hexdigest()}
    out[name]["shape"] = list(r._inner._get_metadata(name)["shape"])
print(json.dumps(out))
"#;

#[test]
fn converted_safetensors_reads_identically_in_the_reference_reader() {
    let v = run_python(
        "import importlib.metadata as m, sys\n\
         try:\n    import ztensor, numpy\n\
         except Exception as e:\n    print('IMPORT-FAILED', repr(e)); sys.exit(0)\n\
         print(m.version('ztensor'))",
        &[],
    );
    assert_eq!(
        v.trim(),
        REFERENCE_VERSION,
        "\n\nREFERENCE NOT AVAILABLE: `{}` gives {:?}, expected ztensor {REFERENCE_VERSION}.\n\
         Set ZT_REFERENCE_PYTHON to a Python with `pip install ztensor=={REFERENCE_VERSION} numpy`.\n\n",
        python(),
        v.trim()
    );
    let dir = tempfile::tempdir().unwrap();
    // The committed sample plus a larger one made here.
    let big_f32: Vec<u8> = (0..300_000u32).flat_map(|i| ((i as f32).sin()).to_le_bytes()).collect();
    let made = safetensors(
        &[
            ("model.embed_tokens.weight", "F32", vec![600, 500], big_f32),
            ("lm_head.bf16", "BF16", vec![3, 7], bytes_of(42, 3)),
            ("scale.fp8", "F8_E4M3", vec![64], bytes_of(64, 9)),
            ("ids", "I64", vec![5], bytes_of(40, 1)),
            ("mask", "BOOL", vec![4], vec![0, 1, 1, 0]),
        ],
        &[("format", "pt")],
    );
    let made_path = dir.path().join("made.safetensors");
    std::fs::write(&made_path, &made).unwrap();
    let mut checked = 0;
    for input in [sample("sample.safetensors"), made_path] {
        let bytes = std::fs::read(&input).unwrap();
        // The original tensors, from the safetensors header (parsed here by serde_json).
        let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
        let header: Json = serde_json::from_slice(&bytes[8..8 + n]).unwrap();
        let data = &bytes[8 + n..];
        let tensors: Vec<(String, Vec<u64>, String)> = header
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, _)| *k != "__metadata__")
            .map(|(k, t)| {
                let o = t["data_offsets"].as_array().unwrap();
                let (b, e) = (o[0].as_u64().unwrap() as usize, o[1].as_u64().unwrap() as usize);
                let shape = t["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap()).collect();
                (k.clone(), shape, sha(&data[b..e]))
            })
            .collect();
        for flags in [&[][..], &["--compress", "--digest", "sha256"][..], &["--digest", "crc32c"][..]] {
            let out = dir.path().join("converted.zt");
            convert(&input, &out, flags);
            let seen: Json = serde_json::from_str(&run_python(READ_SCRIPT, &[&out])).unwrap();
            let seen = seen.as_object().unwrap();
            assert_eq!(seen.len(), tensors.len(), "{input:?} {flags:?}: {seen:?}");
            for (name, shape, digest) in &tensors {
                let got = seen.get(name).unwrap_or_else(|| panic!("{name} missing in {seen:?}"));
                let ctx = format!("{input:?} {flags:?} {name}: {got}");
                assert_eq!(got["sha256"].as_str().unwrap(), digest, "{ctx}");
                let got_shape: Vec<u64> =
                    got["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap()).collect();
                assert_eq!(&got_shape, shape, "{ctx}");
                if let Some(np_shape) = got.get("numpy_shape") {
                    let np_shape: Vec<u64> = np_shape.as_array().unwrap().iter().map(|d| d.as_u64().unwrap()).collect();
                    // read_numpy gives 0-d objects the shape (1,) (the reference's quirk).
                    assert!(np_shape == *shape || (shape.is_empty() && np_shape == [1]), "{ctx}");
                }
                if got["via"] == "raw" {
                    // Only bf16 needs the raw path (numpy has no bfloat16 without ml_dtypes).
                    assert_eq!(got["dtype"], "bfloat16", "{ctx}");
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 3 * (16 + 5), "{checked}");
}

// ------------------------------------------------------------ signals

/// A safetensors file of `mib` MiB of one u8 tensor (slow enough to
/// interrupt: the test binary is a debug build and `--digest sha256` hashes it).
fn big_safetensors(path: &Path, mib: usize) {
    let n = mib << 20;
    let bytes = bytes_of(n, 7);
    std::fs::write(path, safetensors(&[("w", "U8", vec![n as u64], bytes)], &[])).unwrap();
}

/// Interrupting a conversion (SIGINT, SIGTERM, SIGHUP) removes its
/// temporary file; zt then dies of that signal. (SIGKILL cannot be caught:
/// the help says what stays behind.)
#[test]
fn a_signal_removes_the_temporary_file() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = d.join("big.safetensors");
    big_safetensors(&input, 48);
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        let out = d.join("out.zt");
        let mut child = Command::new(env!("CARGO_BIN_EXE_zt"))
            .args(["convert", "--digest", "sha256", s(&input), s(&out)])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Wait until the temporary file exists and is being filled.
        let start = std::time::Instant::now();
        let temp = loop {
            let found = listing(d).into_iter().find(|n| n.starts_with(".out.zt.") && n.ends_with(".tmp"));
            if let Some(t) = found.filter(|t| std::fs::metadata(d.join(t)).is_ok_and(|m| m.len() > 0)) {
                break t;
            }
            assert!(start.elapsed().as_secs() < 60, "no temporary file appeared: {:?}", listing(d));
            assert!(child.try_wait().unwrap().is_none(), "zt ended before it could be interrupted");
            std::thread::sleep(std::time::Duration::from_millis(2));
        };
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, sig) }, 0);
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.signal(), Some(sig), "signal {sig}: {:?} {}", o.status, stderr(&o));
        assert!(!d.join(&temp).exists(), "signal {sig}: {temp} left behind");
        assert_eq!(listing(d), ["big.safetensors"], "signal {sig}");
    }
}

/// `-` as IN reads stdin; a `.npy` read so is named after OUT.
#[test]
fn converts_from_stdin() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    for (name, object) in [("f32_c.npy", Some("weights")), ("sample.safetensors", None), ("arrays.npz", None)] {
        let out = dir.path().join("weights.zt");
        let mut child = Command::new(env!("CARGO_BIN_EXE_zt"))
            .args(["convert", "-q", "--format-version", "1.2", "-", s(&out)])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&std::fs::read(sample(name)).unwrap()).unwrap();
        let o = child.wait_with_output().unwrap();
        assert_eq!(code(&o), 0, "{name}: {}", stderr(&o));
        let from_stdin = std::fs::read(&out).unwrap();
        let from_file = convert(&sample(name), &dir.path().join("file.zt"), &[]);
        match object {
            // Same bytes but the object's name.
            Some(obj) => {
                let f = File::parse(&from_stdin).unwrap();
                assert_eq!(f.objects().map(|o| o.name().to_owned()).collect::<Vec<_>>(), [obj]);
                let g = File::parse(&from_file).unwrap();
                assert_eq!(
                    f.require(obj).unwrap().data().unwrap().to_vec().unwrap(),
                    g.objects().next().unwrap().data().unwrap().to_vec().unwrap()
                );
            }
            None => assert_eq!(from_stdin, from_file, "{name}"),
        }
    }
}
