//! The `zt.zstd-seekable/1` encoding profile: the seek table and the frame
//! headers, checked without decoding; frame lookup for a decoded range.
//!
//! Stream: zstd frames, then a skippable frame (magic `0x184D2A5E`) whose
//! payload is the seek table: per frame `compressed u32, decompressed u32`
//! (`+ checksum u32` when the descriptor's bit 7 is set), then
//! `frames u32, descriptor u8, magic 0x8F92EAB1`. The descriptor
//! (`Seek_Table_Descriptor` of the zstd seekable format): bit 7
//! `Checksum_Flag`, bits 6-2 `Reserved_Bits` (must be zero), bits 1-0
//! `Unused_Bits` (a decoder must not interpret them).

use super::error::{Error, Kind, Result};

/// The encoding profile id.
pub const ID: &str = "zt.zstd-seekable/1";
/// Largest decoded content of one frame.
pub const MAX_FRAME: u64 = 16 << 20;
const SEEK_MAGIC: u32 = 0x8F92_EAB1;
const SKIPPABLE_MAGIC: u32 = 0x184D_2A5E;
const ZSTD_MAGIC: u32 = 0xFD2F_B528;
/// The seek table descriptor's `Reserved_Bits` (6-2).
const RESERVED_BITS: u8 = 0x7c;

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
        // Reserved_Bits set: refused; Unused_Bits: ignored (the seekable format).
        if desc & RESERVED_BITS != 0 {
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

    /// Frames `range`, in order, each found from the previous one (one pass
    /// over the table, not one per frame).
    pub fn frames(&self, range: core::ops::Range<usize>) -> impl Iterator<Item = Frame> + '_ {
        let (mut off, mut dec) = match range.is_empty() {
            true => (0, 0),
            false => {
                let f = self.frame(range.start);
                (f.offset, f.decoded_offset)
            }
        };
        range.map(move |i| {
            let (len, decoded_len) = self.entry(i);
            let f = Frame { offset: off, len, decoded_offset: dec, decoded_len };
            off += len;
            dec += decoded_len;
            f
        })
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
    let mut dec = decoder()?;
    let mut at = 0usize;
    for f in t.frames(frames) {
        let dst = out.get_mut(at..at + f.decoded_len as usize).ok_or(Error::new(Kind::DecodedLength))?;
        frame_result(dec.decode_into(frame_bytes(encoded, &f), dst), &f)?;
        at += f.decoded_len as usize;
    }
    Ok(())
}

/// Decode a seekable part into a new `Vec` of exactly `decoded_length`
/// bytes (checked against the seek table before it is allocated), written
/// frame after frame into its spare capacity: with libzstd, never zeroed.
#[cfg(feature = "alloc")]
pub fn decode_to_vec(encoded: &[u8], decoded_length: u64) -> Result<alloc::vec::Vec<u8>> {
    let t = SeekTable::parse(encoded, decoded_length)?;
    let mut out = alloc::vec::Vec::with_capacity(decoded_length as usize);
    let mut dec = decoder()?;
    for f in t.frames(0..t.len()) {
        let r = dec.decode_append(frame_bytes(encoded, &f), &mut out, f.decoded_len as usize);
        frame_result(r, &f)?;
    }
    Ok(out)
}

/// A seekable part's frames decoded in order, one at a time
/// ([`Frames::next_into`], or as an iterator of buffers): the memory a
/// whole part's check or conversion needs is one frame (at most 16 MiB,
/// `MAX_FRAME`), whatever `decoded_length` the seek table declares.
#[cfg(feature = "alloc")]
pub struct Frames<'e> {
    encoded: &'e [u8],
    table: SeekTable<'e>,
    /// The next frame, and where its bytes start.
    next: usize,
    offset: u64,
    dec: crate::zstd::FrameDecoder,
}

#[cfg(feature = "alloc")]
impl<'e> Frames<'e> {
    /// The frames of the part `encoded`, once its seek table is checked.
    pub fn new(encoded: &'e [u8], decoded_length: u64) -> Result<Frames<'e>> {
        let table = SeekTable::parse(encoded, decoded_length)?;
        Ok(Frames { encoded, table, next: 0, offset: 0, dec: decoder()? })
    }

    /// The largest frame's decoded size: what a buffer for [`Frames::next_into`] needs.
    pub fn frame_size(&self) -> u64 {
        self.table.frame_size
    }

    /// Decode the next frame into `buf`, resized to exactly its content
    /// (checked against the table); `None` after the last frame.
    pub fn next_into(&mut self, buf: &mut alloc::vec::Vec<u8>) -> Option<Result<()>> {
        if self.next == self.table.len() {
            return None;
        }
        let (len, decoded_len) = self.table.entry(self.next);
        let f = Frame { offset: self.offset, len, decoded_offset: 0, decoded_len };
        self.next += 1;
        self.offset += len;
        buf.resize(decoded_len as usize, 0);
        Some(frame_result(self.dec.decode_into(frame_bytes(self.encoded, &f), buf), &f))
    }
}

#[cfg(feature = "alloc")]
impl Iterator for Frames<'_> {
    type Item = Result<alloc::vec::Vec<u8>>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut v = alloc::vec::Vec::new();
        self.next_into(&mut v).map(|r| r.map(|()| v))
    }
}

/// Decode a seekable part frame after frame into one buffer of a frame's
/// size, handing each frame's content to `f` in order ([`Frames`]).
#[cfg(feature = "alloc")]
pub fn for_each_frame<E: From<Error>>(
    encoded: &[u8],
    decoded_length: u64,
    mut f: impl FnMut(&[u8]) -> core::result::Result<(), E>,
) -> core::result::Result<(), E> {
    let mut frames = Frames::new(encoded, decoded_length)?;
    let mut buf = alloc::vec::Vec::with_capacity(frames.frame_size() as usize);
    while let Some(r) = frames.next_into(&mut buf) {
        r?;
        f(&buf)?;
    }
    Ok(())
}

#[cfg(feature = "alloc")]
fn decoder() -> Result<crate::zstd::FrameDecoder> {
    crate::zstd::FrameDecoder::new().map_err(|_| bad("frame does not decode"))
}

#[cfg(feature = "alloc")]
fn frame_bytes<'e>(encoded: &'e [u8], f: &Frame) -> &'e [u8] {
    &encoded[f.offset as usize..(f.offset + f.len) as usize]
}

/// A frame decoded (its content checksum checked by the decoder; the flag
/// was checked by [`SeekTable::parse`]) to exactly its table size: fewer
/// bytes is [`Kind::DecodedLength`], more (or a decoding error) [`Kind::Seekable`].
#[cfg(feature = "alloc")]
fn frame_result(r: crate::Result<usize>, f: &Frame) -> Result<()> {
    match r {
        Ok(n) if n as u64 == f.decoded_len => Ok(()),
        Ok(n) if (n as u64) < f.decoded_len => Err(Error::ctx(Kind::DecodedLength, "frame")),
        // libzstd checks the content checksum itself (the ruzstd path checks it after decoding).
        Err(e) if matches!(e.kind(), crate::ErrorKind::ZstdChecksum) => Err(bad("frame checksum")),
        // More than its table size: refused as decoding into a slot of that size refuses it.
        _ => Err(bad("frame does not decode")),
    }
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use crate::v2::types::DType;
    use crate::write::v2::{Encoding, NewObject, NewPart, Options, Writer};
    use alloc::vec::Vec;

    /// A seekable stream of three frames (64, 64 and 32 bytes) written by
    /// our writer, and its content.
    fn stream() -> (Vec<u8>, Vec<u8>) {
        let content: Vec<u8> = (0..160u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut w = Writer::with_options(Vec::new(), Options::non_canonical(4096)).unwrap();
        let enc = Encoding::ZstdSeekable { level: 3, frame: 64 };
        w.add(NewObject::new("x", &[160], "dense").part(NewPart::new("data", DType::U8, &content[..]).encoding(enc)))
            .unwrap();
        let file = w.finish().unwrap();
        let m = crate::v2::Manifest::parse(&file).unwrap();
        let p = m.objects().next().unwrap().part("data").unwrap();
        (p.blob(&file).unwrap().to_vec(), content)
    }

    fn decode_all(encoded: &[u8]) -> [Result<Vec<u8>>; 2] {
        let mut out = alloc::vec![0u8; 160];
        let into = decode_into(encoded, 160, &mut out).map(|()| out);
        [into, decode_to_vec(encoded, 160)]
    }

    #[test]
    fn frames_decode_in_place_and_into_a_vec() {
        let (encoded, content) = stream();
        let t = SeekTable::parse(&encoded, 160).unwrap();
        assert_eq!(t.len(), 3);
        assert_eq!(t.frames(0..3).collect::<Vec<_>>(), (0..3).map(|i| t.frame(i)).collect::<Vec<_>>());
        assert_eq!(t.frames(1..3).collect::<Vec<_>>(), (1..3).map(|i| t.frame(i)).collect::<Vec<_>>());
        for r in decode_all(&encoded) {
            assert_eq!(r.unwrap(), content);
        }
        let mut two = alloc::vec![0u8; 96];
        decode_frames(&encoded, &t, 1..3, &mut two).unwrap();
        assert_eq!(two, content[64..]);
    }

    /// A frame whose content checksum is wrong is refused, whichever backend
    /// decodes: libzstd checks it itself, ruzstd's result is checked here.
    #[test]
    fn a_corrupt_content_checksum_is_refused_by_both_backends() {
        let (encoded, _) = stream();
        let f = SeekTable::parse(&encoded, 160).unwrap().frame(1);
        let (start, end) = (f.offset as usize, (f.offset + f.len) as usize);
        let mut bad = encoded.clone();
        bad[end - 1] ^= 1; // the checksum's last byte
        for r in decode_all(&bad) {
            let e = r.unwrap_err();
            assert_eq!(e.kind, Kind::Seekable);
            assert!(alloc::format!("{e}").contains("frame checksum"), "{e}");
        }
        let (good, corrupt) = (&encoded[start..end], &bad[start..end]);
        let mut out = [0u8; 64];
        assert_eq!(crate::zstd::pure::decode_frame_into(good, &mut out).unwrap(), 64);
        assert_eq!(crate::zstd::pure::decode_frame_into(corrupt, &mut out).unwrap_err().kind(), crate::ErrorKind::ZstdChecksum);
        // Two frames given as one: the checksum (of the second) does not cover both.
        let pair = &encoded[..end];
        let mut out2 = [0u8; 128];
        assert!(crate::zstd::pure::decode_frame_into(pair, &mut out2).is_err());
        #[cfg(feature = "libzstd")]
        {
            let mut d = crate::zstd::libzstd::FrameDecoder::new().unwrap();
            assert_eq!(d.decode_into(good, &mut out).unwrap(), 64);
            assert_eq!(d.decode_into(corrupt, &mut out).unwrap_err().kind(), crate::ErrorKind::ZstdChecksum);
            let mut v = Vec::with_capacity(64);
            assert_eq!(d.decode_append(corrupt, &mut v, 64).unwrap_err().kind(), crate::ErrorKind::ZstdChecksum);
            assert!(v.is_empty());
            assert_eq!(d.decode_append(good, &mut v, 64).unwrap(), 64);
            assert!(d.decode_into(pair, &mut out2).is_err(), "one frame at a time");
        }
    }

    /// The descriptor's `Unused_Bits` (1-0) are ignored; any of its
    /// `Reserved_Bits` (6-2) set is refused.
    #[test]
    fn descriptor_unused_bits_are_ignored_and_reserved_bits_refused() {
        let (encoded, content) = stream();
        let n = encoded.len();
        for bits in [0b01u8, 0b10, 0b11] {
            let mut e = encoded.clone();
            e[n - 5] |= bits;
            assert_eq!(SeekTable::parse(&e, 160).unwrap().len(), 3, "{bits:#04x}");
            for r in decode_all(&e) {
                assert_eq!(r.unwrap(), content, "{bits:#04x}");
            }
        }
        for bit in 2..7 {
            let mut e = encoded.clone();
            e[n - 5] |= 1 << bit;
            let err = SeekTable::parse(&e, 160).unwrap_err();
            assert_eq!(err.kind, Kind::Seekable, "bit {bit}");
            assert!(
                alloc::format!("{err}").contains("reserved descriptor bits"),
                "{err}"
            );
        }
    }

    /// A frame that decodes to more or fewer bytes than its table entry.
    #[test]
    fn a_frame_of_the_wrong_size_is_refused_on_both_paths() {
        let (encoded, _) = stream();
        // Last frame (32 bytes) claimed as 31 and 33 in the seek table:
        // the sizes then no longer add up, so shift the total too.
        for (claim, kind) in [(31u32, Kind::Seekable), (33, Kind::DecodedLength)] {
            let mut e = encoded.clone();
            let n = e.len();
            let stride = if e[n - 5] & 0x80 != 0 { 12 } else { 8 };
            let entry = n - 9 - stride; // the last entry
            e[entry + 4..entry + 8].copy_from_slice(&claim.to_le_bytes());
            let total = 128 + claim as u64;
            let mut out = alloc::vec![0u8; total as usize];
            let into = decode_into(&e, total, &mut out);
            let vec = decode_to_vec(&e, total).map(|_| ());
            assert_eq!(into.unwrap_err().kind, kind, "{claim}");
            assert_eq!(vec.unwrap_err().kind, kind, "{claim}");
        }
    }
}
