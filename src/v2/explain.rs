//! The v2 reader's [`Error`] for a refusal of the one validating pass
//! (`compact::pass_v2`), derived on the error path: the pass carries only a
//! small [`Fault`] (a class and a manifest byte), and the rule broken, with
//! the field it concerns, is read back from the manifest at that byte.
//!
//! A CBOR fault is told apart by the deterministic-CBOR walk (§3.1), which
//! the pass reports ahead of any schema fault; a layout fault by running
//! the object's layout rules (§5) again; every other one by where its byte
//! lies (§3.2-§3.4: which map, which field) and what the bytes there say.

use super::cbor;
use super::container::BLOB_ALIGN;
use super::error::{Error, Kind};
use super::layout;
use super::manifest::object_in;
use crate::cbor::decode_head;
use crate::compact::view::{entries, name_at, skip};
use crate::compact::{Fault, Kind as Class};

/// Where a manifest byte lies in the schema (§3.2-§3.4).
#[derive(Default)]
struct Place<'a> {
    /// The root field it is in (`objects`, `shards`, `attributes`, ...).
    section: &'a [u8],
    /// The object (or shard table entry) it is in: its name's position.
    entry: Option<usize>,
    /// The part it is in (`objects` only): its name's position.
    part: Option<usize>,
    /// The field of the innermost schema map whose value holds it, and
    /// where that value starts.
    field: &'a [u8],
    value: usize,
    /// It is a map key (a name) itself, not in a value.
    key: bool,
}

impl Place<'_> {
    /// How many schema maps deep it lies: 1 the root, 2 an object or a
    /// shard entry, 3 a part.
    fn depth(&self) -> usize {
        1 + self.entry.is_some() as usize + self.part.is_some() as usize
    }
}

/// The entry of the map whose head is at `map` that holds byte `at`: its
/// key's and value's positions.
fn entry_holding(m: &[u8], map: usize, at: usize) -> Option<(usize, usize)> {
    let (crate::cbor::MAJOR_MAP, n, first) = decode_head(m, map)? else { return None };
    let n = usize::try_from(n?).ok()?;
    // (Entries come in byte order: none past `at` is looked at, so a
    // count larger than the bytes never runs long.)
    entries(m, first, n).take_while(|&(k, _)| k <= at).find(|&(_, v)| at < skip(m, v))
}

/// Locate byte `at` of the (well-formed) manifest `m`: down from the root
/// through `objects` (or `shards`), an object's `parts`, to the field.
fn locate(m: &[u8], at: usize) -> Place<'_> {
    let mut p = Place::default();
    let mut map = 0;
    for depth in 1..=5 {
        let Some((k, v)) = entry_holding(m, map, at) else { break };
        p.key = at == k;
        // Depths 2 and 4 are names (an object's, a shard's, a part's).
        match depth {
            1 => p.section = name_at(m, k),
            2 => p.entry = Some(k),
            4 => p.part = Some(k),
            _ => {}
        }
        (p.field, p.value) = if depth % 2 == 0 { (&b""[..], v) } else { (name_at(m, k), v) };
        let deeper = match depth {
            1 => p.section == b"objects" || p.section == b"shards",
            3 => p.section == b"objects" && p.field == b"parts",
            _ => true,
        };
        if p.key || !deeper {
            break;
        }
        map = v;
    }
    p
}

/// The schema's spelling of a field (the error's context is `'static`).
fn field_name(f: &[u8]) -> &'static str {
    const FIELDS: [&str; 14] = [
        "objects", "shards", "attributes", "shape", "layout", "parts", "dtype", "type", "blob", "shard", "encoding",
        "decoded_length", "digest", "size",
    ];
    FIELDS.into_iter().find(|n| n.as_bytes() == f).unwrap_or("")
}

/// The first required field the map at `map` lacks (§3.2-§3.4, §7.1),
/// for a map `depth` deep in `section`.
fn missing(m: &[u8], map: usize, section: &[u8], depth: usize) -> &'static str {
    let required: &[&'static str] = match (section, depth) {
        (_, 1) => &["objects"],
        (b"shards", _) => &["size", "digest"],
        (_, 2) => &["shape", "layout", "parts"],
        _ => &["dtype", "blob"],
    };
    let has = |f: &str| crate::compact::view::field(m, map, f).is_some();
    required.iter().copied().find(|f| !has(f)).unwrap_or("")
}

/// The v2 error of the pass's refusal `f` of the manifest `m`.
#[cold]
pub(crate) fn explain(m: &[u8], f: Fault) -> Error {
    // A CBOR fault comes first, told by the walk.
    if let Err(e) = cbor::validate(m) {
        return e;
    }
    let at = f.at as usize;
    let p = locate(m, at);
    let field = |kind| Error::field(kind, at, context(&p, at));
    match f.kind {
        Class::Slots => Error::new(Kind::ScratchTooSmall),
        Class::Overlap => Error::new(Kind::BlobOverlap),
        Class::Missing if at == 0 => Error::ctx(Kind::MissingField, "objects"),
        Class::Missing => Error::field(Kind::MissingField, at, missing(m, at, p.section, p.depth())),
        Class::WrongType if p.field == b"blob" => Error::field(Kind::BlobNotPair, p.value, "blob"),
        Class::WrongType => field(Kind::WrongType),
        Class::Name if p.section == b"shards" && p.key => Error::at(Kind::BadShardName, at),
        Class::Name => field(Kind::BadName),
        Class::Rank => field(Kind::RankTooLarge),
        Class::Overflow => field(Kind::ShapeOverflow),
        Class::DType => field(Kind::UnknownDtype),
        Class::BadDigest => {
            // A shard's digest must also be of a registered algorithm (§7.1).
            let form = crate::digest::Digest::parse_v2(core::str::from_utf8(name_at(m, at)).unwrap_or("")).is_some();
            Error::field(Kind::BadDigest, at, if p.section == b"shards" && form { "shard digest" } else { "digest" })
        }
        Class::NoDecodedSize => Error::field(Kind::EncodingLengthPair, at, "decoded_length"),
        Class::LogicalType => Error::field(Kind::TypeDtypeMismatch, at, "type"),
        Class::Misaligned => Error::field(Kind::BlobMisaligned, at, "blob"),
        Class::OutOfBounds => {
            let below = blob_offset(m, at).is_some_and(|o| o < BLOB_ALIGN);
            Error::field(if below { Kind::BlobBelowFloor } else { Kind::BlobOutOfBounds }, at, "blob")
        }
        Class::Shard if p.section == b"shards" => Error::field(Kind::BadShardSize, at, "size"),
        Class::Shard => Error::field(Kind::UnknownShard, at, "shard"),
        Class::MissingComponent if !p.key => Error::field(Kind::EmptyParts, at, "parts"),
        // At an object's name: its layout's rules (§5) refused it.
        Class::MissingComponent | Class::Layout | Class::Length => layout_error(m, at),
        // (The pass gives no other class on a well-formed manifest.)
        _ => Error::at(Kind::CborInvalid, at),
    }
}

/// What the item at `at` (placed at `p`) is, as an error names it.
fn context(p: &Place<'_>, at: usize) -> &'static str {
    match (p.section, p.depth(), p.field) {
        _ if at == 0 => "manifest",
        (b"objects", 2, _) if p.key => "object name",
        (b"objects", 3, _) if p.key => "part name",
        (b"shards", 2, _) if p.key => "shard name",
        (_, _, b"attributes") if at != p.value => "attribute key",
        (b"objects", 2, b"") => "object",
        (b"objects", 3, b"") => "part",
        (b"shards", 2, b"") => "shard",
        (_, _, f) => field_name(f),
    }
}

/// The blob offset of the part map at `at`.
fn blob_offset(m: &[u8], at: usize) -> Option<u64> {
    let blob = crate::compact::view::field(m, at, "blob")?;
    let (_, _, first) = decode_head(m, blob)?;
    decode_head(m, first)?.1
}

/// The layout rules' error for the object whose name is at `at` (which is
/// where it is, when the rule names no byte of its own).
fn layout_error(m: &[u8], at: usize) -> Error {
    let e = match object_in(m, at) {
        Some((o, _)) => layout::check(&o, &o.part_set()).err(),
        None => None,
    };
    let mut e = e.unwrap_or(Error::at(Kind::LayoutParts, at));
    e.offset.get_or_insert(at);
    e
}

/// The object and the part that manifest byte `at` of a well-formed
/// manifest `m` lies in, by name (for an error's where).
pub(crate) fn names_at(m: &[u8], at: usize) -> (Option<&str>, Option<&str>) {
    let p = locate(m, at);
    if p.section != b"objects" {
        return (None, None);
    }
    let name = |pos: Option<usize>| pos.and_then(|k| core::str::from_utf8(name_at(m, k)).ok());
    (name(p.entry), name(p.part))
}
