//! zstd decoding, bounded: output never grows past the declared or
//! configured size.
//!
//! Two backends with the same contract:
//!
//! - [`pure`]: ruzstd (pure Rust, `no_std` + `alloc`). Always built; the
//!   default.
//! - `libzstd` (feature `libzstd`, needs `std`): the zstd C library,
//!   several times faster.
//!
//! [`decode_into`] and [`decode_to_vec`] use libzstd when the feature is
//! on and ruzstd otherwise; [`Component::read_into`](crate::Component::read_into)
//! and [`Component::to_vec`](crate::Component::to_vec) go through them.
//! [`BACKEND`] names the one in use.
//!
//! The contract, for both:
//!
//! - `decode_into(input, out)` decodes every frame of `input` (skippable
//!   frames are skipped) into `out` and returns the bytes written. Output
//!   beyond `out.len()` is [`ErrorKind::DecodedTooLarge`], found while
//!   decoding; nothing is written past `out`.
//! - `decode_to_vec(input, limit)` does the same into a new `Vec` that
//!   grows with the output, never past `limit` bytes.
//! - Empty, truncated or corrupt input is [`ErrorKind::Decompress`].
//!
//! libzstd also checks a frame's content checksum and declared content
//! size when present; ruzstd (built without its `hash` feature) checks
//! neither, so a few corrupt frames ruzstd accepts, libzstd refuses.

use crate::error::{Error, ErrorKind, Result};
use alloc::vec::Vec;

/// The backend behind [`decode_into`] and [`decode_to_vec`]: `"libzstd"` or `"ruzstd"`.
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

fn corrupt() -> Error {
    Error::new(ErrorKind::Decompress)
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

    /// Run the frames of `input` through `drain`, which receives the decoder
    /// after each step and must take what it can.
    fn frames(mut input: &[u8], mut drain: impl FnMut(&mut FrameDecoder) -> Result<()>) -> Result<()> {
        let mut dec = FrameDecoder::new();
        if input.is_empty() {
            return Err(corrupt());
        }
        while !input.is_empty() {
            match dec.init(&mut input) {
                Ok(()) => {}
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame { length, .. })) => {
                    input = input.get(length as usize..).ok_or_else(corrupt)?;
                    continue;
                }
                Err(_) => return Err(corrupt()),
            }
            loop {
                dec.decode_blocks(&mut input, BlockDecodingStrategy::UptoBytes(STEP)).map_err(|_| corrupt())?;
                drain(&mut dec)?;
                if dec.is_finished() {
                    break;
                }
            }
        }
        Ok(())
    }

    /// [`super::decode_into`] with ruzstd.
    pub fn decode_into(input: &[u8], out: &mut [u8]) -> Result<usize> {
        let limit = out.len() as u64;
        let mut written = 0usize;
        frames(input, |dec| {
            let n = dec.read(&mut out[written..]).map_err(|_| corrupt())?;
            written += n;
            if dec.can_collect() != 0 {
                return Err(Error::new(ErrorKind::DecodedTooLarge { limit }));
            }
            Ok(())
        })?;
        Ok(written)
    }

    /// [`super::decode_to_vec`] with ruzstd.
    pub fn decode_to_vec(input: &[u8], limit: u64) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        frames(input, |dec| {
            let n = dec.can_collect();
            if (out.len() + n) as u64 > limit {
                return Err(Error::new(ErrorKind::DecodedTooLarge { limit }));
            }
            let start = out.len();
            out.resize(start + n, 0);
            let got = dec.read(&mut out[start..]).map_err(|_| corrupt())?;
            out.truncate(start + got);
            Ok(())
        })?;
        Ok(out)
    }
}

/// The zstd C library (feature `libzstd`).
#[cfg(feature = "libzstd")]
pub mod libzstd {
    use super::corrupt;
    use crate::error::{Error, ErrorKind, Result};
    use ::zstd::zstd_safe::{zstd_sys::ZSTD_ErrorCode, DCtx, InBuffer, OutBuffer};
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
        if input.is_empty() {
            return Err(corrupt());
        }
        let limit = out.len() as u64;
        DCtx::try_create().ok_or_else(corrupt)?.decompress(out, input).map_err(|code| {
            if dst_too_small(code) {
                Error::new(ErrorKind::DecodedTooLarge { limit })
            } else {
                corrupt()
            }
        })
    }

    /// [`super::decode_to_vec`] with libzstd: streaming through a fixed
    /// staging buffer (`ZSTD_DStreamOutSize`, 128 KiB), each piece checked
    /// against `limit` before it is appended.
    pub fn decode_to_vec(input: &[u8], limit: u64) -> Result<Vec<u8>> {
        if input.is_empty() {
            return Err(corrupt());
        }
        let mut dctx = DCtx::try_create().ok_or_else(corrupt)?;
        let mut stage = alloc::vec![0u8; DCtx::out_size()];
        let mut inb = InBuffer::around(input);
        let mut out = Vec::new();
        loop {
            let before = inb.pos();
            let mut outb = OutBuffer::around(&mut stage[..]);
            let hint = dctx.decompress_stream(&mut outb, &mut inb).map_err(|_| corrupt())?;
            let n = outb.pos();
            if (out.len() + n) as u64 > limit {
                return Err(Error::new(ErrorKind::DecodedTooLarge { limit }));
            }
            out.extend_from_slice(&stage[..n]);
            let consumed = inb.pos() == input.len();
            if hint == 0 && consumed {
                // The last frame is complete and flushed.
                return Ok(out);
            }
            if n == 0 && (consumed || inb.pos() == before) {
                // No progress: the input ends inside a frame.
                return Err(corrupt());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // `printf 'hello hello hello hello\n' | zstd --no-check`
    const HELLO: &[u8] = &[
        0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58, 0x6d, 0x00, 0x00, 0x38, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x20, 0x0a,
        0x01, 0x00, 0x99, 0x4b, 0x11,
    ];
    /// A skippable frame with 3 bytes of payload.
    const SKIP: &[u8] = &[0x50, 0x2a, 0x4d, 0x18, 0x03, 0x00, 0x00, 0x00, 1, 2, 3];

    type IntoFn = fn(&[u8], &mut [u8]) -> Result<usize>;
    type VecFn = fn(&[u8], u64) -> Result<Vec<u8>>;

    /// Every backend built, and the default one.
    fn backends() -> Vec<(&'static str, IntoFn, VecFn)> {
        let v: Vec<(&'static str, IntoFn, VecFn)> =
            alloc::vec![("default", decode_into, decode_to_vec), ("ruzstd", pure::decode_into, pure::decode_to_vec)];
        #[cfg(feature = "libzstd")]
        let v = {
            let mut v = v;
            v.push(("libzstd", libzstd::decode_into as IntoFn, libzstd::decode_to_vec as VecFn));
            v
        };
        v
    }

    #[test]
    fn backend_name() {
        assert_eq!(BACKEND, if cfg!(feature = "libzstd") { "libzstd" } else { "ruzstd" });
    }

    #[test]
    fn decodes_within_bounds() {
        for (name, into, to_vec) in backends() {
            let mut out = [0u8; 24];
            let n = into(HELLO, &mut out).unwrap();
            assert_eq!(&out[..n], b"hello hello hello hello\n", "{name}");
            assert_eq!(to_vec(HELLO, 24).unwrap(), b"hello hello hello hello\n", "{name}");
            // A bigger buffer: fewer bytes written, no error.
            let mut out = [0u8; 100];
            assert_eq!(into(HELLO, &mut out).unwrap(), 24, "{name}");
        }
    }

    #[test]
    fn stops_at_the_limit() {
        for (name, into, to_vec) in backends() {
            let mut out = [0u8; 10];
            assert_eq!(into(HELLO, &mut out).unwrap_err().kind(), ErrorKind::DecodedTooLarge { limit: 10 }, "{name}");
            let mut out = [0u8; 23];
            assert_eq!(into(HELLO, &mut out).unwrap_err().kind(), ErrorKind::DecodedTooLarge { limit: 23 }, "{name}");
            assert_eq!(to_vec(HELLO, 23).unwrap_err().kind(), ErrorKind::DecodedTooLarge { limit: 23 }, "{name}");
            assert_eq!(to_vec(HELLO, 0).unwrap_err().kind(), ErrorKind::DecodedTooLarge { limit: 0 }, "{name}");
        }
    }

    #[test]
    fn several_and_skippable_frames() {
        let mut two = Vec::new();
        two.extend_from_slice(SKIP);
        two.extend_from_slice(HELLO);
        two.extend_from_slice(SKIP);
        two.extend_from_slice(HELLO);
        let mut want = b"hello hello hello hello\n".to_vec();
        want.extend_from_slice(b"hello hello hello hello\n");
        for (name, into, to_vec) in backends() {
            let mut out = [0u8; 48];
            assert_eq!(into(&two, &mut out).unwrap(), 48, "{name}");
            assert_eq!(&out[..], &want[..], "{name}");
            assert_eq!(to_vec(&two, 48).unwrap(), want, "{name}");
            let mut out = [0u8; 47];
            assert_eq!(into(&two, &mut out).unwrap_err().kind(), ErrorKind::DecodedTooLarge { limit: 47 }, "{name}");
            assert_eq!(to_vec(&two, 47).unwrap_err().kind(), ErrorKind::DecodedTooLarge { limit: 47 }, "{name}");
            // Only a skippable frame: nothing decoded.
            assert_eq!(into(SKIP, &mut out).unwrap(), 0, "{name}");
            assert_eq!(to_vec(SKIP, 0).unwrap(), b"", "{name}");
        }
    }

    #[test]
    fn corrupt_and_truncated_frames_fail() {
        for (name, into, to_vec) in backends() {
            let mut out = [0u8; 64];
            for cut in [0, 3, 8, HELLO.len() - 5, HELLO.len() - 1] {
                assert_eq!(into(&HELLO[..cut], &mut out).unwrap_err().kind(), ErrorKind::Decompress, "{name} cut {cut}");
                assert_eq!(to_vec(&HELLO[..cut], 64).unwrap_err().kind(), ErrorKind::Decompress, "{name} cut {cut}");
            }
            let mut bad = HELLO.to_vec();
            bad[0] = 0;
            assert_eq!(into(&bad, &mut out).unwrap_err().kind(), ErrorKind::Decompress, "{name}");
            assert_eq!(to_vec(&bad, 64).unwrap_err().kind(), ErrorKind::Decompress, "{name}");
            // Trailing garbage after a good frame.
            let mut tail = HELLO.to_vec();
            tail.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 0]);
            assert_eq!(into(&tail, &mut out).unwrap_err().kind(), ErrorKind::Decompress, "{name}");
            assert_eq!(to_vec(&tail, 64).unwrap_err().kind(), ErrorKind::Decompress, "{name}");
        }
    }

    /// Both backends agree on real frames of every shape the writer makes.
    #[cfg(feature = "libzstd")]
    #[test]
    fn backends_agree_on_large_frames() {
        let data: Vec<u8> = (0..3_000_000u32).map(|i| (i.wrapping_mul(2654435761) >> 29) as u8 ^ (i / 1000) as u8).collect();
        for level in [1, 3, 19] {
            let frame = ::zstd::bulk::compress(&data, level).unwrap();
            let mut a = alloc::vec![0u8; data.len()];
            let mut b = alloc::vec![0u8; data.len()];
            assert_eq!(pure::decode_into(&frame, &mut a).unwrap(), data.len());
            assert_eq!(libzstd::decode_into(&frame, &mut b).unwrap(), data.len());
            assert!(a == data && b == data, "level {level}");
            assert_eq!(libzstd::decode_to_vec(&frame, data.len() as u64).unwrap(), data);
            let short = data.len() as u64 - 1;
            assert_eq!(
                libzstd::decode_to_vec(&frame, short).unwrap_err().kind(),
                ErrorKind::DecodedTooLarge { limit: short }
            );
            let mut small = alloc::vec![0u8; data.len() - 1];
            assert_eq!(
                libzstd::decode_into(&frame, &mut small).unwrap_err().kind(),
                ErrorKind::DecodedTooLarge { limit: short }
            );
        }
    }
}
