//! zstd compression of one component as one frame, streamed: input is
//! pulled a block at a time and output handed on as it is produced.
//!
//! Backends: the zstd C library (feature `libzstd`, on by default with
//! `std`) or ruzstd (pure Rust, `no_std` + `alloc`). ruzstd implements only its
//! "fastest" strategy (about zstd level 1), so with it every level gives
//! the same output; libzstd honours the level (1..=22, negative for faster).
//! Frames carry no content size and no checksum, like the reference's.

use super::data::Pull;
use crate::error::{Error, ErrorKind, Result};

/// Bytes read from the source, or an error: the source's, or `out`'s.
pub(crate) fn compress(
    level: i32,
    src: &mut dyn Pull,
    limit: u64,
    out: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<u64> {
    #[cfg(feature = "libzstd")]
    {
        libzstd(level, src, limit, out)
    }
    #[cfg(not(feature = "libzstd"))]
    {
        let _ = level;
        pure(src, limit, out)
    }
}

/// Take at most `limit` bytes in total: a source that runs past its
/// declared length is an error, found before the excess is used.
fn over(limit: u64, total: u64, n: usize) -> Option<Error> {
    (total + n as u64 > limit).then(|| Error::new(ErrorKind::LengthMismatch { expected: limit, actual: total + n as u64 }))
}

#[cfg(not(feature = "libzstd"))]
fn pure(src: &mut dyn Pull, limit: u64, out: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<u64> {
    use core::cell::Cell;
    use ruzstd::encoding::{CompressionLevel, FrameCompressor};

    // ruzstd unwraps every read and write: the adapters never fail, they
    // record the first error and end the stream.
    struct In<'s, 'f> {
        src: &'s mut dyn Pull,
        limit: u64,
        total: u64,
        err: Option<Error>,
        failed: &'f Cell<bool>,
    }
    impl ruzstd::io::Read for In<'_, '_> {
        fn read(&mut self, buf: &mut [u8]) -> core::result::Result<usize, ruzstd::io::Error> {
            if self.err.is_some() || self.failed.get() || buf.is_empty() {
                return Ok(0);
            }
            let b = match self.src.fill() {
                Ok(b) => b,
                Err(e) => {
                    self.err = Some(e);
                    return Ok(0);
                }
            };
            let n = b.len().min(buf.len());
            if let Some(e) = over(self.limit, self.total, n) {
                self.err = Some(e);
                return Ok(0);
            }
            buf[..n].copy_from_slice(&b[..n]);
            self.src.consume(n);
            self.total += n as u64;
            Ok(n)
        }
    }
    struct Out<'o, 'f> {
        out: &'o mut dyn FnMut(&[u8]) -> Result<()>,
        err: Option<Error>,
        failed: &'f Cell<bool>,
    }
    impl ruzstd::io::Write for Out<'_, '_> {
        fn write(&mut self, buf: &[u8]) -> core::result::Result<usize, ruzstd::io::Error> {
            if self.err.is_none() {
                if let Err(e) = (self.out)(buf) {
                    self.err = Some(e);
                    self.failed.set(true);
                }
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> core::result::Result<(), ruzstd::io::Error> {
            Ok(())
        }
    }

    let failed = Cell::new(false);
    let mut c = FrameCompressor::new(CompressionLevel::Fastest);
    c.set_source(In { src, limit, total: 0, err: None, failed: &failed });
    c.set_drain(Out { out, err: None, failed: &failed });
    c.compress();
    let (i, o) = (c.take_source(), c.take_drain());
    if let Some(e) = o.and_then(|o| o.err) {
        return Err(e);
    }
    match i {
        Some(In { err: Some(e), .. }) => Err(e),
        Some(i) => Ok(i.total),
        None => Err(Error::new(ErrorKind::Unsupported { what: "zstd encoder lost its source" })),
    }
}

#[cfg(feature = "libzstd")]
fn libzstd(level: i32, src: &mut dyn Pull, limit: u64, out: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<u64> {
    struct Out<'o> {
        out: &'o mut dyn FnMut(&[u8]) -> Result<()>,
        err: Option<Error>,
    }
    impl std::io::Write for Out<'_> {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if let Err(e) = (self.out)(buf) {
                self.err = Some(e);
                return Err(std::io::Error::other("sink failed"));
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let fail = |o: &mut Out<'_>| o.err.take().unwrap_or(Error::new(ErrorKind::Io));
    let mut enc = zstd::stream::write::Encoder::new(Out { out, err: None }, level)
        .map_err(|_| Error::new(ErrorKind::Unsupported { what: "zstd level" }))?;
    let mut total = 0u64;
    loop {
        let b = src.fill()?;
        if b.is_empty() {
            break;
        }
        if let Some(e) = over(limit, total, b.len()) {
            return Err(e);
        }
        let n = b.len();
        if std::io::Write::write_all(&mut enc, b).is_err() {
            return Err(fail(enc.get_mut()));
        }
        src.consume(n);
        total += n as u64;
    }
    match enc.try_finish() {
        Ok(_) => Ok(total),
        Err((mut enc, _)) => Err(fail(enc.get_mut())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::data::Slice;
    use alloc::vec::Vec;

    fn roundtrip(data: &[u8]) -> Vec<u8> {
        let mut frame = Vec::new();
        let n = compress(3, &mut Slice { b: data }, data.len() as u64, &mut |b| {
            frame.extend_from_slice(b);
            Ok(())
        })
        .unwrap();
        assert_eq!(n, data.len() as u64);
        frame
    }

    #[test]
    fn frames_decode_back() {
        for data in [Vec::new(), alloc::vec![7u8; 1 << 20], (0..300_000u32).map(|i| (i.wrapping_mul(i) >> 7) as u8).collect()] {
            let frame = roundtrip(&data);
            assert_eq!(crate::zstd::decode_to_vec(&frame, data.len() as u64).unwrap(), data);
        }
        // Compressible data shrinks.
        assert!(roundtrip(&[0u8; 100_000]).len() < 1000);
    }

    #[test]
    fn overlong_sources_and_failing_sinks_are_errors() {
        let data = [1u8; 1000];
        let e = compress(3, &mut Slice { b: &data }, 999, &mut |_| Ok(())).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::LengthMismatch { expected: 999, .. }), "{e:?}");
        let e = compress(3, &mut Slice { b: &data }, 1000, &mut |_| Err(Error::new(ErrorKind::Io))).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Io);
    }
}
