//! Name lookup: where each object is ([`ObjPos`]) and, with `alloc`, the
//! index the validating pass builds at open. (Without a heap,
//! [`NameIndex`](crate::NameIndex) sorts positions in caller storage.)

/// Where an object is: its body (v1.x: the name key; v0.1: the tensor map)
/// and its name's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ObjPos {
    pub body: u32,
    pub name_start: u32,
    pub name_len: u32,
}

impl ObjPos {
    /// The position of the object at `body` whose name `name` (its
    /// bytes) lies in `buf`.
    pub(crate) fn of(buf: &[u8], body: usize, name: &[u8]) -> ObjPos {
        let start = name.as_ptr() as usize - buf.as_ptr() as usize;
        ObjPos { body: body as u32, name_start: start as u32, name_len: name.len() as u32 }
    }

    /// The name's bytes.
    pub(crate) fn name_bytes<'a>(&self, buf: &'a [u8]) -> &'a [u8] {
        &buf[self.name_start as usize..(self.name_start + self.name_len) as usize]
    }

    /// The name (checked UTF-8 at open).
    pub(crate) fn name<'a>(&self, buf: &'a [u8]) -> &'a str {
        core::str::from_utf8(self.name_bytes(buf)).unwrap_or("")
    }
}

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
    p.name_bytes(buf)
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
    /// With `sorted`: the order is deterministic CBOR's key order (shorter
    /// names first, then bytewise), as every v2 manifest's `objects`.
    by_len: bool,
}

#[cfg(feature = "alloc")]
impl Index {
    /// An index of no objects.
    pub fn empty() -> Index {
        Index { positions: alloc::vec::Vec::new(), by_hash: alloc::vec::Vec::new(), sorted: true, by_len: false }
    }

    /// Build the index; on a duplicate object name, the position of the
    /// later of two objects that share it. When the names are already in
    /// strictly ascending order (`sorted`, as most writers emit them),
    /// lookups binary-search the names themselves: nothing to build.
    pub fn build(buf: &[u8], positions: alloc::vec::Vec<ObjPos>, sorted: bool) -> Result<Index, ObjPos> {
        if sorted {
            return Ok(Index::ascending(positions));
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
                    return Err(positions[w[0].1.max(w[1].1) as usize]);
                }
            }
            i = j;
        }
        Ok(Index { positions, by_hash, sorted, by_len: false })
    }

    /// The index of names known to be in strictly ascending order (the
    /// compact pass noted it): lookups binary-search the names themselves.
    pub fn ascending(positions: alloc::vec::Vec<ObjPos>) -> Index {
        Index { positions, by_hash: alloc::vec::Vec::new(), sorted: true, by_len: false }
    }

    /// The index of names whose (hash, name) order is known: `by_hash`
    /// holds each name's [`hash`] and position in that order (the compact
    /// pass's notes, `compact/pass/noted.rs`), so nothing is sorted here.
    pub fn hashed(positions: alloc::vec::Vec<ObjPos>, by_hash: alloc::vec::Vec<(u64, u32)>) -> Index {
        Index { positions, by_hash, sorted: false, by_len: false }
    }

    /// The index of a v2 manifest's objects: their names are unique and in
    /// deterministic CBOR key order (the CBOR pass checked both), so
    /// lookups binary-search (length, name): nothing to build.
    pub fn key_ordered(positions: alloc::vec::Vec<ObjPos>) -> Index {
        Index { positions, by_hash: alloc::vec::Vec::new(), sorted: true, by_len: true }
    }

    pub fn position(&self, i: usize) -> Option<ObjPos> {
        self.positions.get(i).copied()
    }

    /// Manifest index of the object called `n`.
    pub fn find(&self, buf: &[u8], n: &str) -> Option<usize> {
        if self.by_len {
            let key = (n.len(), n.as_bytes());
            return self.positions.binary_search_by(|p| (p.name_len as usize, name(buf, p)).cmp(&key)).ok();
        }
        if self.sorted {
            return self.positions.binary_search_by(|p| name(buf, p).cmp(n.as_bytes())).ok();
        }
        let h = hash(n.as_bytes());
        let key = |e: &(u64, u32)| (e.0, name(buf, &self.positions[e.1 as usize]));
        let i = self.by_hash.binary_search_by(|e| key(e).cmp(&(h, n.as_bytes()))).ok()?;
        Some(self.by_hash[i].1 as usize)
    }
}

