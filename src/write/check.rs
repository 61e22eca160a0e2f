//! The writer's checks of an object before it is written: the reader's
//! rules (`manifest::rules`), applied to typed values ([`check_new`]) or to
//! an encoded entry by the reader's own pass ([`check_entry`]).

use crate::container::{Layout, Tail, HEADER_LEN};
use crate::error::{Error, ErrorKind, Result};
use crate::manifest::fields::logical_type;
use crate::compact::Component;
use crate::manifest::rules::{check_format, component_rules, Dims, Known};
use crate::manifest::schema::Role;
use crate::manifest::Ctx;
use crate::scratch::Scratch;
use crate::types::{Format, Version};

/// Validate one v1.2 object entry (its name, then its object map) as if
/// its manifest followed `data_end` bytes of header and blobs: every rule
/// [`File::parse`](crate::File::parse) applies to an object. For a writer
/// checking an object before writing it, without building a whole manifest.
pub(crate) fn check_entry(entry: &[u8], data_end: u64) -> Result<()> {
    // The entry as the only object of a v1.2 manifest: {"version": "1.2", "objects": {entry}}.
    let mut buf = alloc::vec::Vec::with_capacity(entry.len() + 22);
    buf.extend_from_slice(b"\xa2\x67version\x631.2\x67objects\xa1");
    buf.extend_from_slice(entry);
    let len = buf.len() as u64;
    let tail = Tail { layout: Layout::V1, file_len: data_end + len + 16, manifest_offset: data_end, manifest_len: len };
    crate::manifest::pass::validate(&buf, &tail, None, Scratch::growable()).map(drop)
}

/// A component of an object the writer is adding, as its manifest entry
/// will say (no digest: a digest the writer computes is well formed).
pub(crate) type NewComp<'a> = Component<'a>;

/// The checks [`check_entry`] makes on an encoded entry of a v1.2 object
/// without attributes, from typed values: the rules of the validating pass
/// (component rules, then format rules), in the same order, with the same
/// errors. Blobs follow each other in the writer's layout, so no overlap
/// check is needed; they must lie in `[HEADER_LEN, data_end)`.
pub(crate) fn check_new<'a>(name: &str, dims: &[u64], format: Format<'_>, comps: &[NewComp<'a>], data_end: u64) -> Result<()> {
    if name.is_empty() {
        return Err(Error::new(ErrorKind::EmptyName));
    }
    let dims = Dims::of(dims)?;
    let ctx = Ctx { buf: &[], data: None, version: Version::V1_2 };
    let mut known = Known::new();
    let mut end = HEADER_LEN;
    for (n, c) in comps.iter().enumerate() {
        if c.role.is_empty() {
            return Err(Error::new(ErrorKind::EmptyName));
        }
        if comps[..n].iter().any(|o| o.role == c.role) {
            return Err(Error::new(ErrorKind::DuplicateKey).in_component(c.role));
        }
        // As the reader will see it: a `type` naming the dtype itself is no logical type.
        let core = Component { logical: c.logical.and_then(|t| logical_type(c.dtype, t.name())), ..*c };
        component_rules(ctx, &core, 0, data_end)?;
        debug_assert!(c.length == 0 || c.offset >= end, "writer blobs out of order");
        end = end.max(c.offset + c.length);
        if let Some(k) = Role::from_bytes(c.role.as_bytes()) {
            known.note(k, ctx.version, &core);
        }
    }
    check_format(ctx, dims, format, None, &known)
}
