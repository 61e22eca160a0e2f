//! Components' bytes: decoding, typed views, digests; zstd frame builders.

use super::*;

pub(crate) fn walk_component(c: &Component<'_>, data: Option<&[u8]>, tail: &Tail, v0: bool, buf: &mut [u8]) {
    assert!(!c.role().is_empty(), "empty role accepted");
    assert_eq!(c.offset() % 64, 0, "misaligned offset {}", c.offset());
    assert!(c.offset() >= 8, "blob inside the header");
    let end = c.offset().checked_add(c.length()).expect("offset + length overflows");
    assert!(end <= tail.manifest_offset, "blob {}..{end} past the manifest at {}", c.offset(), tail.manifest_offset);
    if let Some(t) = c.logical_type() {
        if let Some(s) = t.storage() {
            assert_eq!(s, c.dtype(), "logical type {t} on {}", c.dtype());
        }
        let _ = t.name();
    }
    assert_eq!(DType::from_name(c.dtype().name()), Some(c.dtype()));
    if c.endian() == Endian::Big {
        assert!(v0, "big-endian component outside v0.1");
    }
    let width = c.dtype().width();
    let decoded_len = c.decoded_len();
    if c.encoding() == Encoding::Raw {
        assert_eq!(decoded_len, Some(c.length()));
    }
    if let Some(n) = decoded_len {
        assert_eq!(n % width, 0, "partial element");
        assert_eq!(c.element_count(), Some(n / width));
    }
    walk_map(c.fields(), 1);
    if debug_objects() {
        let d = format!("{c:?}");
        let own = format!("{:?}", c.fields()).len() + format!("{:?}", c.role()).len() + 1024;
        assert!(d.len() <= own, "Debug of component {:?}: {} bytes (its own fields: {own})", c.role(), d.len());
    }

    let Some(file) = data else {
        let no_data = |e: ztensor::Error| assert_eq!(e.kind(), ErrorKind::NoData, "{e}");
        no_data(c.stored_bytes().unwrap_err());
        assert!(c.to_vec_with_limit(DECODE_LIMIT).is_err());
        assert!(c.read_into(buf).is_err());
        assert!(!matches!(c.verify_digest(), Ok(Verified::Ok)), "digest verified without data");
        return;
    };

    let stored = c.stored_bytes().expect("stored_bytes of a validated component");
    assert_eq!(stored.len() as u64, c.length());
    let expect = &file[c.offset() as usize..end as usize];
    assert_eq!(stored.as_ptr(), expect.as_ptr(), "stored_bytes is not the file's range");

    // Verify on read: a whole read with the digest checked gives the same
    // bytes as one without, or fails on the digest alone. The invariants
    // below hold for the bytes as stored, so they read `unverified()`.
    let checked = *c;
    let c = &c.unverified();
    let verified = checked.to_vec_with_limit(DECODE_LIMIT);

    // to_vec_with_limit.
    let v = c.to_vec_with_limit(DECODE_LIMIT);
    match (&verified, &v) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "verified and unverified reads disagree"),
        (Ok(_), Err(e)) => panic!("a verified read succeeded where the unverified one failed: {e}"),
        (Err(e), Ok(_)) => assert!(
            matches!(e.kind(), ErrorKind::DigestMismatch | ErrorKind::BadDigest),
            "a verified read failed, not on its digest: {e}"
        ),
        (Err(_), Err(_)) => {}
    }
    match (&v, c.encoding()) {
        (Ok(v), _) => {
            assert!(v.len() as u64 <= DECODE_LIMIT);
            if let Some(n) = decoded_len {
                assert_eq!(v.len() as u64, n, "to_vec length vs decoded_len");
            }
            if !partial_ok() {
                assert_eq!(v.len() as u64 % width, 0, "to_vec: {} bytes of {}", v.len(), c.dtype());
            }
            if c.encoding() == Encoding::Raw {
                if c.endian() == Endian::Little {
                    assert_eq!(&v[..], stored);
                } else {
                    let mut s = stored.to_vec();
                    for e in s.chunks_exact_mut(width as usize) {
                        e.reverse();
                    }
                    assert_eq!(v, &s);
                }
            }
        }
        (Err(e), Encoding::Raw) => {
            assert!(c.length() > DECODE_LIMIT, "raw to_vec failed: {e}");
            assert!(matches!(e.kind(), ErrorKind::DecodedTooLarge { .. }), "{e}");
        }
        (Err(_), Encoding::Zstd | Encoding::ZstdSeekable | Encoding::Unknown) => {}
    }
    let small = c.to_vec_with_limit(0);
    if let Ok(s) = &small {
        assert!(s.is_empty());
    }

    // read_into a fixed buffer.
    match c.read_into(buf) {
        Ok(n) => {
            assert!(n <= buf.len());
            if !partial_ok() {
                assert_eq!(n as u64 % width, 0, "read_into: {n} bytes of {}", c.dtype());
            }
            if let Some(d) = decoded_len {
                assert_eq!(n as u64, d, "read_into length vs decoded_len");
            }
            if let Ok(v) = &v {
                assert_eq!(&buf[..n], &v[..], "read_into and to_vec disagree");
            }
        }
        Err(e) => {
            if c.encoding() == Encoding::Raw {
                assert!(c.length() > READ_BUF as u64, "raw read_into failed: {e}");
            }
            if let Ok(v) = &v {
                assert!(v.len() > READ_BUF, "read_into failed ({e}) where to_vec gave {} bytes", v.len());
            }
        }
    }

    typed_views(c, stored, &v);

    // Digests: an independent check of the verdict.
    let verdict = c.verify_digest();
    if let Some(d) = c.digest() {
        let truth = digest_truth(d, stored);
        match (&verdict, truth) {
            (Ok(Verified::Ok), Some(false)) => panic!("digest {d:?} verified but does not match"),
            (Err(e), Some(true)) if e.kind() == ErrorKind::DigestMismatch => {
                panic!("digest {d:?} matches but was refused")
            }
            _ => {}
        }
    } else {
        assert!(matches!(verdict, Ok(Verified::NoDigest)));
    }
}

/// Zero-copy and typed reads for whatever the dtype is.
fn typed_views(c: &Component<'_>, stored: &[u8], decoded: &Result<Vec<u8>, ztensor::Error>) {
    macro_rules! view {
        ($t:ty) => {{
            let s = c.as_slice::<$t>();
            if let Ok(s) = s {
                assert_eq!(core::mem::size_of_val(s), stored.len());
                assert_eq!(s.as_ptr() as *const u8, stored.as_ptr());
                assert_eq!(c.encoding(), Encoding::Raw);
            }
            let mut out = vec![<$t>::default(); 256];
            if let Ok(n) = c.read_elements::<$t>(&mut out) {
                assert!(n <= out.len());
                if let Ok(d) = decoded {
                    assert_eq!(n * core::mem::size_of::<$t>(), d.len());
                }
            }
            if let Ok(d) = decoded {
                if d.len() <= READ_BUF {
                    let v = c.to_vec_of::<$t>().expect("to_vec_of where to_vec succeeded");
                    assert_eq!(v.len() * core::mem::size_of::<$t>(), d.len());
                }
            }
        }};
    }
    match c.dtype() {
        DType::F64 => view!(f64),
        DType::F32 => view!(f32),
        DType::I64 => view!(i64),
        DType::I32 => view!(i32),
        DType::I16 => view!(i16),
        DType::I8 => view!(i8),
        DType::U64 => view!(u64),
        DType::U32 => view!(u32),
        DType::U16 | DType::F16 | DType::BF16 => view!(u16),
        DType::U8 | DType::Bool => view!(u8),
    }
    // A mismatched type is refused.
    if c.dtype() != DType::F64 {
        assert_eq!(c.as_slice::<f64>().unwrap_err().kind(), ErrorKind::TypeMismatch);
    }
}

/// Independent digest check: `Some(matches)` for a well-formed sha256 or
/// crc32c digest string, `None` otherwise.
fn digest_truth(d: &str, stored: &[u8]) -> Option<bool> {
    let (alg, value) = d.split_once(':')?;
    match alg {
        "sha256" => {
            if value.len() != 64 || !value.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            use sha2::Digest as _;
            let h = sha2::Sha256::digest(stored);
            let hex: String = h.iter().map(|b| format!("{b:02x}")).collect();
            Some(hex.eq_ignore_ascii_case(value))
        }
        "crc32c" => {
            let hex = value.strip_prefix("0x").or_else(|| value.strip_prefix("0X"))?;
            if hex.is_empty() || hex.len() > 8 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            Some(u32::from_str_radix(hex, 16).ok()? == crc32c_bitwise(stored))
        }
        _ => None,
    }
}

/// CRC-32C, bit by bit (independent of the library's table version).
pub fn crc32c_bitwise(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0x82f6_3b78 } else { crc >> 1 };
        }
    }
    !crc
}

// ====================================================================
// zstd frame builders
// ====================================================================

/// A zstd frame (single segment, declared content size) holding `content`
/// in raw blocks.
pub fn zstd_raw_frame(content: &[u8]) -> Vec<u8> {
    let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0xe0];
    f.extend((content.len() as u64).to_le_bytes());
    let mut chunks: Vec<&[u8]> = content.chunks(128 << 10).collect();
    if chunks.is_empty() {
        chunks.push(&[]);
    }
    let last = chunks.len() - 1;
    for (i, c) in chunks.iter().enumerate() {
        let h = (c.len() as u32) << 3 | (i == last) as u32; // type 0: raw
        f.extend(&h.to_le_bytes()[..3]);
        f.extend_from_slice(c);
    }
    f
}

/// A zstd frame of `count` copies of `byte` in RLE blocks, declaring `declared` bytes.
pub fn zstd_rle_frame(byte: u8, count: u64, declared: u64) -> Vec<u8> {
    let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0xe0];
    f.extend(declared.to_le_bytes());
    let mut left = count;
    loop {
        let n = left.min(128 << 10);
        left -= n;
        let h = (n as u32) << 3 | 1 << 1 | (left == 0) as u32; // type 1: RLE
        f.extend(&h.to_le_bytes()[..3]);
        f.push(byte);
        if left == 0 {
            return f;
        }
    }
}
