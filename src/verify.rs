//! Whole-file verification, O(data): every digest and every data rule
//! ([`Object::check_data`]), from memory or through a positional [`Source`].
//!
//! One implementation for every caller: the `zt verify` command and the C
//! ABI's `zt_verify` call [`File::verify_with`] / [`File::verify_from`]
//! (through `fs::Reader::verify_with`, which adds v2 shards' whole-file
//! digests), and each component goes through one per-part check (`part`),
//! the one [`Component::verify_digest`] and `zt_component_verify` make too.

use crate::check::{component_data, format_data, in_memory, Stored};
use crate::digest::{Digest, Verified};
use crate::error::{Error, ErrorKind, Result};
use crate::file::File;
use crate::object::{Component, Object};

/// Bytes read and hashed at a time when verifying a raw v2 part by position.
#[cfg(feature = "alloc")]
const PIECE: u64 = 1 << 20;

/// How [`File::verify_from`] reaches the v2 parts it does not hold in
/// memory (positional sources, parts in shards): by position, a piece or a
/// part's encoded bytes at a time, never a buffer of a part's decoded size.
#[cfg_attr(not(feature = "std"), allow(dead_code))] // built by `verify_from` only
pub(crate) struct Positional<'r, 'a> {
    /// Whether the component's stored bytes are read by position.
    pub by_position: &'r dyn Fn(&Component<'a>) -> bool,
    /// The component's stored bytes at `offset` (in its stored bytes) into `out`.
    pub read: ReadAt<'r, 'a>,
}

/// Reads a component's stored bytes at an offset (in its stored bytes).
pub(crate) type ReadAt<'r, 'a> = &'r dyn Fn(&Component<'a>, u64, &mut [u8]) -> Result<()>;

/// Where [`part`] finds a component's stored bytes.
pub(crate) enum Bytes<'s> {
    /// All in memory.
    Memory(&'s [u8]),
    /// v2: the part's decoded bytes, already produced (a read's output):
    /// checked as they are, not decoded again.
    Decoded(&'s [u8]),
    /// Read by position: `read(offset in the stored bytes, out)`.
    #[cfg(feature = "alloc")]
    At(&'s dyn Fn(u64, &mut [u8]) -> Result<()>),
}

impl Bytes<'_> {
    /// All the stored bytes of `c`.
    #[cfg_attr(not(feature = "alloc"), allow(unused_variables))]
    fn whole(&self, c: &Component<'_>) -> Result<Stored<'_>> {
        match self {
            // (v1.x callers never hand `Decoded`: their digests cover the stored bytes.)
            Bytes::Memory(b) | Bytes::Decoded(b) => Ok(Stored::Borrowed(b)),
            #[cfg(feature = "alloc")]
            Bytes::At(read) => {
                let mut v = alloc::vec![0u8; c.length() as usize];
                read(0, &mut v)?;
                Ok(Stored::Owned(v))
            }
        }
    }
}

/// One component's check, the same whoever asks ([`File::verify_with`],
/// [`File::verify_from`], [`Component::verify_digest`],
/// `fs::Reader::verify_digest`, and through them `zt_verify`,
/// `zt_component_verify` and `zt verify`), so they cannot disagree:
/// - v1.x (and v0.1): the digest over the stored bytes (v1.2 spec,
///   "Digests");
/// - v2: the decoded bytes, produced piece by piece (a raw part's bytes, a
///   `zt.zstd-seekable/1` part's frames one at a time), against
///   `decoded_length`, the logical type's byte rules (Appendix A) and the
///   digest (§6.3: over the decoded bytes): memory bounded by one frame.
///
/// With `options.digests` off, no digest is checked (v2 parts are still
/// decoded when `options.data` is on). `Verified::NoDigest` when no digest
/// was checked; `Verified::Unverifiable` for a digest of an unknown
/// algorithm or, in v2, a part of an unknown encoding. A mismatch is
/// [`ErrorKind::DigestMismatch`] naming the algorithm and the bytes it covers.
pub(crate) fn part(c: &Component<'_>, options: Options, bytes: Bytes<'_>) -> Result<Verified> {
    match c.v2_part() {
        Some(p) => decoded_part(c, p, options, bytes),
        None if options.digests => stored_digest(c, bytes),
        None => Ok(Verified::NoDigest),
    }
}

/// v1.x: the digest over the stored bytes.
fn stored_digest(c: &Component<'_>, bytes: Bytes<'_>) -> Result<Verified> {
    let Some(d) = c.digest() else {
        return Ok(Verified::NoDigest);
    };
    let d = Digest::parse(d).map_err(|e| e.in_component(c.role()))?;
    let what = match d {
        Digest::Sha256(_) => "sha256 of the stored bytes",
        Digest::Crc32c(_) => "crc32c of the stored bytes",
        Digest::Xxh3(_) => "xxh3 of the stored bytes",
        Digest::Unknown { .. } => return Ok(Verified::Unverifiable),
    };
    match d.matches(bytes.whole(c)?.get()) {
        Some(true) => Ok(Verified::Ok),
        _ => Err(c.error(ErrorKind::DigestMismatch).with_value(what)),
    }
}

/// v2: the decoded bytes against `decoded_length`, byte rules and digest.
fn decoded_part(c: &Component<'_>, mut p: crate::v2::Part<'_>, options: Options, bytes: Bytes<'_>) -> Result<Verified> {
    use crate::types::Encoding;
    #[cfg(feature = "alloc")]
    use crate::v2::verify::Pieces;
    use crate::v2::Digest as V2Digest;
    if !options.digests {
        p.digest = None;
    }
    if c.encoding() == Encoding::Unknown {
        // Nothing of it can be checked: not its length, not its digest.
        return Ok(if options.digests || options.data { Verified::Unverifiable } else { Verified::NoDigest });
    }
    let other = matches!(p.digest, Some(V2Digest::Unknown { .. }));
    if !options.data && (p.digest.is_none() || other) {
        return Ok(if other { Verified::Unverifiable } else { Verified::NoDigest });
    }
    let what = match p.digest {
        Some(V2Digest::Sha256(_)) => "sha256 of the decoded bytes",
        _ => "xxh3 of the decoded bytes",
    };
    let named = |e: crate::v2::Error| {
        let e = Error::from(e).in_component(c.role());
        if e.kind() == ErrorKind::DigestMismatch {
            e.with_value(what)
        } else {
            e
        }
    };
    // The element count `f4_e2m1`'s final-nibble rule needs (data rules only).
    let n = c.v2_ref().and_then(|v| v.elements).filter(|_| options.data);
    let checked = match (c.encoding(), &bytes) {
        (Encoding::Raw, Bytes::Memory(b)) | (_, Bytes::Decoded(b)) => crate::v2::verify::part(&p, n, b).map_err(named)?,
        #[cfg(feature = "alloc")]
        (Encoding::Raw, Bytes::At(read)) => {
            let mut h = Pieces::new(&p, n);
            let (len, mut at) = (c.length(), 0u64);
            let mut buf = alloc::vec![0u8; PIECE.min(len) as usize];
            while at < len {
                let k = PIECE.min(len - at) as usize;
                read(at, &mut buf[..k])?;
                h.update(&buf[..k]).map_err(named)?;
                at += k as u64;
            }
            h.finish(p.decoded_size()).map_err(named)?
        }
        #[cfg(feature = "alloc")]
        (Encoding::ZstdSeekable, _) => {
            let encoded = bytes.whole(c)?;
            let mut h = Pieces::new(&p, n);
            crate::v2::seekable::for_each_frame(encoded.get(), p.decoded_size(), |d| h.update(d)).map_err(named)?;
            h.finish(p.decoded_size()).map_err(named)?
        }
        _ => return Err(c.error(ErrorKind::Unsupported { what: "zstd decoding needs the `alloc` feature" })),
    };
    Ok(match (checked, other) {
        (true, _) => Verified::Ok,
        (false, true) => Verified::Unverifiable,
        (false, false) => Verified::NoDigest,
    })
}

/// What a verification checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Every component's digest: over its stored bytes in v1.x, over its
    /// decoded bytes in v2.
    pub digests: bool,
    /// The data rules: every component decodes to its declared length, CSR
    /// and COO indices are in range, bool bytes are 0 or 1.
    pub data: bool,
    /// A digest whose algorithm this library does not know is a problem
    /// ([`ErrorKind::UnverifiableDigest`]), not only a count in the report.
    /// On by default ([`Options::ALL`]): a file with a part that could not
    /// be checked is never reported as verified. `false` (see
    /// [`Options::allow_unverifiable`]) makes such digests a count and a
    /// [`Finding::Unverifiable`] only.
    pub strict: bool,
}

impl Options {
    /// Digests and data rules, strict: an unknown digest algorithm is a problem.
    pub const ALL: Options = Options { digests: true, data: true, strict: true };

    /// Digests only (a component's check as it is loaded:
    /// [`Component::verify_digest`]); unknown algorithms are not problems.
    pub const DIGESTS: Options = Options { digests: true, data: false, strict: false };

    /// These options with unverifiable digests allowed: counted in
    /// [`Report::unverifiable`] and handed over as [`Finding::Unverifiable`],
    /// but not problems.
    ///
    /// ```
    /// let o = ztensor::verify::Options::ALL.allow_unverifiable();
    /// assert!(!o.strict && o.digests && o.data);
    /// ```
    pub const fn allow_unverifiable(self) -> Options {
        Options { strict: false, ..self }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options::ALL
    }
}

/// One thing a verification found, handed to the caller's callback as found.
#[derive(Clone, Copy, Debug)]
pub enum Finding<'r, 'a> {
    /// Something is wrong; the error names the object and component.
    Problem(Error),
    /// A digest whose algorithm is unknown: not checked (also a
    /// [`Finding::Problem`], [`ErrorKind::UnverifiableDigest`], unless
    /// [`Options::allow_unverifiable`]).
    Unverifiable {
        /// The object.
        object: &'r Object<'a>,
        /// The component whose digest could not be checked.
        component: &'r Component<'a>,
    },
}

/// What a verification did and found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Objects looked at.
    pub objects: usize,
    /// Components looked at.
    pub components: usize,
    /// Digests that were checked and matched.
    pub digests_checked: usize,
    /// Digests whose algorithm is unknown (not checked).
    pub unverifiable: usize,
    /// Problems found (unverifiable digests are among them, unless allowed).
    pub problems: usize,
    /// The first problem found.
    pub first_problem: Option<Error>,
}

impl Report {
    /// Whether nothing is wrong.
    pub fn is_ok(&self) -> bool {
        self.problems == 0
    }

    pub(crate) fn problem<'a>(&mut self, e: Error, on: &mut impl FnMut(Finding<'_, 'a>)) {
        self.problems += 1;
        self.first_problem.get_or_insert(e);
        on(Finding::Problem(e));
    }

    /// Count what [`part`] found for `c` of `o`, and hand it over.
    pub(crate) fn tally<'a>(
        &mut self,
        o: &Object<'a>,
        c: &Component<'a>,
        options: Options,
        found: Result<Verified>,
        on: &mut impl FnMut(Finding<'_, 'a>),
    ) {
        match found {
            Ok(Verified::Ok) => self.digests_checked += 1,
            Ok(Verified::NoDigest) => {}
            Ok(Verified::Unverifiable) => {
                self.unverifiable += 1;
                on(Finding::Unverifiable { object: o, component: c });
                if options.strict {
                    self.problem(c.error(ErrorKind::UnverifiableDigest).in_object(o.name()), on);
                }
            }
            Err(e) => self.problem(e.in_object(o.name()), on),
        }
    }
}

/// Where a verification reads component bytes: the one positional-read
/// trait, [`crate::source::Source`].
#[cfg(feature = "std")]
pub use crate::source::Source;

impl<'a> File<'a> {
    /// Deep check of the whole file held in memory: every digest and every
    /// object's data ([`Object::check_data`]), as `options` say. Calls `on`
    /// once per [`Finding`]; the report counts them.
    ///
    /// ```
    /// # let bytes = ztensor::doc_example_file();
    /// let file = ztensor::File::parse(bytes).unwrap();
    /// let report = file.verify_with(ztensor::verify::Options::ALL, |f| eprintln!("{f:?}"));
    /// assert!(report.is_ok());
    /// assert_eq!((report.objects, report.components, report.unverifiable), (2, 2, 0));
    /// ```
    pub fn verify_with(&self, options: Options, on: impl FnMut(Finding<'_, 'a>)) -> Report {
        self.run(options, &in_memory, on)
    }

    /// [`File::verify_with`] reading component bytes from `source`: for a
    /// file opened from its tail alone (positional reads), or any file whose
    /// bytes are elsewhere. `source` must hold the file this one was parsed
    /// from.
    #[cfg(feature = "std")]
    pub fn verify_from<S: Source + ?Sized>(
        &self,
        source: &S,
        options: Options,
        on: impl FnMut(Finding<'_, 'a>),
    ) -> Report {
        let load = |c: &Component<'a>| -> Result<Stored<'_>> {
            let len = c.length();
            match source.bytes().filter(|_| c.shard().is_none()) {
                Some(b) => {
                    let end = c.offset().checked_add(len).filter(|&e| e <= b.len() as u64);
                    let end = end.ok_or_else(|| {
                        c.error(ErrorKind::OutOfBounds { offset: c.offset(), length: len, limit: b.len() as u64 })
                    })?;
                    Ok(Stored::Borrowed(&b[c.offset() as usize..end as usize]))
                }
                None => {
                    let mut v = alloc::vec![0u8; len as usize];
                    source.read_component_at(c, 0, &mut v).map_err(|e| e.in_component(c.role()))?;
                    Ok(Stored::Owned(v))
                }
            }
        };
        // v2 parts not in memory are checked as they are read (`part`).
        let by_position = |c: &Component<'a>| source.bytes().is_none() || c.shard().is_some();
        let read = |c: &Component<'a>, offset: u64, out: &mut [u8]| {
            source.read_component_at(c, offset, out).map_err(|e| e.in_component(c.role()))
        };
        let positional = Positional { by_position: &by_position, read: &read };
        self.run_with(options, &load, Some(&positional), on)
    }

    /// Deep check of the whole file: every digest and every object's data
    /// ([`Object::check_data`]). Calls `problem` once per problem found. A
    /// digest of an unknown algorithm is reported through `unverifiable`
    /// *and* as a problem ([`ErrorKind::UnverifiableDigest`]): a file with a
    /// part that could not be checked is not verified. Returns the number of
    /// problems. [`File::verify_with`] is the same with options (among them
    /// [`Options::allow_unverifiable`]) and a [`Report`].
    pub fn verify(
        &self,
        mut problem: impl FnMut(Error),
        mut unverifiable: impl FnMut(&Object<'a>, &Component<'a>),
    ) -> usize {
        self.verify_with(Options::ALL, |f| match f {
            Finding::Problem(e) => problem(e),
            Finding::Unverifiable { object, component } => unverifiable(object, component),
        })
        .problems
    }

    fn run<'s>(
        &self,
        opt: Options,
        load: &impl Fn(&Component<'a>) -> Result<Stored<'s>>,
        on: impl FnMut(Finding<'_, 'a>),
    ) -> Report {
        self.run_with(opt, load, None, on)
    }

    fn run_with<'s>(
        &self,
        opt: Options,
        load: &impl Fn(&Component<'a>) -> Result<Stored<'s>>,
        positional: Option<&Positional<'_, 'a>>,
        mut on: impl FnMut(Finding<'_, 'a>),
    ) -> Report {
        if let Some(m) = self.v2() {
            return self.run_v2(m, opt, load, positional, on);
        }
        let mut r = Report::default();
        for o in self.objects() {
            r.objects += 1;
            // The object's first data problem, reported after its digests.
            let mut data_err = None;
            for c in o.components() {
                r.components += 1;
                component(&o, &c, opt, load, &mut data_err, &mut r, &mut on);
            }
            if opt.data {
                if let Some(e) = data_err.or_else(|| format_data(&o, load).err()) {
                    r.problem(e, &mut on);
                }
            }
        }
        r
    }
}

/// The checks of one component in [`File::verify_with`]'s loop (out of line
/// without `alloc`: inlined, its views and errors added to the loop's frame).
#[cfg_attr(not(feature = "alloc"), inline(never))]
fn component<'a, 's>(
    o: &Object<'a>,
    c: &Component<'a>,
    opt: Options,
    load: &impl Fn(&Component<'a>) -> Result<Stored<'s>>,
    data_err: &mut Option<Error>,
    r: &mut Report,
    on: &mut impl FnMut(Finding<'_, 'a>),
) {
    let in_obj = |e: Error| e.in_object(o.name());
    let digest = opt.digests && c.digest().is_some();
    let data = opt.data && data_err.is_none();
    if !digest && !data {
        return;
    }
    let stored = match load(c) {
        Ok(s) => s,
        Err(e) => {
            if digest {
                // A malformed digest is named before unreadable bytes.
                let parsed = Digest::parse(c.digest().unwrap_or("")).map_err(|p| p.in_component(c.role()));
                r.problem(in_obj(parsed.err().unwrap_or(e)), on);
            }
            if data {
                *data_err = Some(in_obj(e));
            }
            return;
        }
    };
    let view = c.with_stored(stored.get());
    if digest {
        let digest_only = Options { data: false, ..opt };
        r.tally(o, c, opt, part(c, digest_only, Bytes::Memory(stored.get())), on);
    }
    if data {
        *data_err = component_data(o, &view).err();
    }
}
