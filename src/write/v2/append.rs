//! Generational append (§2.5): new blobs, a new manifest and footer after
//! the old end of the file; the old bytes stay as they are (the old
//! manifest becomes an unreferenced blob). The old file's objects and file
//! attributes are carried into the new manifest as their encoded bytes.
//!
//! As upstream 2.1.2 does: appending needs non-canonical options (a file
//! with two manifests is not canonical), and new parts do not share blobs
//! of older generations.

use super::{Error, Kind, Options, Result, Sink, Writer};
use crate::compact::view::{entries, skip};
use crate::v2::Manifest;
use alloc::vec::Vec;

/// What a writer keeps of the file it appends to.
pub(crate) struct Generation {
    objects: Vec<(Vec<u8>, Vec<u8>)>,
    names: Vec<alloc::string::String>,
    attrs: Vec<(Vec<u8>, Vec<u8>)>,
    len: u64,
}

impl Generation {
    /// Read an existing v2 file (whole, as a slice).
    pub(crate) fn of(file: &[u8], opts: &Options) -> Result<Generation> {
        if opts.is_canonical() {
            return Err(Error::new(Kind::Option("canonical form is written in one pass: append with non-canonical options")));
        }
        let m = Manifest::parse(file).map_err(|e| Error::new(Kind::Rule(e)))?;
        if m.is_data_shard() || m.shards().next().is_some() {
            return Err(Error::new(Kind::Option("appending to a data shard or a sharded root")));
        }
        let buf = m.bytes();
        let mut g = Generation { objects: Vec::new(), names: Vec::new(), attrs: Vec::new(), len: file.len() as u64 };
        for o in m.objects() {
            let v = skip(buf, o.offset);
            g.objects.push((buf[o.offset..v].to_vec(), buf[v..skip(buf, v)].to_vec()));
            g.names.push(o.name.into());
        }
        if let Some(a) = m.attributes() {
            let (_, n, first) = crate::cbor::decode_head(buf, a.pos).unwrap_or((0, Some(0), 0));
            for (k, v) in entries(buf, first, n.unwrap_or(0) as usize) {
                g.attrs.push((buf[k..v].to_vec(), buf[v..skip(buf, v)].to_vec()));
            }
        }
        Ok(g)
    }

    /// A writer continuing after this generation on `sink`, which already
    /// holds the old file's bytes.
    pub(crate) fn resume<S: Sink>(self, sink: S, opts: Options) -> Result<Writer<S>> {
        let mut w = Writer::with_options(sink, opts)?;
        w.pos = self.len;
        w.objects = self.objects;
        w.names = self.names.into_iter().collect();
        w.attrs = self.attrs.into_iter().collect();
        Ok(w)
    }
}

impl Writer<Vec<u8>> {
    /// Append a generation to a v2 file held in memory (its bytes are kept
    /// as they are; new blobs follow them).
    pub fn append_to_vec(bytes: Vec<u8>, opts: Options) -> Result<Self> {
        let g = Generation::of(&bytes, &opts)?;
        g.resume(bytes, opts)
    }
}

#[cfg(feature = "std")]
impl Writer<super::super::FileSink> {
    /// Append a generation to the v2 file at `path`, published atomically:
    /// the old file is copied into a temporary file beside it, new blobs,
    /// manifest and footer follow, and [`finish`](Writer::finish) renames
    /// it over the old one (until then the old file is untouched).
    pub fn append(path: impl AsRef<std::path::Path>, opts: Options) -> Result<Self> {
        let io = |_| Error::new(Kind::Core(crate::ErrorKind::Io));
        let path = path.as_ref();
        let old = std::fs::read(path).map_err(io)?;
        let g = Generation::of(&old, &opts)?;
        let mut sink = super::super::FileSink::create(path).map_err(io)?;
        sink.write_all(&old)?;
        if let Ok(m) = std::fs::metadata(path) {
            let _ = std::fs::set_permissions(sink.temp_path(), m.permissions());
        }
        g.resume(sink, opts)
    }
}
