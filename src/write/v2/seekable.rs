//! Encoding a part as `zt.zstd-seekable/1`: independent zstd frames of
//! equal decoded size (the last may be shorter), each with a content
//! checksum, then the seek table in a skippable frame (no per-entry
//! checksums, as upstream writes it).
//!
//! Frames come from the v1.2 writer's compressor (ruzstd, or libzstd with
//! the `libzstd` feature), which writes no checksum: the frame header's
//! checksum flag is set and the low 32 bits of the content's XXH64 are
//! appended, which is exactly what a checksummed frame is.

use super::super::data::{Pull, Slice};
use super::super::zstd;
use super::PartDigest;
use crate::error::{Error, ErrorKind, Result};
use alloc::vec::Vec;

/// Default decoded bytes per frame.
pub const DEFAULT_FRAME: u32 = 1 << 20;
const SKIPPABLE_MAGIC: u32 = 0x184D_2A5E;
const SEEK_MAGIC: u32 = 0x8F92_EAB1;

/// Encode exactly `declared` bytes from `src`; the decoded bytes go through
/// `digest` too. Returns the encoded part.
pub(crate) fn encode(level: i32, frame: u32, src: &mut dyn Pull, declared: u64, digest: &mut PartDigest) -> Result<Vec<u8>> {
    let frame = frame as usize;
    let mut out = Vec::new();
    let mut table: Vec<(u32, u32)> = Vec::new();
    let mut chunk = Vec::with_capacity(frame.min(declared as usize));
    let mut total = 0u64;
    loop {
        // Fill one frame's worth (or what is left).
        chunk.clear();
        while chunk.len() < frame {
            let b = src.fill()?;
            if b.is_empty() {
                break;
            }
            let n = b.len().min(frame - chunk.len());
            chunk.extend_from_slice(&b[..n]);
            src.consume(n);
        }
        if chunk.is_empty() {
            break;
        }
        total += chunk.len() as u64;
        if total > declared {
            return Err(Error::new(ErrorKind::LengthMismatch { expected: declared, actual: total }));
        }
        digest.update(&chunk);
        let start = out.len();
        zstd::compress(level, &mut Slice { b: &chunk }, chunk.len() as u64, &mut |b| {
            out.extend_from_slice(b);
            Ok(())
        })?;
        if out[start + 4] & 0x04 == 0 {
            out[start + 4] |= 0x04;
            let sum = xxhash_rust::xxh64::xxh64(&chunk, 0) as u32;
            out.extend_from_slice(&sum.to_le_bytes());
        }
        table.push(((out.len() - start) as u32, chunk.len() as u32));
        if chunk.len() < frame {
            break;
        }
    }
    if total != declared {
        return Err(Error::new(ErrorKind::LengthMismatch { expected: declared, actual: total }));
    }
    out.extend_from_slice(&SKIPPABLE_MAGIC.to_le_bytes());
    out.extend_from_slice(&((table.len() * 8 + 9) as u32).to_le_bytes());
    for (c, d) in &table {
        out.extend_from_slice(&c.to_le_bytes());
        out.extend_from_slice(&d.to_le_bytes());
    }
    out.extend_from_slice(&(table.len() as u32).to_le_bytes());
    out.push(0);
    out.extend_from_slice(&SEEK_MAGIC.to_le_bytes());
    Ok(out)
}
