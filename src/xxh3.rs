//! XXH3-64 (default secret, seed 0) of bytes in memory: the writer's
//! digests (hashed a chunk at a time just before each chunk is written) and
//! verify's. Uses AVX2 when the CPU has it (detected at run time;
//! `xxhash-rust` picks its SIMD at compile time, SSE2 on a default x86-64
//! build) for inputs over 240 bytes (the XXH3 long-hash path). Either way
//! the result is `xxhash_rust::xxh3::xxh3_64`'s (tested against it).

#![allow(unsafe_code)] // AVX2 intrinsics, behind run-time detection

// The no-heap build's one-shot hash (tested against xxhash-rust's on the host).
#[cfg(any(not(feature = "std"), test))]
mod portable;
#[cfg(any(not(feature = "std"), test, all(feature = "std", target_arch = "x86_64")))]
mod params;

/// XXH3-64 of `b`.
pub(crate) fn xxh3_64(b: &[u8]) -> u64 {
    // Without std (firmware): the one-shot hash, which the v2 container's
    // manifest check (§2) links anyway, rather than a second, streaming one.
    #[cfg(not(feature = "std"))]
    return one_shot(b);
    #[cfg(feature = "std")]
    match hash_then::<core::convert::Infallible>(b, 1 << 20, |_| Ok(())) {
        Ok(h) => h,
        Err(never) => match never {},
    }
}

/// XXH3-64 of `b` in one call: xxhash-rust's with `std`; without, the
/// small portable one (firmware), which links no second implementation.
pub(crate) fn one_shot(b: &[u8]) -> u64 {
    #[cfg(not(feature = "std"))]
    return portable::xxh3_64(b);
    #[cfg(feature = "std")]
    xxhash_rust::xxh3::xxh3_64(b)
}

/// XXH3-64 of `b`, calling `f` on each `chunk`-sized piece of it (the last
/// may be shorter) in order, right after hashing it. `chunk` is a multiple
/// of 1024 (the XXH3 block). (The writer's, hence `alloc`.)
#[cfg(feature = "alloc")]
pub(crate) fn hash_then<E>(b: &[u8], chunk: usize, mut f: impl FnMut(&[u8]) -> Result<(), E>) -> Result<u64, E> {
    debug_assert!(chunk % BLOCK == 0 && chunk > 0);
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if b.len() > MID_MAX && std::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is present (checked just above).
        let mut h = unsafe { avx2::Long::new() };
        for (i, c) in b.chunks(chunk).enumerate() {
            // SAFETY: AVX2 is present (checked just above); `b.len() > 240`.
            unsafe { h.update::<false>(b, i * chunk + c.len(), core::ptr::null_mut()) };
            f(c)?;
        }
        // SAFETY: as above.
        return Ok(unsafe { h.digest(b.len()) });
    }
    let mut h = xxhash_rust::xxh3::Xxh3Default::new();
    for c in b.chunks(chunk) {
        h.update(c);
        f(c)?;
    }
    Ok(h.digest())
}

/// XXH3-64 of `buf` as `fill` writes it: `fill(offset, piece)` fills each
/// `chunk`-sized piece in order (the last may be shorter), which is hashed
/// right after, while it is in the CPU's cache (a read and its digest in
/// one pass over the bytes). `chunk` is a multiple of 1024.
pub(crate) fn fill_then_hash<E>(
    buf: &mut [u8],
    chunk: usize,
    mut fill: impl FnMut(usize, &mut [u8]) -> Result<(), E>,
) -> Result<u64, E> {
    debug_assert!(chunk % BLOCK == 0 && chunk > 0);
    let len = buf.len();
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if len > MID_MAX && std::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is present (checked just above).
        let mut h = unsafe { avx2::Long::new() };
        for at in (0..len).step_by(chunk) {
            let end = len.min(at + chunk);
            fill(at, &mut buf[at..end])?;
            // SAFETY: AVX2 is present (checked just above); `buf.len() > 240`.
            unsafe { h.update::<false>(buf, end, core::ptr::null_mut()) };
        }
        // SAFETY: as above.
        return Ok(unsafe { h.digest(len) });
    }
    // Elsewhere: filled, then the one-shot hash (xxhash-rust's streaming
    // hasher measured slower than its one-shot one, and firmware links
    // only the one-shot one).
    for at in (0..len).step_by(chunk) {
        fill(at, &mut buf[at..len.min(at + chunk)])?;
    }
    Ok(one_shot(buf))
}

/// XXH3-64 of `src`, copied into `dst` (the same length) on the way: with
/// AVX2, each 32 bytes are stored from the register that hashes them (one
/// pass over the bytes); elsewhere [`fill_then_hash`] copying 64 KiB pieces.
pub(crate) fn copy_then_hash(src: &[u8], dst: &mut [u8]) -> u64 {
    assert_eq!(src.len(), dst.len(), "copy_then_hash: lengths differ");
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if src.len() > MID_MAX && std::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is present (checked just above); `src.len() > 240`;
        // `dst` is a distinct `&mut` of `src.len()` bytes.
        unsafe {
            let mut h = avx2::Long::new();
            h.update::<true>(src, src.len(), dst.as_mut_ptr());
            return h.digest(src.len());
        }
    }
    let copied = fill_then_hash::<core::convert::Infallible>(dst, 64 * 1024, |at, piece| {
        piece.copy_from_slice(&src[at..at + piece.len()]);
        Ok(())
    });
    match copied {
        Ok(h) => h,
        Err(never) => match never {},
    }
}

/// Longest input of the short and mid-size paths.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
const MID_MAX: usize = 240;
/// Bytes per block: 16 stripes of 64.
const BLOCK: usize = 1024;

#[cfg(all(feature = "std", target_arch = "x86_64"))]
mod avx2 {
    use super::params::{P32_1, P32_2, P32_3, P64_1, P64_2, P64_3, P64_4, P64_5, SECRET, STRIPE, STRIPES_PER_BLOCK};
    use super::BLOCK;
    use core::arch::x86_64::*;

    /// How far ahead of the stripe being hashed to prefetch (the reference's 384).
    const PREFETCH_DIST: usize = 1024;
    const SECRET_LEN: usize = SECRET.len();
    const INITIAL: [u64; 8] = [P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1];


    /// One 64-byte stripe into the accumulators, and, with `COPY`, to `copy`
    /// as well. (A constant, so that the hash alone compiles to no test.)
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn accumulate<const COPY: bool>(
        acc: &mut [__m256i; 2],
        stripe: *const u8,
        secret: *const u8,
        copy: *mut u8,
    ) {
        for (i, a) in acc.iter_mut().enumerate() {
            let d = _mm256_loadu_si256(stripe.add(32 * i).cast());
            if COPY {
                _mm256_storeu_si256(copy.add(32 * i).cast(), d);
            }
            let k = _mm256_loadu_si256(secret.add(32 * i).cast());
            let dk = _mm256_xor_si256(d, k);
            // Low 32 bits times high 32 bits of each lane; lanes swapped pairwise.
            let prod = _mm256_mul_epu32(dk, _mm256_shuffle_epi32::<0b00_11_00_01>(dk));
            let sum = _mm256_add_epi64(*a, _mm256_shuffle_epi32::<0b01_00_11_10>(d));
            *a = _mm256_add_epi64(prod, sum);
        }
    }

    /// The end-of-block scramble.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn scramble(acc: &mut [__m256i; 2], secret: *const u8) {
        let p = _mm256_set1_epi32(P32_1 as i32);
        for (i, a) in acc.iter_mut().enumerate() {
            let d = _mm256_xor_si256(*a, _mm256_srli_epi64::<47>(*a));
            let dk = _mm256_xor_si256(d, _mm256_loadu_si256(secret.add(32 * i).cast()));
            let lo = _mm256_mul_epu32(dk, p);
            let hi = _mm256_mul_epu32(_mm256_shuffle_epi32::<0b00_11_00_01>(dk), p);
            *a = _mm256_add_epi64(lo, _mm256_slli_epi64::<32>(hi));
        }
    }

    fn read64(s: &[u8], at: usize) -> u64 {
        u64::from_le_bytes(s[at..at + 8].try_into().unwrap_or([0; 8]))
    }

    fn fold(a: u64, b: u64) -> u64 {
        let p = a as u128 * b as u128;
        p as u64 ^ (p >> 64) as u64
    }

    /// The long-input (> 240 bytes) XXH3 state over one buffer hashed from
    /// its start: `update` takes the blocks each newly available end adds.
    pub(super) struct Long {
        acc: [__m256i; 2],
        /// Whole blocks hashed so far.
        block: usize,
    }

    impl Long {
        /// SAFETY: the CPU has AVX2.
        #[target_feature(enable = "avx2")]
        pub(super) unsafe fn new() -> Long {
            let acc = [_mm256_loadu_si256(INITIAL.as_ptr().cast()), _mm256_loadu_si256(INITIAL.as_ptr().add(4).cast())];
            Long { acc, block: 0 }
        }

        /// Hash the whole blocks within `b[..end]` not hashed yet (all but
        /// the last bytes of `b`), and, when `end == b.len()`, the rest.
        /// With `COPY`, the bytes hashed are stored to `copy` too, at their
        /// offsets in `b`, from the registers that hash them (a copy and its
        /// hash in one pass); without, `copy` is not used.
        ///
        /// SAFETY: the CPU has AVX2; `b.len() > 240`; `end` grows from call
        /// to call over the same `b`; with `COPY`, `copy` is writable for
        /// `b.len()` bytes and does not overlap `b`.
        #[target_feature(enable = "avx2")]
        pub(super) unsafe fn update<const COPY: bool>(&mut self, b: &[u8], end: usize, copy: *mut u8) {
            let (len, s, acc) = (b.len(), SECRET.as_ptr(), &mut self.acc);
            let to = |at: usize| copy.wrapping_add(at);
            // Whole blocks, all but the last bytes: `(len - 1) / BLOCK` of them.
            let blocks = (len - 1) / BLOCK;
            while self.block < blocks && (self.block + 1) * BLOCK <= end {
                let p = b.as_ptr().add(self.block * BLOCK);
                for k in 0..STRIPES_PER_BLOCK {
                    // Prefetch ahead as the reference XXH3 does (an address
                    // past the end is only a hint: prefetches never fault).
                    _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(k * STRIPE + PREFETCH_DIST).cast());
                    accumulate::<COPY>(acc, p.add(k * STRIPE), s.add(k * 8), to(self.block * BLOCK + k * STRIPE));
                }
                scramble(acc, s.add(SECRET_LEN - STRIPE));
                self.block += 1;
            }
            if end == len {
                // The last partial block's whole stripes, then the last 64 bytes.
                let p = b.as_ptr().add(blocks * BLOCK);
                // (The stripes and the last 64 bytes cover every byte left.)
                for k in 0..((len - 1) - blocks * BLOCK) / STRIPE {
                    accumulate::<COPY>(acc, p.add(k * STRIPE), s.add(k * 8), to(blocks * BLOCK + k * STRIPE));
                }
                accumulate::<COPY>(acc, b.as_ptr().add(len - STRIPE), s.add(SECRET_LEN - STRIPE - 7), to(len - STRIPE));
            }
        }

        /// The hash of the `len` bytes, once `update` has seen them all.
        ///
        /// SAFETY: the CPU has AVX2.
        #[target_feature(enable = "avx2")]
        pub(super) unsafe fn digest(&self, len: usize) -> u64 {
            let mut a = [0u64; 8];
            _mm256_storeu_si256(a.as_mut_ptr().cast(), self.acc[0]);
            _mm256_storeu_si256(a.as_mut_ptr().add(4).cast(), self.acc[1]);
            let mut r = (len as u64).wrapping_mul(P64_1);
            for i in 0..4 {
                r = r.wrapping_add(fold(a[2 * i] ^ read64(&SECRET, 11 + 16 * i), a[2 * i + 1] ^ read64(&SECRET, 11 + 16 * i + 8)));
            }
            // Avalanche.
            r ^= r >> 37;
            r = r.wrapping_mul(0x1656_6791_9E37_79F9);
            r ^ (r >> 32)
        }
    }
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn equals_xxh3_64_at_every_length_class_and_chunk_size() {
        // Under Miri (scripts/miri.sh, built with AVX2 so that the unsafe
        // path runs): up to 4 blocks and a stripe, interpreted.
        let len = if cfg!(miri) { 4_200 } else { 300_000 };
        let data: Vec<u8> = (0..len as u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        let lens = [0, 1, 17, 128, 240, 241, 255, 256, 1023, 1024, 1025, 1087, 1088, 2047, 2048, 2049, 4096, 4161, 65_537, 262_144, 299_999];
        for &n in lens.iter().filter(|&&n| n <= len) {
            for chunk in [1024, 4096, 256 * 1024] {
                let mut seen = Vec::new();
                let h = hash_then::<()>(&data[..n], chunk, |c| {
                    seen.extend_from_slice(c);
                    Ok(())
                })
                .unwrap();
                assert_eq!(h, xxhash_rust::xxh3::xxh3_64(&data[..n]), "len {n}, chunk {chunk}");
                assert_eq!(seen, &data[..n]);
                // Filled a piece at a time into a buffer that held other bytes.
                let mut buf = alloc::vec![0xa5u8; n];
                let h = fill_then_hash::<()>(&mut buf, chunk, |at, piece| {
                    piece.copy_from_slice(&data[at..at + piece.len()]);
                    Ok(())
                })
                .unwrap();
                assert_eq!(h, xxhash_rust::xxh3::xxh3_64(&data[..n]), "filled: len {n}, chunk {chunk}");
                assert_eq!(buf, &data[..n]);
                buf.fill(0x5a);
                assert_eq!(copy_then_hash(&data[..n], &mut buf), xxhash_rust::xxh3::xxh3_64(&data[..n]), "copied: len {n}");
                assert_eq!(buf, &data[..n], "copied: len {n}");
            }
        }
    }
}
