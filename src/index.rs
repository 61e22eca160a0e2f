//! Name lookup: an index built once at open (`alloc`), or over caller
//! storage ([`NameIndex`]) for builds without a heap.

use crate::error::{Error, ErrorKind, Result};
use crate::file::File;
use crate::manifest::ObjPos;
use crate::object::Object;

/// A fast, non-cryptographic hash of a name (FxHash-style, 8 bytes a step).
#[cfg(feature = "alloc")]
pub(crate) fn hash(b: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = b.len() as u64;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    let mut last = [0u8; 8];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    h = (h.rotate_left(5) ^ u64::from_le_bytes(last)).wrapping_mul(K);
    h ^ (h >> 29)
}

#[cfg(feature = "alloc")]
fn name<'a>(buf: &'a [u8], p: &ObjPos) -> &'a [u8] {
    &buf[p.name_start as usize..(p.name_start + p.name_len) as usize]
}

/// Object positions in manifest order, and a (hash, name)-sorted permutation.
///
/// Sorting by hash first keeps the build O(n log n) in cheap integer
/// comparisons; ties (equal hashes, even adversarial ones) fall back to the
/// names, so neither build nor lookup can degrade past O(n log n) / O(log n)
/// comparisons.
#[cfg(feature = "alloc")]
pub(crate) struct Index {
    positions: alloc::vec::Vec<ObjPos>,
    by_hash: alloc::vec::Vec<(u64, u32)>,
    /// Names are in ascending order: `positions` is the index.
    sorted: bool,
}

#[cfg(feature = "alloc")]
impl Index {
    /// Build the index; fails on a duplicate object name. When the names
    /// are already in strictly ascending order (`sorted`, as most writers
    /// emit them), lookups binary-search the names themselves: nothing to build.
    pub fn build(buf: &[u8], positions: alloc::vec::Vec<ObjPos>, sorted: bool) -> Result<Index> {
        if sorted {
            return Ok(Index { positions, by_hash: alloc::vec::Vec::new(), sorted });
        }
        let mut by_hash: alloc::vec::Vec<(u64, u32)> =
            positions.iter().enumerate().map(|(i, p)| (hash(name(buf, p)), i as u32)).collect();
        // Integer sort first; then order each run of equal hashes by name, so
        // that (hash, name) is sorted even when an adversary makes hashes collide.
        crate::sort::sort_by_key(&mut by_hash, |e| e.0);
        let nm = |e: &(u64, u32)| name(buf, &positions[e.1 as usize]);
        let mut i = 0;
        while i < by_hash.len() {
            let h = by_hash[i].0;
            let j = i + by_hash[i..].iter().take_while(|e| e.0 == h).count();
            if j - i > 1 {
                let run = &mut by_hash[i..j];
                run.sort_unstable_by(|a, b| nm(a).cmp(nm(b)));
                if let Some(w) = run.windows(2).find(|w| nm(&w[0]) == nm(&w[1])) {
                    let p = positions[w[0].1.max(w[1].1) as usize];
                    let n = core::str::from_utf8(name(buf, &p)).unwrap_or("");
                    return Err(Error::at(ErrorKind::DuplicateKey, p.body as usize).in_object(n));
                }
            }
            i = j;
        }
        Ok(Index { positions, by_hash, sorted })
    }

    pub fn position(&self, i: usize) -> Option<ObjPos> {
        self.positions.get(i).copied()
    }

    /// Manifest index of the object called `n`.
    pub fn find(&self, buf: &[u8], n: &str) -> Option<usize> {
        if self.sorted {
            return self.positions.binary_search_by(|p| name(buf, p).cmp(n.as_bytes())).ok();
        }
        let h = hash(n.as_bytes());
        let key = |e: &(u64, u32)| (e.0, name(buf, &self.positions[e.1 as usize]));
        let i = self.by_hash.binary_search_by(|e| key(e).cmp(&(h, n.as_bytes()))).ok()?;
        Some(self.by_hash[i].1 as usize)
    }
}

/// One slot of a [`NameIndex`].
pub type Slot = [u32; 4];

/// Name lookup in O(log n) over caller-provided storage: for builds
/// without `alloc` (with `alloc`, [`File::get`] is already indexed).
///
/// ```
/// # fn main() -> Result<(), ztensor::Error> {
/// # let bytes = ztensor::doc_example_file();
/// let file = ztensor::File::parse(&bytes)?;
/// let mut slots = [[0u32; 4]; 16];
/// let index = ztensor::NameIndex::build(&file, &mut slots)?;
/// assert_eq!(index.get("bias").unwrap().name(), "bias");
/// # Ok(()) }
/// ```
pub struct NameIndex<'f, 'a, 's> {
    file: &'f File<'a>,
    slots: &'s [Slot],
}

impl<'f, 'a, 's> NameIndex<'f, 'a, 's> {
    /// Index every object of `file`; `slots` needs one entry per object.
    pub fn build(file: &'f File<'a>, slots: &'s mut [Slot]) -> Result<Self> {
        if slots.len() < file.len() {
            return Err(Error::new(ErrorKind::ScratchTooSmall { needed: file.len() as u64 }));
        }
        let slots = &mut slots[..file.len()];
        for (i, (p, s)) in file.positions().zip(slots.iter_mut()).enumerate() {
            *s = [p.body, p.name_start, p.name_len, i as u32];
        }
        let buf = file.manifest_bytes();
        let key = |s: &Slot| &buf[s[1] as usize..(s[1] + s[2]) as usize];
        slots.sort_unstable_by(|a, b| key(a).cmp(key(b)));
        Ok(NameIndex { file, slots })
    }

    /// The object at position `i` in manifest order: a scan of the slots
    /// (no decoding but this object's), where [`File::object`] without
    /// `alloc` decodes the `i` objects before it.
    pub fn object(&self, i: usize) -> Option<Object<'a>> {
        let s = self.slots.iter().find(|s| s[3] as usize == i)?;
        self.file.object_at(ObjPos { body: s[0], name_start: s[1], name_len: s[2] }, i)
    }

    /// The object called `name`.
    pub fn get(&self, name: &str) -> Option<Object<'a>> {
        let buf = self.file.manifest_bytes();
        let key = |s: &Slot| &buf[s[1] as usize..(s[1] + s[2]) as usize];
        let i = self.slots.binary_search_by(|s| key(s).cmp(name.as_bytes())).ok()?;
        let s = self.slots[i];
        self.file.object_at(ObjPos { body: s[0], name_start: s[1], name_len: s[2] }, s[3] as usize)
    }
}
