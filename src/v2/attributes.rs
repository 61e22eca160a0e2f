//! Attribute maps: the lazy view of a validated one (the pass checked its
//! keys against the name rules of §3.5 and its values as CBOR, §3.1).

use super::cbor::{Cursor, MAP, TEXT, UINT};

/// A map of attributes (or any CBOR map) in the manifest.
#[derive(Clone, Copy, Debug)]
pub struct Attributes<'a> {
    buf: &'a [u8],
    /// Position of the map item.
    pub pos: usize,
}

/// A scalar attribute value, or the raw encoding of anything else.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AttrValue<'a> {
    /// An unsigned integer.
    Uint(u64),
    /// A text string.
    Text(&'a str),
    /// A map.
    Map(Attributes<'a>),
    /// Any other item, as its encoded bytes.
    Other(&'a [u8]),
}

impl PartialEq for Attributes<'_> {
    fn eq(&self, o: &Self) -> bool {
        self.raw() == o.raw()
    }
}

impl<'a> Attributes<'a> {
    /// The map whose head is at `pos` of `buf`.
    pub(crate) fn at(buf: &'a [u8], pos: usize) -> Self {
        Attributes { buf, pos }
    }

    /// The encoded bytes of the whole map.
    pub fn raw(&self) -> &'a [u8] {
        let mut c = Cursor::at(self.buf, self.pos);
        c.skip();
        &self.buf[self.pos..c.pos]
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        Cursor::at(self.buf, self.pos).map("attributes").unwrap_or(0) as usize
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of a text key.
    pub fn get(&self, key: &str) -> Option<AttrValue<'a>> {
        let mut c = Cursor::at(self.buf, self.pos);
        let n = c.map("attributes").ok()?;
        for _ in 0..n {
            let k = c.key();
            if k == Some(key.as_bytes()) {
                let start = c.pos;
                return Some(match c.peek() {
                    (UINT, v) => AttrValue::Uint(v),
                    (TEXT, _) => AttrValue::Text(c.text("attribute").ok()?),
                    (MAP, _) => AttrValue::Map(Attributes::at(self.buf, start)),
                    _ => {
                        c.skip();
                        AttrValue::Other(&self.buf[start..c.pos])
                    }
                });
            }
            c.skip();
        }
        None
    }
}
