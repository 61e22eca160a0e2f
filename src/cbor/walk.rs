//! The CBOR walk: skip one item, checking everything (well-formedness,
//! UTF-8, nesting depth and, with keys, duplicate map keys), iteratively,
//! with small frames.

use super::{decode_head, Reader, MAJOR_ARRAY, MAJOR_BYTES, MAJOR_MAP, MAJOR_SIMPLE, MAJOR_TAG, MAJOR_TEXT, MAX_DEPTH};
use crate::cbor::keys::KeySet;
use crate::error::{Error, ErrorKind, Result};
use crate::scratch::Scratch;

impl<'a> Reader<'a> {
    /// Skip one complete item, checking well-formedness, UTF-8, nesting depth
    /// and, when `keys` is given, duplicate keys in every map inside it.
    ///
    /// Iterative. Without keys its frames are one word each, [`MAX_DEPTH`]
    /// of them on the stack; with keys two words each, [`LOCAL_FRAMES`] on
    /// the stack, and deeper containers spill their frames into `keys` (one
    /// entry each, below their keys): a caller's fixed scratch then also
    /// holds one entry per level past [`LOCAL_FRAMES`]. When a fixed scratch
    /// runs out, the item is walked again without keys: an invalid item
    /// says what is wrong with it; a valid one, that the scratch is too small.
    pub fn walk(&mut self, depth: usize, mut keys: Option<&mut Scratch<'_>>) -> Result<()> {
        match self.walk_bad(depth, keys.as_deref_mut()) {
            Ok(()) => Ok(()),
            // (A full scratch is as it was then: the walk again has no keys.)
            Err(bad) => self.walk_error(bad, keys.map_or(0, |k| k.len() as u64 + 1)),
        }
    }

    /// [`Reader::walk`] whose failure is a small record of what went wrong
    /// and where (the compact reader's, and the `Error` built from it once,
    /// out of line). With one walk, the call is the walk's own.
    #[cfg_attr(feature = "alloc", inline)]
    #[cfg_attr(not(feature = "alloc"), inline(always))]
    pub(crate) fn walk_bad(&mut self, depth: usize, keys: Option<&mut Scratch<'_>>) -> Result<(), Bad> {
        let start = self.pos;
        let r = match keys {
            None => self.walk_in::<MAX_DEPTH, ONE_WALK>(depth, None),
            Some(k) => self.walk_in::<{ if ONE_WALK { MAX_DEPTH } else { 2 * LOCAL_FRAMES } }, true>(depth, Some(k)),
        };
        match r {
            Ok(()) => Ok(()),
            // (One walk walks again itself.)
            Err(bad) if ONE_WALK => Err(bad),
            Err(bad) => self.walk_failed(start, depth, bad),
        }
    }

    /// What the walk from `start` found wrong; when its scratch was full,
    /// what walking again without keys finds first.
    #[cold]
    #[inline(never)]
    fn walk_failed(&mut self, start: usize, depth: usize, bad: Bad) -> Result<(), Bad> {
        if bad.what == What::Scratch {
            self.pos = start;
            self.walk_in::<MAX_DEPTH, ONE_WALK>(depth, None)?;
        }
        Err(bad)
    }

    /// [`Reader::walk`] on `N` words of frames, with keys or without (see
    /// there; out of line, so that each has its own frame). With one walk
    /// ([`ONE_WALK`]), a full scratch is handled here as
    /// [`Reader::walk_failed`] does: the item is walked again without keys.
    #[inline(never)]
    fn walk_in<const N: usize, const KEYS: bool>(&mut self, depth: usize, keys: Option<&mut Scratch<'_>>) -> Result<(), Bad> {
        // (Each instance knows whether it has keys: the other's code drops out.)
        let mut keys = if KEYS { keys } else { None };
        let origin = self.pos;
        // The full scratch's failure, when walking again.
        let mut full = None;
        loop {
            let Some(at) = self.walk_once::<N>(depth, keys.as_deref_mut(), full)? else { return Ok(()) };
            let bad = Bad { what: What::Scratch, at };
            if !ONE_WALK {
                return Err(bad);
            }
            (full, keys) = (Some(bad), None);
            self.pos = origin;
        }
    }

    /// One walk of [`Reader::walk_in`]: a full scratch returns where; a
    /// success, `full` (the full scratch of the walk before) if there is one.
    #[inline(always)]
    fn walk_once<const N: usize>(&mut self, depth: usize, mut keys: Option<&mut Scratch<'_>>, full: Option<Bad>) -> Result<Option<usize>, Bad> {
        let mut frames = Frames { words: [0; N], sp: 0 };
        // The innermost container, kept apart from `frames` (before the
        // first one: a frame that is no map and takes no break).
        let mut cur = Frame { left: 0, seg: 0 };
        // The item being read (an indefinite string: its head), and the
        // major type of the indefinite string whose chunks are being read.
        let mut start = 0;
        let mut chunks = 0;
        let fail = |what, at| Err(Bad { what, at });
        loop {
            // Read one head (tags prefix the item that follows).
            let at = self.pos;
            let Some((major, arg, end)) = decode_head(self.buf, at) else { return fail(What::Head, at) };
            self.pos = end;
            if chunks == 0 {
                start = at;
            }
            // The current container ends (a break, or its last item).
            let mut ends = false;
            match (major, arg) {
                // In an indefinite string: definite chunks of its type, then a break.
                _ if chunks != 0 && (major != chunks || arg.is_none()) => {
                    if (major, arg) != (MAJOR_SIMPLE, None) {
                        self.pos = at;
                        return fail(What::Indefinite, at);
                    }
                    chunks = 0;
                }
                (MAJOR_BYTES | MAJOR_TEXT, Some(n)) => {
                    let Some(b) = self.take(n) else {
                        // (At the head: `walk_error` reads the length
                        // claimed, then stops past the head, at `end`.)
                        self.pos = at;
                        return fail(What::Length, end);
                    };
                    if major == MAJOR_TEXT && !crate::utf8::valid(b) {
                        return fail(What::Utf8, at);
                    }
                    if chunks != 0 {
                        continue;
                    }
                }
                (MAJOR_BYTES | MAJOR_TEXT, None) => {
                    chunks = major;
                    continue;
                }
                // A tag nests its content: it is a frame holding one item, so
                // tag chains count toward the depth limit like containers.
                (MAJOR_ARRAY | MAJOR_MAP | MAJOR_TAG, _) => {
                    let left = match arg {
                        _ if major == MAJOR_TAG => 1,
                        None => INDEFINITE,
                        // A map's entries are two items; each item takes a byte.
                        Some(n) => {
                            let shift = (major == MAJOR_MAP) as u32;
                            if n > (self.remaining() >> shift) as u64 {
                                // (At the head, as for a string.)
                                self.pos = at;
                                return fail(What::Length, at);
                            }
                            (n as usize) << shift
                        }
                    };
                    if left != 0 {
                        if depth + frames.sp + 1 > MAX_DEPTH {
                            return fail(What::Deep, at);
                        }
                        let flags = if major == MAJOR_MAP { MAP | KEY_NEXT } else { 0 };
                        if let Some(k) = keys.as_deref_mut() {
                            // A container that is a map key: its entry now,
                            // its end when it closes (the entry sits just
                            // below this frame's keys, and its spilled frame).
                            if cur.map() && cur.key_next() && !k.try_push_key(self.buf, at, at) {
                                return Ok(Some(at));
                            }
                        }
                        if !frames.push(keys.as_deref_mut(), &mut cur, Frame { left, seg: flags }) {
                            return Ok(Some(at));
                        }
                        continue;
                    }
                }
                // A break: ends the innermost indefinite container.
                (MAJOR_SIMPLE, None) => {
                    if cur.left != INDEFINITE || (cur.map() && !cur.key_next()) {
                        return fail(What::Indefinite, at);
                    }
                    ends = true;
                }
                // Integers, simple values, floats.
                _ => {}
            }
            // An item is complete: [start, pos), or the current container,
            // which then completes an item of its parent.
            loop {
                // Where the closed container's entries started.
                let mut closed = None;
                if ends {
                    match frames.pop(keys.as_deref_mut(), self.buf, &mut cur) {
                        Ok(c) => closed = Some(c),
                        Err(dup) => return fail(What::Duplicate, dup),
                    }
                }
                if frames.sp == 0 {
                    return full.map_or(Ok(None), Err);
                }
                if let Some(k) = keys.as_deref_mut() {
                    if cur.map() && cur.key_next() {
                        match closed {
                            None => {
                                if !k.try_push_key(self.buf, start, self.pos) {
                                    return Ok(Some(start));
                                }
                            }
                            // Its key entry sits just below where it started.
                            Some(c) => k.set_key_end(c - 1, self.pos),
                        }
                    }
                }
                cur.seg ^= KEY_NEXT;
                if cur.left == INDEFINITE {
                    break;
                }
                cur.left -= 1;
                ends = cur.left == 0;
                if !ends {
                    break;
                }
            }
        }
    }

    /// `n` payload bytes, when that many remain (consumed).
    #[inline(always)]
    fn take(&mut self, n: u64) -> Option<&'a [u8]> {
        let n = usize::try_from(n).ok().filter(|&n| n <= self.remaining())?;
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Some(s)
    }

    /// The `Error` of what a walk found wrong (`needed`: the entries a
    /// full scratch needed). A length too large is read again from its
    /// head, where the walk stopped, and the reader stops past the head.
    #[cold]
    #[inline(never)]
    fn walk_error(&mut self, bad: Bad, needed: u64) -> Result<()> {
        let kind = match bad.what {
            What::Head => return Reader::at(self.buf, bad.at).head_error(),
            What::Length => {
                let (_, claimed, end) = decode_head(self.buf, self.pos).unwrap_or((0, None, self.pos));
                self.pos = end;
                ErrorKind::LengthTooLarge { claimed: claimed.unwrap_or(0) }
            }
            What::Utf8 => ErrorKind::CborInvalidUtf8,
            What::Indefinite => ErrorKind::CborBadIndefinite,
            What::Deep => ErrorKind::TooDeep,
            What::Duplicate => ErrorKind::DuplicateKey,
            What::Scratch => ErrorKind::ScratchTooSmall { needed },
        };
        Err(Error::at(kind, bad.at))
    }
}

/// What a walk found wrong, and where: small (two words, returned in
/// registers), where an `Error` would take 48 bytes of every frame it
/// passes through. (`walk_error` finds the figures: a length claimed,
/// the scratch entries needed.)
#[derive(Clone, Copy)]
pub(crate) struct Bad {
    pub what: What,
    pub at: usize,
}

/// What a walk found wrong.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum What {
    /// The head does not decode (truncated, reserved).
    Head,
    Length,
    Utf8,
    Indefinite,
    Deep,
    Duplicate,
    Scratch,
}

/// Frames [`Reader::walk`] keeps on the stack with keys; deeper ones
/// spill (see there).
pub(crate) const LOCAL_FRAMES: usize = 8;

// With keys, the local frames' two words each fit in either walk's `N`.
const _: () = assert!(MAX_DEPTH >= 2 * LOCAL_FRAMES);

/// Without `alloc` (firmware), one instance of the walk serves with keys
/// and without (less code; the walk with keys has a 256-byte frame instead
/// of 64); with `alloc`, each has its own.
const ONE_WALK: bool = !cfg!(feature = "alloc");

/// A container being walked.
#[derive(Clone, Copy)]
struct Frame {
    /// Items left (maps count keys and values); [`INDEFINITE`] for an
    /// indefinite-length container. A definite count is at most the bytes
    /// that remain, so below `isize::MAX`.
    left: usize,
    /// With keys: scratch length when this container's keys start (after
    /// its own key entry, when it is a map key, and its spilled frame),
    /// with [`MAP`] (a map) and [`KEY_NEXT`] (for maps: the next item is a
    /// key). A scratch holds at most `isize::MAX / 16` entries, so the top
    /// two bits are free.
    seg: usize,
}

const MAP: usize = 1 << (usize::BITS - 1);
const KEY_NEXT: usize = 1 << (usize::BITS - 2);
const FLAGS: usize = MAP | KEY_NEXT;
const INDEFINITE: usize = usize::MAX;

impl Frame {
    fn map(&self) -> bool {
        self.seg & MAP != 0
    }
    fn key_next(&self) -> bool {
        self.seg & KEY_NEXT != 0
    }
    fn seg(&self) -> usize {
        self.seg & !FLAGS
    }

    /// One word: a definite count as it is (below `isize::MAX`); an
    /// indefinite container as its flags, top bit set. (All a walk without
    /// keys keeps; with keys, `seg` is kept too.)
    fn word(self) -> usize {
        if self.left == INDEFINITE {
            MAP | (self.seg & FLAGS) >> 2
        } else {
            self.left
        }
    }

    fn of_word(w: usize) -> Frame {
        if w & MAP != 0 {
            Frame { left: INDEFINITE, seg: (w << 2) & FLAGS }
        } else {
            Frame { left: w, seg: 0 }
        }
    }
}

/// A walk's frames in `N` words: frame `i` in word `i` (see
/// [`Frame::word`]; without keys, `N` is [`MAX_DEPTH`]); with keys, the
/// first [`LOCAL_FRAMES`] that way and their `seg` in word `N - 1 - i`,
/// deeper ones in the scratch, one entry each, `[left, flags | the
/// entry of the spilled frame below]`, followed by that container's keys
/// (its `seg` is its entry + 1). The current frame is the walk's own (in
/// registers): its slot is written when a frame is pushed above it.
struct Frames<const N: usize> {
    words: [usize; N],
    /// Frames in use, local and spilled, the current one included.
    sp: usize,
}

impl<const N: usize> Frames<N> {
    /// Make `f` the current frame `cur`, whose parent `cur` was (stored;
    /// `f` spilled into `keys` past the local frames); `false` when the
    /// scratch has no room for it.
    fn push(&mut self, mut keys: Option<&mut Scratch<'_>>, cur: &mut Frame, mut f: Frame) -> bool {
        let i = self.sp;
        if i > 0 {
            self.store(keys.as_deref_mut(), i - 1, *cur);
        }
        if let Some(k) = keys {
            // (The frame below's entry is just below its keys; the first
            // spilled frame's link is never read.)
            if i >= LOCAL_FRAMES && !k.try_push([0, cur.seg().wrapping_sub(1) as u64]) {
                return false;
            }
            f.seg |= k.len();
        }
        *cur = f;
        self.sp += 1;
        true
    }

    /// Close the current frame `cur` (its map's keys are checked and
    /// popped, and a spilled frame's entry with them) and make its parent
    /// current. Returns where its keys (and its entry) started; or where
    /// a repeated key is.
    #[inline(always)]
    fn pop(&mut self, mut keys: Option<&mut Scratch<'_>>, buf: &[u8], cur: &mut Frame) -> Result<usize, usize> {
        let mut seg = cur.seg();
        self.sp -= 1;
        // The entry of the spilled frame below, if it is one.
        let mut below = 0;
        if let Some(k) = keys.as_deref_mut() {
            if cur.map() {
                if let Some(at) = k.duplicate(buf, seg) {
                    return Err(at);
                }
            }
            if self.sp >= LOCAL_FRAMES {
                seg -= 1;
                below = k.entry(seg)[1] as usize & !FLAGS;
                k.truncate(seg);
            }
        }
        if self.sp > 0 {
            *cur = self.load(keys, self.sp - 1, below);
        }
        Ok(seg)
    }

    /// Keep frame `i`, below the current one.
    fn store(&mut self, keys: Option<&mut Scratch<'_>>, i: usize, f: Frame) {
        match keys {
            Some(k) if i >= LOCAL_FRAMES => {
                let e = k.entry(f.seg() - 1);
                *e = [f.left as u64, (e[1] as usize & !FLAGS | f.seg & FLAGS) as u64];
            }
            _ => {
                self.words[i] = f.word();
                if keys.is_some() {
                    self.words[N - 1 - i] = f.seg;
                }
            }
        }
    }

    /// Frame `i`, as [`Frames::store`] kept it (spilled: its entry at `at`).
    fn load(&self, keys: Option<&mut Scratch<'_>>, i: usize, at: usize) -> Frame {
        match keys {
            Some(k) if i >= LOCAL_FRAMES => {
                let e = *k.entry(at);
                Frame { left: e[0] as usize, seg: (at + 1) | (e[1] as usize & FLAGS) }
            }
            _ => {
                let mut f = Frame::of_word(self.words[i]);
                if keys.is_some() {
                    f.seg = self.words[N - 1 - i];
                }
                f
            }
        }
    }
}
