//! `zt cat` of a part whose digest does not match its bytes (issue #32,
//! verify on read): exit 1, the object and component named, nothing on
//! stdout; v1.2 and v2, raw parts read straight from the mapping.

use std::process::Command;
use ztensor::write::v1_2::{Checksum, NewObject, Writer};
use ztensor::write::v2 as w2;
use ztensor::{DType, File};

#[test]
fn cat_refuses_a_corrupt_part_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d: Vec<u8> = (0..256u32).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let mut w = Writer::new(Vec::new());
    w.add(NewObject::dense("w", &[256], DType::F32, &d[..]).checksum(Checksum::Sha256)).unwrap();
    let v1 = w.finish().unwrap();
    let mut w = w2::Writer::new(Vec::new());
    w.add_dense("w", &[256], ztensor::v2::types::DType::F32, &d).unwrap();
    let v2 = w.finish().unwrap();
    for (what, mut bytes) in [("v1.2", v1), ("v2", v2)] {
        let path = dir.path().join(format!("{what}.zt"));
        std::fs::write(&path, &bytes).unwrap();
        let good = Command::new(env!("CARGO_BIN_EXE_zt")).args(["cat", path.to_str().unwrap(), "w"]).output().unwrap();
        assert_eq!(good.status.code(), Some(0), "{what}: {}", String::from_utf8_lossy(&good.stderr));
        assert_eq!(good.stdout, d, "{what}");

        let at = File::parse(&bytes).unwrap().require("w").unwrap().data().unwrap().offset() as usize;
        bytes[at + 5] ^= 0x10;
        std::fs::write(&path, &bytes).unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_zt")).args(["cat", path.to_str().unwrap(), "w"]).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{what}: {err}");
        assert!(o.stdout.is_empty(), "{what}: {} bytes written", o.stdout.len());
        assert!(err.contains("digest mismatch") && err.contains("object \"w\"") && err.contains("component \"data\""), "{what}: {err}");
    }
}
