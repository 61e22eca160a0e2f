//! The CBOR walk: skip one item, checking everything (well-formedness,
//! UTF-8, nesting depth and, with keys, duplicate map keys), iteratively,
//! with small frames.

use super::{decode_head, Reader, MAJOR_ARRAY, MAJOR_BYTES, MAJOR_MAP, MAJOR_NINT, MAJOR_SIMPLE, MAJOR_TAG, MAJOR_TEXT, MAJOR_UINT, MAX_DEPTH};
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
    pub fn walk(&mut self, depth: usize, keys: Option<&mut Scratch<'_>>) -> Result<()> {
        match self.walk_bad(depth, keys) {
            Ok(()) => Ok(()),
            Err(bad) => self.walk_error(bad),
        }
    }

    /// [`Reader::walk`] whose failure is a small record of what went wrong
    /// and where (the compact reader's, and the `Error` built from it once,
    /// out of line).
    #[inline]
    pub(crate) fn walk_bad(&mut self, depth: usize, keys: Option<&mut Scratch<'_>>) -> Result<(), Bad> {
        let start = self.pos;
        let r = match keys {
            None => self.walk_in::<MAX_DEPTH, ONE_WALK>(depth, None),
            Some(k) => self.walk_in::<{ if ONE_WALK { MAX_DEPTH } else { 2 * LOCAL_FRAMES } }, true>(depth, Some(k)),
        };
        match r {
            Ok(()) => Ok(()),
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
    /// there; out of line, so that each has its own frame).
    #[inline(never)]
    fn walk_in<const N: usize, const KEYS: bool>(&mut self, depth: usize, keys: Option<&mut Scratch<'_>>) -> Result<(), Bad> {
        // (Each instance knows whether it has keys: the other's code drops out.)
        let mut keys = if KEYS { keys } else { None };
        let mut frames = Frames { words: [0; N], sp: 0, spilled: NO_SPILL };
        let fail = |what, at, figure| Err(Bad { what, at, figure });
        loop {
            // Read one item head (tags prefix the item that follows).
            let start = self.pos;
            let Some((major, arg, end)) = decode_head(self.buf, start) else { return fail(What::Head, start, 0) };
            self.pos = end;
            // The container that a break (or the last item) closed: it
            // completes an item of its parent.
            let mut closed = None;
            match major {
                MAJOR_UINT | MAJOR_NINT => {}
                MAJOR_BYTES | MAJOR_TEXT => match arg {
                    Some(n) => {
                        let Some(b) = self.take(n) else { return fail(What::Length, self.pos, n) };
                        if major == MAJOR_TEXT && !crate::utf8::valid(b) {
                            return fail(What::Utf8, start, 0);
                        }
                    }
                    None => loop {
                        let cs = self.pos;
                        match decode_head(self.buf, cs) {
                            None => return fail(What::Head, cs, 0),
                            Some((MAJOR_SIMPLE, None, at)) => {
                                self.pos = at; // the break
                                break;
                            }
                            Some((m, Some(n), at)) if m == major => {
                                self.pos = at;
                                let Some(b) = self.take(n) else { return fail(What::Length, at, n) };
                                if major == MAJOR_TEXT && !crate::utf8::valid(b) {
                                    return fail(What::Utf8, cs, 0);
                                }
                            }
                            _ => return fail(What::Indefinite, cs, 0),
                        }
                    },
                },
                // A tag nests its content: it is a frame holding one item, so
                // tag chains count toward the depth limit like containers.
                MAJOR_ARRAY | MAJOR_MAP | MAJOR_TAG => {
                    let left = if major == MAJOR_TAG {
                        1
                    } else {
                        let per = if major == MAJOR_MAP { 2 } else { 1 };
                        if let Some(n) = arg {
                            if n.checked_mul(per).map_or(true, |b| b > self.remaining() as u64) {
                                return fail(What::Length, start, n);
                            }
                        }
                        // Checked above: n * per <= the bytes that remain.
                        arg.map_or(INDEFINITE, |n| (n * per) as usize)
                    };
                    if left != 0 {
                        let sp = frames.sp;
                        if depth + sp + 1 > MAX_DEPTH {
                            return fail(What::Deep, start, 0);
                        }
                        let flags = if major == MAJOR_MAP { MAP | KEY_NEXT } else { 0 };
                        if let Some(k) = keys.as_deref_mut() {
                            // A container that is a map key: its entry now,
                            // its end when it closes (the entry sits just
                            // below this frame's keys, and its spilled frame).
                            if sp > 0 {
                                let p = frames.top(Some(&mut *k));
                                if p.map() && p.key_next() && !k.try_push_key(self.buf, start, start) {
                                    return fail(What::Scratch, start, k.len() as u64 + 1);
                                }
                            }
                            if !frames.push(Some(&mut *k), left, flags) {
                                return fail(What::Scratch, start, k.len() as u64 + 1);
                            }
                        } else {
                            frames.push(None, left, flags);
                        }
                        continue;
                    }
                }
                _ => {
                    // simple / float / break
                    if arg.is_none() {
                        // A break: ends the innermost indefinite container.
                        let top = if frames.sp == 0 { None } else { Some(frames.top(keys.as_deref_mut())) };
                        match top {
                            Some(f) if f.left == INDEFINITE && (!f.map() || f.key_next()) => {
                                match frames.pop(keys.as_deref_mut(), self.buf, f) {
                                    Ok(c) => closed = Some(c),
                                    Err(at) => return fail(What::Duplicate, at, 0),
                                }
                            }
                            _ => return fail(What::Indefinite, start, 0),
                        }
                    }
                }
            }
            // An item is complete ([start, pos), or the `closed` container):
            // account for it in its parent.
            loop {
                if frames.sp == 0 {
                    return Ok(());
                }
                let mut f = frames.top(keys.as_deref_mut());
                if f.map() && f.key_next() {
                    if let Some(k) = keys.as_deref_mut() {
                        match closed {
                            None => {
                                if !k.try_push_key(self.buf, start, self.pos) {
                                    return fail(What::Scratch, start, k.len() as u64 + 1);
                                }
                            }
                            // Its key entry sits just below where it started.
                            Some(c) => k.set_key_end(c.seg() - 1, self.pos),
                        }
                    }
                }
                f.seg ^= KEY_NEXT;
                if f.left != INDEFINITE {
                    f.left -= 1;
                    if f.left == 0 {
                        match frames.pop(keys.as_deref_mut(), self.buf, f) {
                            Ok(c) => closed = Some(c),
                            Err(at) => return fail(What::Duplicate, at, 0),
                        }
                        continue; // the container completes an item of its parent
                    }
                }
                frames.set_top(keys.as_deref_mut(), f);
                break;
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

    /// The `Error` of what a walk found wrong.
    #[cold]
    #[inline(never)]
    fn walk_error(&self, bad: Bad) -> Result<()> {
        let kind = match bad.what {
            What::Head => return Reader::at(self.buf, bad.at).head_error(),
            What::Length => ErrorKind::LengthTooLarge { claimed: bad.figure },
            What::Utf8 => ErrorKind::CborInvalidUtf8,
            What::Indefinite => ErrorKind::CborBadIndefinite,
            What::Deep => ErrorKind::TooDeep,
            What::Duplicate => ErrorKind::DuplicateKey,
            What::Scratch => ErrorKind::ScratchTooSmall { needed: bad.figure },
        };
        Err(Error::at(kind, bad.at))
    }
}

/// What a walk found wrong, where, and its figure (a length claimed, the
/// scratch entries needed): small, where an `Error` would take 48 bytes
/// of every frame it passes through.
#[derive(Clone, Copy)]
pub(crate) struct Bad {
    pub what: What,
    pub at: usize,
    figure: u64,
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
/// No spilled frame below.
const NO_SPILL: usize = usize::MAX >> 2;

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

    /// One word, for a walk without keys: a definite count as it is (below
    /// `isize::MAX`); an indefinite container as its flags, top bit set.
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

/// A walk's frames in `N` words: without keys one word each (see
/// [`Frame::word`]; `N` is [`MAX_DEPTH`]); with keys two (`left`, `seg`)
/// for the first `N / 2`, deeper ones in the scratch, one entry each,
/// `[left, flags | the spilled frame below]`, followed by that
/// container's keys (its `seg` is its entry + 1).
struct Frames<const N: usize> {
    words: [usize; N],
    /// Frames in use, local and spilled.
    sp: usize,
    /// Scratch index of the top spilled frame, or [`NO_SPILL`].
    spilled: usize,
}

impl<const N: usize> Frames<N> {
    /// A new top frame (spilled into `keys` past the local frames);
    /// `false` when the scratch has no room for it.
    fn push(&mut self, keys: Option<&mut Scratch<'_>>, left: usize, flags: usize) -> bool {
        let i = self.sp;
        match keys {
            // The caller checked the depth: `i < MAX_DEPTH`.
            None => self.words[i] = Frame { left, seg: flags }.word(),
            Some(k) if i < LOCAL_FRAMES => {
                self.words[2 * i] = left;
                self.words[2 * i + 1] = k.len() | flags;
            }
            Some(k) => {
                let at = k.len();
                if !k.try_push([left as u64, (self.spilled | flags) as u64]) {
                    return false;
                }
                self.spilled = at;
            }
        }
        self.sp += 1;
        true
    }

    /// The top frame (`sp > 0`).
    fn top(&self, keys: Option<&mut Scratch<'_>>) -> Frame {
        let i = self.sp - 1;
        match keys {
            None => Frame::of_word(self.words[i]),
            Some(_) if i < LOCAL_FRAMES => Frame { left: self.words[2 * i], seg: self.words[2 * i + 1] },
            Some(k) => {
                let e = k.segment(self.spilled)[0];
                Frame { left: e[0] as usize, seg: (self.spilled + 1) | (e[1] as usize & FLAGS) }
            }
        }
    }

    /// Store `f` as the top frame again.
    fn set_top(&mut self, keys: Option<&mut Scratch<'_>>, f: Frame) {
        let i = self.sp - 1;
        match keys {
            None => self.words[i] = f.word(),
            Some(_) if i < LOCAL_FRAMES => {
                self.words[2 * i] = f.left;
                self.words[2 * i + 1] = f.seg;
            }
            Some(k) => {
                let e = &mut k.segment(self.spilled)[0];
                e[0] = f.left as u64;
                e[1] = (e[1] as usize & !FLAGS | f.seg & FLAGS) as u64;
            }
        }
    }

    /// Close the top frame `f`: its map's keys are checked and popped, and
    /// a spilled frame's entry with them. Returns it as closed, with `seg`
    /// where its keys (and its entry) started; or where a repeated key is.
    #[inline(always)]
    fn pop(&mut self, keys: Option<&mut Scratch<'_>>, buf: &[u8], f: Frame) -> Result<Frame, usize> {
        self.sp -= 1;
        match keys {
            None => Ok(f),
            Some(k) => self.pop_keys(k, buf, f),
        }
    }

    /// [`Frames::pop`] with keys.
    #[inline(always)]
    fn pop_keys(&mut self, k: &mut Scratch<'_>, buf: &[u8], f: Frame) -> Result<Frame, usize> {
        if f.map() {
            if let Some(at) = k.duplicate(buf, f.seg()) {
                return Err(at);
            }
        }
        if self.sp < LOCAL_FRAMES {
            return Ok(f);
        }
        let at = self.spilled;
        self.spilled = k.segment(at)[0][1] as usize & !FLAGS;
        k.truncate(at);
        Ok(Frame { left: f.left, seg: at | (f.seg & FLAGS) })
    }
}

