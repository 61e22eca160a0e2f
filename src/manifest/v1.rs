//! The validating pass over a v1.x manifest: root map, objects, components.

use super::fields::{dtype_v1, encoding_v1, format, logical_type, null, opt_text, opt_uint, shape};
use super::pass::{objects, Pass, Seen};
use super::rules::{check_format, component_rules, Brief, CompCore, Dims, Known};
use super::schema::{ComponentKey, ObjectKey, Role, RootKey};
use super::{Ctx, Root};
use crate::cbor::Reader;
use crate::error::{Error, ErrorKind, Result};
use crate::types::{Encoding, Format, Version};
use crate::value::Map;

/// The root map: `version`, `attributes`, `objects` (checked once the
/// version is known, wherever it comes).
pub(super) fn root<'a>(buf: &'a [u8], r: &mut Reader<'a>, data: Option<&'a [u8]>, pass: &mut Pass<'_>) -> Result<Root<'a>> {
    let start = r.pos;
    let mut len = r.map("manifest")?;
    let fields = Map::new(buf, r.pos, len);
    let seg = pass.scratch.len();
    let mut seen = Seen::new();
    let (mut version, mut attributes, mut objs, mut deferred) = (None, Map::empty(), None, None);
    while r.more(&mut len)? {
        let kpos = r.pos;
        let key = pass.key(r, 1)?;
        match key.and_then(RootKey::from_bytes) {
            Some(k @ RootKey::Version) => {
                seen.mark(k as u32, kpos)?;
                let at = r.pos;
                let s = r.text("version")?;
                let v = Version::parse(s).ok_or_else(|| Error::at(ErrorKind::BadVersion, at))?;
                if v.major != 1 {
                    return Err(Error::at(ErrorKind::UnsupportedVersion { major: v.major as u64 }, at));
                }
                version = Some(v);
            }
            Some(k @ RootKey::Attributes) => {
                seen.mark(k as u32, kpos)?;
                if !null(r)? {
                    attributes = pass.map_value(r, "attributes", 1)?;
                }
            }
            Some(k @ RootKey::Objects) => {
                seen.mark(k as u32, kpos)?;
                match version {
                    Some(version) => objs = Some(objects(Ctx { buf, data, version }, r, "objects", pass)?),
                    None => {
                        // Rules depend on `version`, which comes later: validate after the root.
                        deferred = Some(r.pos);
                        // Walked (UTF-8 checked) in every build, so that
                        // what is wrong in it is found before a later
                        // `version` is: the same answer with `alloc` or not.
                        r.walk(1, None)?;
                    }
                }
            }
            None => pass.unknown(r, kpos, 2)?,
        }
    }
    pass.pop_keys(buf, seg)?;
    let missing = |field| Error::at(ErrorKind::MissingField { field }, start);
    let version = version.ok_or_else(|| missing("version"))?;
    let ctx = Ctx { buf, data, version };
    if let Some(at) = deferred {
        objs = Some(objects(ctx, &mut Reader::at(buf, at), "objects", pass)?);
    }
    let (objects, count, names_ordered) = objs.ok_or_else(|| missing("objects"))?;
    Ok(Root::new(ctx, attributes, fields, objects, count, names_ordered))
}

/// Validate a v1.x object map at `r` (its name already read).
///
/// One field at a time, out of line without `alloc`; the components map is
/// checked from this loop, so that no other field's temporaries sit under
/// it (the pass's deepest path goes through it).
#[cfg_attr(not(feature = "alloc"), inline(never))]
pub(crate) fn check_object<'a>(ctx: Ctx<'a>, r: &mut Reader<'a>, pass: &mut Pass<'_>) -> Result<()> {
    let start = r.pos;
    let mut len = r.map("object")?;
    let seg = pass.scratch.len();
    let mut f = ObjectFields { seen: Seen::new(), shape: None, format: None, attributes: None, components: false, known: [None; Role::ALL.len()] };
    while r.more(&mut len)? {
        if object_field(r, pass, &mut f)? {
            components(ctx, r, pass, &mut f.known)?;
            f.components = true;
        }
    }
    pass.pop_keys(ctx.buf, seg)?;
    object_rules(ctx, &f, start)
}

/// What an object map's fields gave: the shape's and the attributes'
/// positions (their views are decoded after the loop), the format, whether
/// components came and the known ones.
struct ObjectFields<'a> {
    seen: Seen,
    shape: Option<usize>,
    format: Option<Format<'a>>,
    attributes: Option<usize>,
    components: bool,
    known: Known,
}

/// One field of an object map: `true` when its value, next at `r`, is the
/// components map (checked by the caller).
#[cfg_attr(not(feature = "alloc"), inline(never))]
fn object_field<'a>(r: &mut Reader<'a>, pass: &mut Pass<'_>, f: &mut ObjectFields<'a>) -> Result<bool> {
    let kpos = r.pos;
    let key = pass.key(r, 3)?;
    match key.and_then(ObjectKey::from_bytes) {
        Some(k @ ObjectKey::Shape) => {
            f.seen.mark(k as u32, kpos)?;
            f.shape = Some(r.pos);
            shape(r)?;
        }
        Some(k @ ObjectKey::Format) => {
            f.seen.mark(k as u32, kpos)?;
            f.format = Some(format(r, "format")?);
        }
        Some(k @ ObjectKey::Attributes) => {
            f.seen.mark(k as u32, kpos)?;
            if !null(r)? {
                f.attributes = Some(r.pos);
                pass.map_value(r, "attributes", 3)?;
            }
        }
        Some(k @ ObjectKey::Components) => {
            f.seen.mark(k as u32, kpos)?;
            return Ok(true);
        }
        None => pass.unknown(r, kpos, 4)?,
    }
    Ok(false)
}

/// The rules of an object once its fields are read: required fields, then
/// its format's rules.
#[cfg_attr(not(feature = "alloc"), inline(never))]
fn object_rules(ctx: Ctx<'_>, f: &ObjectFields<'_>, start: usize) -> Result<()> {
    let missing = |field| Error::at(ErrorKind::MissingField { field }, start);
    let shape = shape(&mut Reader::at(ctx.buf, f.shape.ok_or_else(|| missing("shape"))?))?;
    let format = f.format.ok_or_else(|| missing("format"))?;
    if !f.components {
        return Err(missing("components"));
    }
    let attributes = match f.attributes {
        Some(at) => Map::read(ctx.buf, at, "attributes")?,
        None => Map::empty(),
    };
    check_format(ctx, Dims::of_shape(&shape, format), format, attributes, &f.known).map_err(|e| e.or_at(start))
}

/// Validate every component of a `components` map at `r`, collecting the known roles.
#[cfg_attr(not(feature = "alloc"), inline(never))]
fn components<'a>(ctx: Ctx<'a>, r: &mut Reader<'a>, p: &mut Pass<'_>, known: &mut Known) -> Result<()> {
    let mut len = r.map("components")?;
    let first = r.pos;
    let seg = p.scratch.len();
    // Objects have a few components: their roles are compared directly while
    // they fit in `few`; past that they go through the scratch's sort.
    // (Their key positions: 32 bytes on 32-bit targets, where `&str`s take 64.)
    let mut few = [0u32; 8];
    let mut n = 0usize;
    while r.more(&mut len)? {
        let kpos = r.pos;
        let rb = r.text_bytes("component role")?;
        // The format's own roles need no UTF-8 check.
        let known_role = Role::from_bytes(rb);
        let role = match known_role {
            Some(k) => k.name(),
            None => core::str::from_utf8(rb).map_err(|_| Error::at(ErrorKind::CborInvalidUtf8, kpos))?,
        };
        if role.is_empty() {
            return Err(Error::at(ErrorKind::EmptyName, kpos));
        }
        if n < few.len() {
            let same = |&k: &u32| crate::cbor::keys::definite(ctx.buf, k as usize) == Some(rb);
            if few[..n].iter().any(same) {
                return Err(Error::at(ErrorKind::DuplicateKey, kpos).in_component(role));
            }
            few[n] = kpos as u32;
        } else {
            if n == few.len() {
                let mut h = Reader::at(ctx.buf, first);
                for _ in 0..n {
                    let k = h.pos;
                    h.text("component role")?;
                    crate::cbor::keys::KeySet::push_key(&mut p.scratch, ctx.buf, k, h.pos)?;
                    h.skip(5)?;
                }
            }
            crate::cbor::keys::KeySet::push_key(&mut p.scratch, ctx.buf, kpos, r.pos)?;
        }
        n += 1;
        component(ctx, r, role, known_role, p, known).map_err(|e| e.in_component(role))?;
    }
    p.pop_keys(ctx.buf, seg)
}

/// Validate one v1.x component map at `r`: its fields, then the component
/// rules; a component of a role the formats name goes in `known`.
#[inline(always)]
fn component<'a>(
    ctx: Ctx<'a>,
    r: &mut Reader<'a>,
    role: &'a str,
    known_role: Option<Role>,
    pass: &mut Pass<'_>,
    known: &mut Known,
) -> Result<()> {
    let start = r.pos;
    let mut len = r.map("component")?;
    let seg = pass.scratch.len();
    let mut seen = Seen::new();
    // (`offset` and `length` without `Option`: `seen` says whether they came.)
    let (mut dtype, mut ltype, mut offset, mut length) = (None, None, 0u64, 0u64);
    let (mut ulen, mut encoding) = (None, Encoding::Raw);
    while r.more(&mut len)? {
        let kpos = r.pos;
        let key = pass.key(r, 5)?;
        let Some(k) = key.and_then(ComponentKey::from_bytes) else {
            pass.unknown(r, kpos, 6)?;
            continue;
        };
        seen.mark(k as u32, kpos)?;
        match k {
            ComponentKey::DType => dtype = Some(dtype_v1(ctx, r)?),
            ComponentKey::Type => ltype = opt_text(r, "type")?,
            ComponentKey::Offset => offset = r.uint("offset")?,
            ComponentKey::Length => length = r.uint("length")?,
            ComponentKey::UncompressedLength => ulen = opt_uint(r, "uncompressed_length")?,
            ComponentKey::Encoding => encoding = encoding_v1(r)?,
            ComponentKey::Digest => {
                opt_text(r, "digest")?;
            }
        }
    }
    pass.pop_keys(ctx.buf, seg)?;
    let missing = |field| Error::at(ErrorKind::MissingField { field }, start);
    let (dtype, legacy_type) = dtype.ok_or_else(|| missing("dtype"))?;
    if !seen.has(ComponentKey::Offset as u32) {
        return Err(missing("offset"));
    }
    if !seen.has(ComponentKey::Length as u32) {
        return Err(missing("length"));
    }
    let logical = match ltype {
        Some(t) => logical_type(dtype, t),
        None => legacy_type,
    };
    let c = CompCore { role, dtype, logical, encoding, offset, length, ulen };
    component_rules(ctx, &c, start, pass.lo, pass.hi)?;
    pass.span(c.offset, c.length);
    if let Some(k) = known_role {
        known[k as usize] = Some(Brief::of(&c, k));
    }
    Ok(())
}
