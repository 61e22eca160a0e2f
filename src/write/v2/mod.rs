//! The zTensor format v2 writer (container format version 2, Draft 4; see docs/format.md).
//!
//! [`Writer`] writes each object's blobs as it is added, keeps its few
//! bytes of manifest, and at [`Writer::finish`] appends the deterministic-
//! CBOR manifest and the 40-byte footer. It reads back only to confirm a
//! shared blob ([`Sink::read_at`]) and seeks back only to take back a
//! streamed duplicate ([`Sink::rewind_to`]).
//!
//! **Canonical form** (§6.3, the default): blobs at successive 64 KiB
//! boundaries from 65536, in ascending bytewise `(object name, part name)`
//! order; objects must be added in that name order (as upstream's writer,
//! which refuses the same way), parts are sorted by name; parts with
//! identical bytes share one blob (found by length and XXH3-64, confirmed
//! byte for byte against the bytes already written); raw; an `xxh3` digest
//! on every part; names (objects, parts, attribute keys) in NFC: others are
//! refused, not normalized (upstream 2.1.2 refuses non-NFC object and part
//! names the same way; it does not check attribute keys, this writer does);
//! no shards; the manifest last, the footer right after. A streamed part
//! ([`Data::from_chunks`], [`Data::from_reader`]) is shared too: its bytes
//! are known only once written, so it is written, compared with the
//! earlier blobs of its key and, if identical, taken back
//! ([`Sink::rewind_to`]), its object's later blobs moving down. `Vec<u8>`
//! and [`FileSink`](super::FileSink) can rewind; with a sink that cannot
//! read back or rewind, a streamed part stays unshared (then not canonical
//! in the letter of rule 3). Upstream's `Writer.stream` never shares a
//! streamed part, so with a streamed duplicate the bytes differ from
//! upstream's: ours are the canonical ones (the same as for those tensors
//! given in memory). A sink that cannot read back ([`Sink::read_at`])
//! makes a canonical writer refuse an in-memory part identical to an
//! earlier one. Identical input gives the same bytes as upstream's
//! `ztensor.Writer(path)` (tested against PyPI `ztensor` 2.1.2 in
//! `tests/writer_v2.rs`).
//!
//! **Non-canonical** ([`Options::non_canonical`]): a power-of-two
//! alignment from 4096 to 1 GiB ([`MAX_ALIGN`]), digests `xxh3`, `sha256`
//! or none (over decoded bytes), `zt.zstd-seekable/1` parts, objects in
//! any order (blobs in the order added).
//!
//! Every object is checked before any of its bytes is written by the
//! reader itself ([`crate::v2::Manifest`]): its manifest entry, with the
//! offsets it will get, is validated as a one-object manifest, so the
//! writer refuses exactly what the reader refuses (names, shape, types,
//! every registered layout profile's rules, attributes), with the
//! reader's [`crate::v2::Error`].
//!
//! ```
//! use ztensor::v2::types::DType;
//! use ztensor::write::v2::{NewObject, NewPart, Writer};
//!
//! let mut w = Writer::new(Vec::new());
//! w.add_dense("bias", &[2], DType::F32, &[0u8, 0, 0, 63, 0, 0, 0, 191][..]).unwrap();
//! w.add(NewObject::new("m", &[2, 3], "zt.sparse_csr/1")
//!     .part(NewPart::from_slice("indices", &[0u32, 2]))
//!     .part(NewPart::from_slice("indptr", &[0u32, 1, 2]))
//!     .part(NewPart::from_slice("values", &[1.0f32, 2.0]))).unwrap();
//! let bytes = w.finish().unwrap();
//! let m = ztensor::v2::Manifest::parse(&bytes).unwrap();
//! assert_eq!(m.len(), 2);
//! ```

mod append;
mod cbor;
mod error;
mod manifest;
mod object;
mod options;
mod place;
mod seekable;
mod share;
#[cfg(feature = "std")]
mod shard;
mod xxh3;

pub use error::{Error, Kind, Result};
pub use object::{Encoding, NewObject, NewPart};
pub use options::{is_valid_align, DigestAlg, Options, CANONICAL_ALIGN, MAX_ALIGN};

use super::hash::PartDigest;
use xxh3::{blob_key, full_hash, PREFIX};
use place::{align_up, end_of, Place};
use manifest::{check_manifest, check_manifest_after, footer, object_entry, root, root_shards, root_with};

use super::attr::AttrValue;
use super::data::{Data, Pull, Repr, Slice};
use super::Sink;
use crate::v2::container::{FOOTER_LEN, MAGIC, MAX_MANIFEST_LEN};
use crate::v2::types::DType;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;


/// Where a part's blob goes, and what is known of it before writing.
struct Plan {
    /// The file: 0 for this one, k for data shard k.
    shard: u32,
    offset: u64,
    length: u64,
    /// Bytes to write (encoded parts, held in memory), if not the source's.
    encoded: Option<Vec<u8>>,
    /// Sharing an earlier blob: nothing to write.
    shared: bool,
    /// The digest, when known before writing.
    digest: Option<String>,
    /// The sharing key of raw bytes in memory ([`blob_key`]).
    key: Option<(u64, u64)>,
    /// XXH3-64 of all the bytes, when known (before or after writing).
    full: Option<u64>,
}

/// Bytes digested and written at a time when a part with no sharing
/// candidate ([`xxh3::blob_key`]) is written in one pass: hashed, then handed
/// to the sink while still in the CPU cache, so they are read from memory
/// once. At least a `FileSink` buffer (256 KiB), so a chunk goes to the file
/// without a copy into it; 1 MiB measured best (64 KiB: 10 % slower, 4 MiB: no better).
const CHUNK: usize = 1024 * 1024;

/// A raw blob written: file, offset, XXH3-64 of all its bytes when known.
type Blob = (u32, u64, Option<u64>);

/// A streaming zTensor v2 writer. See the [module docs](self).
pub struct Writer<S: Sink> {
    sink: S,
    opts: Options,
    /// Bytes written to the file blobs go to now (the root, or the current data shard).
    pos: u64,
    /// The data shard blobs go to now (0: none, blobs go to the root).
    shard: u32,
    #[cfg(feature = "std")]
    shards: Option<shard::ShardSet>,
    /// Positions in `objects` entries of a `shard` name's `-of-00000`, patched at finish.
    patches: Vec<(usize, usize)>,
    broken: bool,
    /// Encoded `objects` entries: (name key, object map).
    objects: Vec<(Vec<u8>, Vec<u8>)>,
    names: BTreeSet<String>,
    last: Option<String>,
    /// Raw blobs by [`blob_key`]: (file, offset, XXH3-64 of all the bytes when known).
    blobs: BTreeMap<(u64, u64), Vec<Blob>>,
    /// File attributes: encoded key -> encoded value.
    attrs: BTreeMap<Vec<u8>, Vec<u8>>,
}

impl<S: Sink> core::fmt::Debug for Writer<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Writer").field("options", &self.opts).field("objects", &self.objects.len()).finish_non_exhaustive()
    }
}

fn is_nfc(s: &str) -> bool {
    unicode_normalization::is_nfc(s)
}

impl<S: Sink> Writer<S> {
    /// A canonical writer.
    pub fn new(sink: S) -> Self {
        Writer {
            sink,
            opts: Options::canonical(),
            pos: 0,
            shard: 0,
            #[cfg(feature = "std")]
            shards: None,
            patches: Vec::new(),
            broken: false,
            objects: Vec::new(),
            names: BTreeSet::new(),
            last: None,
            blobs: BTreeMap::new(),
            attrs: BTreeMap::new(),
        }
    }

    /// A writer with these options.
    pub fn with_options(sink: S, opts: Options) -> Result<Self> {
        opts.check()?;
        if opts.shard_size.is_some() {
            return Err(Error::new(Kind::Option("sharded output is written to files: use create_with")));
        }
        let mut w = Writer::new(sink);
        w.opts = opts;
        Ok(w)
    }

    /// The options.
    pub fn options(&self) -> Options {
        self.opts
    }

    /// Number of objects added.
    pub fn len(&self) -> usize {
        self.objects.len()
    }

    /// Whether no object has been added.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Bytes written so far.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// The sink.
    pub fn sink(&self) -> &S {
        &self.sink
    }

    /// Add a dense raw object: `add(NewObject::dense(name, shape, dtype, data))`.
    pub fn add_dense<'a>(&mut self, name: &str, shape: &[u64], dtype: DType, data: impl Into<Data<'a>>) -> Result<()> {
        self.add(NewObject::dense(name, shape, dtype, data))
    }

    /// Set a file attribute (setting a key again replaces it).
    pub fn set_attribute(&mut self, key: &str, value: impl Into<AttrValue>) -> Result<()> {
        self.check_name(key)?;
        let mut v = Vec::new();
        // The root's attributes map is depth 1, its values depth 2.
        cbor::value(&mut v, &value.into(), 2)?;
        let k = cbor::key(key);
        // Checked as the reader will see it: a manifest with these attributes alone.
        let mut attrs = self.attrs.clone();
        attrs.insert(k, v);
        let m = root(&[], &attrs)?;
        check_manifest(&m, self.opts.align)?;
        self.attrs = attrs;
        Ok(())
    }

    fn check_name(&self, s: &str) -> Result<()> {
        if self.opts.canonical && !is_nfc(s) {
            return Err(Error::new(Kind::NotNfc));
        }
        Ok(())
    }

    /// The suffix of this output's shard names (none without shards).
    fn shard_suffix(&self) -> &'static str {
        #[cfg(feature = "std")]
        if let Some(sh) = &self.shards {
            return sh.suffix();
        }
        ""
    }

    /// Add an object: check it (the reader's rules, at the offsets it will
    /// get), then write its parts' blobs. On error nothing of the object is
    /// recorded; if bytes were already written (a failing source), they
    /// stay as unreferenced padding.
    pub fn add(&mut self, obj: NewObject<'_>) -> Result<()> {
        let name = obj.name.clone();
        self.add_inner(obj).map_err(|e| e.in_object(&name))
    }

    fn add_inner(&mut self, mut obj: NewObject<'_>) -> Result<()> {
        self.usable()?;
        let canonical = self.opts.canonical;
        self.check_name(&obj.name)?;
        if self.names.contains(&obj.name) {
            return Err(Error::new(Kind::DuplicateObject));
        }
        if canonical && self.last.as_ref().is_some_and(|l| l.as_str() > obj.name.as_str()) {
            return Err(Error::new(Kind::Unsorted));
        }
        // Parts in ascending bytewise name order (the blob order of rule 3).
        obj.parts.sort_by(|a, b| a.name.cmp(&b.name));
        if obj.parts.windows(2).any(|w| w[0].name == w[1].name) {
            return Err(Error::new(Kind::DuplicateKey));
        }
        let mut attrs = Vec::new();
        for (k, v) in &obj.attributes {
            self.check_name(k)?;
            let mut ve = Vec::new();
            // root > objects > object > attributes > value: depth 4.
            cbor::value(&mut ve, v, 4)?;
            attrs.push((cbor::key(k), ve));
        }
        for p in &obj.parts {
            self.check_name(&p.name).map_err(|e| e.in_part(&p.name))?;
            if canonical && p.encoding != Encoding::Raw {
                return Err(Error::new(Kind::Option("canonical form forbids encoded parts")).in_part(&p.name));
            }
        }

        // Plan every blob before writing any.
        let mut plans: Vec<Plan> = Vec::with_capacity(obj.parts.len());
        let mut place = self.place();
        // The sharing key of each raw part in memory.
        let keys: Vec<Option<(u64, u64)>> = obj
            .parts
            .iter()
            .map(|p| match (p.encoding, &p.data.0) {
                (Encoding::Raw, Repr::Bytes(b)) => Some(blob_key(b)),
                _ => None,
            })
            .collect();
        for (i, &key) in keys.iter().enumerate() {
            let plan = match self.same_as_earlier(&obj.parts, &plans, key, i) {
                Some(p) => p,
                None => self.plan(&mut obj.parts[i], key, &mut place).map_err(|e| e.in_part(&obj.parts[i].name))?,
            };
            plans.push(plan);
        }

        let provisional: Vec<Option<String>> =
            plans.iter().map(|p| p.digest.clone().or_else(|| self.opts.digest.placeholder())).collect();
        let key = cbor::key(&obj.name);
        let suffix = self.shard_suffix();
        let (value, _) = object_entry(&obj.shape, &obj.layout, &attrs, &obj.parts, &plans, &provisional, suffix)?;
        // The reader's verdict on the object alone, at its real offsets
        // (data shards as large as the blobs in them need).
        // (Each `offset + length` fits in u64: `take` checked it.)
        let mut table: BTreeMap<u32, u64> = BTreeMap::new();
        for p in plans.iter().filter(|p| p.shard != 0) {
            let e = table.entry(p.shard).or_insert(0);
            *e = (*e).max(end_of(p.offset + p.length, FOOTER_LEN)?);
        }
        let root_end = plans.iter().filter(|p| p.shard == 0).map(|p| p.offset + p.length).max().unwrap_or(0);
        let m = root_with(&[(key.clone(), value)], &BTreeMap::new(), &table, suffix)?;
        check_manifest_after(&m, self.opts.align, root_end.max(if self.shard == 0 { self.next_free() } else { MAGIC.len() as u64 }))?;

        // Write.
        let mut digests = Vec::with_capacity(plans.len());
        for i in 0..plans.len() {
            // Sharing found once bytes are known: before writing, after a streamed part.
            self.share_with_streamed(&obj.parts, &mut plans, i).map_err(|e| e.in_part(&obj.parts[i].name))?;
            let d = self.write_part(&mut obj.parts[i], &mut plans[i]).map_err(|e| e.in_part(&obj.parts[i].name))?;
            self.share_streamed(&obj.parts, &mut plans, i).map_err(|e| e.in_part(&obj.parts[i].name))?;
            digests.push(d);
        }
        for plan in &plans {
            if let (Some(k), false) = (plan.key, plan.shared) {
                self.blobs.entry(k).or_default().push((plan.shard, plan.offset, plan.full));
            }
        }
        let suffix = self.shard_suffix();
        let (value, patches) = object_entry(&obj.shape, &obj.layout, &attrs, &obj.parts, &plans, &digests, suffix)?;
        let i = self.objects.len();
        self.patches.extend(patches.into_iter().map(|at| (i, at)));
        self.objects.push((key, value));
        self.names.insert(obj.name.clone());
        self.last = Some(obj.name);
        Ok(())
    }

    /// Part `i` shares the blob of an earlier part of its object with the
    /// same bytes (both in memory, compared here).
    fn same_as_earlier(&self, parts: &[NewPart<'_>], plans: &[Plan], key: Option<(u64, u64)>, i: usize) -> Option<Plan> {
        let (Some(key), Repr::Bytes(b)) = (key, &parts[i].data.0) else { return None };
        plans.iter().zip(parts).find_map(|(e, q)| match &q.data.0 {
            Repr::Bytes(qb) if e.key == Some(key) && !e.shared && qb[..] == b[..] => {
                let full = e.full.unwrap_or_else(|| full_hash(b, key));
                let digest = e.digest.clone().or_else(|| self.digest_of(b, full));
                Some(Plan { shard: e.shard, offset: e.offset, length: e.length, encoded: None, shared: true, digest, key: e.key, full: Some(full) })
            }
            _ => None,
        })
    }

    /// Place part `p`: share an earlier blob of identical bytes, or take
    /// the next aligned offset from `cursor`.
    fn plan(&mut self, p: &mut NewPart<'_>, key: Option<(u64, u64)>, place: &mut Place) -> Result<Plan> {
        match (&p.encoding, &mut p.data.0) {
            (Encoding::Raw, Repr::Bytes(b)) => {
                let key = key.unwrap_or_else(|| blob_key(b));
                let len = key.0;
                // Known now when short (the key hashed it all) or when an
                // earlier blob has its key (then compared by full hash, and
                // confirmed byte for byte); else digested while written.
                let mut full = (b.len() <= PREFIX).then_some(key.1);
                if self.blobs.get(&key).is_some_and(|c| c.iter().any(|&(f, ..)| f == self.shard)) {
                    let h = *full.get_or_insert_with(|| full_hash(b, key));
                    if let Some((shard, off)) = self.find_shared(key, h, b)? {
                        let digest = self.digest_of(b, h);
                        return Ok(Plan { shard, offset: off, length: len, encoded: None, shared: true, digest, key: Some(key), full });
                    }
                }
                let digest = match (self.opts.digest, full) {
                    (DigestAlg::Xxh3, Some(h)) => self.digest_of(b, h),
                    _ => None,
                };
                let (shard, at) = self.take(place, len)?;
                Ok(Plan { shard, offset: at, length: len, encoded: None, shared: false, digest, key: Some(key), full })
            }
            (Encoding::Raw, Repr::Stream { len, .. }) => {
                let (shard, at) = self.take(place, *len)?;
                Ok(Plan { shard, offset: at, length: *len, encoded: None, shared: false, digest: None, key: None, full: None })
            }
            (Encoding::ZstdSeekable { level, frame }, repr) => {
                if *frame == 0 || *frame as u64 > crate::v2::seekable::MAX_FRAME {
                    return Err(Error::new(Kind::Option("zstd-seekable frames must hold 1 byte to 16 MiB")));
                }
                let mut g = PartDigest::new(self.opts.digest.hasher());
                let declared = match repr {
                    Repr::Bytes(b) => b.len() as u64,
                    Repr::Stream { len, .. } => *len,
                };
                let mut slice;
                let src: &mut dyn Pull = match repr {
                    Repr::Bytes(b) => {
                        slice = Slice { b: &b[..] };
                        &mut slice
                    }
                    Repr::Stream { src, .. } => &mut **src,
                };
                let enc = seekable::encode(*level, *frame, src, declared, &mut g)?;
                let (shard, at) = self.take(place, enc.len() as u64)?;
                Ok(Plan { shard, offset: at, length: enc.len() as u64, encoded: Some(enc), shared: false, digest: g.finish(), key: None, full: None })
            }
        }
    }

    /// The digest of raw bytes `b` whose XXH3-64 is `h`.
    fn digest_of(&self, b: &[u8], h: u64) -> Option<String> {
        match self.opts.digest {
            DigestAlg::Xxh3 => Some(alloc::format!("xxh3:{h:016x}")),
            d => {
                let mut g = PartDigest::new(d.hasher());
                g.update(b);
                g.finish()
            }
        }
    }
}

impl<S: Sink> Writer<S> {
    /// Write one planned part; returns its digest.
    fn write_part(&mut self, p: &mut NewPart<'_>, plan: &mut Plan) -> Result<Option<String>> {
        if plan.shared {
            return Ok(plan.digest.clone());
        }
        #[cfg(feature = "std")]
        if plan.shard != self.shard {
            self.roll_to(plan.shard)?;
        }
        self.pad_to(plan.offset)?;
        if let Some(enc) = plan.encoded.take() {
            self.put(&enc)?;
            return Ok(plan.digest.clone());
        }
        match &mut p.data.0 {
            Repr::Bytes(b) if plan.digest.is_some() || self.opts.digest == DigestAlg::None => {
                self.put(b)?;
                Ok(plan.digest.clone())
            }
            Repr::Bytes(b) if self.opts.digest == DigestAlg::Xxh3 => {
                // Digested as written, a chunk at a time (see CHUNK).
                let h = xxh3::hash_then(b, CHUNK, |c| self.put(c))?;
                plan.full = Some(h);
                Ok(self.digest_of(b, h))
            }
            Repr::Bytes(b) => {
                let mut g = PartDigest::new(self.opts.digest.hasher());
                for c in b.chunks(CHUNK) {
                    g.update(c);
                    self.put(c)?;
                }
                if let Some(h) = g.xxh3() {
                    plan.full = Some(h);
                }
                Ok(g.finish())
            }
            Repr::Stream { len, src } => {
                let declared = *len;
                let mut g = PartDigest::new(self.opts.digest.hasher());
                let mut failed = None;
                // The sharing key's prefix (canonical form, the root: see `share_streamed`).
                let keyed = self.opts.canonical && self.shard == 0;
                let mut prefix = Vec::new();
                let n = super::v1_2::copy(&mut **src, declared, &mut |b: &[u8]| {
                    self.put(b).map_err(|e| {
                        failed = Some(e);
                        crate::Error::new(crate::ErrorKind::Io)
                    })?;
                    g.update(b);
                    if keyed && prefix.len() < PREFIX {
                        prefix.extend_from_slice(&b[..b.len().min(PREFIX - prefix.len())]);
                    }
                    Ok(())
                });
                if let Some(e) = failed {
                    return Err(e);
                }
                let n = n?;
                if n != declared {
                    return Err(Error::new(Kind::Core(crate::ErrorKind::LengthMismatch { expected: declared, actual: n })));
                }
                if let (true, Some(h)) = (keyed, g.xxh3()) {
                    plan.key = Some((n, xxhash_rust::xxh3::xxh3_64(&prefix)));
                    plan.full = Some(h);
                }
                Ok(g.finish())
            }
        }
    }

    /// Write the manifest and the footer, finish the sink (a [`FileSink`](super::FileSink)
    /// publishes the file now) and return it.
    pub fn finish(mut self) -> Result<S> {
        self.usable()?;
        #[allow(unused_mut)] // Filled only with std (sharded output).
        let mut table = Vec::new();
        #[cfg(feature = "std")]
        if let Some(sh) = self.shards.as_mut() {
            let (n, t) = sh.finish()?;
            // The count in every part's shard name, now known.
            let count = alloc::format!("{n:05}");
            for &(i, at) in &self.patches {
                self.objects[i].1[at + shard::COUNT_AT..at + shard::COUNT_AT + 5].copy_from_slice(count.as_bytes());
            }
            table = t;
            // The root holds only the manifest.
            self.shard = 0;
            self.pos = 0;
        }
        let end = self.next_free();
        let at = align_up(end, self.opts.align)?;
        let m = root_shards(&self.objects, &self.attrs, &table)?;
        if m.len() as u64 > MAX_MANIFEST_LEN {
            return Err(Error::new(Kind::Rule(crate::v2::Error { kind: crate::v2::Kind::ManifestTooLarge, offset: None, context: "" })));
        }
        // Every object and attribute was checked when added: the whole
        // manifest is re-validated as a self-check in debug builds.
        #[cfg(debug_assertions)]
        check_manifest_after(&m, self.opts.align, end)?;
        self.pad_to(at)?;
        self.put(&m)?;
        let footer = footer(at, &m);
        self.put(&footer)?;
        if let Err(e) = self.sink.finish() {
            self.broken = true;
            return Err(e.into());
        }
        // The new root is published (the commit point): the old one's shards go.
        #[cfg(feature = "std")]
        if let Some(sh) = self.shards.as_mut() {
            sh.remove_old();
        }
        Ok(self.sink)
    }
}


#[cfg(feature = "std")]
impl Writer<super::FileSink> {
    /// A canonical file at `path`, published atomically by
    /// [`finish`](Writer::finish) (temporary file, fsync, rename: see
    /// [`FileSink`](super::FileSink)).
    pub fn create(path: impl AsRef<std::path::Path>) -> Result<Self> {
        Self::create_with(path, Options::canonical())
    }

    /// A file at `path` written with these options.
    pub fn create_with(path: impl AsRef<std::path::Path>, opts: Options) -> Result<Self> {
        opts.check()?;
        let path = path.as_ref();
        let sink = super::FileSink::create(path).map_err(|_| Error::new(Kind::Core(crate::ErrorKind::Io)))?;
        let mut w = Writer::with_options(sink, Options { shard_size: None, ..opts })?;
        w.opts = opts;
        if opts.shard_size.is_some() {
            w.shards = Some(shard::ShardSet::beside(path)?);
        }
        Ok(w)
    }
}

#[cfg(test)]
mod tests;
