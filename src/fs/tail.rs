//! A reader's side of [`Source`]: what opening reads from a source's end,
//! and a [`Reader`] as the source of the file it opened.

use super::{Error as FsError, Reader};
use crate::container::{Tail, HEADER_LEN, MAX_FOOTER_LEN};
use crate::error::{Error, ErrorKind, Result};
use crate::object::Component;
use crate::source::{io_error, read, Source, SPECULATIVE_TAIL};
use std::io;
use std::vec::Vec;

/// What a reader learns from a file's end: where the manifest lies, the
/// manifest, and the file's last bytes (up to a v2 footer's 40).
pub(crate) struct TailRead {
    pub tail: Tail,
    pub manifest: Vec<u8>,
    pub footer: Vec<u8>,
}

/// Read and check a file's footer, then its manifest, in as few reads as
/// the layout allows: the last [`SPECULATIVE_TAIL`] bytes first (the whole
/// file when it is that small). For v1.x and v2 the footer's magic names
/// the generation, so a second read is needed only when the manifest
/// reaches further back; the header magic is checked when the first read
/// covers it (and by verification, `fs::Reader::verify_with`). A footer
/// without v1.x or v2 magic (v0.1, or a truncated file) needs the header
/// to tell which: one more read.
pub(crate) fn read_tail(src: &dyn Source) -> std::result::Result<TailRead, FsError> {
    let len = src.size();
    if len < HEADER_LEN + 9 {
        return Err(Error::new(ErrorKind::FileTooSmall { len }).into());
    }
    let n = SPECULATIVE_TAIL.min(len);
    let mut end = std::vec![0u8; n as usize];
    src.read_at(len - n, &mut end)?;
    let footer = end[end.len() - MAX_FOOTER_LEN.min(n) as usize..].to_vec();
    let named = footer.ends_with(&crate::v2::container::MAGIC) || footer.ends_with(&crate::container::MAGIC_V1);
    let tail = if n == len {
        Tail::from_header_and_footer(&end[..HEADER_LEN as usize], &footer, len)?
    } else if named {
        Tail::from_footer(&footer, len)?
    } else {
        let mut head = [0u8; HEADER_LEN as usize];
        src.read_at(0, &mut head)?;
        Tail::from_header_and_footer(&head, &footer, len)?
    };
    let start = len - n;
    let manifest = if tail.manifest_offset >= start {
        let at = (tail.manifest_offset - start) as usize;
        end[at..at + tail.manifest_len as usize].to_vec()
    } else {
        let mut m = std::vec![0u8; tail.manifest_len as usize];
        read(src, tail.manifest_offset, &mut m)?;
        m
    };
    Ok(TailRead { tail, manifest, footer })
}

/// A reader is a source of the file it opened: what [`File::verify_from`]
/// reads through, parts in v2 shards read from their shards.
///
/// [`File::verify_from`]: crate::File::verify_from
impl Source for Reader {
    fn size(&self) -> u64 {
        Reader::size(self)
    }

    fn read_at(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        let span = Component::span(self.file().bytes(), offset, out.len() as u64);
        match self.read_stored_into(&span, out) {
            Ok(_) => Ok(()),
            Err(FsError::Io(e)) => Err(e),
            Err(FsError::Format(e)) => Err(io::Error::new(io::ErrorKind::InvalidData, e)),
        }
    }

    fn bytes(&self) -> Option<&[u8]> {
        self.file().bytes()
    }

    fn read_component_at(&self, c: &Component<'_>, offset: u64, out: &mut [u8]) -> Result<()> {
        match self.read_stored_at(c, offset, out) {
            Ok(()) => Ok(()),
            Err(FsError::Format(e)) => Err(e),
            Err(FsError::Io(e)) => Err(io_error(&e).in_component(c.role())),
        }
    }
}
