//! `zt convert IN.gguf OUT`, run as a separate process. The canonical v2
//! output (the default) must be byte-identical to
//! upstream's `ztensor.convert` (PyPI `ztensor` 2.1.2, which converts GGUF
//! itself), and upstream's reader must read every tensor of every output
//! back as it was in the GGUF file. The interpreter is
//! `$ZT_REFERENCE_V2_PYTHON`, else `python3`: if it cannot import
//! ztensor 2.1.2, these tests FAIL (they never pass without the reference).
//! Inputs: the gguf-py fixtures of `tests/fixtures/convert/gguf/` and files
//! built here (every registered ggml type, hostile headers).

mod reference_v2;

#[path = "../src/convert/gguf/build.rs"]
mod build;

use build::{Val, T};
use reference_v2::{run_python, s, zt, CHECK_VERSION, V2_MAGIC};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/convert/gguf").join(name)
}

/// Files in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// `zt convert --quiet IN OUT EXTRA...`, which must succeed silently.
fn convert(input: &Path, out: &Path, extra: &[&str]) {
    let mut args = vec!["convert", "--quiet", s(input), s(out)];
    args.extend_from_slice(extra);
    let o = zt(&args);
    assert!(o.status.success() && o.stderr.is_empty(), "zt {args:?}: {}", String::from_utf8_lossy(&o.stderr));
}

/// ggml's block types as ggml-common.h sizes them (`id, name,
/// elems_per_block, sizeof(block)`): the test's own table, not the parser's.
const QUANTIZED: [(u32, &str, u64, u64); 22] = [
    (2, "q4_0", 32, 18),
    (3, "q4_1", 32, 20),
    (6, "q5_0", 32, 22),
    (7, "q5_1", 32, 24),
    (8, "q8_0", 32, 34),
    (9, "q8_1", 32, 36),
    (10, "q2_k", 256, 84),
    (11, "q3_k", 256, 110),
    (12, "q4_k", 256, 144),
    (13, "q5_k", 256, 176),
    (14, "q6_k", 256, 210),
    (15, "q8_k", 256, 292),
    (16, "iq2_xxs", 256, 66),
    (17, "iq2_xs", 256, 74),
    (18, "iq3_xxs", 256, 98),
    (19, "iq1_s", 256, 50),
    (20, "iq4_nl", 32, 18),
    (21, "iq3_s", 256, 110),
    (22, "iq2_s", 256, 82),
    (23, "iq4_xs", 256, 136),
    (29, "iq1_m", 256, 56),
    (39, "mxfp4", 32, 17),
];

/// Unquantized ggml types: id, dtype, element size.
const DENSE: [(u32, &str, u64); 8] =
    [(0, "f32", 4), (1, "f16", 2), (30, "bf16", 2), (28, "f64", 8), (24, "i8", 1), (25, "i16", 2), (26, "i32", 4), (27, "i64", 8)];

/// What one tensor must read back as: name, layout, shape, dtype, bytes.
struct Want {
    name: String,
    layout: String,
    shape: Vec<u64>,
    dtype: &'static str,
    data: Vec<u8>,
}

/// A GGUF file (version `version`, alignment 64) with one tensor of every
/// registered type (2 rows of 2 blocks; pseudo-random bytes), metadata of
/// every value type (empty and nested arrays too), and what each tensor
/// must read back as.
fn every_type(dir: &Path, version: u32) -> (PathBuf, Vec<Want>) {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut bytes = |n: u64| -> Vec<u8> {
        (0..n)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed as u8
            })
            .collect()
    };
    let (mut tensors, mut want) = (Vec::new(), Vec::new());
    for (id, name, epb, bb) in QUANTIZED {
        let data = bytes(2 * 2 * bb);
        tensors.push(T { name: format!("blk.{name}"), shape: vec![2, 2 * epb], ty: id, data: data.clone() });
        want.push(Want { name: format!("blk.{name}"), layout: format!("gguf.{name}/1"), shape: vec![2, 2 * epb], dtype: "u8", data });
    }
    for (i, (id, dtype, size)) in DENSE.into_iter().enumerate() {
        let shape: Vec<u64> = [vec![3, 2], vec![], vec![0, 5], vec![1, 2, 3, 4]][i % 4].clone();
        let data = bytes(shape.iter().product::<u64>() * size);
        tensors.push(T { name: format!("dense.{dtype}"), shape: shape.clone(), ty: id, data: data.clone() });
        want.push(Want { name: format!("dense.{dtype}"), layout: "dense".into(), shape, dtype, data });
    }
    let kvs = [
        ("general.architecture", Val::Str("test".into())),
        ("v.u8", Val::U8(200)),
        ("v.i8", Val::I8(-1)),
        ("v.u16", Val::U16(300)),
        ("v.i16", Val::I16(-300)),
        ("v.u32", Val::U32(70_000)),
        ("v.i32", Val::I32(i32::MIN)),
        ("v.f32", Val::F32(1.0e-40)),
        ("v.bool", Val::Bool(false)),
        ("v.str", Val::Str("ünïcode ✓".into())),
        ("v.u64", Val::U64(1 << 40)),
        ("v.i64", Val::I64(-(1 << 40))),
        ("v.f64", Val::F64(f64::MAX)),
        ("v.f64_half", Val::F64(1.5)),
        ("v.empty", Val::Arr(4, vec![])),
        ("v.bools", Val::Arr(7, vec![Val::Bool(true), Val::Bool(false)])),
        ("v.f32s", Val::Arr(6, vec![Val::F32(f32::NAN), Val::F32(f32::INFINITY), Val::F32(-0.0), Val::F32(2.75)])),
        ("v.nested", Val::Arr(9, vec![Val::Arr(8, vec![Val::Str("x".into())]), Val::Arr(10, vec![]), Val::Arr(9, vec![Val::Arr(0, vec![Val::U8(1)])])])),
    ];
    // Arrays 30 deep (the most upstream converts), the innermost of one string.
    let deep = (1..30).fold(Val::Arr(8, vec![Val::Str("deep".into())]), |v, _| Val::Arr(9, vec![v]));
    let kvs: Vec<(&str, Val)> = kvs.into_iter().chain([("v.deep", deep)]).collect();
    let path = dir.join(format!("every_type_v{version}.gguf"));
    std::fs::write(&path, build::file(version, 64, &kvs, &tensors)).unwrap();
    (path, want)
}

/// upstream's canonical conversion of `input`, and ours: they must be the same bytes.
fn same_as_upstream(input: &Path, dir: &Path) -> Vec<u8> {
    let stem = input.file_stem().unwrap().to_string_lossy().into_owned();
    let (ours, theirs) = (dir.join(format!("{stem}.ours.zt")), dir.join(format!("{stem}.theirs.zt")));
    run_python(&format!("{CHECK_VERSION}ztensor.convert(sys.argv[1], sys.argv[2])\n"), &[s(input), s(&theirs)]);
    convert(input, &ours, &[]);
    let (a, b) = (std::fs::read(&ours).unwrap(), std::fs::read(&theirs).unwrap());
    assert!(b.len() > 65536 && b.starts_with(V2_MAGIC), "the reference wrote a v2 file for {stem}");
    assert!(a == b, "{stem}: zt convert ({} bytes) differs from ztensor.convert ({} bytes)", a.len(), b.len());
    a
}

#[test]
fn canonical_output_is_byte_identical_to_upstream_convert() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["dense.gguf", "quant.gguf", "v2.gguf"] {
        same_as_upstream(&fixture(name), dir.path());
    }
    for version in [2, 3] {
        let (input, _) = every_type(dir.path(), version);
        same_as_upstream(&input, dir.path());
    }
    assert!(!listing(dir.path()).iter().any(|n| n.starts_with('.')), "no temporary file is left");
}

/// Reads a v2 file (argv[1]) with the reference and checks every tensor
/// against the JSON list argv[2] ([name, layout, shape, dtype, hex bytes]);
/// then `verify(deep=True)`. Prints `objects digested undigested`.
const READ_BACK: &str = "
import json
want = json.load(open(sys.argv[2]))
s = ztensor.open(sys.argv[1])
assert sorted(s.keys()) == sorted(w[0] for w in want), sorted(s.keys())
for name, layout, shape, dtype, data in want:
    t = s[name]
    assert (t.layout, list(t.shape), t.dtype, t.logical) == (layout, shape, dtype, None), (name, t.layout, t.shape, t.dtype)
    assert t.parts == ['data'], (name, t.parts)
    assert t.tobytes() == bytes.fromhex(data), name
a = s.attributes
assert a['general.alignment'] == 64 and a['v.i32'] == -2**31 and a['v.nested'][2] == [[1]], a
v = s.verify(deep=True)
print(len(s), v.checked, v.undigested)
";

fn want_json(want: &[Want]) -> String {
    let rows: Vec<String> = want
        .iter()
        .map(|w| {
            let hex: String = w.data.iter().map(|b| format!("{b:02x}")).collect();
            format!("[{:?}, {:?}, {:?}, {:?}, {:?}]", w.name, w.layout, w.shape, w.dtype, hex)
        })
        .collect();
    format!("[{}]", rows.join(", "))
}

#[test]
fn upstream_reads_every_tensor_of_every_output_back() {
    let dir = tempfile::tempdir().unwrap();
    let (input, want) = every_type(dir.path(), 3);
    let expected = dir.path().join("want.json");
    std::fs::write(&expected, want_json(&want)).unwrap();
    let n = want.len();
    let cases: &[(&str, &[&str], [usize; 2])] = &[
        ("canonical", &[], [n, 0]),
        ("compress", &["--compress"], [n, 0]),
        ("align", &["--align", "4096", "--digest", "sha256"], [n, 0]),
        ("nodigest", &["--digest", "none"], [0, n]),
        ("sharded", &["--shard-size", "64K"], [n, 0]),
    ];
    for (name, opts, [digested, undigested]) in cases {
        let out = dir.path().join(format!("{name}.zt"));
        convert(&input, &out, opts);
        let r = run_python(&format!("{CHECK_VERSION}{READ_BACK}"), &[s(&out), s(&expected)]);
        assert_eq!(r.trim(), format!("{n} {digested} {undigested}"), "{name}: objects, digested and undigested parts");
    }
}

#[test]
fn v12_output_holds_dense_gguf_and_refuses_quantized_by_name() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["dense.gguf", "v2.gguf"] {
        // GGUF -> v1.2 -> v2 (the default): upstream's canonical bytes again, so
        // v1.2 kept every tensor and metadata value.
        let v12 = dir.path().join(format!("{name}.v12.zt"));
        convert(&fixture(name), &v12, &["--format-version", "1.2"]);
        assert!(std::fs::read(&v12).unwrap().starts_with(b"ZTEN1000"), "a v1.2 file");
        let upstream = same_as_upstream(&fixture(name), dir.path());
        let again = dir.path().join(format!("{name}.again.zt"));
        convert(&v12, &again, &[]);
        assert!(std::fs::read(&again).unwrap() == upstream, "{name} -> v1.2 -> v2 gives upstream's bytes");
    }
    let input = fixture("quant.gguf");
    let out = dir.path().join("q.zt");
    let r = zt(&["convert", s(&input), s(&out), "--format-version", "1.2"]);
    assert_eq!(r.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&r.stderr),
        format!(
            "zt: {}: tensor \"q4_0\": ggml type q4_0 has no v1.2 equivalent (v2, the default, keeps it as layout gguf.q4_0/1)\n",
            input.display()
        )
    );
    assert!(!out.exists());
}

#[test]
fn hostile_gguf_is_refused_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let quant = std::fs::read(fixture("quant.gguf")).unwrap();
    let mut overlap = build::header(3, 2, 0);
    build::info(&mut overlap, "a", &[8], 0, 0);
    build::info(&mut overlap, "b", &[8], 0, 0);
    overlap.resize(96 + 32, 0); // the data section: 32 bytes, both tensors at 0
    let mut misaligned = quant.clone();
    // The last tensor info, "mxfp4" [4, 32]: n_dims, 2 dims, type, then the offset (+1).
    let n_dims_at = quant.windows(5).position(|w| w == b"mxfp4").unwrap() + 5;
    let offset_at = n_dims_at + 4 + 2 * 8 + 4;
    misaligned[offset_at] += 1;
    let offset = u64::from_le_bytes(misaligned[offset_at..offset_at + 8].try_into().unwrap());
    assert_eq!(offset, 1153, "iq4_nl's 36 bytes end at 1124; mxfp4 is at 1152, now 1153");
    let misaligned_msg = format!("tensor \"mxfp4\": data offset {offset} is not a multiple of the alignment 64");
    let truncated = format!("truncated GGUF: the dimension count of tensor \"mxfp4\" needs 4 bytes at byte {n_dims_at}, only 2 left");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("v1", build::header(1, 0, 0), "GGUF version 1 is not supported (only versions 2 and 3)"),
        (
            "count",
            build::header(3, u64::MAX, 0),
            "GGUF claims 18446744073709551615 tensors, which need at least 18446744073709551615 bytes, only 0 left",
        ),
        ("truncated", quant[..n_dims_at + 2].to_vec(), &truncated),
        ("overlap", overlap, "the data of tensors \"a\" and \"b\" overlap"),
        ("misaligned", misaligned, &misaligned_msg),
    ];
    for (name, bytes, msg) in &cases {
        let input = dir.path().join(format!("{name}.gguf"));
        std::fs::write(&input, bytes).unwrap();
        for v in ["1.2", "2"] {
            let out = dir.path().join("out.zt");
            let r = zt(&["convert", s(&input), s(&out), "--format-version", v]);
            assert_eq!(r.status.code(), Some(1), "{name}");
            assert_eq!(String::from_utf8_lossy(&r.stderr), format!("zt: {}: {msg}\n", input.display()), "{name} as {v}");
        }
    }
    assert!(listing(dir.path()).iter().all(|n| n.ends_with(".gguf")), "no OUT, no stage, no temporary file");
}
