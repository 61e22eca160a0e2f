//! XXH3-64 (default secret, seed 0) in one call, in portable Rust with no
//! SIMD: the no-heap (firmware) build's, small rather than fast (the
//! manifest check at open, §2, and `zt_verify`'s part digests). The same
//! steps as the reference `XXH3_64bits`: 0-16, 17-128 and 129-240 bytes,
//! then the long hash (stripes of 64 bytes, blocks of 16 stripes).

use super::params::{P32_1, P32_2, P32_3, P64_1, P64_2, P64_3, P64_4, P64_5, SECRET, STRIPE, STRIPES_PER_BLOCK};

/// The little-endian word at `at` (callers stay in bounds: no panic path).
fn r64(b: &[u8], at: usize) -> u64 {
    let mut w = [0; 8];
    if let Some(s) = b.get(at..at + 8) {
        w.copy_from_slice(s);
    }
    u64::from_le_bytes(w)
}

fn r32(b: &[u8], at: usize) -> u64 {
    let mut w = [0; 4];
    if let Some(s) = b.get(at..at + 4) {
        w.copy_from_slice(s);
    }
    u32::from_le_bytes(w) as u64
}

/// The 128-bit product of `a` and `b`, its halves xored, from 32-bit
/// products (the reference's portable `XXH_mult64to128`: no 128-bit
/// multiply routine on 32-bit targets).
fn fold(a: u64, b: u64) -> u64 {
    let (al, ah, bl, bh) = (a & 0xffff_ffff, a >> 32, b & 0xffff_ffff, b >> 32);
    let (ll, lh, hl, hh) = (al * bl, al * bh, ah * bl, ah * bh);
    let cross = (ll >> 32) + (lh & 0xffff_ffff) + hl;
    let upper = (lh >> 32) + (cross >> 32) + hh;
    (cross << 32 | ll & 0xffff_ffff) ^ upper
}

fn avalanche(mut h: u64) -> u64 {
    h ^= h >> 37;
    h = h.wrapping_mul(0x1656_6791_9E37_79F9);
    h ^ h >> 32
}

/// XXH64's avalanche (the reference's `XXH64_avalanche`).
fn avalanche64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(P64_2);
    h ^= h >> 29;
    h = h.wrapping_mul(P64_3);
    h ^ h >> 32
}

/// 16 bytes of `b` at `at` against 16 of the secret at `s`.
fn mix16(b: &[u8], at: usize, s: usize) -> u64 {
    fold(r64(b, at) ^ r64(&SECRET, s), r64(b, at + 8) ^ r64(&SECRET, s + 8))
}

/// One 64-byte stripe of `b` at `at` into the accumulators, with the
/// secret from `s`.
fn accumulate(acc: &mut [u64; 8], b: &[u8], at: usize, s: usize) {
    for i in 0..8 {
        let v = r64(b, at + 8 * i);
        let k = v ^ r64(&SECRET, s + 8 * i);
        acc[i ^ 1] = acc[i ^ 1].wrapping_add(v);
        acc[i] = acc[i].wrapping_add((k & 0xffff_ffff) * (k >> 32));
    }
}

/// The inputs over 240 bytes.
fn long(b: &[u8]) -> u64 {
    let len = b.len();
    let mut acc = [P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1];
    let block = STRIPE * STRIPES_PER_BLOCK;
    let blocks = (len - 1) / block;
    for n in 0..blocks {
        for k in 0..STRIPES_PER_BLOCK {
            accumulate(&mut acc, b, n * block + k * STRIPE, 8 * k);
        }
        // The scramble, with the secret's last 64 bytes.
        for (i, a) in acc.iter_mut().enumerate() {
            *a = (*a ^ *a >> 47 ^ r64(&SECRET, SECRET.len() - STRIPE + 8 * i)).wrapping_mul(P32_1);
        }
    }
    // The last partial block's whole stripes, then the last 64 bytes.
    for k in 0..(len - 1 - blocks * block) / STRIPE {
        accumulate(&mut acc, b, blocks * block + k * STRIPE, 8 * k);
    }
    accumulate(&mut acc, b, len - STRIPE, SECRET.len() - STRIPE - 7);
    let mut h = (len as u64).wrapping_mul(P64_1);
    for i in 0..4 {
        h = h.wrapping_add(fold(acc[2 * i] ^ r64(&SECRET, 11 + 16 * i), acc[2 * i + 1] ^ r64(&SECRET, 19 + 16 * i)));
    }
    avalanche(h)
}

/// XXH3-64 of `b` (seed 0).
pub(crate) fn xxh3_64(b: &[u8]) -> u64 {
    let len = b.len();
    let n = len as u64;
    match len {
        0 => avalanche64(r64(&SECRET, 56) ^ r64(&SECRET, 64)),
        1..=3 => {
            let c = (b[0] as u64) << 16 | (b[len >> 1] as u64) << 24 | b[len - 1] as u64 | n << 8;
            avalanche64(c ^ (r32(&SECRET, 0) ^ r32(&SECRET, 4)))
        }
        4..=8 => {
            let v = r32(b, len - 4) + (r32(b, 0) << 32);
            // The reference's rrmxmx.
            let mut h = v ^ (r64(&SECRET, 8) ^ r64(&SECRET, 16));
            h ^= h.rotate_left(49) ^ h.rotate_left(24);
            h = h.wrapping_mul(0x9FB2_1C65_1E98_DF25);
            h ^= (h >> 35).wrapping_add(n);
            h = h.wrapping_mul(0x9FB2_1C65_1E98_DF25);
            h ^ h >> 28
        }
        9..=16 => {
            let lo = r64(b, 0) ^ (r64(&SECRET, 24) ^ r64(&SECRET, 32));
            let hi = r64(b, len - 8) ^ (r64(&SECRET, 40) ^ r64(&SECRET, 48));
            avalanche(n.wrapping_add(lo.swap_bytes()).wrapping_add(hi).wrapping_add(fold(lo, hi)))
        }
        17..=128 => {
            // Pairs of 16 bytes from both ends, inwards, as far as the length reaches.
            let mut h = n.wrapping_mul(P64_1);
            for i in 0..(len - 1) / 32 + 1 {
                h = h.wrapping_add(mix16(b, 16 * i, 32 * i)).wrapping_add(mix16(b, len - 16 * (i + 1), 32 * i + 16));
            }
            avalanche(h)
        }
        129..=240 => {
            let mut h = n.wrapping_mul(P64_1);
            for i in 0..8 {
                h = h.wrapping_add(mix16(b, 16 * i, 16 * i));
            }
            h = avalanche(h);
            for i in 8..len / 16 {
                h = h.wrapping_add(mix16(b, 16 * i, 16 * (i - 8) + 3));
            }
            avalanche(h.wrapping_add(mix16(b, len - 16, 136 - 17)))
        }
        _ => long(b),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    #[cfg_attr(miri, ignore = "safe code only; 4,200 lengths take half an hour interpreted")]
    fn equals_xxhash_rusts_at_every_length_to_4200_and_past_blocks() {
        let mut data = [0u8; 70_000];
        for (i, d) in data.iter_mut().enumerate() {
            *d = ((i as u32).wrapping_mul(2_654_435_761) >> 13) as u8;
        }
        let lens = (0..4_200).chain([8_191, 8_192, 8_193, 65_535, 65_536, 70_000]);
        for n in lens {
            assert_eq!(super::xxh3_64(&data[..n]), xxhash_rust::xxh3::xxh3_64(&data[..n]), "length {n}");
        }
    }
}
