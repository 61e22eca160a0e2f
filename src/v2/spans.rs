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
            #[cfg(feature = "alloc")]
            Spans::Vec(v) => v.push(s),
        }
        Ok(())
    }

    /// Sort and check: within a file, two spans are equal or disjoint.
    pub fn check(&mut self) -> Result<()> {
        let s: &mut [Span] = match self {
            Spans::Slice(buf, n) => &mut buf[..*n],
            #[cfg(feature = "alloc")]
            Spans::Vec(v) => v,
        };
        s.sort_unstable();
        check_sorted(s)
    }
}

fn check_sorted(s: &[Span]) -> Result<()> {
    let mut end = 0u64; // furthest end in the current file so far
    for w in 0..s.len() {
        let b = s[w];
        if w > 0 {
            let a = s[w - 1];
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
