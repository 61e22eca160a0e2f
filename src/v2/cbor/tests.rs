use super::*;
use crate::compact::cur::canonical_float;

fn kind(b: &[u8]) -> Option<Kind> {
    validate(b).err().map(|e| e.kind)
}

/// The integer rule for f64 heads agrees with the float conversion
/// (`d as f32` exact), around each boundary and on pseudo-random bits.
#[test]
fn f64_canonical_rule_matches_the_float_conversion() {
    let by_floats = |v: u64| {
        let d = f64::from_bits(v);
        !(d.is_nan() || d as f32 as f64 == d || d.is_infinite())
    };
    let mut fits = 0;
    let mut check = |v: u64| {
        assert_eq!(canonical_float(27, v), by_floats(v), "{v:#018x}");
        fits += !canonical_float(27, v) as usize;
    };
    for e in [0u64, 1, 800, 873, 874, 875, 895, 896, 897, 1000, 1023, 1150, 1151, 1152, 2046, 2047] {
        for man in [0u64, 1, 1 << 28, 1 << 29, 3 << 29, 1 << 51, (1 << 52) - 1, (1 << 52) - (1 << 29)] {
            for sign in [0, 1u64 << 63] {
                check(sign | e << 52 | man);
            }
        }
    }
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..100_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // Low mantissa bits cleared now and then, so that fitting values occur.
        check(if x & 1 == 0 { x & !((1 << 29) - 1) } else { x });
    }
    assert!(fits > 1000, "too few fitting cases: {fits}");
}

#[test]
fn accepts_deterministic() {
    assert_eq!(kind(&[0xa0]), None);
    assert_eq!(kind(&[0xa2, 0x61, b'a', 0x01, 0x61, b'b', 0x80]), None);
    assert_eq!(kind(&[0xa2, 0x61, b'b', 0x01, 0x62, b'a', b'a', 0x02]), None); // shorter encoding first
    assert_eq!(kind(&[0xf9, 0x7e, 0x00]), None);
    assert_eq!(kind(&[0xf9, 0x3e, 0x00]), None); // 1.5
    assert_eq!(kind(&[0xfa, 0x3d, 0xcc, 0xcc, 0xcd]), None); // 0.1f32
    assert_eq!(kind(&[0xfb, 0x3f, 0xb9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a]), None); // 0.1
    assert_eq!(kind(&[0xf9, 0x00, 0x01]), None); // smallest f16 subnormal
    assert_eq!(kind(&[0xf9, 0x7c, 0x00]), None); // inf
}

#[test]
fn refuses_every_non_deterministic_form() {
    assert_eq!(kind(&[0x18, 0x05]), Some(Kind::CborNonShortest));
    assert_eq!(kind(&[0x79, 0x00, 0x01, b'a']), Some(Kind::CborNonShortest));
    assert_eq!(kind(&[0xbf, 0xff]), Some(Kind::CborIndefinite));
    assert_eq!(kind(&[0xc0, 0x00]), Some(Kind::CborTag));
    assert_eq!(kind(&[0xf7]), Some(Kind::CborSimple));
    assert_eq!(kind(&[0xf9, 0x7e, 0x01]), Some(Kind::CborNonCanonicalFloat));
    assert_eq!(kind(&[0xfa, 0x3f, 0xc0, 0x00, 0x00]), Some(Kind::CborNonCanonicalFloat)); // 1.5 as f32
    assert_eq!(kind(&[0xfa, 0x00, 0x00, 0x00, 0x00]), Some(Kind::CborNonCanonicalFloat)); // 0.0 as f32
    assert_eq!(kind(&[0xfb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0]), Some(Kind::CborNonCanonicalFloat));
    assert_eq!(kind(&[0xfa, 0x7f, 0xc0, 0x00, 0x00]), Some(Kind::CborNonCanonicalFloat)); // NaN as f32
    assert_eq!(kind(&[0xa2, 0x61, b'b', 0x01, 0x61, b'a', 0x02]), Some(Kind::CborUnsortedKeys));
    assert_eq!(kind(&[0xa2, 0x61, b'a', 0x01, 0x61, b'a', 0x02]), Some(Kind::CborDuplicateKey));
    assert_eq!(kind(&[0xa0, 0x00]), Some(Kind::CborTrailingBytes));
    assert_eq!(kind(&[0x62, 0xff, 0xfe]), Some(Kind::CborInvalidUtf8));
    assert_eq!(kind(&[0x82, 0x00]), Some(Kind::CborTruncated));
    assert_eq!(kind(&[0x1c]), Some(Kind::CborInvalid));
    // Heads the head decoder refuses: each still named by its rule.
    assert_eq!(kind(&[0xf8, 0x10]), Some(Kind::CborSimple)); // simple 16 in two bytes
    assert_eq!(kind(&[0xf8]), Some(Kind::CborTruncated));
    assert_eq!(kind(&[0x19, 0x01]), Some(Kind::CborTruncated)); // a uint's argument cut short
    assert_eq!(kind(&[0x1f]), Some(Kind::CborIndefinite)); // no indefinite uint exists
    assert_eq!(kind(&[0x82, 0x01]), Some(Kind::CborTruncated));
}

#[test]
fn depth_is_counted_from_the_root() {
    let mut b = [0x81u8; 40];
    b[MAX_DEPTH] = 0x80; // the root and 32 levels below it: the last an empty array
    assert_eq!(kind(&b[..MAX_DEPTH + 1]), None);
    b[MAX_DEPTH] = 0x81;
    b[MAX_DEPTH + 1] = 0x80; // 33 below the root
    assert_eq!(kind(&b[..MAX_DEPTH + 2]), Some(Kind::CborTooDeep));
}

#[test]
fn container_keys_are_ordered_by_encoding() {
    // {[1]: 0, [2]: 0} sorted; reversed is refused.
    assert_eq!(kind(&[0xa2, 0x81, 0x01, 0x00, 0x81, 0x02, 0x00]), None);
    assert_eq!(kind(&[0xa2, 0x81, 0x02, 0x00, 0x81, 0x01, 0x00]), Some(Kind::CborUnsortedKeys));
}
