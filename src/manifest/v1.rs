//! A v1.x manifest, validated by the one v1 pass (`compact::pass`, the
//! firmware's), and the host's [`Error`] for its refusals, derived on the
//! error path: the pass carries only a small [`Fault`] (a class and a
//! manifest byte), and the rule broken, with the object, component and
//! field it concerns, is read back from the manifest at that byte.
//!
//! The field's own decoder (`fields`, the CBOR reader's typed reads) is run
//! again on the field the byte lies in, and the rules (`rules`) on the
//! component or object it lies in: the same functions the views and the
//! writer's checks use, so each rule is stated once with its words.

use super::rules::{component_rules, Dims, Known};
use super::schema::{ComponentKey, ObjectKey, Role, RootKey};
use super::{fields, pass, view, Ctx, Root};
use crate::cbor::{decode_head, Reader, MAJOR_MAP, MAJOR_TEXT};
use crate::compact::view::{name_at, skip};
use crate::compact::{Fault, Kind as Class};
use crate::container::Tail;
use crate::error::{Error, ErrorKind, Result};
#[cfg(feature = "alloc")]
use crate::scratch::Entry;
use crate::scratch::Scratch;
use crate::types::Version;
use crate::value::Map;

/// Validate the v1.x manifest `buf` located by `tail` with the one v1
/// pass, over `scratch`'s memory; `data`, when given, is the whole file.
pub(super) fn validate<'a>(buf: &'a [u8], tail: &Tail, data: Option<&'a [u8]>, mut scratch: Scratch<'_>) -> Result<Root<'a>> {
    let hi = tail.manifest_offset;
    // (With `alloc`, what a caller's scratch cannot hold goes to the heap.)
    #[cfg(feature = "alloc")]
    let _ = core::mem::replace(&mut scratch, Scratch::growable());
    // With `alloc`: slots for the pass's notes (a name and a blob per
    // object, and room for keys), so that the names need no second walk;
    // when they do not fit, the pass over memory that grows.
    #[cfg(feature = "alloc")]
    let mut slots = alloc::vec![[0u64; 2]; 2 * objects_claimed(buf) + 64];
    // A refusal is found again over memory that grows: with too few slots
    // the pass may meet a later fault first (a walk whose keys do not fit
    // is walked again without them), and the first one is the answer.
    #[cfg(feature = "alloc")]
    let found = match crate::compact::pass::validate(buf, hi, &mut slots) {
        Ok(root) => Ok(root),
        Err(_) => crate::compact::pass::validate_in(buf, hi, &mut scratch),
    };
    #[cfg(not(feature = "alloc"))]
    let found = crate::compact::pass::validate_in(buf, hi, &mut scratch);
    match found {
        Ok(r) => {
            let root = root_of(buf, data, r.version, r.count, r.ordered, r.attributes)?;
            #[cfg(feature = "alloc")]
            let root = match r.noted() {
                true => noted_index(root, &slots[..r.count], r.hashed),
                false => indexed(root)?,
            };
            Ok(root)
        }
        // (One slot per manifest item is always enough.)
        Err(f) if f.kind == Class::Slots => Err(Error::new(ErrorKind::ScratchTooSmall { needed: buf.len() as u64 + 64 })),
        Err(f) => Err(explain(buf, tail, data, f, scratch)),
    }
}

/// The views' [`Root`] of a manifest the pass accepted (or, on the error
/// path, that it read whole).
fn root_of<'a>(
    buf: &'a [u8],
    data: Option<&'a [u8]>,
    version: Version,
    count: usize,
    ordered: bool,
    attributes: Option<usize>,
) -> Result<Root<'a>> {
    let ctx = Ctx { buf, data, version };
    let mut r = Reader::new(buf);
    let len = r.map("manifest")?;
    let fields = Map::new(buf, r.pos, len);
    let attributes = match attributes {
        Some(at) => Map::read(buf, at, "attributes")?,
        None => Map::empty(),
    };
    let at = field_of(buf, 0, RootKey::Objects.name()).unwrap_or(0);
    let mut r = Reader::at(buf, at);
    let len = r.map("objects")?;
    Ok(Root::new(ctx, attributes, fields, (r.pos, len), count, ordered))
}

/// How many objects the manifest's `objects` map claims, at most one per
/// two bytes (an entry takes two at least): the size of the pass's notes.
#[cfg(feature = "alloc")]
fn objects_claimed(m: &[u8]) -> usize {
    let n = field_of(m, 0, RootKey::Objects.name()).and_then(|at| decode_head(m, at)).and_then(|(_, n, _)| n);
    n.map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX).min(m.len() / 2))
}

/// The name index from the names the pass noted (`compact/pass/noted.rs`):
/// a slot per object, in manifest order, or (`hashed`) in the order of
/// their hashes (word 1), as [`crate::index::Index`] keeps them.
#[cfg(feature = "alloc")]
fn noted_index<'a>(mut root: Root<'a>, slots: &[Entry], hashed: bool) -> Root<'a> {
    let buf = root.ctx.buf;
    let mut positions = alloc::vec![crate::index::ObjPos { body: 0, name_start: 0, name_len: 0 }; slots.len()];
    for s in slots {
        let (k, i) = (s[0] as u32, (s[0] >> 32) as usize);
        if let (Some((_, Some(len), start)), Some(p)) = (decode_head(buf, k as usize), positions.get_mut(i)) {
            *p = crate::index::ObjPos { body: k, name_start: start as u32, name_len: len as u32 };
        }
    }
    root.index = match hashed {
        true => crate::index::Index::hashed(positions, slots.iter().map(|s| (s[1], (s[0] >> 32) as u32)).collect()),
        false => crate::index::Index::ascending(positions),
    };
    root
}

/// The name index of a validated manifest's objects.
#[cfg(feature = "alloc")]
fn indexed(mut root: Root<'_>) -> Result<Root<'_>> {
    let mut positions = alloc::vec::Vec::with_capacity(root.count);
    positions.extend(super::skim::positions(root.ctx, root.objects));
    root.index = crate::index::Index::build(root.ctx.buf, positions, root.names_ordered)
        .map_err(|dup| Error::at(ErrorKind::DuplicateKey, dup.body as usize).in_object(dup.name(root.ctx.buf)))?;
    Ok(root)
}

/// Where a manifest byte lies in a v1.x manifest's schema (v1.2 spec,
/// "Manifest"): the object and component it is in, and the innermost
/// schema map holding it with the entry of that map it is in.
#[derive(Default)]
struct Place {
    /// The object's name key, the component's role key: where each
    /// starts and ends.
    object: Option<(usize, usize)>,
    role: Option<(usize, usize)>,
    /// 0 the root map, 1 an object's, 2 a component's; the map's head.
    level: u8,
    map: usize,
    /// The entry of that map holding the byte: its key and its value; none
    /// when the byte is the map's own (its head, or past its entries).
    entry: Option<(usize, usize)>,
}

impl Place {
    /// The entry's key, when text.
    fn field<'m>(&self, m: &'m [u8]) -> &'m [u8] {
        match self.entry {
            Some((k, _)) if m.get(k).is_some_and(|b| b >> 5 == MAJOR_TEXT) => name_at(m, k),
            _ => &[],
        }
    }
}

/// The entries of the map with head at `map`, as (key, value, end)
/// positions, read as far as the bytes go (the manifest was refused: a
/// count may claim more entries than there are bytes). A malformed entry
/// is the last: its end is `None`, and with a malformed key its value is
/// nowhere (`usize::MAX`).
fn entries_of(m: &[u8], map: usize) -> impl Iterator<Item = (usize, usize, Option<usize>)> + '_ {
    let head = decode_head(m, map).filter(|h| h.0 == MAJOR_MAP);
    let (n, mut pos) = head.map_or((Some(0), m.len()), |(_, n, first)| (n, first));
    let mut left = n;
    core::iter::from_fn(move || {
        if left == Some(0) || !m.get(pos).is_some_and(|&b| n.is_some() || b != 0xff) {
            return None;
        }
        let k = pos;
        let Some(v) = end_of(m, k) else {
            left = Some(0);
            return Some((k, usize::MAX, None));
        };
        let end = end_of(m, v);
        (pos, left) = (end.unwrap_or(m.len()), if end.is_some() { left.map(|l| l - 1) } else { Some(0) });
        Some((k, v, end))
    })
}

/// The entry (key and value positions) of the map with head at `map` that
/// holds byte `at`.
fn entry_holding(m: &[u8], map: usize, at: usize) -> Option<(usize, usize)> {
    let mut holding = entries_of(m, map).take_while(|e| e.0 <= at).filter(|e| e.2.map_or(true, |end| at < end));
    holding.next().map(|(k, v, _)| (k, v))
}

/// The end of the item at `pos`; `None` when it is malformed.
fn end_of(m: &[u8], pos: usize) -> Option<usize> {
    let mut r = Reader::at(m, pos);
    r.skip_item()?;
    Some(r.pos)
}

/// The value of the text field `key` of the map with head at `map`.
fn field_of(m: &[u8], map: usize, key: &str) -> Option<usize> {
    let is_key = |k: usize| m.get(k).is_some_and(|b| b >> 5 == MAJOR_TEXT) && name_at(m, k) == key.as_bytes();
    entries_of(m, map).find(|e| is_key(e.0)).map(|e| e.1)
}

/// Locate byte `at` of the manifest `m`: down from the root through
/// `objects`, an object's `components`, to the field.
fn locate(m: &[u8], at: usize) -> Place {
    let mut p = Place::default();
    loop {
        p.entry = entry_holding(m, p.map, at);
        let Some((_, v)) = p.entry else { return p };
        let inner = match p.level {
            0 => RootKey::Objects.name(),
            _ => ObjectKey::Components.name(),
        };
        if p.level == 2 || at < v || at == v || p.field(m) != inner.as_bytes() {
            return p;
        }
        // Into `objects` (or `components`): the entry holding the byte
        // there is an object (a component), named by its key.
        let Some((name, map)) = entry_holding(m, v, at) else { return p };
        if p.level == 0 {
            p.object = Some((name, map));
        } else {
            p.role = Some((name, map));
        }
        if at < map {
            // A name itself: an entry of `objects` (`components`).
            p.entry = Some((name, map));
            return p;
        }
        (p.level, p.map, p.entry) = (p.level + 1, map, None);
        if at == map {
            return p;
        }
    }
}

/// The v1.x error of the pass's refusal `f` of the manifest `buf`.
#[cold]
#[inline(never)]
fn explain(buf: &[u8], tail: &Tail, data: Option<&[u8]>, f: Fault, scratch: Scratch<'_>) -> Error {
    let at = f.at as usize;
    let version = version_of(buf);
    let ctx = Ctx { buf, data, version };
    let p = locate(buf, at);
    let head = ["manifest", "object", "component"][p.level as usize];
    let e = match f.kind {
        Class::Trailing => Error::at(ErrorKind::TrailingBytes { count: (buf.len() - at) as u64 }, at),
        Class::Overlap => return whole_file(ctx, scratch, false),
        Class::DuplicateKey if p.level == 0 && p.object.is_some() => return whole_file(ctx, scratch, true),
        Class::DuplicateKey => Error::at(ErrorKind::DuplicateKey, at),
        Class::Missing => missing(buf, &p, at),
        Class::Cbor | Class::Utf8 | Class::Deep => match deferred(buf).filter(|&v| v <= at && end_of(buf, v).is_none_or(|e| at < e)) {
            // `objects` before `version`: walked whole first, its CBOR
            // faults found by that walk (no object named yet).
            Some(v) => return Reader::at(buf, v).walk(1, None).err().unwrap_or(Error::at(ErrorKind::CborInvalid, at)),
            None => cbor_error(ctx, &p, at),
        },
        _ if p.entry.is_none() && Reader::at(buf, p.map).map(head).is_err() => {
            Reader::at(buf, p.map).map(head).err().unwrap_or(Error::at(ErrorKind::CborInvalid, at))
        }
        _ if p.entry.is_none() && p.level == 2 => component_error(ctx, tail, &p, at),
        _ if p.entry.is_none() && p.level == 1 => object_error(ctx, &p, at),
        _ => field_error(ctx, &p, at).unwrap_or(Error::at(ErrorKind::CborInvalid, at)),
    };
    named(buf, &p, at, e)
}

/// The error with its object and component named, as the pass over each
/// names them: not for an object's (a component's) own name.
fn named(m: &[u8], p: &Place, at: usize, e: Error) -> Error {
    let name = |k: usize| core::str::from_utf8(name_at(m, k)).unwrap_or("");
    let e = match p.role {
        Some((k, end)) if at >= end => e.in_component(name(k)),
        // A role repeated among an object's first 8 (compared as they come).
        Some((k, _)) if e.kind() == ErrorKind::DuplicateKey && role_index(m, p, k) < 8 => e.in_component(name(k)),
        _ => e,
    };
    match p.object {
        Some((k, end)) if at >= end => e.in_object(name(k)),
        _ => e,
    }
}

/// How many roles come before the one at `k` in its `components` map.
fn role_index(m: &[u8], p: &Place, k: usize) -> usize {
    let Some((_, map)) = p.entry.filter(|_| p.level == 1) else { return usize::MAX };
    let _ = map;
    let comps = field_of(m, p.map, ObjectKey::Components.name());
    let Some((MAJOR_MAP, _, mut pos)) = comps.and_then(|c| decode_head(m, c)) else { return usize::MAX };
    let mut n = 0;
    while pos < k && pos < m.len() {
        pos = skip(m, skip(m, pos));
        n += 1;
    }
    n
}

/// The version the root map gives (v1.2 when it gives none readable: the
/// fault is then about the version, found before any rule needs it).
fn version_of(m: &[u8]) -> Version {
    let v = field_of(m, 0, RootKey::Version.name());
    v.and_then(|v| crate::cbor::keys::definite(m, v)).and_then(|s| Version::parse(core::str::from_utf8(s).ok()?)).unwrap_or(Version::V1_2)
}

/// Where `objects` is when it comes before `version` (or without it): the
/// pass walks it whole when it meets it, and checks it once the version
/// is known.
fn deferred(m: &[u8]) -> Option<usize> {
    let objects = field_of(m, 0, RootKey::Objects.name())?;
    match field_of(m, 0, RootKey::Version.name()) {
        Some(v) if v < objects => None,
        _ => Some(objects),
    }
}

/// A required field missing from the map at `at` (its head), in the order
/// the pass asks for them.
fn missing(m: &[u8], p: &Place, at: usize) -> Error {
    let required: &[&'static str] = match p.level {
        0 => &["version", "objects"],
        1 => &["shape", "format", "components"],
        _ => &["dtype", "offset", "length"],
    };
    let has = |f: &str| field_of(m, at, f).is_some();
    let field = required.iter().copied().find(|f| !has(f)).unwrap_or("");
    Error::at(ErrorKind::MissingField { field }, at)
}

/// Malformed CBOR: the error of the read that meets it, the field's own
/// decoder's or the walk of a value no schema describes.
fn cbor_error(ctx: Ctx<'_>, p: &Place, at: usize) -> Error {
    let head = ["manifest", "object", "component"][p.level as usize];
    if let (None, Err(e)) = (p.entry, Reader::at(ctx.buf, p.map).map(head)) {
        return e;
    }
    if let Some(e) = field_error(ctx, p, at) {
        return e;
    }
    // At a map's head or between its entries: the walk of the whole root
    // meets it (everything before was read whole).
    let mut r = Reader::new(ctx.buf);
    r.walk(0, None).err().unwrap_or(Error::at(ErrorKind::CborInvalid, at))
}

/// Read the entry of `p` again, as the pass reads it: its error, if any.
fn field_error(ctx: Ctx<'_>, p: &Place, at: usize) -> Option<Error> {
    // (Its walks keep no keys: a duplicate key would have been the fault,
    // so what they meet is the CBOR fault itself, found with no scratch.)
    let m = ctx.buf;
    let (k, v) = p.entry?;
    let field = p.field(m);
    // The names of objects and components (the keys of `objects` and
    // `components`), then their maps.
    let name_entry = (p.level == 0 && p.object.is_some()) || (p.level == 1 && p.role.is_some());
    if name_entry {
        let what = if p.level == 0 { "object name" } else { "component role" };
        if let Err(e) = Reader::at(m, k).text(what) {
            return Some(e);
        }
        if name_at(m, k).is_empty() {
            return Some(Error::at(ErrorKind::EmptyName, k));
        }
        let what = if p.level == 0 { "object" } else { "component" };
        return Reader::at(m, v).map(what).err();
    }
    // A schema map's key: text (its UTF-8 checked when it names no
    // field), or any other item, walked.
    let depth = [1, 3, 5][p.level as usize];
    let mut r = Reader::at(m, k);
    let key = if m.get(k).is_some_and(|b| b >> 5 == MAJOR_TEXT) {
        r.text_bytes("map key").map(Some)
    } else {
        r.walk(depth, None).map(|()| None)
    };
    match key {
        Err(e) => return Some(e),
        Ok(Some(b)) if core::str::from_utf8(b).is_err() => return Some(Error::at(ErrorKind::CborInvalidUtf8, k)),
        Ok(_) if at == k => return None,
        Ok(_) => {}
    }
    let mut r = Reader::at(m, v);
    let known = match p.level {
        0 => RootKey::from_bytes(field).map(|k| k as u8),
        1 => ObjectKey::from_bytes(field).map(|k| k as u8),
        _ => ComponentKey::from_bytes(field).map(|k| k as u8),
    };
    let Some(key) = known else {
        return r.walk(depth + 1, None).err();
    };
    let res = match (p.level, key) {
        _ if p.level < 2 && field == b"attributes" => match fields::null(&mut r) {
            Ok(false) if r.peek().is_ok_and(|b| b >> 5 != MAJOR_MAP) => {
                Err(Error::at(ErrorKind::WrongType { field: "attributes", expected: "a map" }, v))
            }
            Ok(false) => r.walk(depth, None),
            other => other.map(drop),
        },
        (0, k) if k == RootKey::Version as u8 => version(&mut r),
        (0, _) => r.map("objects").map(drop),
        (1, k) if k == ObjectKey::Shape as u8 => fields::shape(&mut r).map(drop),
        (1, k) if k == ObjectKey::Format as u8 => fields::format(&mut r, "format").map(drop),
        (1, _) => r.map("components").map(drop),
        (_, k) => component_field(ctx, &mut r, k),
    };
    res.err()
}

/// The root's `version`: a v1.x version (spec "Manifest").
fn version(r: &mut Reader<'_>) -> Result<()> {
    let at = r.pos;
    let v = Version::parse(r.text("version")?).ok_or_else(|| Error::at(ErrorKind::BadVersion, at))?;
    if v.major != 1 || (!cfg!(feature = "v1-legacy") && v.minor < 2) {
        return Err(Error::at(ErrorKind::UnsupportedVersion { major: v.major as u64 }, at));
    }
    Ok(())
}

/// One field of a component map, read as the pass reads it.
fn component_field(ctx: Ctx<'_>, r: &mut Reader<'_>, key: u8) -> Result<()> {
    const DTYPE: u8 = ComponentKey::DType as u8;
    const TYPE: u8 = ComponentKey::Type as u8;
    const OFFSET: u8 = ComponentKey::Offset as u8;
    const LENGTH: u8 = ComponentKey::Length as u8;
    const ULEN: u8 = ComponentKey::UncompressedLength as u8;
    const ENCODING: u8 = ComponentKey::Encoding as u8;
    match key {
        DTYPE => fields::dtype_v1(ctx, r).map(drop),
        TYPE => fields::opt_text(r, "type").map(drop),
        OFFSET => r.uint("offset").map(drop),
        LENGTH => r.uint("length").map(drop),
        ULEN => fields::opt_uint(r, "uncompressed_length").map(drop),
        ENCODING => fields::encoding_v1(r).map(drop),
        _ => fields::opt_text(r, "digest").map(drop),
    }
}

/// The component map at `at` broke a rule every component obeys.
fn component_error(ctx: Ctx<'_>, tail: &Tail, p: &Place, at: usize) -> Error {
    let role = p.role.map_or("", |(k, _)| core::str::from_utf8(name_at(ctx.buf, k)).unwrap_or(""));
    let c = match view::component_v1(ctx, &mut Reader::at(ctx.buf, at), role) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let core = core_of(&c);
    component_rules(ctx, &core, at, tail.manifest_offset).err().unwrap_or(Error::at(ErrorKind::CborInvalid, at))
}

/// The pass's record of a component, from the host's view of it.
fn core_of<'a>(c: &crate::object::Component<'a>) -> crate::compact::Component<'a> {
    crate::compact::Component {
        dtype: c.dtype,
        logical: c.logical,
        encoding: c.encoding,
        offset: c.offset,
        length: c.length,
        uncompressed_length: c.uncompressed_length,
        ..crate::compact::Component::blank(c.role, 0)
    }
}

/// The object map at `at` broke its format's rules.
fn object_error(ctx: Ctx<'_>, p: &Place, at: usize) -> Error {
    let name = p.object.map_or("", |(k, _)| core::str::from_utf8(name_at(ctx.buf, k)).unwrap_or(""));
    let o = match view::object_v1(ctx, &mut Reader::at(ctx.buf, at), name, 0) {
        Ok(o) => o,
        Err(e) => return e,
    };
    let mut known = Known::new();
    for c in o.components() {
        if let Some(r) = Role::from_bytes(c.role.as_bytes()) {
            known.note(r, ctx.version, &core_of(&c));
        }
    }
    let attributes = crate::compact::view::field(ctx.buf, at, "attributes");
    super::rules::check_format(ctx, Dims::of_shape(&o.shape, o.format), o.format, attributes, &known)
        .err()
        .map_or(Error::at(ErrorKind::CborInvalid, at), |e| e.or_at(at))
}

/// The whole-file rules' error (v1.2 spec, "Manifest"): object names
/// unique (`names`), else no two blobs partially overlapping.
fn whole_file(ctx: Ctx<'_>, mut scratch: Scratch<'_>, names: bool) -> Error {
    let root = match root_of(ctx.buf, ctx.data, ctx.version, 0, false, None) {
        Ok(root) => root,
        Err(e) => return e,
    };
    if names {
        #[cfg(feature = "alloc")]
        if let Err(e) = indexed(root) {
            return e;
        }
        #[cfg(not(feature = "alloc"))]
        if let Err(e) = pass::unique_names(&root, &mut scratch) {
            return e;
        }
        return Error::at(ErrorKind::DuplicateKey, 0);
    }
    let span = pass::first_span_overlap(&root, &mut scratch);
    match span {
        Ok(Some(span)) => pass::locate_span(&root, span),
        Ok(None) => Error::new(ErrorKind::Overlap { offset: 0, length: 0 }),
        Err(e) => e,
    }
}
