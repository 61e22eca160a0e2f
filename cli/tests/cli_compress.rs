//! `zt convert --compress --format-version 1.2` keeps a component raw where
//! zstd would not make it smaller (v1.2's rule: v2 compresses every part as
//! `zt.zstd-seekable/1`), says so in its summary line, and `zt info` shows each
//! component's encoding (run as a separate process).

use std::path::Path;
use std::process::{Command, Output};
use ztensor::write::v1_2::{Checksum, NewObject, Writer};
use ztensor::{DType, Encoding, File};

fn zt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zt")).args(args).output().expect("run zt")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Bytes zstd cannot shrink (a xorshift stream).
fn noise(n: usize) -> Vec<u8> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

#[test]
fn compress_keeps_incompressible_components_raw_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (input, out) = (dir.path().join("in.zt"), dir.path().join("out.zt"));
    let noisy = noise(1 << 16);
    let zeros = vec![0u8; 1 << 16];
    let mut w = Writer::new(Vec::new());
    w.add(NewObject::dense("noise", &[1 << 14], DType::F32, &noisy[..]).checksum(Checksum::Sha256)).unwrap();
    w.add_dense("zeros", &[1 << 16], DType::U8, &zeros).unwrap();
    w.add_dense("tiny", &[2], DType::U8, &[1, 2]).unwrap();
    std::fs::write(&input, w.finish().unwrap()).unwrap();

    let o = zt(&["convert", s(&input), s(&out), "--compress", "--format-version", "1.2"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with(&format!("zt: {}: 3 objects, ", s(&out))), "{err}");
    assert!(err.contains("), 2 components kept raw (zstd would not make them smaller), in "), "{err}");

    let bytes = std::fs::read(&out).unwrap();
    let f = File::parse(&bytes).unwrap();
    for (name, enc) in [("noise", Encoding::Raw), ("zeros", Encoding::Zstd), ("tiny", Encoding::Raw)] {
        let c = f.require(name).unwrap().data().unwrap();
        assert_eq!(c.encoding(), enc, "{name}");
        // A raw component of a v1.2 file has no uncompressed_length.
        assert_eq!(c.uncompressed_length().is_some(), enc == Encoding::Zstd, "{name}");
    }
    assert_eq!(f.require("noise").unwrap().data().unwrap().stored_bytes().unwrap(), &noisy[..]);
    assert_eq!(f.require("zeros").unwrap().data().unwrap().to_vec().unwrap(), zeros);
    let v = zt(&["verify", s(&out)]);
    assert_eq!(v.status.code(), Some(0), "{}", String::from_utf8_lossy(&v.stderr));

    // `zt info`: each component row names its encoding.
    let info = zt(&["info", s(&out)]);
    assert_eq!(info.status.code(), Some(0));
    let text = String::from_utf8_lossy(&info.stdout);
    let row = |name: &str| {
        let mut lines = text.lines().skip_while(|l| !l.starts_with(name));
        lines.next().unwrap_or_else(|| panic!("{name}: {text}"));
        lines.next().unwrap().split_whitespace().map(str::to_owned).collect::<Vec<_>>()
    };
    assert_eq!(row("noise")[..3], ["data", "f32", "raw"], "{text}");
    assert_eq!(row("zeros")[..3], ["data", "u8", "zstd"], "{text}");
    assert_eq!(row("tiny")[..3], ["data", "u8", "raw"], "{text}");

    // One component kept raw: said in the singular; none: nothing said.
    let one = dir.path().join("one.zt");
    let mut w = Writer::new(Vec::new());
    w.add_dense("noise", &[1 << 10], DType::U8, &noisy[..1 << 10]).unwrap();
    std::fs::write(&input, w.finish().unwrap()).unwrap();
    let o = zt(&["convert", s(&input), s(&one), "--compress=5", "--format-version", "1.2"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("), 1 component kept raw (zstd would not make it smaller), in "), "{err}");
    let o = zt(&["convert", s(&input), s(&one), "--format-version", "1.2"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains("kept raw"), "{err}");
}
