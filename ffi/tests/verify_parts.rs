//! `zt_component_verify`, `zt_verify` and `zt_verify_report` through the
//! core's one per-part check (issue 30, H2 and L1): a v2 part's digest is
//! over its decoded bytes (xxh3 checked, a seekable sha256 part passes), the
//! C entry points agree with the core's whole-file verification, and
//! `zt_verify` checks the shard table's whole-file digests.

use core::ptr::null_mut;
use std::path::Path;
use ztensor::*;
use ztensor_core::v2::types::DType;
use ztensor_core::write::v2::{DigestAlg, Encoding, NewObject, NewPart, Options, Writer};

mod common;
use common::*;

/// A v2 file of one `u8` object `x` of `n` bytes, stored as `enc`, with `alg` digests.
fn v2_file(enc: Encoding, alg: DigestAlg, n: usize) -> (Vec<u8>, Vec<u8>) {
    let content: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
    let mut w = Writer::with_options(Vec::new(), Options::non_canonical(4096).digest(alg)).unwrap();
    let part = NewPart::new("data", DType::U8, &content[..]).encoding(enc);
    w.add(NewObject::new("x", &[n as u64], "dense").part(part)).unwrap();
    (w.finish().unwrap(), content)
}

const SEEKABLE: Encoding = Encoding::ZstdSeekable { level: 3, frame: 4096 };

/// `zt_component_verify` on every part of every object, then `zt_verify`:
/// the part statuses (with `checked`) and the file's.
unsafe fn statuses(path: &Path, open_flags: u32, verify_flags: u32) -> (Vec<(zt_status, bool)>, zt_status) {
    unsafe {
        let mut f = null_mut();
        ok(zt_open(cpath(path).as_ptr(), open_flags, &mut f));
        let mut parts = Vec::new();
        for i in 0..zt_object_count(f) {
            let mut o = zt_object { index: 0, owner: 0 };
            ok(zt_object_at(f, i, &mut o));
            let mut info = core::mem::zeroed::<zt_object_info>();
            ok(zt_object_get_info(f, &o, &mut info));
            for j in 0..info.component_count {
                let mut c = core::mem::zeroed::<zt_component_info>();
                ok(zt_component_at(f, &o, j, &mut c));
                let mut checked = false;
                let s = zt_component_verify(f, &o, c.role, c.role_len, verify_flags, &mut checked);
                parts.push((s, checked));
            }
        }
        let whole = zt_verify(f, 0);
        zt_close(f);
        (parts, whole)
    }
}

#[test]
fn a_corrupt_xxh3_part_is_found_and_a_seekable_sha256_file_passes() {
    let dir = temp_dir("verify_parts", "h2");
    // Corrupt xxh3: a data byte of a raw part flipped.
    let (mut bytes, content) = v2_file(Encoding::Raw, DigestAlg::Xxh3, 5000);
    let at = bytes.windows(64).position(|w| w == &content[..64]).unwrap();
    bytes[at + 10] ^= 4;
    let bad = dir.join("bad_xxh3.zt");
    std::fs::write(&bad, &bytes).unwrap();
    // A valid seekable sha256 file of several frames.
    let good = dir.join("seekable_sha256.zt");
    std::fs::write(&good, v2_file(SEEKABLE, DigestAlg::Sha256, 50_000).0).unwrap();
    for open in [0, ZT_OPEN_POSITIONAL] {
        for flags in [0, ZT_VERIFY_STRICT] {
            let (parts, whole) = unsafe { statuses(&bad, open, flags) };
            assert_eq!(parts, [(zt_status::ZT_ERR_DIGEST_MISMATCH, false)], "open {open} flags {flags}");
            assert_eq!(whole, zt_status::ZT_ERR_DIGEST_MISMATCH);
            let (parts, whole) = unsafe { statuses(&good, open, flags) };
            assert_eq!(parts, [(zt_status::ZT_OK, true)], "open {open} flags {flags}: {}", last_error());
            assert_eq!(whole, zt_status::ZT_OK);
        }
    }
    // The message names the algorithm and the bytes it covers.
    unsafe { statuses(&bad, 0, 0) };
    let (mut f, mut o) = (null_mut(), zt_object { index: 0, owner: 0 });
    unsafe {
        ok(zt_open(cpath(&bad).as_ptr(), 0, &mut f));
        ok(zt_object_at(f, 0, &mut o));
        let (role, len) = s("data");
        assert_eq!(zt_component_verify(f, &o, role, len, 0, null_mut()), zt_status::ZT_ERR_DIGEST_MISMATCH);
        assert!(last_error().contains("xxh3 of the decoded bytes"), "{}", last_error());
        zt_close(f);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn every_entry_point_agrees_with_the_cores_verification() {
    let dir = temp_dir("verify_parts", "agree");
    for enc in [Encoding::Raw, SEEKABLE] {
        for alg in [DigestAlg::Xxh3, DigestAlg::Sha256] {
            let (good, content) = v2_file(enc, alg, 20_000);
            let mut bad = good.clone();
            let at = match enc {
                Encoding::Raw => bad.windows(64).position(|w| w == &content[..64]).unwrap() + 100,
                _ => 4096 + 40, // the first frame's compressed bytes
            };
            bad[at] ^= 0x10;
            for (tag, bytes) in [("good", good), ("bad", bad)] {
                let path = dir.join(format!("{tag}.zt"));
                std::fs::write(&path, &bytes).unwrap();
                let core =
                    ztensor_core::File::parse(&bytes).unwrap().verify_with(ztensor_core::verify::Options::ALL, |_| {});
                for open in [0, ZT_OPEN_POSITIONAL] {
                    let (parts, whole) = unsafe { statuses(&path, open, 0) };
                    let what = format!("{enc:?} {alg:?} {tag} open {open}");
                    assert_eq!(whole == zt_status::ZT_OK, core.is_ok(), "{what}");
                    assert_eq!(
                        parts.iter().all(|&(s, checked)| s == zt_status::ZT_OK && checked),
                        core.is_ok(),
                        "{what}"
                    );
                    assert_eq!(parts[0].0, whole, "{what}: one check, one status");
                }
            }
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn zt_verify_checks_the_shards_whole_file_digests() {
    let dir = temp_dir("verify_parts", "l1");
    let root = dir.join("model.zt");
    let mut w = Writer::create_with(&root, Options::non_canonical(4096).shards(8192)).unwrap();
    for (i, name) in ["a", "b"].into_iter().enumerate() {
        // Distinct bytes: equal blobs would be stored once.
        let data = vec![7 + i as u8; 6000];
        w.add(NewObject::new(name, &[6000], "dense").part(NewPart::new("data", DType::U8, &data[..]))).unwrap();
    }
    w.finish().unwrap();
    let shard = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).find(|p| p != &root).unwrap();
    let name = shard.file_stem().unwrap().to_str().unwrap().strip_prefix("model-").unwrap().to_string();
    ok(unsafe { statuses(&root, 0, 0) }.1);
    // A byte of the shard's padding before its first blob: no part covers
    // it, only the table's whole-file digest (§7.3).
    let mut bytes = std::fs::read(&shard).unwrap();
    bytes[100] ^= 1;
    std::fs::write(&shard, &bytes).unwrap();
    for open in [0, ZT_OPEN_POSITIONAL] {
        let (parts, whole) = unsafe { statuses(&root, open, 0) };
        assert!(parts.iter().all(|&(s, _)| s == zt_status::ZT_OK), "{parts:?}");
        assert_eq!(whole, zt_status::ZT_ERR_DIGEST_MISMATCH, "open {open}");
        let e = last_error();
        assert!(e.contains(&format!("sha256 of shard {name:?}")), "{e}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Issue 30 ("Smaller"): a `zt.zstd-seekable/1` part whose frames or seek
/// table are corrupt is `ZT_ERR_CORRUPT_DATA` from every entry point, as
/// `zt_component_read`'s doc says (it was `ZT_ERR_FORMAT`), with a message
/// in words.
#[test]
fn corrupt_seekable_frames_are_corrupt_data_everywhere() {
    let hostile = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/v2/hostile");
    let files = ["z_bad_checksum.zt", "z_not_zstd.zt", "z_table_lies.zt", "z_fcs_mismatch.zt", "z_sizes_dont_tile.zt"];
    for name in files {
        let path = hostile.join(name);
        for open in [0, ZT_OPEN_POSITIONAL] {
            let (parts, whole) = unsafe { statuses(&path, open, 0) };
            assert_eq!(parts, [(zt_status::ZT_ERR_CORRUPT_DATA, false)], "{name} open {open}: {}", last_error());
            assert_eq!(whole, zt_status::ZT_ERR_CORRUPT_DATA, "{name}");
            unsafe {
                let (mut f, mut o) = (null_mut(), zt_object { index: 0, owner: 0 });
                ok(zt_open(cpath(&path).as_ptr(), open, &mut f));
                ok(zt_object_at(f, 0, &mut o));
                let (role, len) = s("data");
                let mut buf = vec![0u8; 1 << 16];
                let mut n = 0usize;
                let st = zt_component_read(f, &o, role, len, buf.as_mut_ptr().cast(), buf.len(), &mut n);
                assert_eq!(st, zt_status::ZT_ERR_CORRUPT_DATA, "{name} read: {}", last_error());
                let msg = last_error();
                assert!(!msg.contains("Seekable") && !msg.contains("DecodedLength"), "{name}: {msg}");
                // The whole part as a range: every frame covered.
                let mut c = core::mem::zeroed::<zt_component_info>();
                ok(zt_component_at(f, &o, 0, &mut c));
                let all = c.uncompressed_length as usize;
                let st = zt_component_read_range(f, &o, role, len, 0, buf.as_mut_ptr().cast(), all);
                assert_eq!(st, zt_status::ZT_ERR_CORRUPT_DATA, "{name} range: {}", last_error());
                zt_close(f);
            }
        }
    }
}

/// Issue 30 ("Smaller"): v2 digests cover decoded bytes, so a v2 digest
/// mismatch never says "stored bytes are corrupt", from any entry point.
#[test]
fn a_v2_digest_mismatch_names_the_decoded_bytes() {
    let hostile = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/v2/hostile");
    for (name, alg) in [("t_sha256_mismatch.zt", "sha256"), ("t_digest_mismatch.zt", "xxh3")] {
        let path = hostile.join(name);
        let said = |what: &str, st: zt_status| {
            let msg = last_error();
            assert_eq!(st, zt_status::ZT_ERR_DIGEST_MISMATCH, "{name} {what}: {msg}");
            assert!(!msg.contains("stored bytes"), "{name} {what}: {msg}");
            assert!(msg.contains(&format!("{alg} of the decoded bytes")), "{name} {what}: {msg}");
        };
        unsafe {
            let (mut f, mut o) = (null_mut(), zt_object { index: 0, owner: 0 });
            ok(zt_open(cpath(&path).as_ptr(), 0, &mut f));
            ok(zt_object_at(f, 0, &mut o));
            let (role, len) = s("data");
            let mut buf = vec![0u8; 1 << 16];
            let mut n = 0usize;
            said("read", zt_component_read(f, &o, role, len, buf.as_mut_ptr().cast(), buf.len(), &mut n));
            said("component_verify", zt_component_verify(f, &o, role, len, 0, null_mut()));
            said("verify", zt_verify(f, 0));
            zt_close(f);
        }
    }
}
