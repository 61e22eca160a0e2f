//! The parser against well-formed and hostile files (built by `build`).

use super::build::{self, header, info, kv, string, Val, T};
use super::parse::parse;
use ztensor::write::AttrValue;

fn err(b: &[u8]) -> String {
    parse(b).expect_err("refused")
}

fn t(name: &str, shape: &[u64], ty: u32, data: Vec<u8>) -> T {
    T { name: name.into(), shape: shape.to_vec(), ty, data }
}

/// A file with metadata of every type and a dense and a quantized tensor.
fn sample() -> Vec<u8> {
    let kvs = [
        ("u8", Val::U8(255)),
        ("i8", Val::I8(-128)),
        ("u16", Val::U16(65535)),
        ("i16", Val::I16(-2)),
        ("u32", Val::U32(7)),
        ("i32", Val::I32(5)),
        ("f32", Val::F32(0.5)),
        ("bool", Val::Bool(true)),
        ("str", Val::Str("é".into())),
        ("arr", Val::Arr(9, vec![Val::Arr(8, vec![Val::Str("a".into())]), Val::Arr(0, vec![])])),
        ("u64", Val::U64(u64::MAX)),
        ("i64", Val::I64(i64::MIN)),
        ("f64", Val::F64(-0.25)),
    ];
    let q = (0..34 * 2).map(|i| i as u8).collect();
    build::file(3, 32, &kvs, &[t("w", &[2, 3], 0, vec![1; 24]), t("q", &[2, 32], 8, q)])
}

#[test]
fn reads_every_value_type_and_locates_tensors() {
    let f = sample();
    let g = parse(&f).unwrap();
    let m: Vec<(&str, &AttrValue)> = g.metadata.iter().map(|(k, v)| (k.as_str(), v)).collect();
    use AttrValue::*;
    let text = |s: &str| Text(s.into());
    assert_eq!(
        m,
        [
            ("u8", &Uint(255)),
            ("i8", &NegInt(127)),
            ("u16", &Uint(65535)),
            ("i16", &NegInt(1)),
            ("u32", &Uint(7)),
            ("i32", &Uint(5)),
            ("f32", &Float(0.5)),
            ("bool", &Bool(true)),
            ("str", &text("é")),
            ("arr", &Array(vec![Array(vec![text("a")]), Array(vec![])])),
            ("u64", &Uint(u64::MAX)),
            ("i64", &NegInt(i64::MAX as u64)),
            ("f64", &Float(-0.25)),
        ]
    );
    let [w, q] = &g.tensors[..] else { panic!("two tensors") };
    assert_eq!((w.name.as_str(), &w.shape[..], w.ty.name, w.data), ("w", &[2, 3][..], "f32", &[1u8; 24][..]));
    assert_eq!((q.name.as_str(), &q.shape[..], q.ty.name, q.data.len()), ("q", &[2, 32][..], "q8_0", 68));
    assert_eq!(q.data[0..3], [0, 1, 2]);
    assert_eq!(q.offset, 32, "the next multiple of 32 after w's 24 bytes");
}

#[test]
fn every_truncation_is_refused() {
    let f = sample();
    let g = parse(&f).unwrap();
    let end_of_header = f.len() - 32 - 68; // the data section: w (24 + 8 padding), q (68)
    assert_eq!(g.tensors[0].data.as_ptr() as usize - f.as_ptr() as usize, end_of_header);
    for cut in 0..f.len() {
        let e = err(&f[..cut]);
        let past_end = e.contains("past the end of the file");
        if cut < end_of_header {
            // A field cut short; where a count is read it may alone claim more
            // than is left; in the padding, the data section starts past the end.
            let claims = e.contains(", which need at least ") || e.contains(" elements needs at least ");
            assert!(e.starts_with("truncated GGUF: ") || claims || past_end, "cut at {cut}: {e}");
        } else {
            assert!(past_end, "cut at {cut}: {e}");
        }
    }
}

#[test]
fn truncation_names_the_field() {
    let f = sample();
    assert_eq!(err(&f[..3]), "truncated GGUF: the magic needs 4 bytes at byte 0, only 3 left");
    assert_eq!(err(&f[..6]), "truncated GGUF: the version needs 4 bytes at byte 4, only 2 left");
    assert_eq!(err(&f[..10]), "truncated GGUF: the tensor count needs 8 bytes at byte 8, only 2 left");
    assert_eq!(err(&f[..20]), "truncated GGUF: the metadata count needs 8 bytes at byte 16, only 4 left");
    let mut h = header(3, 0, 1);
    h.extend(20u64.to_le_bytes());
    h.extend(b"abcdefghijk");
    assert_eq!(err(&h), "truncated GGUF: metadata key 0 needs 20 bytes at byte 32, only 11 left");
}

#[test]
fn versions() {
    assert_eq!(err(&header(1, 0, 0)), "GGUF version 1 is not supported (only versions 2 and 3)");
    assert_eq!(err(&header(4, 0, 0)), "GGUF version 4 is not supported (only versions 2 and 3)");
    assert_eq!(err(&header(3u32.swap_bytes(), 0, 0)), "big-endian GGUF (version 3) is not supported");
    assert_eq!(err(b"GGML\x03\0\0\0"), "not a GGUF file (no GGUF magic)");
    assert!(parse(&header(2, 0, 0)).is_ok() && parse(&header(3, 0, 0)).is_ok());
}

#[test]
fn claimed_counts_are_bounded_by_the_file() {
    // Each would allocate petabytes if trusted.
    assert_eq!(
        err(&header(3, 1 << 50, 0)),
        "GGUF claims 1125899906842624 tensors, which need at least 27021597764222976 bytes, only 0 left"
    );
    assert_eq!(
        err(&header(3, 0, u64::MAX)),
        "GGUF claims 18446744073709551615 metadata pairs, which need at least 18446744073709551615 bytes, only 0 left"
    );
    let mut h = header(3, 0, 1);
    string(&mut h, "k");
    h.extend(9u32.to_le_bytes());
    h.extend(0u32.to_le_bytes());
    h.extend((1u64 << 40).to_le_bytes());
    assert_eq!(err(&h), "metadata \"k\": an array of 1099511627776 elements needs at least 1099511627776 bytes, only 0 left");
    let mut h = header(3, 0, 1);
    string(&mut h, "k");
    h.extend(8u32.to_le_bytes());
    h.extend(u64::MAX.to_le_bytes());
    assert_eq!(
        err(&h),
        "truncated GGUF: the value of metadata \"k\" needs 18446744073709551615 bytes at byte 45, only 0 left"
    );
}

/// A file whose only metadata pair is `k` of type `ty` followed by `value`.
fn one_kv(ty: u32, value: &[u8]) -> Vec<u8> {
    let mut h = header(3, 0, 1);
    string(&mut h, "k");
    h.extend(ty.to_le_bytes());
    h.extend(value);
    h
}

#[test]
fn bad_metadata() {
    assert_eq!(err(&one_kv(13, &[0; 8])), "metadata \"k\": unknown GGUF value type 13");
    let mut arr = 13u32.to_le_bytes().to_vec();
    arr.extend(1u64.to_le_bytes());
    arr.push(0);
    assert_eq!(err(&one_kv(9, &arr)), "metadata \"k\": unknown GGUF value type 13");
    assert_eq!(err(&one_kv(7, &[2])), "metadata \"k\": bool byte 2 is neither 0 nor 1");
    let mut bad_utf8 = 2u64.to_le_bytes().to_vec();
    bad_utf8.extend([0xc3, 0x28]);
    assert_eq!(err(&one_kv(8, &bad_utf8)), "the value of metadata \"k\" is not UTF-8");
    // Arrays of arrays 10 000 deep in 120 kB: refused at the limit, no stack overflow.
    let mut deep = Vec::new();
    for _ in 0..10_000 {
        deep.extend(9u32.to_le_bytes());
        deep.extend(1u64.to_le_bytes());
    }
    assert_eq!(err(&one_kv(9, &deep)), "metadata \"k\": arrays nested deeper than 30");
    // 30 levels: arrays of one array, the innermost of one u8.
    let nested = |levels: usize| {
        let mut v = deep[..12 * (levels - 1)].to_vec();
        v.extend(0u32.to_le_bytes());
        v.extend(1u64.to_le_bytes());
        v.push(7);
        one_kv(9, &v)
    };
    let thirty = nested(30);
    let g = parse(&thirty).unwrap();
    let mut v = &g.metadata[0].1;
    for _ in 0..30 {
        let AttrValue::Array(a) = v else { panic!("{v:?}") };
        v = &a[0];
    }
    assert_eq!(v, &AttrValue::Uint(7));
    assert_eq!(err(&nested(31)), "metadata \"k\": arrays nested deeper than 30");
    let mut two = header(3, 0, 2);
    kv(&mut two, "a", &Val::U8(1));
    kv(&mut two, "a", &Val::U8(2));
    assert_eq!(err(&two), "duplicate metadata key \"a\"");
    let mut key = header(3, 0, 1);
    key.extend(1u64.to_le_bytes());
    key.push(0xff);
    key.extend([0; 12]);
    assert_eq!(err(&key), "metadata key 0 is not UTF-8");
    for a in [Val::U32(0), Val::U32(48), Val::I32(-32), Val::Str("32".into())] {
        let mut f = header(3, 0, 1);
        kv(&mut f, "general.alignment", &a);
        assert_eq!(err(&f), "metadata \"general.alignment\" is not a power-of-two unsigned integer", "{a:?}");
    }
}

/// A file with one tensor info and `data` as its data section (alignment 32).
fn one_tensor(dims: &[u64], ty: u32, offset: u64, data: &[u8]) -> Vec<u8> {
    let mut f = header(3, 1, 0);
    info(&mut f, "x", dims, ty, offset);
    f.resize(f.len().next_multiple_of(32), 0);
    f.extend(data);
    f
}

#[test]
fn bad_tensor_infos() {
    assert_eq!(err(&one_tensor(&[1], 1000, 0, &[0; 4])), "tensor \"x\": unknown ggml type 1000");
    assert_eq!(
        err(&one_tensor(&[256], 34, 0, &[0; 54])),
        "tensor \"x\": ggml type 34 (tq1_0) has no gguf.<type>/1 profile in the zTensor v2 registry"
    );
    assert_eq!(err(&one_tensor(&[1; 5], 0, 0, &[0; 4])), "tensor \"x\" has 5 dimensions (GGUF allows at most 4)");
    assert_eq!(err(&one_tensor(&[1 << 63], 0, 0, &[])), "tensor \"x\": dimension 9223372036854775808 is past ggml's limit (2^63 - 1)");
    assert_eq!(
        err(&one_tensor(&[1 << 32, 1 << 32], 0, 0, &[])),
        "tensor \"x\": the product of its dimensions [4294967296, 4294967296] overflows 64 bits"
    );
    // A zero dimension anywhere makes the count 0, before or after an overflowing pair.
    for dims in [[0, 1 << 32, 1 << 32], [1 << 32, 1 << 32, 0]] {
        let empty = one_tensor(&dims, 0, 0, &[]);
        assert_eq!(parse(&empty).unwrap().tensors[0].data.len(), 0, "{dims:?}");
    }
    assert_eq!(
        err(&one_tensor(&[1 << 36, (1 << 28) - (1 << 20)], 8, 0, &[])),
        "tensor \"x\": its size in bytes (18374686479671623680 q8_0 elements) overflows 64 bits"
    );
    assert_eq!(
        err(&one_tensor(&[33, 2], 8, 0, &[0; 68])),
        "tensor \"x\": its fastest-varying dimension 33 is not a multiple of 32, the block size of q8_0"
    );
    // A 0-d tensor is one element: never a whole block.
    assert_eq!(
        err(&one_tensor(&[], 2, 0, &[0; 18])),
        "tensor \"x\": its fastest-varying dimension 1 is not a multiple of 32, the block size of q4_0"
    );
    assert_eq!(err(&one_tensor(&[1], 0, 16, &[0; 32])), "tensor \"x\": data offset 16 is not a multiple of the alignment 32");
    assert_eq!(
        err(&one_tensor(&[4], 0, 0, &[0; 15])),
        "tensor \"x\": its 16 bytes at data offset 0 extend past the end of the file (the data section holds 15 bytes)"
    );
    assert_eq!(
        err(&one_tensor(&[4], 0, u64::MAX - 31, &[0; 16])),
        "tensor \"x\": its 16 bytes at data offset 18446744073709551584 extend past the end of the file (the data section holds 16 bytes)"
    );
    // The infos fit, their aligned data section does not.
    let mut f = header(3, 1, 0);
    info(&mut f, "x", &[1], 0, 0);
    assert_eq!(err(&f), "the data section (aligned to 32) would start past the end of the file (57 bytes)");
    // Without tensors, a file may end right after its metadata.
    assert!(parse(&header(3, 0, 0)).is_ok());
    // A 0-d dense tensor is a scalar.
    let scalar = one_tensor(&[], 0, 0, &[0, 0, 0x20, 0x40]);
    let g = parse(&scalar).unwrap();
    assert_eq!((g.tensors[0].shape.len(), g.tensors[0].data.len()), (0, 4));
}

#[test]
fn names_and_overlaps() {
    let two = |names: [&str; 2], offsets: [u64; 2], sizes: [u64; 2]| {
        let mut f = header(3, 2, 0);
        for i in 0..2 {
            info(&mut f, names[i], &[sizes[i]], 24, offsets[i]);
        }
        f.resize(f.len().next_multiple_of(32), 0);
        f.extend([0; 128]);
        f
    };
    assert_eq!(err(&two(["a", "a"], [0, 32], [4, 4])), "duplicate tensor name \"a\"");
    assert_eq!(err(&two(["a", "b"], [0, 32], [33, 4])), "the data of tensors \"a\" and \"b\" overlap");
    assert_eq!(err(&two(["a", "b"], [32, 32], [1, 1])), "the data of tensors \"a\" and \"b\" overlap");
    assert!(parse(&two(["a", "b"], [0, 32], [32, 4])).is_ok(), "adjacent");
    assert!(parse(&two(["a", "b"], [32, 32], [0, 1])).is_ok(), "an empty tensor overlaps nothing");
    let mut bad = header(3, 1, 0);
    bad.extend(1u64.to_le_bytes());
    bad.push(0xff);
    bad.extend([0; 23]);
    assert_eq!(err(&bad), "the name of tensor 0 is not UTF-8");
}

/// Regenerates the hand-made seeds of the fuzz target `gguf` (beside the
/// fixtures copied there): `cargo test -p ztensor-cli --bin zt -- --ignored write_fuzz_seeds`.
#[test]
#[ignore]
fn write_fuzz_seeds() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/gguf");
    let seeds = [
        ("sample", sample()),
        ("scalar", one_tensor(&[], 0, 0, &[0, 0, 0x20, 0x40])),
        ("q4_k", one_tensor(&[256, 2], 12, 0, &[7; 288])),
        ("misaligned", one_tensor(&[1], 0, 16, &[0; 32])),
        ("kv_nested_strings", one_kv(9, &[9, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, b'a', 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])),
    ];
    for (name, bytes) in seeds {
        std::fs::write(dir.join(format!("seed-{name}.gguf")), bytes).unwrap();
    }
}

/// Every single-byte mutation of a sample file: no panic, and what is
/// accepted keeps the fuzz target's invariants.
#[test]
fn mutations_keep_the_invariants() {
    let f = sample();
    for i in 0..f.len() {
        for v in [0, 1, 0x7f, 0xff, f[i].wrapping_add(1)] {
            let mut m = f.clone();
            m[i] = v;
            super::fuzz::fuzz_one(&m);
        }
    }
}
