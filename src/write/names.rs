//! The set of object names a writer has seen: open addressing over one
//! byte arena, so adding a name costs a hash and a probe, not an allocation
//! and a tree walk.
//!
//! A probe reads one slot, a random place in a table that the blobs written
//! between two `add`s push out of the caches: [`NameSet::prefetch`] lets the
//! writer start that read before its other checks.

use crate::index::hash;
use alloc::vec::Vec;

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
}

impl NameSet {
    pub fn new() -> Self {
        NameSet { arena: Vec::new(), len: 0, slots: alloc::vec![0; 16] }
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

    fn home(&self, h: u64) -> usize {
        h as usize & (self.slots.len() - 1)
    }

    /// The slot holding `name`, or the empty slot where it would go.
    fn find(&self, h: u64, name: &[u8]) -> usize {
        let mask = self.slots.len() - 1;
        let tag = Self::tag(h);
        let mut i = self.home(h);
        loop {
            match self.slots[i] {
                0 => return i,
                s if s >> OFF_BITS == tag && self.entry_at(((s & OFF_MASK) - 1) as usize).1 == name => return i,
                _ => {}
            }
            i = (i + 1) & mask;
        }
    }

    /// Start loading the slot a probe for hash `h` reads first. A hint:
    /// no effect on results, none at all off x86-64 (and under Miri).
    pub fn prefetch(&self, h: u64) {
        let slot = &self.slots[self.home(h)];
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

    /// The empty slot where `name` (hash `h`) would go, or `None` when it
    /// is in the set: pass it to [`Self::insert_at`] before any other change.
    pub fn vacancy(&self, h: u64, name: &str) -> Option<usize> {
        let i = self.find(h, name.as_bytes());
        (self.slots[i] == 0).then_some(i)
    }

    /// The hash of `name`, for [`Self::vacancy`] and [`Self::insert_at`].
    pub fn hash(name: &str) -> u64 {
        hash(name.as_bytes())
    }

    pub fn contains(&self, name: &str) -> bool {
        self.vacancy(Self::hash(name), name).is_none()
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

    /// Add `name` (hash `h`) at the slot [`Self::vacancy`] gave.
    pub fn insert_at(&mut self, i: usize, h: u64, name: &str) {
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
        let mut at = 0;
        while at < self.arena.len() {
            let (h, name) = self.entry_at(at);
            let mut i = h as usize & (n - 1);
            while slots[i] != 0 {
                i = (i + 1) & (n - 1);
            }
            slots[i] = Self::tag(h) << OFF_BITS | (at as u64 + 1);
            at += 16 + name.len();
        }
        self.slots = slots;
    }
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
        let i = s.vacancy(h, "zz").unwrap();
        // A fake entry with the same tag pointing at "abc": not "zz".
        s.slots[i] = NameSet::tag(h) << OFF_BITS | (s.arena.len() as u64 + 1);
        s.arena.extend_from_slice(&h.to_le_bytes());
        s.arena.extend_from_slice(&3u64.to_le_bytes());
        s.arena.extend_from_slice(b"abc");
        assert!(!s.contains("zz"));
        assert!(s.contains("abc"));
    }
}
