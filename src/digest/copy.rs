//! CRC-32C while copying (`std`): a raw v1.x part copied out of a mapping
//! and its `crc32c` digest checked in one pass over the bytes (issue 32's
//! budget for verify on read). Copying, then hashing the copy, leaves the
//! CRC instruction idle while the copy waits on memory and then makes the
//! copy wait for the CRC; here the CRC of each 16-byte piece runs between
//! its load and the next one's. The result is `crc32c::crc32c_append`'s
//! (tested against it).

#![allow(unsafe_code)] // SSE 4.2 intrinsics, behind run-time detection

/// Copy `src` into `dst` (the same length) and extend `crc` (a finished
/// CRC-32C, as `crc32c::crc32c_append` takes) over the bytes.
pub(super) fn copy_append(crc: u32, src: &[u8], dst: &mut [u8]) -> u32 {
    assert_eq!(src.len(), dst.len(), "copy_append: lengths differ");
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("sse4.2") {
        // SAFETY: the CPU has SSE 4.2 (checked just above); the lengths match.
        return unsafe { sse42::copy_append(crc, src, dst) };
    }
    dst.copy_from_slice(src);
    crc32c::crc32c_append(crc, dst)
}

#[cfg(target_arch = "x86_64")]
mod sse42 {
    use core::arch::x86_64::*;
    use std::sync::OnceLock;

    /// Bytes per lane: three lanes are hashed side by side (the CRC
    /// instruction's latency is three of its issue slots), then joined.
    const LANE: usize = 8192;

    /// What `LANE` zero bytes do to the CRC register: a linear map of its
    /// 32 bits, as four tables (one per byte of the register).
    fn lane_shift() -> &'static [[u32; 256]; 4] {
        static TABLES: OnceLock<[[u32; 256]; 4]> = OnceLock::new();
        TABLES.get_or_init(|| {
            // The register is the finished CRC inverted.
            let zeros = [0u8; LANE];
            let bit: [u32; 32] = core::array::from_fn(|i| !crc32c::crc32c_append(!(1u32 << i), &zeros));
            core::array::from_fn(|k| {
                core::array::from_fn(|b| (0..8).filter(|j| b >> j & 1 == 1).fold(0, |t, j| t ^ bit[8 * k + j]))
            })
        })
    }

    fn shift(t: &[[u32; 256]; 4], r: u32) -> u32 {
        let [b0, b1, b2, b3] = r.to_le_bytes();
        t[0][b0 as usize] ^ t[1][b1 as usize] ^ t[2][b2 as usize] ^ t[3][b3 as usize]
    }

    /// SAFETY: the CPU has SSE 4.2; `src.len() == dst.len()`.
    #[target_feature(enable = "sse4.2")]
    pub(super) unsafe fn copy_append(crc: u32, src: &[u8], dst: &mut [u8]) -> u32 {
        let t = lane_shift();
        let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
        let mut reg = u64::from(!crc);
        let mut at = 0;
        while src.len() - at >= 3 * LANE {
            // Lanes 1 and 2 start from a zero register; the map joins them:
            // the register after lane 0 then `LANE` zeros, plus lane 1's, ...
            let mut lanes = [reg, 0, 0];
            for i in (0..LANE).step_by(16) {
                for (k, r) in lanes.iter_mut().enumerate() {
                    // SAFETY: `at + 3 * LANE <= len`, so every access is
                    // within both slices (of equal length).
                    let p = at + k * LANE + i;
                    _mm_storeu_si128(d.add(p).cast(), _mm_loadu_si128(s.add(p).cast()));
                    *r = _mm_crc32_u64(*r, s.add(p).cast::<u64>().read_unaligned());
                    *r = _mm_crc32_u64(*r, s.add(p + 8).cast::<u64>().read_unaligned());
                }
            }
            let joined = shift(t, shift(t, lanes[0] as u32) ^ lanes[1] as u32) ^ lanes[2] as u32;
            reg = u64::from(joined);
            at += 3 * LANE;
        }
        dst[at..].copy_from_slice(&src[at..]);
        crc32c::crc32c_append(!(reg as u32), &dst[at..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    #[test]
    fn equals_crc32c_append_at_every_length_class() {
        let lane = 8192;
        let len = 7 * lane + 100;
        let data: Vec<u8> = (0..len as u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for n in [0, 1, 15, 16, 17, 3 * lane - 1, 3 * lane, 3 * lane + 1, 6 * lane, 6 * lane + 9, len] {
            for (start, crc) in [(0, 0), (3, 0x1234_5678)] {
                let src = &data[start..start + n.min(len - start)];
                let mut dst = std::vec![0xa5u8; src.len()];
                let got = copy_append(crc, src, &mut dst);
                assert_eq!(got, crc32c::crc32c_append(crc, src), "length {}, start {start}", src.len());
                assert_eq!(dst, src);
            }
        }
    }
}
