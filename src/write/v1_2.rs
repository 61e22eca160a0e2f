//! The v1.2 writer: streaming, append-only, deterministic zTensor v1.2
//! files, for readers of the 1.x generation (PyPI `ztensor` up to 1.2.3,
//! which cannot read format v2). [`super::Writer`] fronts it with
//! [`super::Version::V1_2`]; this module's own [`Writer`] takes v1.2's
//! object model directly ([`NewObject`] with components, per-component
//! zstd and CRC-32C/SHA-256 digests, `quantized_group`) and appends to
//! v1.2 files.
//!
//! [`Writer`] writes each object's blobs as soon as the object is added
//! (64-byte aligned, zero padding), keeps only the object's few bytes of
//! manifest, and at [`Writer::finish`] appends the CBOR manifest, its size
//! (u64 LE) and the `ZTEN1000` footer. It never seeks back, so any
//! append-only [`Sink`] will do: a `Vec<u8>`, a `std::io::Write` through
//! [`IoSink`](super::IoSink), a file published atomically through [`FileSink`](super::FileSink)
//! ([`Writer::create`], [`Writer::append`]), or a `no_std` program's own.
//!
//! ```
//! # fn main() -> Result<(), ztensor::Error> {
//! use ztensor::write::v1_2::{Checksum, Compression, NewObject, Writer};
//! use ztensor::{DType, File};
//!
//! let mut w = Writer::new(Vec::new());
//! w.set_attribute("framework", "doc")?;
//! w.add_slice("bias", &[2], &[0.5f32, -0.5])?;
//! w.add(
//!     NewObject::sparse_csr_slices("m", [2, 3], &[1.0f64, 2.0], &[0, 2], &[0, 1, 2])
//!         .compression(Compression::ZSTD)
//!         .checksum(Checksum::Crc32c)
//!         .attribute("origin", "scipy"),
//! )?;
//! let bytes = w.finish()?;
//!
//! let file = File::parse(&bytes)?;
//! assert_eq!(file.require("bias")?.data()?.to_vec_of::<f32>()?, [0.5, -0.5]);
//! let m = file.require("m")?;
//! assert_eq!(m.require("values")?.to_vec_of::<f64>()?, [1.0, 2.0]);
//! m.require("indptr")?.verify_digest()?;
//! # Ok(()) }
//! ```
//!
//! # What the writer checks
//!
//! Before writing any byte of an object, [`Writer::add`] checks it with
//! the reader's own rules at its provisional offsets, so the writer refuses
//! exactly what [`File::parse`](crate::File::parse) refuses, with the same
//! [`ErrorKind`]. An object with attributes (or more than four components)
//! has its manifest entry encoded and run through the reader's validation;
//! any other is checked on its typed values by the same rule functions,
//! without encoding or allocating (debug builds also run the first way and
//! assert the same verdict). What is refused: empty names or roles, duplicate roles, a dense length that
//! does not match shape × width, a logical type that does not fit the
//! dtype, sparse indices that are not `u64`, a CSR shape that is not 2-D,
//! `indptr` ≠ rows + 1 or `indices` ≠ nnz, COO `coords` ≠ ndim × nnz,
//! missing components, attributes that are not well-formed CBOR or hold
//! duplicate keys or nest too deep. A duplicate object name is
//! [`ErrorKind::DuplicateKey`]. In debug builds [`Writer::finish`] also
//! re-validates the final manifest as a self-check. A refused object leaves
//! the writer as it was.
//!
//! After bytes have been written, two things can still fail: the sink
//! (then the writer is broken: every later call fails with
//! [`ErrorKind::Io`], and a [`FileSink`](super::FileSink) removes its temporary file when
//! dropped), or a streamed source (an I/O error, or not exactly its
//! declared length: [`ErrorKind::LengthMismatch`]). In the second case the
//! object is not recorded and the writer stays usable; the bytes already
//! written for it stay in the file as unreferenced padding.
//!
//! # Layout and determinism
//!
//! The same objects added in the same order give byte-identical files
//! (for a given zstd backend). The manifest is definite-length CBOR with
//! minimal integer heads and this key order:
//!
//! - root: `version` (`"1.2.0"`), `attributes` (only if set), `objects`;
//! - objects: in the order they were added (for [`Writer::append`]: the
//!   existing objects first, in their manifest order);
//! - object: `shape`, `format`, `attributes` (only if any), `components`;
//! - components: in the order given; keys `dtype`, `type` (if any),
//!   `offset`, `length`, `uncompressed_length` (zstd only), `encoding`
//!   (always: `"raw"` or `"zstd"`), `digest` (if any);
//! - attributes: in the order set, values as given (see [`AttrValue`]).
//!
//! Blobs are written in the same order as the manifest lists them. The
//! first is at offset 64; a zero-length component gets the next 64-aligned
//! offset (padding is written before it, so one written last makes the
//! manifest start exactly there, as with the reference writer); the
//! manifest directly follows the last blob.

// `Error` is large by design (allocation-free, carries names); the reader lives with it too.
#![allow(clippy::result_large_err)]

pub use super::hash::Checksum;
pub use super::object::{Compression, NewComponent, NewObject};

mod append;

#[cfg(feature = "std")]
pub(super) use append::State;
use super::{attr, check, data, enc, hash, names, zstd};
use super::{AttrValue, Sink};
use crate::container::{Layout, Tail, ALIGNMENT, FOOTER_LEN, HEADER_LEN, MAGIC_V1, MAX_MANIFEST_LEN};
use crate::error::{Error, ErrorKind, Result};
use crate::file::File;
use crate::schema::Role;
use check::NewComp;
use crate::types::{DType, Encoding, Format};
use names::NameSet;
use alloc::string::String;
use alloc::vec::Vec;
use attr::Attrs;
use data::{Data, Pull, Repr, Scalar, Slice};
use enc::CompMeta;

/// Objects with at most this many components are checked without allocating.
const FEW: usize = 4;
use hash::PartDigest;

/// A streaming, append-only zTensor v1.2 writer. See the [module docs](self).
pub struct Writer<S: Sink> {
    sink: S,
    /// Bytes written so far (the next blob's position before padding).
    pos: u64,
    /// Encoded `objects` entries (name, object map), back to back.
    entries: Vec<u8>,
    count: u64,
    names: NameSet,
    attrs: Attrs,
    /// The sink failed: nothing more can be written.
    broken: bool,
    /// Scratch for an entry checked by the reader's pass before writing.
    entry: Vec<u8>,
    /// Components [`Compression::ZstdIfSmaller`] stored raw.
    kept_raw: u64,
    #[cfg(feature = "std")]
    io_error: Option<std::io::Error>,
}

impl<S: Sink> core::fmt::Debug for Writer<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Writer").field("objects", &self.count).field("position", &self.pos).finish_non_exhaustive()
    }
}

impl<S: Sink> Writer<S> {
    /// A writer for a new file. Nothing is written until the first object
    /// (or `finish`).
    pub fn new(sink: S) -> Self {
        Writer {
            sink,
            pos: 0,
            entries: Vec::new(),
            count: 0,
            names: NameSet::new(),
            attrs: Attrs::default(),
            broken: false,
            entry: Vec::new(),
            kept_raw: 0,
            #[cfg(feature = "std")]
            io_error: None,
        }
    }

    /// Add an object: validate it, then write its components' blobs in
    /// order. On error nothing of the object is recorded (see the
    /// [module docs](self) for what may have been written).
    pub fn add(&mut self, mut obj: NewObject<'_>) -> Result<()> {
        // A broken writer says so before anything about the object.
        let r = match self.usable().and_then(|()| obj.attr_check()) {
            Ok(()) => {
                let attrs = obj.attributes.encoded();
                let o = Parts { name: &obj.name, format: obj.format, shape: &obj.shape, attrs: attrs.as_deref() };
                self.add_parts(o, &mut obj.components, obj.compression, obj.checksum)
            }
            Err(e) => Err(e),
        };
        r.map_err(|e| e.in_object(&obj.name))
    }

    /// Add a dense, raw object from little-endian bytes: the same as
    /// `add(NewObject::dense(name, shape, dtype, data))`, without building
    /// the `NewObject`.
    pub fn add_dense(&mut self, name: &str, shape: &[u64], dtype: DType, data: &[u8]) -> Result<()> {
        self.add_raw_dense(name, shape, NewComponent::new(Role::Data.name(), dtype, data))
    }

    /// Add a dense, raw object from typed elements (see [`Self::add_dense`]).
    pub fn add_slice<T: Scalar>(&mut self, name: &str, shape: &[u64], data: &[T]) -> Result<()> {
        self.add_raw_dense(name, shape, NewComponent::from_slice(Role::Data.name(), data))
    }

    /// A dense object of one raw component with the default digest, not built as a `NewObject`.
    fn add_raw_dense(&mut self, name: &str, shape: &[u64], data: NewComponent<'_>) -> Result<()> {
        let o = Parts { name, format: Format::Dense, shape, attrs: None };
        self.add_parts(o, &mut [data], Compression::Raw, Checksum::default()).map_err(|e| e.in_object(name))
    }

    /// Set a file-level attribute (insertion order; setting a key again
    /// replaces its value). Checked now; written at `finish`.
    pub fn set_attribute(&mut self, key: &str, value: impl Into<AttrValue>) -> Result<()> {
        let mut a = Attrs::default();
        a.set(key, &value.into())?;
        parse_detached(&enc::manifest(a.encoded().as_deref(), 0, &[]), HEADER_LEN).map_err(relocate)?;
        self.attrs.merge(a);
        Ok(())
    }

    /// Whether an object of this name has been added.
    pub fn contains(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// Number of objects added (including an appended file's).
    pub fn len(&self) -> usize {
        self.count as usize
    }

    /// Whether no object has been added.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Bytes written to the sink so far.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// The sink.
    pub fn sink(&self) -> &S {
        &self.sink
    }

    /// The `std::io::Error` behind the last [`ErrorKind::Io`] failure (of a
    /// streamed source or of the sink), if any.
    #[cfg(feature = "std")]
    pub fn take_io_error(&mut self) -> Option<std::io::Error> {
        self.io_error.take().or_else(|| self.sink.take_io_error())
    }

    /// Write the manifest and footer, finish the sink (a [`FileSink`](super::FileSink)
    /// publishes the file now) and return it. (Debug builds re-validate the
    /// whole manifest with the reader first.)
    pub fn finish(mut self) -> Result<S> {
        self.usable()?;
        self.header()?;
        // Head and entries are written as they are, not joined in memory.
        let attrs = self.attrs.encoded();
        let head = enc::manifest_head(attrs.as_deref(), self.count);
        let len = (head.len() + self.entries.len()) as u64;
        if len > MAX_MANIFEST_LEN {
            return Err(Error::new(ErrorKind::ManifestTooLarge { size: len }));
        }
        // Each object was checked by `add` and names are kept unique, blobs
        // are laid out in order (no overlap by construction), attributes
        // were checked when set: the whole manifest is re-validated only as
        // a self-check in debug builds (and so in every test).
        #[cfg(debug_assertions)]
        parse_detached(&enc::manifest(attrs.as_deref(), self.count, &self.entries), self.pos).map_err(relocate)?;
        self.put(&head)?;
        let entries = core::mem::take(&mut self.entries);
        self.put(&entries)?;
        self.put(&len.to_le_bytes())?;
        self.put(&MAGIC_V1)?;
        if let Err(e) = self.sink.finish() {
            self.broken = true;
            return Err(e);
        }
        Ok(self.sink)
    }

    fn usable(&self) -> Result<()> {
        if self.broken {
            return Err(Error::new(ErrorKind::Io));
        }
        Ok(())
    }

    fn put(&mut self, b: &[u8]) -> Result<()> {
        if let Err(e) = self.sink.write_all(b) {
            self.broken = true;
            return Err(e);
        }
        self.pos += b.len() as u64;
        Ok(())
    }

    fn header(&mut self) -> Result<()> {
        if self.pos == 0 {
            self.put(&MAGIC_V1)?;
        }
        Ok(())
    }

    fn pad(&mut self) -> Result<()> {
        let n = (ALIGNMENT - self.pos % ALIGNMENT) % ALIGNMENT;
        self.put(&[0u8; ALIGNMENT as usize][..n as usize])
    }

    /// Check an object, then write its blobs and record its entry.
    fn add_parts(&mut self, obj: Parts<'_>, comps: &mut [NewComponent<'_>], compression: Compression, checksum: Checksum) -> Result<()> {
        self.usable()?;
        // The name's slot is fetched first: a cache miss once earlier blobs
        // have streamed through the caches, overlapped with the checks.
        let h = NameSet::hash(obj.name);
        self.names.prefetch(h);
        let attrs = obj.attrs;
        // As the reader will see it (`Other("dense")` is `dense`).
        let format = Format::parse(obj.format.name());
        // Provisional layout: every check the reader makes, before any byte
        // is written. Offsets are where the blobs will really go.
        let first = if self.pos == 0 { HEADER_LEN } else { self.pos };
        let mut at = first.checked_next_multiple_of(ALIGNMENT).ok_or(Error::new(ErrorKind::ShapeOverflow))?;
        let n = comps.len();
        let (mut inline, mut heap): ([CompMeta; FEW], Vec<CompMeta>) = (Default::default(), Vec::new());
        let metas: &mut [CompMeta] = if n <= FEW {
            &mut inline[..n]
        } else {
            heap.resize_with(n, CompMeta::default);
            &mut heap
        };
        for (c, m) in comps.iter().zip(metas.iter_mut()) {
            let declared = c.data.len();
            // (`ZstdIfSmaller` is checked as zstd: the rules on the decoded
            // size are the same either way, and the stored length is known later.)
            let zstd = !matches!(c.compression.unwrap_or(compression), Compression::Raw);
            let length = if zstd { 0 } else { declared };
            *m = CompMeta { dtype: c.dtype, offset: at, length, zstd_len: zstd.then_some(declared), digest: None };
            at = at.checked_add(length).and_then(|e| e.checked_next_multiple_of(ALIGNMENT)).ok_or(Error::new(ErrorKind::ShapeOverflow))?;
        }
        if attrs.is_none() && n <= FEW {
            // The reader's rules on typed values: no encoding, no parse.
            let mut new = [NewComp::blank("", 0); FEW];
            for (i, (c, m)) in comps.iter().zip(metas.iter()).enumerate() {
                new[i] = NewComp {
                    dtype: c.dtype,
                    logical: c.logical,
                    encoding: if m.zstd_len.is_some() { Encoding::Zstd } else { Encoding::Raw },
                    offset: m.offset,
                    length: m.length,
                    uncompressed_length: m.zstd_len,
                    ..NewComp::blank(&c.role, 0)
                };
            }
            let verdict = check::check_new(obj.name, obj.shape, format, &new[..n], at);
            // Self-check (debug builds, so every test and fuzz run): the
            // encoded entry gets the same verdict from the reader's pass.
            #[cfg(debug_assertions)]
            {
                self.entry.clear();
                enc::object(&mut self.entry, obj.name, obj.shape, format.name(), None, metas, comp_names(comps), &[], &[]);
                let full = check::check_entry(&self.entry, at);
                assert_eq!(verdict.as_ref().err().map(Error::kind), full.as_ref().err().map(Error::kind), "check_new and check_entry disagree on {:?}", obj.name);
            }
            verdict.map_err(relocate)?;
        } else {
            self.entry.clear();
            enc::object(&mut self.entry, obj.name, obj.shape, format.name(), attrs, metas, comp_names(comps), &[], &[]);
            check::check_entry(&self.entry, at).map_err(relocate)?;
        }
        let Some(slot) = self.names.vacancy(h, obj.name) else {
            return Err(Error::new(ErrorKind::DuplicateKey));
        };

        self.header()?;
        let mut kept_raw = 0;
        for (c, meta) in comps.iter_mut().zip(metas.iter_mut()) {
            self.pad()?;
            meta.offset = self.pos;
            let comp = c.compression.unwrap_or(compression);
            let sum = c.checksum.unwrap_or(checksum);
            let declared = c.data.len();
            let (length, digest, encoding) = match comp {
                Compression::ZstdIfSmaller(level) => self.blob_if_smaller(&mut c.data, level, sum),
                _ => self.blob(&mut c.data, comp, sum).map(|(l, d)| (l, d, comp)),
            }
            .map_err(|e| e.in_component(&c.role))?;
            meta.length = length;
            meta.digest = digest;
            meta.zstd_len = matches!(encoding, Compression::Zstd(_)).then_some(declared);
            kept_raw += (comp != Compression::Raw && encoding == Compression::Raw) as u64;
        }
        enc::object(&mut self.entries, obj.name, obj.shape, format.name(), attrs, metas, comp_names(comps), &[], &[]);
        self.names.insert_at(slot, h, obj.name);
        self.count += 1;
        self.kept_raw += kept_raw;
        Ok(())
    }

    /// Write one blob; returns its stored length and digest.
    fn blob(&mut self, data: &mut Data<'_>, comp: Compression, sum: Checksum) -> Result<(u64, Option<String>)> {
        let declared = data.len();
        if let (Compression::Raw, Repr::Bytes(b)) = (comp, &data.0) {
            // Bytes in memory, stored as they are: one write.
            let mut hasher = PartDigest::new(sum.hasher());
            hasher.update(b);
            self.put(b)?;
            return Ok((declared, hasher.finish()));
        }
        let mut slice;
        let src: &mut dyn Pull = match &mut data.0 {
            Repr::Bytes(b) => {
                slice = Slice { b: &b[..] };
                &mut slice
            }
            Repr::Stream { src, .. } => &mut **src,
        };
        let mut hasher = PartDigest::new(sum.hasher());
        let (mut stored, start) = (0u64, self.pos);
        let decoded = {
            let (sink, broken, pos) = (&mut self.sink, &mut self.broken, &mut self.pos);
            let mut out = |b: &[u8]| -> Result<()> {
                if let Err(e) = sink.write_all(b) {
                    *broken = true;
                    return Err(e);
                }
                hasher.update(b);
                *pos += b.len() as u64;
                stored += b.len() as u64;
                Ok(())
            };
            match comp {
                Compression::Raw => copy(src, declared, &mut out),
                Compression::Zstd(level) | Compression::ZstdIfSmaller(level) => {
                    zstd::compress(level, src, declared, &mut out)
                }
            }
        };
        #[cfg(feature = "std")]
        if let Some(e) = src.take_io_error() {
            self.io_error = Some(e);
        }
        let decoded = decoded?;
        if decoded != declared {
            return Err(Error::new(ErrorKind::LengthMismatch { expected: declared, actual: decoded }));
        }
        debug_assert_eq!(self.pos - start, stored);
        Ok((stored, hasher.finish()))
    }
}

impl<S: Sink> Writer<S> {
    /// Write one blob with [`Compression::ZstdIfSmaller`]: the zstd frame,
    /// built in memory, if it is smaller than the raw bytes, else the raw
    /// bytes. Returns the stored length, the digest and the encoding used.
    fn blob_if_smaller(&mut self, data: &mut Data<'_>, level: i32, sum: Checksum) -> Result<(u64, Option<String>, Compression)> {
        let declared = data.len();
        let mut whole = Vec::new();
        let raw: &[u8] = match &mut data.0 {
            Repr::Bytes(b) => b,
            Repr::Stream { src, .. } => {
                let n = copy(&mut **src, declared, &mut |b| {
                    whole.extend_from_slice(b);
                    Ok(())
                });
                #[cfg(feature = "std")]
                if let Some(e) = src.take_io_error() {
                    self.io_error = Some(e);
                }
                let n = n?;
                if n != declared {
                    return Err(Error::new(ErrorKind::LengthMismatch { expected: declared, actual: n }));
                }
                &whole
            }
        };
        let (mut frame, mut larger) = (Vec::new(), false);
        let r = zstd::compress(level, &mut Slice { b: raw }, declared, &mut |b| {
            if (frame.len() + b.len()) as u64 >= declared {
                // Not smaller: stop compressing.
                larger = true;
                return Err(Error::new(ErrorKind::Io));
            }
            frame.extend_from_slice(b);
            Ok(())
        });
        let (stored, used) = match r {
            Ok(_) => (&frame[..], Compression::Zstd(level)),
            Err(_) if larger => (raw, Compression::Raw),
            Err(e) => return Err(e),
        };
        let mut hasher = PartDigest::new(sum.hasher());
        hasher.update(stored);
        self.put(stored)?;
        Ok((stored.len() as u64, hasher.finish(), used))
    }

    /// Components of the objects added so far that
    /// [`Compression::ZstdIfSmaller`] stored raw because zstd would not
    /// have made them smaller.
    pub fn kept_raw(&self) -> u64 {
        self.kept_raw
    }
}

/// An object's own fields as [`Writer::add_parts`] takes them (its
/// components, encoding and digest defaults are passed beside).
struct Parts<'o> {
    name: &'o str,
    format: Format<'o>,
    shape: &'o [u64],
    /// Encoded attributes map, if any.
    attrs: Option<&'o [u8]>,
}

/// Role and logical type of component `i`, for [`enc::object`].
fn comp_names<'c>(comps: &'c [NewComponent<'_>]) -> impl Fn(usize) -> (&'c str, Option<&'c str>) {
    move |i| (&comps[i].role, comps[i].logical.as_ref().map(|t| t.name()))
}

/// Raw copy of at most `limit` bytes; returns the bytes copied.
pub(super) fn copy(src: &mut dyn Pull, limit: u64, out: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<u64> {
    let mut total = 0u64;
    loop {
        let b = src.fill()?;
        if b.is_empty() {
            return Ok(total);
        }
        let n = b.len();
        if total + n as u64 > limit {
            return Err(Error::new(ErrorKind::LengthMismatch { expected: limit, actual: total + n as u64 }));
        }
        out(b)?;
        src.consume(n);
        total += n as u64;
    }
}

/// Validate a manifest as if it followed `data_end` bytes of header and blobs.
fn parse_detached(m: &[u8], data_end: u64) -> Result<()> {
    let len = m.len() as u64;
    let file_len = data_end.checked_add(len + FOOTER_LEN).ok_or(Error::new(ErrorKind::ShapeOverflow))?;
    let tail = Tail { layout: Layout::V1, file_len, manifest_offset: data_end, manifest_len: len };
    File::parse_manifest(m, tail, None).map(drop)
}

/// Drop the manifest offset of an error found in a provisional manifest:
/// it points into bytes the caller never sees.
fn relocate(e: Error) -> Error {
    let mut out = Error::new(e.kind());
    if let Some(o) = e.object() {
        out = out.in_object(o.as_str());
    }
    if let Some(r) = e.role() {
        out = out.in_component(r.as_str());
    }
    out
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
