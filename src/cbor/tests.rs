//! Unit tests of the CBOR reader.

use super::*;
use crate::scratch::Scratch;

fn walk(b: &[u8]) -> Result<usize> {
    let mut buf = [[0u64; 2]; 32];
    let mut s = Scratch::new(&mut buf);
    let mut r = Reader::new(b);
    r.walk(0, Some(&mut s))?;
    Ok(r.pos)
}

#[test]
fn skips_nested_definite_and_indefinite() {
    // {"a": [1, 2, {_ "b": h'00'}], "c": (_ "x", "y")}
    let b = [
        0xa2, 0x61, b'a', 0x83, 0x01, 0x02, 0xbf, 0x61, b'b', 0x41, 0x00, 0xff, 0x61, b'c',
        0x7f, 0x61, b'x', 0x61, b'y', 0xff,
    ];
    assert_eq!(walk(&b).unwrap(), b.len());
}

#[test]
fn duplicate_keys_are_found_at_any_depth() {
    let b = [0xa2, 0x61, b'a', 0x01, 0x61, b'a', 0x02];
    assert_eq!(walk(&b).unwrap_err().kind(), ErrorKind::DuplicateKey);
    let b = [0x81, 0xbf, 0x01, 0x00, 0x01, 0x00, 0xff];
    assert_eq!(walk(&b).unwrap_err().kind(), ErrorKind::DuplicateKey);
    // same key text in different maps is fine
    let b = [0x82, 0xa1, 0x61, b'a', 0x01, 0xa1, 0x61, b'a', 0x01];
    assert!(walk(&b).is_ok());
}

#[test]
fn rejects_malformed() {
    for (b, kind) in [
        (&[0x1c][..], ErrorKind::CborInvalid),
        (&[0x1f][..], ErrorKind::CborInvalid),
        (&[0xf8, 0x10][..], ErrorKind::CborInvalid),
        (&[0xff][..], ErrorKind::CborBadIndefinite),
        (&[0x5f, 0x61, b'a', 0xff][..], ErrorKind::CborBadIndefinite),
        (&[0xbf, 0x01, 0xff][..], ErrorKind::CborBadIndefinite),
        (&[0x62, 0xff, 0xfe][..], ErrorKind::CborInvalidUtf8),
        (&[0x9b, 0, 0, 0, 0x10, 0, 0, 0, 0][..], ErrorKind::LengthTooLarge { claimed: 1 << 36 }),
        (&[0x82, 0x01, 0x18][..], ErrorKind::CborEof),
        (&[0x83, 0x01][..], ErrorKind::LengthTooLarge { claimed: 3 }),
        (&[0x19, 0x01][..], ErrorKind::CborEof),
    ] {
        assert_eq!(walk(b).unwrap_err().kind(), kind, "{b:02x?}");
    }
}

#[test]
fn nesting_limit_is_enforced_without_recursion() {
    let mut deep = [0x81u8; 100_000];
    deep[99_999] = 0x00;
    assert_eq!(walk(&deep).unwrap_err().kind(), ErrorKind::TooDeep);
    let mut ok = [0x81u8; MAX_DEPTH + 1];
    ok[MAX_DEPTH] = 0x00;
    assert!(walk(&ok).is_ok());
}

#[test]
fn container_keys_compare_by_their_bytes() {
    // {[1]: 0, [1]: 0}: the second key repeats the first.
    let b = [0xa2, 0x81, 0x01, 0x00, 0x81, 0x01, 0x00];
    assert_eq!(walk(&b).unwrap_err().manifest_offset(), Some(4));
    // {[1]: 0, [2]: 0} and {[_ 1]: 0, [1]: 0} (different encodings) are fine.
    assert!(walk(&[0xa2, 0x81, 0x01, 0x00, 0x81, 0x02, 0x00]).is_ok());
    assert!(walk(&[0xa2, 0x9f, 0x01, 0xff, 0x00, 0x81, 0x01, 0x00]).is_ok());
    // {{1: 0, 1: 0}: 0}: a duplicate inside a map key.
    let b = [0xa1, 0xa2, 0x01, 0x00, 0x01, 0x00, 0x00];
    assert_eq!(walk(&b).unwrap_err().manifest_offset(), Some(4));
    // {{_ 1: 0}: 0, {_ 1: 0}: 0}: indefinite map keys, repeated.
    let b = [0xa2, 0xbf, 0x01, 0x00, 0xff, 0x00, 0xbf, 0x01, 0x00, 0xff, 0x00];
    assert_eq!(walk(&b).unwrap_err().manifest_offset(), Some(6));
    // [{[1]: 0}, {[1]: 0}]: the same key in two maps.
    assert!(walk(&[0x82, 0xa1, 0x81, 0x01, 0x00, 0xa1, 0x81, 0x01, 0x00]).is_ok());
}

#[test]
fn tag_chains_count_toward_the_depth_limit() {
    let mut b = [0xc1u8; 10_000];
    b[9_999] = 0x00;
    assert_eq!(walk(&b).unwrap_err().kind(), ErrorKind::TooDeep);
    let mut ok = [0xc1u8; MAX_DEPTH + 1];
    ok[MAX_DEPTH] = 0x00;
    assert!(walk(&ok).is_ok());
    // A tagged map key keeps its span from the tag: duplicates still found.
    let b = [0xa2, 0xc1, 0x01, 0x00, 0xc1, 0x01, 0x00];
    assert_eq!(walk(&b).unwrap_err().kind(), ErrorKind::DuplicateKey);
}

/// `walk` without keys is also the firmware's `skip`: nesting up to
/// `MAX_DEPTH` passes, one more is refused, for arrays, tags and
/// indefinite arrays alike.
#[test]
fn walk_without_keys_limits_depth() {
    let mut deep = [0x81u8; 100];
    deep[99] = 0;
    for b in [&deep[..], &[0xc1; 100][..], &[0x9f; 100][..]] {
        assert_eq!(Reader::new(b).walk(0, None).unwrap_err().kind(), ErrorKind::TooDeep);
    }
    let mut ok = [0x81u8; MAX_DEPTH + 1];
    ok[MAX_DEPTH] = 0;
    let mut r = Reader::new(&ok);
    assert_eq!(r.walk(0, None).map_err(|e| e.kind()), Ok(()));
    assert_eq!(r.pos, ok.len());
    let mut over = [0x81u8; MAX_DEPTH + 2];
    over[MAX_DEPTH + 1] = 0;
    assert_eq!(Reader::new(&over).walk(0, None).unwrap_err().kind(), ErrorKind::TooDeep);
}

#[test]
fn half_floats() {
    assert_eq!(f16_to_f64(0x3c00), 1.0);
    assert_eq!(f16_to_f64(0xc000), -2.0);
    assert_eq!(f16_to_f64(0x0001), 5.960464477539063e-8);
    assert!(f16_to_f64(0x7e00).is_nan());
    assert_eq!(f16_to_f64(0x7e00).to_bits(), f64::NAN.to_bits());
    assert_eq!(f16_to_f64(0xfd01).to_bits(), 0xfff4_0400_0000_0000);
    assert_eq!(f32_to_f64(f32::from_bits(0xff80_0001)).to_bits(), 0xfff0_0000_2000_0000);
    assert_eq!(f32_to_f64(-1.5), -1.5);
    assert_eq!(f16_to_f64(0x7c00), f64::INFINITY);
}
