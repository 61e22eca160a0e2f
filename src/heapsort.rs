//! The sort of builds without `alloc` (firmware): an in-place heapsort.
//! Each use is a small function with no stack buffers, where core's
//! `sort_unstable` costs about 2.5 KiB of flash per use and frames of
//! 800 bytes; O(n log n) in every case. Not stable: callers that need a
//! fixed order among equal keys break ties in `cmp`.

use core::cmp::Ordering;

/// Sort `v` by `cmp`: build a max-heap, then move its root to the end
/// until one entry is left, sifting the new root down each time (the
/// greater of it and its children goes up; the first child on a tie).
pub(crate) fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let n = v.len();
    let (mut start, mut end) = (n / 2, n);
    loop {
        if start > 0 {
            start -= 1;
        } else if end > 1 {
            end -= 1;
            swap(v, 0, end);
        } else {
            return;
        }
        let mut root = start;
        loop {
            let mut big = root;
            for child in 2 * root + 1..end.min(2 * root + 3) {
                // (Both below `end`: `get`, no panic path.)
                if let (Some(a), Some(b)) = (v.get(big), v.get(child)) {
                    if cmp(a, b) == Ordering::Less {
                        big = child;
                    }
                }
            }
            if big == root {
                break;
            }
            swap(v, root, big);
            root = big;
        }
    }
}

/// Exchange `v[i]` and `v[j]` for `i < j < v.len()` (every caller's; no
/// panic path for other indices, which change nothing): two disjoint
/// borrows, so the copies need no `memmove` (slice::swap pulls in 1.6 KiB
/// of it on Cortex-M).
pub(crate) fn swap<T>(v: &mut [T], i: usize, j: usize) {
    if let Some((a, [b, ..])) = v.split_at_mut_checked(j) {
        if let Some(a) = a.get_mut(i) {
            core::mem::swap(a, b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::sort_by;

    #[test]
    fn sorts_every_small_permutation_and_a_long_run() {
        let mut x: u32 = 0x9e37_79b9;
        for n in 0..40usize {
            let mut v = [0u32; 40];
            for e in v[..n].iter_mut() {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                *e = x % 16; // many ties
            }
            let mut want = v;
            want[..n].sort_unstable();
            sort_by(&mut v[..n], |a, b| a.cmp(b));
            assert_eq!(v[..n], want[..n], "n = {n}");
        }
        let mut v = [0u64; 1000];
        for (i, e) in v.iter_mut().enumerate() {
            *e = (i as u64 * 7919) % 1000;
        }
        sort_by(&mut v, |a, b| b.cmp(a));
        assert!(v.windows(2).all(|w| w[0] >= w[1]));
    }
}
