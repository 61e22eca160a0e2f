//! Digests of stored bytes: `sha256:<hex>` and `crc32c:0x<hex>`.

use crate::error::{Error, ErrorKind, Result};

mod stream;

pub(crate) use stream::Hasher;

/// A parsed digest string: v1.x's (over a component's stored bytes) and
/// v2's (§3.4: over a part's decoded bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Digest<'a> {
    /// SHA-256 (v1.x and v2).
    Sha256([u8; 32]),
    /// CRC-32C, Castagnoli (v1.x).
    Crc32c(u32),
    /// XXH3-64, seed 0 (v2).
    Xxh3(u64),
    /// An algorithm this library does not know: cannot be verified.
    Unknown {
        /// The algorithm's name.
        algorithm: &'a str,
    },
}

/// Outcome of checking a component's digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verified {
    /// The digest matches.
    Ok,
    /// The component has no digest.
    NoDigest,
    /// The algorithm is unknown, so nothing could be checked.
    Unverifiable,
}

impl<'a> Digest<'a> {
    /// Parse `algorithm:value`. Hex is case-insensitive; `crc32c` takes a `0x` prefix.
    pub fn parse(s: &'a str) -> Result<Self> {
        Self::read(s).ok_or_else(|| Error::new(ErrorKind::BadDigest))
    }

    /// [`Digest::parse`] without an `Error` (`None`: malformed).
    pub(crate) fn read(s: &'a str) -> Option<Self> {
        let mut w = [0u32; 8];
        Some(match decode(s, &mut w)? {
            8 => Digest::Sha256(be_bytes(w)),
            1 => Digest::Crc32c(w[7]),
            // (The text before the colon, which decode found.)
            _ => Digest::Unknown { algorithm: s.split(':').next().unwrap_or(s) },
        })
    }

    /// Parse a v2 digest (§3.4): `<algorithm>:<lowercase hex>`. The
    /// registered algorithms (`xxh3`, `sha256`) need their exact length;
    /// others a non-empty `[a-z0-9_-]` name and even-length hex. `None`:
    /// malformed.
    // (With `alloc`, inline in its few callers: the v2 pass reads one
    // per part, and builds it in place.)
    #[cfg_attr(feature = "alloc", inline(always))]
    pub fn parse_v2(s: &'a str) -> Option<Digest<'a>> {
        // The xxh3 digest every canonical part carries, by a table.
        if let Some(h) = s.as_bytes().strip_prefix(b"xxh3:").filter(|h| h.len() == 16) {
            let (mut v, mut any_bad) = (0u64, 0u8);
            for &c in h {
                let d = HEX[c as usize];
                any_bad |= d; // a lowercase digit has neither UPPER nor 0x80
                v = v << 4 | (d & 0xf) as u64;
            }
            return (any_bad & !0xf == 0).then_some(Digest::Xxh3(v));
        }
        let (alg, hex) = s.split_once(':')?;
        let h = hex.as_bytes();
        if h.is_empty() || h.len() % 2 != 0 || h.iter().any(|&c| HEX[c as usize] > 0xf) {
            return None;
        }
        let byte = |i: usize| HEX[h[2 * i] as usize] << 4 | HEX[h[2 * i + 1] as usize];
        match alg {
            "sha256" if h.len() == 64 => Some(Digest::Sha256(core::array::from_fn(byte))),
            "xxh3" | "sha256" => None,
            _ if !alg.is_empty() && alg.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_' || c == b'-') => {
                Some(Digest::Unknown { algorithm: alg })
            }
            _ => None,
        }
    }

    /// Whether this library knows the algorithm (it can be verified).
    pub fn is_known(&self) -> bool {
        self.known().is_some()
    }

    /// This digest, when its algorithm is known (then it borrows nothing).
    pub fn known(self) -> Option<Digest<'static>> {
        match self {
            Digest::Sha256(d) => Some(Digest::Sha256(d)),
            Digest::Crc32c(c) => Some(Digest::Crc32c(c)),
            Digest::Xxh3(h) => Some(Digest::Xxh3(h)),
            Digest::Unknown { .. } => None,
        }
    }

    /// The algorithm's name, as the digest text starts.
    pub fn algorithm(&self) -> &'a str {
        match *self {
            Digest::Sha256(_) => "sha256",
            Digest::Crc32c(_) => "crc32c",
            Digest::Xxh3(_) => "xxh3",
            Digest::Unknown { algorithm } => algorithm,
        }
    }

    /// The digest text as the manifests spell it, as the reference
    /// implementations write it: `crc32c:0x` and 8 uppercase hex digits,
    /// `sha256:` and 64 lowercase, `xxh3:` and 16 lowercase (an unknown
    /// algorithm: its name alone; no writer records one).
    #[cfg(feature = "alloc")]
    pub fn text(&self) -> alloc::string::String {
        match self {
            Digest::Crc32c(c) => alloc::format!("crc32c:0x{c:08X}"),
            Digest::Sha256(d) => alloc::format!("sha256:{}", hex::encode(d)),
            Digest::Xxh3(h) => alloc::format!("xxh3:{h:016x}"),
            Digest::Unknown { algorithm } => (*algorithm).into(),
        }
    }

    /// Whether `bytes` match this digest; `None` for an unknown algorithm.
    pub fn matches(&self, bytes: &[u8]) -> Option<bool> {
        match self {
            Digest::Sha256(want) => Some(sha256(bytes) == *want),
            Digest::Crc32c(want) => Some(crc32c(bytes) == *want),
            Digest::Xxh3(want) => Some(crate::xxh3::xxh3_64(bytes) == *want),
            Digest::Unknown { .. } => None,
        }
    }
}

/// Hex digit values, the one table of both generations' digests: an
/// uppercase digit's value has [`UPPER`] added (v1.x reads either case, v2
/// lowercase only, §3.4); 0xff for every other byte.
const HEX: [u8; 256] = {
    let mut t = [0xffu8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = UPPER | (10 + i as u8);
        i += 1;
    }
    t
};

/// The mark of an uppercase digit in [`HEX`].
const UPPER: u8 = 0x10;

/// `algorithm:value` with the value's hex digits decoded into the end of
/// `out` (big-endian words): the digest's width in words (8 for sha256, 1
/// for crc32c, 0 for an unknown algorithm, which [`Digest::read`] names);
/// `None` when malformed. By position, not `split_once`: no char searcher
/// in firmware; over bytes (`:` is ASCII: no char boundary to check); hex
/// by [`HEX`], no `hex` crate there.
fn decode(s: &str, out: &mut [u32; 8]) -> Option<usize> {
    let b = s.as_bytes();
    let colon = b.iter().position(|&c| c == b':')?;
    let (alg, value) = (b.get(..colon)?, b.get(colon + 1..)?);
    let (digits, n) = if alg == b"sha256" {
        (value, 8)
    } else if alg == b"crc32c" {
        match value {
            [b'0', b'x' | b'X', rest @ ..] => (rest, 1),
            _ => return None,
        }
    } else if alg.is_empty() {
        return None;
    } else {
        return Some(0);
    };
    if digits.is_empty() || digits.len() > 8 * n || n == 8 && digits.len() != 64 {
        return None;
    }
    // Right-aligned from the last word (`% 8`: no bounds check, i being
    // below 64).
    for (i, &c) in digits.iter().rev().enumerate() {
        let d = HEX[c as usize];
        if d == 0xff {
            return None;
        }
        out[7 - i / 8 % 8] |= ((d & 0xf) as u32) << (4 * (i % 8));
    }
    Some(n)
}

/// Whether `bytes` match the digest `s` (as [`Digest::read`] reads it),
/// without building a [`Digest`]: `None` when malformed, `Some(None)` for
/// an unknown algorithm. The compact reader's check.
pub(crate) fn check(s: &str, bytes: &[u8]) -> Option<Option<bool>> {
    let mut want = [0u32; 8];
    Some(match decode(s, &mut want)? {
        0 => None,
        8 => {
            let mut got = [0; 8];
            sha256_into(bytes, &mut got);
            Some(got == want)
        }
        _ => Some(crc32c(bytes) == want[7]),
    })
}

/// SHA-256 of `bytes`.
pub(crate) fn sha256(bytes: &[u8]) -> [u8; 32] {
    let mut words = [0; 8];
    sha256_into(bytes, &mut words);
    be_bytes(words)
}

/// Words as big-endian bytes.
fn be_bytes(words: [u32; 8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (o, w) in out.chunks_exact_mut(4).zip(words) {
        o.copy_from_slice(&w.to_be_bytes());
    }
    out
}

/// SHA-256 of `bytes` in one call, as its eight state words, into
/// `state` (the caller's: the no-heap build's check compares them where
/// they are, no copy returned): the compression function on the whole
/// blocks, then the padded tail (no streaming buffer: less code).
fn sha256_into(bytes: &[u8], state: &mut [u32; 8]) {
    // The initial state copied from one table (not eight literal loads).
    static H: [u32; 8] =
        [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    *state = H;
    // The tail and 0x80 (at most 64 bytes), zeros and the length in bits
    // at the end of the first block or of a second.
    let blocks = bytes.chunks_exact(64);
    let rest = blocks.remainder();
    let mut tail = [0u8; 128];
    for (t, &b) in tail.iter_mut().zip(rest) {
        *t = b;
    }
    tail[rest.len()] = 0x80;
    let n = if rest.len() < 56 { 64 } else { 128 };
    tail[n - 8..n].copy_from_slice(&((bytes.len() as u64) * 8).to_be_bytes());
    // (Two loops, not a chain of the two: no chain state in firmware.)
    let mut block = |b: &[u8]| {
        #[cfg(feature = "alloc")]
        sha2::compress256(state, core::slice::from_ref(sha2::digest::generic_array::GenericArray::from_slice(b)));
        #[cfg(not(feature = "alloc"))]
        compress(state, b);
    };
    blocks.for_each(&mut block);
    let (first, second) = tail.split_at(64);
    block(first);
    if n == 128 {
        block(second);
    }
}

/// The SHA-256 round constants.
#[cfg_attr(feature = "alloc", allow(dead_code))]
const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
    0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
    0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
    0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2,
];

/// The SHA-256 compression of one 64-byte block: the no-heap (firmware)
/// build's, in one rolled loop whose message schedule is a ring of 16
/// words (sha2's compact one keeps all 64 words; the `alloc` builds use
/// sha2's). Out of line: fewer registers spilled in its caller's frame.
#[cfg_attr(feature = "alloc", allow(dead_code))]
#[inline(never)]
fn compress(state: &mut [u32; 8], block: &[u8]) {
    let mut w = [0u32; 16];
    let mut s = *state;
    for i in 0..64 {
        // The block's words in the first 16 rounds (read as they are
        // needed: no loop of their own), then the schedule.
        w[i % 16] = match block.get(4 * i..4 * i + 4) {
            Some(&[a, b, c, d]) if i < 16 => u32::from_be_bytes([a, b, c, d]),
            _ => {
                let (w1, w14) = (w[(i + 1) % 16], w[(i + 14) % 16]);
                let s0 = w1.rotate_right(7) ^ w1.rotate_right(18) ^ w1 >> 3;
                let s1 = w14.rotate_right(17) ^ w14.rotate_right(19) ^ w14 >> 10;
                w[i % 16].wrapping_add(s0).wrapping_add(w[(i + 9) % 16]).wrapping_add(s1)
            }
        };
        let [a, b, c, d, e, f, g, h] = s;
        let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
        let ch = (e & f) ^ (!e & g);
        let t1 = h.wrapping_add(s1).wrapping_add(ch).wrapping_add(K[i]).wrapping_add(w[i % 16]);
        let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
        let maj = (a & b) ^ (a & c) ^ (b & c);
        s = [t1.wrapping_add(s0).wrapping_add(maj), a, b, c, d.wrapping_add(t1), e, f, g];
    }
    for (x, y) in state.iter_mut().zip(s) {
        *x = x.wrapping_add(y);
    }
}

/// CRC-32C (Castagnoli, reflected, as in iSCSI / the zTensor reference) of `bytes`.
pub fn crc32c(bytes: &[u8]) -> u32 {
    let mut c = Crc32c::new();
    c.update(bytes);
    c.finish()
}

/// Incremental CRC-32C: the `crc-fast` crate (carry-less multiplication
/// where the CPU has it, found at run time) with `std`, the `crc` crate's one
/// 256-entry table (1 KiB) with `alloc` only, and a 16-entry table
/// (64 bytes; slicing-by-16 would take 16 KiB) in the no-heap build.
#[derive(Clone, Copy, Debug)]
pub struct Crc32c(u32);

impl Default for Crc32c {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(all(feature = "alloc", not(feature = "std")))]
static CASTAGNOLI: crc::Crc<u32, crc::Table<1>> = crc::Crc::<u32, crc::Table<1>>::new(&crc::CRC_32_ISCSI);

/// CRC-32C four bits at a time through a 16-entry table (64 bytes of flash
/// instead of 1 KiB): the no-heap (firmware) build's CRC. Takes and gives
/// the finished CRC, so it resumes like `crc32c_append`.
#[cfg_attr(feature = "alloc", allow(dead_code))]
fn crc32c_nibbles(crc: u32, bytes: &[u8]) -> u32 {
    const POLY: u32 = 0x82F6_3B78; // Castagnoli, reflected
    const T: [u32; 16] = {
        let mut t = [0u32; 16];
        let mut i = 0;
        while i < 16 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 4 {
                c = if c & 1 != 0 { (c >> 1) ^ POLY } else { c >> 1 };
                k += 1;
            }
            t[i] = c;
            i += 1;
        }
        t
    };
    let mut c = !crc;
    for &b in bytes {
        c ^= b as u32;
        c = (c >> 4) ^ T[(c & 15) as usize];
        c = (c >> 4) ^ T[(c & 15) as usize];
    }
    !c
}

impl Crc32c {
    /// A CRC over no bytes yet.
    pub const fn new() -> Self {
        Crc32c(0)
    }

    /// Feed more bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        #[cfg(feature = "std")]
        {
            // (Resumed from the register: the finished CRC inverted.)
            let mut d = crc_fast::Digest::new_with_init_state(crc_fast::CrcAlgorithm::Crc32Iscsi, (!self.0).into());
            d.update(bytes);
            self.0 = d.finalize() as u32;
        }
        #[cfg(not(feature = "alloc"))]
        {
            self.0 = crc32c_nibbles(self.0, bytes);
        }
        #[cfg(all(feature = "alloc", not(feature = "std")))]
        {
            // Resume from the CRC so far: its register is the CRC inverted,
            // which `crc` takes as an initial value in unreflected form.
            let mut d = CASTAGNOLI.digest_with_initial((!self.0).reverse_bits());
            d.update(bytes);
            self.0 = d.finalize();
        }
    }

    /// Copy `src` into `dst` (the same length) and feed its bytes, a piece
    /// at a time: each piece is fed right after its copy, from the CPU's
    /// cache (a copy and its CRC in one pass over memory).
    pub(crate) fn copy_update(&mut self, src: &[u8], dst: &mut [u8]) {
        assert_eq!(src.len(), dst.len(), "copy_update: lengths differ");
        const PIECE: usize = 256 * 1024;
        for (s, d) in src.chunks(PIECE).zip(dst.chunks_mut(PIECE)) {
            d.copy_from_slice(s);
            self.update(d);
        }
    }

    /// The CRC of everything fed so far.
    pub const fn finish(&self) -> u32 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::format;

    #[test]
    fn sha256_matches_sha2_at_every_tail_length() {
        use sha2::Digest as _;
        let data: [u8; 300] = core::array::from_fn(|i| (i * 7 + 3) as u8);
        for n in 0..data.len() {
            assert_eq!(sha256(&data[..n])[..], sha2::Sha256::digest(&data[..n])[..], "length {n}");
        }
    }

    #[test]
    fn rolled_compression_equals_sha2s() {
        use sha2::digest::generic_array::GenericArray;
        let mut mine = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
        let mut theirs = mine;
        for i in 0..200usize {
            let block: [u8; 64] = core::array::from_fn(|j| (i * 61 + j * j * 7 + 13) as u8);
            compress(&mut mine, &block);
            sha2::compress256(&mut theirs, &[*GenericArray::from_slice(&block)]);
            assert_eq!(mine, theirs, "block {i}");
        }
    }

    #[test]
    fn nibble_table_crc_equals_crc32c_and_resumes() {
        assert_eq!(crc32c_nibbles(0, b"123456789"), 0xe306_9283);
        let data: [u8; 300] = core::array::from_fn(|i| (i * 131 % 251) as u8);
        for n in [0, 1, 7, 64, 299, 300] {
            assert_eq!(crc32c_nibbles(0, &data[..n]), crc32c(&data[..n]), "n = {n}");
            for cut in [0, n / 3, n] {
                let first = crc32c_nibbles(0, &data[..cut]);
                assert_eq!(crc32c_nibbles(first, &data[cut..n]), crc32c(&data[..n]), "n = {n}, cut = {cut}");
            }
        }
    }

    #[test]
    fn crc32c_known_values() {
        assert_eq!(crc32c(b""), 0);
        assert_eq!(crc32c(b"123456789"), 0xe306_9283);
        assert_eq!(crc32c(&[0u8; 32]), 0x8a91_36aa);
        // Fed in two parts, split anywhere: the same CRC.
        for at in 0..=9 {
            let mut c = Crc32c::new();
            c.update(&b"123456789"[..at]);
            c.update(&b"123456789"[at..]);
            assert_eq!(c.finish(), 0xe306_9283, "split at {at}");
        }
    }

    /// v2's digest text (§3.4): lowercase hex of the exact length for the
    /// registered algorithms, any `[a-z0-9_-]` algorithm with even-length hex.
    #[test]
    fn parses_v2_digests() {
        let (x, s) = ("0123456789abcdef", "ab".repeat(32));
        assert_eq!(Digest::parse_v2(&format!("xxh3:{x}")), Some(Digest::Xxh3(0x0123_4567_89ab_cdef)));
        assert_eq!(Digest::parse_v2(&format!("sha256:{s}")), Some(Digest::Sha256([0xab; 32])));
        assert_eq!(Digest::parse_v2("blake3_x-1:00ff"), Some(Digest::Unknown { algorithm: "blake3_x-1" }));
        assert_eq!(Digest::parse_v2("crc32c:0056bd19"), Some(Digest::Unknown { algorithm: "crc32c" }));
        let upper = format!("xxh3:{}", x.to_uppercase());
        let bad = ["xxh3:0123", &upper, "sha256:ab", "md5:abc", "MD5:ab", ":ab", "md5:", "md5:gg", "xxh3", "crc32c:0x0056BD19"];
        for b in bad {
            assert_eq!(Digest::parse_v2(b), None, "{b}");
        }
    }

    /// The one hex table: every byte's digit value as `to_digit(16)` says,
    /// uppercase digits marked.
    #[test]
    fn hex_table_is_the_digits_of_both_cases() {
        for c in 0..=255u8 {
            let d = HEX[c as usize];
            assert_eq!((d != 0xff).then_some((d & 0xf) as u32), (c as char).to_digit(16), "{c}");
            assert_eq!(d != 0xff && d & UPPER != 0, c.is_ascii_hexdigit() && c.is_ascii_uppercase(), "{c}");
        }
    }

    #[test]
    fn parses_digests() {
        assert_eq!(Digest::parse("crc32c:0xE3069283").unwrap(), Digest::Crc32c(0xe306_9283));
        assert_eq!(Digest::parse("crc32c:0xe3069283").unwrap().matches(b"123456789"), Some(true));
        let sha = "sha256:15E2B0D3C33891EBB0F1EF609EC419420C20E320CE94C65FBC8C3312448EB225";
        assert_eq!(Digest::parse(sha).unwrap().matches(b"123456789"), Some(true));
        assert_eq!(Digest::parse("md5:abc").unwrap(), Digest::Unknown { algorithm: "md5" });
        // The algorithm ends at the first colon, whatever its characters.
        assert_eq!(Digest::parse("é€:a:b").unwrap(), Digest::Unknown { algorithm: "é€" });
        assert_eq!(Digest::parse("sha2560:ab").unwrap(), Digest::Unknown { algorithm: "sha2560" });
        assert_eq!((check("md5:abc", b""), check("crc32c:0xe3069283", b"123456789")), (Some(None), Some(Some(true))));
        assert_eq!((check("crc32c:0xe3069283", b"12345678"), check("sha25:1", b""), check(":1", b"")), (Some(Some(false)), Some(None), None));
        assert_eq!(Digest::parse("crc32c:0X1").unwrap(), Digest::Crc32c(1));
        let mut want = [0u8; 32];
        want[31] = 0xab;
        assert_eq!(Digest::parse(&format!("sha256:{}AB", "0".repeat(62))).unwrap(), Digest::Sha256(want));
        let (short, long, nonhex) = (format!("sha256:{}", "a".repeat(63)), format!("sha256:{}", "a".repeat(65)), format!("sha256:{}", "g".repeat(64)));
        for bad in ["sha256", "sha256:12", "crc32c:1234", "crc32c:0x", "crc32c:0xZZ", "crc32c:0x123456789", ":ab", &short, &long, &nonhex] {
            assert_eq!(Digest::parse(bad).unwrap_err().kind(), ErrorKind::BadDigest, "{bad}");
        }
    }
}
