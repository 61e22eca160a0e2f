//! Fuzz harness logic shared by the cargo-fuzz targets (`fuzz/fuzz_targets/*.rs`)
//! and the stable replay test (`tests/fuzz_replay.rs`), both of which include
//! this file with `#[path]`.
//!
//! Every entry point takes arbitrary bytes and must never panic, hang or
//! allocate without bound; each one asserts the reader's invariants on
//! whatever it manages to open. A panic here is a finding.
//!
//! Needs `ztensor` (std), `arbitrary` (derive) and `sha2` in scope.
#![allow(dead_code)]

use arbitrary::{Arbitrary, Unstructured};
use std::fmt::Write as _;
use ztensor::digest::Verified;
use ztensor::{
    Component, DType, Encoding, Endian, ErrorKind, File, Format, Layout, LogicalType, NameIndex,
    Object, Tail, Value, ValueRef, MAX_DEPTH,
};

/// Ceiling given to `to_vec_with_limit`.
pub const DECODE_LIMIT: u64 = 16 << 20;
/// Size of the fixed buffer handed to `read_into`.
pub const READ_BUF: usize = 64 << 10;

/// Known, reported findings the harness can be told to tolerate (so that a
/// campaign keeps exploring past them): a comma-separated list in
/// `ZT_FUZZ_KNOWN`. The replay test never sets it.
///
/// - `deep-tags`: tag chains longer than `MAX_DEPTH` are accepted by the
///   parser, and `Debug` of a value holding one recurses without bound. With
///   this set, tag chains are followed iteratively and `Debug` of values is
///   skipped.
fn known(issue: &str) -> bool {
    static KNOWN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    KNOWN.get_or_init(|| std::env::var("ZT_FUZZ_KNOWN").unwrap_or_default()).split(',').any(|k| k == issue)
}

/// - `zstd-bomb`: `check_data` / `verify` decode whole zstd components into
///   memory (up to the 4 GiB default limit; ruzstd keeps a window as large
///   as the frame's declared size besides), so a 16 KiB file declaring
///   512 MiB takes ~1 GiB and seconds. With this set, they are skipped for
///   files with a zstd component whose decoded size is over
///   [`DECODE_LIMIT`] or undeclared.
fn bomb(c: &Component<'_>) -> bool {
    known("zstd-bomb") && c.encoding() == Encoding::Zstd && c.decoded_len().map_or(true, |n| n > DECODE_LIMIT)
}

/// - `debug-dump`: the derived `Debug` of `Object` and `Component` prints
///   the whole manifest and the whole file (their `Ctx` / `data` slices), so
///   formatting one object of a mapped multi-GB file prints gigabytes, and a
///   3 KB file with many components times out. With this set, that `Debug`
///   is skipped.
fn debug_objects() -> bool {
    debug_values() && !known("debug-dump")
}

/// - `partial-element`: a zstd component whose decoded size is declared
///   nowhere (v1.1 without `uncompressed_length`, outside dense `data`)
///   decodes to any byte count, not always a whole number of elements
///   (`to_vec`, `read_into` accept it; `to_vec_of` drops the tail). With
///   this set, that is not asserted.
fn partial_ok() -> bool {
    known("partial-element")
}

/// Whether to exercise `Debug` of values (recursive).
fn debug_values() -> bool {
    !known("deep-tags")
}

/// A harness entry point.
pub type Target = fn(&[u8]);

/// The entry points by target name (the names of `fuzz/corpus/<target>/`).
pub const TARGETS: &[(&str, Target)] = &[
    ("open_walk", open_walk),
    ("tail_only", tail_only),
    ("legacy_v0", legacy_v0),
    ("structured", structured),
    ("writer_roundtrip", writer_roundtrip),
    ("read_modes", read_modes),
];

#[path = "reads.rs"]
mod reads;
pub use reads::read_modes;

// ====================================================================
// (a) open_walk: the whole file from bytes
// ====================================================================

/// `File::parse` the bytes, then walk and read everything; the other ways
/// of opening (`parse_with_scratch`, `parse_tail`) must agree.
pub fn open_walk(data: &[u8]) {
    let parsed = File::parse(data);

    // parse_with_scratch: same verdict (or out of scratch).
    let mut scratch = vec![[0u64; 2]; 4096];
    match (&parsed, File::parse_with_scratch(data, &mut scratch)) {
        (Ok(_), Ok(_)) => {}
        (_, Err(e)) if matches!(e.kind(), ErrorKind::ScratchTooSmall { .. }) => {}
        (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "parse vs parse_with_scratch: {a} / {b}"),
        (a, b) => panic!("parse {:?} vs parse_with_scratch {:?}", a.as_ref().err(), b.err()),
    }

    // parse_tail from the footer and manifest alone: same verdict whenever
    // the container itself is sound (it does not see the data bytes, but
    // bounds are checked against the same file length).
    if let Ok(tail) = Tail::from_file(data) {
        let m = &data[tail.manifest_offset as usize..(tail.manifest_offset + tail.manifest_len) as usize];
        let footer = &data[data.len() - 16..];
        let t = File::parse_tail(footer, m, data.len() as u64);
        match (&parsed, &t) {
            (Ok(_), Ok(f)) => walk_file(f, None),
            (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "parse vs parse_tail: {a} / {b}"),
            (a, b) => panic!("parse {:?} vs parse_tail {:?}", a.as_ref().err(), b.as_ref().err()),
        }
    }

    if let Ok(f) = parsed {
        assert!(Tail::from_file(data).is_ok());
        assert_eq!(f.bytes().map(<[u8]>::len), Some(data.len()));
        walk_file(&f, Some(data));
    }
}

// ====================================================================
// (b) tail_only: footer first, then the manifest
// ====================================================================

/// `Tail::from_footer` on the last 16 bytes, `File::parse_tail` on the
/// manifest range; also `from_footer` with a fuzzed file length.
pub fn tail_only(data: &[u8]) {
    let len = data.len() as u64;

    // A file length taken from the input: the arithmetic must hold for any.
    if data.len() >= 24 {
        let fake = u64::from_le_bytes(data[..8].try_into().unwrap());
        if let Ok(t) = Tail::from_footer(&data[data.len() - 16..], fake) {
            check_tail(&t, fake);
        }
    }
    if data.len() < 16 {
        assert!(Tail::from_footer(data, len).is_err(), "a footer shorter than 16 bytes was accepted");
        return;
    }
    let footer = &data[data.len() - 16..];
    let from_footer = Tail::from_footer(footer, len);
    if let Ok(t) = Tail::from_file(data) {
        // With the header at hand, the same tail (and never a worse one).
        assert_eq!(from_footer.as_ref().ok(), Some(&t), "from_file and from_footer disagree");
        assert!(t.check_header(&data[..8]).is_ok());
    }
    let Ok(tail) = from_footer else { return };
    check_tail(&tail, len);
    let r = tail.manifest_range();
    let manifest = &data[r.start as usize..r.end as usize];

    // The wrong manifest length is refused.
    if !manifest.is_empty() {
        let e = File::parse_tail(footer, &manifest[1..], len).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::ManifestLengthMismatch { .. }), "{e}");
    }

    let t = File::parse_tail(footer, manifest, len);
    let m = File::parse_manifest(manifest, tail, Some(data));
    match (&t, &m) {
        (Ok(_), Ok(_)) => {}
        (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "parse_tail vs parse_manifest: {a} / {b}"),
        (a, b) => panic!("parse_tail {:?} vs parse_manifest(data) {:?}", a.as_ref().err(), b.as_ref().err()),
    }
    if let Ok(f) = t {
        assert_eq!(f.tail(), &tail);
        assert!(f.bytes().is_none());
        walk_file(&f, None);
    }
    if let Ok(f) = m {
        walk_file(&f, Some(data));
    }
}

fn check_tail(t: &Tail, file_len: u64) {
    assert_eq!(t.file_len, file_len);
    assert!(t.manifest_len <= ztensor::container::MAX_MANIFEST_LEN);
    assert!(t.manifest_offset >= ztensor::container::HEADER_LEN, "{t:?}");
    let trailer = match t.layout {
        Layout::V1 => 16,
        Layout::V0 => 8,
    };
    assert_eq!(t.manifest_offset + t.manifest_len + trailer, file_len, "{t:?}");
    assert_eq!(t.manifest_range(), t.manifest_offset..t.manifest_offset + t.manifest_len);
}

// ====================================================================
// (c) legacy_v0: the input forced into a v0.1 container
// ====================================================================

/// Wrap `data` as a v0.1 file: `[u16 LE blob length][blob bytes][manifest]`
/// becomes `ZTEN0001`, zeros up to 64, the blob bytes, the manifest, and the
/// manifest size (u64 LE). Blobs start at 64 as the reference writer puts them.
pub fn legacy_v0_file(data: &[u8]) -> Vec<u8> {
    let (n, rest) = match data {
        [a, b, rest @ ..] => (u16::from_le_bytes([*a, *b]) as usize, rest),
        _ => (0, data),
    };
    let n = n.min(rest.len());
    let (blobs, manifest) = rest.split_at(n);
    let mut f = Vec::with_capacity(64 + data.len() + 8);
    f.extend_from_slice(b"ZTEN0001");
    f.resize(64, 0);
    f.extend_from_slice(blobs);
    f.extend_from_slice(manifest);
    f.extend_from_slice(&(manifest.len() as u64).to_le_bytes());
    f
}

/// The inverse of [`legacy_v0_file`] for a v0.1 file whose blobs start at
/// 64 (to make seeds from real files).
pub fn legacy_v0_input(file: &[u8]) -> Option<Vec<u8>> {
    let t = Tail::from_file(file).ok()?;
    if t.layout != Layout::V0 || t.manifest_offset < 64 {
        return None;
    }
    let blobs = &file[64..t.manifest_offset as usize];
    let mut out = (u16::try_from(blobs.len()).ok()?).to_le_bytes().to_vec();
    out.extend_from_slice(blobs);
    out.extend_from_slice(&file[t.manifest_range().start as usize..t.manifest_range().end as usize]);
    Some(out)
}

pub fn legacy_v0(data: &[u8]) {
    let file = legacy_v0_file(data);
    if let Ok(f) = File::parse(&file) {
        assert_eq!(f.layout(), Layout::V0);
        assert_eq!(f.version().major, 0);
        for o in f.objects() {
            assert_eq!(o.component_count(), 1, "a v0.1 tensor has one component");
            assert_eq!(o.components().next().map(|c| c.role()), Some("data"));
        }
    }
    open_walk(&file);
}

// ====================================================================
// The walk: every invariant of an opened file
// ====================================================================

/// Walk everything reachable from an opened file and assert its invariants.
/// `data` is the whole file when it was parsed from it, `None` for a file
/// parsed from its tail (every data accessor must then answer `NoData`).
pub fn walk_file(f: &File<'_>, data: Option<&[u8]>) {
    let _ = format!("{f:?}");
    let tail = *f.tail();
    assert_eq!(f.manifest_bytes().len() as u64, tail.manifest_len);
    if let Some(d) = data {
        assert_eq!(d.len() as u64, tail.file_len);
        let r = tail.manifest_range();
        assert_eq!(f.manifest_bytes(), &d[r.start as usize..r.end as usize]);
    }
    match f.layout() {
        Layout::V0 => assert_eq!(f.version().major, 0),
        Layout::V1 => assert_eq!(f.version().major, 1),
    }
    walk_map(f.attributes(), 1);

    let n = f.len();
    assert_eq!(f.is_empty(), n == 0);
    assert_eq!(f.objects().len(), n);
    assert!(f.object(n).is_none());
    let mut count = 0;
    let mut spans = Vec::new();
    let v0 = f.version().major == 0;
    let mut buf = vec![0u8; READ_BUF];
    for (i, o) in f.objects().enumerate() {
        count += 1;
        assert_eq!(o.index(), i);
        let by_index = f.object(i).expect("object(i) of a listed object");
        assert_eq!(by_index.name(), o.name());
        // Names are unique: lookup by name finds this very object.
        let by_name = f.get(o.name()).unwrap_or_else(|| panic!("get({:?}) found nothing", o.name()));
        assert_eq!(by_name.index(), i, "get({:?})", o.name());
        assert!(f.require(o.name()).is_ok());
        walk_object(&o, data, &tail, v0, &mut buf, &mut spans);
    }
    assert_eq!(count, n);

    // Blobs never partially overlap (identical spans are weight tying).
    spans.sort_unstable();
    spans.dedup();
    for w in spans.windows(2) {
        assert!(w[0].1 <= w[1].0, "blobs overlap: {:?} and {:?}", w[0], w[1]);
    }

    // The caller-storage index finds every object too.
    let mut slots = vec![[0u32; 4]; n];
    let index = NameIndex::build(f, &mut slots).expect("NameIndex with enough slots");
    for o in f.objects() {
        assert_eq!(index.get(o.name()).map(|x| x.index()), Some(o.index()));
    }
    if n > 0 {
        let mut few = vec![[0u32; 4]; n - 1];
        assert!(NameIndex::build(f, &mut few).is_err());
    }
    assert!(f.get("\u{0}no such object\u{0}").is_none() || f.objects().any(|o| o.name() == "\u{0}no such object\u{0}"));

    if f.objects().any(|o| o.components().any(|c| bomb(&c))) {
        return;
    }
    let mut problems = 0;
    let mut unverifiable = 0;
    let reported = f.verify(|_| problems += 1, |_, _| unverifiable += 1);
    assert_eq!(reported, problems);
    if data.is_none() {
        // Without data, every object with a component has a problem.
        let with_comps = f.objects().filter(|o| o.component_count() > 0).count();
        assert!(problems >= with_comps, "{problems} problems for {with_comps} objects without data");
    }
}

fn walk_object(o: &Object<'_>, data: Option<&[u8]>, tail: &Tail, v0: bool, buf: &mut [u8], spans: &mut Vec<(u64, u64)>) {
    assert!(!o.name().is_empty(), "empty object name accepted");

    // Shape: the dimensions multiply to numel without overflow.
    let s = o.shape();
    let dims: Vec<u64> = s.dims().collect();
    assert_eq!(dims.len(), s.ndim());
    // A zero dimension makes the product 0, even after an overflowing prefix.
    let numel = if dims.contains(&0) {
        0
    } else {
        dims.iter().try_fold(1u64, |a, &d| a.checked_mul(d)).expect("shape product overflows")
    };
    assert_eq!(numel, s.numel());
    assert_eq!(s.to_vec(), dims);
    for (i, &d) in dims.iter().enumerate() {
        assert_eq!(s.dim(i), Some(d));
    }
    assert_eq!(s.dim(dims.len()), None);
    let mut out = vec![0u64; dims.len()];
    assert_eq!(s.copy_to(&mut out), Some(dims.len()));
    assert_eq!(out, dims);
    if !dims.is_empty() {
        assert_eq!(s.copy_to(&mut out[1..]), None);
    }
    let _ = format!("{s:?}");

    let format = o.format();
    assert_eq!(Format::parse(format.name()), format);
    walk_map(o.attributes(), 1);
    walk_map(o.fields(), 1);

    let comps: Vec<Component<'_>> = o.components().collect();
    assert_eq!(comps.len(), o.component_count());
    for c in &comps {
        let again = o.component(c.role()).expect("component(role) of a listed component");
        assert_eq!((again.offset(), again.length()), (c.offset(), c.length()), "duplicate role {:?}", c.role());
        walk_component(c, data, tail, v0, buf);
        if c.length() > 0 {
            spans.push((c.offset(), c.offset() + c.length()));
        }
    }
    assert!(o.component("\u{0}none").is_none() || comps.iter().any(|c| c.role() == "\u{0}none"));

    if format == Format::Dense {
        let d = o.data().expect("a dense object without `data`");
        // A dense object's decoded data is numel elements.
        let ratio = d.logical_type().map_or(Some(1), |t| t.ratio());
        if let (Some(r), Some(n)) = (ratio, d.decoded_len()) {
            let want = numel.checked_mul(r).and_then(|x| x.checked_mul(d.dtype().width()));
            assert_eq!(Some(n), want, "dense {:?}: decoded length vs shape {dims:?}", o.name());
        }
    }

    if debug_objects() {
        // Bounded by what the object itself holds, not by the file's size.
        let d = format!("{o:?}");
        // (Names and roles as `Debug` escapes them: up to 10 characters a byte.)
        let own = 2 * format!("{:?}", o.fields()).len() + 2 * format!("{:?}", o.name()).len() + format!("{s:?}").len() + 4096;
        assert!(d.len() <= own, "Debug of object {:?}: {} bytes (its own fields: {own})", o.name(), d.len());
    }
    if comps.iter().any(bomb) {
        return;
    }
    let checked = o.check_data();
    if data.is_none() && !comps.is_empty() {
        assert!(checked.is_err(), "check_data without data bytes succeeded");
    }
}

fn walk_component(c: &Component<'_>, data: Option<&[u8]>, tail: &Tail, v0: bool, buf: &mut [u8]) {
    assert!(!c.role().is_empty(), "empty role accepted");
    assert_eq!(c.offset() % 64, 0, "misaligned offset {}", c.offset());
    assert!(c.offset() >= 8, "blob inside the header");
    let end = c.offset().checked_add(c.length()).expect("offset + length overflows");
    assert!(end <= tail.manifest_offset, "blob {}..{end} past the manifest at {}", c.offset(), tail.manifest_offset);
    if let Some(t) = c.logical_type() {
        if let Some(s) = t.storage() {
            assert_eq!(s, c.dtype(), "logical type {t} on {}", c.dtype());
        }
        let _ = t.name();
    }
    assert_eq!(DType::from_name(c.dtype().name()), Some(c.dtype()));
    if c.endian() == Endian::Big {
        assert!(v0, "big-endian component outside v0.1");
    }
    let width = c.dtype().width();
    let decoded_len = c.decoded_len();
    if c.encoding() == Encoding::Raw {
        assert_eq!(decoded_len, Some(c.length()));
    }
    if let Some(n) = decoded_len {
        assert_eq!(n % width, 0, "partial element");
        assert_eq!(c.element_count(), Some(n / width));
    }
    walk_map(c.fields(), 1);
    if debug_objects() {
        let d = format!("{c:?}");
        let own = format!("{:?}", c.fields()).len() + format!("{:?}", c.role()).len() + 1024;
        assert!(d.len() <= own, "Debug of component {:?}: {} bytes (its own fields: {own})", c.role(), d.len());
    }

    let Some(file) = data else {
        let no_data = |e: ztensor::Error| assert_eq!(e.kind(), ErrorKind::NoData, "{e}");
        no_data(c.stored_bytes().unwrap_err());
        assert!(c.to_vec_with_limit(DECODE_LIMIT).is_err());
        assert!(c.read_into(buf).is_err());
        assert!(!matches!(c.verify_digest(), Ok(Verified::Ok)), "digest verified without data");
        return;
    };

    let stored = c.stored_bytes().expect("stored_bytes of a validated component");
    assert_eq!(stored.len() as u64, c.length());
    let expect = &file[c.offset() as usize..end as usize];
    assert_eq!(stored.as_ptr(), expect.as_ptr(), "stored_bytes is not the file's range");

    // to_vec_with_limit.
    let v = c.to_vec_with_limit(DECODE_LIMIT);
    match (&v, c.encoding()) {
        (Ok(v), _) => {
            assert!(v.len() as u64 <= DECODE_LIMIT);
            if let Some(n) = decoded_len {
                assert_eq!(v.len() as u64, n, "to_vec length vs decoded_len");
            }
            if !partial_ok() {
                assert_eq!(v.len() as u64 % width, 0, "to_vec: {} bytes of {}", v.len(), c.dtype());
            }
            if c.encoding() == Encoding::Raw {
                if c.endian() == Endian::Little {
                    assert_eq!(&v[..], stored);
                } else {
                    let mut s = stored.to_vec();
                    for e in s.chunks_exact_mut(width as usize) {
                        e.reverse();
                    }
                    assert_eq!(v, &s);
                }
            }
        }
        (Err(e), Encoding::Raw) => {
            assert!(c.length() > DECODE_LIMIT, "raw to_vec failed: {e}");
            assert!(matches!(e.kind(), ErrorKind::DecodedTooLarge { .. }), "{e}");
        }
        (Err(_), Encoding::Zstd) => {}
    }
    let small = c.to_vec_with_limit(0);
    if let Ok(s) = &small {
        assert!(s.is_empty());
    }

    // read_into a fixed buffer.
    match c.read_into(buf) {
        Ok(n) => {
            assert!(n <= buf.len());
            if !partial_ok() {
                assert_eq!(n as u64 % width, 0, "read_into: {n} bytes of {}", c.dtype());
            }
            if let Some(d) = decoded_len {
                assert_eq!(n as u64, d, "read_into length vs decoded_len");
            }
            if let Ok(v) = &v {
                assert_eq!(&buf[..n], &v[..], "read_into and to_vec disagree");
            }
        }
        Err(e) => {
            if c.encoding() == Encoding::Raw {
                assert!(c.length() > READ_BUF as u64, "raw read_into failed: {e}");
            }
            if let Ok(v) = &v {
                assert!(v.len() > READ_BUF, "read_into failed ({e}) where to_vec gave {} bytes", v.len());
            }
        }
    }

    typed_views(c, stored, &v);

    // Digests: an independent check of the verdict.
    let verdict = c.verify_digest();
    if let Some(d) = c.digest() {
        let truth = digest_truth(d, stored);
        match (&verdict, truth) {
            (Ok(Verified::Ok), Some(false)) => panic!("digest {d:?} verified but does not match"),
            (Err(e), Some(true)) if e.kind() == ErrorKind::DigestMismatch => {
                panic!("digest {d:?} matches but was refused")
            }
            _ => {}
        }
    } else {
        assert!(matches!(verdict, Ok(Verified::NoDigest)));
    }
}

/// Zero-copy and typed reads for whatever the dtype is.
fn typed_views(c: &Component<'_>, stored: &[u8], decoded: &Result<Vec<u8>, ztensor::Error>) {
    macro_rules! view {
        ($t:ty) => {{
            let s = c.as_slice::<$t>();
            if let Ok(s) = s {
                assert_eq!(core::mem::size_of_val(s), stored.len());
                assert_eq!(s.as_ptr() as *const u8, stored.as_ptr());
                assert_eq!(c.encoding(), Encoding::Raw);
            }
            let mut out = vec![<$t>::default(); 256];
            if let Ok(n) = c.read_elements::<$t>(&mut out) {
                assert!(n <= out.len());
                if let Ok(d) = decoded {
                    assert_eq!(n * core::mem::size_of::<$t>(), d.len());
                }
            }
            if let Ok(d) = decoded {
                if d.len() <= READ_BUF {
                    let v = c.to_vec_of::<$t>().expect("to_vec_of where to_vec succeeded");
                    assert_eq!(v.len() * core::mem::size_of::<$t>(), d.len());
                }
            }
        }};
    }
    match c.dtype() {
        DType::F64 => view!(f64),
        DType::F32 => view!(f32),
        DType::I64 => view!(i64),
        DType::I32 => view!(i32),
        DType::I16 => view!(i16),
        DType::I8 => view!(i8),
        DType::U64 => view!(u64),
        DType::U32 => view!(u32),
        DType::U16 | DType::F16 | DType::BF16 => view!(u16),
        DType::U8 | DType::Bool => view!(u8),
    }
    // A mismatched type is refused.
    if c.dtype() != DType::F64 {
        assert_eq!(c.as_slice::<f64>().unwrap_err().kind(), ErrorKind::TypeMismatch);
    }
}

/// Independent digest check: `Some(matches)` for a well-formed sha256 or
/// crc32c digest string, `None` otherwise.
fn digest_truth(d: &str, stored: &[u8]) -> Option<bool> {
    let (alg, value) = d.split_once(':')?;
    match alg {
        "sha256" => {
            if value.len() != 64 || !value.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            use sha2::Digest as _;
            let h = sha2::Sha256::digest(stored);
            let hex: String = h.iter().map(|b| format!("{b:02x}")).collect();
            Some(hex.eq_ignore_ascii_case(value))
        }
        "crc32c" => {
            let hex = value.strip_prefix("0x").or_else(|| value.strip_prefix("0X"))?;
            if hex.is_empty() || hex.len() > 8 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            Some(u32::from_str_radix(hex, 16).ok()? == crc32c_bitwise(stored))
        }
        _ => None,
    }
}

/// CRC-32C, bit by bit (independent of the library's table version).
pub fn crc32c_bitwise(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0x82f6_3b78 } else { crc >> 1 };
        }
    }
    !crc
}

fn walk_map(m: ztensor::Map<'_>, depth: usize) {
    let mut n = 0;
    for (k, v) in m.iter() {
        n += 1;
        walk_value(k, depth + 1);
        walk_value(v, depth + 1);
        if let Some(key) = k.as_str() {
            let got = m.get(key).unwrap_or_else(|| panic!("Map::get({key:?}) of a listed key"));
            assert_eq!(got.manifest_offset(), v.manifest_offset(), "Map::get({key:?})");
        }
    }
    assert_eq!(n, m.len());
    assert_eq!(m.is_empty(), n == 0);
    // Debug formatting recurses: only after the depth checks above.
    if debug_values() {
        let _ = format!("{m:?}");
    }
}

fn walk_value(v: Value<'_>, depth: usize) {
    assert!(depth <= MAX_DEPTH + 8, "walked deeper than MAX_DEPTH");
    let raw = v.raw();
    assert!(!raw.is_empty(), "a value with no encoding");
    let _ = (v.as_u64(), v.as_i64(), v.as_f64(), v.as_bool(), v.as_str(), v.as_bytes(), v.is_null());
    let _ = v.untagged();
    match v.get() {
        ValueRef::Uint(x) => assert_eq!(v.as_u64(), Some(x)),
        ValueRef::NegInt(x) => {
            if let Some(i) = v.as_i64() {
                assert_eq!(i, -1 - x as i64);
            }
        }
        ValueRef::Bytes(c) | ValueRef::Text(c) => {
            let total: usize = c.iter().map(<[u8]>::len).sum();
            assert_eq!(total, c.len());
            assert_eq!(c.is_empty(), total == 0);
            if let Some(b) = c.contiguous() {
                assert_eq!(b.len(), total);
            }
            let _ = format!("{c:?}");
        }
        ValueRef::Array(a) => {
            let mut n = 0;
            for item in a.iter() {
                n += 1;
                walk_value(item, depth + 1);
            }
            assert_eq!(n, a.len());
            assert_eq!(a.is_empty(), n == 0);
        }
        ValueRef::Map(m) => walk_map(m, depth), // its keys and values are one level down
        ValueRef::Tag(_, inner) => {
            if known("deep-tags") {
                // Follow the chain without recursing.
                let mut inner = inner;
                while let ValueRef::Tag(_, next) = inner.get() {
                    inner = next;
                }
                walk_value(inner, depth + 1);
            } else {
                walk_value(inner, depth + 1);
            }
        }
        ValueRef::Bool(b) => assert_eq!(v.as_bool(), Some(b)),
        ValueRef::Null => assert!(v.is_null()),
        ValueRef::Undefined | ValueRef::Simple(_) | ValueRef::Float(_) => {}
    }
    if debug_values() {
        let _ = format!("{v:?}");
    }
}

// ====================================================================
// Tiny CBOR encoder and zstd frame builder
// ====================================================================

/// Minimal CBOR writer (definite lengths unless asked otherwise).
#[derive(Default)]
pub struct Enc(pub Vec<u8>);

impl Enc {
    pub fn head(&mut self, major: u8, n: u64) -> &mut Self {
        let m = major << 5;
        match n {
            0..=23 => self.0.push(m | n as u8),
            24..=0xff => self.0.extend([m | 24, n as u8]),
            0x100..=0xffff => {
                self.0.push(m | 25);
                self.0.extend((n as u16).to_be_bytes());
            }
            0x1_0000..=0xffff_ffff => {
                self.0.push(m | 26);
                self.0.extend((n as u32).to_be_bytes());
            }
            _ => {
                self.0.push(m | 27);
                self.0.extend(n.to_be_bytes());
            }
        }
        self
    }
    pub fn uint(&mut self, n: u64) -> &mut Self {
        self.head(0, n)
    }
    pub fn text(&mut self, s: &str) -> &mut Self {
        self.head(3, s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
        self
    }
    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.head(2, b.len() as u64);
        self.0.extend_from_slice(b);
        self
    }
    pub fn array(&mut self, n: u64) -> &mut Self {
        self.head(4, n)
    }
    pub fn map(&mut self, n: u64) -> &mut Self {
        self.head(5, n)
    }
    pub fn raw(&mut self, b: &[u8]) -> &mut Self {
        self.0.extend_from_slice(b);
        self
    }
}

/// A zstd frame (single segment, declared content size) holding `content`
/// in raw blocks.
pub fn zstd_raw_frame(content: &[u8]) -> Vec<u8> {
    let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0xe0];
    f.extend((content.len() as u64).to_le_bytes());
    let mut chunks: Vec<&[u8]> = content.chunks(128 << 10).collect();
    if chunks.is_empty() {
        chunks.push(&[]);
    }
    let last = chunks.len() - 1;
    for (i, c) in chunks.iter().enumerate() {
        let h = (c.len() as u32) << 3 | (i == last) as u32; // type 0: raw
        f.extend(&h.to_le_bytes()[..3]);
        f.extend_from_slice(c);
    }
    f
}

/// A zstd frame of `count` copies of `byte` in RLE blocks, declaring `declared` bytes.
pub fn zstd_rle_frame(byte: u8, count: u64, declared: u64) -> Vec<u8> {
    let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0xe0];
    f.extend(declared.to_le_bytes());
    let mut left = count;
    loop {
        let n = left.min(128 << 10);
        left -= n;
        let h = (n as u32) << 3 | 1 << 1 | (left == 0) as u32; // type 1: RLE
        f.extend(&h.to_le_bytes()[..3]);
        f.push(byte);
        if left == 0 {
            return f;
        }
    }
}

// ====================================================================
// (d) structured: arbitrary manifests around real blobs
// ====================================================================

#[derive(Arbitrary, Debug)]
pub struct SFile {
    v0: bool,
    version: SVersion,
    root_attrs: Option<Vec<(SKey, SAttr)>>,
    root_extra: Option<SAttr>,
    objects: Vec<SObject>,
    blobs: Vec<SBlob>,
    /// Rarely, one corrupted byte of the file (index, xor).
    corrupt: Option<(u16, u8)>,
    /// Generate a file valid by construction (and demand that it opens).
    valid: bool,
}

#[derive(Arbitrary, Debug)]
enum SVersion {
    V1_2,
    V1_1,
    V1_0,
    Num(u8, u8, Option<u8>),
    Text(String),
    NotText(u64),
    Missing,
}

#[derive(Arbitrary, Debug)]
enum SKey {
    Text(String),
    Short(u8),
    Int(u64),
}

#[derive(Arbitrary, Debug)]
enum SAttr {
    Uint(u64),
    NegInt(u64),
    Text(String),
    Bytes(Vec<u8>),
    Bool(bool),
    Null,
    Undefined,
    F64(f64),
    F16(u16),
    F32(u32),
    Simple(u8),
    Array(Vec<SAttr>),
    Map(Vec<(SKey, SAttr)>),
    Tag(u64, Box<SAttr>),
    IndefText(Vec<String>),
    IndefBytes(Vec<Vec<u8>>),
    IndefArray(Vec<SAttr>),
    IndefMap(Vec<(SKey, SAttr)>),
    /// `n` nested one-element arrays.
    Deep(u8),
    /// Raw bytes: probably malformed.
    Raw(Vec<u8>),
}

#[derive(Arbitrary, Debug)]
struct SObject {
    name: SName,
    shape: Option<Vec<SDim>>,
    format: Option<SFormat>,
    attrs: Option<Vec<(SKey, SAttr)>>,
    comps: Vec<SComp>,
    extra: Option<SAttr>,
    indefinite: bool,
}

#[derive(Arbitrary, Debug)]
enum SName {
    Index(u8),
    Text(String),
    Empty,
    SameAsPrevious,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum SDim {
    Small(u8),
    Mid(u16),
    Huge(u64),
    Pow2(u8),
}

#[derive(Arbitrary, Debug)]
enum SFormat {
    Dense,
    Csr,
    Coo,
    Quantized,
    Other(String),
    NotText(u8),
}

#[derive(Arbitrary, Debug)]
struct SComp {
    role: SRole,
    dtype: Option<SDType>,
    ltype: Option<SLType>,
    offset: Option<SOff>,
    length: Option<SLen>,
    ulen: Option<SLen>,
    encoding: Option<SEnc>,
    digest: Option<SDigest>,
    endian: Option<bool>,
    extra: Option<SAttr>,
}

#[derive(Arbitrary, Debug)]
enum SRole {
    Data,
    Values,
    Indices,
    Indptr,
    Coords,
    Packed,
    Scales,
    Zeros,
    Other(String),
}

#[derive(Arbitrary, Debug)]
enum SDType {
    Known(u8),
    V11(u8),
    V0(u8),
    Text(String),
    NotText(u8),
}

#[derive(Arbitrary, Debug)]
enum SLType {
    Known(u8),
    Other(String),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum SOff {
    Blob(u8),
    Aligned(u16),
    Raw(u64),
    ManifestStart,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum SLen {
    Blob,
    Implied,
    Small(u8),
    Raw(u64),
}

#[derive(Arbitrary, Debug)]
enum SEnc {
    Raw,
    Zstd,
    Text(String),
}

#[derive(Arbitrary, Debug)]
enum SDigest {
    Crc32c,
    Sha256,
    Crc32cWrong,
    Text(String),
}

#[derive(Arbitrary, Debug)]
enum SBlob {
    Bytes(Vec<u8>),
    /// Small integers as u64 LE (index-like).
    Indices(Vec<u8>),
    ZstdRaw(Vec<u8>),
    ZstdRle(u8, u16, Option<u32>),
    Garbage(u16),
}

const DTYPES: [&str; 13] = ["f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "u64", "u32", "u16", "u8", "bool"];
const V0_DTYPES: [&str; 13] = [
    "float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16",
    "uint8", "bool",
];
const V11_DTYPES: [&str; 5] = ["f8_e4m3", "f8_e5m2", "complex64", "complex128", "f8_e4m3fn"];
const LTYPES: [&str; 6] = ["f8_e4m3fn", "f8_e5m2", "f8_e4m3fnuz", "f8_e5m2fnuz", "complex64", "complex128"];

/// What the generator encoded for one component, to compare with what is read.
#[derive(Debug)]
struct Expect {
    name: String,
    dims: Option<Vec<u64>>,
    comps: Vec<(String, u64, u64)>,
    /// For valid files: the decoded content of each component.
    content: Vec<Option<Vec<u8>>>,
}

struct Blob {
    offset: u64,
    stored: Vec<u8>,
    /// Decoded content (equal to `stored` unless zstd).
    content: Vec<u8>,
}

fn enc_key(e: &mut Enc, k: &SKey) {
    match k {
        SKey::Text(s) => e.text(s),
        SKey::Short(n) => e.text(&format!("k{n}")),
        SKey::Int(n) => e.uint(*n),
    };
}

fn enc_attr(e: &mut Enc, a: &SAttr, budget: &mut usize) {
    // Bound the encoding's size whatever the description.
    if *budget == 0 {
        e.0.push(0xf6);
        return;
    }
    *budget -= 1;
    match a {
        SAttr::Uint(n) => drop(e.uint(*n)),
        SAttr::NegInt(n) => drop(e.head(1, *n)),
        SAttr::Text(s) => drop(e.text(s)),
        SAttr::Bytes(b) => drop(e.bytes(b)),
        SAttr::Bool(b) => e.0.push(if *b { 0xf5 } else { 0xf4 }),
        SAttr::Null => e.0.push(0xf6),
        SAttr::Undefined => e.0.push(0xf7),
        SAttr::F64(f) => {
            e.0.push(0xfb);
            e.0.extend(f.to_bits().to_be_bytes());
        }
        SAttr::F16(h) => {
            e.0.push(0xf9);
            e.0.extend(h.to_be_bytes());
        }
        SAttr::F32(h) => {
            e.0.push(0xfa);
            e.0.extend(h.to_be_bytes());
        }
        SAttr::Simple(s) => {
            if *s < 20 {
                e.0.push(0xe0 | s);
            } else {
                e.0.extend([0xf8, *s]);
            }
        }
        SAttr::Array(items) => {
            e.array(items.len() as u64);
            for i in items {
                enc_attr(e, i, budget);
            }
        }
        SAttr::Map(entries) => {
            e.map(entries.len() as u64);
            for (k, v) in entries {
                enc_key(e, k);
                enc_attr(e, v, budget);
            }
        }
        SAttr::Tag(t, v) => {
            e.head(6, *t);
            enc_attr(e, v, budget);
        }
        SAttr::IndefText(parts) => {
            e.0.push(0x7f);
            for p in parts {
                e.text(p);
            }
            e.0.push(0xff);
        }
        SAttr::IndefBytes(parts) => {
            e.0.push(0x5f);
            for p in parts {
                e.bytes(p);
            }
            e.0.push(0xff);
        }
        SAttr::IndefArray(items) => {
            e.0.push(0x9f);
            for i in items {
                enc_attr(e, i, budget);
            }
            e.0.push(0xff);
        }
        SAttr::IndefMap(entries) => {
            e.0.push(0xbf);
            for (k, v) in entries {
                enc_key(e, k);
                enc_attr(e, v, budget);
            }
            e.0.push(0xff);
        }
        SAttr::Deep(n) => {
            let n = *n as usize;
            e.0.extend(std::iter::repeat(0x81).take(n));
            e.0.push(0);
        }
        SAttr::Raw(b) => drop(e.raw(b)),
    }
}

fn dim(d: SDim) -> u64 {
    match d {
        SDim::Small(n) => n as u64 % 8,
        SDim::Mid(n) => n as u64,
        SDim::Huge(n) => n,
        SDim::Pow2(p) => 1u64.checked_shl(p as u32 % 64).unwrap_or(0),
    }
}

fn role_name(r: &SRole) -> String {
    match r {
        SRole::Data => "data".into(),
        SRole::Values => "values".into(),
        SRole::Indices => "indices".into(),
        SRole::Indptr => "indptr".into(),
        SRole::Coords => "coords".into(),
        SRole::Packed => "packed_weight".into(),
        SRole::Scales => "scales".into(),
        SRole::Zeros => "zeros".into(),
        SRole::Other(s) => s.clone(),
    }
}

fn make_blobs(blobs: &[SBlob]) -> (Vec<u8>, Vec<Blob>) {
    let mut region = vec![0u8; 8];
    let mut out = Vec::new();
    let mut total = 0usize;
    for b in blobs.iter().take(64) {
        let (stored, content) = match b {
            SBlob::Bytes(v) => (v.clone(), v.clone()),
            SBlob::Indices(v) => {
                let s: Vec<u8> = v.iter().flat_map(|&x| (x as u64).to_le_bytes()).collect();
                (s.clone(), s)
            }
            SBlob::ZstdRaw(v) => (zstd_raw_frame(v), v.clone()),
            SBlob::ZstdRle(byte, n, declared) => {
                let n = *n as u64;
                let declared = declared.map_or(n, |d| d as u64);
                (zstd_rle_frame(*byte, n, declared), vec![*byte; n as usize])
            }
            SBlob::Garbage(n) => {
                let v: Vec<u8> = (0..*n as usize % 4096).map(|i| (i * 31 % 251) as u8).collect();
                (v.clone(), v)
            }
        };
        total += stored.len();
        if total > 1 << 20 {
            break;
        }
        let off = region.len().next_multiple_of(64);
        region.resize(off, 0);
        region.extend_from_slice(&stored);
        out.push(Blob { offset: off as u64, stored, content });
    }
    (region, out)
}

/// Encode the described file. Returns the file and, per object, what was encoded.
fn build_structured(d: &SFile) -> (Vec<u8>, Vec<Expect>) {
    let (mut region, blobs) = make_blobs(&d.blobs);
    let manifest_start_guess = region.len() as u64; // manifest follows the blobs
    let mut e = Enc::default();
    let mut expects = Vec::new();
    let mut budget = 4096usize;
    let objects: Vec<&SObject> = d.objects.iter().take(256).collect();

    let mut names: Vec<String> = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        let n = match &o.name {
            SName::Index(k) => format!("t{k}"),
            SName::Text(s) => s.clone(),
            SName::Empty => String::new(),
            SName::SameAsPrevious => names.last().cloned().unwrap_or_else(|| format!("o{i}")),
        };
        names.push(n);
    }

    if !d.v0 {
        let root_len = (!matches!(d.version, SVersion::Missing)) as u64
            + d.root_attrs.is_some() as u64
            + 1
            + d.root_extra.is_some() as u64;
        e.map(root_len);
        // root: version, attributes, objects, extra
        match &d.version {
            SVersion::V1_2 => drop(e.text("version").text("1.2.0")),
            SVersion::V1_1 => drop(e.text("version").text("1.1.0")),
            SVersion::V1_0 => drop(e.text("version").text("1.0.0")),
            SVersion::Num(a, b, c) => {
                let s = match c {
                    Some(c) => format!("{a}.{b}.{c}"),
                    None => format!("{a}.{b}"),
                };
                e.text("version").text(&s);
            }
            SVersion::Text(s) => drop(e.text("version").text(s)),
            SVersion::NotText(n) => drop(e.text("version").uint(*n)),
            SVersion::Missing => {}
        }
        if let Some(a) = &d.root_attrs {
            e.text("attributes").map(a.len() as u64);
            for (k, v) in a {
                enc_key(&mut e, k);
                enc_attr(&mut e, v, &mut budget);
            }
        }
        e.text("objects").map(objects.len() as u64);
    } else {
        e.array(objects.len() as u64);
    }

    let legacy = d.v0 || matches!(d.version, SVersion::V1_1 | SVersion::V1_0);
    for (i, o) in objects.iter().enumerate() {
        let dims: Option<Vec<u64>> = o.shape.as_ref().map(|s| s.iter().take(8).map(|&x| dim(x)).collect());
        let numel = dims.as_ref().map_or(Some(1), |ds| ds.iter().try_fold(1u64, |a, &x| a.checked_mul(x)));
        let mut exp = Expect { name: names[i].clone(), dims: dims.clone(), comps: Vec::new(), content: Vec::new() };

        // Resolve each component's fields.
        struct C {
            role: String,
            dtype: Option<String>,
            width: u64,
            ltype: Option<String>,
            offset: Option<u64>,
            length: Option<u64>,
            ulen: Option<u64>,
            encoding: Option<String>,
            digest: Option<String>,
        }
        let mut cs = Vec::new();
        for c in o.comps.iter().take(8) {
            let (dtype, width) = match &c.dtype {
                None => (None, 1),
                Some(SDType::Known(k)) => {
                    let k = *k as usize % 13;
                    let w = DType::ALL[k].width();
                    (Some(if d.v0 { V0_DTYPES[k] } else { DTYPES[k] }.to_string()), w)
                }
                Some(SDType::V11(k)) => {
                    let k = *k as usize % 5;
                    (Some(V11_DTYPES[k].to_string()), [1, 1, 4, 8, 1][k])
                }
                Some(SDType::V0(k)) => (Some(V0_DTYPES[*k as usize % 13].to_string()), DType::ALL[*k as usize % 13].width()),
                Some(SDType::Text(s)) => (Some(s.clone()), 1),
                Some(SDType::NotText(_)) => (None, 1),
            };
            let ltype = c.ltype.as_ref().map(|t| match t {
                SLType::Known(k) => LTYPES[*k as usize % 6].to_string(),
                SLType::Other(s) => s.clone(),
            });
            let ratio = match ltype.as_deref() {
                Some("complex64" | "complex128") => 2,
                _ => 1,
            };
            let blob = match c.offset {
                Some(SOff::Blob(k)) if !blobs.is_empty() => Some(&blobs[k as usize % blobs.len()]),
                _ => None,
            };
            let offset = c.offset.map(|o| match o {
                SOff::Blob(_) => blob.map_or(64, |b| b.offset),
                SOff::Aligned(k) => k as u64 * 64,
                SOff::Raw(x) => x,
                SOff::ManifestStart => manifest_start_guess,
            });
            let implied = numel.and_then(|n| n.checked_mul(width * ratio)).unwrap_or(u64::MAX);
            let resolve = |l: SLen, zstd_stored: bool| match l {
                SLen::Blob => blob.map_or(0, |b| if zstd_stored { b.stored.len() } else { b.content.len() } as u64),
                SLen::Implied => implied,
                SLen::Small(n) => n as u64,
                SLen::Raw(x) => x,
            };
            let length = c.length.map(|l| resolve(l, true));
            let ulen = c.ulen.map(|l| resolve(l, false));
            let encoding = c.encoding.as_ref().map(|x| match x {
                SEnc::Raw => "raw".to_string(),
                SEnc::Zstd => "zstd".to_string(),
                SEnc::Text(s) => s.clone(),
            });
            let digest = c.digest.as_ref().map(|g| {
                let bytes = blob.map_or(&[][..], |b| {
                    let l = length.unwrap_or(0).min(b.stored.len() as u64) as usize;
                    &b.stored[..l]
                });
                match g {
                    SDigest::Crc32c => format!("crc32c:0x{:08X}", crc32c_bitwise(bytes)),
                    SDigest::Crc32cWrong => format!("crc32c:0x{:x}", crc32c_bitwise(bytes) ^ 1),
                    SDigest::Sha256 => {
                        use sha2::Digest as _;
                        let mut s = String::from("sha256:");
                        for b in sha2::Sha256::digest(bytes) {
                            let _ = write!(s, "{b:02x}");
                        }
                        s
                    }
                    SDigest::Text(s) => s.clone(),
                }
            });
            cs.push(C { role: role_name(&c.role), dtype, width, ltype, offset, length, ulen, encoding, digest });
        }

        if d.v0 {
            // A v0.1 tensor map: the first component's fields (if any).
            let c = cs.first();
            let mut fields: Vec<(&str, Vec<u8>)> = Vec::new();
            let t = |s: &str| {
                let mut x = Enc::default();
                x.text(s);
                x.0
            };
            let u = |n: u64| {
                let mut x = Enc::default();
                x.uint(n);
                x.0
            };
            fields.push(("name", t(&names[i])));
            if let Some(c) = c {
                if let Some(off) = c.offset {
                    fields.push(("offset", u(off)));
                }
                if let Some(l) = c.length {
                    fields.push(("size", u(l)));
                }
                if let Some(dt) = &c.dtype {
                    fields.push(("dtype", t(dt)));
                }
                if let Some(enc) = &c.encoding {
                    fields.push(("encoding", t(enc)));
                }
                if let Some(g) = &c.digest {
                    fields.push(("checksum", t(g)));
                }
                if let Some(big) = o.comps[0].endian {
                    fields.push(("data_endianness", t(if big { "big" } else { "little" })));
                }
                exp.comps.push(("data".into(), c.offset.unwrap_or(0), c.length.unwrap_or(0)));
            }
            if let Some(ds) = &dims {
                let mut x = Enc::default();
                x.array(ds.len() as u64);
                for &v in ds {
                    x.uint(v);
                }
                fields.push(("shape", x.0));
            }
            let mut extra = Vec::new();
            if let Some(a) = &o.extra {
                let mut x = Enc::default();
                enc_attr(&mut x, a, &mut budget);
                extra = x.0;
            }
            e.map(fields.len() as u64 + !extra.is_empty() as u64);
            for (k, v) in &fields {
                e.text(k).raw(v);
            }
            if !extra.is_empty() {
                e.text("custom").raw(&extra);
            }
            expects.push(exp);
            continue;
        }

        e.text(&names[i]);
        let n_fields = o.shape.is_some() as u64
            + o.format.is_some() as u64
            + o.attrs.is_some() as u64
            + 1
            + o.extra.is_some() as u64;
        if o.indefinite {
            e.0.push(0xbf);
        } else {
            e.map(n_fields);
        }
        if let Some(ds) = &dims {
            e.text("shape").array(ds.len() as u64);
            for &v in ds {
                e.uint(v);
            }
        }
        if let Some(f) = &o.format {
            e.text("format");
            match f {
                SFormat::Dense => drop(e.text("dense")),
                SFormat::Csr => drop(e.text("sparse_csr")),
                SFormat::Coo => drop(e.text("sparse_coo")),
                SFormat::Quantized => drop(e.text("quantized_group")),
                SFormat::Other(s) => drop(e.text(s)),
                SFormat::NotText(n) => drop(e.uint(*n as u64)),
            }
        }
        if let Some(a) = &o.attrs {
            e.text("attributes").map(a.len() as u64);
            for (k, v) in a {
                enc_key(&mut e, k);
                enc_attr(&mut e, v, &mut budget);
            }
        }
        e.text("components").map(cs.len() as u64);
        for (c, sc) in cs.iter().zip(o.comps.iter()) {
            e.text(&c.role);
            let n = c.dtype.is_some() as u64
                + (c.dtype.is_none() && matches!(sc.dtype, Some(SDType::NotText(_)))) as u64
                + c.ltype.is_some() as u64
                + c.offset.is_some() as u64
                + c.length.is_some() as u64
                + c.ulen.is_some() as u64
                + c.encoding.is_some() as u64
                + c.digest.is_some() as u64
                + sc.extra.is_some() as u64;
            e.map(n);
            if let Some(dt) = &c.dtype {
                e.text("dtype").text(dt);
            } else if let Some(SDType::NotText(k)) = sc.dtype {
                e.text("dtype").uint(k as u64);
            }
            if let Some(t) = &c.ltype {
                e.text("type").text(t);
            }
            if let Some(x) = c.offset {
                e.text("offset").uint(x);
            }
            if let Some(x) = c.length {
                e.text("length").uint(x);
            }
            if let Some(x) = c.ulen {
                e.text("uncompressed_length").uint(x);
            }
            if let Some(x) = &c.encoding {
                e.text("encoding").text(x);
            }
            if let Some(x) = &c.digest {
                e.text("digest").text(x);
            }
            if let Some(a) = &sc.extra {
                e.text("x-extra");
                enc_attr(&mut e, a, &mut budget);
            }
            let _ = c.width;
            exp.comps.push((c.role.clone(), c.offset.unwrap_or(0), c.length.unwrap_or(0)));
        }
        if let Some(a) = &o.extra {
            e.text("x-object");
            enc_attr(&mut e, a, &mut budget);
        }
        if o.indefinite {
            e.0.push(0xff);
        }
        expects.push(exp);
    }
    if !d.v0 {
        if let Some(a) = &d.root_extra {
            e.text("x-root");
            enc_attr(&mut e, a, &mut budget);
        }
    }
    let _ = legacy;

    let manifest = e.0;
    let mut file = region.split_off(0);
    file[..8].copy_from_slice(if d.v0 { b"ZTEN0001" } else { b"ZTEN1000" });
    file.extend_from_slice(&manifest);
    file.extend_from_slice(&(manifest.len() as u64).to_le_bytes());
    if !d.v0 {
        file.extend_from_slice(b"ZTEN1000");
    }
    if let Some((at, x)) = d.corrupt {
        let n = file.len();
        file[at as usize % n] ^= x;
    }
    (file, expects)
}

/// A file valid by construction: v1.2, dense objects with raw or zstd data,
/// correct lengths and digests, simple attributes.
fn build_valid(d: &SFile) -> (Vec<u8>, Vec<Expect>) {
    let mut region = vec![0u8; 8];
    let mut e = Enc::default();
    let objects: Vec<&SObject> = d.objects.iter().take(64).collect();
    let mut expects = Vec::new();
    let mut budget = 2048usize;
    let has_attrs = d.root_attrs.is_some();
    e.map(2 + has_attrs as u64);
    e.text("version").text("1.2.0");
    if let Some(a) = &d.root_attrs {
        // Unique text keys; values without maps (map keys could repeat).
        e.text("attributes").map(a.len() as u64);
        for (i, (_, v)) in a.iter().enumerate() {
            e.text(&format!("a{i}"));
            enc_simple_attr(&mut e, v, &mut budget, 0);
        }
    }
    e.text("objects").map(objects.len() as u64);
    for (i, o) in objects.iter().enumerate() {
        let k = o.comps.first().and_then(|c| match c.dtype {
            Some(SDType::Known(k)) => Some(k as usize % 13),
            _ => None,
        });
        let dt = DType::ALL[k.unwrap_or(1)];
        let dims: Vec<u64> = o.shape.as_deref().unwrap_or(&[]).iter().take(3).map(|&x| dim(x) % 9).collect();
        let numel: u64 = dims.iter().product();
        let n = (numel * dt.width()) as usize;
        // Content from the blob descriptions, repeated; bools as 0/1.
        let seed: Vec<u8> = d.blobs.get(i % d.blobs.len().max(1)).map_or(vec![i as u8], |b| match b {
            SBlob::Bytes(v) | SBlob::Indices(v) | SBlob::ZstdRaw(v) => v.clone(),
            SBlob::ZstdRle(b, _, _) => vec![*b],
            SBlob::Garbage(x) => x.to_le_bytes().to_vec(),
        });
        let seed = if seed.is_empty() { vec![7] } else { seed };
        let content: Vec<u8> = (0..n).map(|j| if dt == DType::Bool { seed[j % seed.len()] & 1 } else { seed[j % seed.len()] }).collect();
        let zstd = o.comps.first().is_some_and(|c| matches!(c.encoding, Some(SEnc::Zstd)));
        let stored = if zstd { zstd_raw_frame(&content) } else { content.clone() };
        let off = region.len().next_multiple_of(64);
        region.resize(off, 0);
        region.extend_from_slice(&stored);
        let digest = o.comps.first().and_then(|c| c.digest.as_ref()).map(|g| match g {
            SDigest::Sha256 => {
                use sha2::Digest as _;
                let mut s = String::from("sha256:");
                for b in sha2::Sha256::digest(&stored) {
                    let _ = write!(s, "{b:02X}");
                }
                s
            }
            _ => format!("crc32c:0x{:x}", crc32c_bitwise(&stored)),
        });
        let name = format!("{}#{i}", match &o.name {
            SName::Text(s) => s.as_str(),
            _ => "obj",
        });
        e.text(&name);
        e.map(3 + o.attrs.is_some() as u64);
        e.text("shape").array(dims.len() as u64);
        for &x in &dims {
            e.uint(x);
        }
        e.text("format").text("dense");
        if let Some(a) = &o.attrs {
            e.text("attributes").map(a.len() as u64);
            for (j, (_, v)) in a.iter().enumerate() {
                e.text(&format!("k{j}"));
                enc_simple_attr(&mut e, v, &mut budget, 0);
            }
        }
        e.text("components").map(1).text("data");
        e.map(4 + zstd as u64 + digest.is_some() as u64);
        e.text("dtype").text(dt.name());
        e.text("offset").uint(off as u64);
        e.text("length").uint(stored.len() as u64);
        if zstd {
            e.text("uncompressed_length").uint(n as u64);
        }
        e.text("encoding").text(if zstd { "zstd" } else { "raw" });
        if let Some(g) = &digest {
            e.text("digest").text(g);
        }
        expects.push(Expect {
            name,
            dims: Some(dims),
            comps: vec![("data".into(), off as u64, stored.len() as u64)],
            content: vec![Some(content)],
        });
    }
    let manifest = e.0;
    let mut file = region;
    file[..8].copy_from_slice(b"ZTEN1000");
    file.extend_from_slice(&manifest);
    file.extend_from_slice(&(manifest.len() as u64).to_le_bytes());
    file.extend_from_slice(b"ZTEN1000");
    (file, expects)
}

/// Attribute values that are always well-formed and free of duplicate keys.
fn enc_simple_attr(e: &mut Enc, a: &SAttr, budget: &mut usize, depth: usize) {
    if *budget == 0 || depth > 16 {
        e.0.push(0xf6);
        return;
    }
    *budget -= 1;
    match a {
        SAttr::Array(items) | SAttr::IndefArray(items) => {
            e.array(items.len() as u64);
            for i in items {
                enc_simple_attr(e, i, budget, depth + 1);
            }
        }
        SAttr::Map(entries) | SAttr::IndefMap(entries) => {
            e.map(entries.len() as u64);
            for (j, (_, v)) in entries.iter().enumerate() {
                e.uint(j as u64);
                enc_simple_attr(e, v, budget, depth + 1);
            }
        }
        SAttr::Tag(t, v) => {
            e.head(6, *t);
            enc_simple_attr(e, v, budget, depth + 1);
        }
        SAttr::Deep(n) => {
            let n = (*n as usize).min(32);
            e.0.extend(std::iter::repeat(0x81).take(n));
            e.0.push(0);
        }
        SAttr::Raw(b) => drop(e.bytes(b)),
        SAttr::Simple(s) if *s < 20 => e.0.push(0xe0 | s),
        SAttr::Simple(s) if *s < 32 => e.0.push(0xf6),
        other => enc_attr(e, other, budget),
    }
}

pub fn structured(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(d) = SFile::arbitrary(&mut u) else { return };
    if d.valid {
        let (file, expects) = build_valid(&d);
        let f = File::parse(&file).unwrap_or_else(|e| panic!("a valid-by-construction file was refused: {e}\n{d:?}"));
        check_expect(&f, &expects, true);
        for (o, x) in f.objects().zip(&expects) {
            let c = o.data().unwrap();
            let want = x.content[0].as_ref().unwrap();
            assert_eq!(&c.to_vec().unwrap(), want, "content of {:?}", o.name());
            assert!(matches!(c.verify_digest(), Ok(Verified::Ok | Verified::NoDigest)));
            o.check_data().unwrap_or_else(|e| panic!("check_data of a valid object: {e}"));
        }
        assert_eq!(f.verify(|e| panic!("verify: {e}"), |_, _| {}), 0);
        open_walk(&file);
        return;
    }
    let (file, expects) = build_structured(&d);
    if let Ok(f) = File::parse(&file) {
        if d.corrupt.is_none() {
            check_expect(&f, &expects, false);
        }
    }
    open_walk(&file);
}

/// For corpus statistics: (valid-by-construction mode, file opened) for a
/// `structured` input, `None` when the bytes describe nothing.
pub fn structured_outcome(data: &[u8]) -> Option<(bool, bool)> {
    let mut u = Unstructured::new(data);
    let d = SFile::arbitrary(&mut u).ok()?;
    let (file, _) = if d.valid { build_valid(&d) } else { build_structured(&d) };
    Some((d.valid, File::parse(&file).is_ok()))
}

/// What was opened is what was encoded.
fn check_expect(f: &File<'_>, expects: &[Expect], strict: bool) {
    assert_eq!(f.len(), expects.len(), "object count");
    for (i, x) in expects.iter().enumerate() {
        let o = f.object(i).unwrap();
        assert_eq!(o.name(), x.name);
        assert_eq!(f.get(&x.name).map(|o| o.index()), Some(i), "lookup of {:?}", x.name);
        if let Some(dims) = &x.dims {
            assert_eq!(&o.shape().to_vec(), dims, "shape of {:?}", x.name);
        }
        let comps: Vec<(String, u64, u64)> =
            o.components().map(|c| (c.role().to_string(), c.offset(), c.length())).collect();
        let _ = strict;
        assert_eq!(comps, x.comps, "components of {:?}", x.name);
    }
}

// ====================================================================
// (e) writer_roundtrip: the writer's output reads back as written
// ====================================================================

use ztensor::write::{AttrValue, Checksum, Compression, NewComponent, NewObject, Writer};

#[derive(Arbitrary, Debug)]
pub struct WFile {
    attrs: Vec<(String, WAttr)>,
    objects: Vec<WObject>,
    append: Vec<WObject>,
}

#[derive(Arbitrary, Debug, Clone)]
enum WAttr {
    Uint(u64),
    NegInt(u64),
    Float(f64),
    Text(String),
    Bytes(Vec<u8>),
    Bool(bool),
    Null,
    Array(Vec<WAttr>),
    Map(Vec<(WAttr, WAttr)>),
    Tag(u64, Box<WAttr>),
    Cbor(Vec<u8>),
    Deep(u8),
}

#[derive(Arbitrary, Debug)]
struct WObject {
    name: String,
    kind: WKind,
    compression: Option<i8>,
    checksum: u8,
    attrs: Vec<(String, WAttr)>,
    ltype: Option<u8>,
}

#[derive(Arbitrary, Debug)]
enum WKind {
    Dense { dtype: u8, dims: Vec<u8>, fill: Vec<u8>, exact: bool },
    Csr { rows: u8, cols: u8, nnz_per_row: Vec<u8> },
    Coo { dims: Vec<u8>, nnz: u8 },
    Quantized { dims: Vec<u8>, groups: u8 },
    Custom { format: String, dims: Vec<u8>, comps: Vec<(String, u8, Vec<u8>, Option<i8>)> },
}

fn to_attr(a: &WAttr) -> AttrValue {
    match a {
        WAttr::Uint(n) => AttrValue::Uint(*n),
        WAttr::NegInt(n) => AttrValue::NegInt(*n),
        WAttr::Float(f) => AttrValue::Float(*f),
        WAttr::Text(s) => AttrValue::Text(s.clone()),
        WAttr::Bytes(b) => AttrValue::Bytes(b.clone()),
        WAttr::Bool(b) => AttrValue::Bool(*b),
        WAttr::Null => AttrValue::Null,
        WAttr::Array(v) => AttrValue::Array(v.iter().map(to_attr).collect()),
        WAttr::Map(v) => AttrValue::Map(v.iter().map(|(k, v)| (to_attr(k), to_attr(v))).collect()),
        WAttr::Tag(t, v) => AttrValue::Tag(*t, Box::new(to_attr(v))),
        WAttr::Cbor(b) => AttrValue::Cbor(b.clone()),
        WAttr::Deep(n) => {
            let mut v = AttrValue::Uint(0);
            for _ in 0..*n {
                v = AttrValue::Array(vec![v]);
            }
            v
        }
    }
}

/// Does the value read back equal the value written?
fn attr_eq(v: Value<'_>, a: &AttrValue) -> bool {
    match (v.get(), a) {
        (_, AttrValue::Cbor(b)) => v.raw() == &b[..],
        (ValueRef::Uint(x), AttrValue::Uint(y)) => x == *y,
        (ValueRef::NegInt(x), AttrValue::NegInt(y)) => x == *y,
        (ValueRef::Float(x), AttrValue::Float(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        (ValueRef::Text(c), AttrValue::Text(s)) => c.contiguous() == Some(s.as_bytes()),
        (ValueRef::Bytes(c), AttrValue::Bytes(b)) => c.contiguous() == Some(&b[..]),
        (ValueRef::Bool(x), AttrValue::Bool(y)) => x == *y,
        (ValueRef::Null, AttrValue::Null) => true,
        (ValueRef::Array(x), AttrValue::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(v, a)| attr_eq(v, a)),
        (ValueRef::Map(x), AttrValue::Map(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((k, v), (ka, va))| attr_eq(k, ka) && attr_eq(v, va))
        }
        (ValueRef::Tag(t, x), AttrValue::Tag(u, y)) => t == *u && attr_eq(x, y),
        _ => false,
    }
}

/// Final attributes after setting `attrs` in order (a key set again keeps
/// its first position, takes the last value).
fn final_attrs(attrs: &[(String, WAttr)]) -> Vec<(String, AttrValue)> {
    let mut out: Vec<(String, AttrValue)> = Vec::new();
    for (k, v) in attrs.iter().take(8) {
        let v = to_attr(v);
        match out.iter_mut().find(|(x, _)| x == k) {
            Some(e) => e.1 = v,
            None => out.push((k.clone(), v)),
        }
    }
    out
}

/// One object to write, with its components' decoded bytes.
struct Planned {
    name: String,
    format: String,
    dims: Vec<u64>,
    comps: Vec<(String, DType, Vec<u8>)>,
    checksum: Checksum,
    attrs: Vec<(String, AttrValue)>,
    /// Whether its data satisfies `check_data` by construction.
    sound: bool,
}

fn u64s(v: impl IntoIterator<Item = u64>) -> Vec<u8> {
    v.into_iter().flat_map(u64::to_le_bytes).collect()
}

fn plan(o: &WObject) -> (Planned, Compression, Option<u8>) {
    let small = |v: &[u8]| -> Vec<u64> { v.iter().take(4).map(|&x| x as u64 % 6).collect() };
    let (format, dims, comps, sound) = match &o.kind {
        WKind::Dense { dtype, dims, fill, exact } => {
            let dt = DType::ALL[*dtype as usize % 13];
            let dims = small(dims);
            let n = (dims.iter().product::<u64>() * dt.width()) as usize;
            let fill = if fill.is_empty() { vec![1] } else { fill.clone() };
            let mut bytes: Vec<u8> =
                (0..n).map(|i| if dt == DType::Bool { fill[i % fill.len()] & 1 } else { fill[i % fill.len()] }).collect();
            if !exact {
                bytes.push(0); // one byte too many: refused
            }
            ("dense".to_string(), dims, vec![("data".to_string(), dt, bytes)], *exact)
        }
        WKind::Csr { rows, cols, nnz_per_row } => {
            let (rows, cols) = (*rows as u64 % 6, *cols as u64 % 6);
            let mut indptr = vec![0u64];
            let mut indices = Vec::new();
            for r in 0..rows {
                let k = nnz_per_row.get(r as usize).map_or(0, |&x| x as u64 % (cols + 1));
                indices.extend(0..k);
                indptr.push(indptr.last().unwrap() + k);
            }
            let values: Vec<u8> = (0..indices.len() as u64).flat_map(|i| (i as f32).to_le_bytes()).collect();
            (
                "sparse_csr".to_string(),
                vec![rows, cols],
                vec![
                    ("values".to_string(), DType::F32, values),
                    ("indices".to_string(), DType::U64, u64s(indices)),
                    ("indptr".to_string(), DType::U64, u64s(indptr)),
                ],
                true,
            )
        }
        WKind::Coo { dims, nnz } => {
            let dims: Vec<u64> = small(dims).into_iter().map(|d| d + 1).collect();
            let nnz = *nnz as u64 % 5;
            let mut coords = Vec::new();
            for d in &dims {
                coords.extend((0..nnz).map(|i| i % d));
            }
            let values: Vec<u8> = (0..nnz).flat_map(|i| (i as f64).to_le_bytes()).collect();
            (
                "sparse_coo".to_string(),
                dims,
                vec![("values".to_string(), DType::F64, values), ("coords".to_string(), DType::U64, u64s(coords))],
                true,
            )
        }
        WKind::Quantized { dims, groups } => {
            let g = *groups as usize % 4 + 1;
            (
                "quantized_group".to_string(),
                small(dims),
                vec![
                    ("packed_weight".to_string(), DType::I32, vec![3; 4 * g]),
                    ("scales".to_string(), DType::F16, vec![0; 2 * g]),
                    ("zeros".to_string(), DType::F16, vec![0; 2 * g]),
                ],
                true,
            )
        }
        WKind::Custom { format, dims, comps } => (
            format.clone(),
            small(dims),
            comps.iter().take(4).map(|(r, d, b, _)| (r.clone(), DType::ALL[*d as usize % 13], b.clone())).collect(),
            false,
        ),
    };
    let compression = match o.compression {
        None => Compression::Raw,
        Some(l) => Compression::Zstd(l as i32 % 8),
    };
    let checksum = [Checksum::None, Checksum::Crc32c, Checksum::Sha256][o.checksum as usize % 3];
    (
        Planned { name: o.name.clone(), format, dims, comps, checksum, attrs: final_attrs(&o.attrs), sound },
        compression,
        o.ltype,
    )
}

fn new_object<'p>(p: &'p Planned, compression: Compression, ltype: Option<u8>, o: &WObject) -> NewObject<'p> {
    let format = Format::parse(&p.format);
    let mut obj = NewObject::new(p.name.as_str(), format, &p.dims).compression(compression).checksum(p.checksum);
    for (i, (role, dt, bytes)) in p.comps.iter().enumerate() {
        let mut c = NewComponent::new(role.as_str(), *dt, &bytes[..]);
        if let WKind::Custom { comps, .. } = &o.kind {
            if let Some(level) = comps[i].3 {
                c = c.compression(Compression::Zstd(level as i32 % 8));
            }
        }
        obj = obj.component(c);
    }
    if let Some(k) = ltype {
        obj = obj.logical_type(LogicalType::parse(LTYPES[k as usize % 6]));
    }
    for (k, v) in &p.attrs {
        obj = obj.attribute(k, v.clone());
    }
    obj
}

/// Write, read back, compare; then append and compare again.
pub fn writer_roundtrip(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(d) = WFile::arbitrary(&mut u) else { return };
    let planned: Vec<_> = d.objects.iter().take(16).map(plan).collect();

    let write = || {
        let mut w = Writer::new(Vec::new());
        let mut file_attrs: Vec<(String, AttrValue)> = Vec::new();
        for (k, v) in d.attrs.iter().take(8) {
            let v = to_attr(v);
            if w.set_attribute(k, v.clone()).is_ok() {
                match file_attrs.iter_mut().find(|(x, _)| x == k) {
                    Some(e) => e.1 = v,
                    None => file_attrs.push((k.clone(), v)),
                }
            }
        }
        let mut accepted = Vec::new();
        for (i, (p, c, l)) in planned.iter().enumerate() {
            let before = (w.len(), w.contains(&p.name));
            match w.add(new_object(p, *c, *l, &d.objects[i])) {
                Ok(()) => {
                    assert_eq!(w.len(), before.0 + 1);
                    assert!(!before.1, "a duplicate name was accepted");
                    accepted.push(i);
                }
                Err(_) => assert_eq!((w.len(), w.contains(&p.name)), before, "a refused object changed the writer"),
            }
        }
        let bytes = w.finish().unwrap_or_else(|e| panic!("finish after accepted objects failed: {e}"));
        (bytes, accepted, file_attrs)
    };
    let (bytes, accepted, file_attrs) = write();
    let (again, _, _) = write();
    assert!(bytes == again, "the writer is not deterministic");

    let f = File::parse(&bytes).unwrap_or_else(|e| panic!("the writer's output does not open: {e}"));
    assert_eq!(f.version(), ztensor::Version::V1_2);
    assert_eq!(f.len(), accepted.len());
    check_attrs(f.attributes(), &file_attrs);
    for (o, &i) in f.objects().zip(&accepted) {
        let (p, compression, _) = &planned[i];
        check_written(&o, p, *compression);
    }
    walk_file(&f, Some(&bytes));

    // Append to the file in memory: old objects keep their bytes.
    let Ok(mut w) = Writer::append_to_vec(bytes.clone()) else {
        panic!("append_to_vec refused the writer's own file")
    };
    let more: Vec<_> = d.append.iter().take(4).map(plan).collect();
    let mut added = Vec::new();
    for (i, (p, c, l)) in more.iter().enumerate() {
        if w.add(new_object(p, *c, *l, &d.append[i])).is_ok() {
            added.push(i);
        }
    }
    let appended = w.finish().unwrap_or_else(|e| panic!("finish after append failed: {e}"));
    let g = File::parse(&appended).unwrap_or_else(|e| panic!("the appended file does not open: {e}"));
    assert_eq!(g.len(), f.len() + added.len());
    check_attrs(g.attributes(), &file_attrs);
    for (a, b) in f.objects().zip(g.objects()) {
        assert_eq!(a.name(), b.name());
        assert_eq!(a.shape().to_vec(), b.shape().to_vec());
        for (x, y) in a.components().zip(b.components()) {
            assert_eq!((x.role(), x.offset(), x.length(), x.digest()), (y.role(), y.offset(), y.length(), y.digest()));
            assert_eq!(x.stored_bytes().unwrap(), y.stored_bytes().unwrap());
        }
        assert_eq!(a.attributes().len(), b.attributes().len());
    }
    for (o, &i) in g.objects().skip(f.len()).zip(&added) {
        let (p, compression, _) = &more[i];
        check_written(&o, p, *compression);
    }
    walk_file(&g, Some(&appended));
}

fn check_attrs(m: ztensor::Map<'_>, want: &[(String, AttrValue)]) {
    assert_eq!(m.len(), want.len(), "attribute count");
    for (k, v) in want {
        let got = m.get(k).unwrap_or_else(|| panic!("attribute {k:?} lost"));
        assert!(attr_eq(got, v), "attribute {k:?}: wrote {v:?}, read {got:?}");
    }
}

fn check_written(o: &Object<'_>, p: &Planned, compression: Compression) {
    assert_eq!(o.name(), p.name);
    assert_eq!(o.format().name(), p.format);
    assert_eq!(o.shape().to_vec(), p.dims);
    check_attrs(o.attributes(), &p.attrs);
    let comps: Vec<_> = o.components().collect();
    assert_eq!(comps.len(), p.comps.len());
    for (c, (role, dt, bytes)) in comps.iter().zip(&p.comps) {
        assert_eq!(c.role(), role);
        assert_eq!(c.dtype(), *dt);
        assert_eq!(c.offset() % 64, 0);
        let v = c.to_vec().unwrap_or_else(|e| panic!("{:?}/{role}: {e}", p.name));
        assert!(v == *bytes, "{:?}/{role}: data differs", p.name);
        if compression == Compression::Raw && c.encoding() == Encoding::Raw {
            assert_eq!(c.stored_bytes().unwrap(), &bytes[..]);
        }
        match p.checksum {
            Checksum::None => assert!(c.digest().is_none()),
            _ => assert!(matches!(c.verify_digest(), Ok(Verified::Ok)), "digest of {:?}/{role}", p.name),
        }
    }
    if p.sound {
        o.check_data().unwrap_or_else(|e| panic!("check_data of a written {}: {e}", p.format));
    }
}

/// Decode `data` as the structured target would (for debugging a finding).
/// The file a `structured` input builds (for debugging a finding), `None`
/// when the bytes describe nothing.
pub fn structured_file(data: &[u8]) -> Option<Vec<u8>> {
    let mut u = Unstructured::new(data);
    let d = SFile::arbitrary(&mut u).ok()?;
    Some(if d.valid { build_valid(&d).0 } else { build_structured(&d).0 })
}

pub fn describe_structured(data: &[u8]) -> String {
    let mut u = Unstructured::new(data);
    match SFile::arbitrary(&mut u) {
        Ok(d) => format!("{d:#?}"),
        Err(e) => format!("(no description: {e})"),
    }
}

