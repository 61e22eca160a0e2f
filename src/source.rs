//! Sources (`std`): a file's bytes read by position, wherever they live.
//!
//! One trait for every positional read: a [`std::fs::File`], bytes in
//! memory, a C caller's callbacks (`zt_open_source`), an HTTP resource read
//! by Range requests (the `zt` command). [`fs::Reader`](crate::fs::Reader)
//! reads through it when it does not map a file, and [`File::verify_from`]
//! reads component bytes through it.
//!
//! [`File::verify_from`]: crate::File::verify_from

use crate::container::{Layout, Tail, HEADER_LEN};
use crate::error::{Error, ErrorKind, Result};
use crate::object::Component;
use std::boxed::Box;
use std::io;
use std::vec::Vec;

/// Bytes read at open when the size allows: the footer and, for most
/// files, the whole manifest, so that listing a file costs one read
/// (issue #33: a remote or caller source pays per request).
pub const SPECULATIVE_TAIL: u64 = 64 << 10;

/// A file's bytes, read by position.
///
/// `read_at` is called from several threads at once when a reader is
/// shared; it reads exactly `out.len()` bytes or fails. A source whose
/// bytes end before [`Source::size`] says (truncated, or replaced by a
/// shorter file) must fail the read, never fill `out` partly.
///
/// ```
/// use ztensor::source::Source;
/// let bytes = ztensor::doc_example_file();
/// let mut head = [0u8; 8];
/// bytes.read_at(0, &mut head).unwrap();
/// assert_eq!(bytes.size(), bytes.len() as u64);
/// let r = ztensor::fs::Reader::from_source(bytes.to_vec()).unwrap();
/// assert_eq!(r.file().len(), 2);
/// ```
pub trait Source: Send + Sync {
    /// The file's length in bytes (read once, at open).
    fn size(&self) -> u64;

    /// Fill `out` with the bytes at `offset..offset + out.len()`.
    fn read_at(&self, offset: u64, out: &mut [u8]) -> io::Result<()>;

    /// The whole file, when it is in memory: component bytes are then
    /// borrowed, not copied.
    fn bytes(&self) -> Option<&[u8]> {
        None
    }

    /// The v2 shard called `name` in the root's shard table (§7), for a
    /// source that can find one (a caller's `open_shard`, a URL beside the
    /// root's). The reader checks its size and footer. By default, none.
    fn open_shard(&self, name: &str) -> io::Result<Box<dyn Source>> {
        let _ = name;
        Err(io::Error::new(io::ErrorKind::NotFound, "this source has no shards"))
    }

    /// Fill `out` with a component's stored bytes from `offset` (in its
    /// stored bytes) on: by default from this file; a source that finds v2
    /// shards (a [`fs::Reader`](crate::fs::Reader)) reads a sharded part
    /// from its shard.
    fn read_component_at(&self, c: &Component<'_>, offset: u64, out: &mut [u8]) -> Result<()> {
        match c.shard() {
            Some(_) => Err(c.error(ErrorKind::ShardMissing)),
            None => self.read_at(c.offset() + offset, out).map_err(|e| io_error(&e).in_component(c.role())),
        }
    }
}

/// `src.read_at`, not called for nothing (an HTTP range cannot be empty).
pub(crate) fn read(src: &dyn Source, offset: u64, out: &mut [u8]) -> io::Result<()> {
    match out.is_empty() {
        true => Ok(()),
        false => src.read_at(offset, out),
    }
}

/// An I/O error as this crate's `Copy` error: [`ErrorKind::Io`], its text
/// (a callback's code, an HTTP status) kept as the value the message quotes.
pub(crate) fn io_error(e: &io::Error) -> Error {
    Error::new(ErrorKind::Io).with_value(&std::string::ToString::to_string(e))
}

impl Source for [u8] {
    fn size(&self) -> u64 {
        self.len() as u64
    }

    fn read_at(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        let src = usize::try_from(offset).ok().and_then(|o| self.get(o..o.checked_add(out.len())?));
        out.copy_from_slice(src.ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?);
        Ok(())
    }

    fn bytes(&self) -> Option<&[u8]> {
        Some(self)
    }
}

impl Source for Vec<u8> {
    fn size(&self) -> u64 {
        self.len() as u64
    }

    fn read_at(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        self.as_slice().read_at(offset, out)
    }

    fn bytes(&self) -> Option<&[u8]> {
        Some(self)
    }
}

/// A file read by position; its size is asked of the system each time.
impl Source for std::fs::File {
    fn size(&self) -> u64 {
        self.metadata().map_or(0, |m| m.len())
    }

    #[cfg(unix)]
    fn read_at(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        if !kernel_copy_stalls(out, offset) {
            return self.read_exact_at(out, offset);
        }
        // The kernel's copy would stall: land the bytes half a page away,
        // in a buffer that stays in the CPU's cache, and copy them from there.
        let mut bounce = std::vec![0u8; BOUNCE + PAGE];
        let skew = (offset as usize).wrapping_add(PAGE / 2).wrapping_sub(bounce.as_ptr() as usize) % PAGE;
        let bounce = &mut bounce[skew..skew + BOUNCE];
        for (i, piece) in out.chunks_mut(BOUNCE).enumerate() {
            let landed = &mut bounce[..piece.len()];
            self.read_exact_at(landed, offset + (i * BOUNCE) as u64)?;
            piece.copy_from_slice(landed);
        }
        Ok(())
    }

    #[cfg(windows)]
    fn read_at(&self, mut offset: u64, mut out: &mut [u8]) -> io::Result<()> {
        while !out.is_empty() {
            match std::os::windows::fs::FileExt::seek_read(self, out, offset)? {
                0 => return Err(io::ErrorKind::UnexpectedEof.into()),
                n => {
                    out = &mut out[n..];
                    offset += n as u64;
                }
            }
        }
        Ok(())
    }
}

impl<S: Source + ?Sized> Source for Box<S> {
    fn size(&self) -> u64 {
        (**self).size()
    }
    fn read_at(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        (**self).read_at(offset, out)
    }
    fn bytes(&self) -> Option<&[u8]> {
        (**self).bytes()
    }
    fn open_shard(&self, name: &str) -> io::Result<Box<dyn Source>> {
        (**self).open_shard(name)
    }
}

/// A page of the page cache, where a file's byte `offset` lies at `offset % PAGE`.
#[cfg(unix)]
const PAGE: usize = 4096;
/// The pieces of a read that goes through a bounce buffer: small enough to
/// stay in the CPU's cache between the kernel's copy and ours.
#[cfg(unix)]
const BOUNCE: usize = 256 << 10;

/// Whether the kernel's copy of the file bytes at `offset` into `out` meets
/// 4K aliasing: each store lands less than 32 bytes past its load modulo a
/// page, so the CPU takes later loads for reads of the stores before them
/// and the string copy (`rep movsb`) slows several times. v2 blobs start on
/// page boundaries (v2 §2.4) and large `malloc` blocks 16 bytes past one, so
/// this is the common case for an engine's buffer (benches/README.md,
/// "Positional reads"). Short reads are left alone: the stall is per byte
/// but the bounce has a fixed cost.
#[cfg(unix)]
fn kernel_copy_stalls(out: &[u8], offset: u64) -> bool {
    let distance = (out.as_ptr() as usize).wrapping_sub(offset as usize) % PAGE;
    out.len() >= 64 << 10 && (1..32).contains(&distance)
}

/// Whether a file's first bytes are the magic its footer announced (for
/// sources whose open did not read them): [`Tail::check_header`].
pub(crate) fn check_header(src: &dyn Source, tail: &Tail) -> Result<()> {
    let mut head = [0u8; HEADER_LEN as usize];
    src.read_at(0, &mut head).map_err(|e| io_error(&e))?;
    tail.check_header(&head).map_err(|e| e.in_layout(tail.layout))
}

/// Whether the open of a file of `len` bytes read its header (the first
/// read covered the file, or the footer named no generation).
pub(crate) fn header_read(tail: &Tail) -> bool {
    tail.file_len <= SPECULATIVE_TAIL || tail.layout == Layout::V0
}
