use super::*;

#[test]
fn negative_integers_widen_to_f64_rounded_once() {
    let neg = |n: u64| {
        let mut b = [0x3b, 0, 0, 0, 0, 0, 0, 0, 0];
        b[1..].copy_from_slice(&n.to_be_bytes());
        Value::new(&b, 0).as_f64()
    };
    assert_eq!(neg(4), Some(-5.0));
    // -1 - (2^53 + 1) = -(2^53 + 2): representable; rounding n first gave -2^53.
    assert_eq!(neg((1 << 53) + 1), Some(-9_007_199_254_740_994.0));
    assert_eq!(neg(u64::MAX), Some(-18_446_744_073_709_551_616.0));
}

#[test]
fn widens_every_half_and_many_singles_as_cbor_does() {
    // (Under Miri, interpreted: a stride through the halves and the
    // sign/exponent pairs; every one runs natively.)
    let stride = if cfg!(miri) { 61 } else { 1 };
    for h in (0..=u16::MAX).step_by(stride) {
        assert_eq!(widen(h.into(), 5, 10).to_bits(), cbor::f16_to_f64(h).to_bits(), "{h:#06x}");
    }
    // Every sign and exponent, with mantissas of every leading-zero
    // count (subnormals), every width of ones, and a stride through the rest.
    let edges = (0..23).flat_map(|k| [1u32 << k, (1 << k) - 1, (1 << 23) - (1 << k)]);
    let mantissas = edges.chain((0..1 << 23).step_by(if cfg!(miri) { 1 << 20 } else { 4093 }));
    for se in (0..512u32).step_by(if cfg!(miri) { 37 } else { 1 }) {
        for m in mantissas.clone() {
            let b = se << 23 | m;
            assert_eq!(widen(b, 8, 23).to_bits(), cbor::f32_to_f64(f32::from_bits(b)).to_bits(), "{b:#010x}");
        }
    }
}

#[test]
fn int_to_f64_rounds_as_the_cast() {
    let check = |n: u64| {
        assert_eq!(int_to_f64(n, false).to_bits(), (n as f64).to_bits(), "{n:#x}");
        assert_eq!(int_to_f64(n, true).to_bits(), (-((u128::from(n) + 1) as f64)).to_bits(), "-1 - {n:#x}");
    };
    // (Under Miri, interpreted: fewer of each; all of them natively.)
    let (small, near, random) = if cfg!(miri) { (1 << 8, 20, 1 << 8) } else { (1 << 16, 2050, 1 << 20) };
    (0..small).for_each(check);
    // Around every power of two, and ties (even and odd) at every magnitude.
    for k in 0..64 {
        for d in 0..near {
            check((1u64 << k).wrapping_add(d));
            check((1u64 << k).wrapping_sub(d));
            check(u64::MAX >> k ^ d);
        }
        for x in [0x400u64, 0x401, 0x3ff, 0xc00, 0xbff, 0xc01, 0x1_0000_0400, 0x1f_ffff_ffff_fc00] {
            check(x << k.min(x.leading_zeros()));
        }
    }
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..random {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        check(x);
        check(x >> (x % 64));
    }
}

#[test]
fn simple_values_and_floats_by_width() {
    fn get(b: &[u8]) -> ValueRef<'_> {
        Value::new(b, 0).get()
    }
    assert!(matches!(get(&[0xf4]), ValueRef::Bool(false)));
    assert!(matches!(get(&[0xf5]), ValueRef::Bool(true)));
    assert!(matches!(get(&[0xf6]), ValueRef::Null));
    assert!(matches!(get(&[0xf7]), ValueRef::Undefined));
    assert!(matches!(get(&[0xe0]), ValueRef::Simple(0)));
    assert!(matches!(get(&[0xf3]), ValueRef::Simple(19)));
    assert!(matches!(get(&[0xf8, 0x20]), ValueRef::Simple(32)));
    assert!(matches!(get(&[0xf8, 0xff]), ValueRef::Simple(255)));
    assert!(matches!(get(&[0xf8, 0x14]), ValueRef::Undefined), "a two-byte simple under 32 is invalid");
    assert!(matches!(get(&[0xff]), ValueRef::Undefined), "a stray break");
    assert!(matches!(get(&[0xf9, 0x3c]), ValueRef::Undefined), "truncated");
    let bits = |b: &[u8]| match get(b) {
        ValueRef::Float(f) => f.to_bits(),
        other => panic!("{other:?}"),
    };
    // NaNs keep their sign and payload.
    assert_eq!(bits(&[0xf9, 0xfd, 0x01]), 0xfff4_0400_0000_0000);
    assert_eq!(bits(&[0xf9, 0x00, 0x01]), 5.960464477539063e-8f64.to_bits());
    assert_eq!(bits(&[0xfa, 0xff, 0x80, 0x00, 0x01]), 0xfff0_0000_2000_0000);
    assert_eq!(bits(&[0xfa, 0x00, 0x00, 0x00, 0x01]), (f32::from_bits(1) as f64).to_bits());
    assert_eq!(bits(&[0xfb, 0x7f, 0xf0, 0, 0, 0, 0, 0, 1]), 0x7ff0_0000_0000_0001);
    assert_eq!(Value::new(&[0xfa, 0xbf, 0xc0, 0, 0], 0).as_f64(), Some(-1.5));
}

#[test]
fn decodes_every_kind() {
    // {"i": -5, "f": 1.5 (half), "t": true, "n": null, "b": h'0102', "a": [1, "x"], "g": 1(7)}
    let b = [
        0xa7, 0x61, b'i', 0x24, 0x61, b'f', 0xf9, 0x3e, 0x00, 0x61, b't', 0xf5, 0x61, b'n', 0xf6, 0x61,
        b'b', 0x42, 1, 2, 0x61, b'a', 0x82, 0x01, 0x61, b'x', 0x61, b'g', 0xc1, 0x07,
    ];
    let m = Value::new(&b, 0).as_map().unwrap();
    assert_eq!(m.len(), 7);
    assert_eq!(m.get("i").unwrap().as_i64(), Some(-5));
    assert_eq!(m.get("f").unwrap().as_f64(), Some(1.5));
    assert_eq!(m.get("t").unwrap().as_bool(), Some(true));
    assert!(m.get("n").unwrap().is_null());
    assert_eq!(m.get("b").unwrap().as_bytes(), Some(&[1u8, 2][..]));
    let a = m.get("a").unwrap().as_array().unwrap();
    assert_eq!(a.len(), 2);
    assert_eq!(a.iter().nth(1).unwrap().as_str(), Some("x"));
    match m.get("g").unwrap().get() {
        ValueRef::Tag(1, v) => assert_eq!(v.as_u64(), Some(7)),
        other => panic!("{other:?}"),
    }
    assert_eq!(m.get("g").unwrap().untagged().as_u64(), Some(7));
    assert!(m.get("zz").is_none());
}

#[test]
fn hidden_keys_are_definite_text_keys_only() {
    // {"name": 1, "x": 2, h'6e616d65': 3, (_ "name"): 4}, "name" hidden.
    let b = [
        0xa4, 0x64, b'n', b'a', b'm', b'e', 1, 0x61, b'x', 2, 0x44, b'n', b'a', b'm', b'e', 3, 0x7f, 0x64, b'n',
        b'a', b'm', b'e', 0xff, 4,
    ];
    let m = Value::new(&b, 0).as_map().unwrap().hiding(|k| k == b"name");
    assert_eq!(m.len(), 3);
    let values: [_; 3] = core::array::from_fn(|i| m.iter().nth(i).unwrap().1.as_u64());
    assert_eq!(values, [Some(2), Some(3), Some(4)]);
    assert!(m.get("name").is_none());
    assert_eq!(m.get("x").and_then(|v| v.as_u64()), Some(2));
}

#[test]
fn indefinite_strings_and_maps() {
    // {_ "k": (_ "ab", "c")}
    let b = [0xbf, 0x61, b'k', 0x7f, 0x62, b'a', b'b', 0x61, b'c', 0xff, 0xff];
    let m = Value::new(&b, 0).as_map().unwrap();
    assert_eq!(m.len(), 1);
    let v = m.get("k").unwrap();
    assert_eq!(v.as_str(), None);
    let ValueRef::Text(c) = v.get() else { panic!() };
    assert_eq!(c.len(), 3);
    let mut it = c.iter();
    assert_eq!(it.next(), Some(&b"ab"[..]));
    assert_eq!(it.next(), Some(&b"c"[..]));
    assert_eq!(it.next(), None);
}
