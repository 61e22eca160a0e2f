//! A CBOR cursor over the manifest whose failures are [`Fault`]s.

use super::{Fault, Kind};
use crate::cbor::{decode_head, Reader, What, MAJOR_MAP, MAJOR_TEXT, MAJOR_UINT};
use crate::scratch::Scratch;

pub(crate) type R<T> = Result<T, Fault>;

/// A position in the manifest `m`.
pub(crate) struct Cur<'a> {
    pub m: &'a [u8],
    pub pos: usize,
}

impl<'a> Cur<'a> {
    pub fn at(m: &'a [u8], pos: usize) -> Self {
        Cur { m, pos }
    }

    /// The next byte, not consumed.
    #[inline]
    pub fn peek(&self) -> R<u8> {
        self.m.get(self.pos).copied().ok_or(Fault::new(Kind::Cbor, self.pos))
    }

    /// The next item head: major type and argument (`None`: indefinite).
    #[inline]
    fn head(&mut self) -> R<(u8, Option<u64>)> {
        let (major, arg, end) = decode_head(self.m, self.pos).ok_or(Fault::new(Kind::Cbor, self.pos))?;
        self.pos = end;
        Ok((major, arg))
    }

    /// A definite-length text's bytes (UTF-8 not checked).
    #[inline(never)]
    pub fn text(&mut self) -> R<&'a [u8]> {
        let start = self.pos;
        match self.head()? {
            (MAJOR_TEXT, Some(n)) => match usize::try_from(n).ok().and_then(|n| self.m.get(self.pos..self.pos.checked_add(n)?)) {
                Some(b) => {
                    self.pos += b.len();
                    Ok(b)
                }
                None => Err(Fault::new(Kind::Cbor, self.pos)),
            },
            _ => Err(Fault::new(Kind::WrongType, start)),
        }
    }

    /// A definite-length text, UTF-8 checked.
    pub fn str(&mut self) -> R<&'a str> {
        let at = self.pos;
        crate::utf8::str(self.text()?).ok_or(Fault::new(Kind::Utf8, at))
    }

    /// An unsigned integer.
    #[inline(never)]
    pub fn uint(&mut self) -> R<u64> {
        let start = self.pos;
        match self.head()? {
            (MAJOR_UINT, Some(v)) => Ok(v),
            _ => Err(Fault::new(Kind::WrongType, start)),
        }
    }

    /// A map's (or with `MAJOR_ARRAY`, an array's) entry count: `None`
    /// for indefinite; a count the manifest cannot hold is refused.
    #[inline(never)]
    pub fn container(&mut self, major: u8) -> R<Option<usize>> {
        let start = self.pos;
        match self.head()? {
            (m, len) if m == major => {
                // (Each entry takes at least a byte, a map's two: `n` past
                // the bytes left, halved for a map, cannot fit.)
                let fit = (self.m.len() - self.pos) >> (major == MAJOR_MAP) as u32;
                if len.is_some_and(|n| n > fit as u64) {
                    return Err(Fault::new(Kind::Cbor, start));
                }
                Ok(len.map(|n| n as usize))
            }
            _ => Err(Fault::new(Kind::WrongType, start)),
        }
    }

    /// Whether a container (of `len` entries left, or indefinite) has
    /// another entry; consumes the break that ends an indefinite one.
    #[inline]
    pub fn more(&mut self, len: &mut Option<usize>) -> R<bool> {
        match len {
            Some(0) => Ok(false),
            Some(n) => {
                *n -= 1;
                Ok(true)
            }
            None => {
                let end = self.peek()? == 0xff;
                self.pos += end as usize;
                Ok(!end)
            }
        }
    }

    /// Whether the next item is null (consumed if so).
    #[inline]
    pub fn null(&mut self) -> R<bool> {
        let n = self.peek()? == 0xf6;
        self.pos += n as usize;
        Ok(n)
    }

    /// Walk one item, checked (well-formed, UTF-8, depth, and with keys,
    /// no map with a repeated key).
    #[inline(never)]
    pub fn walk(&mut self, depth: usize, keys: Option<&mut Scratch<'_>>) -> R<()> {
        let mut r = Reader::at(self.m, self.pos);
        let done = r.walk_bad(depth, keys);
        self.pos = r.pos;
        done.map_err(|bad| {
            let kind = match bad.what {
                What::Utf8 => Kind::Utf8,
                What::Deep => Kind::Deep,
                What::Duplicate => Kind::DuplicateKey,
                What::Scratch => Kind::Slots,
                What::Head | What::Length | What::Indefinite => Kind::Cbor,
            };
            Fault::new(kind, bad.at)
        })
    }
}
