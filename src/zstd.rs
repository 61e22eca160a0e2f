//! zstd decoding with ruzstd (pure Rust, `no_std` + `alloc`), bounded:
//! output never grows past the declared or configured size.

use crate::error::{Error, ErrorKind, Result};
use alloc::vec::Vec;
use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};
use ruzstd::io::Read;

/// Most bytes decoded per step before draining into the output.
const STEP: usize = 1 << 17;

fn corrupt(_: FrameDecoderError) -> Error {
    Error::new(ErrorKind::Decompress)
}

/// Run the frames of `input` through `drain`, which receives the decoder
/// after each step and must take what it can.
fn frames(mut input: &[u8], mut drain: impl FnMut(&mut FrameDecoder) -> Result<()>) -> Result<()> {
    let mut dec = FrameDecoder::new();
    if input.is_empty() {
        return Err(Error::new(ErrorKind::Decompress));
    }
    while !input.is_empty() {
        match dec.init(&mut input) {
            Ok(()) => {}
            Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame { length, .. })) => {
                input = input.get(length as usize..).ok_or_else(|| Error::new(ErrorKind::Decompress))?;
                continue;
            }
            Err(e) => return Err(corrupt(e)),
        }
        loop {
            dec.decode_blocks(&mut input, BlockDecodingStrategy::UptoBytes(STEP)).map_err(corrupt)?;
            drain(&mut dec)?;
            if dec.is_finished() {
                break;
            }
        }
    }
    Ok(())
}

/// Decode `input` into `out`, returning the bytes written. More output than
/// `out` holds is an error ([`ErrorKind::DecodedTooLarge`]), found while decoding.
pub fn decode_into(input: &[u8], out: &mut [u8]) -> Result<usize> {
    let limit = out.len() as u64;
    let mut written = 0usize;
    frames(input, |dec| {
        let n = dec.read(&mut out[written..]).map_err(|_| Error::new(ErrorKind::Decompress))?;
        written += n;
        if dec.can_collect() != 0 {
            return Err(Error::new(ErrorKind::DecodedTooLarge { limit }));
        }
        Ok(())
    })?;
    Ok(written)
}

/// Decode `input` into a new `Vec` of at most `limit` bytes, for frames whose
/// size is not declared. Memory grows with the output, never past `limit`.
pub fn decode_to_vec(input: &[u8], limit: u64) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    frames(input, |dec| {
        let n = dec.can_collect();
        if (out.len() + n) as u64 > limit {
            return Err(Error::new(ErrorKind::DecodedTooLarge { limit }));
        }
        let start = out.len();
        out.resize(start + n, 0);
        let got = dec.read(&mut out[start..]).map_err(|_| Error::new(ErrorKind::Decompress))?;
        out.truncate(start + got);
        Ok(())
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // `printf 'hello hello hello hello\n' | zstd --no-check`
    const HELLO: &[u8] = &[
        0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58, 0x6d, 0x00, 0x00, 0x38, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x20, 0x0a,
        0x01, 0x00, 0x99, 0x4b, 0x11,
    ];

    #[test]
    fn decodes_within_bounds() {
        let mut out = [0u8; 24];
        let n = decode_into(HELLO, &mut out).unwrap();
        assert_eq!(&out[..n], b"hello hello hello hello\n");
        assert_eq!(decode_to_vec(HELLO, 24).unwrap(), b"hello hello hello hello\n");
    }

    #[test]
    fn stops_at_the_limit() {
        let mut out = [0u8; 10];
        assert_eq!(decode_into(HELLO, &mut out).unwrap_err().kind(), ErrorKind::DecodedTooLarge { limit: 10 });
        assert_eq!(decode_to_vec(HELLO, 23).unwrap_err().kind(), ErrorKind::DecodedTooLarge { limit: 23 });
    }

    #[test]
    fn corrupt_and_truncated_frames_fail() {
        let mut out = [0u8; 64];
        for cut in [0, 3, 8, HELLO.len() - 5] {
            assert!(decode_into(&HELLO[..cut], &mut out).is_err(), "cut {cut}");
        }
        let mut bad = HELLO.to_vec();
        bad[0] = 0;
        assert_eq!(decode_into(&bad, &mut out).unwrap_err().kind(), ErrorKind::Decompress);
    }
}
