//! The set of object names a writer has seen: open addressing over one
//! byte arena, so adding a name costs a hash and a probe, not an allocation
//! and a tree walk.

use crate::index::hash;
use alloc::vec::Vec;

pub(crate) struct NameSet {
    /// Every name, back to back.
    arena: Vec<u8>,
    /// (hash, start, len) of each name in `arena`.
    entries: Vec<(u64, u32, u32)>,
    /// Open-addressing table: 0 = empty, else the high 32 bits of the
    /// name's hash (so that most mismatches are seen without touching
    /// `entries`) above its index in `entries` + 1.
    slots: Vec<u64>,
}

impl NameSet {
    pub fn new() -> Self {
        NameSet { arena: Vec::new(), entries: Vec::new(), slots: alloc::vec![0; 16] }
    }

    fn name(&self, e: &(u64, u32, u32)) -> &[u8] {
        &self.arena[e.1 as usize..(e.1 + e.2) as usize]
    }

    /// The slot holding `name`, or the empty slot where it would go.
    fn find(&self, h: u64, name: &[u8]) -> usize {
        let mask = self.slots.len() - 1;
        let tag = h & !0xffff_ffff;
        let mut i = h as usize & mask;
        loop {
            match self.slots[i] {
                0 => return i,
                s if s & !0xffff_ffff == tag => {
                    let e = &self.entries[(s as u32) as usize - 1];
                    if e.0 == h && self.name(e) == name {
                        return i;
                    }
                }
                _ => {}
            }
            i = (i + 1) & mask;
        }
    }

    /// The empty slot where `name` (hash `h`) would go, or `None` when it
    /// is in the set: pass it to [`Self::insert_at`] before any other change.
    pub fn vacancy(&self, h: u64, name: &str) -> Option<usize> {
        let i = self.find(h, name.as_bytes());
        (self.slots[i] == 0).then_some(i)
    }

    /// The hash of `name`, for [`Self::contains_hashed`] and [`Self::insert_hashed`].
    pub fn hash(name: &str) -> u64 {
        hash(name.as_bytes())
    }

    pub fn contains(&self, name: &str) -> bool {
        self.contains_hashed(Self::hash(name), name)
    }

    pub fn contains_hashed(&self, h: u64, name: &str) -> bool {
        self.slots[self.find(h, name.as_bytes())] != 0
    }

    /// Add `name`; false if it was there already.
    pub fn insert(&mut self, name: &str) -> bool {
        self.insert_hashed(Self::hash(name), name)
    }

    /// [`Self::insert`] with `h = Self::hash(name)`.
    pub fn insert_hashed(&mut self, h: u64, name: &str) -> bool {
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
        let b = name.as_bytes();
        self.entries.push((h, self.arena.len() as u32, b.len() as u32));
        self.arena.extend_from_slice(b);
        self.slots[i] = (h & !0xffff_ffff) | self.entries.len() as u64;
        if self.entries.len() * 2 > self.slots.len() {
            self.grow();
        }
    }

    fn grow(&mut self) {
        let n = self.slots.len() * 2;
        self.slots = alloc::vec![0; n];
        for (k, e) in self.entries.iter().enumerate() {
            let mut i = e.0 as usize & (n - 1);
            while self.slots[i] != 0 {
                i = (i + 1) & (n - 1);
            }
            self.slots[i] = (e.0 & !0xffff_ffff) | (k as u64 + 1);
        }
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
        assert!(s.insert(""));
        assert!(s.contains(""));
    }
}
