//! Byte ranges of a `zt.zstd-seekable/1` part: only the frames covering the
//! range are decoded, from the whole encoded part in memory or, through a
//! positional read function, from its seek table and those frames alone.

use super::error::{Error, Kind, Result};
use super::seekable::{self, SeekTable, MAX_FRAME};
use alloc::vec::Vec;

const SKIPPABLE_MAGIC: u32 = 0x184D_2A5E;
const SEEK_MAGIC: u32 = 0x8F92_EAB1;

fn bad(what: &'static str) -> Error {
    Error::ctx(Kind::Seekable, what)
}

fn le32(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

/// Decode bytes `start..start + out.len()` of the part `encoded` (its whole
/// encoded bytes, `decoded_length` once decoded): the seek table is checked,
/// then only the frames covering the range are decoded.
pub fn read_range(encoded: &[u8], decoded_length: u64, start: u64, out: &mut [u8]) -> Result<()> {
    let t = SeekTable::parse(encoded, decoded_length)?;
    let frames = t.frames_for(start, start + out.len() as u64);
    if frames.is_empty() {
        return Ok(());
    }
    let (first, last) = (t.frame(frames.start), t.frame(frames.end - 1));
    let base = first.decoded_offset;
    let span = (last.decoded_offset + last.decoded_len - base) as usize;
    if start == base && out.len() == span {
        return seekable::decode_frames(encoded, &t, frames, out);
    }
    let mut buf = alloc::vec![0u8; span];
    seekable::decode_frames(encoded, &t, frames, &mut buf)?;
    let at = (start - base) as usize;
    out.copy_from_slice(&buf[at..at + out.len()]);
    Ok(())
}

/// A seek table read by position: its skippable frame (header included),
/// where that frame starts in the part, its entry size and frame count.
struct TableAt {
    table: Vec<u8>,
    skip: u64,
    stride: u64,
    frames: u64,
    desc: u8,
}

impl TableAt {
    /// Read the seek table of a part of `encoded_len` bytes (its last 9
    /// bytes, then the table itself) through `read(offset, len)`.
    fn read(encoded_len: u64, read: &mut impl FnMut(u64, usize) -> Result<Vec<u8>>) -> Result<TableAt> {
        if encoded_len < 17 {
            return Err(bad("no seek table"));
        }
        let end9 = read(encoded_len - 9, 9)?;
        let (frames, desc) = (le32(&end9, 0) as u64, end9[4]);
        if le32(&end9, 5) != SEEK_MAGIC {
            return Err(bad("no seek table"));
        }
        if desc & 0x7f != 0 {
            return Err(bad("reserved descriptor bits"));
        }
        let stride = if desc & 0x80 != 0 { 12 } else { 8 };
        let table_len = frames * stride + 9;
        let skip = encoded_len.checked_sub(table_len + 8).ok_or(bad("seek table size"))?;
        let table = read(skip, (table_len + 8) as usize)?;
        if le32(&table, 0) != SKIPPABLE_MAGIC || le32(&table, 4) as u64 != table_len {
            return Err(bad("seek table frame"));
        }
        Ok(TableAt { table, skip, stride, frames, desc })
    }

    /// Frame `i`'s (compressed, decoded) sizes.
    fn entry(&self, i: u64) -> (u64, u64) {
        let at = 8 + (i * self.stride) as usize;
        (le32(&self.table, at) as u64, le32(&self.table, at + 4) as u64)
    }
}

/// Wrap a caller's `read_at(offset in the part, buf)` (`false`: the read
/// failed, and the caller keeps its error; [`Kind::NotAvailable`] here).
fn reader(mut read_at: impl FnMut(u64, &mut [u8]) -> bool) -> impl FnMut(u64, usize) -> Result<Vec<u8>> {
    move |off: u64, len: usize| {
        let mut b = alloc::vec![0u8; len];
        if read_at(off, &mut b) {
            Ok(b)
        } else {
            Err(Error::new(Kind::NotAvailable))
        }
    }
}

/// The decoded size of every frame but the last of a part of `encoded_len`
/// bytes, from its seek table alone (read as [`read_range_at`] does): what a
/// parallel load splits the part on, a frame never decoded twice. The
/// table's other rules are checked when the frames are read.
pub fn frame_size_at(encoded_len: u64, read_at: impl FnMut(u64, &mut [u8]) -> bool) -> Result<u64> {
    let t = TableAt::read(encoded_len, &mut reader(read_at))?;
    if t.frames == 0 {
        return Err(bad("no frames"));
    }
    Ok(t.entry(0).1)
}

/// [`read_range`] for a part of `encoded_len` bytes read through
/// `read_at(offset in the part, buf)` (`false`: the read failed, and the
/// caller keeps its error; [`Kind::NotAvailable`] here). Reads the seek
/// table, checks its sizes (frames ≤ 16 MiB, all but the last equal, tiling
/// the frames and summing to `decoded_length`), then reads the covering
/// frames alone and decodes them as a seekable stream of their own (their
/// headers and checksums checked as for a whole part).
pub fn read_range_at(
    encoded_len: u64,
    decoded_length: u64,
    start: u64,
    out: &mut [u8],
    read_at: impl FnMut(u64, &mut [u8]) -> bool,
) -> Result<()> {
    let mut read = reader(read_at);
    let t = TableAt::read(encoded_len, &mut read)?;
    let (table, skip, stride, frames, desc) = (&t.table, t.skip, t.stride, t.frames, t.desc);
    let entry = |i: u64| t.entry(i);
    // The table's sizes, and the frames covering the range with where they are.
    let (size, end) = (entry(0).1, start + out.len() as u64);
    let (mut enc, mut dec) = (0u64, 0u64);
    let mut cover: Option<(u64, u64, u64, u64)> = None; // first frame, its offset and decoded offset, frames
    for i in 0..frames {
        let (c, d) = entry(i);
        if d > MAX_FRAME || (i + 1 < frames && d != size) || d > size {
            return Err(bad("frames of unequal size"));
        }
        if dec < end && dec + d > start {
            let (f, o, x, n) = cover.unwrap_or((i, enc, dec, 0));
            cover = Some((f, o, x, n + 1));
        }
        enc += c;
        dec += d;
    }
    if enc != skip {
        return Err(bad("compressed sizes"));
    }
    if dec != decoded_length {
        return Err(Error::ctx(Kind::DecodedLength, "seek table"));
    }
    let Some((first, offset, base, n)) = cover.filter(|_| !out.is_empty()) else { return Ok(()) };
    // The covering frames, then a seek table of theirs: a stream of its own.
    let (mut len, mut decoded) = (0, 0);
    for i in first..first + n {
        len += entry(i).0;
        decoded += entry(i).1;
    }
    let mut sub: Vec<u8> = read(offset, len as usize)?;
    let sub_table = n * stride + 9;
    sub.extend_from_slice(&SKIPPABLE_MAGIC.to_le_bytes());
    sub.extend_from_slice(&(sub_table as u32).to_le_bytes());
    sub.extend_from_slice(&table[8 + (first * stride) as usize..8 + ((first + n) * stride) as usize]);
    sub.extend_from_slice(&(n as u32).to_le_bytes());
    sub.push(desc);
    sub.extend_from_slice(&SEEK_MAGIC.to_le_bytes());
    read_range(&sub, decoded, start - base, out)
}
