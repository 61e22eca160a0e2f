//! The compact reader on v2 files (format v2 Draft 4): open, views and
//! verify over [`crate::v2`]'s rules, with [`Fault`]s.
//!
//! Open checks the container and its manifest XXH3 (§2), then runs the
//! compact v2 pass (`pass_v2.rs`: deterministic CBOR (§3.1), schema
//! (§3.2-§3.5), blob placement and overlap (§2.4), logical types
//! (Appendix A), every registered layout profile's metadata rules (§5))
//! with the caller's slots as its span scratch, then keeps the slots as
//! the name index, as for v1.x. A v2 object is an [`Object`], a part a
//! [`Component`] whose role is the part name (as `v2/wire.rs` maps them
//! for [`crate::File`]), read with the pass's `read_part`; the layout
//! rules read the object's fields through `layout::Shaped` (`LayoutFields`).
//!
//! A sharded file (a shard table, §7) and a data shard are refused as
//! [`Kind::Sharded`] once they are found valid: their parts lie in other
//! files, and this reader holds one file in memory.
//!
//! Verify follows [`crate::File::verify_with`] on v2 in a build without
//! `alloc`: digests over the decoded bytes (a raw part's are its stored
//! bytes); a `zt.zstd-seekable/1` part is not decoded ([`Kind::Zstd`]).

use super::cur::Cur;
use super::pass_v2::read_part;
use super::{Component, Fault, File, Kind, Object, Report};
use crate::types::{Encoding, LogicalType, Version};
use crate::v2::layout::{self, PartSet, Profile, Shaped};
use crate::v2::{Digest, Error as V2Error, Kind as V2Kind, Part};
use crate::verify::Options;

/// The compact kind of a v2 rule's refusal, at its manifest byte (0 when
/// the v2 reader names none).
pub(crate) fn fault(e: V2Error) -> Fault {
    use Kind as C;
    use V2Kind as K;
    let kind = match e.kind {
        K::TooShort
        | K::BadMagic
        | K::ManifestTooLarge
        | K::ManifestOutOfBounds
        | K::BadDataShardFooter
        | K::ManifestLengthMismatch => C::Container,
        K::UnsupportedVersion => C::Version,
        K::ManifestHashMismatch => C::ManifestHash,
        K::CborTruncated | K::CborInvalid => C::Cbor,
        K::CborNonShortest
        | K::CborIndefinite
        | K::CborTag
        | K::CborSimple
        | K::CborNonCanonicalFloat
        | K::CborUnsortedKeys => C::NotDeterministic,
        K::CborDuplicateKey => C::DuplicateKey,
        K::CborTrailingBytes => C::Trailing,
        K::CborTooDeep => C::Deep,
        K::CborInvalidUtf8 => C::Utf8,
        K::WrongType | K::BlobNotPair => C::WrongType,
        K::MissingField => C::Missing,
        K::BadName | K::BadShardName => C::Name,
        K::EmptyParts | K::LayoutParts => C::MissingComponent,
        K::RankTooLarge => C::Rank,
        K::ShapeOverflow => C::Overflow,
        K::UnknownDtype => C::DType,
        K::BlobMisaligned => C::Misaligned,
        K::BlobBelowFloor | K::BlobOutOfBounds => C::OutOfBounds,
        K::BlobOverlap => C::Overlap,
        K::EncodingLengthPair => C::NoDecodedSize,
        K::BadDigest => C::BadDigest,
        K::UnknownShard | K::BadShardSize | K::ShardMismatch | K::ShardMissing => C::Shard,
        K::TypeDtypeMismatch => C::LogicalType,
        K::LayoutPartType | K::LayoutRank | K::LayoutAttribute => C::Layout,
        K::SizeMismatch => C::Length,
        K::BoolValue => C::Bool,
        K::F4OddNibble => C::F4Nibble,
        K::CsrIndptr => C::Indptr,
        K::CsrIndices => C::Column,
        K::CooOutOfRange => C::Coordinate,
        K::CooDuplicate => C::CooDuplicate,
        K::Seekable => C::Seekable,
        K::DecodedLength => C::DecodedLength,
        K::DigestMismatch => C::DigestMismatch,
        K::ScratchTooSmall => C::Slots,
        K::NotAvailable | K::Unsupported => C::Zstd,
    };
    Fault::new(kind, e.offset.unwrap_or(0))
}

/// Open the v2 file `bytes` into `place` (see [`File::open_in`]): the
/// container (§2, the manifest's XXH3 among it), then the compact pass
/// (`pass_v2.rs`).
pub(crate) fn open<'a, 'p>(
    bytes: &'a [u8],
    slots: &'a mut [crate::scratch::Entry],
    place: &'p mut core::mem::MaybeUninit<File<'a>>,
) -> Result<&'p mut File<'a>, Fault> {
    let (footer, m) = crate::v2::container::open(bytes).map_err(fault)?;
    if footer.is_data_shard() {
        return Err(Fault::new(Kind::Sharded, 0));
    }
    let root = super::pass_v2::validate(m, footer, slots)?;
    if root.sharded {
        return Err(Fault::new(Kind::Sharded, 0));
    }
    let f = place.write(File {
        bytes,
        m,
        manifest_offset: footer.manifest_offset,
        version: Version::V2,
        objects: root.objects,
        count: root.count,
        attributes: root.attributes,
        index: &[],
        #[cfg(feature = "alloc")]
        hashed: false,
    });
    // The index in the slots where the pass noted the names, if it could.
    let slots = slots.get_mut(root.names.unwrap_or(0)..).unwrap_or_default();
    // (Names come in key order, §3.1, which is the index's order for v2:
    // nothing to sort.)
    f.index = super::view::build_index(f, slots, true, root.names.is_some(), false);
    Ok(f)
}

/// The compact view of the part `p` of a validated v2 manifest.
pub(crate) fn component(p: Part<'_>) -> Component<'_> {
    let (logical, encoding) = crate::v2::wire::logical_and_encoding(&p);
    Component {
        role: p.name,
        dtype: p.dtype,
        logical,
        encoding,
        offset: p.offset,
        length: p.length,
        uncompressed_length: p.decoded_length,
        digest: p.digest_text,
        at: p.pos,
    }
}

/// The next part of a validated `parts` map at `pos`, as a [`Component`].
pub(crate) fn next_component<'a>(m: &'a [u8], pos: &mut usize) -> Option<Component<'a>> {
    let mut c = Cur::det(m, *pos);
    let name = c.str();
    let (p, _) = read_part(&mut c, name);
    *pos = c.pos;
    c.fault.is_none().then(|| component(p))
}

/// The v2 part behind a compact component (its map at `c.at`).
fn part<'a>(m: &'a [u8], c: &Component<'a>) -> Option<Part<'a>> {
    let mut cur = Cur::det(m, c.at);
    let (p, _) = read_part(&mut cur, c.role);
    cur.fault.is_none().then_some(p)
}

/// The object's layout profile (§5, validated at open) and its parts as
/// the layout's rules see them.
fn profile<'a>(m: &'a [u8], o: &Object<'a>) -> (Profile<'a>, PartSet<'a>) {
    let mut set = PartSet::new(o.component_count());
    o.components().filter_map(|c| part(m, &c)).for_each(|p| set.push(&p));
    let fields = o.layout_fields();
    (
        layout::check(&fields, &set).unwrap_or(Profile::Unknown(fields.layout())),
        set,
    )
}

/// The element count the logical type of part `p` of `o` sees (see
/// `v2::verify::elements`). Out of line: the object's fields are not in
/// the frames of the digest and data checks that follow.
#[inline(never)]
fn elements<'a>(
    o: &Object<'a>,
    (profile, set): (&Profile<'a>, &PartSet<'a>),
    p: &Part<'_>,
) -> Option<u64> {
    crate::v2::verify::elements(&o.layout_fields(), profile, set, p)
}

/// The `encoding` text of a v2 component ("raw" for none, as
/// [`crate::Component::encoding_id`] says it).
pub(crate) fn encoding_id<'a>(m: &'a [u8], c: &Component<'a>) -> &'a str {
    part(m, c)
        .and_then(|p| p.encoding)
        .unwrap_or(c.encoding.name())
}

/// [`File::check_decoded`] on a v2 file.
pub(crate) fn check_decoded<'a>(
    m: &'a [u8],
    o: &Object<'a>,
    c: &Component<'a>,
    bytes: &[u8],
) -> Result<(), Fault> {
    match c.logical {
        Some(LogicalType::Other(_)) => return Err(Fault::new(Kind::UnknownType, c.at)),
        Some(LogicalType::Bool | LogicalType::F4E2M1) => {}
        _ => return Ok(()),
    }
    let Some(p) = part(m, c) else { return Ok(()) };
    let Some(t) = p.logical() else { return Ok(()) };
    // (The f4_e2m1 padding rule needs the element count its layout gives.)
    let (profile, set) = profile(m, o);
    let n = elements(o, (&profile, &set), &p).unwrap_or(0);
    crate::v2::data::check_logical(t, n, bytes).map_err(|e| Fault {
        at: c.at as u32,
        ..fault(e)
    })
}

/// [`File::verify`] on a v2 file: the checks of `File::verify_with` on v2
/// (`verify::part` for each part, then the layout's data rules), in the
/// same order, on the stored bytes.
pub(crate) fn verify(f: &File<'_>, opt: Options) -> Report {
    let mut r = Report::default();
    for o in f.objects() {
        r.objects += 1;
        let (profile, set) = profile(f.m, &o);
        for c in o.components() {
            r.components += 1;
            verify_part(f, &o, (&profile, &set), &c, opt, &mut r);
        }
        if opt.data {
            if let Err(k) = layout_data(f, &o, profile) {
                r.problem(k.kind, k.at as usize);
            }
        }
    }
    r
}

/// One part's checks in [`verify`]. Out of line: its locals are not in
/// `verify`'s frame while the layout check (`profile`) walks the manifest.
#[inline(never)]
fn verify_part<'a>(
    f: &File<'a>,
    o: &Object<'a>,
    (profile, set): (&Profile<'a>, &PartSet<'a>),
    c: &Component<'a>,
    opt: Options,
    r: &mut Report,
) {
    let Some(mut p) = part(f.m, c) else { return };
    if !opt.digests {
        p.digest = None;
    }
    let unverifiable = |r: &mut Report| {
        r.unverifiable += 1;
        if opt.strict {
            r.problem(Kind::Unverifiable, c.at);
        }
    };
    // An unknown encoding: nothing of it can be checked (§6.3).
    if c.encoding == Encoding::Unknown {
        if opt.digests || opt.data {
            unverifiable(r);
        }
        return;
    }
    // A digest of an unregistered algorithm cannot be checked; with
    // no data rules asked for, nothing else is read.
    let other = matches!(p.digest, Some(Digest::Unknown { .. }));
    if !opt.data && (p.digest.is_none() || other) {
        if other {
            unverifiable(r);
        }
        return;
    }
    let Some(decoded) = decoded(f, c) else {
        r.problem(Kind::Zstd, c.at);
        return;
    };
    let n = if opt.data {
        elements(o, (profile, set), &p)
    } else {
        None
    };
    match crate::v2::verify::part(&p, n, decoded) {
        Ok(true) => r.digests_checked += 1,
        Ok(false) if other => unverifiable(r),
        Ok(false) => {}
        Err(e) => r.problem(fault(e).kind, c.at),
    }
}

/// A part's decoded bytes: a raw part's stored bytes (`None` for any other
/// encoding, which this reader does not decode).
fn decoded<'a>(f: &File<'a>, c: &Component<'a>) -> Option<&'a [u8]> {
    (c.encoding == Encoding::Raw).then(|| f.stored(c))
}

/// The data rules of the object's layout (zt.sparse_csr/1: indptr and
/// indices; zt.sparse_coo/1: coordinates), as `v2/file_verify.rs` runs them.
/// Out of line: its frame is not in `verify`'s under the layout check's
/// walk.
#[inline(never)]
fn layout_data<'a>(f: &File<'a>, o: &Object<'a>, profile: Profile<'a>) -> Result<(), Fault> {
    let bytes = |role: &[u8]| -> Result<&[u8], Fault> {
        let c = o
            .component(role)
            .ok_or(Fault::new(Kind::MissingComponent, o.name_pos()))?;
        decoded(f, &c).ok_or(Fault::new(Kind::Zstd, c.at))
    };
    let at = |e: V2Error| Fault {
        at: o.name_pos() as u32,
        ..fault(e)
    };
    match profile {
        Profile::Csr { index } => {
            let (ip, ix) = (bytes(b"indptr")?, bytes(b"indices")?);
            // (Dimensions taken off the front: a CSR shape has two.)
            let mut dims = o.shape();
            let (rows, cols) = (dims.pop(), dims.pop());
            crate::v2::data::check_csr(rows, cols, index, ip, ix).map_err(at)
        }
        Profile::Coo { index } => coo_data(o, index, bytes(b"coords")?).map_err(at),
        _ => Ok(()),
    }
}

/// zt.sparse_coo/1's data rules on `coords`. Out of line, as
/// `layout_data`: the shape array is on the stack only here.
#[inline(never)]
fn coo_data(o: &Object<'_>, index: crate::v2::types::DType, coords: &[u8]) -> Result<(), V2Error> {
    let mut shape = [0u64; crate::v2::MAX_RANK as usize];
    let mut dims = o.shape();
    let rank = dims.ndim;
    for s in shape.iter_mut().take(rank) {
        *s = dims.pop();
    }
    crate::v2::data::check_coo(shape.get(..rank).unwrap_or(&[]), index, coords)
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::super::{File, Kind};
    extern crate std;
    use std::vec;

    fn fixture(name: &str) -> std::vec::Vec<u8> {
        std::fs::read(std::format!(
            "{}/tests/fixtures/v2/hostile/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    /// A data shard is valid but refused (its parts lie elsewhere); a
    /// broken manifest hash is a format fault.
    #[test]
    fn sharded_files_are_unsupported_and_the_manifest_hash_is_checked() {
        let mut slots = vec![[0u64; 2]; 64];
        let e = File::open(&fixture("c_data_shard.zt"), &mut slots).err();
        assert_eq!(e.map(|e| e.kind), Some(Kind::Sharded));
        let e = File::open(&fixture("c_hash_mismatch.zt"), &mut slots).err();
        assert_eq!(e.map(|e| e.kind), Some(Kind::ManifestHash));
        assert!(File::open(&fixture("c_valid.zt"), &mut slots).is_ok());
    }

    /// The compact pass's deterministic dialect (§3.1), each refusal with
    /// its kind: nesting 32 deep opens and 33 does not; keys out of order,
    /// a key twice, a float wider than it needs, an indefinite length and
    /// a tag are refused.
    #[test]
    fn the_deterministic_dialect_is_checked() {
        let cases = [
            ("cbor_depth_32.zt", None),
            ("cbor_depth_33.zt", Some(Kind::Deep)),
            ("cbor_unsorted_root.zt", Some(Kind::NotDeterministic)),
            ("cbor_duplicate_key.zt", Some(Kind::DuplicateKey)),
            ("cbor_f64_fits_f32.zt", Some(Kind::NotDeterministic)),
            ("cbor_indefinite_map.zt", Some(Kind::NotDeterministic)),
            ("cbor_tag.zt", Some(Kind::NotDeterministic)),
            ("cbor_non_shortest_uint.zt", Some(Kind::NotDeterministic)),
            ("cbor_bad_utf8.zt", Some(Kind::Utf8)),
        ];
        for (name, want) in cases {
            let mut slots = vec![[0u64; 2]; 64];
            let got = File::open(&fixture(name), &mut slots).err().map(|e| e.kind);
            assert_eq!(got, want, "{name}");
        }
    }

    /// Spans take two slots each, and two for the manifest (as the v2
    /// reader's scratch): one blob needs four.
    #[test]
    fn each_blob_and_the_manifest_take_two_slots() {
        let bytes = fixture("c_valid.zt");
        for (n, ok) in [(0, false), (3, false), (4, true)] {
            let mut slots = vec![[0u64; 2]; n];
            let got = File::open(&bytes, &mut slots).err().map(|e| e.kind);
            assert_eq!(got, (!ok).then_some(Kind::Slots), "{n} slots");
        }
    }

    /// Reads: an unknown logical type is not decoded; bool bytes over 1
    /// are corrupt (Appendix A); a plain part reads as stored.
    #[test]
    fn decoded_bytes_obey_the_logical_type() {
        let cases = [
            ("t_unknown_type.zt", Some(Kind::UnknownType)),
            ("t_bool_value.zt", Some(Kind::Bool)),
            ("c_valid.zt", None),
        ];
        for (name, want) in cases {
            let bytes = fixture(name);
            let mut slots = vec![[0u64; 2]; 64];
            let f = File::open(&bytes, &mut slots).unwrap();
            let o = f.object(0).unwrap();
            let c = o.components().next().unwrap();
            let got = f.check_decoded(&o, &c, f.stored(&c)).err().map(|e| e.kind);
            assert_eq!(got, want, "{name}");
        }
    }
}
