//! zTensor v2 input (one file, not sharded). [`write_v2`] feeds every
//! object as it is to a v2 writer (`--format-version 2`); [`write()`] gives
//! v1.2 objects to [`Out`]:
//! what v1.2 can hold is carried over, the rest refused with the object
//! named. `dense` stays, `zt.sparse_csr/1`/`zt.sparse_coo/1` become
//! `sparse_csr`/`sparse_coo`, unregistered layouts keep their name; the
//! registered v2-only layouts (`zt.quant_group/1`, `zt.mx/1`, `gguf.*`) are
//! refused. `u8` with the logical type `bool` becomes `bool`, `f8_e8m0` and
//! `f4_e2m1` take their v1.2 names. A sharded root is read with its data
//! shards ([`Files`]); encodings other than raw and `zt.zstd-seekable/1`
//! are refused. Input digests are verified as the parts stream to the
//! writer (a seekable part a frame at a time: memory is one frame); with
//! `--digest` unset, `sha256` digests are kept and `xxh3` ones (no v1.2
//! algorithm) dropped. Attributes are carried over item by item.

use super::{DigestOpt, Out};
use crate::input::{self, Bytes};
use crate::Fail;
use ztensor::v2::Digest;
use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;
use ztensor::v2::{seekable, shard, verify, Manifest};
use std::path::Path;
use ztensor::write::v2::{Encoding, NewObject as V2Object, NewPart, Writer as V2Writer};
use ztensor::write::{AttrValue, Data, FileSink};
use ztensor::write::v1_2::{Checksum, NewComponent, NewObject};
use ztensor::{DType, Format, LogicalType};

/// The first 8 bytes of a v2 file (§2.1).
pub const MAGIC: &[u8] = b"\x89ZT2\r\n\x1a\n";

/// Decoded bytes to convert.
pub fn total(m: &Manifest<'_>) -> u64 {
    m.objects().flat_map(|o| o.parts().flatten().map(|p| p.decoded_size()).collect::<Vec<_>>()).sum()
}

pub fn write(m: &Manifest<'_>, files: &Files<'_>, out: &mut Out) -> Result<(), Fail> {
    if let Some(a) = m.attributes() {
        for (k, v) in a.iter() {
            out.set_attribute(k, AttrValue::Cbor(v.to_vec()))?;
        }
    }
    for o in m.objects() {
        let name = o.name;
        let bad = |msg: String| out.bad_input(format!("{msg} (object {name:?})"));
        let format = match o.layout {
            "dense" => Format::Dense,
            "zt.sparse_csr/1" => Format::SparseCsr,
            "zt.sparse_coo/1" => Format::SparseCoo,
            l if l.starts_with("zt.") || l.starts_with("gguf.") => {
                return Err(bad(format!("layout {l:?} has no v1.2 equivalent")))
            }
            l => Format::parse(l),
        };
        let shape: Vec<u64> = o.dims().collect();
        let mut obj = NewObject::new(name, format, &shape);
        if let Some(a) = o.attributes() {
            for (k, v) in a.iter() {
                obj = obj.attribute(k, AttrValue::Cbor(v.to_vec()));
            }
        }
        verify::layout(&o, |p| files.decoded(p)).map_err(|e| bad(e.to_string()))?;
        // The first problem a part's bytes show as the writer takes them.
        let problem = Rc::new(RefCell::new(None));
        for p in o.parts() {
            let p = p.map_err(|e| bad(e.to_string()))?;
            let pbad = |msg: String| out.bad_input(format!("{msg} (object {name:?}, part {:?})", p.name));
            let at = format!("(object {name:?}, part {:?})", p.name);
            let (size, chunks) = files.stream(&p, verify::part_elements(&o, &p), &problem, at).map_err(pbad)?;
            let (dtype, logical) = match (p.dtype, p.type_name) {
                (DType::U8, Some("bool")) => (DType::Bool, None),
                (d, Some("f8_e8m0")) => (d, Some("f8_e8m0fnu")),
                (d, Some("f4_e2m1")) => (d, Some("f4_e2m1fn")),
                (d, t) => (d, t),
            };
            let progress = out.progress.clone();
            let data = Data::from_chunks(size, chunks.inspect(move |c| progress.add(c.len() as u64)));
            let mut nc = NewComponent::new(p.name, dtype, data);
            if let Some(t) = logical {
                nc = nc.logical_type(LogicalType::parse(t));
            }
            if let DigestOpt::Keep = out.digest {
                nc = nc.checksum(if matches!(p.digest, Some(Digest::Sha256(_))) { Checksum::Sha256 } else { Checksum::None });
            }
            obj = obj.component(nc);
        }
        let added = out.add(obj);
        if let Some(e) = problem.take() {
            return Err(out.bad_input(e));
        }
        added?;
    }
    Ok(())
}

/// Every object of `m` (sorted by name: canonical order) into a v2 writer,
/// every layout and attribute kept; parts decoded and their digests checked.
pub fn write_v2(
    m: &Manifest<'_>,
    files: &Files<'_>,
    w: &mut V2Writer<FileSink>,
    encoding: Option<Encoding>,
    in_path: &Path,
    refused: impl Fn(ztensor::write::v2::Error) -> Fail,
) -> Result<(), Fail> {
    let bad = |msg: String| Fail::input(in_path, msg);
    if let Some(a) = m.attributes() {
        for (k, v) in a.iter() {
            w.set_attribute(k, AttrValue::Cbor(v.to_vec())).map_err(&refused)?;
        }
    }
    let mut objects: Vec<_> = m.objects().collect();
    objects.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    for o in objects {
        let shape: Vec<u64> = o.dims().collect();
        let mut obj = V2Object::new(o.name, &shape, o.layout);
        if let Some(a) = o.attributes() {
            for (k, v) in a.iter() {
                obj = obj.attribute(k, AttrValue::Cbor(v.to_vec()));
            }
        }
        verify::layout(&o, |p| files.decoded(p)).map_err(|e| bad(format!("{e} (object {:?})", o.name)))?;
        let problem = Rc::new(RefCell::new(None));
        for p in o.parts() {
            let p = p.map_err(|e| bad(format!("{e} (object {:?})", o.name)))?;
            let at = format!("(object {:?}, part {:?})", o.name, p.name);
            let n = verify::part_elements(&o, &p);
            let (size, chunks) = files.stream(&p, n, &problem, at.clone()).map_err(|e| bad(format!("{e} {at}")))?;
            let data = Data::from_chunks(size, chunks);
            let mut np = NewPart::new(p.name, p.dtype, data);
            if let Some(t) = p.type_name {
                np = np.logical(t);
            }
            if let Some(e) = encoding {
                np = np.encoding(e);
            }
            obj = obj.part(np);
        }
        let added = w.add(obj);
        if let Some(e) = problem.take() {
            return Err(bad(e));
        }
        added.map_err(&refused)?;
    }
    Ok(())
}

/// The input's files: the root and, for a sharded root, its data shards
/// (found beside it by Appendix B's rules, each checked against the shard
/// table: size, magic, footer and whole-file digest).
pub struct Files<'f> {
    root: &'f [u8],
    shards: Vec<(String, Bytes)>,
}

impl<'f> Files<'f> {
    pub fn open(m: &Manifest<'_>, root: &'f [u8], root_path: &Path) -> Result<Files<'f>, String> {
        let mut shards = Vec::new();
        for sh in m.shards() {
            let ctx = |e: &dyn std::fmt::Display| format!("data shard {:?}: {e}", sh.name);
            if input::is_stdin(root_path) {
                return Err(ctx(&"a sharded root cannot be read from stdin (its shards are files beside it)"));
            }
            let path = shard::locate(root_path, &sh).map_err(|e| ctx(&e))?;
            let bytes = input::load(&path).map_err(|e| ctx(&format_args!("{}: {e}", path.display())))?;
            shard::check(&sh, &bytes).and_then(|()| shard::verify(&sh, &bytes)).map_err(|e| ctx(&e))?;
            shards.push((sh.name.to_owned(), bytes));
        }
        Ok(Files { root, shards })
    }

    /// A part's blob's file.
    fn file(&self, p: &ztensor::v2::Part<'_>) -> Result<&[u8], String> {
        match p.shard {
            None => Ok(self.root),
            Some(s) => self.shards.iter().find(|(n, _)| n == s).map(|(_, b)| &b[..]).ok_or_else(|| format!("data shard {s:?} is not in the shard table")),
        }
    }

    /// A part's decoded bytes, whole (the index parts the layout's data
    /// rules look across, `verify::layout`).
    fn decoded(&self, p: &ztensor::v2::Part<'_>) -> Result<Cow<'_, [u8]>, ztensor::Error> {
        use ztensor::{Error, ErrorKind};
        let file = self.file(p).map_err(|_| Error::new(ErrorKind::ShardMissing))?;
        let outside = ErrorKind::OutOfBounds { offset: p.offset, length: p.length, limit: file.len() as u64 };
        let blob = p.blob(file).ok_or(Error::new(outside))?;
        match p.encoding {
            None => Ok(Cow::Borrowed(blob)),
            Some(seekable::ID) => Ok(Cow::Owned(seekable::decode_to_vec(blob, p.decoded_size())?)),
            Some(_) => Err(Error::new(ErrorKind::Unsupported { what: "decoding this encoding" })),
        }
    }

    /// A part's decoded bytes for a writer, and their size: see [`Checked`].
    /// `n` is the element count its logical type sees (`verify::part_elements`).
    /// `problem` receives the first problem found (with `at` appended).
    fn stream<'s>(
        &'s self,
        p: &ztensor::v2::Part<'s>,
        n: Option<u64>,
        problem: &Rc<RefCell<Option<String>>>,
        at: String,
    ) -> Result<(u64, Checked<'s>), String> {
        let blob = p.blob(self.file(p)?).ok_or("the part's blob is outside its file")?;
        let size = p.decoded_size();
        let chunks: Chunks<'s> = match p.encoding {
            None => Box::new(blob.chunks(super::CHUNK).map(|c| Ok(Cow::Borrowed(c)))),
            Some(seekable::ID) => {
                let frames = seekable::Frames::new(blob, size).map_err(|e| e.to_string())?;
                Box::new(frames.map(|f| f.map(Cow::Owned).map_err(|e| e.to_string())))
            }
            Some(e) => return Err(format!("encoding {e:?} is not one zt decodes")),
        };
        let pieces = Some(verify::Pieces::new(p, n));
        let mut c = Checked { chunks, pieces, size, seen: 0, problem: problem.clone(), at };
        if size == 0 {
            // No chunk will come: the checks of nothing, now.
            c.finish().map_err(|e| e.to_string())?;
        }
        Ok((size, c))
    }
}

type Chunks<'s> = Box<dyn Iterator<Item = Result<Cow<'s, [u8]>, String>> + 's>;

/// A part's decoded bytes as a writer takes them, checked as they pass
/// (length, the type's byte rules, the digest: `verify::Pieces`): a raw
/// part's blob a piece at a time, a `zt.zstd-seekable/1` part a frame at a
/// time, so a conversion holds one frame whatever the part declares. A
/// problem ends the stream before its last piece (the writer then refuses
/// the object as short) and is kept in `problem`, the error reported.
struct Checked<'s> {
    chunks: Chunks<'s>,
    pieces: Option<verify::Pieces>,
    size: u64,
    seen: u64,
    problem: Rc<RefCell<Option<String>>>,
    at: String,
}

impl Checked<'_> {
    /// The checks of the whole part, once (later calls: `Ok`).
    fn finish(&mut self) -> Result<(), String> {
        match self.pieces.take().map(|h| h.finish(self.size)) {
            Some(Err(e)) => Err(self.fail(e.to_string())),
            _ => Ok(()),
        }
    }

    /// Record the first problem; the stream ends.
    fn fail(&mut self, e: String) -> String {
        self.pieces = None;
        let e = format!("{e} {}", self.at);
        self.problem.borrow_mut().get_or_insert(e.clone());
        e
    }
}

impl<'s> Iterator for Checked<'s> {
    type Item = Cow<'s, [u8]>;

    fn next(&mut self) -> Option<Cow<'s, [u8]>> {
        let h = self.pieces.as_mut()?;
        let c = match self.chunks.next() {
            Some(Ok(c)) => c,
            Some(Err(e)) => {
                self.fail(e);
                return None;
            }
            None => {
                let _ = self.finish();
                return None;
            }
        };
        if let Err(e) = h.update(&c) {
            self.fail(e.to_string());
            return None;
        }
        self.seen += c.len() as u64;
        // The last piece goes only if the whole part checks out.
        if self.seen >= self.size && self.finish().is_err() {
            return None;
        }
        Some(c)
    }
}
