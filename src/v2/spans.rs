//! The identical-or-disjoint rule (§2.4, §3.6 rule 4) over every blob
//! reference and the manifest, per file, by sorting spans.

use super::error::{Error, Kind, Result};

/// One blob reference: the file it points into (0: this file, k: the k-th
/// shard of the table), its offset and length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Span {
    /// File index.
    pub file: u32,
    /// Offset in that file.
    pub offset: u64,
    /// Length.
    pub len: u64,
}

/// Spans collected by the validating pass: in a caller's slice, or on the heap.
pub(crate) enum Spans<'s> {
    Slice(&'s mut [Span], usize),
    /// The crate's scratch entries, two per span: `[file, offset]`, `[len, 0]`
    /// (so that sorting the pairs sorts the spans).
    Entries(&'s mut [[u64; 2]], usize),
    #[cfg(feature = "alloc")]
    Vec(alloc::vec::Vec<Span>),
}

impl Spans<'_> {
    pub fn push(&mut self, s: Span) -> Result<()> {
        if s.len == 0 {
            return Ok(()); // zero-length blobs are exempt from overlap
        }
        match self {
            Spans::Slice(buf, n) => {
                let slot = buf.get_mut(*n).ok_or(Error::new(Kind::ScratchTooSmall))?;
                *slot = s;
                *n += 1;
            }
            Spans::Entries(buf, n) => {
                let slot = buf.get_mut(2 * *n..2 * *n + 2).ok_or(Error::new(Kind::ScratchTooSmall))?;
                slot[0] = [s.file as u64, s.offset];
                slot[1] = [s.len, 0];
                *n += 1;
            }
            #[cfg(feature = "alloc")]
            Spans::Vec(v) => v.push(s),
        }
        Ok(())
    }

    /// Room for `n` more spans (heap scratch only).
    pub fn reserve(&mut self, _n: usize) {
        #[cfg(feature = "alloc")]
        if let Spans::Vec(v) = self {
            v.reserve_exact(_n);
        }
    }

    /// Sort and check: within a file, two spans are equal or disjoint.
    pub fn check(&mut self) -> Result<()> {
        let s: &mut [Span] = match self {
            Spans::Slice(buf, n) => &mut buf[..*n],
            Spans::Entries(buf, n) => {
                use zerocopy::{FromBytes, IntoBytes};
                let pairs = <[[[u64; 2]; 2]]>::mut_from_bytes(buf[..2 * *n].as_mut_bytes())
                    .map_err(|_| Error::new(Kind::ScratchTooSmall))?;
                if !pairs.windows(2).all(|w| w[0] <= w[1]) {
                    pairs.sort_unstable();
                }
                let at = |i: usize| Span { file: pairs[i][0][0] as u32, offset: pairs[i][0][1], len: pairs[i][1][0] };
                return check_sorted(pairs.len(), at);
            }
            #[cfg(feature = "alloc")]
            Spans::Vec(v) => v,
        };
        if !s.windows(2).all(|w| w[0] <= w[1]) {
            s.sort_unstable(); // writers usually place blobs in manifest order: no sort
        }
        check_sorted(s.len(), |i| s[i])
    }
}

/// Spans `at(0..n)`, sorted: within a file, equal or disjoint.
fn check_sorted(n: usize, at: impl Fn(usize) -> Span) -> Result<()> {
    let mut end = 0u64; // furthest end in the current file so far
    for w in 0..n {
        let b = at(w);
        if w > 0 {
            let a = at(w - 1);
            if a.file == b.file {
                if a == b {
                    continue;
                }
                if b.offset < end {
                    return Err(Error::ctx(Kind::BlobOverlap, "blob"));
                }
            } else {
                end = 0;
            }
        }
        end = end.max(b.offset + b.len);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(v: &mut [Span]) -> Option<Kind> {
        let n = v.len();
        let mut s = Spans::Slice(v, n);
        s.check().err().map(|e| e.kind)
    }

    #[test]
    fn identical_or_disjoint() {
        let sp = |file, offset, len| Span { file, offset, len };
        assert_eq!(check(&mut [sp(0, 4096, 10), sp(0, 4096, 10), sp(0, 8192, 1)]), None);
        assert_eq!(check(&mut [sp(0, 4096, 8192), sp(0, 8192, 10)]), Some(Kind::BlobOverlap));
        assert_eq!(check(&mut [sp(0, 4096, 10), sp(0, 4096, 20)]), Some(Kind::BlobOverlap));
        // the same range in two files is fine
        assert_eq!(check(&mut [sp(0, 4096, 10), sp(1, 4096, 20)]), None);
        // a span inside a longer one that an identical pair follows
        assert_eq!(check(&mut [sp(0, 4096, 9000), sp(0, 4096, 9000), sp(0, 8192, 4)]), Some(Kind::BlobOverlap));
    }

    #[test]
    fn slice_scratch_runs_out_clearly() {
        let mut buf = [Span::default(); 1];
        let mut s = Spans::Slice(&mut buf, 0);
        s.push(Span { file: 0, offset: 4096, len: 1 }).unwrap();
        assert_eq!(s.push(Span { file: 0, offset: 8192, len: 1 }).unwrap_err().kind, Kind::ScratchTooSmall);
        assert!(s.push(Span { file: 0, offset: 8192, len: 0 }).is_ok());
    }
}
