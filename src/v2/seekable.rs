//! The `zt.zstd-seekable/1` encoding profile: the seek table and the frame
//! headers, checked without decoding; frame lookup for a decoded range.
//!
//! Stream: zstd frames, then a skippable frame (magic `0x184D2A5E`) whose
//! payload is the seek table: per frame `compressed u32, decompressed u32`
//! (`+ checksum u32` when the descriptor's bit 7 is set), then
//! `frames u32, descriptor u8, magic 0x8F92EAB1`.

use super::error::{Error, Kind, Result};

/// The encoding profile id.
pub const ID: &str = "zt.zstd-seekable/1";
/// Largest decoded content of one frame.
pub const MAX_FRAME: u64 = 16 << 20;
const SEEK_MAGIC: u32 = 0x8F92_EAB1;
const SKIPPABLE_MAGIC: u32 = 0x184D_2A5E;
const ZSTD_MAGIC: u32 = 0xFD2F_B528;

fn bad(what: &'static str) -> Error {
    Error::ctx(Kind::Seekable, what)
}

fn le32(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

/// A checked seek table over an encoded part.
#[derive(Clone, Copy, Debug)]
pub struct SeekTable<'a> {
    entries: &'a [u8],
    stride: usize,
    frames: usize,
    /// Decoded size of every frame but the last.
    pub frame_size: u64,
    /// Bytes of the frames (the seek table follows them).
    pub frames_len: u64,
}

/// One frame: where its bytes are, and which decoded bytes it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Offset of the frame in the encoded part.
    pub offset: u64,
    /// Its encoded length.
    pub len: u64,
    /// Offset of its content in the decoded part.
    pub decoded_offset: u64,
    /// Its decoded length.
    pub decoded_len: u64,
}

impl<'a> SeekTable<'a> {
    /// Parse and check the profile's rules that need no decoding: the seek
    /// table's framing; every frame ≤ 16 MiB, all but the last of equal size,
    /// their sum `decoded_length`; compressed sizes tiling the frames; each
    /// frame a zstd frame with the content-checksum flag, its declared content
    /// size (if any) the table's.
    pub fn parse(encoded: &'a [u8], decoded_length: u64) -> Result<SeekTable<'a>> {
        let n = encoded.len();
        if n < 17 || le32(encoded, n - 4) != SEEK_MAGIC {
            return Err(bad("no seek table"));
        }
        let frames = le32(encoded, n - 9) as usize;
        let desc = encoded[n - 5];
        if desc & 0x7f != 0 {
            return Err(bad("reserved descriptor bits"));
        }
        let stride = if desc & 0x80 != 0 { 12 } else { 8 };
        let table_len = frames.checked_mul(stride).and_then(|t| t.checked_add(9)).ok_or(bad("seek table size"))?;
        let skip_len = table_len.checked_add(8).filter(|&s| s <= n).ok_or(bad("seek table size"))?;
        let skip = n - skip_len;
        if le32(encoded, skip) != SKIPPABLE_MAGIC || le32(encoded, skip + 4) as usize != table_len {
            return Err(bad("seek table frame"));
        }
        let t = SeekTable { entries: &encoded[skip + 8..n - 9], stride, frames, frame_size: 0, frames_len: skip as u64 };
        let (mut enc, mut dec) = (0u64, 0u64);
        let mut size = 0;
        for i in 0..frames {
            let (c, d) = t.entry(i);
            if d > MAX_FRAME {
                return Err(bad("frame over 16 MiB"));
            }
            if i == 0 {
                size = d;
            } else if i + 1 < frames && d != size || i + 1 == frames && d > size {
                return Err(bad("frames of unequal size"));
            }
            if enc.checked_add(c).map_or(true, |e| e > skip as u64) {
                return Err(bad("compressed sizes"));
            }
            check_frame_header(&encoded[enc as usize..(enc + c) as usize], d)?;
            enc += c;
            dec += d;
        }
        if enc != skip as u64 {
            return Err(bad("compressed sizes"));
        }
        if dec != decoded_length {
            return Err(Error::ctx(Kind::DecodedLength, "seek table"));
        }
        Ok(SeekTable { frame_size: size, ..t })
    }

    fn entry(&self, i: usize) -> (u64, u64) {
        let b = &self.entries[i * self.stride..];
        (le32(b, 0) as u64, le32(b, 4) as u64)
    }

    /// Number of frames.
    pub fn len(&self) -> usize {
        self.frames
    }

    /// Whether there are no frames (an empty part).
    pub fn is_empty(&self) -> bool {
        self.frames == 0
    }

    /// Frame `i`.
    pub fn frame(&self, i: usize) -> Frame {
        let (mut off, mut dec) = (0, 0);
        for j in 0..i {
            let (c, d) = self.entry(j);
            off += c;
            dec += d;
        }
        let (len, decoded_len) = self.entry(i);
        Frame { offset: off, len, decoded_offset: dec, decoded_len }
    }

    /// The frames covering decoded bytes `start..end` (`first..last+1`):
    /// a division, since all frames but the last are of equal size.
    pub fn frames_for(&self, start: u64, end: u64) -> core::ops::Range<usize> {
        if self.frame_size == 0 || start >= end {
            return 0..0;
        }
        let first = (start / self.frame_size) as usize;
        let last = ((end - 1) / self.frame_size) as usize;
        first.min(self.frames)..(last + 1).min(self.frames)
    }
}

/// A zstd frame header: magic, content checksum flag, and its content size
/// when declared.
fn check_frame_header(f: &[u8], decoded: u64) -> Result<()> {
    if f.len() < 6 || le32(f, 0) != ZSTD_MAGIC {
        return Err(bad("not a zstd frame"));
    }
    let fhd = f[4];
    if fhd & 0x04 == 0 {
        return Err(bad("frame without content checksum"));
    }
    if fhd & 0x08 != 0 {
        return Err(bad("reserved frame header bit"));
    }
    let single = fhd & 0x20 != 0;
    let did = [0usize, 1, 2, 4][(fhd & 3) as usize];
    let fcs_len = match fhd >> 6 {
        0 => usize::from(single),
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let at = 5 + usize::from(!single) + did;
    let b = f.get(at..at + fcs_len).ok_or(bad("frame header"))?;
    if fcs_len > 0 {
        let mut v = b.iter().rev().fold(0u64, |v, &x| v << 8 | x as u64);
        if fcs_len == 2 {
            v += 256;
        }
        if v != decoded {
            return Err(Error::ctx(Kind::DecodedLength, "frame content size"));
        }
    }
    Ok(())
}

/// Decode a seekable part: every frame, each into its slot of `out` (exactly
/// `decoded_length` long), each frame's output exactly its table size.
#[cfg(feature = "alloc")]
pub fn decode_into(encoded: &[u8], decoded_length: u64, out: &mut [u8]) -> Result<()> {
    let t = SeekTable::parse(encoded, decoded_length)?;
    if out.len() as u64 != decoded_length {
        return Err(Error::new(Kind::DecodedLength));
    }
    decode_frames(encoded, &t, 0..t.len(), out)
}

/// Decode frames `frames` into `out` (which holds exactly their content).
#[cfg(feature = "alloc")]
pub fn decode_frames(encoded: &[u8], t: &SeekTable<'_>, frames: core::ops::Range<usize>, out: &mut [u8]) -> Result<()> {
    let base = if frames.is_empty() { 0 } else { t.frame(frames.start).decoded_offset };
    for i in frames {
        let f = t.frame(i);
        let src = &encoded[f.offset as usize..(f.offset + f.len) as usize];
        let dst = &mut out[(f.decoded_offset - base) as usize..(f.decoded_offset - base + f.decoded_len) as usize];
        match crate::zstd::decode_into(src, dst) {
            Ok(n) if n as u64 == f.decoded_len => {}
            Ok(_) => return Err(Error::ctx(Kind::DecodedLength, "frame")),
            Err(_) => return Err(bad("frame does not decode")),
        }
        // The content checksum (flag checked by parse): low 32 bits of XXH64, the frame's last 4 bytes.
        if src.len() < 4 || le32(src, src.len() - 4) != xxhash_rust::xxh64::xxh64(dst, 0) as u32 {
            return Err(bad("frame checksum"));
        }
    }
    Ok(())
}
