//! Unit tests of the CBOR reader.

use super::*;
use crate::scratch::Scratch;
extern crate std;

fn walk(b: &[u8]) -> Result<usize> {
    walk_with(b, &mut [[0u64; 2]; 128])
}

fn walk_with(b: &[u8], buf: &mut [[u64; 2]]) -> Result<usize> {
    let mut s = Scratch::new(buf);
    let mut r = Reader::new(b);
    r.walk(0, Some(&mut s))?;
    Ok(r.pos)
}

/// Past the local frames a walk with keys spills one frame per level into
/// the scratch, below that level's keys: keys are still checked at every
/// depth; a scratch too small for a valid file asks for more; an invalid
/// file still says what is wrong.
#[test]
fn deep_frames_spill_into_the_scratch() {
    // 50 nested one-entry maps {"a": {"a": ... 0}}, then a duplicate at the bottom.
    let mut b = std::vec::Vec::new();
    for _ in 0..50 {
        b.extend_from_slice(&[0xa1, 0x61, b'a']);
    }
    b.push(0x00);
    assert_eq!(walk(&b).unwrap(), b.len());
    let mut dup = b[..b.len() - 1].to_vec();
    dup.extend_from_slice(&[0xa2, 0x61, b'x', 0x00, 0x61, b'x', 0x00]);
    dup.truncate(3 * 49); // the 50th level is the two-key map
    dup.extend_from_slice(&[0xa2, 0x61, b'x', 0x00, 0x61, b'x', 0x00]);
    let e = walk(&dup).unwrap_err();
    assert_eq!((e.kind(), e.manifest_offset()), (ErrorKind::DuplicateKey, Some(3 * 49 + 4)));
    // Values are not keys: {"a": 0, "b": 0, "c": [0], "d": [0]} at the bottom is fine.
    let mut same_values = b[..b.len() - 1].to_vec();
    same_values.truncate(3 * 49);
    same_values.extend_from_slice(&[0xa4, 0x61, b'a', 0x00, 0x61, b'b', 0x00, 0x61, b'c', 0x81, 0x00, 0x61, b'd', 0x81, 0x00]);
    assert!(walk(&same_values).is_ok());
    // Keys of a spilled map's parent, before and after it: {"a": {50 deep}, "a": 0}.
    let mut outer = std::vec![0xa2, 0x61, b'a'];
    outer.extend_from_slice(&b);
    outer.extend_from_slice(&[0x61, b'a', 0x00]);
    assert_eq!(walk(&outer).unwrap_err().kind(), ErrorKind::DuplicateKey);
    // A spilled container as a map key: {[[...]]: 0, [[...]]: 0}, 40 deep.
    let mut key = std::vec::Vec::new();
    key.resize(40, 0x81);
    key.push(0x00);
    let mut keys2 = std::vec![0xa2];
    keys2.extend_from_slice(&key);
    keys2.push(0x00);
    keys2.extend_from_slice(&key);
    keys2.push(0x00);
    assert_eq!(walk(&keys2).unwrap_err().manifest_offset(), Some(1 + key.len() as u64 + 1));
    keys2[1 + key.len() + 1 + 39] = 0x82; // the second key differs: [[...[0]]] vs [[...[0, 1]]]
    keys2.insert(1 + key.len() + 1 + 40, 0x01);
    assert!(walk(&keys2).is_ok(), "{keys2:02x?}");
    // Too little scratch: a valid file asks for more, an invalid one says why.
    let small = &mut [[0u64; 2]; 4];
    let e = walk_with(&b, small).unwrap_err();
    assert_eq!((e.kind(), e.manifest_offset()), (ErrorKind::ScratchTooSmall { needed: 5 }, Some(13)));
    let mut deep = [0x81u8; 1000];
    deep[999] = 0x00;
    assert_eq!(walk_with(&deep, small).unwrap_err().kind(), ErrorKind::TooDeep);
    let mut bad = b.clone();
    bad[3 * 40] = 0x1c; // a reserved initial byte 40 levels down
    assert_eq!(walk_with(&bad, small).unwrap_err().kind(), ErrorKind::CborInvalid);
}

/// Spilled indefinite containers, 21 deep, with items after their nested
/// one: each spilled parent comes back with its keys' start and its state
/// (a map or not, key or value next), so a repeated key at any level is
/// found where it is, and none is found where there is none (an array's
/// equal items, a container key's value).
#[test]
fn spilled_parents_resume_with_their_keys() {
    // Level i: {_ "a": <child>, "b": i} (i % 3 == 0), {_ <child>: 0, "b": i}
    // (1), [_ <child>, "b", "b"] (2); the innermost {_ "a": 0}.
    let nested = |dup_at: Option<usize>| {
        let (mut b, mut at) = (std::vec::Vec::new(), None);
        for i in 0..21 {
            b.extend_from_slice(if i % 3 == 0 { &[0xbf, 0x61, b'a'] } else if i % 3 == 1 { &[0xbf] } else { &[0x9f] });
        }
        b.extend_from_slice(&[0xbf, 0x61, b'a', 0x00, 0xff]);
        for i in (0..21).rev() {
            if dup_at == Some(i) {
                at = Some(b.len() as u64);
            }
            let k = if dup_at == Some(i) { b'a' } else { b'b' };
            match i % 3 {
                0 => b.extend_from_slice(&[0x61, k, i as u8, 0xff]),
                1 => b.extend_from_slice(&[0x00, 0x61, b'b', i as u8, 0xff]),
                _ => b.extend_from_slice(&[0x61, b'b', 0x61, b'b', 0xff]),
            }
        }
        (b, at)
    };
    let (ok, _) = nested(None);
    assert_eq!(walk(&ok).unwrap(), ok.len());
    for level in [0, 6, 9, 15, 18] {
        let (bad, at) = nested(Some(level));
        let e = walk(&bad).unwrap_err();
        assert_eq!((e.kind(), e.manifest_offset()), (ErrorKind::DuplicateKey, at), "level {level}");
    }
}

/// Without keys, every level up to the limit has its one-word frame.
#[test]
fn deep_walks_without_keys() {
    let mut ok = [0x81u8; MAX_DEPTH + 1];
    ok[MAX_DEPTH] = 0x00;
    let mut r = Reader::new(&ok);
    r.walk(0, None).unwrap();
    assert_eq!(r.pos, ok.len());
    let mut deep = [0x9fu8; 200];
    deep[199] = 0xff;
    assert_eq!(Reader::new(&deep).walk(0, None).unwrap_err().kind(), ErrorKind::TooDeep);
    // [_ [_ ... [_ ] ] ], and {_ 1: {_ 1: ... {_ } } }: indefinite levels.
    let mut b = std::vec![0x9f; 60];
    b.extend(std::iter::repeat(0xff).take(60));
    let mut r = Reader::new(&b);
    r.walk(0, None).unwrap();
    assert_eq!(r.pos, b.len());
    let mut m = std::vec::Vec::new();
    for _ in 0..60 {
        m.extend_from_slice(&[0xbf, 0x01]);
    }
    m.pop();
    m.extend(std::iter::repeat(0xff).take(60));
    let mut r = Reader::new(&m);
    r.walk(0, None).unwrap();
    assert_eq!(r.pos, m.len());
    // A break after a key (an odd item count) is refused at any depth.
    let mut odd = m.clone();
    odd.insert(59 * 2 + 1, 0x01);
    assert_eq!(Reader::new(&odd).walk(0, None).unwrap_err().kind(), ErrorKind::CborBadIndefinite);
    let mut r = Reader::new(&b);
    r.walk(0, None).unwrap();
    assert_eq!(r.pos, b.len());
    assert!(Reader::new(&b[..79]).walk(0, None).is_err());
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

/// An indefinite map's state (key or value next) survives a container
/// inside it, with keys and without: a key after the container's value
/// is checked, a break in value position refused.
#[test]
fn indefinite_maps_resume_after_a_nested_container() {
    // {_ "a": {_ "b": 0}, "a": 1}
    let b = [0xbf, 0x61, b'a', 0xbf, 0x61, b'b', 0x00, 0xff, 0x61, b'a', 0x01, 0xff];
    let e = walk(&b).unwrap_err();
    assert_eq!((e.kind(), e.manifest_offset()), (ErrorKind::DuplicateKey, Some(8)));
    // {_ {_ "b": 0}: 0} is fine; {_ {_ "b": 0}} (a break for the value) is not.
    let ok = [0xbf, 0xbf, 0x61, b'b', 0x00, 0xff, 0x00, 0xff];
    let bad = [0xbf, 0xbf, 0x61, b'b', 0x00, 0xff, 0xff];
    assert_eq!(walk(&ok).unwrap(), ok.len());
    assert!(Reader::new(&ok).walk(0, None).is_ok());
    for keys in [true, false] {
        let e = if keys { walk(&bad).unwrap_err() } else { Reader::new(&bad).walk(0, None).unwrap_err() };
        assert_eq!((e.kind(), e.manifest_offset()), (ErrorKind::CborBadIndefinite, Some(6)));
    }
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

/// A length too large names the length its head claims (a container's
/// or a string's, in one byte or eight), where the walk refuses it (a
/// container at its head, a string past it), and the reader stops past
/// the head, with keys and without.
#[test]
fn a_length_too_large_names_its_claim() {
    for (b, claimed, at, pos) in [
        (&[0x83, 0x01][..], 3, 0, 1),
        (&[0x81, 0xb9, 0x01, 0x00, 0x00][..], 256, 1, 4),
        (&[0x82, 0x00, 0x7b, 0, 0, 0, 1, 0, 0, 0, 0][..], 1 << 32, 11, 11),
        (&[0xa1, 0x61, b'k', 0x43, 0x01][..], 3, 4, 4),
    ] {
        for keys in [false, true] {
            let mut mem = [[0u64; 2]; 8];
            let mut scratch = Scratch::new(&mut mem);
            let mut r = Reader::new(b);
            let e = r.walk(0, if keys { Some(&mut scratch) } else { None }).unwrap_err();
            assert_eq!((e.kind(), e.manifest_offset(), r.pos), (ErrorKind::LengthTooLarge { claimed }, Some(at), pos), "{b:02x?}");
        }
    }
}

/// An indefinite string holds definite chunks of its own type, then a
/// break: a refusal names the offending chunk, and the reader stops there.
#[test]
fn indefinite_strings_take_only_their_own_chunks() {
    for (b, kind, at, pos) in [
        (&[0x7f, 0x01, 0xff][..], ErrorKind::CborBadIndefinite, 1, 1),
        (&[0x7f, 0x7f, 0xff, 0xff][..], ErrorKind::CborBadIndefinite, 1, 1),
        (&[0x5f, 0x41, 0x00, 0x61, b'a', 0xff][..], ErrorKind::CborBadIndefinite, 3, 3),
        (&[0x7f, 0x61, b'a', 0x61, 0xff, 0xff][..], ErrorKind::CborInvalidUtf8, 3, 5),
        (&[0x7f, 0x62, b'a'][..], ErrorKind::LengthTooLarge { claimed: 2 }, 2, 2),
        (&[0x5f, 0x41, 0x00][..], ErrorKind::CborEof, 3, 3),
    ] {
        let mut r = Reader::new(b);
        let e = r.walk(0, None).unwrap_err();
        assert_eq!((e.kind(), e.manifest_offset(), r.pos), (kind, Some(at), pos), "{b:02x?}");
    }
    // [(_ h'00', h''), (_ "a")] and {(_ "a"): 0, "a": 1}.
    let ok = [0x82, 0x5f, 0x41, 0x00, 0x40, 0xff, 0x7f, 0x61, b'a', 0xff];
    assert_eq!(walk(&ok).unwrap(), ok.len());
    let dup = [0xa2, 0x7f, 0x61, b'a', 0xff, 0x00, 0x61, b'a', 0x01];
    assert_eq!(walk(&dup).unwrap_err().kind(), ErrorKind::DuplicateKey);
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
