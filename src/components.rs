//! An object's components, decoded on demand from the validated manifest
//! whatever the file's generation: the iterator behind
//! [`Object::components`] (v0.1's one `data` component, v1.x's
//! `components` map, v2's `parts`), kept apart from the view types of
//! `object` so that the decoders it calls (`manifest::view`, `v2::wire`)
//! can build those types without an import cycle.

use crate::cbor::{Len, Reader};
use crate::manifest::schema::Role;
use crate::manifest::view::component_v1;
use crate::manifest::Ctx;
use crate::object::{Component, Comps, Object};
use crate::types::Format;

impl<'a> Object<'a> {
    /// Components in manifest order.
    pub fn components(&self) -> Components<'a> {
        let dense = match self.format {
            Format::Dense => Some(self.shape.numel),
            _ => None,
        };
        match self.comps {
            Comps::Map { pos, len } => {
                Components { ctx: self.ctx, r: Reader::at(self.ctx.buf, pos), len, single: None, dense, owner: None }
            }
            Comps::Single { pos } => {
                Components { ctx: self.ctx, r: Reader::at(&[], 0), len: Some(0), single: Some(pos), dense, owner: None }
            }
            Comps::Parts { pos, left } => Components {
                ctx: self.ctx,
                r: Reader::at(self.ctx.buf, pos),
                len: crate::cbor::len_of(Some(left)),
                single: None,
                dense: None,
                owner: Some(self.name),
            },
        }
    }
}

impl<'a> Component<'a> {
    /// v2: the part as the v2 reader sees it (its `encoding`, `digest`,
    /// `decoded_length`, blob and shard), `None` for v1.x and v0.1 components.
    pub fn v2_part(&self) -> Option<crate::v2::Part<'a>> {
        if !crate::container::READS_V2 {
            return None;
        }
        crate::v2::wire::part_at(self.fields.buf(), self.role, self.v2_ref()?.pos)
    }
}

/// Iterator over an object's components.
pub struct Components<'a> {
    ctx: Ctx<'a>,
    r: Reader<'a>,
    len: Len,
    /// v0.1: the tensor map whose `data` component is yet to come.
    single: Option<usize>,
    /// Element count of a dense object, to imply its data's decoded size.
    dense: Option<u64>,
    /// v2: the name of the object owning the parts (a slice of the manifest).
    owner: Option<&'a str>,
}

impl<'a> Components<'a> {
    /// A v2 `f4_e2m1` part with the element count its final-nibble rule needs.
    fn with_elements(&self, mut c: Component<'a>) -> Component<'a> {
        #[cfg(feature = "v2")]
        if let (Some(crate::types::LogicalType::F4E2M1), Some(v), Some(owner)) = (c.logical, c.v2.as_mut(), self.owner) {
            v.elements = crate::v2::view::elements(self.ctx.buf, owner, c.role);
        }
        #[cfg(not(feature = "v2"))]
        let _ = (&mut c, self.owner);
        c
    }
}

impl<'a> Iterator for Components<'a> {
    type Item = Component<'a>;

    fn next(&mut self) -> Option<Component<'a>> {
        if let Some(pos) = self.single.take() {
            return crate::manifest::view::data_v0(self.ctx, pos);
        }
        if crate::container::READS_V2 && self.ctx.version.major == 2 {
            let (mut pos, mut left) = (self.r.pos, self.len.unwrap_or(0) as u64);
            let p = crate::v2::wire::next_part(self.ctx.buf, &mut pos, &mut left)?;
            self.r = Reader::at(self.ctx.buf, pos);
            self.len = crate::cbor::len_of(Some(left));
            return Some(self.with_elements(crate::v2::wire::component(self.ctx, p)));
        }
        // The manifest was validated at open: decoding cannot fail here.
        if !self.r.more(&mut self.len).ok()? {
            return None;
        }
        let role = self.r.text("role").ok()?;
        let mut c = component_v1(self.ctx, &mut self.r, role).ok()?;
        if let (Some(numel), true) = (self.dense, role == Role::Data.name()) {
            c.implied_len = c.logical.map_or(Some(1), |t| t.ratio()).and_then(|r| numel.checked_mul(c.dtype.width() * r));
        }
        Some(c)
    }
}
