//! The set of object names a writer has seen: open addressing over one
//! byte arena, so adding a name costs a hash and a probe, not an allocation
//! and a tree walk.
//!
//! A probe reads one slot, a random place in a table that the blobs written
//! between two `add`s push out of the caches: [`NameSet::prefetch`] lets the
//! writer start that read before its other checks.
//!
//! The hash is fast, not secret: names crafted to collide (say, in a
//! hostile file given to `zt convert`) could make every probe walk a long
//! run of slots, quadratic in the number of names. A probe longer than
//! [`MAX_PROBE`] therefore moves the set, for good, to an ordered tree
//! (O(log n) comparisons per name, whatever the names).

use crate::index::hash;
use alloc::collections::BTreeSet;
use alloc::vec::Vec;

/// Longest probe before the set gives up on its table. With at most half
/// the slots used and an unbiased hash, runs this long do not happen (the
/// expected longest run among a million names is a few dozen slots).
const MAX_PROBE: usize = 256;

/// Slot bits holding the name's arena offset + 1 (1 TiB of names).
const OFF_BITS: u32 = 40;
const OFF_MASK: u64 = (1 << OFF_BITS) - 1;

pub(crate) struct NameSet {
    /// Every name: its hash and length (u64 LE each), then its bytes.
    arena: Vec<u8>,
    /// Names in the set.
    len: usize,
    /// Open-addressing table (linear probing, at most half full): 0 =
    /// empty, else the top 24 bits of the name's hash (so that almost every
    /// mismatch is seen without reading the arena) above its arena offset + 1.
    slots: Vec<u64>,
    /// Every name, once a probe was longer than [`MAX_PROBE`]; `arena` and
    /// `slots` are empty from then on.
    ordered: Option<BTreeSet<Vec<u8>>>,
}

/// Where [`NameSet::insert_at`] puts a name.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Vacancy {
    Slot(usize),
    Ordered,
}

impl NameSet {
    pub fn new() -> Self {
        NameSet { arena: Vec::new(), len: 0, slots: alloc::vec![0; 16], ordered: None }
    }

    /// The hash and the name stored at arena offset `at`.
    fn entry_at(&self, at: usize) -> (u64, &[u8]) {
        let word = |i: usize| u64::from_le_bytes(self.arena[at + i..at + i + 8].try_into().unwrap_or_default());
        let (h, len) = (word(0), word(8) as usize);
        (h, &self.arena[at + 16..at + 16 + len])
    }

    fn tag(h: u64) -> u64 {
        h >> OFF_BITS
    }

    /// The first slot probed for hash `h` (meaningless, but no panic, when
    /// the table is gone: see [`Self::switch_to_tree`]).
    fn home(&self, h: u64) -> usize {
        h as usize & self.slots.len().wrapping_sub(1)
    }

    /// Every name in the arena: (arena offset, hash, name), in insertion order.
    fn records(&self) -> impl Iterator<Item = (usize, u64, &[u8])> {
        let mut at = 0;
        core::iter::from_fn(move || {
            (at < self.arena.len()).then(|| {
                let (h, name) = self.entry_at(at);
                let r = (at, h, name);
                at += 16 + name.len();
                r
            })
        })
    }

    /// The slot holding `name`, or the empty slot where it would go; `None`
    /// after `limit` slots without either.
    fn find(&self, h: u64, name: &[u8], limit: usize) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let tag = Self::tag(h);
        let mut i = self.home(h);
        for _ in 0..limit {
            match self.slots[i] {
                0 => return Some(i),
                s if s >> OFF_BITS == tag && self.entry_at(((s & OFF_MASK) - 1) as usize).1 == name => return Some(i),
                _ => {}
            }
            i = (i + 1) & mask;
        }
        None
    }

    /// Move every name to the ordered tree (see the module docs).
    fn switch_to_tree(&mut self) {
        let tree = self.records().map(|(_, _, name)| name.to_vec()).collect();
        self.arena = Vec::new();
        self.slots = Vec::new();
        self.ordered = Some(tree);
    }

    /// Start loading the slot a probe for hash `h` reads first. A hint:
    /// no effect on results, none at all off x86-64 (and under Miri).
    pub fn prefetch(&self, h: u64) {
        let Some(slot) = self.slots.get(self.home(h)) else {
            return;
        };
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        // SAFETY: a prefetch never faults and reads nothing into the
        // program; the address is a live element of `slots` anyway. SSE is
        // part of every x86-64 target.
        #[allow(unsafe_code)]
        unsafe {
            core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>((slot as *const u64).cast());
        }
        let _ = slot;
    }

    /// Where `name` (hash `h`) would go, or `None` when it is in the set:
    /// pass it to [`Self::insert_at`] before any other change.
    pub fn vacancy(&mut self, h: u64, name: &str) -> Option<Vacancy> {
        if self.ordered.is_none() {
            match self.find(h, name.as_bytes(), MAX_PROBE) {
                Some(i) => return (self.slots[i] == 0).then_some(Vacancy::Slot(i)),
                None => self.switch_to_tree(),
            }
        }
        let tree = self.ordered.as_ref()?;
        (!tree.contains(name.as_bytes())).then_some(Vacancy::Ordered)
    }

    /// The hash of `name`, for [`Self::vacancy`] and [`Self::insert_at`].
    pub fn hash(name: &str) -> u64 {
        hash(name.as_bytes())
    }

    pub fn contains(&self, name: &str) -> bool {
        match &self.ordered {
            Some(tree) => tree.contains(name.as_bytes()),
            // Unbounded: a long probe here is finished, not cut short.
            None => self.find(Self::hash(name), name.as_bytes(), usize::MAX).is_some_and(|i| self.slots[i] != 0),
        }
    }

    /// Add `name`; false if it was there already.
    pub fn insert(&mut self, name: &str) -> bool {
        let h = Self::hash(name);
        match self.vacancy(h, name) {
            Some(i) => {
                self.insert_at(i, h, name);
                true
            }
            None => false,
        }
    }

    /// Add `name` (hash `h`) where [`Self::vacancy`] said.
    pub fn insert_at(&mut self, v: Vacancy, h: u64, name: &str) {
        let i = match (v, &mut self.ordered) {
            (Vacancy::Slot(i), None) => i,
            (Vacancy::Ordered, Some(tree)) => {
                tree.insert(name.as_bytes().to_vec());
                self.len += 1;
                return;
            }
            _ => unreachable!("a vacancy from before the set changed"),
        };
        debug_assert_eq!(self.slots[i], 0);
        let at = self.arena.len() as u64;
        assert!(at < OFF_MASK, "more than 1 TiB of object names");
        let b = name.as_bytes();
        self.arena.extend_from_slice(&h.to_le_bytes());
        self.arena.extend_from_slice(&(b.len() as u64).to_le_bytes());
        self.arena.extend_from_slice(b);
        self.slots[i] = Self::tag(h) << OFF_BITS | (at + 1);
        self.len += 1;
        if self.len * 2 > self.slots.len() {
            self.grow();
        }
    }

    /// Double the table: one sequential pass over the arena.
    fn grow(&mut self) {
        let n = self.slots.len() * 2;
        let mut slots = alloc::vec![0u64; n];
        for (at, h, _) in self.records() {
            let mut i = h as usize & (n - 1);
            while slots[i] != 0 {
                i = (i + 1) & (n - 1);
            }
            slots[i] = Self::tag(h) << OFF_BITS | (at as u64 + 1);
        }
        self.slots = slots;
    }
}

/// `n` names whose hashes agree in their low `bits` bits (found by trying
/// names in turn), for tests.
#[cfg(test)]
pub(crate) fn colliding(n: usize, bits: u32) -> Vec<alloc::string::String> {
    let mask = (1u64 << bits) - 1;
    (0u64..).map(|i| alloc::format!("t{i}")).filter(|s| NameSet::hash(s) & mask == 0).take(n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    #[test]
    fn set_semantics() {
        let mut s = NameSet::new();
        for i in 0..1000 {
            assert!(s.insert(&format!("layer.{i}.weight")));
        }
        for i in 0..1000 {
            assert!(s.contains(&format!("layer.{i}.weight")));
            assert!(!s.insert(&format!("layer.{i}.weight")));
        }
        assert!(!s.contains("layer.1000.weight"));
        assert!(!s.contains("layer.1.weigh"));
        assert!(s.insert(""));
        assert!(s.contains(""));
        assert_eq!(s.len, 1001);
    }

    #[test]
    #[cfg_attr(miri, ignore = "hashes a few hundred thousand names")]
    fn crafted_collisions_move_the_set_to_a_tree() {
        // 600 names sharing their low 11 bits: every table up to 2048
        // slots (the size for 600 names) puts them all in one run.
        let names = colliding(600, 11);
        let mut s = NameSet::new();
        for (k, n) in names.iter().enumerate() {
            assert!(s.insert(n), "{n}");
            // The table holds MAX_PROBE of them; the next probe is too long.
            assert_eq!(s.ordered.is_some(), k >= MAX_PROBE, "after {} names", k + 1);
        }
        assert_eq!(s.len, 600);
        assert!(s.arena.is_empty() && s.slots.is_empty());
        for n in &names {
            assert!(s.contains(n));
            assert!(!s.insert(n));
        }
        assert!(!s.contains("t"));
        assert!(s.insert("t") && s.contains("t"));
        s.prefetch(NameSet::hash("x")); // no table: nothing to fetch
    }

    #[test]
    fn prefix_names_and_equal_tags_stay_apart() {
        // Names that are prefixes of each other share arena neighbours; a
        // forced tag collision (same slot, same tag) must fall back to the
        // name comparison.
        let mut s = NameSet::new();
        let names = ["a", "ab", "abc", "", "b"];
        for n in names {
            assert!(s.insert(n));
        }
        for n in names {
            assert!(s.contains(n));
        }
        let h = NameSet::hash("zz");
        let Some(Vacancy::Slot(i)) = s.vacancy(h, "zz") else { panic!("zz: no slot") };
        // A fake entry with the same tag pointing at "abc": not "zz".
        s.slots[i] = NameSet::tag(h) << OFF_BITS | (s.arena.len() as u64 + 1);
        s.arena.extend_from_slice(&h.to_le_bytes());
        s.arena.extend_from_slice(&3u64.to_le_bytes());
        s.arena.extend_from_slice(b"abc");
        assert!(!s.contains("zz"));
        assert!(s.contains("abc"));
    }
}
