//! The whole-file rules of the v1 pass by sorting, as firmware checks
//! them (and hosts when the pass's notes ran out): object names unique,
//! no two blobs partially overlapping (spec §2.4, rules of `manifest`'s
//! pass), in the caller's scratch.

use super::Root;
use crate::compact::cur::R;
use crate::compact::{Fault, Kind};
use crate::manifest::rules::first_overlap;
use crate::scratch::{Entry, Scratch};

/// With `names`, object names are unique (when they did not come in
/// ascending order); without, no two blobs partially overlap (when they
/// did not come in file order). Sorted in the scratch, one slot per object
/// or per non-empty blob: one function, so one fill, sort and refusal of
/// too few slots in the code.
#[inline(never)]
pub(super) fn sorted_check(m: &[u8], root: &Root, scratch: &mut Scratch<'_>, names: bool) -> R<()> {
    scratch.truncate(0);
    // Once an overlap is found, its blob: the walk of the components runs
    // again to find its component (where the fault points).
    let mut overlap = None;
    loop {
        let found = if names {
            let mut all = crate::compact::view::entries(m, root.objects, root.count).enumerate();
            all.any(|(i, (k, _))| !scratch.try_push([crate::compact::view::name_slot(k, i), 0])).then_some(root.objects)
        } else {
            first_component(m, root, |c| match overlap {
                Some((offset, length)) => c.offset == offset && c.length == length,
                None => c.length > 0 && !scratch.try_push([c.offset, c.offset + c.length]),
            })
        };
        if overlap.is_some() {
            return Err(Fault::new(Kind::Overlap, found.unwrap_or(0)));
        }
        if let Some(at) = found {
            return Err(Fault::new(Kind::Slots, at));
        }
        let s = scratch.segment(0);
        crate::compact::view::sort(m, s, names);
        if names {
            let name = |e: &Entry| crate::compact::view::name_at(m, (e[0] as u32) as usize);
            let duplicate = |s: &[Entry]| s.windows(2).find(|w| name(&w[0]) == name(&w[1])).map(|w| (w[1][0] as u32) as usize);
            let found = duplicate(s);
            // (With `alloc` the sort is not the firmware's: the fault is
            // the duplicate the firmware's finds.)
            #[cfg(feature = "alloc")]
            let found = found.and_then(|_| {
                crate::compact::view::sort_as_firmware(m, s);
                duplicate(s)
            });
            return match found {
                Some(at) => Err(Fault::new(Kind::DuplicateKey, at)),
                None => Ok(()),
            };
        }
        // (Sorted by start, non-empty: the blobs are in file order up to
        // the first that overlaps another.)
        overlap = first_overlap(s);
        if overlap.is_none() {
            return Ok(());
        }
    }
}

/// The map position of the first component (in manifest order) for which
/// `stop` says true ([`sorted_check`]'s one walk of the components, for
/// both its uses).
fn first_component(m: &[u8], root: &Root, mut stop: impl FnMut(&crate::compact::Component<'_>) -> bool) -> Option<usize> {
    for o in crate::compact::view::objects(m, root.objects, root.count, root.version) {
        for c in o.components() {
            if stop(&c) {
                return Some(c.at);
            }
        }
    }
    None
}
