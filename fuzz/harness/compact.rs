//! The compact reader (`ztensor::compact`) against the full one
//! (`ztensor::File`): the same files opened and refused (by status class),
//! the same views, the same verification reports.
//!
//! Used by the `compact` fuzz target (through `harness::compact`) and by
//! `tests/compact.rs`, which includes this file alone with `#[path]`: it
//! needs nothing but `ztensor`, in any of its builds (`differential`'s
//! `alloc` says which).
//!
//! What is compared, for any bytes:
//! - opening with ample slots: both open, or both refuse with the same
//!   status class (the full reader's `ErrorKind` mapped as the C ABI's
//!   `status_of` does at open) and the same first error, its kind and
//!   manifest byte ([`same_first_error`]); v0.1 files (which the full reader reads)
//!   are refused by the compact reader as `Unsupported`, and so are v2
//!   sharded files and data shards that the full reader opens (and v2
//!   files in a build without `v2`);
//! - opening with 0, 1 and 8 slots: without `alloc`, the same outcome as
//!   `File::parse_with_scratch` with as many entries; with `alloc` the full
//!   reader takes the heap for what does not fit the caller's scratch (it
//!   opens every fixture with none), so there the compact reader with few
//!   slots must open, refuse as with ample slots, or want more slots
//!   (`BufferTooSmall`); when it opens, its views (then without the name
//!   index when the objects are more than the slots) are compared;
//! - for opened files: version, manifest position, root attributes, every
//!   object (name, shape, format, attributes, components with their
//!   fields and stored bytes), `object(i)`, `find` (present and absent
//!   names), with and without the name index;
//! - `verify` with all checks (strict, the default), digests only, data
//!   only, and all checks allowing unverifiable digests: the
//!   report's counts and the status class of its first problem.
//!
//! Built without `v1-legacy` (the firmware's compact reader
//! reads v1.2 only), v1.0 and v1.1 files must be refused as unsupported
//! (`Kind::Version`) instead.
//!
//! v2 files: their verification is compared with `File::verify_with`'s
//! directly, except for files with a `zt.zstd-seekable/1` part read with
//! `alloc` (the full reader decodes them, the compact one reports each
//! such part as `Unsupported`): there only the object and part counts
//! are compared.
//!
//! zstd: the compact reader does not decode zstd data; with data checks
//! it reports such an object's data as `Unsupported` (what the full reader
//! built without `alloc` says). For files with a zstd component the
//! expected report is therefore the full reader's findings object by
//! object, with each zstd object's data finding taken as the no-`alloc`
//! rule gives it (its first raw bool component with a byte over 1, else
//! `Unsupported`): see [`expected_report`]. That model is itself checked
//! against `File::verify_with` on every file without zstd (and, without
//! `alloc`, on every file: that build's full reader is compared directly).
#![allow(dead_code)]

use std::fmt::Write as _;
use ztensor::compact::{self, Status};
use ztensor::digest::Verified;
use ztensor::verify::{Options, Report};
use ztensor::{DType, Encoding, ErrorKind, File, Layout, Map, Tail};

/// The status class of a refusal or problem (the C ABI's statuses, with
/// the ones the compact reader never gives folded into `Other`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Format,
    Unsupported,
    BufferTooSmall,
    DigestMismatch,
    CorruptData,
    /// Not found, not zero-copy, I/O, invalid argument.
    Other,
}

/// The class of a full-reader error kind, as `ffi/src/guard.rs`
/// `status_of` maps it (`data`: `Phase::Data`, else `Phase::Open`).
pub fn class_of(kind: ErrorKind, data: bool) -> Class {
    use ErrorKind::*;
    match kind {
        NotFound => Class::Other,
        BufferTooSmall { .. } | ScratchTooSmall { .. } => Class::BufferTooSmall,
        NotZeroCopy { .. } => Class::Other,
        DigestMismatch => Class::DigestMismatch,
        Decompress | ZstdChecksum | DecodedTooLarge { .. } | BadData { .. } => Class::CorruptData,
        LengthMismatch { .. } if data => Class::CorruptData,
        Io => Class::Other,
        UnsupportedVersion { .. } | Unsupported { .. } | NoData | UnverifiableDigest => Class::Unsupported,
        TypeMismatch | RangeOutOfBounds { .. } => Class::Other,
        _ => Class::Format,
    }
}

/// The compact kinds that may report what the full reader calls `kind`
/// (several full kinds share one compact kind; a few have more, where the
/// compact pass names the rule and the full reader the field: an
/// indefinite text as a field of the wrong type, a v1 `type` on the wrong
/// dtype or a bad `quantized_group` attribute as a wrong field). Empty for the kinds the pass never reports (data, I/O, API).
pub fn fault_kinds(kind: ErrorKind) -> &'static [compact::Kind] {
    use compact::Kind as K;
    use ErrorKind::*;
    match kind {
        FileTooSmall { .. } | BadMagic | MagicMismatch | ManifestTooLarge { .. } | ManifestOutOfBounds { .. }
        | ManifestLengthMismatch { .. } | BadDataShardFooter => &[K::Container],
        CborEof | CborInvalid | LengthTooLarge { .. } => &[K::Cbor],
        CborBadIndefinite => &[K::Cbor, K::WrongType],
        CborInvalidUtf8 => &[K::Utf8],
        TrailingBytes { .. } => &[K::Trailing],
        TooDeep => &[K::Deep],
        DuplicateKey => &[K::DuplicateKey],
        IndefiniteText => &[K::WrongType],
        MissingField { .. } => &[K::Missing],
        WrongType { .. } => &[K::WrongType, K::QuantAttribute, K::LogicalType],
        BadVersion => &[K::BadVersion],
        UnsupportedVersion { .. } => &[K::Version, K::Generation],
        EmptyName => &[K::EmptyName],
        UnknownDType => &[K::DType],
        UnknownEncoding => &[K::Encoding],
        Misaligned { .. } | BlobMisaligned => &[K::Misaligned],
        OutOfBounds { .. } | BlobOutOfBounds | BlobBelowFloor => &[K::OutOfBounds],
        Overlap { .. } | BlobOverlap => &[K::Overlap],
        ShapeOverflow => &[K::Overflow],
        LengthMismatch { .. } | SizeMismatch => &[K::Length],
        PartialElement { .. } => &[K::PartialElement],
        MissingUncompressedLength | EncodingLengthPair => &[K::NoDecodedSize],
        MissingComponent { .. } | LayoutParts { .. } | EmptyParts => &[K::MissingComponent],
        IndexDType => &[K::IndexDType],
        BadShape => &[K::Shape, K::Layout],
        CountMismatch { .. } => &[K::Count],
        ScratchTooSmall { .. } => &[K::Slots],
        ManifestHashMismatch => &[K::ManifestHash],
        NotDeterministic { .. } => &[K::NotDeterministic, K::Cbor],
        BadName | BadShardName => &[K::Name],
        RankTooLarge => &[K::Rank],
        LogicalTypeDtype => &[K::LogicalType],
        LayoutPartType | LayoutAttribute { .. } => &[K::Layout],
        UnknownShard | BadShardSize | ShardMismatch | ShardMissing => &[K::Shard],
        BadDigest => &[K::BadDigest],
        Seekable { .. } => &[K::Seekable],
        DecodedLength => &[K::DecodedLength],
        _ => &[],
    }
}

/// Whether a refusal of both readers is the same first error: a compact
/// kind `fault_kinds` allows, at the full reader's manifest byte when it
/// names one. Three rules point elsewhere by design: an overlap at the
/// component map (the full reader: the blob's span), a quantization
/// attribute at its object, and a duplicate object name at its first
/// occurrence (the full reader: the second, or the first when it sorts).
pub fn same_first_error(e: &ztensor::Error, f: &compact::Fault) -> bool {
    use compact::Kind as K;
    let kinds = fault_kinds(e.kind());
    if kinds.is_empty() || !kinds.contains(&f.kind) {
        return kinds.is_empty();
    }
    match e.manifest_offset() {
        None => true,
        Some(_) if matches!(f.kind, K::Overlap | K::QuantAttribute | K::DuplicateKey) => true,
        Some(at) => at == u64::from(f.at),
    }
}

/// The class of a compact status.
pub fn class_fault(s: Status) -> Class {
    match s {
        Status::Format => Class::Format,
        Status::Unsupported => Class::Unsupported,
        Status::BufferTooSmall => Class::BufferTooSmall,
        Status::DigestMismatch => Class::DigestMismatch,
        Status::CorruptData => Class::CorruptData,
    }
}

/// The verification options compared.
pub const OPTIONS: [(&str, Options); 4] = [
    ("all", Options::ALL),
    ("allow-unverifiable", Options::ALL.allow_unverifiable()),
    ("digests-only", Options { digests: true, data: false, strict: false }),
    ("data-only", Options { digests: false, data: true, strict: false }),
];

/// Slot counts of the few-slot comparison.
pub const FEW: [usize; 3] = [0, 1, 8];

/// Slots that are always enough: the pass uses at most one per manifest
/// item, and every item takes at least a byte.
pub fn ample(bytes: &[u8]) -> usize {
    bytes.len() + 64
}

/// A verification report reduced to what both readers give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sum {
    pub objects: usize,
    pub components: usize,
    pub digests_checked: usize,
    pub unverifiable: usize,
    pub problems: usize,
    pub first: Option<Class>,
    /// The first problem in words (not compared).
    pub detail: String,
}

impl Sum {
    fn same(&self, o: &Sum) -> bool {
        (self.objects, self.components, self.digests_checked, self.unverifiable, self.problems, self.first)
            == (o.objects, o.components, o.digests_checked, o.unverifiable, o.problems, o.first)
    }
}

pub fn sum_full(r: &Report) -> Sum {
    Sum {
        objects: r.objects,
        components: r.components,
        digests_checked: r.digests_checked,
        unverifiable: r.unverifiable,
        problems: r.problems,
        first: r.first_problem.map(|e| class_of(e.kind(), true)),
        detail: r.first_problem.map(|e| format!("{e} ({:?})", e.kind())).unwrap_or_default(),
    }
}

pub fn sum_compact(r: &compact::Report) -> Sum {
    Sum {
        objects: r.objects,
        components: r.components,
        digests_checked: r.digests_checked,
        unverifiable: r.unverifiable,
        problems: r.problems,
        first: r.first.map(|f| class_fault(f.status())),
        detail: r.first.map(|f| format!("{f} ({:?})", f.kind)).unwrap_or_default(),
    }
}

/// Whether any component of the file is zstd.
pub fn has_zstd(f: &File<'_>) -> bool {
    f.objects().any(|o| o.components().any(|c| c.encoding() != Encoding::Raw))
}

/// What the compact reader's `verify` must report: `File::verify_with`'s
/// findings rebuilt object by object from the full reader's API, where an
/// object with a zstd component has, for data, the no-`alloc` rule's
/// finding (see the module docs).
pub fn expected_report(f: &File<'_>, opt: Options) -> Sum {
    let mut s = Sum { objects: 0, components: 0, digests_checked: 0, unverifiable: 0, problems: 0, first: None, detail: String::new() };
    let problem = |s: &mut Sum, class: Class, detail: String| {
        s.problems += 1;
        if s.first.is_none() {
            s.first = Some(class);
            s.detail = detail;
        }
    };
    for o in f.objects() {
        s.objects += 1;
        let zstd = o.components().any(|c| c.encoding() != Encoding::Raw);
        let mut data_err: Option<(Class, String)> = None;
        for c in o.components() {
            s.components += 1;
            if opt.digests && c.digest().is_some() {
                match c.verify_digest() {
                    Ok(Verified::Ok) => s.digests_checked += 1,
                    Ok(Verified::NoDigest) => {}
                    Ok(Verified::Unverifiable) => {
                        s.unverifiable += 1;
                        if opt.strict {
                            problem(&mut s, Class::Unsupported, format!("{}/{}: unverifiable digest", o.name(), c.role()));
                        }
                    }
                    Err(e) => problem(&mut s, class_of(e.kind(), true), format!("{e} ({:?})", e.kind())),
                }
            }
            if opt.data && zstd && data_err.is_none() {
                let stored = c.stored_bytes().unwrap_or(&[]);
                data_err = match c.encoding() {
                    Encoding::Raw if c.dtype() == DType::Bool && stored.iter().any(|&b| b > 1) => {
                        Some((Class::CorruptData, format!("{}/{}: bool byte over 1", o.name(), c.role())))
                    }
                    Encoding::Raw => None,
                    _ => Some((Class::Unsupported, format!("{}/{}: zstd not decoded", o.name(), c.role()))),
                };
            }
        }
        if opt.data {
            if !zstd {
                data_err = o.check_data().err().map(|e| (class_of(e.kind(), true), format!("{e} ({:?})", e.kind())));
            }
            if let Some((class, detail)) = data_err {
                problem(&mut s, class, detail);
            }
        }
    }
    s
}

/// A map as (key position, key bytes, value position, value bytes).
fn entries(m: &Map<'_>) -> Vec<(usize, Vec<u8>, usize, Vec<u8>)> {
    m.iter().map(|(k, v)| (k.manifest_offset(), k.raw().to_vec(), v.manifest_offset(), v.raw().to_vec())).collect()
}

/// Collects the differences found in one comparison.
#[derive(Default)]
struct Diffs(String);

impl Diffs {
    fn eq<T: PartialEq + std::fmt::Debug>(&mut self, what: impl std::fmt::Display, full: T, compact: T) {
        if full != compact && self.0.len() < 4000 {
            let _ = writeln!(self.0, "  {what}: full {full:?}, compact {compact:?}");
        }
    }
}

/// A component's fields, as both readers give them.
type Comp<'a> = (&'a str, DType, Option<ztensor::LogicalType<'a>>, Encoding, u64, u64, Option<u64>, Option<&'a str>);

/// Compare every view of `c` with `f`'s. `budget`: how many `object(i)` /
/// `find` calls to make (all objects when they are fewer; scans without
/// the name index are O(n) each).
fn views(f: &File<'_>, c: &compact::File<'_>, budget: usize, d: &mut Diffs) {
    d.eq("object count", f.len(), c.len());
    d.eq("is_empty", f.is_empty(), c.is_empty());
    d.eq("version", f.version(), c.version());
    d.eq("manifest (offset, length)", (f.tail().manifest_offset, f.tail().manifest_len), c.manifest());
    d.eq("root attributes", entries(&f.attributes()), entries(&c.attributes()));
    d.eq("root attributes len", f.attributes().len(), c.attributes().len());
    let mut n = 0;
    for (i, (fo, co)) in f.objects().zip(c.objects()).enumerate() {
        n += 1;
        let name = fo.name();
        d.eq(format_args!("object {i}: name"), name, co.name());
        d.eq(format_args!("{name:?}: shape"), fo.shape().dims().collect::<Vec<_>>(), co.shape().dims().collect::<Vec<_>>());
        d.eq(format_args!("{name:?}: ndim"), fo.shape().ndim(), co.shape().ndim);
        d.eq(format_args!("{name:?}: numel"), fo.shape().numel(), co.shape().numel());
        d.eq(format_args!("{name:?}: format"), fo.format(), co.format());
        d.eq(format_args!("{name:?}: attributes"), entries(&fo.attributes()), entries(&co.attributes()));
        d.eq(format_args!("{name:?}: attributes len"), fo.attributes().len(), co.attributes().len());
        d.eq(format_args!("{name:?}: attribute count"), fo.attributes().len(), co.attribute_count());
        let fc: Vec<Comp<'_>> = fo
            .components()
            .map(|c| (c.role(), c.dtype(), c.logical_type(), c.encoding(), c.offset(), c.length(), c.uncompressed_length(), c.digest()))
            .collect();
        let cc: Vec<Comp<'_>> = co
            .components()
            .map(|c| (c.role, c.dtype, c.logical, c.encoding, c.offset, c.length, c.uncompressed_length, c.digest))
            .collect();
        d.eq(format_args!("{name:?}: components"), &fc, &cc);
        d.eq(format_args!("{name:?}: component count"), fc.len(), co.component_count());
        for (a, b) in fo.components().zip(co.components()) {
            let role = a.role();
            d.eq(format_args!("{name:?}/{role}: stored bytes"), a.stored_bytes().ok(), Some(c.stored(&b)));
            d.eq(
                format_args!("{name:?}/{role}: component(role)"),
                fo.component(role).map(|x| (x.offset(), x.length())),
                co.component(role.as_bytes()).map(|x| (x.offset, x.length)),
            );
            if a.encoding() == Encoding::Raw || a.uncompressed_length().is_some() {
                d.eq(format_args!("{name:?}/{role}: decoded_len"), a.decoded_len(), b.decoded_len());
            }
        }
        d.eq(format_args!("{name:?}: component(absent)"), fo.component("\u{1}absent").is_some(), co.component(b"\x01absent").is_some());
        if i < budget {
            d.eq(format_args!("find({name:?})"), f.get(name).map(|o| (o.index(), o.name())), c.find(name.as_bytes()).map(|(i, o)| (i, o.name())));
            d.eq(format_args!("object({i})"), f.object(i).map(|o| o.name()), c.object(i).map(|o| o.name()));
            let longer = format!("{name}\u{0}");
            d.eq(format_args!("find({longer:?})"), f.get(&longer).map(|o| o.index()), c.find(longer.as_bytes()).map(|(i, _)| i));
            if let Some((cut, _)) = name.char_indices().last() {
                let shorter = &name[..cut];
                d.eq(format_args!("find({shorter:?})"), f.get(shorter).map(|o| o.index()), c.find(shorter.as_bytes()).map(|(i, _)| i));
            }
        }
    }
    d.eq("objects() count", f.len(), n);
    d.eq("objects() count (compact)", c.len(), c.objects().count());
    for i in [f.len(), f.len() + 1, usize::MAX] {
        d.eq(format_args!("object({i})"), f.object(i).map(|o| o.name()), c.object(i).map(|o| o.name()));
    }
    for name in ["", "\u{10ffff}", "zzzzzzzzzzzzzzzzzzzz"] {
        d.eq(format_args!("find({name:?})"), f.get(name).map(|o| o.index()), c.find(name.as_bytes()).map(|(i, _)| i));
    }
    // Names that are not UTF-8 are never found.
    d.eq("find(non-UTF-8)", None, c.find(b"\xff\xfe").map(|(i, _)| i));
}

/// The verification reports for every [`OPTIONS`] entry.
fn verify(f: &File<'_>, c: &compact::File<'_>, alloc: bool, d: &mut Diffs) {
    // Without `alloc` the full reader does not decode zstd either.
    let zstd = alloc && has_zstd(f);
    if f.version().major == 2 {
        for (name, opt) in OPTIONS {
            let full = sum_full(&f.verify_with(opt, |_| {}));
            let got = sum_compact(&c.verify(opt));
            let same = if zstd {
                (full.objects, full.components) == (got.objects, got.components)
            } else {
                full.same(&got)
            };
            if !same {
                let _ = writeln!(d.0, "  verify {name} (v2): full {full:?}, compact {got:?}");
            }
        }
        return;
    }
    for (name, opt) in OPTIONS {
        let want = expected_report(f, opt);
        if !zstd {
            // The model is the full reader's verify_with on these files.
            let full = sum_full(&f.verify_with(opt, |_| {}));
            if !full.same(&want) {
                let _ = writeln!(d.0, "  (harness) verify {name}: model {want:?} differs from verify_with {full:?}");
            }
        }
        let got = sum_compact(&c.verify(opt));
        if !want.same(&got) {
            let _ = writeln!(d.0, "  verify {name}{}: full {want:?}, compact {got:?}", if zstd { " (zstd model)" } else { "" });
        }
    }
}

fn outcome<T>(r: &Result<T, ztensor::Error>) -> String {
    match r {
        Ok(_) => "opened".into(),
        Err(e) => format!("refused: {e} ({:?}) -> {:?}", e.kind(), class_of(e.kind(), false)),
    }
}

fn outcome_c<T>(r: &Result<T, compact::Fault>) -> String {
    match r {
        Ok(_) => "opened".into(),
        Err(f) => format!("refused: {f} ({:?}) -> {:?}", f.kind, class_fault(f.status())),
    }
}

/// Compare the two readers on `bytes`; the differences found, in words.
/// `alloc`: whether `ztensor` is built with its `alloc` feature (the full
/// reader then grows its scratch on the heap, and decodes zstd).
pub fn differential(bytes: &[u8], alloc: bool) -> Result<(), String> {
    let mut d = Diffs::default();
    let layout = Tail::from_file(bytes).ok().map(|t| t.layout);
    let mut scratch = vec![[0u64; 2]; if alloc { 0 } else { ample(bytes) }];
    let full = if alloc { File::parse(bytes) } else { File::parse_with_scratch(bytes, &mut scratch) };
    let mut slots = vec![[0u64; 2]; ample(bytes)];
    let comp = compact::File::open(bytes, &mut slots);
    let class_full = full.as_ref().err().map(|e| class_of(e.kind(), false));
    let class_comp = comp.as_ref().err().map(|f| class_fault(f.status()));
    // A v2 sharded file or data shard: refused by the compact reader once
    // found valid (its parts lie in other files).
    let sharded = layout == Some(Layout::V2)
        && full.is_ok()
        && ztensor::v2::Manifest::parse_with(bytes, &mut vec![Default::default(); ample(bytes)])
            .is_ok_and(|m| m.is_data_shard() || m.shards().next().is_some());
    let generation = matches!(layout, Some(Layout::V0))
        || sharded
        || (!cfg!(feature = "v2") && layout == Some(Layout::V2));
    // Built without `v1-legacy`, the compact reader refuses v1.0
    // and v1.1 files as unsupported when it reads their version (before
    // that, it refuses what it finds as the full reader does).
    if !cfg!(feature = "v1-legacy") && !generation && layout != Some(Layout::V2) {
        let old = full.as_ref().ok().map(|f| f.version().minor < 2);
        let version = matches!(&comp, Err(f) if f.kind == compact::Kind::Version);
        match (old, version) {
            (Some(true), true) | (None, true) => return Ok(()),
            (Some(true), false) => {
                return Err(format!("  a v1.0/v1.1 file: compact must refuse it as unsupported\n  compact: {}\n", outcome_c(&comp)))
            }
            _ => {}
        }
    }
    if generation {
        if class_comp != Some(Class::Unsupported) {
            let _ = writeln!(d.0, "  a {layout:?} file: compact must refuse it as Unsupported");
        }
    } else if class_full != class_comp {
        let _ = writeln!(d.0, "  open (ample slots)");
    } else if let (Err(e), Err(f)) = (&full, &comp) {
        if !same_first_error(e, f) {
            let _ = writeln!(d.0, "  open (ample slots): another first error");
        }
    }
    if !d.0.is_empty() {
        return Err(format!("{}  full: {}\n  compact: {}\n", d.0, outcome(&full), outcome_c(&comp)));
    }
    if let (Ok(f), Ok(c)) = (&full, &comp) {
        if !c.indexed() {
            d.0.push_str("  not indexed with ample slots\n");
        }
        // Without `alloc` the full reader's `object(i)` and `get` scan.
        views(f, c, if alloc { usize::MAX } else { 256 }, &mut d);
        verify(f, c, alloc, &mut d);
    }
    if generation {
        return finish(d);
    }
    for k in FEW {
        let mut slots = vec![[0u64; 2]; k];
        let comp_k = compact::File::open(bytes, &mut slots);
        let b = comp_k.as_ref().err().map(|f| class_fault(f.status()));
        if alloc {
            // The full reader with `alloc` takes the heap for what does not
            // fit the caller's scratch: compact with k slots opens what
            // both open with ample slots, or refuses it as they do, or
            // wants more slots.
            if b != class_comp && b != Some(Class::BufferTooSmall) {
                let _ = writeln!(d.0, "  open with {k} slots: compact {}; with ample slots both {}", outcome_c(&comp_k), outcome(&full));
            }
        } else {
            let mut scratch = vec![[0u64; 2]; k];
            let full_k = File::parse_with_scratch(bytes, &mut scratch);
            let a = full_k.as_ref().err().map(|e| class_of(e.kind(), false));
            if a != b {
                let _ = writeln!(d.0, "  open with {k} slots: full {}; compact {}", outcome(&full_k), outcome_c(&comp_k));
            }
        }
        if let (Ok(f), Ok(c)) = (&full, &comp_k) {
            let mut dk = Diffs::default();
            if c.indexed() != (c.len() <= k) {
                let _ = writeln!(dk.0, "  indexed() {} with {k} slots and {} objects", c.indexed(), c.len());
            }
            views(f, c, 64, &mut dk);
            if !dk.0.is_empty() {
                let _ = write!(d.0, "  views with {k} slots:\n{}", dk.0);
            }
        }
    }
    finish(d)
}

fn finish(d: Diffs) -> Result<(), String> {
    if d.0.is_empty() {
        Ok(())
    } else {
        Err(d.0)
    }
}

/// Bytes as hex (cut after `max` bytes).
pub fn hex(b: &[u8], max: usize) -> String {
    let mut s: String = b.iter().take(max).map(|x| format!("{x:02x}")).collect();
    if b.len() > max {
        let _ = write!(s, "... ({} bytes)", b.len());
    }
    s
}

/// The fuzz entry point: any disagreement is a panic naming both answers.
pub fn check(bytes: &[u8]) {
    if let Err(e) = differential(bytes, true) {
        panic!("compact and full readers disagree:\n{e}file: {}", hex(bytes, 4096));
    }
}
