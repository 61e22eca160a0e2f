//! Where a component's bytes come from: memory, an iterator of chunks, or
//! (with `std`) a reader, pulled a piece at a time.

use crate::error::Result;
use crate::types::DType;
use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::vec::Vec;

/// A Rust element type with a zTensor storage type, for typed helpers like
/// [`Data::from_slice`] and [`Writer::add_slice`](super::v1_2::Writer::add_slice).
///
/// `f16`/`bf16` have no Rust type here: give their bytes with the dtype.
pub trait Scalar: zerocopy::IntoBytes + zerocopy::Immutable + Copy + 'static {
    /// The storage type of `Self`.
    const DTYPE: DType;
}

macro_rules! scalar {
    ($($t:ty => $d:ident),*) => {$(
        impl Scalar for $t {
            const DTYPE: DType = DType::$d;
        }
    )*};
}
scalar!(f64 => F64, f32 => F32, i64 => I64, i32 => I32, i16 => I16, i8 => I8,
        u64 => U64, u32 => U32, u16 => U16, u8 => U8, bool => Bool);

/// Pull-style byte source (like `BufRead`): `fill` shows the next unread
/// bytes (empty at the end), `consume` marks some as read.
pub(crate) trait Pull {
    fn fill(&mut self) -> Result<&[u8]>;
    fn consume(&mut self, n: usize);
    /// The I/O error behind the last failure, if any.
    #[cfg(feature = "std")]
    fn take_io_error(&mut self) -> Option<std::io::Error> {
        None
    }
}

/// The decoded bytes of one component.
///
/// Held in memory ([`Data::bytes`], [`Data::owned`], [`Data::from_slice`],
/// or `From` a byte slice / `Vec`), or streamed: [`Data::from_chunks`] and
/// [`Data::from_reader`] never hold the whole component, so a tensor larger
/// than memory can be written. A streamed source declares its length up
/// front (the writer validates the object before writing any of it) and
/// must deliver exactly that many bytes.
///
/// Multi-byte elements must be little-endian (the spec's byte order);
/// [`Data::from_slice`] converts on big-endian hosts.
pub struct Data<'a>(pub(crate) Repr<'a>);

pub(crate) enum Repr<'a> {
    Bytes(Cow<'a, [u8]>),
    Stream { len: u64, src: Box<dyn Pull + 'a> },
}

impl<'a> Data<'a> {
    /// Borrowed bytes.
    pub fn bytes(b: &'a [u8]) -> Self {
        Data(Repr::Bytes(Cow::Borrowed(b)))
    }

    /// Owned bytes.
    pub fn owned(v: Vec<u8>) -> Self {
        Data(Repr::Bytes(Cow::Owned(v)))
    }

    /// Typed elements, as little-endian bytes: borrowed on little-endian
    /// hosts, converted on big-endian ones.
    pub fn from_slice<T: Scalar>(s: &'a [T]) -> Self {
        let b = zerocopy::IntoBytes::as_bytes(s);
        if cfg!(target_endian = "big") && core::mem::size_of::<T>() > 1 {
            let mut v = b.to_vec();
            for e in v.chunks_exact_mut(core::mem::size_of::<T>()) {
                e.reverse();
            }
            return Data::owned(v);
        }
        Data::bytes(b)
    }

    /// `len` bytes delivered as a sequence of chunks (any sizes, empty
    /// chunks allowed). Only one chunk is held at a time.
    pub fn from_chunks<I>(len: u64, chunks: I) -> Self
    where
        I: IntoIterator + 'a,
        I::Item: AsRef<[u8]> + 'a,
    {
        Data(Repr::Stream { len, src: Box::new(Chunks { it: chunks.into_iter(), cur: None, off: 0 }) })
    }

    /// `len` bytes read from `reader` through a 64 KiB buffer. A read error
    /// fails the object with [`ErrorKind::Io`](crate::ErrorKind::Io); the
    /// `std::io::Error` is kept for [`Writer::take_io_error`](super::v1_2::Writer::take_io_error).
    #[cfg(feature = "std")]
    pub fn from_reader<R: std::io::Read + 'a>(len: u64, reader: R) -> Self {
        Data(Repr::Stream { len, src: Box::new(Reader { r: reader, buf: Vec::new(), start: 0, end: 0, err: None }) })
    }

    /// Decoded length in bytes (declared, for streams).
    pub fn len(&self) -> u64 {
        match &self.0 {
            Repr::Bytes(b) => b.len() as u64,
            Repr::Stream { len, .. } => *len,
        }
    }

    /// Whether the length is zero.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl core::fmt::Debug for Data<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match &self.0 {
            Repr::Bytes(b) => write!(f, "Data::Bytes({} bytes)", b.len()),
            Repr::Stream { len, .. } => write!(f, "Data::Stream({len} bytes)"),
        }
    }
}

impl<'a> From<&'a [u8]> for Data<'a> {
    fn from(b: &'a [u8]) -> Self {
        Data::bytes(b)
    }
}
impl<'a, const N: usize> From<&'a [u8; N]> for Data<'a> {
    fn from(b: &'a [u8; N]) -> Self {
        Data::bytes(b)
    }
}
impl<'a> From<&'a Vec<u8>> for Data<'a> {
    fn from(b: &'a Vec<u8>) -> Self {
        Data::bytes(b)
    }
}
impl From<Vec<u8>> for Data<'_> {
    fn from(v: Vec<u8>) -> Self {
        Data::owned(v)
    }
}

/// In-memory bytes as a [`Pull`].
pub(crate) struct Slice<'b> {
    pub b: &'b [u8],
}

impl Pull for Slice<'_> {
    fn fill(&mut self) -> Result<&[u8]> {
        Ok(self.b)
    }
    fn consume(&mut self, n: usize) {
        self.b = &self.b[n..];
    }
}

struct Chunks<I: Iterator> {
    it: I,
    cur: Option<I::Item>,
    off: usize,
}

impl<I> Pull for Chunks<I>
where
    I: Iterator,
    I::Item: AsRef<[u8]>,
{
    fn fill(&mut self) -> Result<&[u8]> {
        while !matches!(&self.cur, Some(c) if self.off < c.as_ref().len()) {
            self.off = 0;
            self.cur = self.it.next();
            if self.cur.is_none() {
                return Ok(&[]);
            }
        }
        Ok(self.cur.as_ref().map_or(&[][..], |c| &c.as_ref()[self.off..]))
    }
    fn consume(&mut self, n: usize) {
        self.off += n;
    }
}

#[cfg(feature = "std")]
struct Reader<R> {
    r: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    err: Option<std::io::Error>,
}

#[cfg(feature = "std")]
impl<R: std::io::Read> Pull for Reader<R> {
    fn fill(&mut self) -> Result<&[u8]> {
        if self.start == self.end {
            if self.buf.is_empty() {
                self.buf = alloc::vec![0; 64 * 1024];
            }
            loop {
                match self.r.read(&mut self.buf) {
                    Ok(n) => {
                        (self.start, self.end) = (0, n);
                        break;
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        self.err = Some(e);
                        return Err(crate::Error::new(crate::ErrorKind::Io));
                    }
                }
            }
        }
        Ok(&self.buf[self.start..self.end])
    }
    fn consume(&mut self, n: usize) {
        self.start += n;
    }
    fn take_io_error(&mut self) -> Option<std::io::Error> {
        self.err.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn drain(mut p: impl Pull) -> Vec<u8> {
        let mut out = Vec::new();
        loop {
            let b = p.fill().unwrap();
            if b.is_empty() {
                return out;
            }
            let n = b.len().min(3);
            out.extend_from_slice(&b[..n]);
            p.consume(n);
        }
    }

    #[test]
    fn chunks_skip_empty_pieces() {
        let pieces = vec![vec![], vec![1u8, 2, 3, 4, 5], vec![], vec![6], vec![]];
        let c = Chunks { it: pieces.into_iter(), cur: None, off: 0 };
        assert_eq!(drain(c), [1, 2, 3, 4, 5, 6]);
        assert_eq!(drain(Slice { b: &[9, 8, 7, 6] }), [9, 8, 7, 6]);
    }

    #[test]
    fn typed_slices_are_little_endian() {
        let d = Data::from_slice(&[1u32, 0x0102_0304]);
        let Repr::Bytes(b) = &d.0 else { panic!() };
        assert_eq!(&b[..], [1, 0, 0, 0, 4, 3, 2, 1]);
        assert_eq!(d.len(), 8);
    }
}
