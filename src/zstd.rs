//! zstd decoding, bounded: output never grows past the declared or
//! configured size.
//!
//! Two backends with the same contract:
//!
//! - [`pure`]: ruzstd (pure Rust, `no_std` + `alloc`). Always built; the
//!   backend without `std`, or with `std` and `default-features = false`.
//! - `libzstd` (feature `libzstd`, on by default, needs `std`): the zstd C
//!   library, several times faster.
//!
//! [`decode_into`], [`decode_sized`] and [`decode_to_vec`] use libzstd when
//! the feature is on and ruzstd otherwise;
//! [`Component::read_into`](crate::Component::read_into) and
//! [`Component::to_vec`](crate::Component::to_vec) go through them.
//! [`BACKEND`] names the one in use.
//!
//! The contract, for both:
//!
//! - `decode_into(input, out)` decodes every frame of `input` (skippable
//!   frames are skipped) into `out` and returns the bytes written. Output
//!   beyond `out.len()` is [`ErrorKind::DecodedTooLarge`], found while
//!   decoding; nothing is written past `out`.
//! - `decode_sized(input, len)` does the same into a new `Vec` allocated
//!   once for `len` bytes (a declared size).
//! - `decode_to_vec(input, limit)` does the same into a new `Vec` that
//!   grows with the output, never past `limit` bytes (no declared size).
//! - Empty, truncated or corrupt input is [`ErrorKind::Decompress`].
//!
//! Memory besides the output: ruzstd keeps the frame's window (as its
//! header asks, at most 100 MiB; larger is refused) in all three; libzstd
//! needs none for `decode_into` / `decode_sized` (the output is the
//! history) and, for `decode_to_vec`, a window of at most 128 MiB (its
//! default `windowLogMax`; larger is refused) plus a 128 KiB staging buffer.
//!
//! Frame headers are checked here before ruzstd sees them (every frame,
//! the first included): the reserved bit must be 0 and the window at most
//! [`MAX_WINDOW`] (100 MiB), else [`ErrorKind::Decompress`].
//!
//! [`FrameDecoder`] decodes one whole frame at a time, reusing its state
//! (the frames of a `zt.zstd-seekable/1` part).
//!
//! Both backends refuse the same frames: a frame whose content checksum
//! (RFC 8878 §3.1.1: the low 32 bits of the XXH64 of its content) does not
//! match is [`ErrorKind::ZstdChecksum`], one whose declared
//! `Frame_Content_Size` is not what it decodes to is
//! [`ErrorKind::Decompress`]. libzstd checks both itself; ruzstd (built
//! without its `hash` feature) checks neither, so [`pure`] does, frame by
//! frame, as the bytes pass.

// `Error` is large by design (allocation-free, carries names), as in `write`.
#![allow(clippy::result_large_err)]

use crate::error::{Error, ErrorKind, Result};
use alloc::vec::Vec;

/// The backend behind this module's top-level functions: `"libzstd"` or `"ruzstd"`.
pub const BACKEND: &str = if cfg!(feature = "libzstd") { "libzstd" } else { "ruzstd" };

/// Decode `input` into `out`, returning the bytes written. More output than
/// `out` holds is an error ([`ErrorKind::DecodedTooLarge`]), found while decoding.
pub fn decode_into(input: &[u8], out: &mut [u8]) -> Result<usize> {
    #[cfg(feature = "libzstd")]
    {
        libzstd::decode_into(input, out)
    }
    #[cfg(not(feature = "libzstd"))]
    {
        pure::decode_into(input, out)
    }
}

/// Decode `input` into a new `Vec` allocated once with room for exactly
/// `len` bytes, for frames whose size is declared; returns what was decoded
/// (the caller checks it is all `len`). More output is an error
/// ([`ErrorKind::DecodedTooLarge`]). With libzstd the buffer is not zeroed
/// first (zstd writes into the spare capacity).
pub fn decode_sized(input: &[u8], len: usize) -> Result<Vec<u8>> {
    #[cfg(feature = "libzstd")]
    {
        libzstd::decode_sized(input, len)
    }
    #[cfg(not(feature = "libzstd"))]
    {
        pure::decode_sized(input, len)
    }
}

/// Decode `input` into a new `Vec` of at most `limit` bytes, for frames whose
/// size is not declared. Memory grows with the output, never past `limit`.
pub fn decode_to_vec(input: &[u8], limit: u64) -> Result<Vec<u8>> {
    #[cfg(feature = "libzstd")]
    {
        libzstd::decode_to_vec(input, limit)
    }
    #[cfg(not(feature = "libzstd"))]
    {
        pure::decode_to_vec(input, limit)
    }
}

/// Decode `input` piece by piece (at most 128 KiB at a time), handing each
/// piece to `f`, without keeping the output: memory stays bounded whatever
/// the frame says. More than `limit` bytes is [`ErrorKind::DecodedTooLarge`].
/// Returns the decoded length.
pub fn for_each_chunk(input: &[u8], limit: u64, f: impl FnMut(&[u8]) -> Result<()>) -> Result<u64> {
    #[cfg(feature = "libzstd")]
    {
        libzstd::for_each_chunk(input, limit, f)
    }
    #[cfg(not(feature = "libzstd"))]
    {
        pure::for_each_chunk(input, limit, f)
    }
}

/// Decodes single zstd frames one after another, reusing its state (one
/// libzstd context with the `libzstd` feature): the frames of a
/// `zt.zstd-seekable/1` part. Each frame must be exactly one whole frame,
/// and its content checksum, when its header says it has one, is checked:
/// libzstd checks it while decoding; ruzstd does not, so with it the XXH64
/// of the output is compared here.
pub struct FrameDecoder {
    #[cfg(feature = "libzstd")]
    inner: libzstd::FrameDecoder,
}

impl FrameDecoder {
    /// A decoder for the backend in use ([`BACKEND`]).
    pub fn new() -> Result<FrameDecoder> {
        Ok(FrameDecoder {
            #[cfg(feature = "libzstd")]
            inner: libzstd::FrameDecoder::new()?,
        })
    }

    /// Decode the one frame `frame` into `out`; returns the bytes written.
    /// More output than `out` holds is [`ErrorKind::DecodedTooLarge`].
    pub fn decode_into(&mut self, frame: &[u8], out: &mut [u8]) -> Result<usize> {
        #[cfg(feature = "libzstd")]
        {
            self.inner.decode_into(frame, out)
        }
        #[cfg(not(feature = "libzstd"))]
        {
            pure::decode_frame_into(frame, out)
        }
    }

    /// Decode the one frame `frame` after the end of `out`, into its spare
    /// capacity (with libzstd not zeroed first); returns the bytes appended.
    /// More than `max` bytes, or than the spare capacity, is
    /// [`ErrorKind::DecodedTooLarge`] (and `out` is left as it was).
    pub fn decode_append(&mut self, frame: &[u8], out: &mut Vec<u8>, max: usize) -> Result<usize> {
        let start = out.len();
        #[cfg(feature = "libzstd")]
        let n = self.inner.decode_append(frame, out, max);
        #[cfg(not(feature = "libzstd"))]
        let n = {
            out.resize(start + max.min(out.capacity() - start), 0);
            pure::decode_frame_into(frame, &mut out[start..])
        };
        let n = n.and_then(|n| if n > max { Err(Error::new(ErrorKind::DecodedTooLarge { limit: max as u64 })) } else { Ok(n) });
        out.truncate(start + *n.as_ref().unwrap_or(&0));
        n
    }
}

/// Gather what a `for_each_chunk` hands out into one `Vec`.
fn collect(each: impl FnOnce(&mut dyn FnMut(&[u8]) -> Result<()>) -> Result<u64>) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    each(&mut |c: &[u8]| {
        out.extend_from_slice(c);
        Ok(())
    })?;
    Ok(out)
}

fn corrupt() -> Error {
    Error::new(ErrorKind::Decompress)
}

/// Largest frame window the ruzstd backend accepts: 100 MiB, the decoder's
/// memory besides the output.
pub const MAX_WINDOW: u64 = 100 << 20;

/// Check the header of the zstd frame `input` starts with (RFC 8878 §3.1.1.1):
/// the reserved bit is 0 and the window (or, for a single-segment frame, the
/// content size) is at most [`MAX_WINDOW`]. Skippable frames and anything
/// that is not a frame are left to the decoder.
pub fn check_frame_header(input: &[u8]) -> Result<()> {
    const MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
    if input.get(..4) != Some(&MAGIC[..]) {
        return Ok(());
    }
    let d = *input.get(4).ok_or_else(corrupt)?;
    let (fcs_flag, single, reserved, dict_flag) = (d >> 6, d & 0x20 != 0, d & 0x08 != 0, d & 0x03);
    if reserved {
        return Err(corrupt());
    }
    let window = if single {
        let at = 5 + [0usize, 1, 2, 4][dict_flag as usize];
        let n = [1usize, 2, 4, 8][fcs_flag as usize];
        let b = input.get(at..at + n).ok_or_else(corrupt)?;
        let v = b.iter().rev().fold(0u64, |a, &x| (a << 8) | u64::from(x));
        if n == 2 { v + 256 } else { v }
    } else {
        let w = *input.get(5).ok_or_else(corrupt)?;
        let base = 1u64 << (10 + (w >> 3));
        base + (base / 8) * u64::from(w & 7)
    };
    if window > MAX_WINDOW {
        return Err(corrupt());
    }
    Ok(())
}

/// ruzstd: pure Rust, `no_std` + `alloc`.
pub mod pure {
    use super::corrupt;
    use crate::error::{Error, ErrorKind, Result};
    use alloc::vec::Vec;
    use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
    use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};
    use ruzstd::io::Read;

    /// Most bytes decoded per step before draining into the output.
    const STEP: usize = 1 << 17;

    /// What one frame has decoded so far: its length and the XXH64 its
    /// content checksum is the low 32 bits of.
    pub(super) struct Frame {
        len: u64,
        hash: xxhash_rust::xxh64::Xxh64,
    }

    impl Frame {
        /// Decoded bytes `b` of the frame, in order.
        fn saw(&mut self, b: &[u8]) {
            self.len += b.len() as u64;
            self.hash.update(b);
        }
    }

    /// Run the frames of `input` through `drain`, which receives the decoder
    /// after each step and must take what it can, handing what it took to
    /// [`Frame::saw`]. At each frame's end its content checksum and declared
    /// content size, when its header has them, are checked against what
    /// was taken (what libzstd checks while decoding).
    /// Returns the number of frames, skippable ones included.
    fn frames(mut input: &[u8], mut drain: impl FnMut(&mut FrameDecoder, &mut Frame) -> Result<()>) -> Result<usize> {
        let mut dec = FrameDecoder::new();
        if input.is_empty() {
            return Err(corrupt());
        }
        let mut count = 0;
        while !input.is_empty() {
            count += 1;
            super::check_frame_header(input)?;
            // RFC 8878 §3.1.1.1.1: Frame_Content_Size is present when its flag is set or the frame is single-segment.
            let declares_size = input.get(4).is_some_and(|&d| d >> 6 != 0 || d & 0x20 != 0);
            match dec.init(&mut input) {
                Ok(()) => {}
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame { length, .. })) => {
                    input = input.get(length as usize..).ok_or_else(corrupt)?;
                    continue;
                }
                Err(_) => return Err(corrupt()),
            }
            let mut frame = Frame { len: 0, hash: xxhash_rust::xxh64::Xxh64::new(0) };
            loop {
                dec.decode_blocks(&mut input, BlockDecodingStrategy::UptoBytes(STEP)).map_err(|_| corrupt())?;
                drain(&mut dec, &mut frame)?;
                if dec.is_finished() {
                    break;
                }
            }
            if dec.get_checksum_from_data().is_some_and(|sum| sum != frame.hash.digest() as u32) {
                return Err(Error::new(ErrorKind::ZstdChecksum));
            }
            if declares_size && dec.content_size() != frame.len {
                return Err(corrupt());
            }
        }
        Ok(count)
    }

    /// [`super::decode_into`] with ruzstd.
    pub fn decode_into(input: &[u8], out: &mut [u8]) -> Result<usize> {
        into(input, out).map(|(n, _)| n)
    }

    /// [`decode_into`], and the number of frames.
    fn into(input: &[u8], out: &mut [u8]) -> Result<(usize, usize)> {
        let limit = out.len() as u64;
        let mut written = 0usize;
        let count = frames(input, |dec, frame| {
            let n = dec.read(&mut out[written..]).map_err(|_| corrupt())?;
            frame.saw(&out[written..written + n]);
            written += n;
            if dec.can_collect() != 0 {
                return Err(Error::new(ErrorKind::DecodedTooLarge { limit }));
            }
            Ok(())
        })?;
        Ok((written, count))
    }

    /// [`super::FrameDecoder::decode_into`] with ruzstd: [`decode_into`]
    /// (which checks the content checksum), refusing a second frame after
    /// the first (libzstd's `ZSTD_findFrameCompressedSize` check).
    pub fn decode_frame_into(frame: &[u8], out: &mut [u8]) -> Result<usize> {
        match into(frame, out)? {
            (n, 1) => Ok(n),
            _ => Err(corrupt()),
        }
    }

    /// [`super::decode_sized`] with ruzstd: a zeroed `Vec`, then [`decode_into`].
    pub fn decode_sized(input: &[u8], len: usize) -> Result<Vec<u8>> {
        let mut v = alloc::vec![0u8; len];
        let n = decode_into(input, &mut v)?;
        v.truncate(n);
        Ok(v)
    }

    /// [`super::decode_to_vec`] with ruzstd.
    pub fn decode_to_vec(input: &[u8], limit: u64) -> Result<Vec<u8>> {
        super::collect(|f| for_each_chunk(input, limit, f))
    }

    /// [`super::for_each_chunk`] with ruzstd.
    pub fn for_each_chunk(input: &[u8], limit: u64, mut f: impl FnMut(&[u8]) -> Result<()>) -> Result<u64> {
        let mut stage = alloc::vec![0u8; 1 << 17];
        let mut total = 0u64;
        frames(input, |dec, frame| loop {
            let n = dec.read(&mut stage).map_err(|_| corrupt())?;
            if n == 0 {
                return Ok(());
            }
            frame.saw(&stage[..n]);
            total += n as u64;
            if total > limit {
                return Err(Error::new(ErrorKind::DecodedTooLarge { limit }));
            }
            f(&stage[..n])?;
        })?;
        Ok(total)
    }
}

/// The zstd C library (feature `libzstd`).
#[cfg(feature = "libzstd")]
pub mod libzstd {
    use super::corrupt;
    use crate::error::{Error, ErrorKind, Result};
    use ::zstd::zstd_safe::{zstd_sys::ZSTD_ErrorCode, DCtx, InBuffer, OutBuffer, WriteBuf};
    use alloc::vec::Vec;

    /// Whether a libzstd error code says the output buffer was too small.
    /// Errors are `(size_t)-code` (zstd's `ERR_getErrorCode` is `0 - code`),
    /// read here without the `unsafe` call to `ZSTD_getErrorCode`.
    fn dst_too_small(code: usize) -> bool {
        code.wrapping_neg() == ZSTD_ErrorCode::ZSTD_error_dstSize_tooSmall as usize
    }

    /// [`super::decode_into`] with libzstd: one `ZSTD_decompressDCtx` into
    /// `out` (all frames, skippable ones skipped), which writes nothing past
    /// `out.len()` and fails with `dstSize_tooSmall` when more would come.
    pub fn decode_into(input: &[u8], out: &mut [u8]) -> Result<usize> {
        bulk(input, out, out.len())
    }

    /// One `ZSTD_decompressDCtx` into `out`, whose room is `limit` bytes.
    fn bulk<C: WriteBuf + ?Sized>(input: &[u8], out: &mut C, limit: usize) -> Result<usize> {
        if input.is_empty() {
            return Err(corrupt());
        }
        DCtx::try_create().ok_or_else(corrupt)?.decompress(out, input).map_err(|code| error_of(code, limit))
    }

    /// The error of a libzstd decompression error code, output room `limit`.
    fn error_of(code: usize, limit: usize) -> Error {
        if dst_too_small(code) {
            Error::new(ErrorKind::DecodedTooLarge { limit: limit as u64 })
        } else if code.wrapping_neg() == ZSTD_ErrorCode::ZSTD_error_checksum_wrong as usize {
            Error::new(ErrorKind::ZstdChecksum)
        } else {
            corrupt()
        }
    }

    /// [`super::FrameDecoder`] with libzstd: one context for every frame.
    /// libzstd checks a frame's content checksum itself (its default,
    /// `ZSTD_d_forceIgnoreChecksum` off); the input must be one whole frame
    /// (`ZSTD_findFrameCompressedSize`), so no second frame, with or
    /// without a checksum, rides along.
    pub struct FrameDecoder(DCtx<'static>);

    impl FrameDecoder {
        /// A new context.
        pub fn new() -> Result<FrameDecoder> {
            DCtx::try_create().map(FrameDecoder).ok_or_else(corrupt)
        }

        fn one_frame(frame: &[u8]) -> Result<()> {
            match ::zstd::zstd_safe::find_frame_compressed_size(frame) {
                Ok(n) if n == frame.len() => Ok(()),
                _ => Err(corrupt()),
            }
        }

        fn run<C: WriteBuf + ?Sized>(&mut self, frame: &[u8], out: &mut C, limit: usize) -> Result<usize> {
            Self::one_frame(frame)?;
            self.0.decompress(out, frame).map_err(|code| error_of(code, limit))
        }

        /// [`super::FrameDecoder::decode_into`].
        pub fn decode_into(&mut self, frame: &[u8], out: &mut [u8]) -> Result<usize> {
            let limit = out.len();
            self.run(frame, out, limit)
        }

        /// [`super::FrameDecoder::decode_append`]: into the spare capacity,
        /// never zeroed (a `Cursor` at the end of `out`; zstd-safe sets the
        /// length to what was written). The caller checks `max`.
        pub fn decode_append(&mut self, frame: &[u8], out: &mut Vec<u8>, max: usize) -> Result<usize> {
            let start = out.len();
            let mut cur = std::io::Cursor::new(out);
            cur.set_position(start as u64);
            self.run(frame, &mut cur, max)
        }
    }

    /// [`super::decode_sized`] with libzstd: `Vec::with_capacity(len)`
    /// (exactly `len`: `Vec` guarantees it), filled by one
    /// `ZSTD_decompressDCtx` into its spare capacity, never zeroed;
    /// zstd-safe sets the length to what was written.
    pub fn decode_sized(input: &[u8], len: usize) -> Result<Vec<u8>> {
        let mut v = Vec::with_capacity(len);
        bulk(input, &mut v, len)?;
        Ok(v)
    }

    /// [`super::decode_to_vec`] with libzstd: streaming through a fixed
    /// staging buffer (`ZSTD_DStreamOutSize`, 128 KiB), each piece checked
    /// against `limit` before it is appended.
    pub fn decode_to_vec(input: &[u8], limit: u64) -> Result<Vec<u8>> {
        super::collect(|f| for_each_chunk(input, limit, f))
    }

    /// [`super::for_each_chunk`] with libzstd's streaming API.
    pub fn for_each_chunk(input: &[u8], limit: u64, mut f: impl FnMut(&[u8]) -> Result<()>) -> Result<u64> {
        if input.is_empty() {
            return Err(corrupt());
        }
        let mut dctx = DCtx::try_create().ok_or_else(corrupt)?;
        let mut stage = alloc::vec![0u8; DCtx::out_size()];
        let mut inb = InBuffer::around(input);
        let mut total = 0u64;
        loop {
            let before = inb.pos();
            let mut outb = OutBuffer::around(&mut stage[..]);
            let hint = dctx.decompress_stream(&mut outb, &mut inb).map_err(|code| error_of(code, usize::MAX))?;
            let n = outb.pos();
            total += n as u64;
            if total > limit {
                return Err(Error::new(ErrorKind::DecodedTooLarge { limit }));
            }
            f(&stage[..n])?;
            let consumed = inb.pos() == input.len();
            if hint == 0 && consumed {
                // The last frame is complete and flushed.
                return Ok(total);
            }
            if n == 0 && (consumed || inb.pos() == before) {
                // No progress: the input ends inside a frame.
                return Err(corrupt());
            }
        }
    }
}

#[cfg(test)]
mod tests;
