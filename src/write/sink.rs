//! Where a file's bytes go.

use crate::error::Result;
use alloc::vec::Vec;

/// An append-only byte destination: the writer appends; it reads back and
/// rewinds only where a sink says it can ([`Sink::read_at`], [`Sink::rewind_to`]).
///
/// Implemented for `Vec<u8>` and `&mut S`; with `std`, [`IoSink`] adapts any
/// `std::io::Write` and [`FileSink`](super::FileSink) publishes a file
/// atomically. A `no_std` program implements it for its own storage (flash,
/// a ring of DMA buffers, ...).
pub trait Sink {
    /// Append all of `bytes`, or fail (a failure makes the writer unusable).
    fn write_all(&mut self, bytes: &[u8]) -> Result<()>;

    /// Called once, after the footer: flush, sync, publish. Default: nothing.
    fn finish(&mut self) -> Result<()> {
        Ok(())
    }

    /// The `std::io::Error` behind the last [`ErrorKind::Io`](crate::ErrorKind::Io) failure, if any.
    #[cfg(feature = "std")]
    fn take_io_error(&mut self) -> Option<std::io::Error> {
        None
    }

    /// Read back `buf.len()` bytes written at `offset`; `Ok(false)` when
    /// this sink cannot (the default). The v2 writer uses it to confirm,
    /// byte for byte, that a part is identical to an earlier blob before
    /// sharing it.
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<bool> {
        let _ = (offset, buf);
        Ok(false)
    }

    /// Append `n` zero bytes without writing them, when this sink can (a
    /// file: a hole, stored as no blocks); `Ok(false)` when it cannot (the
    /// default), and the writer writes the zeros. The v2 writer's padding
    /// before each blob (up to 64 KiB in canonical form) goes here first.
    fn skip_zeros(&mut self, n: u64) -> Result<bool> {
        let _ = n;
        Ok(false)
    }

    /// Drop every byte from `offset` on, so that the next write goes to
    /// `offset`; `Ok(false)` when this sink cannot (the default). The v2
    /// writer uses it to take back a streamed part found, once written, to
    /// be identical to an earlier blob, and share that blob instead.
    fn rewind_to(&mut self, offset: u64) -> Result<bool> {
        let _ = offset;
        Ok(false)
    }
}

impl Sink for Vec<u8> {
    fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        self.extend_from_slice(bytes);
        Ok(())
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<bool> {
        let src = usize::try_from(offset).ok().and_then(|o| self.get(o..o.checked_add(buf.len())?));
        let src = src.ok_or(crate::Error::new(crate::ErrorKind::Io))?;
        buf.copy_from_slice(src);
        Ok(true)
    }
    fn rewind_to(&mut self, offset: u64) -> Result<bool> {
        match usize::try_from(offset) {
            Ok(o) if o <= self.len() => {
                self.truncate(o);
                Ok(true)
            }
            _ => Err(crate::Error::new(crate::ErrorKind::Io)),
        }
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        (**self).write_all(bytes)
    }
    fn finish(&mut self) -> Result<()> {
        (**self).finish()
    }
    #[cfg(feature = "std")]
    fn take_io_error(&mut self) -> Option<std::io::Error> {
        (**self).take_io_error()
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<bool> {
        (**self).read_at(offset, buf)
    }
    fn skip_zeros(&mut self, n: u64) -> Result<bool> {
        (**self).skip_zeros(n)
    }
    fn rewind_to(&mut self, offset: u64) -> Result<bool> {
        (**self).rewind_to(offset)
    }
}

/// A [`Sink`] over any `std::io::Write` (a socket, a pipe, a `BufWriter`,
/// ...). `finish` flushes it. Errors become [`ErrorKind::Io`](crate::ErrorKind::Io);
/// the `std::io::Error` is kept for [`Sink::take_io_error`].
#[cfg(feature = "std")]
#[derive(Debug)]
pub struct IoSink<W> {
    inner: W,
    error: Option<std::io::Error>,
}

#[cfg(feature = "std")]
impl<W: std::io::Write> IoSink<W> {
    /// Wrap a writer.
    pub fn new(inner: W) -> Self {
        IoSink { inner, error: None }
    }

    /// The wrapped writer.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// Unwrap.
    pub fn into_inner(self) -> W {
        self.inner
    }

    fn io<T>(&mut self, r: std::io::Result<T>) -> Result<T> {
        r.map_err(|e| {
            self.error = Some(e);
            crate::Error::new(crate::ErrorKind::Io)
        })
    }
}

#[cfg(feature = "std")]
impl<W: std::io::Write> Sink for IoSink<W> {
    fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        let r = self.inner.write_all(bytes);
        self.io(r)
    }
    fn finish(&mut self) -> Result<()> {
        let r = self.inner.flush();
        self.io(r)
    }
    fn take_io_error(&mut self) -> Option<std::io::Error> {
        self.error.take()
    }
}
