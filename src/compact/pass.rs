//! The compact reader's validating pass: the rules of
//! [`crate::manifest`]'s pass, in the same order, with [`Fault`]s. Each
//! read or rule records its fault in the cursor ([`Cur::fail`]: the first
//! one is kept); no container has another entry after it, so the pass
//! winds up at once and reports it at the end.

use super::cur::{Cur, R};
use super::Kind;
use crate::cbor::keys::KeySet;
use crate::cbor::{MAJOR_MAP, MAJOR_TEXT};
use crate::manifest::fields::Numel;
use crate::manifest::rules::SpanOrder;
use crate::manifest::schema::{ComponentKey, ObjectKey, Role, RootKey};
use crate::scratch::{Entry, Scratch};
use crate::types::{DType, Encoding, Format, LogicalType, Version};
use super::Component;

pub(crate) mod format;
#[cfg(feature = "alloc")]
mod noted;
mod sorted;

use format::{before_1_2, check_format, Dims, Known};
use sorted::sorted_check;

/// What the pass found: where the objects are, and the version.
pub(crate) struct Root {
    pub version: Version,
    pub objects: usize,
    pub count: usize,
    pub attributes: Option<usize>,
    /// Object names came in strictly ascending order.
    pub ordered: bool,
    /// Word 0 of the first `count` slots holds the names sorted (the
    /// duplicate-name check's work, kept for the index).
    pub sorted: bool,
    /// Word 0 of the first `count` slots holds the names (in manifest
    /// order unless `sorted`): noted by the pass (see `noted.rs`).
    #[cfg(feature = "alloc")]
    pub noted: bool,
    /// The names sorted are in the order of their hashes (see `noted.rs`).
    #[cfg(feature = "alloc")]
    pub hashed: bool,
}

impl Root {
    /// Whether the pass noted the names in the slots (the `noted` field;
    /// never without `alloc`).
    #[inline(always)]
    pub fn noted(&self) -> bool {
        #[cfg(feature = "alloc")]
        return self.noted;
        #[cfg(not(feature = "alloc"))]
        false
    }
}

/// State of the pass: the cursor, and what the rules keep.
pub(super) struct Pass<'a, 's> {
    pub c: Cur<'a>,
    scratch: Scratch<'s>,
    /// Blobs lie in `[HEADER_LEN, hi)`.
    hi: u64,
    version: Version,
    /// Blobs so far in file order, none overlapping.
    order: SpanOrder,
    /// Whether keys are checked (the pass), or a validated map is read (a
    /// view, with [`read_fields`]: unknown keys just skipped).
    checking: bool,
    /// Names and blobs noted as they come (see `noted.rs`).
    #[cfg(feature = "alloc")]
    noted: noted::Noted<'s>,
}

impl<'a> Pass<'a, 'static> {
    /// A view's decoding of validated maps of a `version` file, at `pos`
    /// in the manifest `m`.
    pub(super) fn viewing(m: &'a [u8], pos: usize, version: Version) -> Self {
        Pass {
            c: Cur::at(m, pos),
            scratch: Scratch::new(&mut []),
            hi: 0,
            version,
            order: SpanOrder::new(),
            checking: false,
            #[cfg(feature = "alloc")]
            noted: noted::Noted::off(),
        }
    }
}

impl<'a, 's> Pass<'a, 's> {
    /// The pass over the manifest `m` of a file whose manifest starts at
    /// `hi`, with `slots` as scratch.
    fn new(m: &'a [u8], hi: u64, slots: &'s mut [Entry]) -> Self {
        Self::with(m, hi, Scratch::new(slots))
    }

    /// The pass with `scratch` as its memory.
    fn with(m: &'a [u8], hi: u64, scratch: Scratch<'s>) -> Self {
        Pass {
            c: Cur::at(m, 0),
            scratch,
            hi,
            version: Version::V0_1,
            order: SpanOrder::new(),
            checking: true,
            #[cfg(feature = "alloc")]
            noted: noted::Noted::off(),
        }
    }

    /// Read the manifest (the root map, and nothing after it): what was
    /// found, and any fault in the cursor.
    fn run(&mut self) -> Root {
        let mut root = Root {
            version: Version::V0_1,
            objects: 0,
            count: 0,
            attributes: None,
            ordered: false,
            sorted: false,
            #[cfg(feature = "alloc")]
            noted: false,
            #[cfg(feature = "alloc")]
            hashed: false,
        };
        self::root(self, &mut root);
        let c = &mut self.c;
        if c.pos != c.m.len() {
            c.fail(Kind::Trailing, c.pos);
        }
        root
    }
}

/// Validate the manifest `m` of a file whose manifest starts at `hi`.
pub(crate) fn validate(m: &[u8], hi: u64, slots: &mut [Entry]) -> R<Root> {
    #[cfg(feature = "alloc")]
    if let Some(done) = noted::validate(m, hi, slots) {
        return done;
    }
    let mut p = Pass::new(m, hi, slots);
    let root = p.run();
    p.c.done()?;
    whole_file_rules(m, root, &mut p.scratch, p.order.ordered())
}

/// [`validate`] with `scratch` as memory (the full reader's: with
/// `alloc`, one that grows), without the notes of `noted.rs`, which take
/// a caller's slots.
pub(crate) fn validate_in(m: &[u8], hi: u64, scratch: &mut Scratch<'_>) -> R<Root> {
    let mut p = Pass::with(m, hi, core::mem::replace(scratch, Scratch::new(&mut [])));
    let root = p.run();
    let done = p.c.done();
    *scratch = p.scratch;
    done?;
    whole_file_rules(m, root, scratch, p.order.ordered())
}

/// After the pass: object names are unique, and (unless `blobs_ordered`:
/// they came in file order, none overlapping) no two blobs partially
/// overlap ([`sorted_check`]).
#[inline(always)]
fn whole_file_rules(m: &[u8], mut root: Root, scratch: &mut Scratch<'_>, blobs_ordered: bool) -> R<Root> {
    if !root.ordered {
        sorted_check(m, &root, scratch, true)?;
        root.sorted = true;
    }
    if !blobs_ordered {
        sorted_check(m, &root, scratch, false)?;
        root.sorted = false;
    }
    Ok(root)
}

/// A map read by [`Pass::next`]: entries left, where its unknown keys
/// start in the scratch, and its known keys so far (a bit each).
struct Fields {
    len: Option<usize>,
    seg: usize,
    seen: u32,
    /// Whether the map's head was read.
    open: bool,
}

impl Fields {
    /// Before the first key: [`Pass::next`] opens the map at the cursor.
    const NEW: Fields = Fields { len: None, seg: 0, seen: 0, open: false };
}

impl<'a> Pass<'a, '_> {
    /// Read the next known key of the map `f` (at `depth`; its head first,
    /// when `f` is [`Fields::NEW`]): its index in `names` (the map's
    /// schema keys), a second one refused; unknown fields are handled on
    /// the way. At the map's end (or a fault), its keys found unique, an
    /// index past the names. (One copy in firmware, for flash; with
    /// `alloc`, one in each caller, where `names` is a constant and
    /// [`crate::types::Names::find`] compiles to a few comparisons.)
    #[cfg_attr(not(feature = "alloc"), inline(never))]
    #[cfg_attr(feature = "alloc", inline(always))]
    fn next(&mut self, f: &mut Fields, names: &crate::types::Names, depth: usize) -> usize {
        if !f.open {
            (f.len, f.seg, f.open) = (self.c.container(MAJOR_MAP), self.scratch.len(), true);
        }
        while self.c.more(&mut f.len) {
            let kpos = self.c.pos;
            let key = self.key(depth);
            match key.and_then(|b| names.find(b)) {
                Some(k) if f.seen & (1 << k) != 0 => self.c.fail(Kind::DuplicateKey, kpos),
                Some(k) => {
                    f.seen |= 1 << k;
                    return k;
                }
                None => self.unknown(kpos, key, depth + 1),
            }
        }
        self.pop_keys(f.seg);
        usize::MAX
    }

    /// A map key: `Some(bytes)` for definite text; any other key is walked.
    #[inline(always)]
    fn key(&mut self, depth: usize) -> Option<&'a [u8]> {
        let c = &mut self.c;
        if c.peek() >> 5 == MAJOR_TEXT {
            return Some(c.text());
        }
        c.walk(depth, self.checking.then_some(&mut self.scratch));
        None
    }

    /// An unknown field whose key (at `kpos`; its bytes when text, from
    /// [`Pass::key`]) was just read: its key joins the duplicate check, its
    /// value is walked.
    #[inline(always)]
    fn unknown(&mut self, kpos: usize, key: Option<&[u8]>, depth: usize) {
        let c = &mut self.c;
        if self.checking {
            if key.is_some_and(|k| !crate::utf8::valid(k)) {
                c.fail(Kind::Utf8, kpos);
            }
            if !self.scratch.try_push_key(c.m, kpos, c.pos) {
                c.fail(Kind::Slots, kpos);
            }
        }
        c.walk(depth, self.checking.then_some(&mut self.scratch))
    }

    /// A map value, or null (`None`): where it is (its keys checked too).
    #[inline(never)]
    fn nullable_map(&mut self, depth: usize) -> Option<usize> {
        let c = &mut self.c;
        if c.null() {
            return None;
        }
        let at = c.pos;
        if c.peek() >> 5 != MAJOR_MAP {
            c.fail(Kind::WrongType, at);
        }
        c.walk(depth, Some(&mut self.scratch));
        Some(at)
    }

    /// The keys pushed since `seg` are unique (then popped). After a
    /// fault, left as they are (the scratch may hold a walk's frames).
    fn pop_keys(&mut self, seg: usize) {
        let c = &mut self.c;
        if c.fault.is_none() {
            if let Some(at) = self.scratch.duplicate(c.m, seg) {
                c.fail(Kind::DuplicateKey, at);
            }
        }
    }
}

/// The root map, into `root`: `version`, `attributes`, `objects` (checked
/// once the version is known, wherever it comes).
fn root(p: &mut Pass<'_, '_>, root: &mut Root) {
    let start = p.c.pos;
    let mut f = Fields::NEW;
    let has = |f: &Fields, k: RootKey| f.seen & 1 << k as u32 != 0;
    let mut deferred = None;
    loop {
        let k = p.next(&mut f, &RootKey::PACKED, 1);
        let Some(&k) = RootKey::ALL.get(k) else { break };
        match k {
            RootKey::Version => {
                let at = p.c.pos;
                match Version::parse(p.c.str()) {
                    Some(v) if v.major == 1 && (cfg!(feature = "v1-legacy") || v.minor >= 2) => p.version = v,
                    Some(_) => p.c.fail(Kind::Version, at),
                    None => p.c.fail(Kind::BadVersion, at),
                }
            }
            RootKey::Attributes => root.attributes = p.nullable_map(1),
            RootKey::Objects => {
                if has(&f, RootKey::Version) {
                    objects(p, root);
                } else {
                    deferred = Some(p.c.pos);
                    p.c.walk(1, None);
                }
            }
        }
    }
    // (A key seen was read whole: a version seen is `p.version`.)
    if !has(&f, RootKey::Version) || !has(&f, RootKey::Objects) {
        return p.c.fail(Kind::Missing, start);
    }
    if let Some(at) = deferred {
        // (The root map's end is kept: bytes after it are checked last.)
        let end = p.c.pos;
        p.c.pos = at;
        objects(p, root);
        p.c.pos = end;
    }
    root.version = p.version;
}

/// The objects map: each name and object; where it starts, its count,
/// whether names ascend (into `root`).
fn objects(p: &mut Pass<'_, '_>, root: &mut Root) {
    let mut len = p.c.container(MAJOR_MAP);
    #[cfg(feature = "alloc")]
    p.noted.start(&mut p.scratch, len);
    let first = p.c.pos;
    // (Names are not empty: the first is past `prev`'s empty start.)
    let (mut count, mut ordered, mut prev): (usize, bool, &[u8]) = (0, true, &[]);
    while p.c.more(&mut len) {
        let at = p.c.pos;
        #[cfg(feature = "alloc")]
        p.noted.name(at, count);
        let name = p.c.str().as_bytes();
        if name.is_empty() {
            p.c.fail(Kind::EmptyName, at);
        }
        object(p);
        ordered &= prev < name;
        prev = name;
        count += 1;
    }
    (root.objects, root.count, root.ordered) = (first, count, ordered);
}

/// An object map: its fields, then its format's rules.
#[inline(never)]
fn object(p: &mut Pass<'_, '_>) {
    let start = p.c.pos;
    let mut f = Fields::NEW;
    let (mut shape, mut format, mut attributes) = (Dims::default(), Some(Format::Dense), None);
    let mut known = Known::new();
    loop {
        let k = p.next(&mut f, &ObjectKey::PACKED, 3);
        let Some(&k) = ObjectKey::ALL.get(k) else { break };
        match k {
            ObjectKey::Shape => shape = self::shape(&mut p.c),
            ObjectKey::Format => format = Format::known(p.c.str().as_bytes()),
            ObjectKey::Attributes => attributes = p.nullable_map(3),
            ObjectKey::Components => components(p, &mut known),
        }
    }
    let c = &mut p.c;
    // (A key seen was read whole.)
    const NEEDED: u32 = 1 << ObjectKey::Shape as u32 | 1 << ObjectKey::Format as u32 | 1 << ObjectKey::Components as u32;
    if f.seen & NEEDED != NEEDED {
        return c.fail(Kind::Missing, start);
    }
    // (After a fault, the fields may be a part read: no rules.)
    if c.fault.is_none() {
        if let Err(f) = check_format(c.m, shape, format, attributes, &known) {
            c.fail(f.kind, start);
        }
    }
}

/// The shape array: its rank, checked product ([`Numel`]) and first dimension.
fn shape(c: &mut Cur<'_>) -> Dims {
    let start = c.pos;
    let mut len = c.container(crate::cbor::MAJOR_ARRAY);
    let (mut ndim, mut numel, mut first) = (0, Numel::new(), 0);
    while c.more(&mut len) {
        let d = c.uint();
        if ndim == 0 {
            first = d;
        }
        numel.push(d);
        ndim += 1;
    }
    let numel = numel.value().unwrap_or_else(|| {
        c.fail(Kind::Overflow, start);
        0
    });
    Dims { ndim, numel, first }
}

/// The components map: each role (unique) and component.
#[inline(never)]
fn components(p: &mut Pass<'_, '_>, known: &mut Known) {
    let mut len = p.c.container(MAJOR_MAP);
    let (seg, first, m) = (p.scratch.len(), p.c.pos, p.c.m);
    // The first 8 roles are compared directly (the earlier keys read
    // again); past that, in the scratch.
    let mut n = 0usize;
    while p.c.more(&mut len) {
        let kpos = p.c.pos;
        let name = p.c.str();
        let rb = name.as_bytes();
        if rb.is_empty() {
            p.c.fail(Kind::EmptyName, kpos);
        }
        // (A text key's entry needs no end: it compares by content.)
        let push = |p: &mut Pass<'_, '_>, k: usize| {
            if !p.scratch.try_push_key(m, k, k) {
                p.c.fail(Kind::Slots, k);
            }
        };
        if n <= 8 {
            for (k, _) in super::view::entries(m, first, n) {
                if n == 8 {
                    push(p, k);
                } else if super::view::name_at(m, k) == rb {
                    p.c.fail(Kind::DuplicateKey, kpos);
                }
            }
        }
        if n >= 8 {
            push(p, kpos);
        }
        n += 1;
        component(p, Role::from_bytes(rb), name, known);
    }
    p.pop_keys(seg)
}

/// One component map: its fields, then the rules every component obeys.
#[inline(never)]
fn component<'a>(p: &mut Pass<'a, '_>, role: Option<Role>, name: &'a str, known: &mut Known) {
    let start = p.c.pos;
    let mut comp = Component::blank(name, start);
    let seen = read_fields(p, &mut comp);
    if let Err(k) = component_rules(p, &comp, seen, role, known) {
        p.c.fail(k, start);
    }
}

/// The rules every component obeys (a fault's kind), then its blob and
/// role noted.
#[inline(always)]
fn component_rules(p: &mut Pass<'_, '_>, comp: &Component<'_>, seen: u32, role: Option<Role>, known: &mut Known) -> Result<(), Kind> {
    const NEEDED: u32 = 1 << ComponentKey::DType as u32 | 1 << ComponentKey::Offset as u32 | 1 << ComponentKey::Length as u32;
    if seen & NEEDED != NEEDED {
        return Err(Kind::Missing);
    }
    crate::manifest::rules::component_fault(comp, p.hi, !before_1_2(p.version))?;
    let Component { offset, length, .. } = *comp;
    if length > 0 {
        p.order.add(offset, offset + length);
        #[cfg(feature = "alloc")]
        p.noted.span(&mut p.scratch, offset, offset + length);
    }
    if let Some(r) = role {
        known.note(r, p.version, comp);
    }
    Ok(())
}

/// The fields of the component map at `c` into `out` (from
/// [`Component::blank`]), and which known keys it has (bits by
/// [`ComponentKey`]): checked as the pass checks them, or (`p` viewing)
/// read from a validated manifest. Into the caller's frame: the walk of
/// an unknown field's value is the pass's deepest path.
#[inline(never)]
pub(super) fn read_fields<'a>(p: &mut Pass<'a, '_>, out: &mut Component<'a>) -> u32 {
    let mut f = Fields::NEW;
    let mut ltype = None;
    loop {
        let k = p.next(&mut f, &ComponentKey::PACKED, 5);
        let Some(&k) = ComponentKey::ALL.get(k) else { break };
        let c = &mut p.c;
        let at = c.pos;
        // (Null, for these, is the field absent: one check for all.)
        const NULLABLE: u32 = 1 << ComponentKey::Type as u32
            | 1 << ComponentKey::UncompressedLength as u32
            | 1 << ComponentKey::Encoding as u32
            | 1 << ComponentKey::Digest as u32;
        if NULLABLE & 1 << k as u32 != 0 && c.null() {
            continue;
        }
        // (The integers read in one place, and the texts in another.)
        const UINT: u32 = 1 << ComponentKey::Offset as u32
            | 1 << ComponentKey::Length as u32
            | 1 << ComponentKey::UncompressedLength as u32;
        if UINT & 1 << k as u32 != 0 {
            let v = c.uint();
            match k {
                ComponentKey::Offset => out.offset = v,
                ComponentKey::Length => out.length = v,
                _ => out.uncompressed_length = Some(v),
            }
            continue;
        }
        // (UTF-8 text kept, for `type` and `digest`; names parsed, for
        // `dtype` and `encoding`: one read each.)
        if matches!(k, ComponentKey::Type | ComponentKey::Digest) {
            let s = Some(c.str());
            if k == ComponentKey::Type {
                ltype = s;
            } else {
                out.digest = s;
            }
            continue;
        }
        let s = c.text();
        let fault = if k == ComponentKey::DType {
            let parsed = if before_1_2(p.version) { DType::from_v1_1_bytes(s) } else { DType::from_bytes(s).map(|d| (d, None)) };
            match parsed {
                Some(d) => {
                    (out.dtype, out.logical) = d;
                    continue;
                }
                None => Kind::DType,
            }
        } else {
            match Encoding::from_bytes(s) {
                Some(e) => {
                    out.encoding = e;
                    continue;
                }
                None => Kind::Encoding,
            }
        };
        unknown_text(c, s, fault, at);
    }
    // A `type` naming the dtype itself is no logical type; without one, a
    // v1.0/1.1 dtype may imply one.
    if let Some(t) = ltype {
        out.logical = (t != out.dtype.name()).then(|| LogicalType::parse(t));
    }
    f.seen
}

/// Text that names nothing known: invalid UTF-8 is said first.
#[cold]
fn unknown_text(c: &mut Cur<'_>, s: &[u8], kind: Kind, at: usize) {
    c.fail(if crate::utf8::valid(s) { kind } else { Kind::Utf8 }, at)
}

#[cfg(test)]
mod tests;
