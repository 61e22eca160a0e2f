//! `zt convert` to v2 (the default generation; issue 29), run as a separate
//! process, against the reference implementation: PyPI `ztensor` 2.1.2
//! (issues 14's and 29's "How we will know"). Its `ztensor.convert` gives the canonical bytes ours must equal;
//! its reader must open every non-canonical file convert writes and read
//! every tensor bit-identically to the input, with `verify(deep=True)`.
//!
//! The interpreter is `$ZT_REFERENCE_V2_PYTHON`, else `python3`; it must
//! import `ztensor` 2.1.2 and numpy. If it cannot, these tests FAIL: they
//! never pass without having run the reference.

mod reference_v2;

use reference_v2::{run_python, s, zt, CHECK_VERSION, V2_MAGIC};
use std::path::{Path, PathBuf};

/// Writes a metadata-free `.safetensors` (argv[1]) with every dtype of the
/// issue's byte-identity list, in no particular name order; with argv[2] ==
/// 'big', adds a 3.2 MB compressible f32 tensor (several zstd frames, a
/// shard of its own).
const MAKE_INPUT: &str = "
import json, struct
import numpy as np
r = np.random.default_rng(7)
t = [
    ('w', 'F32', [3, 5], r.standard_normal((3, 5)).astype('<f4').tobytes()),
    ('a.half', 'F16', [4], r.standard_normal(4).astype('<f2').tobytes()),
    ('b.bf16', 'BF16', [2, 3], r.integers(0, 2**16, 6).astype('<u2').tobytes()),
    ('count', 'I64', [7], np.arange(-3, 4, dtype='<i8').tobytes()),
    ('small', 'I8', [3], np.array([-128, 0, 127], dtype='i1').tobytes()),
    ('mask', 'BOOL', [3], bytes([1, 0, 1])),
    ('empty', 'F32', [0, 3], b''),
    ('scalar', 'F32', [], np.float32(2.5).tobytes()),
    ('same1', 'F32', [16], np.ones(16, dtype='<f4').tobytes()),
    ('same2', 'F32', [16], np.ones(16, dtype='<f4').tobytes()),
]
if sys.argv[2] == 'big':
    t.append(('big', 'F32', [800, 1000], (np.arange(800000) % 1000).astype('<f4').tobytes()))
header, data = {}, b''
for name, dt, shape, b in t:
    header[name] = {'dtype': dt, 'shape': shape, 'data_offsets': [len(data), len(data) + len(b)]}
    data += b
h = json.dumps(header).encode()
h += b' ' * (-len(h) % 8)
with open(sys.argv[1], 'wb') as f:
    f.write(struct.pack('<Q', len(h)) + h + data)
";

/// Reads a v2 file (argv[2]) with the reference and checks every tensor
/// against the safetensors input (argv[1]): names, shape, dtype (BOOL as
/// u8 with the logical type bool), bytes; then `verify(deep=True)`.
/// Prints `files digested undigested`.
const READ_BACK: &str = "
import json, struct
src = open(sys.argv[1], 'rb').read()
n = struct.unpack('<Q', src[:8])[0]
header = json.loads(src[8:8 + n])
data = src[8 + n:]
dtypes = {'F32': ('f32', None), 'F16': ('f16', None), 'BF16': ('bf16', None), 'I64': ('i64', None),
          'I8': ('i8', None), 'BOOL': ('u8', 'bool')}
s = ztensor.open(sys.argv[2])
assert sorted(s.keys()) == sorted(header), (sorted(s.keys()), sorted(header))
for name, h in header.items():
    t = s[name]
    a, b = h['data_offsets']
    assert t.layout == 'dense', (name, t.layout)
    assert list(t.shape) == h['shape'], (name, t.shape, h['shape'])
    assert (t.dtype, t.logical) == dtypes[h['dtype']], (name, t.dtype, t.logical)
    assert t.tobytes() == data[a:b], name
v = s.verify(deep=True)
print(len(s.files), v.checked, v.undigested)
";

/// `zt convert --quiet IN OUT EXTRA...` (v2: the default), which must succeed silently.
fn convert_v2(input: &Path, out: &Path, extra: &[&str]) {
    let mut args = vec!["convert", "--quiet", s(input), s(out)];
    args.extend_from_slice(extra);
    let o = zt(&args);
    assert!(o.status.success(), "zt {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stderr.is_empty(), "zt {args:?}: {}", String::from_utf8_lossy(&o.stderr));
}

fn make_input(dir: &Path, big: bool) -> PathBuf {
    let p = dir.join(if big { "big.safetensors" } else { "in.safetensors" });
    run_python(&format!("{CHECK_VERSION}{MAKE_INPUT}"), &[s(&p), if big { "big" } else { "small" }]);
    p
}

/// Files in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn canonical_output_is_byte_identical_to_upstream_convert() {
    let dir = tempfile::tempdir().unwrap();
    let input = make_input(dir.path(), false);
    let (ours, theirs) = (dir.path().join("ours.zt"), dir.path().join("theirs.zt"));
    run_python(&format!("{CHECK_VERSION}ztensor.convert(sys.argv[1], sys.argv[2])\n"), &[s(&input), s(&theirs)]);
    // No options at all: the default is canonical v2.
    convert_v2(&input, &ours, &[]);
    let (a, b) = (std::fs::read(&ours).unwrap(), std::fs::read(&theirs).unwrap());
    assert!(b.len() > 65536 && b.starts_with(V2_MAGIC), "the reference wrote a v2 file");
    assert!(a == b, "zt convert IN OUT ({} bytes) differs from ztensor.convert ({} bytes)", a.len(), b.len());
    // `--format-version 2` asks for the same thing.
    let explicit = dir.path().join("explicit.zt");
    convert_v2(&input, &explicit, &["--format-version", "2"]);
    assert!(std::fs::read(&explicit).unwrap() == b, "--format-version 2 is the default");
    std::fs::remove_file(&explicit).unwrap();
    // And it reads back as the input (canonical: an xxh3 digest on each of the 10 parts).
    let r = run_python(&format!("{CHECK_VERSION}{READ_BACK}"), &[s(&input), s(&ours)]);
    assert_eq!(r.trim(), "1 10 0");
    // The stage file is gone.
    assert_eq!(listing(dir.path()), ["in.safetensors", "ours.zt", "theirs.zt"]);
    // Upstream's file back to v1.2, and that to v2 again: the same bytes.
    let (back, again) = (dir.path().join("back.zt"), dir.path().join("again.zt"));
    assert!(zt(&["convert", "-q", s(&theirs), s(&back), "--format-version", "1.2"]).status.success());
    assert!(std::fs::read(&back).unwrap().starts_with(b"ZTEN1000"));
    convert_v2(&back, &again, &[]);
    assert!(std::fs::read(&again).unwrap() == b, "v2 -> v1.2 -> v2 gives upstream's bytes again");
}

#[test]
fn upstream_reads_every_non_canonical_output() {
    let dir = tempfile::tempdir().unwrap();
    let input = make_input(dir.path(), true);
    let canonical = dir.path().join("canonical.zt");
    convert_v2(&input, &canonical, &[]);
    let canonical = std::fs::read(canonical).unwrap();
    let cases: &[(&str, &[&str], &str)] = &[
        ("align", &["--align", "4096"], "1 11 0"),
        ("compress", &["--compress"], "1 11 0"),
        ("compress9", &["--compress=9", "--align", "8192"], "1 11 0"),
        ("sha256", &["--digest", "sha256"], "1 11 0"),
        ("xxh3", &["--digest", "xxh3", "--align", "4096"], "1 11 0"),
        ("nodigest", &["--digest", "none"], "1 0 11"),
        // Blobs in name order at 64 KiB boundaries: `a.half`, `b.bf16` in the first 1 MiB
        // shard, `big` (3.2 MB) alone in the second, the 8 others in the third: root + 3.
        ("sharded", &["--shard-size", "1M", "--digest", "sha256"], "4 11 0"),
    ];
    for (name, opts, want) in cases {
        let out = dir.path().join(format!("{name}.zt"));
        convert_v2(&input, &out, opts);
        let bytes = std::fs::read(&out).unwrap();
        assert!(bytes != canonical, "{name}: {opts:?} gave the canonical bytes");
        let r = run_python(&format!("{CHECK_VERSION}{READ_BACK}"), &[s(&input), s(&out)]);
        assert_eq!(r.trim(), *want, "{name}: files, digested and undigested parts per the reference");
    }
    let compressed = std::fs::metadata(dir.path().join("compress.zt")).unwrap().len();
    // 11 blobs at 64 KiB boundaries (720 KiB) plus `big` compressed: far below its 3.2 MB raw.
    assert!(compressed < 1_000_000, "zstd-seekable shrinks the compressible tensor ({compressed} bytes)");
    let shards: Vec<String> = listing(dir.path()).into_iter().filter(|n| n.starts_with("sharded-")).collect();
    assert_eq!(shards, ["sharded-00001-of-00003.zt", "sharded-00002-of-00003.zt", "sharded-00003-of-00003.zt"]);
    assert!(!listing(dir.path()).iter().any(|n| n.starts_with('.')), "no stage or temporary file is left");
    // Each of them back to canonical form: the canonical bytes again (the sharded root read with its shards).
    for (name, ..) in cases {
        let again = dir.path().join(format!("again-{name}.zt"));
        convert_v2(&dir.path().join(format!("{name}.zt")), &again, &[]);
        assert!(std::fs::read(&again).unwrap() == canonical, "{name} -> canonical");
    }
}

#[test]
fn v2_options_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("x.npy");
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/convert/f32_c.npy");
    std::fs::copy(sample, &input).unwrap();
    let out = dir.path().join("x.zt");
    let (i, o) = (s(&input), s(&out));
    let refused = |args: &[&str], needle: &str| {
        let r = zt(args);
        let err = String::from_utf8_lossy(&r.stderr).into_owned();
        assert_eq!(r.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?} wrote OUT");
    };
    let v12 = ["--format-version", "1.2"];
    refused(
        &[&["convert", i, o, "--align", "4096"][..], &v12].concat(),
        "are v2 options (not with --format-version 1.2)",
    );
    refused(&[&["convert", i, o, "--shard-size", "1M"][..], &v12].concat(), "are v2 options");
    refused(
        &[&["convert", i, o, "--digest", "xxh3"][..], &v12].concat(),
        "is a v2 digest (not with --format-version 1.2)",
    );
    refused(&["convert", i, o, "--digest", "crc32c"], "v1.2 only (--format-version 1.2");
    refused(&["convert", i, o, "--format-version", "2", "--digest", "crc32c"], "v1.2 only");
    refused(&["convert", i, o, "--format-version", "2", "--align", "1000"], "power of two");
    refused(&["convert", i, o, "--format-version", "2", "--align", "2048"], "power of two");
    // At most 1 GiB: the padding before each blob is up to --align bytes (audit M1).
    refused(&["convert", i, o, "--format-version", "2", "--align", "2G"], "1 GiB");
    refused(&["convert", i, o, "--format-version", "2", "--align", "9223372036854775808"], "1 GiB");
    refused(&["convert", i, o, "--format-version", "3"], "--format-version");
    refused(&["convert", i, o, "--format-version", "2", "--shard-size", "0"], "positive byte count");
    // The default is v2; v1.2 is one option away.
    convert_v2(&input, &out, &[]);
    let b = std::fs::read(&out).unwrap();
    assert!(b.starts_with(V2_MAGIC), "v2 is the default");
    std::fs::remove_file(&out).unwrap();
    assert!(zt(&["convert", "-q", i, o, "--format-version", "1.2"]).status.success());
    assert!(std::fs::read(&out).unwrap().starts_with(b"ZTEN1000"), "--format-version 1.2 writes v1.2");
}

#[test]
fn a_name_v2_refuses_leaves_no_output_and_no_stage_file() {
    // NFD "é" (e + U+0301): v1.2 takes it, canonical v2 refuses non-NFC names.
    let dir = tempfile::tempdir().unwrap();
    let name = "cafe\u{301}";
    let header = format!("{{\"{name}\":{{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}}}");
    let mut f = (header.len() as u64).to_le_bytes().to_vec();
    f.extend_from_slice(header.as_bytes());
    f.push(7);
    let input = dir.path().join("nfd.safetensors");
    std::fs::write(&input, f).unwrap();
    let out = dir.path().join("nfd.zt");
    let r = zt(&["convert", "-q", s(&input), s(&out)]);
    let err = String::from_utf8_lossy(&r.stderr).into_owned();
    assert_eq!(r.status.code(), Some(1), "{err}");
    assert!(err.contains("nfd.safetensors") && err.contains("cafe") && err.contains("not in Unicode Normalization Form C"), "IN and the object are named: {err}");
    assert_eq!(listing(dir.path()), ["nfd.safetensors"], "no OUT, no stage, no temporary file");
}

/// For each `(v2 file, v1.2 file)` pair: the reference reads every object of
/// the v2 file with the shape, part names and decoded bytes our own v1.2
/// conversion of the same input has (layouts renamed, `bool` as `u8`).
const SAME_AS_V12: &str = "
import hashlib, json
res = []
for f in sys.argv[1:]:
    s = ztensor.open(f)
    res.append({k: [list(s[k].shape), {p: hashlib.sha256(s[k][p].tobytes()).hexdigest() for p in s[k].parts}] for k in s.keys()})
    ztensor.verify(f, deep=True)
print(json.dumps(res))
";

/// What the v1.2 file holds, as `SAME_AS_V12` prints it.
fn v12_content(path: &Path) -> serde_json::Value {
    use sha2::{Digest as _, Sha256};
    let bytes = std::fs::read(path).unwrap();
    let file = ztensor::File::parse(&bytes).unwrap();
    let mut m = serde_json::Map::new();
    for o in file.objects() {
        let parts: serde_json::Map<String, serde_json::Value> = o
            .components()
            .map(|c| (c.role().to_owned(), hex::encode(Sha256::digest(c.to_vec().unwrap())).into()))
            .collect();
        m.insert(o.name().to_owned(), serde_json::json!([o.shape().dims().collect::<Vec<u64>>(), parts]));
    }
    serde_json::Value::Object(m)
}

/// The fixtures v2 cannot hold, and what the refusal must name (the object and what it is).
fn no_v2_equivalent(input: &Path) -> Option<&'static [&'static str]> {
    match input.file_name()?.to_str()? {
        // A non-NFC name (e + U+0301), which canonical v2 refuses, naming it.
        "names.zt" => Some(&["not in Unicode Normalization Form C", "e\\u{301}"]),
        // v1.2's quantized_group: zt.quant_group/1 needs parameters v1.2 does not record.
        "quantized.zt" => Some(&["object \"", "format \"quantized_group\" has no v2 equivalent", "zt.quant_group/1"]),
        // A format of no namespace or version (the unknown logical type of
        // its other object is refused the same way: see `refusals_name_the_object_and_what`).
        "extensions.zt" => Some(&["object \"custom_format\"", "format \"block_sparse_x\" has no v2 equivalent"]),
        _ => None,
    }
}

#[test]
fn every_input_kind_converts_to_v2_as_it_does_to_v1_2() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_owned();
    let mut inputs = Vec::new();
    for dir in ["v0.1", "v1.1", "v1.2", "convert"] {
        for e in std::fs::read_dir(repo.join("tests/fixtures").join(dir)).unwrap() {
            let p = e.unwrap().path();
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            if ["zt", "npy", "npz", "safetensors"].contains(&ext) {
                inputs.push(p);
            }
        }
    }
    inputs.sort();
    let dir = tempfile::tempdir().unwrap();
    let (mut v2s, mut v12s) = (Vec::new(), Vec::new());
    for (i, input) in inputs.iter().enumerate() {
        let (v12, v2) = (dir.path().join(format!("{i}.v12.zt")), dir.path().join(format!("{i}.zt")));
        if !zt(&["convert", "-q", s(input), s(&v12), "--format-version", "1.2"]).status.success() {
            // Refused as v1.2 already (hostile or unsupported input): refused as v2 too.
            let r = zt(&["convert", "-q", s(input), s(&v2)]);
            assert_eq!(r.status.code(), Some(1), "{input:?}");
            continue;
        }
        let r = zt(&["convert", "-q", s(input), s(&v2)]);
        let err = String::from_utf8_lossy(&r.stderr).into_owned();
        if let Some(why) = no_v2_equivalent(input) {
            assert!(!r.status.success() && why.iter().all(|w| err.contains(w)), "{input:?}: {err}");
            assert!(!v2.exists(), "{input:?}");
            continue;
        }
        assert!(r.status.success(), "{input:?}: {err}");
        v2s.push(v2);
        v12s.push(v12);
    }
    assert!(v2s.len() >= 25, "{} inputs converted", v2s.len());
    let args: Vec<&str> = v2s.iter().map(|p| s(p)).collect();
    let got: serde_json::Value = serde_json::from_str(&run_python(&format!("{CHECK_VERSION}{SAME_AS_V12}"), &args)).unwrap();
    for (i, v12) in v12s.iter().enumerate() {
        assert_eq!(got[i], v12_content(v12), "{:?}", v2s[i]);
    }
}

/// Every object of each v2 file (argv) as the reference reads it: layout,
/// shape and, per part, dtype, logical type and decoded bytes (hex); then
/// `verify(deep=True)`.
const DUMP_V2: &str = "
import json
res = []
for f in sys.argv[1:]:
    s = ztensor.open(f)
    res.append({k: [s[k].layout, list(s[k].shape), {p: [s[k][p].dtype, s[k][p].logical, s[k][p].tobytes().hex()] for p in s[k].parts}] for k in s.keys()})
    ztensor.verify(f, deep=True)
print(json.dumps(res))
";

/// What a v0.1/v1.x file holds, read by our reader, in v2's terms (as
/// `DUMP_V2` prints it): formats as layout profiles, `bool` as `u8` with
/// the logical type `bool`, the v1.2 logical names of v2's `f8_e8m0` and
/// `f4_e2m1`, pre-1.2 sparse indices as the `u64` values v1.2 requires.
fn as_v2(path: &Path) -> serde_json::Value {
    use ztensor::{DType, Format};
    let bytes = std::fs::read(path).unwrap();
    let file = ztensor::File::parse(&bytes).unwrap();
    let mut m = serde_json::Map::new();
    for o in file.objects() {
        let layout = match o.format() {
            Format::Dense => "dense",
            Format::SparseCsr => "zt.sparse_csr/1",
            Format::SparseCoo => "zt.sparse_coo/1",
            f => panic!("{path:?}: {f:?} has no v2 layout"),
        };
        let mut parts = serde_json::Map::new();
        for c in o.components() {
            let sparse_index = layout != "dense" && ["indices", "indptr", "coords"].contains(&c.role());
            let mut data = c.to_vec().unwrap();
            let (dtype, logical) = match (c.dtype(), c.logical_type().map(|t| t.name())) {
                (DType::Bool, None) => ("u8".to_owned(), Some("bool")),
                (d, _) if sparse_index && d != DType::U64 => {
                    let w = d.width() as usize;
                    data = data
                        .chunks_exact(w)
                        .flat_map(|e| {
                            let mut b = [0u8; 8];
                            b[..w].copy_from_slice(e);
                            u64::from_le_bytes(b).to_le_bytes()
                        })
                        .collect();
                    ("u64".to_owned(), None)
                }
                (d, Some("f8_e8m0fnu")) => (d.name().to_owned(), Some("f8_e8m0")),
                (d, Some("f4_e2m1fn")) => (d.name().to_owned(), Some("f4_e2m1")),
                (d, t) => (d.name().to_owned(), t),
            };
            parts.insert(c.role().to_owned(), serde_json::json!([dtype, logical, hex::encode(&data)]));
        }
        m.insert(o.name().to_owned(), serde_json::json!([layout, o.shape().dims().collect::<Vec<u64>>(), parts]));
    }
    serde_json::Value::Object(m)
}

/// Issue 29's migration: `zt convert old.zt new.zt` upgrades every v0.1,
/// v1.1 and v1.2 fixture to v2, and upstream 2.1.2 reads back the same
/// tensors, bit for bit, as our reader reads from the old file; what v2
/// has no equivalent for is refused by name.
#[test]
fn every_v0_1_and_v1_fixture_upgrades_to_v2_losslessly() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_owned();
    let dir = tempfile::tempdir().unwrap();
    let (mut olds, mut news, mut refused) = (Vec::new(), Vec::new(), 0);
    for version in ["v0.1", "v1.1", "v1.2"] {
        let mut fixtures: Vec<PathBuf> = std::fs::read_dir(repo.join("tests/fixtures").join(version))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "zt"))
            .collect();
        fixtures.sort();
        for old in fixtures {
            let new = dir.path().join(format!("{version}-{}", old.file_name().unwrap().to_str().unwrap()));
            let r = zt(&["convert", "-q", s(&old), s(&new)]);
            let err = String::from_utf8_lossy(&r.stderr).into_owned();
            if ztensor::File::parse(&std::fs::read(&old).unwrap()).is_err() {
                // Fixtures our reader refuses (non-conformant on purpose) are refused here too.
                assert_eq!(r.status.code(), Some(1), "{old:?}: {err}");
                continue;
            }
            if let Some(why) = no_v2_equivalent(&old) {
                assert_eq!(r.status.code(), Some(1), "{old:?}: {err}");
                assert!(why.iter().all(|w| err.contains(w)), "{old:?}: {err}");
                assert!(!new.exists(), "{old:?}");
                refused += 1;
                continue;
            }
            assert!(r.status.success(), "{old:?}: {err}");
            assert!(std::fs::read(&new).unwrap().starts_with(V2_MAGIC), "{old:?}");
            olds.push(old);
            news.push(new);
        }
    }
    assert!(olds.len() >= 18 && refused >= 4, "{} upgraded, {refused} refused", olds.len());
    let args: Vec<&str> = news.iter().map(|p| s(p)).collect();
    let got: serde_json::Value =
        serde_json::from_str(&run_python(&format!("{CHECK_VERSION}{DUMP_V2}"), &args)).unwrap();
    for (i, old) in olds.iter().enumerate() {
        assert_eq!(got[i], as_v2(old), "{old:?}");
    }
}

/// What v2 has no equivalent for is refused naming the object and what it
/// is, and no OUT appears: a logical type outside v2's registry, v1.2's
/// `quantized_group`, a format that is no v2 layout id. A v2 layout id
/// kept as a v1.2 format name goes back to v2 as it was.
#[test]
fn refusals_name_the_object_and_what() {
    use ztensor::write::v1_2::{NewComponent, NewObject, Writer};
    use ztensor::{DType, Format, LogicalType};
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<(&str, NewObject<'static>, &str)> = vec![
        (
            "f6",
            NewObject::new("w", Format::Dense, &[4]).component(
                NewComponent::new("data", DType::U8, &[1u8, 2, 3][..]).logical_type(LogicalType::parse("f6_e2m3fn")),
            ),
            "object \"w\": component \"data\": logical type \"f6_e2m3fn\" has no v2 equivalent",
        ),
        (
            "int4",
            NewObject::new("x", Format::Dense, &[2]).component(
                NewComponent::new("data", DType::U8, &[1u8, 2][..]).logical_type(LogicalType::parse("int4_packed_x")),
            ),
            "object \"x\": component \"data\": logical type \"int4_packed_x\" has no v2 equivalent",
        ),
        (
            "custom",
            NewObject::new("y", Format::Other("my_layout"), &[2]).with_component("blob", DType::U8, &[1u8, 2][..]),
            "object \"y\": format \"my_layout\" has no v2 equivalent",
        ),
    ];
    for (name, obj, want) in cases {
        let (input, out) = (dir.path().join(format!("{name}.zt")), dir.path().join(format!("{name}.v2.zt")));
        let mut w = Writer::new(Vec::new());
        w.add(obj).unwrap();
        std::fs::write(&input, w.finish().unwrap()).unwrap();
        let r = zt(&["convert", "-q", s(&input), s(&out)]);
        let err = String::from_utf8_lossy(&r.stderr).into_owned();
        assert_eq!(r.status.code(), Some(1), "{name}: {err}");
        assert!(err.contains(s(&input)) && err.contains(want), "{name}: {err}");
        assert!(!out.exists(), "{name}");
        // v1.2 keeps them.
        assert!(zt(&["convert", "-q", s(&input), s(&out), "--format-version", "1.2"]).status.success(), "{name}");
    }
}

/// A component or part: role, dtype, logical type, decoded bytes.
type PartView = (String, String, Option<String>, Vec<u8>);
/// An object: name, format, shape, parts (sorted).
type ObjectView = (String, String, Vec<u64>, Vec<PartView>);

/// What a v1.2 file holds, per object, sorted by name.
fn v12_objects(path: &Path) -> Vec<ObjectView> {
    let bytes = std::fs::read(path).unwrap();
    let file = ztensor::File::parse(&bytes).unwrap();
    let mut v: Vec<_> = file
        .objects()
        .map(|o| {
            let mut parts: Vec<_> = o
                .components()
                .map(|c| {
                    let t = c.logical_type().map(|t| t.name().to_owned());
                    (c.role().to_owned(), c.dtype().name().to_owned(), t, c.to_vec().unwrap())
                })
                .collect();
            parts.sort();
            (o.name().to_owned(), o.format().name().to_owned(), o.shape().dims().collect(), parts)
        })
        .collect();
    v.sort();
    v
}

/// The same, read from a v2 file by the v2 reader, with the names v1.2 gives them.
fn v2_objects(path: &Path) -> Vec<ObjectView> {
    let bytes = std::fs::read(path).unwrap();
    let m = ztensor::v2::Manifest::parse(&bytes).unwrap();
    let mut v: Vec<_> = m
        .objects()
        .map(|o| {
            let mut parts: Vec<_> = o
                .parts()
                .map(|p| {
                    let p = p.unwrap();
                    let dec = ztensor::v2::verify::decoded(&p, &bytes).unwrap().to_vec();
                    let (d, t) = match (p.dtype.name(), p.type_name) {
                        ("u8", Some("bool")) => ("bool", None),
                        (d, Some("f8_e8m0")) => (d, Some("f8_e8m0fnu")),
                        (d, Some("f4_e2m1")) => (d, Some("f4_e2m1fn")),
                        (d, t) => (d, t),
                    };
                    (p.name.to_owned(), d.to_owned(), t.map(str::to_owned), dec)
                })
                .collect();
            parts.sort();
            let format = o.layout.strip_prefix("zt.").and_then(|l| l.strip_suffix("/1")).unwrap_or(o.layout);
            (o.name.to_owned(), format.to_owned(), o.dims().collect(), parts)
        })
        .collect();
    v.sort();
    v
}

#[test]
fn v2_inputs_convert_back_to_v1_2_or_are_refused_with_the_object_named() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/v2");
    let dir = tempfile::tempdir().unwrap();
    // What v1.2 cannot hold: v2-only layouts, and (v1.2 wants u64) u32 sparse indices.
    let refused = [
        ("convert_gguf.zt", "object \"blk.q4\"", "gguf.q4_0/1"),
        ("gguf.zt", "object \"q4_0\"", "gguf.q4_0/1"),
        ("mx.zt", "object \"mxfp4\"", "zt.mx/1"),
        ("quant_group.zt", "object \"awq\"", "zt.quant_group/1"),
        ("coo.zt", "object \"coo_1d\"", "u64"),
        ("csr_u32.zt", "object \"m\"", "u64"),
    ];
    let mut converted = 0;
    let mut names: Vec<_> = std::fs::read_dir(fixtures.join("valid")).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    for input in names {
        let file = input.file_name().unwrap().to_str().unwrap().to_owned();
        let out = dir.path().join(&file);
        let r = zt(&["convert", "-q", s(&input), s(&out), "--format-version", "1.2"]);
        let err = String::from_utf8_lossy(&r.stderr).into_owned();
        match refused.iter().find(|(f, ..)| *f == file) {
            Some((_, object, why)) => {
                assert_eq!(r.status.code(), Some(1), "{file}: {err}");
                assert!(err.contains(object) && err.contains(why), "{file}: {err}");
                assert!(!out.exists(), "{file}");
            }
            None => {
                assert!(r.status.success(), "{file}: {err}");
                assert_eq!(v12_objects(&out), v2_objects(&input), "{file}");
                converted += 1;
            }
        }
    }
    assert!(converted >= 10, "{converted} v2 fixtures converted");
    // A sharded root, read with its shards: each object's data as sharded.json records it.
    let out = dir.path().join("model.zt");
    let r = zt(&["convert", "-q", s(&fixtures.join("sharded/model.zt")), s(&out), "--format-version", "1.2"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let want: serde_json::Value = serde_json::from_slice(&std::fs::read(fixtures.join("sharded.json")).unwrap()).unwrap();
    let got = v12_objects(&out);
    assert_eq!(got.len(), want["objects"].as_object().unwrap().len());
    for (name, _, _, parts) in &got {
        use sha2::{Digest as _, Sha256};
        assert_eq!(hex::encode(Sha256::digest(&parts[0].3)), want["objects"][name]["sha256"].as_str().unwrap(), "{name}");
    }
    // One of its shards missing: refused, naming the shard.
    let r = zt(&[
        "convert",
        "-q",
        s(&fixtures.join("sharded/missing.zt")),
        s(&dir.path().join("missing.zt")),
        "--format-version",
        "1.2",
    ]);
    let err = String::from_utf8_lossy(&r.stderr).into_owned();
    assert_eq!(r.status.code(), Some(1), "{err}");
    assert!(err.contains("data shard \"00003-of-00003\"") && err.contains("shard file not found"), "{err}");
}

/// For each `(a, b)` pair of v2 files: the reference reads the same objects,
/// layouts, shapes, part dtypes, logical types and bytes from both, and
/// `verify(deep=True)` passes on `b`.
const SAME_V2: &str = "
def content(f):
    s = ztensor.open(f)
    return {k: (s[k].layout, list(s[k].shape), {p: (s[k][p].dtype, s[k][p].logical, s[k][p].tobytes()) for p in s[k].parts}) for k in s.keys()}
args = sys.argv[1:]
for a, b in zip(args[::2], args[1::2]):
    assert content(a) == content(b), (a, b)
    ztensor.verify(b, deep=True)
print(len(args) // 2)
";

#[test]
fn v2_inputs_convert_to_v2_as_upstream_converts_them() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/v2/valid");
    let dir = tempfile::tempdir().unwrap();
    let mut inputs: Vec<_> = std::fs::read_dir(&fixtures).unwrap().map(|e| e.unwrap().path()).collect();
    inputs.sort();
    assert!(inputs.len() >= 15, "{} v2 fixtures", inputs.len());
    let mut pairs = Vec::new();
    for input in &inputs {
        let file = input.file_name().unwrap().to_str().unwrap();
        let (ours, theirs, packed) =
            (dir.path().join(format!("ours-{file}")), dir.path().join(format!("theirs-{file}")), dir.path().join(format!("packed-{file}")));
        run_python(&format!("{CHECK_VERSION}ztensor.convert(sys.argv[1], sys.argv[2])\n"), &[s(input), s(&theirs)]);
        convert_v2(input, &ours, &[]);
        assert!(std::fs::read(&ours).unwrap() == std::fs::read(&theirs).unwrap(), "{file}: not upstream's canonical bytes");
        convert_v2(input, &packed, &["--compress", "--digest", "sha256", "--align", "4096"]);
        pairs.extend([input.clone(), packed]);
    }
    let args: Vec<&str> = pairs.iter().map(|p| s(p)).collect();
    let n = run_python(&format!("{CHECK_VERSION}{SAME_V2}"), &args);
    assert_eq!(n.trim(), inputs.len().to_string());
}
