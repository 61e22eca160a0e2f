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
    /// Open-addressing table: 0 = empty, else an index into `entries` + 1.
    slots: Vec<u32>,
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
        let mut i = h as usize & mask;
        loop {
            match self.slots[i] {
                0 => return i,
                s => {
                    let e = &self.entries[s as usize - 1];
                    if e.0 == h && self.name(e) == name {
                        return i;
                    }
                }
            }
            i = (i + 1) & mask;
        }
    }

    pub fn contains(&self, name: &str) -> bool {
        let b = name.as_bytes();
        self.slots[self.find(hash(b), b)] != 0
    }

    /// Add `name`; false if it was there already.
    pub fn insert(&mut self, name: &str) -> bool {
        let b = name.as_bytes();
        let h = hash(b);
        let i = self.find(h, b);
        if self.slots[i] != 0 {
            return false;
        }
        self.entries.push((h, self.arena.len() as u32, b.len() as u32));
        self.arena.extend_from_slice(b);
        self.slots[i] = self.entries.len() as u32;
        if self.entries.len() * 2 > self.slots.len() {
            self.grow();
        }
        true
    }

    fn grow(&mut self) {
        let n = self.slots.len() * 2;
        self.slots = alloc::vec![0; n];
        for (k, e) in self.entries.iter().enumerate() {
            let mut i = e.0 as usize & (n - 1);
            while self.slots[i] != 0 {
                i = (i + 1) & (n - 1);
            }
            self.slots[i] = k as u32 + 1;
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
