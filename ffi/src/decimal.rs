//! Decimal digits of a `u64` without 64-bit division: on 32-bit targets
//! `n / 10` on a `u64` links a 0.9 KiB routine into the firmware.

/// The decimal digits of `n`, written at the end of `buf`.
pub(crate) fn digits(mut n: u64, buf: &mut [u8; 20]) -> &str {
    let mut i = buf.len();
    loop {
        i -= 1;
        let (q, r) = div10(n);
        buf[i] = b'0' + r;
        n = q;
        if n == 0 {
            break;
        }
    }
    // ASCII digits.
    core::str::from_utf8(&buf[i..]).unwrap_or("")
}

/// `n / 10` and `n % 10`, by 16-bit limbs in 32-bit arithmetic.
fn div10(n: u64) -> (u64, u8) {
    let (mut q, mut r) = (0u64, 0u32);
    for shift in [48, 32, 16, 0] {
        let cur = (r << 16) | ((n >> shift) & 0xffff) as u32;
        q |= u64::from(cur / 10) << shift;
        r = cur % 10;
    }
    (q, r as u8)
}

#[cfg(test)]
mod tests {
    use super::{digits, div10};

    #[test]
    fn decimal_digits_of_every_magnitude() {
        let mut cases = vec![0, 1, 9, 10, 11, 99, 100, 65535, 65536, 655359, u32::MAX as u64, u32::MAX as u64 + 1, u64::MAX - 1, u64::MAX];
        cases.extend((0..64).map(|s| 1u64 << s).chain((0..20).map(|p| 10u64.pow(p))).chain((1..20).map(|p| 10u64.pow(p) - 1)));
        for n in cases {
            assert_eq!(div10(n), (n / 10, (n % 10) as u8), "{n}");
            assert_eq!(digits(n, &mut [0; 20]), n.to_string());
        }
    }
}
