//! The compact reader's validating pass: the rules of
//! [`crate::manifest`]'s pass, in the same order, with [`Fault`]s. Each
//! read or rule records its fault in the cursor ([`Cur::fail`]: the first
//! one is kept); no container has another entry after it, so the pass
//! winds up at once and reports it at the end.

use super::cur::{Cur, R};
use super::{Fault, Kind};
use crate::cbor::keys::KeySet;
use crate::cbor::{decode_head, MAJOR_MAP, MAJOR_TEXT, MAJOR_UINT};
use crate::container::{ALIGNMENT, HEADER_LEN};
use crate::manifest::fields::Numel;
use crate::manifest::rules::SpanOrder;
use crate::manifest::schema::{ComponentKey, ObjectKey, QuantAttr, Role, RootKey};
use crate::scratch::{Entry, Scratch};
use crate::types::{DType, Encoding, Format, LogicalType, Version};
use super::Component;

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
}

impl<'a> Pass<'a, 'static> {
    /// A view's decoding of validated maps of a `version` file, at `pos`
    /// in the manifest `m`.
    pub(super) fn viewing(m: &'a [u8], pos: usize, version: Version) -> Self {
        Pass { c: Cur::at(m, pos), scratch: Scratch::new(&mut []), hi: 0, version, order: SpanOrder::new(), checking: false }
    }
}

/// Validate the manifest `m` of a file whose manifest starts at `hi`.
pub(crate) fn validate(m: &[u8], hi: u64, slots: &mut [Entry]) -> R<Root> {
    let mut p = Pass {
        c: Cur::at(m, 0),
        scratch: Scratch::new(slots),
        hi,
        version: Version::V0_1,
        order: SpanOrder::new(),
        checking: true,
    };
    let mut root = Root { version: Version::V0_1, objects: 0, count: 0, attributes: None, ordered: false, sorted: false };
    self::root(&mut p, &mut root);
    let c = &mut p.c;
    if c.pos != m.len() {
        c.fail(Kind::Trailing, c.pos);
    }
    c.done()?;
    if !root.ordered {
        sorted_check(m, &root, &mut p.scratch, true)?;
        root.sorted = true;
    }
    if !p.order.ordered() {
        sorted_check(m, &root, &mut p.scratch, false)?;
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
    /// index past the names.
    #[inline(never)]
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
                    Some(v) if v.major == 1 && !(cfg!(ztensor_no_v1_1) && v.minor < 2) => p.version = v,
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
    let first = p.c.pos;
    // (Names are not empty: the first is past `prev`'s empty start.)
    let (mut count, mut ordered, mut prev): (usize, bool, &[u8]) = (0, true, &[]);
    while p.c.more(&mut len) {
        let at = p.c.pos;
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

/// What the format rules need of an object's components of known roles,
/// by [`Role`], in parts (88 bytes: the pass's deepest frame holds them).
struct Known {
    /// Roles present, those of a known decoded size, and those of an
    /// index dtype (a bit each).
    has: u32,
    sized: u32,
    index: u32,
    /// Bytes per logical element: the storage width times the storage
    /// elements per logical element (0 for an unknown logical type).
    per: [u8; Role::ALL.len()],
    /// Decoded sizes in bytes.
    sizes: [u64; Role::ALL.len()],
}

impl Known {
    /// No roles yet.
    fn new() -> Known {
        Known { has: 0, sized: 0, index: 0, per: [0; Role::ALL.len()], sizes: [0; Role::ALL.len()] }
    }

    /// Role `r`'s storage type, ratio and decoded size, in a `v` file.
    fn set(&mut self, r: Role, v: Version, dtype: DType, ratio: u8, decoded: Option<u64>) {
        let bit = 1 << r as u32;
        self.has |= bit;
        if decoded.is_some() {
            self.sized |= bit;
        }
        // (Sparse indices: u64 since v1.2, any integer before.)
        let index = if before_1_2(v) { dtype.is_integer() } else { dtype == DType::U64 };
        if index {
            self.index |= bit;
        }
        // (At most 8 x 2.)
        self.per[r as usize] = dtype.width() as u8 * ratio;
        self.sizes[r as usize] = decoded.unwrap_or(0);
    }

    /// Decoded size in bytes, when known.
    fn decoded(&self, r: Role) -> Option<u64> {
        (self.sized & 1 << r as u32 != 0).then_some(self.sizes[r as usize])
    }

    /// Decoded element count in logical elements, when known.
    #[inline(always)]
    fn count(&self, r: Role) -> Option<u64> {
        let per = self.per[r as usize] as u64;
        let n = self.decoded(r)?;
        (per != 0).then(|| crate::types::div_pow2(n, per))
    }
}

/// An object map: its fields, then its format's rules.
#[inline(never)]
fn object(p: &mut Pass<'_, '_>) {
    let start = p.c.pos;
    let mut f = Fields::NEW;
    let (mut shape, mut format, mut attributes) = ((0, 0, 0), Some(Format::Dense), None);
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
        if let Err(k) = check_format(c.m, shape, format, attributes, &known) {
            c.fail(k, start);
        }
    }
}

/// The shape array: (ndim, checked product ([`Numel`]), first dimension).
fn shape(c: &mut Cur<'_>) -> (usize, u64, u64) {
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
    (ndim, numel, first)
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
    let Component { dtype, logical, offset, length, encoding, uncompressed_length: ulen, .. } = *comp;
    if logical.and_then(|t| t.storage()).is_some_and(|s| s != dtype) {
        return Err(Kind::LogicalType);
    }
    if offset % ALIGNMENT != 0 {
        return Err(Kind::Misaligned);
    }
    match offset.checked_add(length) {
        Some(end) if offset >= HEADER_LEN && end <= p.hi => {}
        _ => return Err(Kind::OutOfBounds),
    }
    if encoding == Encoding::Zstd && ulen.is_none() && !before_1_2(p.version) {
        return Err(Kind::NoDecodedSize);
    }
    let decoded = comp.decoded_len();
    if decoded.is_some_and(|n| crate::types::rem_pow2(n, dtype.width()) != 0) {
        return Err(Kind::PartialElement);
    }
    if length > 0 {
        in_order(&mut p.order, offset, offset + length);
    }
    if let Some(r) = role {
        let ratio = comp.ratio().unwrap_or(0) as u8;
        known.set(r, p.version, dtype, ratio, decoded);
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

/// A v1.0 or v1.1 file (some rules differ): never in a build that reads
/// v1.2 only (`--cfg ztensor_no_v1_1`: the firmware's), which refuses the
/// others as an unsupported version when it reads theirs.
#[inline(always)]
fn before_1_2(v: Version) -> bool {
    !cfg!(ztensor_no_v1_1) && v.minor < 2
}

/// Text that names nothing known: invalid UTF-8 is said first.
#[cold]
fn unknown_text(c: &mut Cur<'_>, s: &[u8], kind: Kind, at: usize) {
    c.fail(if crate::utf8::valid(s) { kind } else { Kind::Utf8 }, at)
}

/// A bit per role of `rs`.
const fn roles(rs: &[Role]) -> u32 {
    let (mut m, mut i) = (0, 0);
    while i < rs.len() {
        m |= 1 << rs[i] as u32;
        i += 1;
    }
    m
}

/// The roles of the components a format needs, and those of them that
/// hold indices (a bit per [`Role`] each): by format, in the order of
/// [`Format`]'s known variants (a table, not a match).
const NEEDS: [(u32, u32); 4] = [
    (roles(&[Role::Data]), 0),
    (roles(&[Role::Values, Role::Indices, Role::Indptr]), roles(&[Role::Indices, Role::Indptr])),
    (roles(&[Role::Values, Role::Coords]), roles(&[Role::Coords])),
    (roles(&[Role::PackedWeight, Role::Scales, Role::Zeros]), 0),
];

/// The rules of the object's format that metadata alone can check.
#[inline(always)]
fn check_format(m: &[u8], shape: (usize, u64, u64), format: Option<Format<'_>>, attributes: Option<usize>, known: &Known) -> Result<(), Kind> {
    let (ndim, numel, first) = shape;
    let i = match format {
        Some(Format::Dense) => 0,
        Some(Format::SparseCsr) => 1,
        Some(Format::SparseCoo) => 2,
        Some(Format::QuantizedGroup) => 3,
        _ => return Ok(()),
    };
    let (needed, index) = NEEDS[i];
    let Some(format) = format else { return Ok(()) };
    if needed & !known.has != 0 {
        return Err(Kind::MissingComponent);
    }
    if index & !known.index != 0 {
        return Err(Kind::IndexDType);
    }
    let count = |r: Role, expected: u64| match known.count(r) {
        Some(n) if n != expected => Err(Kind::Count),
        _ => Ok(()),
    };
    match format {
        Format::Dense => {
            if let (per @ 1.., Some(actual)) = (known.per[Role::Data as usize], known.decoded(Role::Data)) {
                let expected = numel.checked_mul(per as u64).ok_or(Kind::Overflow)?;
                if expected != actual {
                    return Err(Kind::Length);
                }
            }
        }
        // (One reading of the values' count for both.)
        Format::SparseCsr | Format::SparseCoo => {
            let csr = matches!(format, Format::SparseCsr);
            if csr {
                if ndim != 2 {
                    return Err(Kind::Shape);
                }
                count(Role::Indptr, first.checked_add(1).ok_or(Kind::Overflow)?)?;
            }
            if let Some(nnz) = known.count(Role::Values) {
                // CSR: an index per value; COO: `ndim` coordinates per value.
                let (r, want) = if csr { (Role::Indices, Some(nnz)) } else { (Role::Coords, (ndim as u64).checked_mul(nnz)) };
                count(r, want.ok_or(Kind::Overflow)?)?;
            }
        }
        Format::QuantizedGroup => {
            // When present, `bits` and `group_size` are unsigned integers,
            // `packing` definite-length text.
            for attr in QuantAttr::ALL {
                if let Some(v) = attributes.and_then(|a| super::view::field(m, a, attr.name())) {
                    let want = if *attr == QuantAttr::Packing { MAJOR_TEXT } else { MAJOR_UINT };
                    if !matches!(decode_head(m, v), Some((major, Some(_), _)) if major == want) {
                        return Err(Kind::QuantAttribute);
                    }
                }
            }
        }
        Format::Other(_) => {}
    }
    Ok(())
}

/// With `names`, object names are unique (when they did not come in
/// ascending order); without, no two blobs partially overlap (when they
/// did not come in file order). Sorted in the scratch, one slot per object
/// or per non-empty blob: one function, so one fill, sort and refusal of
/// too few slots in the code.
#[inline(never)]
fn sorted_check(m: &[u8], root: &Root, scratch: &mut Scratch<'_>, names: bool) -> R<()> {
    scratch.truncate(0);
    // Once an overlap is found, its blob: the walk of the components runs
    // again to find its component (where the fault points).
    let mut overlap = None;
    loop {
        let found = if names {
            let mut all = super::view::entries(m, root.objects, root.count).enumerate();
            all.any(|(i, (k, _))| !scratch.try_push([super::view::name_slot(k, i), 0])).then_some(root.objects)
        } else {
            first_component(m, root, |c| match overlap {
                Some((offset, length)) => c.offset == offset && c.length == length,
                None => c.length > 0 && !scratch.try_push([c.offset, c.offset + c.length]),
            })
        };
        if overlap.is_some() {
            return Err(Fault::new(Kind::Overlap, found.unwrap_or(0)));
        }
        if let Some(at) = found {
            return Err(Fault::new(Kind::Slots, at));
        }
        let s = scratch.segment(0);
        super::view::sort(m, s, names);
        if names {
            let name = |e: &Entry| super::view::name_at(m, (e[0] as u32) as usize);
            return match s.windows(2).find(|w| name(&w[0]) == name(&w[1])) {
                Some(w) => Err(Fault::new(Kind::DuplicateKey, (w[1][0] as u32) as usize)),
                None => Ok(()),
            };
        }
        // (Sorted by start, non-empty: the blobs are in file order up to
        // the first that overlaps another, as `first_overlap` finds.)
        overlap = overlap_in(s);
        if overlap.is_none() {
            return Ok(());
        }
    }
}

/// Note the non-empty blob `[offset, end)` in `order`: whether every blob
/// so far came in file order, none overlapping (one copy of the rule for
/// the pass and [`sorted_check`]).
#[inline(never)]
fn in_order(order: &mut SpanOrder, offset: u64, end: u64) -> bool {
    order.add(offset, end);
    order.ordered()
}

/// The first blob of `s` (sorted, non-empty) that overlaps another, as
/// (offset, length).
#[inline(always)]
fn overlap_in(s: &[Entry]) -> Option<(u64, u64)> {
    let mut order = SpanOrder::new();
    s.iter().find(|b| !in_order(&mut order, b[0], b[1])).map(|b| (b[0], b[1] - b[0]))
}

/// The map position of the first component (in manifest order) for which
/// `stop` says true ([`sorted_check`]'s one walk of the components, for
/// both its uses).
fn first_component(m: &[u8], root: &Root, mut stop: impl FnMut(&super::Component<'_>) -> bool) -> Option<usize> {
    for o in super::view::objects(m, root.objects, root.count, root.version) {
        for c in o.components() {
            if stop(&c) {
                return Some(c.at);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests;
