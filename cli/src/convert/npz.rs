//! NumPy `.npz` input: a zip archive (ZIP64 included, as `np.savez` writes
//! it; read with the `zip` crate) whose members `NAME.npy` become objects
//! `NAME`, in archive order. Members may be stored (`np.savez`, read in
//! place from the mapped archive) or deflated (`np.savez_compressed`,
//! inflated as they are written, never whole in memory, except a
//! Fortran-ordered array, which is transposed in memory). Every member's
//! CRC-32 and size are checked. Encrypted members and other compression
//! methods are refused.

use super::{npy, Out, Progress};
use crate::Fail;
use std::cell::RefCell;
use std::io::{self, Cursor, Read};
use std::rc::Rc;
use zip::{CompressionMethod, ZipArchive};
use ztensor::write::Data;

/// The magic of a zip archive's first local header (and of an empty archive).
pub const MAGIC: &[u8; 4] = b"PK\x03\x04";
pub const MAGIC_EMPTY: &[u8; 4] = b"PK\x05\x06";

/// An opened archive and its members.
pub struct Npz<'a> {
    archive: ZipArchive<Cursor<&'a [u8]>>,
    pub members: Vec<Member<'a>>,
}

/// One archive member.
pub struct Member<'a> {
    /// Position in the archive.
    index: usize,
    /// Name in the archive (`weights.npy`).
    pub name: String,
    deflated: bool,
    crc: u32,
    /// The stored (possibly compressed) bytes.
    stored: &'a [u8],
    /// Uncompressed size.
    pub size: u64,
}

const TRUNC: &str = "corrupt or truncated zip archive";

/// Read the central directory; every member's bytes are located.
pub fn parse(b: &[u8]) -> Result<Npz<'_>, String> {
    let mut archive = ZipArchive::new(Cursor::new(b)).map_err(|e| format!("{TRUNC} ({e})"))?;
    let mut members = Vec::with_capacity(archive.len());
    let mut seen = std::collections::HashSet::new();
    for index in 0..archive.len() {
        let f = archive.by_index_raw(index).map_err(|e| format!("{TRUNC} (member {index}: {e})"))?;
        let name = String::from_utf8(f.name_raw().to_vec()).map_err(|_| "a member name is not UTF-8".to_owned())?;
        if f.encrypted() {
            return Err(format!("member {name:?} is encrypted"));
        }
        let deflated = match f.compression() {
            CompressionMethod::Stored => false,
            CompressionMethod::Deflated => true,
            m => {
                return Err(format!(
                    "member {name:?} uses zip compression method {m} (only stored and deflate are supported)"
                ))
            }
        };
        let (csize, size) = (f.compressed_size(), f.size());
        // Deflate expands at most about 1032:1.
        if deflated && size > csize.saturating_mul(1040).saturating_add(1 << 16) {
            return Err(format!("member {name:?} claims an impossible uncompressed size {size}"));
        }
        if !deflated && csize != size {
            return Err(format!("member {name:?}: stored size {csize} differs from its size {size}"));
        }
        let start = f.data_start().ok_or_else(|| format!("{TRUNC} (data of member {name:?})"))?;
        let stored = usize::try_from(start)
            .ok()
            .and_then(|s| Some(s..s.checked_add(usize::try_from(csize).ok()?)?))
            .and_then(|r| b.get(r))
            .ok_or_else(|| format!("{TRUNC} (data of member {name:?})"))?;
        if !name.ends_with(".npy") {
            return Err(format!("member {name:?} is not a .npy array"));
        }
        if !seen.insert(name.clone()) {
            return Err(format!("two members are named {name:?}"));
        }
        members.push(Member { index, name, deflated, crc: f.crc32(), stored, size });
    }
    Ok(Npz { archive, members })
}

impl Npz<'_> {
    /// Bytes to convert.
    pub fn total(&self) -> u64 {
        self.members.iter().map(|m| m.size).sum()
    }

    /// Write every member as a dense object.
    pub fn write(&mut self, out: &mut Out) -> Result<(), Fail> {
        for m in &self.members {
            let fail = |out: &Out, msg: String| out.bad_input(format!("member {:?}: {msg}", m.name));
            let name = &m.name[..m.name.len() - 4];
            if !m.deflated {
                if crc32fast::hash(m.stored) != m.crc {
                    return Err(fail(out, "CRC-32 mismatch (corrupt archive)".into()));
                }
                let (h, data) = npy::parse(m.stored).map_err(|e| fail(out, e))?;
                npy::write(&h, data, name, out)?;
                continue;
            }
            let zf = self.archive.by_index(m.index).map_err(|e| fail(out, e.to_string()))?;
            let mut r = Inflate {
                inner: zf,
                progress: out.progress.clone(),
                error: out.source_error.clone(),
                member: m.name.clone(),
            };
            let mut head = [0u8; 12];
            r.read_exact(&mut head).map_err(|e| fail(out, format!("truncated .npy header ({e})")))?;
            let size = npy::header_size(&head).map_err(|e| fail(out, e))?;
            let mut header = head.to_vec();
            header.resize(size.max(12), 0);
            if size > 12 {
                r.read_exact(&mut header[12..]).map_err(|e| fail(out, format!("truncated .npy header ({e})")))?;
            }
            let (h, _) = npy::parse_header(&header).map_err(|e| fail(out, e))?;
            npy::check_len(&h, m.size.saturating_sub(size as u64)).map_err(|e| fail(out, e))?;
            if (size as u64) > m.size {
                return Err(fail(out, "the .npy header is longer than the member".into()));
            }
            out.source_error.borrow_mut().take();
            let data: Data<'_> = if h.fortran && h.shape.len() > 1 {
                let mut v = vec![0u8; h.nbytes as usize];
                r.read_exact(&mut v).map_err(|e| fail(out, format!("truncated array data ({e})")))?;
                let mut c = npy::to_c_order(&v, &h.shape, h.itemsize as usize);
                if h.swap {
                    super::swap_elements(&mut c, h.dtype.width() as usize);
                }
                Data::owned(c) // (progress was counted while inflating)
            } else if h.swap {
                Data::from_reader(h.nbytes, Swap::new(&mut r, h.dtype.width() as usize))
            } else {
                Data::from_reader(h.nbytes, &mut r)
            };
            out.add(npy::object(name, &h, data)).map_err(|e| match e {
                Fail::Input { file, msg } if file == out.in_path && !msg.starts_with("member ") => {
                    Fail::Input { file, msg: format!("member {:?}: {msg}", m.name) }
                }
                e => e,
            })?;
            // Nothing may follow the array; reaching the end checks the CRC-32.
            let mut one = [0u8; 1];
            match r.read(&mut one) {
                Ok(0) => {}
                Ok(_) => return Err(fail(out, "unexpected bytes after the array data".into())),
                Err(e) => return Err(fail(out, format!("corrupt data ({e})"))),
            }
        }
        Ok(())
    }
}

/// A member being inflated (zip checks its CRC-32 at the end): reports
/// progress and keeps the first error for the message.
struct Inflate<R> {
    inner: R,
    progress: Rc<Progress>,
    error: Rc<RefCell<Option<String>>>,
    member: String,
}

impl<R: Read> Read for Inflate<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => {
                self.progress.add(n as u64);
                Ok(n)
            }
            Err(e) => {
                self.error
                    .borrow_mut()
                    .get_or_insert_with(|| format!("member {:?}: corrupt deflate data ({e})", self.member));
                Err(e)
            }
        }
    }
}

/// Byte-swaps each `width`-byte element of what it reads (big-endian arrays).
pub struct Swap<R> {
    inner: R,
    width: usize,
    buf: Vec<u8>,
    start: usize,
    end: usize,
}

impl<R: Read> Swap<R> {
    pub fn new(inner: R, width: usize) -> Self {
        Swap { inner, width, buf: vec![0; 64 * 1024], start: 0, end: 0 }
    }
}

impl<R: Read> Read for Swap<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.start == self.end {
            // Refill with whole elements only.
            let (mut end, w) = (0, self.width);
            loop {
                let n = self.inner.read(&mut self.buf[end..])?;
                end += n;
                if n == 0 || (end % w == 0 && end > 0) {
                    break;
                }
            }
            let whole = end - end % w;
            if whole == 0 && end > 0 {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "data ends inside an element"));
            }
            super::swap_elements(&mut self.buf[..whole], w);
            // A trailing partial element (only at the end of the data) is
            // passed on as is: the writer then reports the length mismatch.
            (self.start, self.end) = (0, end);
        }
        let n = out.len().min(self.end - self.start);
        out[..n].copy_from_slice(&self.buf[self.start..self.start + n]);
        self.start += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swap_reader() {
        let src: Vec<u8> = (0..12u8).collect();
        let mut r = Swap::new(&src[..], 4);
        let mut out = Vec::new();
        r.read_to_end(&mut out).unwrap();
        assert_eq!(out, [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8]);
        assert!(parse(b"not a zip").err().unwrap().contains(TRUNC));
    }
}
