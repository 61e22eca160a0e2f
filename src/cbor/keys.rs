//! CBOR's own rule for maps: no two keys are equal, compared by content
//! (so neither a non-minimal length head nor indefinite-length chunks hide
//! a duplicate). Keys are entries of a [`Scratch`], which provides the memory.

use super::{MAJOR_BYTES, MAJOR_NINT, MAJOR_TEXT, MAJOR_UINT};
use crate::error::{Error, ErrorKind, Result};
use crate::scratch::{Entry, Scratch};

/// The duplicate-key check over a scratch: push each key of a map, then
/// check the map's keys are pairwise different.
pub(crate) trait KeySet {
    /// Push the map key encoded at `buf[start..end]`, normalized so that
    /// equal keys compare equal whatever their encoding (see [`key_entry`]).
    fn push_key(&mut self, buf: &[u8], start: usize, end: usize) -> Result<()>;
    /// [`KeySet::push_key`] that says `false` when there is no room.
    fn try_push_key(&mut self, buf: &[u8], start: usize, end: usize) -> bool;
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

    #[inline]
    fn try_push_key(&mut self, buf: &[u8], start: usize, end: usize) -> bool {
        self.try_push(key_entry(buf, start, end))
    }

    fn set_key_end(&mut self, index: usize, end: usize) {
        // A container key is compared by its encoded bytes: `[start, end]`.
        if let Some(e) = self.segment(index).first_mut() {
            e[1] = end as u64;
        }
    }

    #[inline]
    fn check_unique(&mut self, buf: &[u8], seg: usize) -> Result<()> {
        match self.duplicate(buf, seg) {
            None => Ok(()),
            Some(at) => Err(Error::at(ErrorKind::DuplicateKey, at)),
        }
    }
}

impl Scratch<'_> {
    /// [`KeySet::check_unique`] without an `Error` (small frames for the
    /// CBOR walk): where the first repeated key is, if one is.
    #[inline]
    pub(crate) fn duplicate(&mut self, buf: &[u8], seg: usize) -> Option<usize> {
        if self.len() <= seg + 1 {
            self.truncate(seg);
            return None;
        }
        duplicate_in(self, buf, seg)
    }
}

fn duplicate_in(scratch: &mut Scratch<'_>, buf: &[u8], seg: usize) -> Option<usize> {
    let s = scratch.segment(seg);
    // A few keys are compared pairwise; more are sorted first, and then
    // equal keys are neighbours.
    let sorted = s.len() > 8;
    if sorted {
        #[cfg(feature = "alloc")]
        s.sort_unstable_by(|a, b| key_cmp(buf, a, b));
        // Equal keys in manifest order (the entry starts with its position).
        #[cfg(not(feature = "alloc"))]
        sort_keys(buf, s);
    }
    let dup = (1..s.len()).find_map(|i| {
        let earlier = if sorted { &s[i - 1..i] } else { &s[..i] };
        earlier.iter().any(|p| key_cmp(buf, p, &s[i]).is_eq()).then_some(s[i][0])
    });
    scratch.truncate(seg);
    dup.map(|at| (at & POS_MASK) as usize)
}

/// Heapsort of key entries by key, then position (equal keys in manifest
/// order): the no-`alloc` sort, written out so that the comparison adds no
/// frames of its own under the CBOR walk (the key check's deepest path).
/// (Keys and positions together are all different: any sort gives this order.)
#[cfg(not(feature = "alloc"))]
fn sort_keys(buf: &[u8], v: &mut [Entry]) {
    let n = v.len();
    let (mut start, mut end) = (n / 2, n);
    loop {
        if start > 0 {
            start -= 1;
        } else if end > 1 {
            end -= 1;
            crate::heapsort::swap(v, 0, end);
        } else {
            return;
        }
        // Sift the root down: swap it with the greater of itself and its children.
        let mut root = start;
        loop {
            let mut big = root;
            for child in 2 * root + 1..end.min(2 * root + 3) {
                // (Both below `end`: `get`, no panic path.)
                if let (Some(a), Some(b)) = (v.get(big), v.get(child)) {
                    if less(buf, a, b) {
                        big = child;
                    }
                }
            }
            if big == root {
                break;
            }
            crate::heapsort::swap(v, root, big);
            root = big;
        }
    }
}

/// `a` sorts before `b`: by key, then position.
#[cfg(not(feature = "alloc"))]
#[inline(always)]
fn less(buf: &[u8], a: &Entry, b: &Entry) -> bool {
    // (Equal keys have one tag: their positions as words.)
    key_cmp(buf, a, b).then((a[0] as usize).cmp(&(b[0] as usize))).is_lt()
}

const TAG_SHIFT: u32 = 61;
const POS_MASK: u64 = (1 << TAG_SHIFT) - 1;
const TAG_RAW: u64 = 0;
const TAG_TEXT: u64 = 1;
const TAG_BYTES: u64 = 2;
const TAG_UINT: u64 = 3;
const TAG_NINT: u64 = 4;
const _: () = assert!(TAG_NINT == TAG_UINT + MAJOR_NINT as u64 && MAJOR_UINT == 0);

/// A key as a scratch entry: `[tag << 61 | start, end-or-value]`.
///
/// Text and byte strings compare by content (so neither a non-minimal length
/// head nor indefinite-length chunks hide a duplicate), integers by value;
/// anything else by its encoded bytes.
pub(crate) fn key_entry(buf: &[u8], start: usize, end: usize) -> Entry {
    let tag = match super::decode_head(buf, start) {
        Some((MAJOR_TEXT, _, _)) => TAG_TEXT,
        Some((MAJOR_BYTES, _, _)) => TAG_BYTES,
        // (TAG_NINT is TAG_UINT + 1, as their majors.)
        Some((m @ (MAJOR_UINT | MAJOR_NINT), Some(v), _)) => return [(TAG_UINT + m as u64) << TAG_SHIFT | start as u64, v],
        _ => TAG_RAW,
    };
    [tag << TAG_SHIFT | start as u64, end as u64]
}

/// Where the key of entry `e` starts.
#[inline(always)]
fn pos(e: &Entry) -> usize {
    (e[0] & POS_MASK) as usize
}

/// The content of the definite string item at `start`; `None` for an
/// indefinite one (the key was walked: it is well formed).
#[inline]
pub(crate) fn definite(buf: &[u8], start: usize) -> Option<&[u8]> {
    // Short strings (names) without the head decoder.
    let ai = (*buf.get(start)? & 0x1f) as usize;
    if ai < 24 {
        return buf.get(start + 1..start + 1 + ai);
    }
    match super::decode_head(buf, start)? {
        (_, Some(n), at) => buf.get(at..at.checked_add(usize::try_from(n).ok()?)?),
        _ => None,
    }
}

fn key_cmp(buf: &[u8], a: &Entry, b: &Entry) -> core::cmp::Ordering {
    // (Entries by reference, not copied into every caller's frame.)
    let (a, b) = (core::hint::black_box(a), core::hint::black_box(b));
    // (Tags as u32: three bits.)
    let (ta, tb) = ((a[0] >> TAG_SHIFT) as u32, (b[0] >> TAG_SHIFT) as u32);
    ta.cmp(&tb).then_with(|| match ta as u64 {
        TAG_UINT | TAG_NINT => a[1].cmp(&b[1]),
        _ => {
            // The full reader's fast path: two definite strings.
            #[cfg(feature = "alloc")]
            if let (TAG_TEXT | TAG_BYTES, Some(x), Some(y)) = (ta as u64, definite(buf, pos(a)), definite(buf, pos(b))) {
                return x.cmp(y);
            }
            // Byte by byte, chunks and all: byte order, shorter first
            // (the end, 0, sorts first).
            let (mut x, mut y) = (Chunks::of(a), Chunks::of(b));
            loop {
                let (p, q) = (x.next(buf), y.next(buf));
                if p != q || p == 0 {
                    return p.cmp(&q);
                }
            }
        }
    })
}

/// The head of the (well-formed) string item or chunk at `p`: its length
/// (`None`: chunked) and where its content starts.
#[inline(always)]
fn string_head(buf: &[u8], p: usize) -> Option<(Option<usize>, usize)> {
    let (ai, mut at) = ((*buf.get(p)? & 0x1f) as usize, p + 1);
    match ai {
        0..=23 => Some((Some(ai), at)),
        24..=27 => {
            let n = 1usize << (ai - 24);
            let mut len = 0usize;
            for &b in buf.get(at..at + n)? {
                len = len << 8 | b as usize;
            }
            at += n;
            Some((Some(len), at))
        }
        31 => Some((None, at)),
        _ => None,
    }
}

/// A cursor over a key's content, chunk by chunk: the current chunk is
/// `[at, end)` (without [`MORE`]), or `at` is [`HEAD`].
struct Chunks {
    at: usize,
    end: usize,
}

/// In [`Chunks::at`]: the string item's own head is at `end`, not yet read.
const HEAD: usize = usize::MAX;
/// In [`Chunks::end`]: an indefinite string's next chunk head (or its
/// break) is at the chunk's end. (A position is below `isize::MAX`.)
const MORE: usize = 1 << (usize::BITS - 1);

impl Chunks {
    /// The content of the key of entry `e`: a string's, or its encoded bytes.
    #[inline(always)]
    fn of(e: &Entry) -> Chunks {
        match e[0] >> TAG_SHIFT {
            TAG_RAW => Chunks { at: pos(e), end: e[1] as usize },
            _ => Chunks { at: HEAD, end: pos(e) },
        }
    }

    /// The next byte of the content plus one, past any chunk used up; 0
    /// at the end. (Out of line: one copy, and a small frame under the sort.)
    #[inline(never)]
    fn next(&mut self, buf: &[u8]) -> u32 {
        while self.at == HEAD || self.end == self.at | MORE {
            // A definite string (the walk checked an indefinite one's
            // chunks), an indefinite one's first chunk to come, or the break
            // (`more`: a chunk's head, not the item's).
            let (more, p) = (self.end & MORE, self.end & !MORE);
            (self.at, self.end) = match string_head(buf, p) {
                Some((Some(n), at)) => (at, at.saturating_add(n).min(buf.len()) | more),
                Some((None, at)) if more == 0 => (at, at | MORE),
                _ => (p, p),
            };
        }
        match buf.get(self.at) {
            Some(&b) if self.at < self.end & !MORE => {
                self.at += 1;
                b as u32 + 1
            }
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cbor::Reader;
    use core::cmp::Ordering::{self, *};

    /// Compare the two string items that `buf` holds one after the other.
    fn cmp(buf: &[u8]) -> Ordering {
        let mut r = Reader::new(buf);
        r.walk(0, None).unwrap();
        let mid = r.pos;
        r.walk(0, None).unwrap();
        key_cmp(buf, &key_entry(buf, 0, mid), &key_entry(buf, mid, r.pos))
    }

    /// Maps of 9 to 40 keys (past the pairwise check: the sort), some
    /// chunked, with and without a repeated key: found exactly when there
    /// is one, at one of its places.
    #[test]
    fn big_maps_find_their_repeated_key() {
        extern crate std;
        let mut x: u32 = 0x2545_f491;
        for n in 9..40usize {
            for dup in [false, true] {
                // Keys "k<i>", every third one chunked as (_ "k" "<i>").
                let mut buf = std::vec::Vec::new();
                let mut starts = std::vec::Vec::new();
                for i in 0..n {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    let id = if dup && i == n - 1 { (x as usize) % (n - 1) } else { i };
                    let digits = std::format!("{id:02}");
                    starts.push(buf.len());
                    if i % 3 == 0 {
                        buf.extend_from_slice(&[0x7f, 0x61, b'k', 0x62]);
                        buf.extend_from_slice(digits.as_bytes());
                        buf.push(0xff);
                    } else {
                        buf.push(0x63);
                        buf.push(b'k');
                        buf.extend_from_slice(digits.as_bytes());
                    }
                }
                let mut mem = [[0u64; 2]; 64];
                let mut scratch = Scratch::new(&mut mem);
                for (i, &st) in starts.iter().enumerate() {
                    let end = starts.get(i + 1).copied().unwrap_or(buf.len());
                    assert!(scratch.try_push_key(&buf, st, end));
                }
                let found = scratch.duplicate(&buf, 0);
                assert_eq!(found.is_some(), dup, "n = {n}");
                if let Some(at) = found {
                    assert!(starts.contains(&at), "n = {n}: {at}");
                }
                assert_eq!(scratch.len(), 0);
            }
        }
    }

    /// The no-`alloc` heapsort orders keys (many equal, some chunked) by
    /// key, then position: each entry before the next, none lost.
    #[cfg(not(feature = "alloc"))]
    #[test]
    fn the_heapsort_orders_keys_then_positions() {
        extern crate std;
        let mut x: u32 = 0x9e37_79b9;
        for n in 0..40usize {
            let mut buf = std::vec::Vec::new();
            let mut mem = [[0u64; 2]; 40];
            let mut scratch = Scratch::new(&mut mem);
            for i in 0..n {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                let (start, id) = (buf.len(), b'a' + (x % 6) as u8);
                if i % 3 == 0 {
                    buf.extend_from_slice(&[0x7f, 0x61, b'k', 0x61, id, 0xff]);
                } else {
                    buf.extend_from_slice(&[0x62, b'k', id]);
                }
                assert!(scratch.try_push_key(&buf, start, buf.len()));
            }
            let s = scratch.segment(0);
            let mut before: std::vec::Vec<u64> = s.iter().map(|e| e[0]).collect();
            sort_keys(&buf, s);
            assert!(s.windows(2).all(|w| less(&buf, &w[0], &w[1])), "n = {n}");
            let mut after: std::vec::Vec<u64> = s.iter().map(|e| e[0]).collect();
            before.sort();
            after.sort();
            assert_eq!(before, after, "n = {n}");
        }
    }

    #[test]
    fn strings_compare_by_content_whatever_their_chunks() {
        // "ab" vs (_ "a" "b"), (_ "a" "b") vs (_ "ab"), (_ "" "ab") vs "ab": equal.
        assert_eq!(cmp(&[0x62, b'a', b'b', 0x7f, 0x61, b'a', 0x61, b'b', 0xff]), Equal);
        assert_eq!(cmp(&[0x7f, 0x61, b'a', 0x61, b'b', 0xff, 0x7f, 0x62, b'a', b'b', 0xff]), Equal);
        assert_eq!(cmp(&[0x7f, 0x60, 0x62, b'a', b'b', 0xff, 0x62, b'a', b'b']), Equal);
        // Content order, shorter first: (_ "a" "c") > "ab"; (_) < "a"; "a" < (_ "a" "a").
        assert_eq!(cmp(&[0x7f, 0x61, b'a', 0x61, b'c', 0xff, 0x62, b'a', b'b']), Greater);
        assert_eq!(cmp(&[0x7f, 0xff, 0x61, b'a']), Less);
        assert_eq!(cmp(&[0x61, b'a', 0x7f, 0x61, b'a', 0x61, b'a', 0xff]), Less);
        // A non-minimal length head hides nothing: "a" vs 0x78 0x01 "a".
        assert_eq!(cmp(&[0x61, b'a', 0x78, 0x01, b'a']), Equal);
        // Bytes and text never compare equal; chunked bytes like text.
        assert_ne!(cmp(&[0x41, b'a', 0x61, b'a']), Equal);
        assert_eq!(cmp(&[0x5f, 0x41, b'a', 0xff, 0x41, b'a']), Equal);
    }
}
