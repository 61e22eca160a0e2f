//! Skimming a validated v1.x or v0.1 manifest: object names and blob
//! spans read straight from the CBOR, for the whole-file checks and the
//! name index. The views decode whole objects (shape, format, every
//! field); these read only what they are asked for, with small frames.
//! The pass validated everything: a decoding failure here ends the skim.

use super::schema::{ComponentKey, ObjectKey, Role, V0Key};
use super::Ctx;
use crate::cbor::{Len, Reader, MAJOR_TEXT};
use crate::index::ObjPos;

/// The objects of the container whose first entry and length are
/// `objects`: where each is and its name.
pub(crate) fn positions(ctx: Ctx<'_>, objects: (usize, Len)) -> impl Iterator<Item = ObjPos> + '_ {
    let (mut r, mut len) = (Reader::at(ctx.buf, objects.0), objects.1);
    core::iter::from_fn(move || {
        if !r.more(&mut len).ok()? {
            return None;
        }
        let body = r.pos;
        let name = if ctx.v0() {
            name_v0(&mut r)?
        } else {
            let name = r.text("object name").ok()?;
            // (Depth 2: the object map at 3, its fields where the pass checked them.)
            r.skip(2).ok()?;
            name
        };
        Some(ObjPos::of(ctx.buf, body, name.as_bytes()))
    })
}

/// A map key: its bytes when it is text; any other key (an unknown field
/// may have one) is skipped: `Some(None)`.
fn key<'a>(r: &mut Reader<'a>, depth: usize) -> Option<Option<&'a [u8]>> {
    if r.peek().ok()? >> 5 == MAJOR_TEXT {
        return r.text_bytes("key").ok().map(Some);
    }
    r.skip(depth).ok()?;
    Some(None)
}

/// The `name` of the v0.1 tensor map at `r` (skipped whole).
fn name_v0<'a>(r: &mut Reader<'a>) -> Option<&'a str> {
    let (mut len, mut name) = (r.map("tensor").ok()?, None);
    while r.more(&mut len).ok()? {
        if key(r, 3)? == Some(V0Key::Name.name().as_bytes()) {
            name = Some(r.text("name").ok()?);
        } else {
            r.skip(3).ok()?;
        }
    }
    name
}

/// A component's blob: its object, role, offset and length.
pub(crate) struct Span<'a> {
    pub object: &'a str,
    pub role: &'a str,
    pub offset: u64,
    pub length: u64,
}

/// Call `f` on every component's blob, in manifest order, until it
/// answers `true` (then that blob, else `None`).
pub(crate) fn find_span<'a>(ctx: Ctx<'a>, objects: (usize, Len), mut f: impl FnMut(&Span<'a>) -> bool) -> Option<Span<'a>> {
    let (mut r, mut len) = (Reader::at(ctx.buf, objects.0), objects.1);
    while r.more(&mut len).ok()? {
        if ctx.v0() {
            let s = span_v0(&mut r)?;
            if f(&s) {
                return Some(s);
            }
            continue;
        }
        let object = r.text("object name").ok()?;
        let mut fields = r.map("object").ok()?;
        while r.more(&mut fields).ok()? {
            if key(&mut r, 3)?.and_then(ObjectKey::from_bytes) != Some(ObjectKey::Components) {
                r.skip(3).ok()?;
                continue;
            }
            let mut comps = r.map("components").ok()?;
            while r.more(&mut comps).ok()? {
                let role = r.text("component role").ok()?;
                let (offset, length) = offset_length(&mut r)?;
                let s = Span { object, role, offset, length };
                if f(&s) {
                    return Some(s);
                }
            }
        }
    }
    None
}

/// `offset` and `length` of the v1.x component map at `r` (skipped whole).
fn offset_length(r: &mut Reader<'_>) -> Option<(u64, u64)> {
    let (mut len, mut offset, mut length) = (r.map("component").ok()?, 0, 0);
    while r.more(&mut len).ok()? {
        match key(r, 5)?.and_then(ComponentKey::from_bytes) {
            Some(ComponentKey::Offset) => offset = r.uint("offset").ok()?,
            Some(ComponentKey::Length) => length = r.uint("length").ok()?,
            _ => r.skip(5).ok()?,
        }
    }
    Some((offset, length))
}

/// The blob of the v0.1 tensor map at `r` (skipped whole).
fn span_v0<'a>(r: &mut Reader<'a>) -> Option<Span<'a>> {
    let mut len = r.map("tensor").ok()?;
    let mut s = Span { object: "", role: Role::Data.name(), offset: 0, length: 0 };
    while r.more(&mut len).ok()? {
        match key(r, 3)?.and_then(V0Key::from_bytes) {
            Some(V0Key::Name) => s.object = r.text("name").ok()?,
            Some(V0Key::Offset) => s.offset = r.uint("offset").ok()?,
            Some(V0Key::Size) => s.length = r.uint("size").ok()?,
            _ => r.skip(3).ok()?,
        }
    }
    Some(s)
}

#[cfg(all(test, feature = "std"))]
mod tests {
    extern crate std;
    use super::*;
    use crate::File;
    use std::string::{String, ToString};
    use std::vec::Vec;

    type Spans = Vec<(String, String, u64, u64)>;

    /// Names and spans by the skim, and by the views.
    fn both(f: &File<'_>) -> ((Vec<String>, Spans), (Vec<String>, Spans)) {
        let (ctx, objects) = f.objects_container();
        let buf = ctx.buf;
        let names = positions(ctx, objects).map(|p| p.name(buf).to_string()).collect();
        let mut spans = Vec::new();
        assert!(find_span(ctx, objects, |s| {
            spans.push((s.object.to_string(), s.role.to_string(), s.offset, s.length));
            false
        })
        .is_none());
        let view_names = f.objects().map(|o| o.name().to_string()).collect();
        let mut view_spans = Vec::new();
        for o in f.objects() {
            for c in o.components() {
                view_spans.push((o.name().to_string(), c.role().to_string(), c.offset(), c.length()));
            }
        }
        ((names, spans), (view_names, view_spans))
    }

    #[test]
    fn skim_reads_what_the_views_read_in_every_fixture() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut checked = 0;
        for dir in ["v0.1", "v1.1", "v1.2"] {
            let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
            for e in entries {
                let p = e.unwrap().path();
                if p.extension().is_none_or(|x| x != "zt") {
                    continue;
                }
                let bytes = std::fs::read(&p).unwrap();
                let Ok(f) = File::parse(&bytes) else { continue };
                let (skim, views) = both(&f);
                assert_eq!(skim, views, "{}", p.display());
                checked += 1;
            }
        }
        assert!(checked >= 10, "only {checked} fixtures");
    }

    /// A v1.2 file by hand: objects "b" then "a" (not sorted), each with an
    /// unknown field under an integer key, in the object and in its component.
    #[test]
    fn skim_skips_keys_that_are_not_text() {
        let t = |m: &mut Vec<u8>, s: &str| {
            m.push(0x60 | s.len() as u8);
            m.extend_from_slice(s.as_bytes());
        };
        let mut m = Vec::new();
        m.push(0xa2);
        t(&mut m, "version");
        t(&mut m, "1.2.0");
        t(&mut m, "objects");
        m.push(0xa2);
        for (name, offset) in [("b", 64u8), ("a", 128)] {
            t(&mut m, name);
            m.push(0xa4);
            m.extend_from_slice(&[0x07, 0x82, 0x01, 0xa1, 0x01, 0x02]); // 7: [1, {1: 2}]
            t(&mut m, "shape");
            m.extend_from_slice(&[0x81, 0x01]);
            t(&mut m, "format");
            t(&mut m, "dense");
            t(&mut m, "components");
            m.push(0xa1);
            t(&mut m, "data");
            m.push(0xa4);
            m.extend_from_slice(&[0x81, 0x09, 0x00]); // [9]: 0
            t(&mut m, "dtype");
            t(&mut m, "u8");
            t(&mut m, "offset");
            m.extend_from_slice(&[0x18, offset]);
            t(&mut m, "length");
            m.push(0x01);
        }
        let mut b = b"ZTEN1000".to_vec();
        b.resize(129, 0);
        b.extend_from_slice(&m);
        b.extend_from_slice(&(m.len() as u64).to_le_bytes());
        b.extend_from_slice(b"ZTEN1000");
        let f = File::parse(&b).unwrap();
        let (skim, views) = both(&f);
        assert_eq!(skim, views);
        assert_eq!(skim.0, ["b", "a"]);
        assert_eq!(skim.1[1], ("a".to_string(), "data".to_string(), 128, 1));
    }
}
