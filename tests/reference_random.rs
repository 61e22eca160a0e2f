#![cfg(feature = "std")]
//! Random files written by upstream's Python packages, read back exactly:
//!
//! - v2 by `ztensor` 2.1.2 (`tests/fixtures/v2/random_files.py`: canonical
//!   and 4 KiB placement, every dtype, logical types, zero-sized and scalar
//!   shapes, zstd-seekable parts, attributes of every kind, names in
//!   several scripts, appended generations);
//! - v1.2 by `ztensor` 1.2.3 (`tests/fixtures/gen/random_files_v1.py`: every
//!   dtype it takes, zstd at several levels, crc32c, sha256 or no checksum,
//!   appended tensors).
//!
//! Each file is opened from memory and by `fs::Reader` in both modes and
//! verified, and every object's decoded bytes match the sha256 upstream
//! recorded. `ZT_RANDOM_SEED` and `ZT_RANDOM_FILES` pick another seed and
//! count. The interpreters are `$ZT_REFERENCE_V2_PYTHON` and
//! `$ZT_REFERENCE_PYTHON` (else `python3`); when one cannot import its
//! version of ztensor, its test FAILS (it never passes without the reference).

use sha2::{Digest as _, Sha256};
use std::path::Path;
use std::process::Command;
use ztensor::fs::{Mode, Reader};

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Run `script` (a file under tests/fixtures) with the interpreter `$env`,
/// which must have ztensor `version`, to write random files into `dir`.
fn write_files(env: &str, version: &str, script: &str, dir: &Path) -> serde_json::Value {
    let py = std::env::var(env).ok().filter(|s| !s.is_empty()).unwrap_or_else(|| "python3".to_owned());
    let (count, seed) = (env_or("ZT_RANDOM_FILES", 80), env_or("ZT_RANDOM_SEED", 20261129));
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(script)).unwrap();
    let wrapped = format!(
        "import sys, importlib.metadata as m\n\
         assert m.version('ztensor') == '{version}', 'ztensor ' + m.version('ztensor')\n\
         sys.argv = ['{script}', sys.argv[1], '{count}', '{seed}']\n{text}"
    );
    let out = Command::new(&py).arg("-c").arg(&wrapped).arg(dir).output().unwrap_or_else(|e| {
        panic!("\n\nREFERENCE NOT AVAILABLE: cannot run `{py}` ({e}); set {env} to a Python with ztensor=={version} and numpy\n")
    });
    assert!(
        out.status.success(),
        "\n\nreference run with `{py}` failed; set {env} to a Python with ztensor=={version} and numpy:\n{}\n",
        String::from_utf8_lossy(&out.stderr)
    );
    let expect: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expect.json")).unwrap()).unwrap();
    assert!(expect.as_object().unwrap().len() as u64 >= count / 2, "upstream wrote too few files");
    expect
}

/// Every file of `expect` read back: from memory, and by position and mapped.
fn read_back(dir: &Path, expect: &serde_json::Value) {
    let mut parts = 0;
    for (name, objects) in expect.as_object().unwrap() {
        let path = dir.join(name);
        let objs = objects.as_object().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let f = ztensor::File::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut names: Vec<&str> = f.names().collect();
        names.sort_unstable();
        // (Key order of serde_json's map depends on its features: sort both.)
        let mut want: Vec<&str> = objs.keys().map(String::as_str).collect();
        want.sort_unstable();
        assert_eq!(names, want, "{name}");
        for mode in [Mode::Mmap, Mode::Positional] {
            let r = Reader::open_with(&path, mode).unwrap_or_else(|e| panic!("{name} {mode:?}: {e}"));
            for (oname, sha) in objs {
                let o = r.file().get(oname).unwrap_or_else(|| panic!("{name}: no object {oname:?}"));
                let v = r.to_vec(&o.require("data").unwrap()).unwrap_or_else(|e| panic!("{name}/{oname} {mode:?}: {e}"));
                assert_eq!(hex::encode(Sha256::digest(&v)), sha.as_str().unwrap(), "{name}/{oname} {mode:?}");
                parts += 1;
            }
            let report = r.file().verify_from(&r, ztensor::verify::Options::ALL, |x| panic!("{name} {mode:?}: {x:?}"));
            assert_eq!(report.objects, objs.len(), "{name} {mode:?}");
        }
    }
    assert!(parts > 0);
}

#[test]
fn random_v2_files_written_by_upstream_2_1_2_read_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let expect = write_files("ZT_REFERENCE_V2_PYTHON", "2.1.2", "v2/random_files.py", dir.path());
    read_back(dir.path(), &expect);
}

#[test]
fn random_v1_2_files_written_by_upstream_1_2_3_read_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let expect = write_files("ZT_REFERENCE_PYTHON", "1.2.3", "gen/random_files_v1.py", dir.path());
    read_back(dir.path(), &expect);
}
