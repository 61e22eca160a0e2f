//! Parts (§3.4) and names (§3.5); a part's digest is the crate's [`Digest`].

use super::types::{DType, ElemType, LogicalType};

pub use crate::digest::Digest;

/// A part of an object (§3.4), read from the manifest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part<'a> {
    /// The part's role name (`data`, `values`, `scales`, ...).
    pub name: &'a str,
    /// Storage type.
    pub dtype: DType,
    /// The `type` text, if any.
    pub type_name: Option<&'a str>,
    /// Offset of the blob in its file.
    pub offset: u64,
    /// Length of the blob (encoded bytes).
    pub length: u64,
    /// The shard holding the blob (`None`: the containing file).
    pub shard: Option<&'a str>,
    /// The encoding profile id (`None`: raw).
    pub encoding: Option<&'a str>,
    /// `decoded_length`, present iff `encoding` is.
    pub decoded_length: Option<u64>,
    /// The digest over decoded bytes, if any.
    pub digest: Option<Digest<'a>>,
    /// The `digest` text as written.
    pub digest_text: Option<&'a str>,
    /// Manifest position of the part's map.
    pub pos: usize,
}

impl<'a> Part<'a> {
    /// The part called `name` whose map is at `pos` of a validated
    /// manifest `buf`, and where the map ends: the pass's own decoding
    /// (`compact::pass_v2::read_part`).
    pub(crate) fn at(buf: &'a [u8], pos: usize, name: &'a str) -> (Part<'a>, usize) {
        #[cfg(feature = "v2")]
        {
            let mut c = crate::compact::cur::Cur::det(buf, pos);
            let (part, _) = crate::compact::pass_v2::read_part(&mut c, name);
            (part, c.pos)
        }
        // (Without the v2 reader no v2 manifest validates, so no view asks.)
        #[cfg(not(feature = "v2"))]
        {
            let part = Part { name, dtype: DType::U8, type_name: None, offset: 0, length: 0, shard: None, encoding: None, decoded_length: None, digest: None, digest_text: None, pos };
            (part, buf.len())
        }
    }


    /// The element type: plain, registered logical, or unknown.
    pub fn elem(&self) -> ElemType<'a> {
        ElemType::of(self.dtype, self.type_name)
    }

    /// The registered logical type, if `type` names one.
    pub fn logical(&self) -> Option<LogicalType<'static>> {
        self.type_name.and_then(LogicalType::v2)
    }

    /// Bytes the part denotes: `length` when raw, else `decoded_length`.
    pub fn decoded_size(&self) -> u64 {
        self.decoded_length.unwrap_or(self.length)
    }

    /// Whether the blob is stored raw (no `encoding`).
    pub fn is_raw(&self) -> bool {
        self.encoding.is_none()
    }

    /// The blob's bytes in `file` (the file holding it: this one, or its shard).
    pub fn blob<'f>(&self, file: &'f [u8]) -> Option<&'f [u8]> {
        let end = self.offset.checked_add(self.length)?;
        file.get(usize::try_from(self.offset).ok()?..usize::try_from(end).ok()?)
    }
}
