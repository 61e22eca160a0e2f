//! Working memory for the checks that need sorting: duplicate keys, duplicate
//! object names and blob overlap.
//!
//! With `alloc` it grows as needed; without, it is a caller's slice (or a
//! small array on the stack) and running out is a clear
//! [`ErrorKind::ScratchTooSmall`] error, never a silent skip of a check.

use crate::error::{Error, ErrorKind, Result};

/// One scratch entry: a pair of numbers (a byte span, or a key and an index).
pub type Entry = [u64; 2];

/// Entries used when a no-`alloc` caller gives no scratch of its own.
pub const DEFAULT_ENTRIES: usize = 128;

enum Buf<'s> {
    Slice(&'s mut [Entry]),
    #[cfg(feature = "alloc")]
    Vec(alloc::vec::Vec<Entry>),
}

/// A stack of [`Entry`]s.
pub struct Scratch<'s> {
    buf: Buf<'s>,
    len: usize,
}

impl<'s> Scratch<'s> {
    /// Scratch over a caller's slice: never allocates.
    pub fn new(slice: &'s mut [Entry]) -> Self {
        Scratch { buf: Buf::Slice(slice), len: 0 }
    }

    /// Growable scratch.
    #[cfg(feature = "alloc")]
    pub fn growable() -> Self {
        Scratch { buf: Buf::Vec(alloc::vec::Vec::new()), len: 0 }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub(crate) fn push(&mut self, e: Entry) -> Result<()> {
        match &mut self.buf {
            Buf::Slice(s) => {
                let Some(slot) = s.get_mut(self.len) else {
                    return Err(Error::new(ErrorKind::ScratchTooSmall { needed: self.len as u64 + 1 }));
                };
                *slot = e;
            }
            #[cfg(feature = "alloc")]
            Buf::Vec(v) => {
                v.truncate(self.len);
                v.push(e);
            }
        }
        self.len += 1;
        Ok(())
    }

    pub(crate) fn segment(&mut self, start: usize) -> &mut [Entry] {
        let len = self.len;
        match &mut self.buf {
            Buf::Slice(s) => &mut s[start..len],
            #[cfg(feature = "alloc")]
            Buf::Vec(v) => &mut v[start..len],
        }
    }

    pub(crate) fn truncate(&mut self, start: usize) {
        self.len = self.len.min(start);
    }

    /// Push the map key encoded at `buf[start..end]`, normalized so that
    /// equal keys compare equal whatever their encoding (see [`key_entry`]).
    #[inline]
    pub(crate) fn push_key(&mut self, buf: &[u8], start: usize, end: usize) -> Result<()> {
        self.push(key_entry(buf, start, end)).map_err(|e| e.or_at(start))
    }

    /// Check that the keys pushed since `seg` (see [`key_entry`]) are
    /// pairwise different, then pop them.
    #[inline]
    pub(crate) fn check_unique(&mut self, buf: &[u8], seg: usize) -> Result<()> {
        if self.len <= seg + 1 {
            self.truncate(seg);
            return Ok(());
        }
        self.check_segment(buf, seg)
    }

    fn check_segment(&mut self, buf: &[u8], seg: usize) -> Result<()> {
        let s = self.segment(seg);
        let dup = if s.len() <= 8 {
            (1..s.len()).find_map(|i| s[..i].iter().any(|p| key_cmp(buf, p, &s[i]).is_eq()).then_some(s[i][0]))
        } else {
            s.sort_unstable_by(|a, b| key_cmp(buf, a, b));
            s.windows(2).find(|w| key_cmp(buf, &w[0], &w[1]).is_eq()).map(|w| w[1][0])
        };
        self.truncate(seg);
        match dup {
            Some(at) => Err(Error::at(ErrorKind::DuplicateKey, (at & POS_MASK) as usize)),
            None => Ok(()),
        }
    }
}

const TAG_SHIFT: u32 = 61;
const POS_MASK: u64 = (1 << TAG_SHIFT) - 1;
const TAG_RAW: u64 = 0;
pub(crate) const TAG_TEXT: u64 = 1;
const TAG_BYTES: u64 = 2;
const TAG_UINT: u64 = 3;
const TAG_NINT: u64 = 4;

/// A key as a scratch entry: `[tag << 61 | start, end-or-value]`.
///
/// Text and byte strings compare by content (so neither a non-minimal length
/// head nor indefinite-length chunks hide a duplicate), integers by value;
/// anything else by its encoded bytes.
pub(crate) fn key_entry(buf: &[u8], start: usize, end: usize) -> Entry {
    let mut r = crate::cbor::Reader::at(buf, start);
    let tag = match r.head() {
        Ok((crate::cbor::MAJOR_TEXT, _)) => TAG_TEXT,
        Ok((crate::cbor::MAJOR_BYTES, _)) => TAG_BYTES,
        Ok((crate::cbor::MAJOR_UINT, Some(v))) => return [TAG_UINT << TAG_SHIFT | start as u64, v],
        Ok((crate::cbor::MAJOR_NINT, Some(v))) => return [TAG_NINT << TAG_SHIFT | start as u64, v],
        _ => TAG_RAW,
    };
    [tag << TAG_SHIFT | start as u64, end as u64]
}

/// The content of the (well-formed) string item at `start`, chunk by chunk.
fn string_chunks(buf: &[u8], start: usize) -> impl Iterator<Item = &[u8]> {
    let mut r = crate::cbor::Reader::at(buf, start);
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
