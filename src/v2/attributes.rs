//! Attribute maps: the lazy view of a validated one (the pass checked its
//! keys against the name rules of §3.5 and its values as CBOR, §3.1).

use crate::cbor::{MAJOR_MAP as MAP, MAJOR_TEXT as TEXT, MAJOR_UINT as UINT};
use crate::cbor::decode_head;
use crate::compact::view::{entries, field, skip, text};

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
        &self.buf[self.pos..skip(self.buf, self.pos)]
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        decode_head(self.buf, self.pos).and_then(|(_, n, _)| n).unwrap_or(0) as usize
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entries in manifest order: each key (text: the pass checked
    /// it, §3.5) and its value's encoded bytes.
    pub fn iter(&self) -> impl Iterator<Item = (&'a str, &'a [u8])> + 'a {
        let buf = self.buf;
        let (first, n) = match decode_head(buf, self.pos) {
            Some((MAP, Some(n), first)) => (first, n as usize),
            _ => (0, 0),
        };
        entries(buf, first, n).map(move |(k, v)| (text(buf, k), &buf[v..skip(buf, v)]))
    }

    /// The value of a text key.
    pub fn get(&self, key: &str) -> Option<AttrValue<'a>> {
        let (buf, at) = (self.buf, field(self.buf, self.pos, key)?);
        Some(match decode_head(buf, at)? {
            (UINT, Some(v), _) => AttrValue::Uint(v),
            (TEXT, ..) => AttrValue::Text(text(buf, at)),
            (MAP, ..) => AttrValue::Map(Attributes::at(buf, at)),
            _ => AttrValue::Other(&buf[at..skip(buf, at)]),
        })
    }
}
