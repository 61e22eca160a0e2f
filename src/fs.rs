//! Files on disk (`std`): one type over two ways of reading.
//!
//! - [`Mode::Mmap`] (default): the file is memory-mapped; opening costs
//!   O(manifest), whatever the file's size, and raw components are
//!   zero-copy slices of the mapping (64-byte aligned).
//! - [`Mode::Positional`]: only the footer and the manifest are read at
//!   open; each component is fetched with a positional read when asked for.
//!   For network filesystems and files larger than the address space.
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

#![allow(unsafe_code)] // memory mapping, and the borrow of the backing bytes below

use crate::container::{Tail, FOOTER_LEN, HEADER_LEN};
use crate::error::ErrorKind;
use crate::file::File;
use crate::object::Component;
use crate::types::Encoding;
use std::fmt;
use std::path::Path;
use std::vec::Vec;

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

/// What `Reader::file` borrows from; kept alive, never read directly.
enum Backing {
    #[allow(dead_code)]
    Map(memmap2::Mmap),
    /// The manifest bytes, and the file for positional reads.
    Positional(#[allow(dead_code)] Vec<u8>, std::fs::File),
}

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
    // Declared before `backing`, so it is dropped first.
    file: File<'static>,
    backing: Backing,
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
                // being truncated or rewritten while mapped (see memmap2).
                let map = unsafe { memmap2::Mmap::map(&f)? };
                // SAFETY: the slice points into the mapping, which lives in
                // `backing` as long as `file` and never moves (a mapping's
                // address is fixed); `file` is dropped before `backing`.
                let bytes: &'static [u8] = unsafe { std::slice::from_raw_parts(map.as_ptr(), map.len()) };
                let file = File::parse(bytes)?;
                Ok(Reader { file, backing: Backing::Map(map) })
            }
            Mode::Mmap => Err(Error::Format(crate::Error::new(ErrorKind::FileTooSmall { len }))),
            Mode::Positional => {
                let (tail, manifest) = read_tail(&f, len)?;
                // SAFETY: the slice points into the Vec's heap buffer, which is
                // never touched again and lives in `backing` as long as `file`
                // (moving the Vec does not move its buffer); `file` is dropped first.
                let m: &'static [u8] = unsafe { std::slice::from_raw_parts(manifest.as_ptr(), manifest.len()) };
                let file = File::parse_manifest(m, tail, None)?;
                Ok(Reader { file, backing: Backing::Positional(manifest, f) })
            }
        }
    }

    /// The validated file: objects, components, attributes.
    pub fn file(&self) -> &File<'_> {
        &self.file
    }

    /// How this reader reads.
    pub fn mode(&self) -> Mode {
        match self.backing {
            Backing::Positional(..) => Mode::Positional,
            _ => Mode::Mmap,
        }
    }

    /// The stored bytes of a raw component, without copying, when they are
    /// the elements in the host's byte order (see
    /// [`Component::zero_copy_bytes`]); refused with
    /// [`ErrorKind::NotZeroCopy`] in positional mode too.
    pub fn zero_copy<'f>(&'f self, c: &Component<'f>) -> Result<&'f [u8], Error> {
        if let Backing::Positional(..) = self.backing {
            let reason = "the file was opened for positional reads";
            return Err(Error::Format(crate::Error::new(ErrorKind::NotZeroCopy { reason }).in_component(c.role())));
        }
        Ok(c.zero_copy_bytes()?)
    }

    /// The component's stored bytes into `out` (which must hold `length` bytes).
    pub fn read_stored_into(&self, c: &Component<'_>, out: &mut [u8]) -> Result<usize, Error> {
        let n = c.length() as usize;
        let dst = out.get_mut(..n).ok_or_else(|| crate::Error::new(ErrorKind::BufferTooSmall { needed: n as u64 }))?;
        match &self.backing {
            Backing::Positional(_, f) => read_exact_at(f, dst, c.offset())?,
            _ => dst.copy_from_slice(c.stored_bytes()?),
        }
        Ok(n)
    }

    /// Decode a component into `out` (little-endian elements); returns the bytes written.
    pub fn read_into(&self, c: &Component<'_>, out: &mut [u8]) -> Result<usize, Error> {
        match (&self.backing, c.encoding()) {
            (Backing::Positional(..), Encoding::Raw) if c.endian() == crate::Endian::Little => {
                self.read_stored_into(c, out)
            }
            (Backing::Positional(..), _) => {
                let stored = self.stored(c)?;
                Ok(c.with_stored(&stored).read_into(out)?)
            }
            _ => Ok(c.read_into(out)?),
        }
    }

    /// Decode a component into a new `Vec` (little-endian elements).
    pub fn to_vec(&self, c: &Component<'_>) -> Result<Vec<u8>, Error> {
        match &self.backing {
            Backing::Positional(..) => {
                let stored = self.stored(c)?;
                Ok(c.with_stored(&stored).to_vec()?)
            }
            _ => Ok(c.to_vec()?),
        }
    }

    /// The number of bytes [`Reader::read_into`] writes, in bounded memory
    /// (see [`Component::measure_decoded_len`]; in positional mode the
    /// stored bytes are read first, `length` bytes).
    pub fn measure_decoded_len(&self, c: &Component<'_>) -> Result<u64, Error> {
        let limit = crate::read::DEFAULT_DECODE_LIMIT;
        match &self.backing {
            Backing::Positional(..) if c.plausible_len()?.is_none() => {
                let stored = self.stored(c)?;
                Ok(c.with_stored(&stored).measure_decoded_len(limit)?)
            }
            _ => Ok(c.measure_decoded_len(limit)?),
        }
    }

    fn stored(&self, c: &Component<'_>) -> Result<Vec<u8>, Error> {
        let mut v = std::vec![0u8; c.length() as usize];
        self.read_stored_into(c, &mut v)?;
        Ok(v)
    }
}

impl fmt::Debug for Reader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reader").field("mode", &self.mode()).field("file", &self.file).finish()
    }
}

fn not_regular() -> Error {
    Error::Io(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file"))
}

/// Read and check the footer and header of a file of `len` bytes, then read
/// its manifest: everything a reader needs before validating it.
pub(crate) fn read_tail(f: &std::fs::File, len: u64) -> Result<(Tail, Vec<u8>), Error> {
    if len < HEADER_LEN + 9 {
        return Err(Error::Format(crate::Error::new(ErrorKind::FileTooSmall { len })));
    }
    let mut head = [0u8; HEADER_LEN as usize];
    read_exact_at(f, &mut head, 0)?;
    let mut footer = [0u8; FOOTER_LEN as usize];
    read_exact_at(f, &mut footer, len - FOOTER_LEN)?;
    let tail = Tail::from_footer(&footer, len)?;
    tail.check_header(&head)?;
    let mut manifest = std::vec![0u8; tail.manifest_len as usize];
    read_exact_at(f, &mut manifest, tail.manifest_offset)?;
    Ok((tail, manifest))
}

#[cfg(unix)]
pub(crate) fn read_exact_at(f: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(f, buf, offset)
}

#[cfg(windows)]
pub(crate) fn read_exact_at(f: &std::fs::File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(f, buf, offset)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}
