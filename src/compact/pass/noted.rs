//! With `alloc` (hosts): the pass notes each object's name and each
//! non-empty blob in the slots as it reads them, so that the whole-file
//! rules (names unique, blobs not overlapping) and the name index need no
//! second walk of the objects. Firmware builds walk the objects again
//! instead ([`super::sorted_check`], [`super::super::view::build_index`]):
//! this code costs flash the firmware's flash budget (issue 31) has no
//! room for.
//!
//! The notes take slots off the top of the scratch (names when the objects
//! map's head is read, then a blob at a time), so the pass's scratch is
//! smaller while they are kept. Nothing answers differently for it: when
//! the smaller scratch runs out ([`Kind::Slots`]), the pass runs again
//! without notes; when the blobs' notes run out of slots, the blobs are
//! collected by the walk, as firmware does; and a broken rule's fault is
//! found by the walk's check, as firmware finds it.

use super::{sorted_check, Kind, Pass, Root, R};
use crate::scratch::{Entry, Scratch};

/// What the pass noted.
pub(crate) struct Noted<'s> {
    /// Whether names are noted (set before the pass; off when the objects
    /// map's entries are not counted in its head, or do not fit).
    names_on: bool,
    /// A slot per object: word 0 as [`super::super::view::name_slot`] has
    /// it, in manifest order. Taken off the scratch's top.
    names: &'s mut [Entry],
    /// Blobs noted (each in a slot taken below the names'), while they fit.
    spans: usize,
    /// A blob did not fit: the notes of blobs are incomplete.
    spans_lost: bool,
}

impl<'s> Noted<'s> {
    /// Nothing noted (the views' decoding, and firmware's pass).
    pub(crate) fn off() -> Self {
        Noted { names_on: false, names: &mut [], spans: 0, spans_lost: false }
    }

    /// The objects map's head was read, with `count` entries (`None`:
    /// indefinite): a slot each for their names, when they fit.
    pub(crate) fn start(&mut self, scratch: &mut Scratch<'s>, count: Option<usize>) {
        match count.filter(|_| self.names_on).and_then(|n| scratch.take_top(n)) {
            Some(names) => self.names = names,
            None => self.names_on = false,
        }
    }

    /// The name of object `i` is at `k`.
    pub(crate) fn name(&mut self, k: usize, i: usize) {
        if let Some(s) = self.names.get_mut(i) {
            *s = [crate::compact::view::name_slot(k, i), 0];
        }
    }

    /// A non-empty blob `[offset, end)`, as [`sorted_check`] collects it.
    pub(crate) fn span(&mut self, scratch: &mut Scratch<'s>, offset: u64, end: u64) {
        if !self.names_on || self.spans_lost {
            return;
        }
        match scratch.take_top(1) {
            Some([s]) => {
                *s = [offset, end];
                self.spans += 1;
            }
            _ => self.spans_lost = true,
        }
    }
}

/// [`super::validate`] with notes: `None` when the pass must run again
/// without them (the smaller scratch ran out).
pub(crate) fn validate(m: &[u8], hi: u64, slots: &mut [Entry]) -> Option<R<Root>> {
    let mut p = Pass::new(m, hi, slots);
    p.noted.names_on = true;
    let mut root = p.run();
    let (on, count, spans, spans_lost) = (p.noted.names_on, p.noted.names.len(), p.noted.spans, p.noted.spans_lost);
    let blobs_ordered = p.order.ordered();
    if let Some(f) = p.c.fault {
        // (Slots were taken only when names were noted.)
        return (!(on && f.kind == Kind::Slots)).then_some(Err(f));
    }
    drop(p);
    // The whole-file rules by the walk, as firmware checks them (their
    // faults, and the blobs when their notes are incomplete).
    let walked = |slots: &mut [Entry], root: Root, names: bool| {
        sorted_check(m, &root, &mut Scratch::new(slots), names).map(|()| root)
    };
    if !on {
        return Some(super::whole_file_rules(m, root, &mut Scratch::new(slots), blobs_ordered));
    }
    let top = slots.len() - count;
    let name = |e: &Entry| crate::compact::view::name_at(m, (e[0] as u32) as usize);
    if !root.ordered {
        // Sorted by hash (word 1, free until the index is built), then
        // bytes: integer comparisons, where a sort by bytes compares names.
        // Equal names come together all the same, and the index is in
        // this order ([`Root::hashed`]).
        let names = &mut slots[top..];
        for s in names.iter_mut() {
            s[1] = crate::index::hash(name(s));
        }
        names.sort_unstable_by(|a, b| a[1].cmp(&b[1]).then_with(|| name(a).cmp(name(b))));
        if names.windows(2).any(|w| w[0][1] == w[1][1] && name(&w[0]) == name(&w[1])) {
            return Some(walked(slots, root, true));
        }
        (root.sorted, root.hashed) = (true, true);
    }
    if !blobs_ordered {
        if spans_lost {
            (root.sorted, root.hashed) = (false, false);
            return Some(walked(slots, root, false));
        }
        let (free, rest) = slots.split_at_mut(top - spans);
        let blobs = &mut rest[..spans];
        if !radix_sort(blobs, free) {
            crate::compact::view::sort(m, blobs, false);
        }
        if crate::manifest::rules::first_overlap(blobs).is_some() {
            root.hashed = false;
            return Some(walked(slots, root, false));
        }
    }
    // The names (sorted, or in manifest order) where the index wants them.
    slots.copy_within(top.., 0);
    root.noted = true;
    Some(Ok(root))
}

/// Sort the blobs `v` (`[offset, end]` each) as [`crate::compact::view::sort`]
/// sorts them (by offset, then end), with `tmp` as room: the full reader's
/// radix sort (`crate::sort`) by offset, linear where a sort by
/// comparisons is not, then each run of equal offsets by end. Whether it
/// sorted (`tmp` too small: no).
fn radix_sort(v: &mut [Entry], tmp: &mut [Entry]) -> bool {
    let Some(tmp) = tmp.get_mut(..v.len()) else { return false };
    crate::sort::radix_by_key(v, tmp, |e| e[0]);
    for run in v.chunk_by_mut(|a, b| a[0] == b[0]) {
        run.sort_unstable();
    }
    true
}
