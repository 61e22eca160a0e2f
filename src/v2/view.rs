//! What the crate's views ([`crate::Object`], [`crate::Component`]) ask of
//! the v2 reader beyond one part: the object a view stands for, its
//! profile, and the element count a part's logical type sees.

use super::layout::Profile;
use super::manifest::{object_in, Object};

/// The v2 object whose name is `name`, a slice of validated manifest bytes
/// `buf`. Deterministic CBOR writes the shortest head, so the name's text
/// item starts a known number of bytes before its content.
pub(crate) fn object_named<'a>(buf: &'a [u8], name: &'a str) -> Option<Object<'a, 'a>> {
    let at = (name.as_ptr() as usize).checked_sub(buf.as_ptr() as usize).filter(|&a| a <= buf.len())?;
    let head = match name.len() {
        0..=23 => 1,
        24..=0xff => 2,
        0x100..=0xffff => 3,
        _ => 5,
    };
    let (o, _) = object_in(buf, at.checked_sub(head)?)?;
    (o.name.as_ptr() == name.as_ptr()).then_some(o)
}

/// The layout, with its parameters, of the object called `name` (see [`object_named`]).
pub(crate) fn profile<'a>(buf: &'a [u8], name: &'a str) -> Option<Profile<'a>> {
    Some(object_named(buf, name)?.profile())
}

/// Elements part `role` of the object called `name` holds, where its
/// layout says (dense and MX `data`: the shape's product; sparse `values`: nnz).
#[cfg_attr(not(feature = "v2"), allow(dead_code))]
pub(crate) fn elements<'a>(buf: &'a [u8], name: &'a str, role: &str) -> Option<u64> {
    let o = object_named(buf, name)?;
    super::verify::elements(&o, &o.profile(), &o.part_set(), &o.part(role)?)
}
