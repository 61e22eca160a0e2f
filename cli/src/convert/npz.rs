//! NumPy `.npz` input: a zip archive (ZIP64 included, as `np.savez` writes
//! it) whose members `NAME.npy` become objects `NAME`, in archive order.
//! Members may be stored (`np.savez`) or deflated (`np.savez_compressed`);
//! deflated members are inflated as they are written, never whole in
//! memory (except a Fortran-ordered array, which is transposed in memory).
//! Every member's CRC-32 and size are checked.
//!
//! Only the zip features `.npz` files use are read: one disk, methods 0
//! (stored) and 8 (deflate), no encryption. Anything else is refused.

use super::{npy, Out, Progress};
use crate::Fail;
use flate2::read::DeflateDecoder;
use std::cell::RefCell;
use std::io::{self, Read};
use std::rc::Rc;
use ztensor::write::Data;

/// The magic of a zip archive's first local header (and of an empty archive).
pub const MAGIC: &[u8; 4] = b"PK\x03\x04";
pub const MAGIC_EMPTY: &[u8; 4] = b"PK\x05\x06";

/// One archive member.
pub struct Member<'a> {
    /// Name in the archive (`weights.npy`).
    pub name: String,
    /// 0 stored, 8 deflate.
    method: u16,
    crc: u32,
    /// The stored (possibly compressed) bytes.
    stored: &'a [u8],
    /// Uncompressed size.
    pub size: u64,
}

/// `b[at..at + n]`, if it is there.
fn get(b: &[u8], at: usize, n: usize) -> Option<&[u8]> {
    b.get(at..at.checked_add(n)?)
}
fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(get(b, at, 2)?.try_into().ok()?))
}
fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(get(b, at, 4)?.try_into().ok()?))
}
fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(get(b, at, 8)?.try_into().ok()?))
}

const TRUNC: &str = "corrupt or truncated zip archive";

/// Read the central directory; every member's bytes are located.
pub fn parse(b: &[u8]) -> Result<Vec<Member<'_>>, String> {
    let trunc = |what: &str| format!("{TRUNC} ({what})");
    // End of central directory record: 22 bytes plus a comment of up to 64 KiB.
    let lowest = b.len().saturating_sub(22 + 0xFFFF);
    let eocd = (lowest..=b.len().saturating_sub(22))
        .rev()
        .find(|&i| b.get(i..i + 4) == Some(&MAGIC_EMPTY[..]))
        .ok_or_else(|| trunc("no end of central directory record"))?;
    let field16 = |at| u16_at(b, eocd + at).ok_or_else(|| trunc("end record"));
    let field32 = |at| u32_at(b, eocd + at).ok_or_else(|| trunc("end record"));
    let (disk, cd_disk) = (field16(4)?, field16(6)?);
    let mut entries = field16(10)? as u64;
    let mut cd_size = field32(12)? as u64;
    let mut cd_off = field32(16)? as u64;
    if entries == 0xFFFF || cd_size == 0xFFFF_FFFF || cd_off == 0xFFFF_FFFF {
        // ZIP64: a locator just before the end record points at the ZIP64 end record.
        let loc = eocd.checked_sub(20).ok_or_else(|| trunc("ZIP64 locator"))?;
        if b.get(loc..loc + 4) != Some(b"PK\x06\x07") {
            return Err(trunc("ZIP64 locator"));
        }
        let at = u64_at(b, loc + 8).ok_or_else(|| trunc("ZIP64 locator"))? as usize;
        if get(b, at, 4) != Some(b"PK\x06\x06") {
            return Err(trunc("ZIP64 end record"));
        }
        let f = |o: usize| u64_at(b, at.saturating_add(o)).ok_or_else(|| trunc("ZIP64 end record"));
        if u32_at(b, at.saturating_add(16)) != Some(0) || u32_at(b, at.saturating_add(20)) != Some(0) {
            return Err("multi-disk zip archives are not supported".into());
        }
        entries = f(32)?;
        cd_size = f(40)?;
        cd_off = f(48)?;
    } else if disk != 0 || cd_disk != 0 {
        return Err("multi-disk zip archives are not supported".into());
    }
    let cd_end = cd_off.checked_add(cd_size).filter(|&e| e <= eocd as u64).ok_or_else(|| trunc("central directory"))?;
    let mut members = Vec::new();
    let mut at = cd_off as usize;
    for _ in 0..entries {
        if (at as u64) + 46 > cd_end || b.get(at..at + 4) != Some(b"PK\x01\x02") {
            return Err(trunc("central directory entry"));
        }
        let h = |o| u16_at(b, at + o).unwrap_or(0);
        let w = |o| u32_at(b, at + o).unwrap_or(0);
        let (flags, method, crc) = (h(8), h(10), w(16));
        let (mut csize, mut usize_, mut lho) = (w(20) as u64, w(24) as u64, w(42) as u64);
        let (nlen, elen, clen) = (h(28) as usize, h(30) as usize, h(32) as usize);
        let name = b.get(at + 46..at + 46 + nlen).ok_or_else(|| trunc("member name"))?;
        let extra = b.get(at + 46 + nlen..at + 46 + nlen + elen).ok_or_else(|| trunc("extra field"))?;
        let name = std::str::from_utf8(name).map_err(|_| "a member name is not UTF-8".to_owned())?.to_owned();
        // The ZIP64 extra field holds, in order, the fields saturated above.
        let mut e = 0;
        while e + 4 <= extra.len() {
            let (id, sz) = (u16_at(extra, e).unwrap_or(0), u16_at(extra, e + 2).unwrap_or(0) as usize);
            let body = extra.get(e + 4..e + 4 + sz).ok_or_else(|| trunc("extra field"))?;
            if id == 1 {
                let mut p = 0;
                for field in [&mut usize_, &mut csize, &mut lho] {
                    if *field == 0xFFFF_FFFF {
                        *field = u64_at(body, p).ok_or_else(|| trunc("ZIP64 extra field"))?;
                        p += 8;
                    }
                }
            }
            e += 4 + sz;
        }
        if flags & 1 != 0 {
            return Err(format!("member {name:?} is encrypted"));
        }
        if method != 0 && method != 8 {
            return Err(format!(
                "member {name:?} uses zip compression method {method} (only stored and deflate are supported)"
            ));
        }
        // Deflate expands at most about 1032:1.
        if method == 8 && usize_ > csize.saturating_mul(1040).saturating_add(1 << 16) {
            return Err(format!("member {name:?} claims an impossible uncompressed size {usize_}"));
        }
        if method == 0 && csize != usize_ {
            return Err(format!("member {name:?}: stored size {csize} differs from its size {usize_}"));
        }
        // The local header repeats name and extra field (lengths may differ).
        let l = lho as usize;
        if get(b, l, 30).map(|h| &h[..4]) != Some(&MAGIC[..]) {
            return Err(trunc("local header"));
        }
        // (30 bytes are there, so none of this overflows.)
        let start = l + 30 + u16_at(b, l + 26).unwrap_or(0) as usize + u16_at(b, l + 28).unwrap_or(0) as usize;
        let stored = start
            .checked_add(csize as usize)
            .and_then(|end| b.get(start..end))
            .ok_or_else(|| format!("{TRUNC} (data of member {name:?})"))?;
        members.push(Member { name, method, crc, stored, size: usize_ });
        at += 46 + nlen + elen + clen;
    }
    let mut seen = std::collections::HashSet::new();
    for m in &members {
        if !m.name.ends_with(".npy") {
            return Err(format!("member {:?} is not a .npy array", m.name));
        }
        if !seen.insert(&m.name) {
            return Err(format!("two members are named {:?}", m.name));
        }
    }
    Ok(members)
}

/// Bytes to convert.
pub fn total(members: &[Member<'_>]) -> u64 {
    members.iter().map(|m| m.size).sum()
}

/// Write every member as a dense object.
pub fn write(members: &[Member<'_>], out: &mut Out) -> Result<(), Fail> {
    for m in members {
        let name = &m.name[..m.name.len() - 4];
        let fail = |out: &Out, msg: String| out.bad_input(format!("member {:?}: {msg}", m.name));
        if m.method == 0 {
            if crc32(m.stored) != m.crc {
                return Err(fail(out, "CRC-32 mismatch (corrupt archive)".into()));
            }
            let (h, data) = npy::parse(m.stored).map_err(|e| fail(out, e))?;
            npy::write(&h, data, name, out)?;
            continue;
        }
        let state = Rc::new(RefCell::new(Inflated { crc: flate2::Crc::new(), n: 0 }));
        let mut r = Inflate {
            inner: DeflateDecoder::new(m.stored),
            state: state.clone(),
            progress: out.progress.clone(),
            error: out.source_error.clone(),
            member: m.name.clone(),
        };
        let mut head = [0u8; 12];
        read_all(&mut r, &mut head).map_err(|e| fail(out, format!("truncated .npy header ({e})")))?;
        let size = npy::header_size(&head).map_err(|e| fail(out, e))?;
        let mut header = head.to_vec();
        header.resize(size.max(12), 0);
        if size > 12 {
            read_all(&mut r, &mut header[12..]).map_err(|e| fail(out, format!("truncated .npy header ({e})")))?;
        }
        let (h, _) = npy::parse_header(&header).map_err(|e| fail(out, e))?;
        npy::check_len(&h, m.size.saturating_sub(size as u64)).map_err(|e| fail(out, e))?;
        if (size as u64) > m.size {
            return Err(fail(out, "the .npy header is longer than the member".into()));
        }
        out.source_error.borrow_mut().take();
        let data: Data<'_> = if h.fortran && h.shape.len() > 1 {
            let mut v = vec![0u8; h.nbytes as usize];
            read_all(&mut r, &mut v).map_err(|e| fail(out, format!("truncated array data ({e})")))?;
            let mut c = npy::to_c_order(&v, &h.shape, h.itemsize as usize);
            if h.swap {
                super::swap_elements(&mut c, h.dtype.width() as usize);
            }
            // Nothing may follow the array.
            let mut one = [0u8; 1];
            if r.read(&mut one).map_err(|e| fail(out, e.to_string()))? != 0 {
                return Err(fail(out, "unexpected bytes after the array data".into()));
            }
            Data::owned(c) // (progress was counted while inflating)
        } else if h.swap {
            Data::from_reader(h.nbytes, Swap::new(r, h.dtype.width() as usize))
        } else {
            Data::from_reader(h.nbytes, r)
        };
        out.add(npy::object(name, &h, data)).map_err(|e| match e {
            Fail::Input { file, msg } if file == out.in_path && !msg.starts_with("member ") => {
                Fail::Input { file, msg: format!("member {:?}: {msg}", m.name) }
            }
            e => e,
        })?;
        let st = state.borrow();
        if st.n != m.size || st.crc.sum() != m.crc {
            return Err(fail(out, "CRC-32 or size mismatch (corrupt archive)".into()));
        }
    }
    Ok(())
}

fn crc32(b: &[u8]) -> u32 {
    let mut c = flate2::Crc::new();
    c.update(b);
    c.sum()
}

fn read_all(r: &mut impl Read, buf: &mut [u8]) -> io::Result<()> {
    r.read_exact(buf)
}

struct Inflated {
    crc: flate2::Crc,
    n: u64,
}

/// A member being inflated: counts, checksums and reports progress; keeps
/// the first error for the message.
struct Inflate<'a> {
    inner: DeflateDecoder<&'a [u8]>,
    state: Rc<RefCell<Inflated>>,
    progress: Rc<Progress>,
    error: Rc<RefCell<Option<String>>>,
    member: String,
}

impl Read for Inflate<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => {
                let mut st = self.state.borrow_mut();
                st.crc.update(&buf[..n]);
                st.n += n as u64;
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
        assert!(parse(b"not a zip").err().unwrap().contains("end of central directory"));
    }
}
