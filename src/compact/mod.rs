//! The compact reader: v1.x and v2 files, no heap, small code, for firmware.
//!
//! The same rules as [`crate::File`] on v1.0–v1.2 and v2 files (it accepts and
//! refuses the same files; `tests/compact.rs` checks that on every fixture,
//! hostile file and thousands of mutations of them), in less code (the
//! firmware's C library: 19.1 KiB of flash instead of 44.9): errors are a
//! [`Fault`] (a kind and a manifest byte, 8 bytes) instead of an
//! [`crate::Error`], and the views decode only what is asked.
//! v0.1 files are refused as [`Status::Unsupported`] (and v2 files in a
//! build without `v2`), and so are v2 sharded files and data
//! shards (see `v2.rs`); zstd components are listed but not decoded.
//!
//! Memory: the caller's `slots` serve as scratch while [`File::open`]
//! validates (the same needs as [`crate::File::parse_with_scratch`]: keys
//! of attribute maps, deep nesting, names out of order, blobs out of file
//! order), then as the name index: with at least one slot per object,
//! [`File::find`] is O(log n) and [`File::object`] O(1); with fewer, both
//! scan the objects.
//!
//! ```
//! let bytes = ztensor::doc_example_file();
//! let mut slots = [[0u64; 2]; 8];
//! let f = ztensor::compact::File::open(&bytes, &mut slots).unwrap();
//! let (_, bias) = f.find(b"bias").unwrap();
//! let data = bias.component(b"data").unwrap();
//! assert_eq!(f.stored(&data), &(0.5f32).to_le_bytes().into_iter().chain((-0.5f32).to_le_bytes()).collect::<Vec<u8>>()[..]);
//! assert!(f.verify(ztensor::verify::Options::ALL).first.is_none());
//! ```

pub(crate) mod cur;
mod fault;
pub(crate) mod pass;
#[cfg(feature = "v2")]
pub(crate) mod pass_v2;
#[cfg(feature = "v2")]
mod v2;
mod verify;
pub(crate) mod view;

pub use crate::value::{Map, Value, ValueRef};
pub use fault::{Fault, Kind, Status};
pub use verify::Report;
pub use view::{Component, Components, Object, Shape};

use crate::container::{Tail, MAGIC_V0, MAGIC_V1, MAX_MANIFEST_LEN, READS_V2};
use crate::scratch::Entry as Slot;
use crate::types::Version;

/// A validated v1.x or v2 file in memory (a model in flash): views borrow it.
#[derive(Clone, Copy)]
pub struct File<'a> {
    bytes: &'a [u8],
    /// The CBOR manifest (`bytes[manifest_offset..]`, without the footer).
    m: &'a [u8],
    manifest_offset: u64,
    version: Version,
    /// The objects map's first entry (a manifest position) and entry count.
    objects: usize,
    count: usize,
    /// The root `attributes` map's head, when present.
    attributes: Option<usize>,
    /// The name index (see the module docs); empty without one.
    index: &'a [Slot],
    /// With `alloc`: the index is in the order of the names' hashes
    /// (then bytes), not of their bytes (see `pass/noted.rs`).
    #[cfg(feature = "alloc")]
    hashed: bool,
}

impl<'a> File<'a> {
    /// Validate the whole file `bytes` (every rule that metadata alone
    /// allows checking), with `slots` as scratch, then keep them as the
    /// name index. Refusals: [`Status::Format`] (a broken file),
    /// [`Status::Unsupported`] (v0.1, a v2 sharded file, or a manifest
    /// major other than 1), [`Status::BufferTooSmall`] (too few slots for
    /// this file).
    pub fn open(bytes: &'a [u8], slots: &'a mut [Slot]) -> Result<File<'a>, Fault> {
        let mut f = core::mem::MaybeUninit::uninit();
        File::open_in(bytes, slots, &mut f).map(|f| *f)
    }

    /// [`File::open`] written into `place` (a caller's storage: no copy of
    /// the `File` from a `Result`); `place` is left as it was on a refusal.
    pub fn open_in<'p>(
        bytes: &'a [u8],
        slots: &'a mut [Slot],
        place: &'p mut core::mem::MaybeUninit<File<'a>>,
    ) -> Result<&'p mut File<'a>, Fault> {
        #[cfg(feature = "v2")]
        if crate::v2::container::has_magic(bytes) {
            return v2::open(bytes, slots, place);
        }
        let (start, end) = manifest(bytes)?;
        let m = bytes.get(start..end).unwrap_or(&[]);
        let manifest_offset = start as u64;
        let root = pass::validate(m, manifest_offset, slots)?;
        let f = place.write(File {
            bytes,
            m,
            manifest_offset,
            version: root.version,
            objects: root.objects,
            count: root.count,
            attributes: root.attributes,
            index: &[],
            #[cfg(feature = "alloc")]
            hashed: root.hashed,
        });
        f.index = view::build_index(f, slots, root.ordered, root.noted(), root.sorted);
        Ok(f)
    }

    /// Number of objects.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether the file has no objects.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The manifest's `version`.
    pub fn version(&self) -> Version {
        self.version
    }

    /// The whole file.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Where the manifest starts, and its length.
    pub fn manifest(&self) -> (u64, u64) {
        (self.manifest_offset, self.m.len() as u64)
    }

    /// Whether the name index is in the slots (at least one per object).
    pub fn indexed(&self) -> bool {
        !self.index.is_empty() || self.count == 0
    }

    /// The file-level attributes (empty when absent).
    pub fn attributes(&self) -> Map<'a> {
        view::map_at(self.m, self.attributes)
    }

    /// The object at `index` in manifest order: O(1) with the index, else
    /// O(index).
    pub fn object(&self, index: usize) -> Option<Object<'a>> {
        view::object(self, index)
    }

    /// The object called `name`, with its index: O(log n) with the index,
    /// else a scan.
    pub fn find(&self, name: &[u8]) -> Option<(usize, Object<'a>)> {
        view::find(self, name)
    }

    /// The index of the object called `name` ([`File::find`] without the view).
    pub fn position(&self, name: &[u8]) -> Option<usize> {
        view::locate(self, name).map(|(i, _)| i)
    }

    /// Every object, in manifest order.
    pub fn objects(&self) -> impl Iterator<Item = Object<'a>> + 'a {
        view::objects(self.m, self.objects, self.count, self.version)
    }

    /// The stored bytes of a component of this file (zero-copy; validated
    /// in bounds at open).
    pub fn stored(&self, c: &Component<'a>) -> &'a [u8] {
        let bytes: &'a [u8] = self.bytes;
        bytes
            .get(c.offset as usize..(c.offset + c.length) as usize)
            .unwrap_or(&[])
    }

    /// Whether the decoded bytes `bytes` of `c` (of object `o`) may be
    /// handed out as its elements: in v2, a part of an unknown logical
    /// type is not decoded ([`Kind::UnknownType`]), and `bool` and
    /// `f4_e2m1` bytes obey Appendix A's rules, as [`crate::Component`]'s
    /// reads check them. Nothing to check in v1.x.
    pub fn check_decoded(
        &self,
        o: &Object<'a>,
        c: &Component<'a>,
        bytes: &[u8],
    ) -> Result<(), Fault> {
        #[cfg(feature = "v2")]
        if self.version.major == 2 {
            return v2::check_decoded(self.m, o, c, bytes);
        }
        let _ = (o, c, bytes);
        Ok(())
    }

    /// The encoding's identifier as the file spells it: v2's `encoding`
    /// text (§3.4; an unregistered one included), else the encoding's name.
    pub fn encoding_id(&self, c: &Component<'a>) -> &'a str {
        #[cfg(feature = "v2")]
        if self.version.major == 2 {
            return v2::encoding_id(self.m, c);
        }
        c.encoding.name()
    }

    /// Check digests and the data rules (see [`crate::verify`]) of every
    /// component: the same findings as [`crate::File::verify_with`],
    /// counted in a [`Report`]; zstd components' data is not decoded
    /// ([`Status::Unsupported`] when data checks are asked for).
    pub fn verify(&self, options: crate::verify::Options) -> Report {
        #[cfg(feature = "v2")]
        if self.version.major == 2 {
            return v2::verify(self, options);
        }
        verify::run(self, options)
    }
}

/// The `n`th of the NUL-terminated texts in `table` ("" past the last):
/// the phrase tables of [`Kind::message`] and the C layer's texts (one
/// copy of the scan in firmware).
#[doc(hidden)]
#[inline(never)]
pub fn nth_text(table: &'static str, mut n: usize) -> &'static str {
    let mut start = 0;
    for (i, b) in table.bytes().enumerate() {
        if b == 0 {
            if n == 0 {
                return table.get(start..i).unwrap_or("");
            }
            n -= 1;
            start = i + 1;
        }
    }
    ""
}

/// Where a v1.x file's manifest lies (start and end): the full reader's
/// container rules ([`Tail::from_file`]) for the two refusals told apart
/// here, a broken container ([`Kind::Container`]) and a sound v0.1 or v2
/// one ([`Kind::Generation`]).
fn manifest(bytes: &[u8]) -> Result<(usize, usize), Fault> {
    let fault = |k| Err(Fault::new(k, 0));
    let Some(h) = bytes.first_chunk::<8>() else {
        return fault(Kind::Container);
    };
    if *h == crate::v2::container::MAGIC {
        // (Without the v2 reader, refused unread.)
        if READS_V2 {
            Tail::from_file(bytes).map_err(Fault::container)?;
        }
        return fault(Kind::Generation);
    }
    let v1 = *h == MAGIC_V1;
    let len = bytes.len();
    // The footer: v1.x, the manifest size and `ZTEN1000`; v0.1, the size last.
    let Some((size, magic)) = bytes
        .last_chunk::<16>()
        .filter(|_| len > 16)
        .map(|f| f.split_at(8))
    else {
        return fault(Kind::Container);
    };
    if !v1 && *h != MAGIC_V0 || v1 != (magic == MAGIC_V1) {
        return fault(Kind::Container);
    }
    let le = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
    let size = le(if v1 { size } else { magic });
    // Header, manifest and footer fit (the size at most 1 GiB first: no overflow).
    let end = len - if v1 { 16 } else { 8 };
    if size > MAX_MANIFEST_LEN || size as usize + 8 > end {
        return fault(Kind::Container);
    }
    if !v1 {
        return fault(Kind::Generation);
    }
    Ok((end - size as usize, end))
}
