//! LSD radix sort on a `u64` key: O(n) passes over the data, for the large
//! sorts of the validating pass (blob spans, the name index).

use alloc::vec::Vec;

/// Below this, the standard library's sort is faster.
const SMALL: usize = 256;

/// Sort `v` by `key`, stably. Byte positions where every key agrees are skipped.
pub(crate) fn sort_by_key<T: Copy>(v: &mut Vec<T>, key: impl Fn(&T) -> u64) {
    if v.len() <= SMALL {
        v.sort_by_key(|t| key(t));
        return;
    }
    let (mut or, mut and) = (0u64, u64::MAX);
    for t in v.iter() {
        let k = key(t);
        or |= k;
        and &= k;
    }
    let differ = or ^ and;
    let mut tmp: Vec<T> = Vec::with_capacity(v.len());
    for byte in 0..8 {
        let shift = byte * 8;
        if (differ >> shift) & 0xff == 0 {
            continue;
        }
        let mut count = [0usize; 257];
        for t in v.iter() {
            count[((key(t) >> shift) & 0xff) as usize + 1] += 1;
        }
        for i in 0..256 {
            count[i + 1] += count[i];
        }
        tmp.clear();
        tmp.extend_from_slice(v); // placeholder contents, every slot is overwritten below
        for t in v.iter() {
            let d = ((key(t) >> shift) & 0xff) as usize;
            tmp[count[d]] = *t;
            count[d] += 1;
        }
        core::mem::swap(v, &mut tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_like_the_standard_library() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut v: Vec<(u64, u32)> = (0..5000u32)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % if i % 3 == 0 { 1000 } else { u64::MAX }, i)
            })
            .collect();
        let mut want = v.clone();
        want.sort_by_key(|e| e.0); // stable
        sort_by_key(&mut v, |e| e.0);
        assert_eq!(v, want);
    }
}
