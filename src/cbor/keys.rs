//! CBOR's own rule for maps: no two keys are equal, compared by content
//! (so neither a non-minimal length head nor indefinite-length chunks hide
//! a duplicate). Keys are entries of a [`Scratch`], which provides the memory.

use super::{Reader, MAJOR_BYTES, MAJOR_NINT, MAJOR_TEXT, MAJOR_UINT};
use crate::error::{Error, ErrorKind, Result};
use crate::scratch::{Entry, Scratch};

/// The duplicate-key check over a scratch: push each key of a map, then
/// check the map's keys are pairwise different.
pub(crate) trait KeySet {
    /// Push the map key encoded at `buf[start..end]`, normalized so that
    /// equal keys compare equal whatever their encoding (see [`key_entry`]).
    fn push_key(&mut self, buf: &[u8], start: usize, end: usize) -> Result<()>;
    /// Check that the keys pushed since `seg` are pairwise different, then pop them.
    fn check_unique(&mut self, buf: &[u8], seg: usize) -> Result<()>;
    /// Set the end of the key at `index`, pushed (by `push_key`) with its
    /// start only: a container key, whose end is known when it closes.
    fn set_key_end(&mut self, index: usize, end: usize);
}

impl KeySet for Scratch<'_> {
    #[inline]
    fn push_key(&mut self, buf: &[u8], start: usize, end: usize) -> Result<()> {
        self.push(key_entry(buf, start, end)).map_err(|e| e.or_at(start))
    }

    fn set_key_end(&mut self, index: usize, end: usize) {
        // A container key is compared by its encoded bytes: `[start, end]`.
        if let Some(e) = self.segment(index).first_mut() {
            e[1] = end as u64;
        }
    }

    #[inline]
    fn check_unique(&mut self, buf: &[u8], seg: usize) -> Result<()> {
        if self.len() <= seg + 1 {
            self.truncate(seg);
            return Ok(());
        }
        check_segment(self, buf, seg)
    }
}

fn check_segment(scratch: &mut Scratch<'_>, buf: &[u8], seg: usize) -> Result<()> {
    let s = scratch.segment(seg);
    let dup = if s.len() <= 8 {
        (1..s.len()).find_map(|i| s[..i].iter().any(|p| key_cmp(buf, p, &s[i]).is_eq()).then_some(s[i][0]))
    } else {
        #[cfg(feature = "alloc")]
        s.sort_unstable_by(|a, b| key_cmp(buf, a, b));
        // Equal keys in manifest order (the entry starts with its position).
        #[cfg(not(feature = "alloc"))]
        crate::heapsort::sort_by(s, |a, b| key_cmp(buf, a, b).then(a[0].cmp(&b[0])));
        s.windows(2).find(|w| key_cmp(buf, &w[0], &w[1]).is_eq()).map(|w| w[1][0])
    };
    scratch.truncate(seg);
    match dup {
        Some(at) => Err(Error::at(ErrorKind::DuplicateKey, (at & POS_MASK) as usize)),
        None => Ok(()),
    }
}

const TAG_SHIFT: u32 = 61;
const POS_MASK: u64 = (1 << TAG_SHIFT) - 1;
const TAG_RAW: u64 = 0;
const TAG_TEXT: u64 = 1;
const TAG_BYTES: u64 = 2;
const TAG_UINT: u64 = 3;
const TAG_NINT: u64 = 4;

/// A key as a scratch entry: `[tag << 61 | start, end-or-value]`.
///
/// Text and byte strings compare by content (so neither a non-minimal length
/// head nor indefinite-length chunks hide a duplicate), integers by value;
/// anything else by its encoded bytes.
pub(crate) fn key_entry(buf: &[u8], start: usize, end: usize) -> Entry {
    let mut r = Reader::at(buf, start);
    let tag = match r.head() {
        Ok((MAJOR_TEXT, _)) => TAG_TEXT,
        Ok((MAJOR_BYTES, _)) => TAG_BYTES,
        Ok((MAJOR_UINT, Some(v))) => return [TAG_UINT << TAG_SHIFT | start as u64, v],
        Ok((MAJOR_NINT, Some(v))) => return [TAG_NINT << TAG_SHIFT | start as u64, v],
        _ => TAG_RAW,
    };
    [tag << TAG_SHIFT | start as u64, end as u64]
}

/// The content of the (well-formed) string item at `start`, chunk by chunk.
fn string_chunks(buf: &[u8], start: usize) -> impl Iterator<Item = &[u8]> {
    let mut r = Reader::at(buf, start);
    let definite = match r.head() {
        Ok((_, Some(n))) => r.bytes(n).ok(),
        _ => None,
    };
    let mut first = true;
    core::iter::from_fn(move || {
        if let Some(d) = definite {
            return core::mem::replace(&mut first, false).then_some(d);
        }
        if r.take_break().unwrap_or(true) {
            return None;
        }
        let (_, n) = r.head().ok()?;
        r.bytes(n?).ok()
    })
}

fn key_cmp(buf: &[u8], a: &Entry, b: &Entry) -> core::cmp::Ordering {
    let (ta, tb) = (a[0] >> TAG_SHIFT, b[0] >> TAG_SHIFT);
    let (sa, sb) = ((a[0] & POS_MASK) as usize, (b[0] & POS_MASK) as usize);
    ta.cmp(&tb).then_with(|| match ta {
        TAG_UINT | TAG_NINT => a[1].cmp(&b[1]),
        TAG_TEXT | TAG_BYTES => {
            let (mut ca, mut cb) = (string_chunks(buf, sa), string_chunks(buf, sb));
            match (ca.next(), cb.next()) {
                // The common case: two definite strings.
                (Some(x), Some(y)) if buf[sa] & 0x1f != 31 && buf[sb] & 0x1f != 31 => x.cmp(y),
                (x, y) => x.into_iter().chain(ca).flatten().cmp(y.into_iter().chain(cb).flatten()),
            }
        }
        _ => buf[sa..a[1] as usize].cmp(&buf[sb..b[1] as usize]),
    })
}
