//! Appending to a v1.2 file: what the writer keeps of it (its blobs stay
//! where they are; its objects are encoded again from the parsed manifest,
//! attributes and unknown fields copied as raw CBOR).

use super::{enc, Attrs, NameSet, Writer};
use crate::container::Layout;
use crate::error::{Error, ErrorKind, Result};
use crate::file::File;
use crate::object::Object;
use crate::schema::{ComponentKey, ObjectKey};
use crate::types::Encoding;
use crate::write::Sink;
use alloc::string::ToString;
use alloc::vec::Vec;
use enc::CompMeta;

impl Writer<Vec<u8>> {
    /// Continue a v1.2 file held in memory: its blobs stay where they are
    /// (the manifest and footer are cut off), its objects and file
    /// attributes are kept, new objects follow.
    pub fn append_to_vec(mut bytes: Vec<u8>) -> Result<Self> {
        let (state, end) = {
            let file = File::parse(&bytes)?;
            (State::of(&file)?, file.tail().manifest_offset)
        };
        bytes.truncate(end as usize);
        Ok(state.resume(bytes))
    }
}

/// What a writer keeps of an existing file it appends to.
pub(in crate::write) struct State {
    pos: u64,
    entries: Vec<u8>,
    count: u64,
    names: NameSet,
    attrs: Attrs,
}

impl State {
    pub(in crate::write) fn of(file: &File<'_>) -> Result<State> {
        let v = file.version();
        if file.layout() != Layout::V1 || v.major != 1 || v.minor != 2 {
            return Err(Error::new(ErrorKind::Unsupported { what: "appending needs a v1.2 file" }));
        }
        let mut s = State {
            pos: file.tail().manifest_offset,
            entries: Vec::new(),
            count: 0,
            names: NameSet::new(),
            attrs: Attrs::default(),
        };
        for (k, v) in file.attributes().iter() {
            s.attrs.set_raw(k.raw().to_vec(), v.raw().to_vec());
        }
        for o in file.objects() {
            reencode(&mut s.entries, &o).map_err(|e| e.in_object(o.name()))?;
            s.names.insert(o.name());
            s.count += 1;
        }
        Ok(s)
    }

    pub(in crate::write) fn resume<S: Sink>(self, sink: S) -> Writer<S> {
        let mut w = Writer::new(sink);
        w.pos = self.pos;
        w.entries = self.entries;
        w.count = self.count;
        w.names = self.names;
        w.attrs = self.attrs;
        w
    }
}

fn extra<'a>(fields: crate::value::Map<'a>, known: &[&str]) -> Vec<(&'a [u8], &'a [u8])> {
    fields.iter().filter(|(k, _)| !k.as_str().is_some_and(|s| known.contains(&s))).map(|(k, v)| (k.raw(), v.raw())).collect()
}

/// Encode an object of an existing file again: known fields from their
/// parsed values, attributes and unknown fields copied as raw CBOR.
fn reencode(out: &mut Vec<u8>, o: &Object<'_>) -> Result<()> {
    let shape: Vec<u64> = o.shape().dims().collect();
    let attrs = o.fields().get(ObjectKey::Attributes.name()).filter(|v| !v.is_null()).map(|v| v.raw());
    let mut metas = Vec::new();
    let mut names = Vec::new();
    let mut extras = Vec::new();
    for c in o.components() {
        let zstd_len = match c.encoding() {
            Encoding::Raw => None,
            Encoding::Zstd => Some(c.uncompressed_length().ok_or(Error::new(ErrorKind::MissingUncompressedLength))?),
            Encoding::ZstdSeekable | Encoding::Unknown => {
                return Err(Error::new(ErrorKind::Unsupported { what: "appending to a v2 file" }))
            }
        };
        metas.push(CompMeta {
            dtype: c.dtype(),
            offset: c.offset(),
            length: c.length(),
            zstd_len,
            digest: c.digest().map(ToString::to_string),
        });
        // `type` as written (the reader hides a `type` equal to the dtype).
        names.push((c.role(), c.fields().get(ComponentKey::Type.name()).and_then(|v| v.as_str())));
        extras.push(extra(c.fields(), ComponentKey::NAMES));
    }
    let format = o.format();
    enc::object(out, o.name(), &shape, format.name(), attrs, &metas, |i| names[i], &extras, &extra(o.fields(), ObjectKey::NAMES));
    Ok(())
}
