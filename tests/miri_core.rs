#![cfg(feature = "std")]
//! A focused test for Miri (`scripts/miri.sh`): small fixture files embedded
//! with `include_bytes!`, opened and walked completely (objects, shapes,
//! attributes, components), with zero-copy views, typed reads, zstd decoding,
//! digests, `check_data`, hostile inputs, and the positional-read
//! `ztensor::fs::Reader` (file I/O needs `-Zmiri-disable-isolation`; memory
//! maps are not supported by Miri, so `Mode::Mmap` is skipped under it).
//!
//! Runs on the normal toolchain as part of `cargo test`. `scripts/miri.sh`
//! runs only `fs_reader` under Miri (the other tests reach no unsafe code
//! of ours; the C ABI tests in `ffi/tests/miri_abi/` cover the rest).

#[path = "../fuzz/harness/mod.rs"]
mod harness;

use ztensor::{DType, Encoding, ErrorKind, File};

mod host_order;
use host_order::{host_can_view, typed_read, typed_read_and_view, NOT_HOST_ORDER_REASON};

/// Bytes at a 64-byte aligned address (as a memory map would give), so that
/// zero-copy typed views can succeed.
struct Aligned {
    words: Vec<[u64; 8]>,
    len: usize,
}

impl Aligned {
    fn new(b: &[u8]) -> Self {
        let mut words = vec![[0u64; 8]; b.len().div_ceil(64)];
        let dst: &mut [u8] = bytemuck_bytes(&mut words);
        dst[..b.len()].copy_from_slice(b);
        Aligned { words, len: b.len() }
    }
    fn bytes(&self) -> &[u8] {
        let all: &[u8] = zerocopy::IntoBytes::as_bytes(&self.words[..]);
        &all[..self.len]
    }
}

fn bytemuck_bytes(w: &mut [[u64; 8]]) -> &mut [u8] {
    zerocopy::IntoBytes::as_mut_bytes(w)
}

const FIXTURES: &[(&str, &[u8])] = &[
    ("v1.2/dense_all_dtypes", include_bytes!("fixtures/v1.2/dense_all_dtypes.zt")),
    ("v1.2/zstd", include_bytes!("fixtures/v1.2/zstd.zt")),
    ("v1.2/checksums", include_bytes!("fixtures/v1.2/checksums.zt")),
    ("v1.2/sparse", include_bytes!("fixtures/v1.2/sparse.zt")),
    ("v1.2/attributes", include_bytes!("fixtures/v1.2/attributes.zt")),
    ("v1.2/fp8_complex", include_bytes!("fixtures/v1.2/fp8_complex.zt")),
    ("v1.2/quantized", include_bytes!("fixtures/v1.2/quantized.zt")),
    ("v1.2/scalars_zero_size", include_bytes!("fixtures/v1.2/scalars_zero_size.zt")),
    ("v1.1/zstd", include_bytes!("fixtures/v1.1/zstd.zt")),
    ("v0.1/dense_all_dtypes", include_bytes!("fixtures/v0.1/dense_all_dtypes.zt")),
    ("v0.1/empty", include_bytes!("fixtures/v0.1/empty.zt")),
];

fn fixture(name: &str) -> (&'static str, &'static [u8]) {
    *FIXTURES.iter().find(|(n, _)| *n == name).unwrap()
}

#[test]
fn walk_fixtures() {
    for (name, bytes) in FIXTURES {
        // Under Miri (interpreted: about a million times slower), zstd
        // files are left to `zstd_decoding_and_digests`: the full walk
        // decodes every frame several times.
        if cfg!(miri) && name.ends_with("zstd") {
            continue;
        }
        let a = Aligned::new(bytes);
        let f = File::parse(a.bytes()).unwrap_or_else(|e| panic!("{name}: {e}"));
        // The fuzz harness's full walk: every accessor, every invariant.
        harness::walk_file(&f, Some(a.bytes()));
        // The same file from its tail alone.
        let t = f.tail();
        let m = &a.bytes()[t.manifest_range().start as usize..t.manifest_range().end as usize];
        let g = File::parse_tail(&a.bytes()[a.len - 16..], m, a.len as u64).unwrap();
        if !cfg!(miri) {
            harness::walk_file(&g, None);
        }
        // Caller scratch, no allocation for validation.
        let mut scratch = [[0u64; 2]; 256];
        File::parse_with_scratch(a.bytes(), &mut scratch).unwrap();
    }
}

#[test]
fn zero_copy_views_and_typed_reads() {
    let a = Aligned::new(fixture("v1.2/dense_all_dtypes").1);
    let f = File::parse(a.bytes()).unwrap();
    let mut seen = 0;
    for o in f.objects() {
        let c = o.data().unwrap();
        assert_eq!(c.encoding(), Encoding::Raw);
        // Typed reads on every host; the view (same elements) on hosts that
        // have one, the byte-order refusal on big-endian hosts.
        match c.dtype() {
            DType::F32 => {
                typed_read_and_view::<f32>(&c);
                seen += 1;
            }
            DType::I64 => {
                typed_read_and_view::<i64>(&c);
                seen += 1;
            }
            DType::U16 | DType::F16 | DType::BF16 => {
                let v = typed_read_and_view::<u16>(&c);
                assert_eq!(v.len() as u64, c.length() / 2);
                seen += 1;
            }
            _ => {}
        }
    }
    assert!(seen >= 3);
    // A misaligned view is refused, never UB. (One byte past a 64-aligned
    // start: a `Vec<u8>` may sit at any address, and under Miri, which
    // places allocations at random, `vec[1..]` was sometimes 8-aligned.)
    let mut shifted = vec![0u8];
    shifted.extend_from_slice(a.bytes());
    let s = Aligned::new(&shifted);
    let b = &s.bytes()[1..];
    assert_eq!(b.as_ptr() as usize % 8, 1);
    let f = File::parse(b).unwrap();
    for o in f.objects() {
        let c = o.data().unwrap();
        if c.dtype() == DType::F64 && c.length() > 0 {
            let e = c.as_slice::<f64>().unwrap_err();
            assert!(matches!(e.kind(), ErrorKind::NotZeroCopy { .. }), "{e}");
            // A big-endian host refuses for the byte order before looking at the address.
            let reason = if host_can_view::<f64>() { "the data is not aligned for this type in memory" } else { NOT_HOST_ORDER_REASON };
            assert_eq!(e.kind(), ErrorKind::NotZeroCopy { reason }, "{e}");
            // Typed reads do not care where the bytes are.
            typed_read::<f64>(&c);
        }
    }
}

#[test]
fn zstd_decoding_and_digests() {
    for (name, bytes) in ["v1.2/zstd", "v1.2/checksums", "v1.1/zstd"].map(fixture) {
        let f = File::parse(bytes).unwrap();
        let mut n = 0;
        for o in f.objects() {
            for c in o.components() {
                let v = c.to_vec().unwrap_or_else(|e| panic!("{name}/{}: {e}", o.name()));
                if let Some(d) = c.decoded_len() {
                    assert_eq!(v.len() as u64, d);
                }
                c.verify_digest().unwrap();
                n += 1;
            }
            o.check_data().unwrap();
        }
        assert!(n > 0);
        assert_eq!(f.verify(|e| panic!("{name}: {e}"), |_, _| {}), 0);
    }
}

#[test]
fn hostile_inputs() {
    // Corrupt every byte of a small file in turn: never UB, never a panic.
    // (Under Miri: a file without zstd, every 127th byte.)
    let base = fixture(if cfg!(miri) { "v1.2/attributes" } else { "v1.2/zstd" }).1;
    let step = if cfg!(miri) { 127 } else { 3 };
    let mut f = base.to_vec();
    for i in (0..f.len()).step_by(step) {
        let old = f[i];
        f[i] ^= 0xa5;
        harness::open_walk(&f);
        f[i] = old;
    }
    // Truncations.
    for n in (0..base.len()).step_by(step * 4) {
        harness::open_walk(&base[..n]);
        harness::tail_only(&base[..n]);
    }
    // Deep nesting, far past the limit.
    let mut m = vec![0xa3, 0x67];
    m.extend(b"version");
    m.extend([0x65]);
    m.extend(b"1.2.0");
    m.extend([0x67]);
    m.extend(b"objects");
    m.extend([0xa0, 0x61, b'x']);
    m.extend(std::iter::repeat(0x81).take(10_000));
    m.push(0);
    let mut file = b"ZTEN1000".to_vec();
    file.extend(&m);
    file.extend((m.len() as u64).to_le_bytes());
    file.extend(b"ZTEN1000");
    let e = File::parse(&file).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TooDeep, "{e}");
}

#[test]
fn writer_round_trip() {
    use ztensor::write::v1_2::{Checksum, Compression, NewObject, Writer};
    let mut w = Writer::new(Vec::new());
    w.add_slice("a", &[2, 2], &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    w.add(NewObject::sparse_csr_slices("m", [2, 3], &[1.0f64, 2.0], &[0, 2], &[0, 1, 2]).compression(Compression::ZSTD).checksum(Checksum::Sha256)).unwrap();
    let bytes = w.finish().unwrap();
    let a = Aligned::new(&bytes);
    let f = File::parse(a.bytes()).unwrap();
    harness::walk_file(&f, Some(a.bytes()));
    assert_eq!(typed_read_and_view::<f32>(&f.require("a").unwrap().data().unwrap()), [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(f.require("m").unwrap().require("values").unwrap().to_vec_of::<f64>().unwrap(), [1.0, 2.0]);
}

/// Positional reads through `ztensor::fs::Reader` (and the memory map, except under Miri).
#[test]
fn fs_reader() {
    use ztensor::fs::{Mode, Reader};
    if cfg!(miri) && std::env::var_os("ZT_MIRI_FS").is_none() {
        eprintln!("fs_reader: skipped (set ZT_MIRI_FS=1 with -Zmiri-disable-isolation)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("ztensor-miri-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("zstd.zt");
    std::fs::write(&path, fixture("v1.2/zstd").1).unwrap();
    let modes: &[Mode] = if cfg!(miri) { &[Mode::Positional] } else { &[Mode::Positional, Mode::Mmap] };
    for &mode in modes {
        let r = Reader::open_with(&path, mode).unwrap();
        assert_eq!(r.mode(), mode);
        let mut buf = vec![0u8; 1 << 16];
        for o in r.file().objects() {
            for c in o.components() {
                let v = r.to_vec(&c).unwrap();
                let n = r.read_into(&c, &mut buf).unwrap();
                assert_eq!(&buf[..n], &v[..]);
                let s = r.read_stored_into(&c, &mut buf).unwrap();
                assert_eq!(s as u64, c.length());
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Format v2: small hand-made files opened and walked through the fuzz
/// harness's v2 checks (views, reads, seekable decoding, verify), with
/// typed zero-copy reads and hostile files refused.
#[test]
fn v2_files() {
    const OK: &[(&str, &[u8])] = &[
        ("c_valid", include_bytes!("fixtures/v2/hostile/c_valid.zt")),
        ("z_ok", include_bytes!("fixtures/v2/hostile/z_ok.zt")),
        ("t_f4_odd_ok", include_bytes!("fixtures/v2/hostile/t_f4_odd_ok.zt")),
        ("coo_ok", include_bytes!("fixtures/v2/hostile/coo_ok.zt")),
        ("s_tied", include_bytes!("fixtures/v2/hostile/s_tied.zt")),
    ];
    for (name, bytes) in OK {
        let a = Aligned::new(bytes);
        let f = File::parse(a.bytes()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(f.version().major, 2, "{name}");
        harness::v2_open(a.bytes());
        for o in f.objects() {
            for c in o.components() {
                if c.encoding() == Encoding::Raw && c.dtype() == DType::U8 {
                    assert_eq!(c.as_slice::<u8>().unwrap().len() as u64, c.length(), "{name}");
                }
            }
        }
    }
    const BAD: &[(&str, &[u8], ErrorKind)] = &[
        ("c_hash_mismatch", include_bytes!("fixtures/v2/hostile/c_hash_mismatch.zt"), ErrorKind::ManifestHashMismatch),
        ("cbor_depth_33", include_bytes!("fixtures/v2/hostile/cbor_depth_33.zt"), ErrorKind::TooDeep),
        ("s_overlap_partial", include_bytes!("fixtures/v2/hostile/s_overlap_partial.zt"), ErrorKind::BlobOverlap),
    ];
    for (name, bytes, kind) in BAD {
        assert_eq!(File::parse(bytes).unwrap_err().kind(), *kind, "{name}");
        harness::v2_open(bytes);
    }
}
