//! The compact reader's views: each decodes, from the validated manifest,
//! only what it is asked for.

use super::pass::{read_fields, Pass};
use super::File;
use crate::cbor::{decode_head, Reader, MAJOR_ARRAY, MAJOR_MAP, MAJOR_TEXT};
use crate::cbor::keys::definite;
use crate::manifest::schema::ObjectKey;
use crate::scratch::Entry as Slot;
use crate::types::{DType, Encoding, Format, LogicalType, Version};
use crate::value::Map;
use core::cmp::Ordering;

/// The end of the (validated) item at `pos`.
pub(crate) fn skip(m: &[u8], pos: usize) -> usize {
    // (Through skip_item: one call site of the walk for both.)
    let mut r = Reader::at(m, pos);
    match r.skip_item() {
        Some(()) => r.pos,
        None => m.len(),
    }
}

/// The `count` entries of a map from its first at `first`, as (key, value)
/// positions.
pub(crate) fn entries(m: &[u8], first: usize, count: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut pos = first;
    (0..count).map(move |_| {
        let k = pos;
        let v = skip(m, k);
        pos = skip(m, v);
        (k, v)
    })
}

/// The map whose head is at `pos`; empty for `None` or no map there (an
/// indefinite one's entries counted: [`entries_of`]'s count).
pub(crate) fn map_at(m: &[u8], pos: Option<usize>) -> Map<'_> {
    // (None as a position past the manifest: no head there, no branch.)
    let (first, n) = map_entries(m, pos.unwrap_or(usize::MAX));
    Map::new(m, first, Some(n))
}

/// A map's first entry and entry count (counted when indefinite).
#[inline(always)]
fn map_entries(m: &[u8], pos: usize) -> (usize, usize) {
    entries_of(m, pos, MAJOR_MAP)
}

/// The first item and entry count (counted when indefinite) of the
/// container at `pos` when of major type `major` (else none): a map's
/// entries are its key-value pairs. One function for maps and shapes.
fn entries_of(m: &[u8], pos: usize, major: u8) -> (usize, usize) {
    match decode_head(m, pos) {
        Some((t, len, first)) if t == major => (first, len.map_or_else(|| items(m, first) >> (major == MAJOR_MAP) as u32, |n| n as usize)),
        _ => (0, 0),
    }
}

/// How many items an indefinite container holds, from its first at
/// `first` to its break (a map's keys and values count one each).
fn items(m: &[u8], first: usize) -> usize {
    let (mut at, mut n) = (first, 0);
    while m.get(at).is_some_and(|&b| b != 0xff) {
        at = skip(m, at);
        n += 1;
    }
    n
}

/// The key at `k` when it is definite-length text (schema keys are).
fn text_key(m: &[u8], k: usize) -> Option<&[u8]> {
    if m.get(k)? >> 5 == MAJOR_TEXT {
        definite(m, k)
    } else {
        None
    }
}

/// The value of the field `key` (text) of the map at `pos`.
pub(crate) fn field(m: &[u8], pos: usize, key: &str) -> Option<usize> {
    let (first, n) = map_entries(m, pos);
    entries(m, first, n).find(|&(k, _)| text_key(m, k).is_some_and(|t| t == key.as_bytes())).map(|(_, v)| v)
}

/// Definite text at `pos` (validated UTF-8 where the pass checked it).
pub(crate) fn text(m: &[u8], pos: usize) -> &str {
    definite(m, pos).and_then(crate::utf8::str).unwrap_or("")
}

/// One object of a compact [`File`].
#[derive(Clone, Copy)]
pub struct Object<'a> {
    m: &'a [u8],
    version: Version,
    /// The name's position (decoded when asked for; the object map
    /// follows it, found when a field is asked for).
    name: usize,
}

/// The object whose name is at `name` (its map follows).
pub(crate) fn object_of(m: &[u8], version: Version, name: usize) -> Object<'_> {
    Object { m, version, name }
}

/// Every object, in manifest order.
pub(crate) fn objects(m: &[u8], first: usize, count: usize, version: Version) -> impl Iterator<Item = Object<'_>> + '_ {
    entries(m, first, count).map(move |(k, _)| object_of(m, version, k))
}

/// The bytes of the name (definite text) at `k`. Out of line: the sort's
/// and the search's comparisons share it.
#[inline(never)]
pub(crate) fn name_at(m: &[u8], k: usize) -> &[u8] {
    definite(m, k).unwrap_or(&[])
}

/// Sort slots: by the name whose position is in the low half of word 0,
/// or (`by_name` false) as numbers. One function, so one sort in the code.
/// Not stable: the order of equal names is the sort's own (see
/// [`sort_as_firmware`]).
#[inline(never)]
pub(crate) fn sort(m: &[u8], v: &mut [Slot], by_name: bool) {
    let name = |s: &Slot| name_at(m, (s[0] as u32) as usize);
    // (Word 0, then word 1: one 128-bit number, shorter code than the
    // array's comparison.)
    let num = |s: &Slot| (s[0] as u128) << 64 | s[1] as u128;
    let cmp = |a: &Slot, b: &Slot| if by_name { name(a).cmp(name(b)) } else { num(a).cmp(&num(b)) };
    // With `alloc` (hosts), core's sort: fewer comparisons, and each
    // compares two names. Firmware keeps the heapsort: core's costs more
    // flash than the firmware's flash budget (issue 31) has room for.
    #[cfg(feature = "alloc")]
    v.sort_unstable_by(cmp);
    #[cfg(not(feature = "alloc"))]
    crate::heapsort::sort_by(v, cmp);
}

/// Slots of names (word 0 as [`name_slot`] has it) sorted as the heapsort
/// of firmware builds leaves them, from any order: where two names are
/// equal, which one comes first is the heapsort's, and a duplicate name's
/// fault points at the second.
#[cfg(feature = "alloc")]
#[cold]
pub(crate) fn sort_as_firmware(m: &[u8], v: &mut [Slot]) {
    // (Back to manifest order: the heapsort's input; the indices differ.)
    v.sort_unstable_by_key(|s| s[0] >> 32);
    crate::heapsort::sort_by(v, |a, b| name_at(m, (a[0] as u32) as usize).cmp(name_at(m, (b[0] as u32) as usize)));
}

/// Word 0 of an object's slot in the name index: its name position `k`
/// and its index `i`.
pub(crate) fn name_slot(k: usize, i: usize) -> u64 {
    k as u64 | (i as u64) << 32
}

/// The slots' name index, when there is one slot per object: word 0 of
/// slot `k` is the name position and index of the `k`th name in byte
/// order (in a v2 file, in its key order; with `alloc`, maybe in the order
/// of their hashes: see [`locate`]), word 1 of slot
/// `i` the name position of object `i`. `noted`:
/// word 0 already holds the names in manifest order ([`name_slot`]);
/// `sorted`: word 0 already holds them sorted.
pub(crate) fn build_index<'a>(f: &File<'a>, slots: &'a mut [Slot], ordered: bool, noted: bool, sorted: bool) -> &'a [Slot] {
    let Some(slots) = slots.get_mut(..f.count) else { return &[] };
    if !sorted {
        if !noted {
            // (One slot per object: each name, then past its object.)
            let mut k = f.objects;
            for (i, s) in slots.iter_mut().enumerate() {
                s[0] = name_slot(k, i);
                k = skip(f.m, skip(f.m, k));
            }
        }
        // (Names in ascending order, the usual case: no sort.)
        if !ordered {
            sort(f.m, slots, true);
        }
    }
    // Word 1 from word 0: no second walk of the objects.
    for j in 0..slots.len() {
        let s = slots[j][0];
        if let Some(t) = slots.get_mut((s >> 32) as usize) {
            t[1] = s as u32 as u64;
        }
    }
    slots
}

/// [`File::object`].
pub(crate) fn object<'a>(f: &File<'a>, index: usize) -> Option<Object<'a>> {
    if index >= f.count {
        return None;
    }
    // (The name's position first: no view built for the objects before it.)
    let name = match f.index.get(index) {
        Some(s) => s[1] as usize,
        // (Past `index` entries: below the count, checked above.)
        None => (0..index).fold(f.objects, |k, _| skip(f.m, skip(f.m, k))),
    };
    Some(object_of(f.m, f.version, name))
}

/// The index and name position of the object called `name` (names are
/// definite text: the pass checked them).
pub(crate) fn locate(f: &File<'_>, name: &[u8]) -> Option<(usize, usize)> {
    let m = f.m;
    if f.index.is_empty() {
        // (A scan: each name, then past its object.)
        let mut k = f.objects;
        for i in 0..f.count {
            if name_at(m, k) == name {
                return Some((i, k));
            }
            k = skip(m, skip(m, k));
        }
        return None;
    }
    // A binary search over word 0 of the slots: names in byte order, or
    // in a v2 file, in its key order (§3.1: shorter first, then byte
    // order), the manifest's own.
    // With `alloc`, maybe in the order of their hashes, then bytes (see
    // `pass/noted.rs`).
    let by_len = cfg!(feature = "v2") && f.version.major == 2;
    #[cfg(feature = "alloc")]
    let rank = |n: &[u8]| if f.hashed { crate::index::hash(n) } else { by_len as u64 * n.len() as u64 };
    #[cfg(not(feature = "alloc"))]
    let rank = |n: &[u8]| by_len as u64 * n.len() as u64;
    let mut slots = f.index;
    while let Some(mid) = slots.get(slots.len() / 2) {
        let s = mid[0];
        let k = (s as u32) as usize;
        let n = name_at(m, k);
        slots = match (rank(n), n).cmp(&(rank(name), name)) {
            Ordering::Less => &slots[slots.len() / 2 + 1..],
            Ordering::Greater => &slots[..slots.len() / 2],
            Ordering::Equal => return Some(((s >> 32) as usize, k)),
        };
    }
    None
}

/// [`File::find`].
pub(crate) fn find<'a>(f: &File<'a>, name: &[u8]) -> Option<(usize, Object<'a>)> {
    locate(f, name).map(|(i, k)| (i, object_of(f.m, f.version, k)))
}

impl<'a> Object<'a> {
    /// The object's name.
    pub fn name(&self) -> &'a str {
        text(self.m, self.name)
    }

    /// Where the object's name is in the manifest (its map follows).
    #[cfg_attr(not(feature = "v2"), allow(dead_code))]
    pub(crate) fn name_pos(&self) -> usize {
        self.name
    }

    /// The value of the field `key`; when absent, a position past the
    /// manifest (no item there: each view reads it as empty).
    fn field(&self, key: ObjectKey) -> usize {
        // (The name from the packed list: no table of the key's names.)
        let name = match key {
            // v2 (§3.3) names two of the object's fields differently.
            #[cfg(feature = "v2")]
            ObjectKey::Format if self.version.major == 2 => "layout",
            #[cfg(feature = "v2")]
            ObjectKey::Components if self.version.major == 2 => "parts",
            _ => ObjectKey::PACKED.get(key as usize),
        };
        field(self.m, skip(self.m, self.name), name).unwrap_or(usize::MAX)
    }

    /// The object's shape.
    pub fn shape(&self) -> Shape<'a> {
        shape_at(self.m, self.field(ObjectKey::Shape))
    }

    /// The format's name (`dense`, ..., or another).
    pub fn format(&self) -> Format<'a> {
        Format::parse(text(self.m, self.field(ObjectKey::Format)))
    }

    /// The object's attributes (empty when absent or null).
    pub fn attributes(&self) -> Map<'a> {
        // (Null is no map: empty.)
        map_at(self.m, Some(self.field(ObjectKey::Attributes)))
    }

    /// How many attributes it has ([`Object::attributes`]' length: the
    /// map's head read, an indefinite map's entries counted, as for the
    /// view; no `Map` built and no `Map::len`).
    pub fn attribute_count(&self) -> usize {
        map_entries(self.m, self.field(ObjectKey::Attributes)).1
    }

    /// Its components, in manifest order.
    pub fn components(&self) -> Components<'a> {
        let (first, left) = map_entries(self.m, self.field(ObjectKey::Components));
        Components { m: self.m, version: self.version, pos: first, left }
    }

    /// How many components it has (counted, not decoded).
    pub fn component_count(&self) -> usize {
        self.components().left
    }

    /// The component of role `role`.
    pub fn component(&self, role: &[u8]) -> Option<Component<'a>> {
        // (Each decoded into the result itself: no copy of the match.)
        let mut all = self.components();
        let mut c = all.next();
        while c.is_some_and(|c| c.role.as_bytes() != role) {
            c = all.next();
        }
        c
    }
}

/// The shape array whose head is at `pos` (none there: a scalar).
fn shape_at(m: &[u8], pos: usize) -> Shape<'_> {
    let (first, ndim) = entries_of(m, pos, MAJOR_ARRAY);
    Shape { m, first, ndim }
}

/// What the layout rules (§5) read of a v2 object: its `layout`, `shape`
/// and `attributes` (§3.3), from where they were found. The pass notes
/// their positions as it reads the object, so the rules read no field
/// through another scan of the object's map (its `parts` map comes first
/// in key order, §3.1). One type for every caller of `layout::check`:
/// its rules are compiled once.
#[cfg(feature = "v2")]
#[derive(Clone, Copy)]
pub(crate) struct LayoutFields<'a> {
    layout: &'a str,
    shape: Shape<'a>,
    /// The `attributes` map's head; when absent, a position past the
    /// manifest (no item there: no attribute found).
    attributes: usize,
}

#[cfg(feature = "v2")]
impl<'a> LayoutFields<'a> {
    /// The fields of an object of the validated manifest `m`: its
    /// `layout` (as read), and where its `shape` and `attributes` values
    /// start (past the manifest: absent).
    pub(crate) fn new(m: &'a [u8], layout: &'a str, [shape, attributes]: [usize; 2]) -> Self {
        LayoutFields {
            layout,
            shape: shape_at(m, shape),
            attributes,
        }
    }
}

#[cfg(feature = "v2")]
impl<'a> Object<'a> {
    /// What the layout rules read of this (v2) object, each field found
    /// by a scan of its map (the views' way; the pass has them at hand).
    pub(crate) fn layout_fields(&self) -> LayoutFields<'a> {
        let layout = text(self.m, self.field(ObjectKey::Format));
        LayoutFields {
            layout,
            shape: self.shape(),
            attributes: self.field(ObjectKey::Attributes),
        }
    }
}

/// A v2 object as its layout's rules read it (§5).
#[cfg(feature = "v2")]
impl<'a> crate::v2::layout::Shaped<'a> for LayoutFields<'a> {
    fn layout(&self) -> &'a str {
        self.layout
    }
    fn rank(&self) -> usize {
        self.shape.ndim
    }
    fn dim(&self, i: usize) -> Option<u64> {
        // (Dimension `i` taken off the front after the `i` before it.)
        let mut s = self.shape;
        for _ in 0..i.min(s.ndim) {
            s.pop();
        }
        (s.ndim > 0).then(|| s.pop())
    }
    fn num_elements(&self) -> u64 {
        self.shape.numel()
    }
    fn attr(&self, within: Option<&crate::v2::Attributes<'a>>, key: &str) -> Option<crate::v2::AttrValue<'a>> {
        use crate::v2::{AttrValue, Attributes};
        let m = self.shape.m;
        let v = field(m, within.map_or(self.attributes, |a| a.pos), key)?;
        Some(match decode_head(m, v)? {
            (0, Some(n), _) => AttrValue::Uint(n),
            (MAJOR_TEXT, ..) => AttrValue::Text(text(m, v)),
            (MAJOR_MAP, ..) => AttrValue::Map(Attributes::at(m, v)),
            _ => AttrValue::Other(&m[v..skip(m, v)]),
        })
    }
}

/// An object's shape.
#[derive(Clone, Copy)]
pub struct Shape<'a> {
    m: &'a [u8],
    first: usize,
    /// Number of dimensions.
    pub ndim: usize,
}

impl<'a> Shape<'a> {
    /// The dimensions.
    pub fn dims(&self) -> impl Iterator<Item = u64> + 'a {
        let mut s = *self;
        (0..self.ndim).map(move |_| s.pop())
    }

    /// The next dimension, taken off the front (0 when none is left, or
    /// when not an unsigned integer). Out of line: the shape's readers
    /// (dims, numel, the data rules) share one copy.
    #[inline(never)]
    pub(crate) fn pop(&mut self) -> u64 {
        if self.ndim == 0 {
            return 0;
        }
        self.ndim -= 1;
        // (An unsigned integer ends with its head; the pass checked that
        // each dimension is one. Anything else ends the walk: past the
        // manifest, where the dimensions left read as 0.)
        let (d, next) = match decode_head(self.m, self.first) {
            Some((0, Some(v), next)) => (v, next),
            _ => (0, usize::MAX),
        };
        self.first = next;
        d
    }

    /// The product of the dimensions (1 for a scalar; validated not to overflow).
    pub fn numel(&self) -> u64 {
        // Validated at open by `Numel`'s rule: the product does not
        // overflow unless a dimension is 0, and then the wrapping product
        // is 0 too (a factor of 0 makes it 0 whatever came before).
        let (mut s, mut n) = (*self, 1u64);
        while s.ndim > 0 {
            n = n.wrapping_mul(s.pop());
        }
        n
    }
}

/// One component of an object, decoded.
#[derive(Clone, Copy, Debug)]
pub struct Component<'a> {
    /// Its role (`data`, `values`, ...).
    pub role: &'a str,
    /// Storage type.
    pub dtype: DType,
    /// Logical type, when other than the dtype.
    pub logical: Option<LogicalType<'a>>,
    /// How the bytes are stored.
    pub encoding: Encoding,
    /// Absolute offset of the stored bytes.
    pub offset: u64,
    /// Stored length in bytes.
    pub length: u64,
    /// Declared decoded length.
    pub uncompressed_length: Option<u64>,
    /// `algorithm:value` over the stored bytes.
    pub digest: Option<&'a str>,
    /// The component map's manifest position (where faults point).
    pub at: usize,
}

impl<'a> Component<'a> {
    /// Before its fields are read: the component of role `role` whose map
    /// is at `at`.
    #[inline(always)]
    pub(crate) const fn blank(role: &'a str, at: usize) -> Component<'a> {
        Component { role, dtype: DType::U8, logical: None, encoding: Encoding::Raw, offset: 0, length: 0, uncompressed_length: None, digest: None, at }
    }

    /// Decoded length in bytes, when known (raw: the stored length).
    pub fn decoded_len(&self) -> Option<u64> {
        match self.encoding {
            Encoding::Raw => Some(self.length),
            _ => self.uncompressed_length,
        }
    }

    /// Storage elements per logical element (1 without a logical type;
    /// `None` for an unknown one).
    pub fn ratio(&self) -> Option<u64> {
        self.logical.map_or(Some(1), |t| t.ratio())
    }
}

/// The components of an object, in manifest order.
pub struct Components<'a> {
    m: &'a [u8],
    version: Version,
    pos: usize,
    left: usize,
}

impl<'a> Iterator for Components<'a> {
    type Item = Component<'a>;

    fn next(&mut self) -> Option<Component<'a>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        #[cfg(feature = "v2")]
        if self.version.major == 2 {
            return super::v2::next_component(self.m, &mut self.pos);
        }
        // The pass's decoding (one copy of it in the code), not checking.
        let mut p = Pass::viewing(self.m, self.pos, self.version);
        let role = p.c.str();
        // (Decoded into the Option returned: no copy.)
        let mut found = None;
        let out = found.insert(Component::blank(role, p.c.pos));
        read_fields(&mut p, out);
        if p.c.fault.is_some() {
            found = None;
        }
        self.pos = p.c.pos;
        found
    }
}
