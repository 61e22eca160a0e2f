//! Files on disk (`std`): one type over two ways of reading.
//!
//! - [`Mode::Mmap`] (default): the file is memory-mapped; opening costs
//!   O(manifest), whatever the file's size, and raw components are
//!   zero-copy slices of the mapping (64-byte aligned).
//! - [`Mode::Positional`]: only the footer and the manifest are read at
//!   open; each component is fetched with a positional read when asked for.
//!   For network filesystems and files larger than the address space.
//!   [`Reader::from_source`] reads the same way from any
//!   [`crate::source::Source`]: a caller's callbacks, an HTTP
//!   resource, bytes in memory.
//!
//! Files that change while open. Replacing a file by a rename (what
//! [`FileSink`](crate::write::FileSink) does) is harmless in both modes:
//! the reader keeps the file it opened. Changing it in place is not: with
//! [`Mode::Mmap`], reading a part cut off by truncation kills the process
//! with `SIGBUS` (as with any memory map; the safe API relies on the file
//! staying whole, see memmap2), and rewritten bytes show through; with
//! [`Mode::Positional`] such reads fail with an I/O error. Where files can
//! be truncated or rewritten under a reader, use [`Mode::Positional`].
//! Only regular files are opened (a FIFO, directory or device is refused
//! before anything waits on it).
//!
//! v2 files whose parts lie in shards (§7): each shard is found when one of
//! its parts is first read (Appendix B: its positional name beside the
//! root, else by size and digest in the same directory), its size and
//! footer checked then, and kept open. A missing shard fails reads of its
//! parts ([`ErrorKind::ShardMissing`]), not the open.

#![allow(unsafe_code)] // memory mapping

use crate::container::{Tail, HEADER_LEN, MAX_FOOTER_LEN};
use crate::error::ErrorKind;
use crate::file::File;
use crate::object::Component;
use crate::source::{read, Source};
use tail::TailRead;
use crate::types::Encoding;
use std::boxed::Box;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::string::String;
use std::vec::Vec;

pub(crate) mod tail;

/// How a [`Reader`] reads the file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Map the whole file into memory.
    #[default]
    Mmap,
    /// Read only the footer and manifest at open, components on demand.
    Positional,
}

/// An error of the file layer: I/O, or an invalid file.
#[derive(Debug)]
pub enum Error {
    /// The operating system refused.
    Io(std::io::Error),
    /// The bytes are not a valid zTensor file.
    Format(crate::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io(e) => write!(f, "{e}"),
            Error::Format(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

impl From<crate::Error> for Error {
    fn from(e: crate::Error) -> Self {
        Error::Format(e)
    }
}

/// What `Reader::file` borrows from.
enum Backing {
    Map(memmap2::Mmap),
    /// The manifest bytes, where the file puts them, the source read by
    /// position, and the file's last bytes (a v2 footer is 40).
    Positional(Vec<u8>, Tail, Box<dyn Source>, Vec<u8>),
}

/// Validate what `b` holds: the whole mapped file, or the manifest alone.
fn parse(b: &Backing) -> crate::Result<File<'_>> {
    match b {
        Backing::Map(m) => File::parse(m),
        Backing::Positional(m, tail, _, footer) if tail.layout == crate::container::Layout::V2 => {
            File::parse_tail(footer, m, tail.file_len)
        }
        Backing::Positional(m, tail, _, _) => File::parse_manifest(m, *tail, None),
    }
}

self_cell::self_cell!(
    /// The backing bytes and the validated file borrowing them.
    struct Owned {
        owner: Backing,
        #[covariant]
        dependent: File,
    }
);

/// A validated zTensor file opened from a path.
///
/// ```no_run
/// # fn main() -> Result<(), ztensor::fs::Error> {
/// let r = ztensor::fs::Reader::open("model.zt")?;
/// for obj in r.file().objects() {
///     let data = obj.data()?;
///     let bytes = r.to_vec(&data)?; // decoded, whatever the mode and encoding
///     println!("{}: {} bytes", obj.name(), bytes.len());
/// }
/// # Ok(()) }
/// ```
pub struct Reader {
    owned: Owned,
    /// The path opened (v2 shards are found beside it); none for a
    /// [`Source`], which finds its shards itself ([`Source::open_shard`]).
    path: Option<PathBuf>,
    /// v2 shards opened so far, by name.
    shards: Mutex<Vec<(String, Arc<dyn Source>)>>,
}

impl Reader {
    /// Open and validate with a memory map.
    pub fn open(path: impl AsRef<Path>) -> Result<Reader, Error> {
        Self::open_with(path, Mode::Mmap)
    }

    /// Open and validate, reading as `mode` says.
    pub fn open_with(path: impl AsRef<Path>, mode: Mode) -> Result<Reader, Error> {
        let path = path.as_ref();
        // Refuse FIFOs, devices and directories before opening: opening a
        // FIFO would block until a writer appears.
        if !std::fs::metadata(path)?.is_file() {
            return Err(not_regular());
        }
        let f = std::fs::File::open(path)?;
        let meta = f.metadata()?;
        if !meta.is_file() {
            return Err(not_regular());
        }
        let len = meta.len();
        match mode {
            Mode::Mmap if len > 0 => {
                // SAFETY: the mapping is read-only and private to this Reader.
                // Like every reader of a mapped file, we rely on the file not
                // being truncated or rewritten while mapped (see memmap2 and
                // the module's documentation).
                let map = unsafe { memmap2::Mmap::map(&f)? };
                Ok(Reader::new(Owned::try_new(Backing::Map(map), parse)?, Some(path)))
            }
            Mode::Mmap => Err(Error::Format(crate::Error::new(ErrorKind::FileTooSmall { len }))),
            Mode::Positional => Reader::positional(Box::new(f), Some(path)),
        }
    }

    /// Open and validate a file read through `source`, by position: only
    /// its tail is read now (for v1.x and v2, one read of its last 64 KiB
    /// when they hold the manifest, else two; see [`crate::source`]), and
    /// each part's bytes when it is read. Zero-copy views are refused
    /// ([`ErrorKind::NotZeroCopy`]); v2 shards come from
    /// [`Source::open_shard`].
    pub fn from_source(source: impl Source + 'static) -> Result<Reader, Error> {
        Reader::positional(Box::new(source), None)
    }

    fn positional(src: Box<dyn Source>, path: Option<&Path>) -> Result<Reader, Error> {
        let TailRead { tail, manifest, footer } = tail::read_tail(&*src)?;
        Ok(Reader::new(Owned::try_new(Backing::Positional(manifest, tail, src, footer), parse)?, path))
    }

    fn new(owned: Owned, path: Option<&Path>) -> Reader {
        Reader { owned, path: path.map(Path::to_path_buf), shards: Mutex::new(Vec::new()) }
    }

    /// The v2 shard called `name`: found beside the root (or by the
    /// source's [`Source::open_shard`]), its size and footer checked, kept
    /// open for later reads.
    pub fn shard(&self, name: &str) -> Result<Arc<dyn Source>, Error> {
        use crate::v2::errors::{to_crate, Sizes};
        let mut open = self.shards.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, f)) = open.iter().find(|(n, _)| n == name) {
            return Ok(f.clone());
        }
        let missing = || Error::Format(crate::Error::new(ErrorKind::ShardMissing).with_value(name));
        let entry = self.file().v2().and_then(|m| m.shards().find(|s| s.name == name)).ok_or_else(missing)?;
        let f: Box<dyn Source> = match (&self.path, self.owned.borrow_owner()) {
            (Some(root), _) => {
                let path = crate::v2::shard::locate(root, &entry).map_err(|_| missing())?;
                Box::new(std::fs::File::open(&path)?)
            }
            (None, Backing::Positional(_, _, src, _)) => src.open_shard(name).map_err(|_| missing())?,
            (None, Backing::Map(_)) => return Err(missing()),
        };
        let len = f.size();
        let mismatch = || Error::Format(crate::Error::new(ErrorKind::ShardMismatch).with_value(name));
        if len != entry.size || len < MAX_FOOTER_LEN + HEADER_LEN {
            return Err(mismatch());
        }
        let (mut head, mut footer) = ([0u8; HEADER_LEN as usize], [0u8; MAX_FOOTER_LEN as usize]);
        f.read_at(0, &mut head)?;
        f.read_at(len - MAX_FOOTER_LEN, &mut footer)?;
        if !crate::v2::container::has_magic(&head) {
            return Err(mismatch());
        }
        crate::v2::container::Footer::parse(&footer, len)
            .map_err(|e| Error::Format(to_crate(e, Sizes::of_footer(&footer, len)).with_value(name)))?;
        let f: Arc<dyn Source> = Arc::from(f);
        open.push((name.into(), f.clone()));
        Ok(f)
    }

    /// Whether a component's bytes are read by position (positional mode,
    /// or a part in a v2 shard) rather than from the mapping.
    fn by_position(&self, c: &Component<'_>) -> bool {
        matches!(self.owned.borrow_owner(), Backing::Positional(..)) || c.shard().is_some()
    }

    /// The validated file: objects, components, attributes.
    pub fn file(&self) -> &File<'_> {
        self.owned.borrow_dependent()
    }

    /// How this reader reads.
    pub fn mode(&self) -> Mode {
        match self.owned.borrow_owner() {
            Backing::Positional(..) => Mode::Positional,
            _ => Mode::Mmap,
        }
    }

    /// The stored bytes of a raw component, without copying, when they are
    /// the elements in the host's byte order (see
    /// [`Component::zero_copy_bytes`]); refused with
    /// [`ErrorKind::NotZeroCopy`] in positional mode too.
    pub fn zero_copy<'f>(&'f self, c: &Component<'f>) -> Result<&'f [u8], Error> {
        if let Backing::Positional(..) = self.owned.borrow_owner() {
            let reason = "the file is read by positional reads (no memory map): read into a buffer instead";
            return Err(Error::Format(crate::Error::new(ErrorKind::NotZeroCopy { reason }).in_component(c.role())));
        }
        Ok(c.zero_copy_bytes()?)
    }

    /// The component's stored bytes into `out` (which must hold `length` bytes).
    pub fn read_stored_into(&self, c: &Component<'_>, out: &mut [u8]) -> Result<usize, Error> {
        let n = c.length() as usize;
        let dst = out.get_mut(..n).ok_or_else(|| crate::Error::new(ErrorKind::BufferTooSmall { needed: n as u64 }))?;
        match (self.owned.borrow_owner(), c.shard()) {
            (_, Some(name)) => read(&*self.shard(name)?, c.offset(), dst)?,
            (Backing::Positional(_, _, f, _), None) => read(&**f, c.offset(), dst)?,
            _ => dst.copy_from_slice(c.stored_bytes()?),
        }
        Ok(n)
    }

    /// The component's stored bytes from `offset` (in its stored bytes) into
    /// `out`: from its shard, by position, or from the mapping.
    pub(crate) fn read_stored_at(&self, c: &Component<'_>, offset: u64, out: &mut [u8]) -> Result<(), Error> {
        let past = || crate::Error::new(ErrorKind::OutOfBounds { offset, length: out.len() as u64, limit: c.length() });
        let end = offset.checked_add(out.len() as u64).filter(|&e| e <= c.length()).ok_or_else(past)?;
        match (self.owned.borrow_owner(), c.shard()) {
            (_, Some(name)) => read(&*self.shard(name)?, c.offset() + offset, out)?,
            (Backing::Positional(_, _, f, _), None) => read(&**f, c.offset() + offset, out)?,
            _ => out.copy_from_slice(&c.stored_bytes()?[offset as usize..end as usize]),
        }
        Ok(())
    }

    /// Decode a component into `out` (little-endian elements); returns the bytes written.
    pub fn read_into(&self, c: &Component<'_>, out: &mut [u8]) -> Result<usize, Error> {
        match (self.by_position(c), c.encoding()) {
            // Raw little-endian bytes are their decoded form: read them
            // straight into `out`, then check a v2 part's byte rules there
            // (Appendix A), as `Component::read_into` does.
            (true, Encoding::Raw) if c.endian() == crate::Endian::Little && c.is_decodable() => {
                let n = c.length() as usize;
                let dst = out.get_mut(..n).ok_or_else(|| c.error(ErrorKind::BufferTooSmall { needed: n as u64 }))?;
                // A read a MiB at a time, each hashed as it lands (smaller
                // reads cost more in system calls than the cache saves).
                if !c.fill_checked(dst, 1024 * 1024, |at, piece| self.read_stored_at(c, at, piece))? {
                    c.check_read(None, dst)?;
                }
                c.check_v2_bytes(dst)?;
                Ok(n)
            }
            (true, _) => {
                let stored = self.stored(c)?;
                Ok(c.with_stored(&stored).read_into(out)?)
            }
            _ => Ok(c.read_into(out)?),
        }
    }

    /// Decode bytes `start..start + out.len()` of a component (see
    /// [`Component::read_range_into`]). In positional mode and for parts in
    /// shards, only those bytes of a raw component, and only the seek table
    /// and the covering frames of a `zt.zstd-seekable/1` part, are read.
    pub fn read_range_into(&self, c: &Component<'_>, start: u64, out: &mut [u8]) -> Result<usize, Error> {
        if !self.by_position(c) {
            return Ok(c.read_range_into(start, out)?);
        }
        let shard = match c.shard() {
            Some(name) => Some(self.shard(name)?),
            None => None,
        };
        let f: &dyn Source = match (self.owned.borrow_owner(), &shard) {
            (_, Some(s)) => &**s,
            (Backing::Positional(_, _, f, _), None) => &**f,
            (Backing::Map(_), None) => return Ok(c.read_range_into(start, out)?),
        };
        let mut io = None;
        let r = c.read_range_by(start, out, None, |off, buf| {
            read(f, c.offset() + off, buf).map_err(|e| io = Some(e)).is_ok()
        });
        match (r, io) {
            (_, Some(e)) => Err(Error::Io(e)),
            (r, None) => Ok(r?),
        }
    }

    /// Decode a component into a new `Vec` (little-endian elements).
    pub fn to_vec(&self, c: &Component<'_>) -> Result<Vec<u8>, Error> {
        if self.by_position(c) && c.encoding() == Encoding::Raw && c.endian() == crate::Endian::Little {
            let mut v = std::vec![0u8; c.length() as usize];
            self.read_into(c, &mut v)?;
            return Ok(v);
        }
        if self.by_position(c) {
            let stored = self.stored(c)?;
            return Ok(c.with_stored(&stored).to_vec()?);
        }
        Ok(c.to_vec()?)
    }

    /// The number of bytes [`Reader::read_into`] writes, in bounded memory
    /// (see [`Component::measure_decoded_len`]; in positional mode the
    /// stored bytes are read first, `length` bytes).
    pub fn measure_decoded_len(&self, c: &Component<'_>) -> Result<u64, Error> {
        let limit = crate::read::DEFAULT_DECODE_LIMIT;
        match self.owned.borrow_owner() {
            _ if self.by_position(c) && c.plausible_len()?.is_none() => {
                let stored = self.stored(c)?;
                Ok(c.with_stored(&stored).measure_decoded_len(limit)?)
            }
            _ => Ok(c.measure_decoded_len(limit)?),
        }
    }

    /// Check the component's digest, whatever the mode: over the stored
    /// bytes in v1.x, over the decoded bytes in v2, read a piece or a frame
    /// at a time (see [`Component::verify_digest`], whose check this is):
    /// verification as each component is loaded, without a whole-file pass.
    pub fn verify_digest(&self, c: &Component<'_>) -> Result<crate::digest::Verified, Error> {
        if c.digest().is_none() {
            return Ok(crate::digest::Verified::NoDigest);
        }
        if !self.by_position(c) {
            return Ok(c.verify_digest()?);
        }
        // The I/O error itself, not only its kind, is handed back.
        let io = std::cell::RefCell::new(None);
        let read = |offset: u64, out: &mut [u8]| match self.read_stored_at(c, offset, out) {
            Ok(()) => Ok(()),
            Err(Error::Format(e)) => Err(e),
            Err(Error::Io(e)) => {
                *io.borrow_mut() = Some(e);
                Err(c.error(ErrorKind::Io))
            }
        };
        let r = crate::verify::part(c, crate::verify::Options::DIGESTS, crate::verify::Bytes::At(&read));
        match (r, io.into_inner()) {
            (Err(_), Some(e)) => Err(Error::Io(e)),
            (r, _) => Ok(r?),
        }
    }

    /// Verify the whole file ([`File::verify_from`] through this reader:
    /// parts in shards are read from their shards), then every shard of a
    /// v2 file's table that is found beside it: its size, footer and
    /// whole-file digest (§7.3), read a piece at a time. A shard not found
    /// is no problem of its own here: the reads of its parts fail. A file
    /// read by position whose open did not read its header magic has it
    /// checked here.
    pub fn verify_with<'a>(
        &'a self,
        options: crate::verify::Options,
        mut on: impl FnMut(crate::verify::Finding<'_, 'a>),
    ) -> crate::verify::Report {
        let mut r = self.file().verify_from(self, options, &mut on);
        if let Backing::Positional(_, tail, src, _) = self.owned.borrow_owner() {
            if !crate::source::header_read(tail) {
                if let Err(e) = crate::source::check_header(&**src, tail) {
                    r.problem(e, &mut on);
                }
            }
        }
        let Some(m) = self.file().v2().filter(|_| options.digests) else {
            return r;
        };
        for s in m.shards() {
            let e = match self.shard(s.name) {
                Ok(f) => match shard_digest(&s, &*f) {
                    Ok(()) => continue,
                    Err(e) => e,
                },
                Err(Error::Format(e)) if e.kind() == ErrorKind::ShardMissing => continue,
                Err(Error::Format(e)) => e,
                Err(Error::Io(_)) => crate::Error::new(ErrorKind::Io).with_value(s.name),
            };
            r.problem(e, &mut on);
        }
        r
    }

    /// The file's length in bytes.
    pub fn size(&self) -> u64 {
        match self.owned.borrow_owner() {
            Backing::Map(m) => m.len() as u64,
            Backing::Positional(_, tail, _, _) => tail.file_len,
        }
    }

    fn stored(&self, c: &Component<'_>) -> Result<Vec<u8>, Error> {
        let mut v = std::vec![0u8; c.length() as usize];
        self.read_stored_into(c, &mut v)?;
        Ok(v)
    }
}

/// A shard's whole-file digest (§7.3), its bytes read and hashed a piece
/// at a time; a mismatch names the algorithm and the shard.
fn shard_digest(s: &crate::v2::Shard<'_>, f: &dyn Source) -> Result<(), crate::Error> {
    let named = |alg: &str| std::format!("{alg} of shard {:?}", s.name);
    let mut h = crate::v2::shard::Pieces::new(s).map_err(|e| crate::Error::from(e).with_value(s.name))?;
    let mut buf = std::vec![0u8; (1u64 << 20).min(s.size) as usize];
    let mut at = 0;
    while at < s.size {
        let n = (s.size - at).min(buf.len() as u64) as usize;
        f.read_at(at, &mut buf[..n]).map_err(|_| crate::Error::new(ErrorKind::Io).with_value(s.name))?;
        h.update(&buf[..n]);
        at += n as u64;
    }
    let alg = h.algorithm();
    h.finish().map_err(|e| crate::Error::from(e).with_value(&named(alg)))
}

impl fmt::Debug for Reader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reader").field("mode", &self.mode()).field("file", self.file()).finish()
    }
}

fn not_regular() -> Error {
    Error::Io(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A v1.1 file whose one zstd component declares no decoded size: one
    /// frame of `blocks` RLE blocks of 128 KiB (the audit's sizing bomb).
    fn rle_bomb(blocks: usize) -> Vec<u8> {
        let stored = 6 + 4 * blocks;
        let mut m = std::vec![0xa2, 0x67];
        m.extend_from_slice(b"version\x651.1.0\x67objects\xa1\x64blob\xa3\x65shape\x80\x66format\x66opaque");
        m.extend_from_slice(b"\x6acomponents\xa1\x64blob\xa4\x65dtype\x62u8\x66offset\x18\x40\x66length\x1a");
        m.extend_from_slice(&(stored as u32).to_be_bytes());
        m.extend_from_slice(b"\x68encoding\x64zstd");
        let mut f = b"ZTEN1000".to_vec();
        f.resize(64, 0);
        f.extend_from_slice(&[0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38]);
        for i in 0..blocks {
            f.extend_from_slice(if i + 1 == blocks { &[3, 0, 0x10, 1] } else { &[2, 0, 0x10, 1] });
        }
        f.extend_from_slice(&m);
        f.extend_from_slice(&(m.len() as u64).to_le_bytes());
        f.extend_from_slice(b"ZTEN1000");
        f
    }

    #[test]
    #[cfg_attr(miri, ignore = "Miri cannot map files, and decoding 8 MiB interpreted takes too long")]
    fn undeclared_sizes_are_measured_in_every_mode() {
        let bytes = rle_bomb(64);
        let path = std::env::temp_dir().join(std::format!("zt-fs-measure-{}.zt", std::process::id()));
        std::fs::write(&path, &bytes).unwrap();
        let want = 64 * 131_072;
        let mem = File::parse(&bytes).unwrap();
        let c = mem.get("blob").unwrap().component("blob").unwrap();
        assert_eq!(c.plausible_len().unwrap(), None);
        assert_eq!(c.measure_decoded_len(u64::MAX).unwrap(), want);
        assert_eq!(c.measure_decoded_len(want - 1).unwrap_err().kind(), ErrorKind::DecodedTooLarge { limit: want - 1 });
        for mode in [Mode::Mmap, Mode::Positional] {
            let r = Reader::open_with(&path, mode).unwrap();
            let c = r.file().get("blob").unwrap().component("blob").unwrap();
            assert_eq!(r.measure_decoded_len(&c).unwrap(), want, "{mode:?}");
            assert!(r.read_into(&c, &mut [0u8; 100]).is_err(), "{mode:?}");
        }
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn only_regular_files_are_opened() {
        let dir = std::env::temp_dir();
        for mode in [Mode::Mmap, Mode::Positional] {
            match Reader::open_with(&dir, mode) {
                Err(Error::Io(e)) => assert_eq!(std::string::ToString::to_string(&e), "not a regular file"),
                other => panic!("{other:?}"),
            }
        }
    }
}
