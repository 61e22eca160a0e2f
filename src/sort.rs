//! LSD radix sort on a `u64` key: O(n) passes over the data, for the large
//! sorts of the validating pass (blob spans, the name index).

use alloc::vec::Vec;

/// Below this, the standard library's sort is faster.
const SMALL: usize = 256;

/// Sort `v` by `key`, stably (the standard library's sort when small).
pub(crate) fn sort_by_key<T: Copy>(v: &mut Vec<T>, key: impl Fn(&T) -> u64) {
    if v.len() <= SMALL {
        v.sort_by_key(|t| key(t));
        return;
    }
    let mut tmp = v.clone();
    radix_by_key(v, &mut tmp, key);
}

/// Sort `v` by `key`, stably, with `tmp` (at least as long) as room: one
/// pass per byte position where the keys differ, back and forth between
/// the two, `v` holding the result at the end.
pub(crate) fn radix_by_key<T: Copy>(v: &mut [T], tmp: &mut [T], key: impl Fn(&T) -> u64) {
    let (mut or, mut and) = (0u64, u64::MAX);
    for t in v.iter() {
        let k = key(t);
        or |= k;
        and &= k;
    }
    let differ = or ^ and;
    let n = v.len();
    let (mut from, mut to) = (&mut v[..], &mut tmp[..n]);
    let mut moved = false;
    for shift in (0..64).step_by(8).filter(|&s| (differ >> s) & 0xff != 0) {
        let mut count = [0usize; 257];
        for t in from.iter() {
            count[((key(t) >> shift) & 0xff) as usize + 1] += 1;
        }
        for i in 0..256 {
            count[i + 1] += count[i];
        }
        for t in from.iter() {
            let d = ((key(t) >> shift) & 0xff) as usize;
            to[count[d]] = *t;
            count[d] += 1;
        }
        core::mem::swap(&mut from, &mut to);
        moved = !moved;
    }
    // (After an odd number of passes the result is in `tmp`.)
    if moved {
        to.copy_from_slice(from);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` keys from an xorshift generator started at `seed`, each below
    /// `modulus(i)`, with their index.
    fn keys(seed: u64, n: u32, modulus: impl Fn(u32) -> u64) -> Vec<(u64, u32)> {
        let mut x = seed;
        (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % modulus(i), i)
            })
            .collect()
    }

    #[test]
    fn sorts_like_the_standard_library() {
        let mut v = keys(0x9e37_79b9_7f4a_7c15, 5000, |i| if i % 3 == 0 { 1000 } else { u64::MAX });
        let mut want = v.clone();
        want.sort_by_key(|e| e.0); // stable
        sort_by_key(&mut v, |e| e.0);
        assert_eq!(v, want);
    }

    #[test]
    fn an_odd_number_of_passes_leaves_the_result_in_place() {
        // Keys differing in one byte (one pass) and in three (three passes).
        for modulus in [256u64, 1 << 24] {
            let mut v = keys(0x2545_f491_4f6c_dd1d, 3000, |_| modulus);
            let mut want = v.clone();
            want.sort_by_key(|e| e.0);
            let mut tmp = v.clone();
            radix_by_key(&mut v, &mut tmp, |e| e.0);
            assert_eq!(v, want, "keys below {modulus}");
        }
    }
}
