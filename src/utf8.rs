//! UTF-8 validation in a few hundred bytes of code: the rules of
//! `core::str::from_utf8` (Unicode's well-formed byte sequences: no
//! overlong forms, no surrogates, nothing past U+10FFFF) without its
//! 256-byte table and word-at-a-time paths, which cost firmware flash
//! (docs/embedded.md). The tests compare it with core's on every
//! sequence of up to three bytes and on random text.
#![allow(unsafe_code)] // one conversion, after validation (see `str`)

/// Whether `b` is well-formed UTF-8.
#[cfg_attr(feature = "alloc", inline)]
pub(crate) fn valid(b: &[u8]) -> bool {
    // (With `alloc`, hosts: ASCII, the usual text, checked first in the
    // caller. Firmware runs the loop alone: shorter code.)
    cfg!(feature = "alloc") && ascii(b) || sequences(b)
}

/// Whether `b` is ASCII. Names and keys are short: up to 16 bytes, by
/// two overlapping words (its first and last 4 or 8 bytes cover all of
/// it), with no branch per byte; longer text by core's check.
#[inline(always)]
fn ascii(b: &[u8]) -> bool {
    let n = b.len();
    let word = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0x80; 8]));
    let half = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap_or([0x80; 4]));
    match n {
        0..=3 => b.iter().all(u8::is_ascii),
        4..=8 => (half(0) | half(n - 4)) & 0x8080_8080 == 0,
        9..=16 => (word(0) | word(n - 8)) & 0x8080_8080_8080_8080 == 0,
        _ => b.is_ascii(),
    }
}

/// Whether `b` is well-formed UTF-8, by the loop over its sequences.
fn sequences(b: &[u8]) -> bool {
    // Continuation bytes still needed, and the range of the next one.
    let (mut need, mut lo, mut hi) = (0, 0x80, 0xbf);
    for &c in b {
        if need > 0 {
            if !(lo..=hi).contains(&c) {
                return false;
            }
            (need, lo, hi) = (need - 1, 0x80, 0xbf);
        } else if c >= 0x80 {
            // A lead byte: 1, 2 or 3 continuation bytes (each 0x80..=0xbf),
            // the first in a narrower range after E0 and F0 (no overlong
            // forms), ED (no surrogates) and F4 (nothing past U+10FFFF).
            if !(0xc2..=0xf4).contains(&c) {
                return false;
            }
            need = 1 + (c >= 0xe0) as u32 + (c >= 0xf0) as u32;
            lo = match c {
                0xe0 => 0xa0,
                0xf0 => 0x90,
                _ => 0x80,
            };
            hi = match c {
                0xed => 0x9f,
                0xf4 => 0x8f,
                _ => 0xbf,
            };
        }
    }
    need == 0
}

/// `b` as text, when it is well-formed UTF-8.
#[cfg_attr(feature = "alloc", inline)]
pub(crate) fn str(b: &[u8]) -> Option<&str> {
    if valid(b) {
        // SAFETY: `valid` accepts exactly the well-formed UTF-8 sequences
        // (the tests below compare it with `core::str::from_utf8`).
        Some(unsafe { core::str::from_utf8_unchecked(b) })
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(b: &[u8]) {
        assert_eq!(valid(b), core::str::from_utf8(b).is_ok(), "{b:02x?}");
    }

    #[test]
    #[cfg_attr(miri, ignore = "16 M sequences: too slow under Miri (the random test runs there)")]
    fn agrees_with_core_on_every_short_sequence() {
        same(&[]);
        for a in 0..=255u8 {
            same(&[a]);
            for b in 0..=255u8 {
                same(&[a, b]);
                // Three bytes: every lead of a multi-byte form, and ASCII.
                if a >= 0xc0 || a == b'a' {
                    for c in 0..=255u8 {
                        same(&[a, b, c]);
                    }
                }
            }
        }
    }

    /// The short ASCII check sees every byte: one high byte anywhere in
    /// text of any length up to past its word paths is found.
    #[test]
    fn ascii_sees_every_byte() {
        let mut b = [b'a'; 40];
        for n in 0..=b.len() {
            assert!(ascii(&b[..n]), "{n}");
            for i in 0..n {
                b[i] = 0x80;
                assert!(!ascii(&b[..n]), "{n} {i}");
                b[i] = b'a';
            }
        }
    }

    #[test]
    fn agrees_with_core_on_four_byte_forms_and_random_text() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for lead in 0xf0..=0xf7u8 {
            for b in (0x70..=0xc8u8).step_by(if cfg!(miri) { 40 } else { 3 }) {
                for c in [0x7f, 0x80, 0x9f, 0xa0, 0xbf, 0xc0] {
                    for d in [0x00, 0x7f, 0x80, 0xbf, 0xc0, 0xff] {
                        same(&[lead, b, c, d]);
                        same(&[b'x', lead, b, c, d, b'y']);
                    }
                }
            }
        }
        let mut buf = [0u8; 24];
        for _ in 0..if cfg!(miri) { 300 } else { 200_000 } {
            let r = next();
            let n = (r % 24) as usize;
            for (i, v) in buf[..n].iter_mut().enumerate() {
                let w = next();
                // Mostly plausible UTF-8 bytes, so that long valid runs occur.
                *v = if i % 5 == 0 { w as u8 } else { [0x41, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0xed, 0xbf][(w % 12) as usize] };
            }
            same(&buf[..n]);
        }
        let text = "zTensor: ünïcödé ✓ 𝄞 日本語";
        same(text.as_bytes());
        assert_eq!(str(text.as_bytes()), Some(text));
        assert_eq!(str(&[0xed, 0xa0, 0x80]), None);
    }
}
