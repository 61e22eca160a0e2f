//! Tests of the pass's rules against the full reader's.

/// [`super::sorted::overlap_in`] finds what `first_overlap` finds, on every
/// sorted list of up to four non-empty blobs within 0..5.
#[test]
fn overlap_in_is_first_overlap() {
    extern crate alloc;
    use alloc::vec::Vec;
    let spans: Vec<[u64; 2]> = (0..5).flat_map(|a| (a + 1..6).map(move |b| [a, b])).collect();
    let mut lists: Vec<Vec<[u64; 2]>> = alloc::vec![Vec::new()];
    let (mut checked, mut found) = (0, 0);
    while let Some(l) = lists.pop() {
        let want = crate::manifest::rules::first_overlap(&l);
        assert_eq!(super::sorted::overlap_in(&l), want, "{l:?}");
        (checked, found) = (checked + 1, found + want.is_some() as usize);
        if l.len() < 4 {
            for &s in spans.iter().filter(|&&s| l.last().is_none_or(|&p| p <= s)) {
                lists.push([&l[..], &[s]].concat());
            }
        }
    }
    assert!(checked > 1000 && found > 100, "{checked} {found}");
}
