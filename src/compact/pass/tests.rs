//! Tests of the pass's rules against the full reader's.

/// `first_overlap` finds the first blob that partially overlaps an earlier
/// one (intersecting it without being the same span), on every sorted list
/// of up to four non-empty blobs within 0..5.
#[test]
fn first_overlap_is_the_first_partial_overlap() {
    extern crate alloc;
    use alloc::vec::Vec;
    let spans: Vec<[u64; 2]> = (0..5).flat_map(|a| (a + 1..6).map(move |b| [a, b])).collect();
    let mut lists: Vec<Vec<[u64; 2]>> = alloc::vec![Vec::new()];
    let (mut checked, mut found) = (0, 0);
    while let Some(l) = lists.pop() {
        let partial = |a: [u64; 2], b: [u64; 2]| a != b && a[0] < b[1] && b[0] < a[1];
        let want = (0..l.len()).find(|&i| l[..i].iter().any(|&e| partial(e, l[i]))).map(|i| (l[i][0], l[i][1] - l[i][0]));
        assert_eq!(crate::manifest::rules::first_overlap(&l), want, "{l:?}");
        (checked, found) = (checked + 1, found + want.is_some() as usize);
        if l.len() < 4 {
            for &s in spans.iter().filter(|&&s| l.last().is_none_or(|&p| p <= s)) {
                lists.push([&l[..], &[s]].concat());
            }
        }
    }
    assert!(checked > 1000 && found > 100, "{checked} {found}");
}
