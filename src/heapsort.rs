//! The sort of builds without `alloc` (firmware): an in-place heapsort.
//! Each use is a small function with no stack buffers, where core's
//! `sort_unstable` costs about 2.5 KiB of flash per use and frames of
//! 800 bytes; O(n log n) in every case. Not stable: callers that need a
//! fixed order among equal keys break ties in `cmp`.

use core::cmp::Ordering;

/// Sort `v` by `cmp`.
pub(crate) fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let n = v.len();
    for start in (0..n / 2).rev() {
        sift_down(v, start, n, &mut cmp);
    }
    for end in (1..n).rev() {
        swap(v, 0, end);
        sift_down(v, 0, end, &mut cmp);
    }
}

/// Restore the max-heap below `root` in `v[..end]`.
fn sift_down<T>(v: &mut [T], mut root: usize, end: usize, cmp: &mut impl FnMut(&T, &T) -> Ordering) {
    loop {
        let mut child = 2 * root + 1;
        if child >= end {
            return;
        }
        if child + 1 < end && cmp(&v[child], &v[child + 1]) == Ordering::Less {
            child += 1;
        }
        if cmp(&v[root], &v[child]) != Ordering::Less {
            return;
        }
        swap(v, root, child);
        root = child;
    }
}

/// Exchange `v[i]` and `v[j]` for `i < j`: two disjoint borrows, so the
/// copies need no `memmove` (slice::swap pulls in 1.6 KiB of it on Cortex-M).
fn swap<T>(v: &mut [T], i: usize, j: usize) {
    let (a, b) = v.split_at_mut(j);
    core::mem::swap(&mut a[i], &mut b[0]);
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
