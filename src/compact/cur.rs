//! A CBOR cursor over the manifest whose failures are [`Fault`]s: the
//! open dialect of v1.x manifests, or (v2) the deterministic dialect of
//! format v2 §3.1 (shortest heads, definite lengths, no tags, canonical
//! floats, map keys in ascending byte order; checked with no scratch).

use super::{Fault, Kind};
use crate::cbor::{decode_head, Reader, What, MAJOR_MAP, MAJOR_TEXT, MAJOR_UINT};
use crate::scratch::Scratch;

pub(crate) type R<T> = Result<T, Fault>;

/// A position in the manifest `m`, and the first fault met there: a read
/// that fails records its fault (unless one came first) and gives an empty
/// value, and a container then has no more entries, so that a caller reads
/// on without checking each read and finds the first fault at the end.
pub(crate) struct Cur<'a> {
    pub m: &'a [u8],
    pub pos: usize,
    pub fault: Option<Fault>,
    /// Whether the deterministic dialect (v2, §3.1) is read.
    det: bool,
}

/// Deepest container nesting of a v2 manifest below its root map (§3.1).
pub(crate) const MAX_DEPTH_V2: usize = 32;

/// No previous key yet (a map's key order, [`Cur::key_order`]).
pub(crate) const NO_KEY: usize = usize::MAX;

/// Whether a head `width` bytes long with argument `arg` (`None`:
/// indefinite) is in its shortest form (§3.1; not asked of floats and
/// simple values, major type 7).
fn shortest(major: u8, arg: Option<u64>, width: usize) -> bool {
    let Some(v) = arg else { return false };
    major == 7
        || match width {
            1 => true,
            2 => v >= 24,
            3 => v > 0xff,
            5 => v > 0xffff,
            _ => v > 0xffff_ffff,
        }
}

/// Whether a float head (`ai` 25, 26, 27 with its raw bits) is in §3.1's
/// canonical form: the shortest width that holds the value exactly, NaN
/// only as the half `0x7e00` (also the compact reader's rule).
pub(crate) fn canonical_float(ai: u8, v: u64) -> bool {
    match ai {
        25 => {
            let nan = v & 0x7c00 == 0x7c00 && v & 0x3ff != 0;
            !nan || v == 0x7e00
        }
        26 => {
            let f = f32::from_bits(v as u32);
            !(f.is_nan() || crate::cast::f16_exact(f.to_bits()).is_some())
        }
        _ => {
            // Infinities and NaN fit a half; a zero fits one too, and no
            // f64 subnormal fits an f32.
            let (exp, man) = ((v >> 52 & 0x7ff) as i32, v & ((1 << 52) - 1));
            match exp {
                0x7ff => false,
                0 => man != 0,
                _ => !f64_fits_f32(exp - 1023, man),
            }
        }
    }
}

/// Whether the finite normal f64 `(1 + man / 2^52) * 2^e` is an f32 value.
/// In integers: the targets' FPUs (Cortex-M4F among them) are single
/// precision only, and f64 arithmetic would link soft-float routines.
fn f64_fits_f32(e: i32, man: u64) -> bool {
    // The value's lowest set bit, as a power of two, must be one an f32
    // holds: f32 has 23 bits below its leading one, none below 2^-149.
    let lowest = e - 52 + (man | 1 << 52).trailing_zeros() as i32;
    e <= 127 && lowest >= (e - 23).max(-149)
}

/// Bytewise order of two encoded keys, by a loop (see [`Cur::key_order`]).
#[inline]
fn bytewise(a: &[u8], b: &[u8]) -> core::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

impl<'a> Cur<'a> {
    pub fn at(m: &'a [u8], pos: usize) -> Self {
        Cur { m, pos, fault: None, det: false }
    }

    /// A cursor of the deterministic dialect (v2, §3.1).
    pub fn det(m: &'a [u8], pos: usize) -> Self {
        Cur { m, pos, fault: None, det: true }
    }

    /// Record `kind` at `at`, unless a fault came first.
    #[inline(never)]
    pub fn fail(&mut self, kind: Kind, at: usize) {
        if self.fault.is_none() {
            self.fault = Some(Fault::new(kind, at));
        }
    }

    /// The first fault, if any.
    pub fn done(&self) -> R<()> {
        match self.fault {
            Some(f) => Err(f),
            None => Ok(()),
        }
    }

    /// The next byte, not consumed (at the end: [`Kind::Cbor`], and a break).
    #[inline]
    pub fn peek(&mut self) -> u8 {
        match self.m.get(self.pos) {
            Some(&b) => b,
            None => {
                self.fail(Kind::Cbor, self.pos);
                0xff
            }
        }
    }

    /// The next item head, of major type `major` (else
    /// [`Kind::WrongType`] at its start): its argument (`None`:
    /// indefinite, or a fault). (One copy in firmware, for flash; with
    /// `alloc`, one in each of its callers, the reads of every item: so
    /// too `text`, `uint` and `container`, where inlining pays.)
    #[cfg_attr(not(feature = "alloc"), inline(never))]
    #[cfg_attr(feature = "alloc", inline(always))]
    fn typed(&mut self, major: u8) -> Option<u64> {
        let start = self.pos;
        // The usual head: its argument in its one byte, the shortest form.
        if let Some(&b) = self.m.get(start).filter(|&&b| b >> 5 == major && b & 0x1f < 24) {
            self.pos += 1;
            return Some((b & 0x1f) as u64);
        }
        let Some((m, arg, end)) = decode_head(self.m, start) else {
            self.fail(Kind::Cbor, start);
            return None;
        };
        self.pos = end;
        // (Never in a build without the v2 reader: no code for it there.)
        if cfg!(feature = "v2") && self.det && !shortest(m, arg, end - start) {
            self.fail(Kind::NotDeterministic, start);
            return None;
        }
        if m != major {
            self.fail(Kind::WrongType, start);
            return None;
        }
        arg
    }

    /// A definite-length text's bytes (UTF-8 not checked).
    #[cfg_attr(not(feature = "alloc"), inline(never))]
    #[cfg_attr(feature = "alloc", inline(always))]
    pub fn text(&mut self) -> &'a [u8] {
        let start = self.pos;
        match self.typed(MAJOR_TEXT) {
            Some(n) => match usize::try_from(n).ok().and_then(|n| self.m.get(self.pos..self.pos.checked_add(n)?)) {
                Some(b) => {
                    self.pos += b.len();
                    return b;
                }
                None => self.fail(Kind::Cbor, self.pos),
            },
            // (After a failed head, its fault came first.)
            None => self.fail(Kind::WrongType, start),
        }
        &[]
    }

    /// A definite-length text, UTF-8 checked.
    #[cfg_attr(feature = "alloc", inline(always))]
    pub fn str(&mut self) -> &'a str {
        let at = self.pos;
        crate::utf8::str(self.text()).unwrap_or_else(|| {
            self.fail(Kind::Utf8, at);
            ""
        })
    }

    /// An unsigned integer.
    #[cfg_attr(not(feature = "alloc"), inline(never))]
    #[cfg_attr(feature = "alloc", inline)]
    pub fn uint(&mut self) -> u64 {
        // (An unsigned integer's head always has its value.)
        self.typed(MAJOR_UINT).unwrap_or(0)
    }

    /// A map's (or with `MAJOR_ARRAY`, an array's) entry count: `None`
    /// for indefinite; a count the manifest cannot hold is refused.
    #[cfg_attr(not(feature = "alloc"), inline(never))]
    #[cfg_attr(feature = "alloc", inline(always))]
    pub fn container(&mut self, major: u8) -> Option<usize> {
        let start = self.pos;
        let len = self.typed(major);
        // (Each entry takes at least a byte, a map's two: `n` past
        // the bytes left, halved for a map, cannot fit.)
        let fit = (self.m.len() - self.pos) >> (major == MAJOR_MAP) as u32;
        if len.is_some_and(|n| n > fit as u64) {
            self.fail(Kind::Cbor, start);
        }
        len.map(|n| n as usize)
    }

    /// Whether a container (of `len` entries left, or indefinite) has
    /// another entry; consumes the break that ends an indefinite one. At
    /// the manifest's end, another (whose read fails there, as a break's
    /// would have). After a fault, none.
    #[inline]
    pub fn more(&mut self, len: &mut Option<usize>) -> bool {
        if self.fault.is_some() {
            return false;
        }
        match len {
            Some(0) => false,
            Some(n) => {
                *n -= 1;
                true
            }
            None => {
                let end = self.m.get(self.pos) == Some(&0xff);
                self.pos += end as usize;
                !end
            }
        }
    }

    /// Whether the next item is null (consumed if so). At the manifest's
    /// end, not (the read that follows fails there, as null's would have).
    #[inline]
    pub fn null(&mut self) -> bool {
        let n = self.m.get(self.pos) == Some(&0xf6);
        self.pos += n as usize;
        n
    }

    /// Walk one item, checked (well-formed, UTF-8, depth, and with keys,
    /// no map with a repeated key).
    #[inline(never)]
    pub fn walk(&mut self, depth: usize, keys: Option<&mut Scratch<'_>>) {
        let mut r = Reader::at(self.m, self.pos);
        let done = r.walk_bad(depth, keys);
        self.pos = r.pos;
        if let Err(bad) = done {
            let kind = match bad.what {
                What::Utf8 => Kind::Utf8,
                What::Deep => Kind::Deep,
                What::Duplicate => Kind::DuplicateKey,
                What::Scratch => Kind::Slots,
                What::Head | What::Length | What::Indefinite => Kind::Cbor,
            };
            self.fail(kind, bad.at);
        }
    }
    /// The key that started at `start` (and ends at the cursor) comes
    /// after the map's previous key, at `*prev` ([`NO_KEY`] for none), in
    /// bytewise order of their encodings (§3.1: which also refuses a key
    /// twice); it becomes the previous one.
    #[cfg_attr(feature = "alloc", inline)]
    pub fn key_order(&mut self, prev: &mut usize, start: usize) {
        // The previous key is read as far as this key's length, not decoded:
        // one well-formed CBOR item is never a prefix of another (its head
        // says where it ends), so two keys differ within both encodings or
        // are the same. (No previous key: [`NO_KEY`] is past the manifest.)
        if let Some(p) = self.m.get(*prev..) {
            let key = self.m.get(start..self.pos).unwrap_or(&[]);
            let p = &p[..p.len().min(key.len())];
            // (With `alloc`, a plain loop: keys and names are short and
            // differ early, a short text's head first where the lengths
            // do. Firmware makes the library call: shorter code.)
            let order = if cfg!(feature = "alloc") { bytewise(p, key) } else { p.cmp(key) };
            match order {
                core::cmp::Ordering::Less => {}
                core::cmp::Ordering::Equal => self.fail(Kind::DuplicateKey, start),
                core::cmp::Ordering::Greater => self.fail(Kind::NotDeterministic, start),
            }
        }
        *prev = start;
    }

    /// A key of a v2 map nested `depth` below the root: `Some(bytes)` for
    /// text (UTF-8 checked), any other key walked; its order checked.
    #[cfg(feature = "v2")]
    pub fn key(&mut self, depth: usize, prev: &mut usize) -> Option<&'a [u8]> {
        let start = self.pos;
        let key = if self.peek() >> 5 == MAJOR_TEXT {
            Some(self.str().as_bytes())
        } else {
            self.walk_det(depth);
            None
        };
        self.key_order(prev, start);
        key
    }

    /// Walk one item nested `depth` below the root in the deterministic
    /// dialect (§3.1): well formed, shortest heads, definite lengths, no
    /// tags, only false, true, null and canonical floats of the simple
    /// values, UTF-8 text, nesting at most [`MAX_DEPTH_V2`], each map's
    /// keys ascending. With no scratch: a frame per open container (items
    /// left, with a map's flag in the top bit; where its current and
    /// previous keys start).
    #[inline(never)]
    pub fn walk_det(&mut self, depth: usize) {
        const MAP: u32 = 1 << 31;
        let mut frames = [[0u32; 3]; MAX_DEPTH_V2 + 1];
        let mut open = 0usize;
        loop {
            let start = self.pos;
            // (A map's items alternate key and value: an even count left is a key next.)
            if let Some(f) = open.checked_sub(1).and_then(|i| frames.get_mut(i)) {
                if f[0] & MAP != 0 && f[0] % 2 == 0 {
                    f[1] = start as u32;
                }
            }
            let Some((major, arg, end)) = decode_head(self.m, start) else {
                return self.fail(Kind::Cbor, start);
            };
            if !shortest(major, arg, end - start) {
                return self.fail(Kind::NotDeterministic, start);
            }
            let v = arg.unwrap_or(0);
            self.pos = end;
            match major {
                2 | 3 => {
                    let Some(s) = usize::try_from(v).ok().and_then(|n| self.m.get(end..end.checked_add(n)?)) else {
                        return self.fail(Kind::Cbor, start);
                    };
                    if major == MAJOR_TEXT && !crate::utf8::valid(s) {
                        return self.fail(Kind::Utf8, start);
                    }
                    self.pos += s.len();
                }
                4 | 5 => {
                    if depth + open > MAX_DEPTH_V2 {
                        return self.fail(Kind::Deep, start);
                    }
                    // (Every item takes a byte: a count past the bytes left cannot fit.)
                    if v > (self.m.len() - end) as u64 {
                        return self.fail(Kind::Cbor, start);
                    }
                    if v > 0 {
                        let map = major == MAJOR_MAP;
                        frames[open] = [(v as u32) << map as u32 | if map { MAP } else { 0 }, 0, NO_KEY as u32];
                        open += 1;
                        continue;
                    }
                }
                6 => return self.fail(Kind::NotDeterministic, start),
                7 => {
                    let ai = self.m[start] & 0x1f;
                    let ok = matches!(ai, 20..=22) || (25..=27).contains(&ai) && canonical_float(ai, v);
                    if !ok {
                        return self.fail(Kind::NotDeterministic, start);
                    }
                }
                _ => {}
            }
            // One item done: account for it in the containers it ends.
            loop {
                let Some(f) = open.checked_sub(1).and_then(|i| frames.get_mut(i)) else { return };
                if f[0] & MAP != 0 && f[0] % 2 == 0 {
                    let mut prev = if f[2] == NO_KEY as u32 { NO_KEY } else { f[2] as usize };
                    let key = f[1] as usize;
                    self.key_order(&mut prev, key);
                    if self.fault.is_some() {
                        return;
                    }
                    f[2] = key as u32;
                }
                f[0] -= 1;
                if f[0] & !MAP != 0 {
                    break;
                }
                open -= 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{File, Kind};
    extern crate alloc;
    use alloc::vec::Vec;

    /// A v1.x file of manifest `m` alone.
    fn file(m: &[u8]) -> Vec<u8> {
        let mut f = Vec::from(crate::container::MAGIC_V1);
        f.extend_from_slice(m);
        f.extend_from_slice(&(m.len() as u64).to_le_bytes());
        f.extend_from_slice(&crate::container::MAGIC_V1);
        f
    }

    /// Attributes maps, definite or indefinite, read whole; a null
    /// object attributes map is empty.
    #[test]
    fn attribute_maps_definite_indefinite_or_null() {
        let v = &b"\x67version\x651.2.0"[..];
        let o = &b"\x67objects\xa1\x61x\xa4\x65shape\x80\x66format\x65xyzzy\x6acomponents\xa0\x6aattributes"[..];
        let cases: [(&[u8], usize, &[u8], usize); 3] = [
            (b"\xa2\x61a\x01\x61b\x02", 2, b"\xf6", 0),
            (b"\xbf\x61a\x01\x61b\x02\xff", 2, b"\xbf\x61c\x03\xff", 1),
            (b"\xa0", 0, b"\xa1\x61c\x03", 1),
        ];
        for (root, k, obj, n) in cases {
            let m = [&b"\xa3"[..], v, b"\x6aattributes", root, o, obj].concat();
            let bytes = file(&m);
            let mut slots = [[0; 2]; 8];
            let f = File::open(&bytes, &mut slots).unwrap();
            let a = f.attributes();
            assert_eq!((a.len(), a.get("b").is_some(), a.iter().count()), (k, k == 2, k), "{m:02x?}");
            let a = f.object(0).unwrap().attributes();
            assert_eq!((a.len(), a.get("c").is_some(), a.iter().count()), (n, n == 1, n), "{m:02x?}");
        }
    }

    /// Objects before the version are read after the root map, from
    /// their position: bytes after the root map are still refused at its
    /// end, after any fault of the objects; and a read that fails is the
    /// fault even where the reads after it fail too.
    #[test]
    fn deferred_objects_then_trailing_bytes_and_the_first_fault_kept() {
        let v = &b"\x67version\x651.2.0"[..];
        let obj = &b"\x67objects\xa1\x61x\xa3\x65shape\x80\x66format\x65xyzzy\x6acomponents\xa0"[..];
        let bad = &b"\x67objects\xa1\x60\xa0"[..];
        let m = [&b"\xa2"[..], obj, v, b"\x00"].concat();
        let e = File::open(&file(&m), &mut [[0; 2]; 8]).err();
        assert_eq!(e.map(|e| (e.kind, e.at as usize)), Some((Kind::Trailing, m.len() - 1)));
        let m = [&b"\xa2"[..], bad, v, b"\x00"].concat();
        let e = File::open(&file(&m), &mut [[0; 2]; 8]).err();
        assert_eq!(e.map(|e| (e.kind, e.at as usize)), Some((Kind::EmptyName, 10)));
        // A shape of the wrong type, then missing fields: the shape.
        let m = [&b"\xa2"[..], v, b"\x67objects\xa1\x61x\xa1\x65shape\x61a"].concat();
        let e = File::open(&file(&m), &mut [[0; 2]; 8]).err();
        assert_eq!(e.map(|e| (e.kind, e.at as usize)), Some((Kind::WrongType, m.len() - 2)));
    }

    /// A manifest cut where an indefinite container's next entry, or a
    /// field that may be null, starts: malformed CBOR at the cut (the
    /// read that follows [`Cur::more`] or [`Cur::null`] fails there).
    #[test]
    fn a_manifest_cut_before_an_entry_or_a_nullable_value_faults_at_the_cut() {
        let v = &b"\x67version\x651.2.0"[..];
        let cases: [&[&[u8]]; 8] = [
            &[b"\xbf"],
            &[b"\xbf", v],
            &[b"\xa2", v, b"\x6aattributes"],
            &[b"\xa2", v, b"\x67objects\xbf"],
            &[b"\xa2", v, b"\x67objects\xa1\x61x\xa1\x65shape\x9f"],
            &[b"\xa2", v, b"\x67objects\xa1\x61x\xa1\x6aattributes"],
            &[b"\xa2", v, b"\x67objects\xa1\x61x\xa1\x6acomponents\xbf"],
            &[b"\xa2", v, b"\x67objects\xa1\x61x\xa1\x6acomponents\xa1\x64data\xa1\x64type"],
        ];
        for parts in cases {
            let m = parts.concat();
            let e = File::open(&file(&m), &mut [[0; 2]; 8]).err();
            assert_eq!(e.map(|e| (e.kind, e.at as usize)), Some((Kind::Cbor, m.len())), "{m:02x?}");
        }
        // The other nullable component fields (and a null one, read past).
        let fields = [&b"\xa1\x73uncompressed_length"[..], b"\xa1\x68encoding", b"\xa1\x66digest", b"\xa2\x64type\xf6\x66digest"];
        for field in fields {
            let m = [&b"\xa2"[..], v, b"\x67objects\xa1\x61x\xa1\x6acomponents\xa1\x64data", field].concat();
            let e = File::open(&file(&m), &mut [[0; 2]; 8]).err();
            assert_eq!(e.map(|e| (e.kind, e.at as usize)), Some((Kind::Cbor, m.len())), "{m:02x?}");
        }
    }
}
