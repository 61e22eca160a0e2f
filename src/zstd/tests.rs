use super::*;

// `printf 'hello hello hello hello\n' | zstd --no-check`
const HELLO: &[u8] = &[
    0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58, 0x6d, 0x00, 0x00, 0x38, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x20, 0x0a, 0x01,
    0x00, 0x99, 0x4b, 0x11,
];
/// A skippable frame with 3 bytes of payload.
const SKIP: &[u8] = &[0x50, 0x2a, 0x4d, 0x18, 0x03, 0x00, 0x00, 0x00, 1, 2, 3];

/// One frame (window 128 KiB) of one RLE block: "AAAA".
const AAAA: &[u8] = &[0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38, 0x23, 0x00, 0x00, 0x41];

#[test]
fn frame_headers_are_checked_from_the_first_frame() {
    assert_eq!(pure::decode_to_vec(AAAA, 100).unwrap(), b"AAAA");
    // The reserved bit set.
    let mut reserved = AAAA.to_vec();
    reserved[4] |= 0x08;
    assert_eq!(pure::decode_to_vec(&reserved, 100).unwrap_err().kind(), ErrorKind::Decompress);
    // A 2 GiB window (exponent 21): refused in the first frame, as in later ones.
    let mut wide = AAAA.to_vec();
    wide[5] = 21 << 3;
    assert_eq!(pure::decode_to_vec(&wide, 100).unwrap_err().kind(), ErrorKind::Decompress);
    let second = [AAAA, &wide[..]].concat();
    assert_eq!(pure::decode_to_vec(&second, 100).unwrap_err().kind(), ErrorKind::Decompress);
    // 96 MiB (64 + 4 × 8) is allowed, 104 MiB is not; a single-segment
    // frame's content size counts as its window.
    assert_eq!(check_frame_header(&[0x28, 0xb5, 0x2f, 0xfd, 0x00, (16 << 3) | 4]).map_err(|e| e.kind()), Ok(()));
    assert!(check_frame_header(&[0x28, 0xb5, 0x2f, 0xfd, 0x00, (16 << 3) | 5]).is_err());
    let fcs = (200u32 << 20).to_le_bytes();
    let single = [0x28, 0xb5, 0x2f, 0xfd, 0xa0, fcs[0], fcs[1], fcs[2], fcs[3]];
    assert!(check_frame_header(&single).is_err());
}

/// One backend's three entry points.
struct B {
    name: &'static str,
    into: fn(&[u8], &mut [u8]) -> Result<usize>,
    sized: fn(&[u8], usize) -> Result<Vec<u8>>,
    to_vec: fn(&[u8], u64) -> Result<Vec<u8>>,
}

/// Every backend built, and the default one.
fn backends() -> Vec<B> {
    #[allow(unused_mut)]
    let mut v = alloc::vec![
        B { name: "default", into: decode_into, sized: decode_sized, to_vec: decode_to_vec },
        B { name: "ruzstd", into: pure::decode_into, sized: pure::decode_sized, to_vec: pure::decode_to_vec },
    ];
    #[cfg(feature = "libzstd")]
    v.push(B {
        name: "libzstd",
        into: libzstd::decode_into,
        sized: libzstd::decode_sized,
        to_vec: libzstd::decode_to_vec,
    });
    v
}

#[test]
fn backend_name() {
    assert_eq!(BACKEND, if cfg!(feature = "libzstd") { "libzstd" } else { "ruzstd" });
}

#[test]
fn decodes_within_bounds() {
    for B { name, into, sized, to_vec } in backends() {
        let mut out = [0u8; 24];
        let n = into(HELLO, &mut out).unwrap();
        assert_eq!(&out[..n], b"hello hello hello hello\n", "{name}");
        assert_eq!(to_vec(HELLO, 24).unwrap(), b"hello hello hello hello\n", "{name}");
        assert_eq!(sized(HELLO, 24).unwrap(), b"hello hello hello hello\n", "{name}");
        // More room: fewer bytes written, no error.
        let mut out = [0u8; 100];
        assert_eq!(into(HELLO, &mut out).unwrap(), 24, "{name}");
        assert_eq!(sized(HELLO, 100).unwrap(), b"hello hello hello hello\n", "{name}");
    }
}

#[test]
fn stops_at_the_limit() {
    for B { name, into, sized, to_vec } in backends() {
        for limit in [0, 10, 23] {
            let mut out = alloc::vec![0u8; limit];
            let want = ErrorKind::DecodedTooLarge { limit: limit as u64 };
            assert_eq!(into(HELLO, &mut out).unwrap_err().kind(), want, "{name} {limit}");
            assert_eq!(sized(HELLO, limit).unwrap_err().kind(), want, "{name} {limit}");
            assert_eq!(to_vec(HELLO, limit as u64).unwrap_err().kind(), want, "{name} {limit}");
        }
    }
}

#[test]
fn several_and_skippable_frames() {
    let mut two = Vec::new();
    two.extend_from_slice(SKIP);
    two.extend_from_slice(HELLO);
    two.extend_from_slice(SKIP);
    two.extend_from_slice(HELLO);
    let mut want = b"hello hello hello hello\n".to_vec();
    want.extend_from_slice(b"hello hello hello hello\n");
    for B { name, into, sized, to_vec } in backends() {
        let mut out = [0u8; 48];
        assert_eq!(into(&two, &mut out).unwrap(), 48, "{name}");
        assert_eq!(&out[..], &want[..], "{name}");
        assert_eq!(to_vec(&two, 48).unwrap(), want, "{name}");
        assert_eq!(sized(&two, 48).unwrap(), want, "{name}");
        let mut out = [0u8; 47];
        let too_large = ErrorKind::DecodedTooLarge { limit: 47 };
        assert_eq!(into(&two, &mut out).unwrap_err().kind(), too_large, "{name}");
        assert_eq!(to_vec(&two, 47).unwrap_err().kind(), too_large, "{name}");
        assert_eq!(sized(&two, 47).unwrap_err().kind(), too_large, "{name}");
        // Only a skippable frame: nothing decoded.
        assert_eq!(into(SKIP, &mut out).unwrap(), 0, "{name}");
        assert_eq!(to_vec(SKIP, 0).unwrap(), b"", "{name}");
        assert_eq!(sized(SKIP, 0).unwrap(), b"", "{name}");
    }
}

#[test]
fn corrupt_and_truncated_frames_fail() {
    let mut bad = HELLO.to_vec();
    bad[0] = 0;
    // Trailing garbage after a good frame.
    let mut tail = HELLO.to_vec();
    tail.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 0]);
    let cuts = [0, 3, 8, HELLO.len() - 5, HELLO.len() - 1].map(|cut| &HELLO[..cut]);
    for B { name, into, sized, to_vec } in backends() {
        for input in cuts.iter().copied().chain([&bad[..], &tail[..]]) {
            let mut out = [0u8; 64];
            assert_eq!(into(input, &mut out).unwrap_err().kind(), ErrorKind::Decompress, "{name} {input:x?}");
            assert_eq!(sized(input, 64).unwrap_err().kind(), ErrorKind::Decompress, "{name} {input:x?}");
            assert_eq!(to_vec(input, 64).unwrap_err().kind(), ErrorKind::Decompress, "{name} {input:x?}");
        }
    }
}

/// Both backends agree on multi-block frames, with and without a
/// declared content size (the writer declares none), at several levels.
#[cfg(feature = "libzstd")]
#[test]
fn backends_agree_on_large_frames() {
    use ::zstd::stream::raw::CParameter;
    let data: Vec<u8> =
        (0..3_000_000u32).map(|i| (i.wrapping_mul(2654435761) >> 29) as u8 ^ (i / 1000) as u8).collect();
    for (level, sized) in [(1, false), (3, false), (3, true), (19, false)] {
        let mut c = ::zstd::bulk::Compressor::new(level).unwrap();
        c.set_parameter(CParameter::ContentSizeFlag(sized)).unwrap();
        let frame = c.compress(&data).unwrap();
        let mut a = alloc::vec![0u8; data.len()];
        let mut b = alloc::vec![0u8; data.len()];
        assert_eq!(pure::decode_into(&frame, &mut a).unwrap(), data.len());
        assert_eq!(libzstd::decode_into(&frame, &mut b).unwrap(), data.len());
        assert!(a == data && b == data, "level {level} sized {sized}");
        assert_eq!(libzstd::decode_to_vec(&frame, data.len() as u64).unwrap(), data);
        assert_eq!(libzstd::decode_sized(&frame, data.len()).unwrap(), data);
        let short = data.len() as u64 - 1;
        assert_eq!(
            libzstd::decode_to_vec(&frame, short).unwrap_err().kind(),
            ErrorKind::DecodedTooLarge { limit: short }
        );
        assert_eq!(
            libzstd::decode_sized(&frame, data.len() - 1).unwrap_err().kind(),
            ErrorKind::DecodedTooLarge { limit: short }
        );
        let mut small = alloc::vec![0u8; data.len() - 1];
        assert_eq!(
            libzstd::decode_into(&frame, &mut small).unwrap_err().kind(),
            ErrorKind::DecodedTooLarge { limit: short }
        );
    }
}
