//! The validating pass of a v0.1 manifest: one walk that checks everything
//! metadata alone allows (CBOR well-formedness, the schema, the format
//! rules), then the whole-file rules: object names are unique and blobs do
//! not partially overlap. After it, views decode fields without checking.
//! v1.x manifests go to the one v1 pass (`v1.rs`); the whole-file rules'
//! errors are shared with it.

use super::rules::{first_overlap, SpanOrder};
use super::{skim, v0, v1, Ctx, Root, LEGACY_V0};
use crate::cbor::keys::KeySet;
use crate::cbor::{Reader, MAJOR_TEXT};
use crate::container::{Layout, Tail};
use crate::error::{Error, ErrorKind, Result};
#[cfg(feature = "alloc")]
use crate::index::ObjPos;
use crate::scratch::Scratch;
use crate::types::Version;
use crate::value::Map;

/// State of the validating pass.
pub(crate) struct Pass<'s> {
    pub scratch: Scratch<'s>,
    /// Blobs lie in `[HEADER_LEN, hi)`.
    pub hi: u64,
    /// Fast path: blobs seen so far are in ascending, non-overlapping order.
    order: SpanOrder,
    /// Every non-empty blob, for the overlap check when they are not in order.
    #[cfg(feature = "alloc")]
    spans: alloc::vec::Vec<[u64; 2]>,
    /// Where every object is, for the name index.
    #[cfg(feature = "alloc")]
    positions: alloc::vec::Vec<ObjPos>,
}

impl<'s> Pass<'s> {
    pub fn new(scratch: Scratch<'s>, tail: &Tail) -> Self {
        Pass {
            scratch,
            hi: tail.manifest_offset,
            order: SpanOrder::new(),
            #[cfg(feature = "alloc")]
            spans: alloc::vec::Vec::new(),
            #[cfg(feature = "alloc")]
            positions: alloc::vec::Vec::with_capacity((tail.manifest_len / 64).min(1 << 20) as usize),
        }
    }

    /// Record a blob for the overlap rule.
    pub fn span(&mut self, offset: u64, length: u64) {
        if length == 0 {
            return;
        }
        let end = offset + length;
        #[cfg(feature = "alloc")]
        self.spans.push([offset, end]);
        self.order.add(offset, end);
    }

    /// The overlap rule over the blobs recorded (alloc: sorted here).
    #[cfg(feature = "alloc")]
    pub fn first_overlap(&mut self) -> Option<(u64, u64)> {
        if self.order.ordered() {
            return None;
        }
        crate::sort::sort_by_key(&mut self.spans, |s| s[0]);
        first_overlap(&self.spans)
    }

    /// A validated map key: `Some(bytes)` for a definite text key (matched
    /// against the schema's ASCII names before any UTF-8 check), else `None`
    /// after checking the key item. Keys that match no known name go
    /// through [`Pass::unknown`].
    #[inline(always)]
    pub fn key<'a>(&mut self, r: &mut Reader<'a>, depth: usize) -> Result<Option<&'a [u8]>> {
        if r.peek()? >> 5 == MAJOR_TEXT {
            return r.text_bytes("map key").map(Some);
        }
        self.value(r, depth)?;
        Ok(None)
    }

    /// Walk a value, fully checked (duplicate keys, UTF-8, depth).
    #[inline]
    pub fn value(&mut self, r: &mut Reader<'_>, depth: usize) -> Result<()> {
        r.walk(depth, Some(&mut self.scratch))
    }

    /// An unknown field, its key at `kpos` just read by [`Pass::key`]:
    /// remember the key for the duplicate check, then walk its value.
    #[inline]
    pub fn unknown(&mut self, r: &mut Reader<'_>, kpos: usize, depth: usize) -> Result<()> {
        // The key itself: text was read as bytes (its UTF-8 is checked
        // here); any other key was walked whole.
        if let Some((MAJOR_TEXT, Some(_), at)) = crate::cbor::decode_head(r.buf, kpos) {
            if core::str::from_utf8(&r.buf[at..r.pos]).is_err() {
                return Err(Error::at(ErrorKind::CborInvalidUtf8, kpos));
            }
        }
        self.scratch.push_key(r.buf, kpos, r.pos)?;
        r.walk(depth, Some(&mut self.scratch))
    }

    /// The keys of a map pushed since `seg` are unique (then popped).
    #[inline]
    pub fn pop_keys(&mut self, buf: &[u8], seg: usize) -> Result<()> {
        self.scratch.check_unique(buf, seg)
    }
}

/// Known-key bitmask for the maps whose schema we know.
pub(crate) struct Seen(u32);

impl Seen {
    pub fn new() -> Self {
        Seen(0)
    }

    pub fn mark(&mut self, bit: u32, at: usize) -> Result<()> {
        if self.0 & (1 << bit) != 0 {
            return Err(Error::at(ErrorKind::DuplicateKey, at));
        }
        self.0 |= 1 << bit;
        Ok(())
    }
}

/// Validate a whole manifest: its root (by container generation), then the
/// whole-file rules.
pub(crate) fn validate<'a>(buf: &'a [u8], tail: &Tail, data: Option<&'a [u8]>, scratch: Scratch<'_>) -> Result<Root<'a>> {
    match tail.layout {
        // The one v1 pass, the firmware's (`compact::pass`).
        Layout::V1 => return v1::validate(buf, tail, data, scratch),
        Layout::V0 if !LEGACY_V0 => {
            return Err(Error::new(ErrorKind::Unsupported {
                what: "v0.1 files (this build was made without the `v0` feature)",
            }))
        }
        Layout::V0 => {}
        // v2 manifests are validated by `crate::v2`, never by this pass.
        Layout::V2 => return Err(Error::new(ErrorKind::UnsupportedVersion { major: 2 })),
    }
    let mut pass = Pass::new(scratch, tail);
    let mut r = Reader::new(buf);
    let ctx = Ctx { buf, data, version: Version::V0_1 };
    let (objects, count, names_ordered) = objects(ctx, &mut r, "manifest (v0.1 tensor array)", &mut pass)?;
    let mut root = Root::new(ctx, Map::empty(), Map::empty(), objects, count, names_ordered);
    if r.pos != buf.len() {
        return Err(Error::at(ErrorKind::TrailingBytes { count: (buf.len() - r.pos) as u64 }, r.pos));
    }
    finish(&mut root, pass)?;
    Ok(root)
}

/// Validate the v0.1 tensor array at `r`: its first entry and length, the
/// object count, and whether the names are in strictly ascending order.
pub(crate) fn objects<'a>(
    ctx: Ctx<'a>,
    r: &mut Reader<'a>,
    field: &'static str,
    pass: &mut Pass<'_>,
) -> Result<((usize, crate::cbor::Len), usize, bool)> {
    let mut len = r.array(field)?;
    let objects = (r.pos, len);
    let (mut count, mut ordered, mut prev) = (0usize, true, "");
    while r.more(&mut len)? {
        let body = r.pos;
        let name = v0::check_object(ctx, r, pass).map_err(|e| v0::name_error(ctx.buf, body, e))?;
        #[cfg(feature = "alloc")]
        pass.positions.push(ObjPos::of(ctx.buf, body, name.as_bytes()));
        ordered &= count == 0 || prev < name;
        prev = name;
        count += 1;
    }
    Ok((objects, count, ordered))
}

/// The whole-file rules, after every object was checked: names are unique
/// (nothing to do when they came in ascending order), blobs do not overlap.
#[cfg_attr(not(feature = "alloc"), inline(never))]
fn finish(root: &mut Root<'_>, mut pass: Pass<'_>) -> Result<()> {
    #[cfg(feature = "alloc")]
    {
        let positions = core::mem::take(&mut pass.positions);
        root.index = crate::index::Index::build(root.ctx.buf, positions, root.names_ordered)
            .map_err(|dup| Error::at(ErrorKind::DuplicateKey, dup.body as usize).in_object(dup.name(root.ctx.buf)))?;
        if let Some(span) = pass.first_overlap() {
            return Err(locate_span(root, span));
        }
    }
    #[cfg(not(feature = "alloc"))]
    {
        if !root.names_ordered {
            unique_names(root, &mut pass.scratch)?;
        }
        // The overlap found, then located: two calls, so that the search's
        // frame (an object, a component and their iterators) and the
        // location's are not on the stack together.
        if let Some(span) = if pass.order.ordered() { None } else { first_span_overlap(root, &mut pass.scratch)? } {
            return Err(locate_span(root, span));
        }
    }
    Ok(())
}

/// Duplicate names without `alloc`: the names' spans sorted in the scratch.
#[cfg(not(feature = "alloc"))]
#[inline(never)]
pub(super) fn unique_names(root: &Root<'_>, scratch: &mut Scratch<'_>) -> Result<()> {
    scratch.truncate(0);
    for p in skim::positions(root.ctx, root.objects) {
        scratch.push([p.name_start as u64, (p.name_start + p.name_len) as u64])?;
    }
    let buf = root.ctx.buf;
    scratch.check_unique(buf, 0).map_err(|e| {
        // `check_unique` reports the duplicate's name start.
        let at = e.manifest_offset().unwrap_or(0) as usize;
        let e = Error::new(ErrorKind::DuplicateKey).or_at(at);
        match skim::positions(root.ctx, root.objects).find(|p| p.name_start as usize == at) {
            Some(p) => e.in_object(p.name(buf)),
            None => e,
        }
    })
}

/// The overlap rule over the spans collected again, in the scratch (the
/// pass's own without `alloc`; the v1.x error path's): the first span that
/// partially overlaps another, if any.
#[inline(never)]
pub(super) fn first_span_overlap(root: &Root<'_>, scratch: &mut Scratch<'_>) -> Result<Option<(u64, u64)>> {
    scratch.truncate(0);
    let mut full = false;
    skim::find_span(root.ctx, root.objects, |s| {
        full = s.length > 0 && !scratch.try_push([s.offset, s.offset + s.length]);
        full
    });
    if full {
        return Err(Error::new(ErrorKind::ScratchTooSmall { needed: scratch.len() as u64 + 1 }));
    }
    let spans = scratch.segment(0);
    // (Sorted by start as the pass with `alloc` sorts its own.)
    #[cfg(feature = "alloc")]
    crate::sort::radix_by_key(spans, &mut alloc::vec![[0; 2]; spans.len()], |s| s[0]);
    #[cfg(not(feature = "alloc"))]
    crate::heapsort::sort_by(spans, |a, b| a.cmp(b));
    Ok(first_overlap(spans))
}

/// The overlap error, naming the object and component of the span.
#[cold]
#[cfg_attr(not(feature = "alloc"), inline(never))]
pub(super) fn locate_span(root: &Root<'_>, (offset, length): (u64, u64)) -> Error {
    let e = Error::new(ErrorKind::Overlap { offset, length });
    match skim::find_span(root.ctx, root.objects, |s| s.offset == offset && s.length == length) {
        Some(s) => e.in_object(s.object).in_component(s.role),
        None => e,
    }
}

#[cfg(test)]
mod tests {
    use crate::container::MAGIC_V0;
    use crate::File;

    /// The smallest v0.1 file: magic, an empty tensor array, its size.
    fn empty_v0() -> [u8; 17] {
        let mut f = [0u8; 17];
        f[..8].copy_from_slice(&MAGIC_V0);
        f[8] = 0x80;
        f[9] = 1;
        f
    }

    #[cfg(feature = "v0")]
    #[test]
    fn v0_files_are_read() {
        assert_eq!(File::parse(&empty_v0()).unwrap().len(), 0);
    }

    #[cfg(not(feature = "v0"))]
    #[test]
    fn v0_files_are_refused_without_legacy_v0() {
        let e = File::parse(&empty_v0()).unwrap_err();
        assert!(matches!(e.kind(), crate::ErrorKind::Unsupported { .. }), "{e:?}");
    }
}
