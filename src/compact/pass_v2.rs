//! The compact reader's validating pass over a v2 manifest (format v2
//! Draft 4): the rules of [`crate::v2::Manifest`]'s pass, in its order,
//! with [`Fault`]s, over the compact cursor in its deterministic dialect
//! (§3.1). As in `pass.rs`, each read or rule records its fault in the
//! cursor (the first one kept) and every container ends after it.
//!
//! What it checks: deterministic CBOR (§3.1) of every item read or
//! skipped; the schema (§3.2-§3.5: root, shard table, objects, parts,
//! names, attribute keys); each part's fields, its logical type against
//! its dtype (Appendix A) and its blob's placement (§2.4: aligned, past
//! the floor, inside its file); every registered layout profile's
//! metadata rules (§5, `crate::v2::layout`'s rule functions); and last,
//! that blobs (the manifest's own among them) are identical or disjoint
//! (§2.4), sorted in the caller's slots: two per non-empty blob and two
//! for the manifest, as the v2 reader's scratch needs.
//!
//! A fault's kind follows the v2 reader's precedence: any CBOR fault of
//! the manifest is reported before a schema fault (the whole manifest is
//! walked again when the pass finds one).

use super::cur::{Cur, R, MAX_DEPTH_V2, NO_KEY};
use super::view::LayoutFields;
use super::{Fault, Kind};
use crate::cbor::{decode_head, MAJOR_ARRAY, MAJOR_MAP, MAJOR_TEXT, MAJOR_UINT};
use crate::scratch::Entry as Slot;
use crate::v2::container::{Footer, BLOB_ALIGN, FOOTER_LEN, MIN_FILE_LEN};
use crate::v2::layout::PartSet;
use crate::v2::types::DType;
use crate::v2::{Digest, Part, MAX_RANK};

/// What the pass found: where the objects are, whether the file is
/// sharded, and from which slot the objects' names are noted (see
/// [`Pass::names`]).
pub(crate) struct Root {
    pub objects: usize,
    pub count: usize,
    pub attributes: Option<usize>,
    pub sharded: bool,
    pub names: Option<usize>,
    /// The shard table's first entry and entry count.
    pub shards: (usize, usize),
}

/// State of the pass: the cursor, the footer, the shard table, the spans
/// so far in the slots.
struct Pass<'a, 's> {
    c: Cur<'a>,
    footer: Footer,
    /// The shard table's first entry and entry count.
    shards: (usize, usize),
    slots: &'s mut [Slot],
    spans: usize,
    /// The slot from which the objects' names are noted, one per object in
    /// manifest order (word 0 as the name index has it before its sort),
    /// in the slots past the spans: the index is then built with no second
    /// walk of the objects. [`NONE`] when they do not fit, or once a span
    /// needs their room (spans come first: the slots a file needs do not
    /// change).
    names: usize,
}

/// No names noted ([`Pass::names`]).
const NONE: usize = usize::MAX;

/// Validate the manifest `m` of a v2 file whose footer is `footer` (its
/// container already checked, §2), with `slots` as scratch.
pub(crate) fn validate(m: &[u8], footer: Footer, slots: &mut [Slot]) -> R<Root> {
    let mut p = Pass { c: Cur::det(m, 0), footer, shards: (0, 0), slots, spans: 0, names: NONE };
    let mut root = Root { objects: 0, count: 0, attributes: None, sharded: false, names: None, shards: (0, 0) };
    self::root(&mut p, &mut root);
    if p.c.fault.is_some() {
        // A CBOR fault anywhere comes first (as in the v2 reader).
        let mut w = Cur::det(m, 0);
        w.walk_det(0);
        if w.pos != m.len() {
            w.fail(Kind::Trailing, w.pos);
        }
        w.done()?;
        p.c.done()?;
    }
    overlap(p.slots, p.spans)?;
    root.names = (p.names != NONE).then_some(p.names);
    root.shards = p.shards;
    Ok(root)
}

/// The root map (§3.2): `shards` (before `objects` in key order, so the
/// table is known when the parts are read), `objects`, `attributes`;
/// then the manifest's own span.
fn root(p: &mut Pass<'_, '_>, root: &mut Root) {
    let mut len = p.c.container(MAJOR_MAP);
    let (mut prev, mut objects) = (NO_KEY, false);
    while p.c.more(&mut len) {
        let key = p.c.key(1, &mut prev);
        let at = p.c.pos;
        match key {
            Some(b"shards") => {
                let n = p.c.container(MAJOR_MAP).unwrap_or(0);
                p.shards = (p.c.pos, n);
                root.sharded = n > 0;
                shards(&mut p.c, n);
            }
            Some(b"objects") => {
                let n = p.c.container(MAJOR_MAP).unwrap_or(0);
                (root.objects, root.count, objects) = (p.c.pos, n, true);
                // The last `n` slots (no spans yet: they are the parts').
                p.names = p.slots.len().checked_sub(n).unwrap_or(NONE);
                self::objects(p, n);
            }
            Some(b"attributes") => {
                root.attributes = Some(at);
                attributes(&mut p.c, 1);
            }
            _ => p.c.walk_det(1),
        }
    }
    let c = &mut p.c;
    if c.pos != c.m.len() {
        c.fail(Kind::Trailing, c.pos);
    }
    if !objects {
        c.fail(Kind::Missing, 0);
    }
    let f = p.footer;
    p.span(0, f.manifest_offset, f.manifest_length, 0);
}

/// A name or attribute key (§3.5): not empty, at most 1,024 bytes, no U+0000.
fn name_ok(s: &[u8]) -> bool {
    !s.is_empty() && s.len() <= 1024 && !s.contains(&0)
}

/// A shard name (§7.1): `[A-Za-z0-9._-]{1,64}`, not starting with `.`.
fn shard_name_ok(s: &[u8]) -> bool {
    (1..=64).contains(&s.len()) && s[0] != b'.' && s.iter().all(|c| c.is_ascii_alphanumeric() || b"._-".contains(c))
}

/// A map's text key at the cursor (another type: `kind` there), its order checked.
fn text_key<'a>(c: &mut Cur<'a>, prev: &mut usize, kind: Kind) -> &'a str {
    let at = c.pos;
    if c.peek() >> 5 != MAJOR_TEXT {
        c.fail(kind, at);
    }
    let s = c.str();
    c.key_order(prev, at);
    s
}

/// An `attributes` map nested `depth` below the root: text keys obeying
/// the name rules; values checked as CBOR only.
fn attributes(c: &mut Cur<'_>, depth: usize) {
    let mut len = c.container(MAJOR_MAP);
    let mut prev = NO_KEY;
    while c.more(&mut len) {
        let at = c.pos;
        if !name_ok(text_key(c, &mut prev, Kind::WrongType).as_bytes()) {
            c.fail(Kind::Name, at);
        }
        c.walk_det(depth + 1);
    }
}

/// A digest text (§6.3): a registered algorithm's, or (unless
/// `registered`) another's in its form. The digest and its text.
/// (With `alloc`, in its callers: no copies of the digest on its way.)
#[cfg_attr(feature = "alloc", inline(always))]
fn digest<'a>(c: &mut Cur<'a>, registered: bool) -> Option<(Digest<'a>, &'a str)> {
    let at = c.pos;
    let text = c.str();
    let d = Digest::parse_v2(text).filter(|d| !registered || d.is_known());
    if d.is_none() {
        c.fail(Kind::BadDigest, at);
    }
    d.map(|d| (d, text))
}

/// The shard table (§7.1): each name, and its `size` and `digest`.
fn shards(c: &mut Cur<'_>, n: usize) {
    let mut len = Some(n);
    let mut prev = NO_KEY;
    while c.more(&mut len) {
        let at = c.pos;
        if !shard_name_ok(text_key(c, &mut prev, Kind::Name).as_bytes()) {
            c.fail(Kind::Name, at);
        }
        let start = c.pos;
        let mut len = c.container(MAJOR_MAP);
        let (mut size, mut has_digest, mut prev) = (None, false, NO_KEY);
        while c.more(&mut len) {
            match c.key(3, &mut prev) {
                Some(b"size") => size = Some(c.uint()),
                Some(b"digest") => has_digest = digest(c, true).is_some(),
                _ => c.walk_det(3),
            }
        }
        match size {
            _ if size.is_none() || !has_digest => c.fail(Kind::Missing, start),
            Some(s) if s < MIN_FILE_LEN => c.fail(Kind::Shard, start),
            _ => {}
        }
    }
}

/// The objects map: each name (§3.5) and object.
fn objects(p: &mut Pass<'_, '_>, n: usize) {
    let mut len = Some(n);
    let mut prev = NO_KEY;
    let mut i = 0;
    while p.c.more(&mut len) {
        let at = p.c.pos;
        // (No slot past the last when none are noted.)
        if let Some(s) = p.names.checked_add(i).and_then(|k| p.slots.get_mut(k)) {
            s[0] = super::view::name_slot(at, i);
        }
        i += 1;
        let name = text_key(&mut p.c, &mut prev, Kind::WrongType).as_bytes();
        if !name_ok(name) {
            p.c.fail(Kind::Name, at);
        }
        object(p, at);
    }
}

/// One object map (§3.3), whose name is at `name`: shape, layout, parts
/// (each checked, its blob placed), attributes; then its layout's rules,
/// on the fields where this read found them (no second scan of the map).
#[inline(never)]
fn object(p: &mut Pass<'_, '_>, name: usize) {
    let start = p.c.pos;
    let mut len = p.c.container(MAJOR_MAP);
    let (mut prev, mut seen, mut set, mut layout) = (NO_KEY, 0u8, PartSet::new(0), "");
    // Where the values of `shape` and `attributes` start, for its
    // layout's rules (absent: past the manifest).
    let mut fields = [usize::MAX; 2];
    while p.c.more(&mut len) {
        let key = p.c.key(3, &mut prev);
        let c = &mut p.c;
        let at = c.pos;
        match key {
            Some(b"shape") => {
                (seen, fields[0]) = (seen | 1, at);
                let mut len = c.container(MAJOR_ARRAY);
                if len.is_some_and(|r| r as u64 > MAX_RANK) {
                    c.fail(Kind::Rank, at);
                }
                let (mut numel, mut zero) = (Some(1u64), false);
                while c.more(&mut len) {
                    let d = c.uint();
                    zero |= d == 0;
                    numel = numel.and_then(|n| n.checked_mul(d));
                }
                if numel.is_none() && !zero {
                    c.fail(Kind::Overflow, at);
                }
            }
            Some(b"layout") => {
                (seen, layout) = (seen | 2, c.str());
            }
            Some(b"parts") => {
                seen |= 4;
                let mut len = c.container(MAJOR_MAP);
                if len == Some(0) {
                    c.fail(Kind::MissingComponent, at);
                }
                set = PartSet::new(len.unwrap_or(0));
                let mut prev = NO_KEY;
                while p.c.more(&mut len) {
                    let at = p.c.pos;
                    let name = text_key(&mut p.c, &mut prev, Kind::WrongType);
                    if !name_ok(name.as_bytes()) {
                        p.c.fail(Kind::Name, at);
                    }
                    set.push(&part(p, name));
                }
            }
            Some(b"attributes") => {
                fields[1] = at;
                attributes(c, 3);
            }
            _ => c.walk_det(3),
        }
    }
    if seen != 7 {
        return p.c.fail(Kind::Missing, start);
    }
    // The rules of its layout profile (§5), the v2 reader's.
    if p.c.fault.is_none() {
        let o = LayoutFields::new(p.c.m, layout, fields);
        if let Err(e) = crate::v2::layout::check(&o, &set) {
            p.c.fail(super::v2::fault(e).kind, name);
        }
    }
}

/// A part map at the cursor (§3.4), its fields read, each of its type (a
/// known dtype, a digest in its form), else a fault in the cursor: the
/// pass's decoding and the views'. Whether `dtype` and `blob` were there
/// (read as `u8` and `[0, 0]` when not).
#[cfg_attr(feature = "alloc", inline)]
pub(crate) fn read_part<'a>(c: &mut Cur<'a>, name: &'a str) -> (Part<'a>, bool) {
    let pos = c.pos;
    let mut len = c.container(MAJOR_MAP);
    let mut p = Part { name, dtype: DType::U8, type_name: None, offset: 0, length: 0, shard: None, encoding: None, decoded_length: None, digest: None, digest_text: None, pos };
    let (mut prev, mut dtype, mut blob) = (NO_KEY, false, false);
    while c.more(&mut len) {
        let key = c.key(5, &mut prev);
        let at = c.pos;
        match key {
            Some(b"dtype") => match crate::v2::types::dtype(c.str().as_bytes()) {
                Some(d) => (p.dtype, dtype) = (d, true),
                None => c.fail(Kind::DType, at),
            },
            Some(b"type") => p.type_name = Some(c.str()),
            Some(b"blob") => {
                // An array of two unsigned integers.
                let pair = c.peek() >> 5 == MAJOR_ARRAY && c.container(MAJOR_ARRAY) == Some(2);
                let first = pair && c.peek() >> 5 == MAJOR_UINT;
                p.offset = if first { c.uint() } else { 0 };
                if !first || c.peek() >> 5 != MAJOR_UINT {
                    c.fail(Kind::WrongType, at);
                }
                (p.length, blob) = (c.uint(), true);
            }
            Some(b"shard") => p.shard = Some(c.str()),
            Some(b"encoding") => p.encoding = Some(c.str()),
            Some(b"decoded_length") => p.decoded_length = Some(c.uint()),
            Some(b"digest") => (p.digest, p.digest_text) = digest(c, false).unzip(),
            _ => c.walk_det(5),
        }
    }
    (p, dtype && blob)
}

/// One part map (§3.4), called `name`: its fields, the rules between
/// them, its blob. The part, for the layout's rules.
/// (One copy in firmware, for flash; with `alloc`, in its caller: no copy
/// of the part returned.)
#[cfg_attr(not(feature = "alloc"), inline(never))]
#[cfg_attr(feature = "alloc", inline(always))]
fn part<'a>(p: &mut Pass<'a, '_>, name: &'a str) -> Part<'a> {
    let start = p.c.pos;
    let (part, complete) = read_part(&mut p.c, name);
    let c = &mut p.c;
    if !complete {
        c.fail(Kind::Missing, start);
    } else if part.encoding.is_some() != part.decoded_length.is_some() {
        c.fail(Kind::NoDecodedSize, start);
    } else if part.logical().is_some_and(|l| l.storage() != Some(part.dtype)) {
        c.fail(Kind::LogicalType, start);
    } else {
        p.place(&part, start);
    }
    part
}

impl Pass<'_, '_> {
    /// Place the blob of `part` (its map at `start`) inside its file
    /// (§2.4): this one, or a shard of the table; aligned, past the floor.
    fn place(&mut self, part: &Part<'_>, start: usize) {
        let (file, size) = match part.shard {
            None => (0, self.footer.file_len),
            Some(s) => match self.shard(s.as_bytes()) {
                Some(f) => f,
                None => return self.c.fail(Kind::Shard, start),
            },
        };
        let (offset, length) = (part.offset, part.length);
        if offset % BLOB_ALIGN != 0 {
            return self.c.fail(Kind::Misaligned, start);
        }
        if offset < BLOB_ALIGN || offset.checked_add(length).is_none_or(|e| e > size - FOOTER_LEN) {
            return self.c.fail(Kind::OutOfBounds, start);
        }
        self.span(file, offset, length, start);
    }

    /// The 1-based index and size of the shard called `name` in the table.
    fn shard(&self, name: &[u8]) -> Option<(u64, u64)> {
        let m = self.c.m;
        let mut entries = super::view::entries(m, self.shards.0, self.shards.1).enumerate();
        let (i, (_, v)) = entries.find(|&(_, (k, _))| super::view::name_at(m, k) == name)?;
        let size = super::view::field(m, v, "size").and_then(|at| decode_head(m, at));
        Some((i as u64 + 1, size?.1?))
    }

    /// Note the blob `[offset, offset + length)` of file `file` (of the
    /// part at `at`) in the slots, two of them (`[file, offset]`,
    /// `[length, 0]`: sorting the pairs sorts the spans); empty blobs are
    /// exempt from the overlap rule (§2.4).
    fn span(&mut self, file: u64, offset: u64, length: u64, at: usize) {
        if length == 0 {
            return;
        }
        if 2 * self.spans + 2 > self.names {
            self.names = NONE;
        }
        match self.slots.get_mut(2 * self.spans..2 * self.spans + 2) {
            Some(s) => {
                s[0] = [file, offset];
                s[1] = [length, 0];
                self.spans += 1;
            }
            None => self.c.fail(Kind::Slots, at),
        }
    }
}

/// No two of the first `n` spans in `slots` of the same file partially
/// overlap (identical ones may repeat, §2.4): sorted (when not in order
/// already, as writers place blobs), then each starts at or past the
/// furthest end before it in its file.
#[inline(never)]
fn overlap(slots: &mut [Slot], n: usize) -> R<()> {
    use zerocopy::{FromBytes, IntoBytes};
    let Some(s) = slots.get_mut(..2 * n) else { return Ok(()) };
    let Ok(pairs) = <[[Slot; 2]]>::mut_from_bytes(s.as_mut_bytes()) else { return Ok(()) };
    if !pairs.windows(2).all(|w| w[0] <= w[1]) {
        crate::heapsort::sort_by(pairs, |a, b| a.cmp(b));
    }
    let mut end = 0u64;
    for w in 0..pairs.len() {
        let b = pairs[w];
        if let Some(a) = w.checked_sub(1).map(|i| pairs[i]) {
            if a[0][0] != b[0][0] {
                end = 0;
            } else if a != b && b[0][1] < end {
                return Err(Fault::new(Kind::Overlap, 0));
            }
        }
        end = end.max(b[0][1] + b[1][0]);
    }
    Ok(())
}

// (One depth limit for both readers.)
const _: () = assert!(MAX_DEPTH_V2 == crate::v2::cbor::MAX_DEPTH);
