//! Working memory for the checks that need sorting: duplicate keys, duplicate
//! object names and blob overlap. It only provides memory: the rules that
//! use it live with their layers (CBOR keys in `cbor::keys`, names and
//! overlap in the manifest pass).
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
    /// A caller's slice; without `alloc` also the built-in scratch, a
    /// [`Fixed`] in the caller's frame (held by reference, so that every
    /// `Scratch` stays a few words: it is moved through the validating pass).
    Slice(&'s mut [Entry]),
    #[cfg(feature = "alloc")]
    Vec(alloc::vec::Vec<Entry>),
}

/// The built-in scratch's memory without `alloc` ([`DEFAULT_ENTRIES`]
/// entries, zero-filled: a slice like a caller's, so that one kind of
/// scratch is in the code).
#[cfg(not(feature = "alloc"))]
pub(crate) struct Fixed([Entry; DEFAULT_ENTRIES]);

#[cfg(not(feature = "alloc"))]
impl Fixed {
    pub(crate) fn new() -> Self {
        Fixed([[0; 2]; DEFAULT_ENTRIES])
    }
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

    /// The built-in scratch without `alloc`, over `mem` (the caller's
    /// `Fixed::new()`, see `default_scratch!`).
    #[cfg(not(feature = "alloc"))]
    pub(crate) fn fixed(mem: &'s mut Fixed) -> Self {
        Scratch::new(&mut mem.0)
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
        if self.try_push(e) {
            Ok(())
        } else {
            self.full()
        }
    }

    /// Push `e`; `false` when a fixed scratch is full (`len` unchanged).
    #[inline]
    pub(crate) fn try_push(&mut self, e: Entry) -> bool {
        match &mut self.buf {
            Buf::Slice(s) => {
                let Some(slot) = s.get_mut(self.len) else {
                    return false;
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
        true
    }

    /// The error of a full scratch (out of line: built in the caller's result).
    #[cold]
    #[inline(never)]
    fn full(&self) -> Result<()> {
        Err(Error::new(ErrorKind::ScratchTooSmall { needed: self.len as u64 + 1 }))
    }

    pub(crate) fn segment(&mut self, start: usize) -> &mut [Entry] {
        let len = self.len;
        match &mut self.buf {
            Buf::Slice(s) => &mut s[start..len],
            #[cfg(feature = "alloc")]
            Buf::Vec(v) => &mut v[start..len],
        }
    }

    /// Entry `i`, below the length (one bounds check, out of line).
    #[inline(never)]
    pub(crate) fn entry(&mut self, i: usize) -> &mut Entry {
        &mut self.segment(i)[0]
    }

    /// The last `n` entries of a caller's slice, when none of them is in
    /// use: the caller's for good (this scratch is `n` entries smaller).
    /// `None` when fewer are free, or for a growable scratch.
    #[cfg(feature = "alloc")]
    pub(crate) fn take_top(&mut self, n: usize) -> Option<&'s mut [Entry]> {
        let Buf::Slice(s) = &mut self.buf else { return None };
        let free = s.len() - self.len;
        if n > free {
            return None;
        }
        let (rest, top) = core::mem::take(s).split_at_mut(self.len + free - n);
        *s = rest;
        Some(top)
    }

    pub(crate) fn truncate(&mut self, start: usize) {
        self.len = self.len.min(start);
    }
}
