//! Decoded reads: component bytes as little-endian elements in a caller's
//! buffer or a new `Vec`, whatever the encoding, the file's byte order
//! (v0.1 may be big-endian) and the host's.

use crate::data::Element;
use crate::digest::{Crc32c, Digest, Verified};
use crate::error::{ErrorKind, Result};
use crate::object::Component;
use crate::types::{Encoding, Endian, LogicalType};
use zerocopy::IntoBytes;

/// zstd cannot expand more than this: an RLE block of 4 bytes yields at most
/// 128 KiB. A declared size beyond `length × MAX_RATIO + 128 KiB` is a lie,
/// refused before anything is allocated.
pub const MAX_ZSTD_RATIO: u64 = 32 * 1024;

/// Most bytes one zstd block decodes to: the slack [`MAX_ZSTD_RATIO`]'s bound allows.
pub const ZSTD_MAX_BLOCK: u64 = 128 * 1024;

/// Default ceiling for decoding a zstd component whose size is declared
/// nowhere (v1.1 files without `uncompressed_length`, unknown formats).
pub const DEFAULT_DECODE_LIMIT: u64 = 1 << 32;

/// Reverse the bytes of each `width`-byte element in place.
fn swap_elements(bytes: &mut [u8], width: usize) {
    if width > 1 {
        for e in bytes.chunks_exact_mut(width) {
            e.reverse();
        }
    }
}

impl<'a> Component<'a> {
    /// The decoded size ([`Component::decoded_len`]), checked against what
    /// the stored bytes can produce: a zstd component declaring more than
    /// `length × MAX_ZSTD_RATIO + 128 KiB` is refused with
    /// [`ErrorKind::DecodedTooLarge`], before anyone allocates that size.
    pub fn plausible_len(&self) -> Result<Option<u64>> {
        let n = self.decoded_len();
        if let (Encoding::Zstd | Encoding::ZstdSeekable, Some(n)) = (self.encoding, n) {
            let max = self.length.saturating_mul(MAX_ZSTD_RATIO).saturating_add(ZSTD_MAX_BLOCK);
            if n > max {
                return Err(self.error(ErrorKind::DecodedTooLarge { limit: max }));
            }
        }
        Ok(n)
    }

    /// A decoded size nothing declared must still be a whole number of elements.
    #[cfg(feature = "alloc")]
    fn whole_elements(&self, n: u64) -> Result<()> {
        let width = self.dtype.width();
        if crate::types::rem_pow2(n, width) != 0 {
            return Err(self.error(ErrorKind::PartialElement { length: n, width }));
        }
        Ok(())
    }

    /// Put stored-order elements into little-endian order (the spec's).
    fn to_little_endian(&self, bytes: &mut [u8]) {
        if self.endian == Endian::Big {
            swap_elements(bytes, self.dtype.width() as usize);
        }
    }

    /// Decode into `out` (little-endian elements); returns the bytes written.
    ///
    /// `out` must hold [`Component::decoded_len`] bytes; a zstd frame that
    /// decodes to more or less than declared is an error. The decoded bytes
    /// of a v2 part obey its logical type's rules (`bool`, `f4_e2m1`; see
    /// [`ErrorKind::BadData`]), checked here and by every read built on it:
    /// [`Component::to_vec`], the typed reads, [`Component::as_slice`],
    /// [`Component::read_range_into`] and `fs::Reader`'s reads. Only the
    /// structural accessors ([`Component::stored_bytes`],
    /// [`Component::zero_copy_bytes`]) hand out bytes unchecked.
    pub fn read_into(&self, out: &mut [u8]) -> Result<usize> {
        self.check_decodable()?;
        let stored = self.stored_bytes()?;
        // Whether the digest was checked while copying (raw little-endian parts).
        let mut checked = false;
        let n = match self.encoding {
            Encoding::Raw => {
                let dst = out
                    .get_mut(..stored.len())
                    .ok_or_else(|| self.error(ErrorKind::BufferTooSmall { needed: stored.len() as u64 }))?;
                checked = self.copy_checked(stored, dst)?;
                stored.len()
            }
            Encoding::Zstd => self.unzstd_into(stored, out)?,
            Encoding::ZstdSeekable => self.unseekable_into(stored, out)?,
            Encoding::Unknown => return Err(self.unknown_encoding()),
        };
        let raw = self.encoding == Encoding::Raw && self.endian == Endian::Little;
        if !checked {
            self.check_read(if raw { None } else { Some(stored) }, &out[..n])?;
        }
        self.to_little_endian(&mut out[..n]);
        self.check_v2_bytes(&out[..n])?;
        Ok(n)
    }

    /// Decoding is refused for an unknown encoding and, in v2, an unknown
    /// logical type (their bytes stay reachable through `stored_bytes`).
    fn check_decodable(&self) -> Result<()> {
        if self.encoding == Encoding::Unknown {
            return Err(self.unknown_encoding());
        }
        if !self.is_decodable() {
            return Err(self.error(ErrorKind::Unsupported { what: "decoding a type this library does not know" }));
        }
        Ok(())
    }

    fn unknown_encoding(&self) -> crate::Error {
        self.error(ErrorKind::Unsupported { what: "decoding an encoding this library does not know" })
    }

    /// Appendix A's byte rules on a v2 part's decoded bytes: `bool` bytes
    /// are 0 or 1; an `f4_e2m1` part of an odd element count (where its
    /// layout gives the count: dense, MX `data`, sparse `values`) has a zero
    /// final nibble. Violations are [`ErrorKind::BadData`], as `verify` says.
    /// v1.x and v0.1 components are left to `verify`.
    pub(crate) fn check_v2_bytes(&self, decoded: &[u8]) -> Result<()> {
        self.check_v2_range(0, decoded)
    }

    /// [`Component::check_v2_bytes`] on decoded bytes `start..start + bytes.len()`:
    /// the final-nibble rule applies when they reach the part's end.
    pub(crate) fn check_v2_range(&self, start: u64, bytes: &[u8]) -> Result<()> {
        let (t, n) = match (self.logical, self.v2_ref()) {
            (Some(LogicalType::Bool), Some(_)) => (LogicalType::Bool, 0),
            (Some(LogicalType::F4E2M1), Some(v)) => {
                let ends = Some(start + bytes.len() as u64) == self.decoded_len();
                (LogicalType::F4E2M1, v.elements.filter(|_| ends).unwrap_or(0))
            }
            _ => return Ok(()),
        };
        if crate::container::READS_V2 {
            crate::v2::data::check_logical(t, n, bytes).map_err(|e| crate::Error::from(e).in_component(self.role))?;
        }
        Ok(())
    }

    /// Decode a `zt.zstd-seekable/1` part into `out` (at least `decoded_length` long).
    #[cfg(feature = "alloc")]
    fn unseekable_into(&self, stored: &[u8], out: &mut [u8]) -> Result<usize> {
        let n = self.plausible_len()?.unwrap_or(0);
        let dst = out.get_mut(..n as usize).ok_or_else(|| self.error(ErrorKind::BufferTooSmall { needed: n }))?;
        crate::v2::seekable::decode_into(stored, n, dst).map_err(|e| crate::Error::from(e).in_component(self.role))?;
        Ok(n as usize)
    }

    #[cfg(not(feature = "alloc"))]
    fn unseekable_into(&self, _stored: &[u8], _out: &mut [u8]) -> Result<usize> {
        Err(self.error(ErrorKind::Unsupported { what: "zstd decoding needs the `alloc` feature" }))
    }

    #[cfg(feature = "alloc")]
    fn unzstd_into(&self, stored: &[u8], out: &mut [u8]) -> Result<usize> {
        let Some(expected) = self.plausible_len()? else {
            // Nothing declares the size: decode up to what the caller gave,
            // and the result must still be whole elements.
            let n = crate::zstd::decode_into(stored, out).map_err(|e| e.in_component(self.role))?;
            return self.whole_elements(n as u64).map(|()| n);
        };
        let dst = out.get_mut(..expected as usize).ok_or_else(|| self.error(ErrorKind::BufferTooSmall { needed: expected }))?;
        let n = crate::zstd::decode_into(stored, dst).map_err(|e| e.in_component(self.role))?;
        if n as u64 != expected {
            return Err(self.error(ErrorKind::LengthMismatch { expected, actual: n as u64 }));
        }
        Ok(n)
    }

    #[cfg(not(feature = "alloc"))]
    fn unzstd_into(&self, _stored: &[u8], _out: &mut [u8]) -> Result<usize> {
        Err(self.error(ErrorKind::Unsupported { what: "zstd decoding needs the `alloc` feature" }))
    }

    /// Decode into a new `Vec` (little-endian elements).
    ///
    /// The size is checked before allocating: the declared size must be one
    /// the stored bytes can produce; an undeclared size is capped at
    /// [`DEFAULT_DECODE_LIMIT`] (see [`Component::to_vec_with_limit`]).
    #[cfg(feature = "alloc")]
    pub fn to_vec(&self) -> Result<alloc::vec::Vec<u8>> {
        self.to_vec_with_limit(DEFAULT_DECODE_LIMIT)
    }

    /// [`Component::to_vec`] with a ceiling on the decoded size.
    #[cfg(feature = "alloc")]
    pub fn to_vec_with_limit(&self, limit: u64) -> Result<alloc::vec::Vec<u8>> {
        self.check_decodable()?;
        let stored = self.stored_bytes()?;
        let mut v = match (self.encoding, self.plausible_len()?) {
            (_, Some(n)) if n > limit => return Err(self.error(ErrorKind::DecodedTooLarge { limit })),
            (Encoding::Raw, _) => stored.to_vec(),
            (Encoding::Zstd, Some(n)) => {
                // One allocation of exactly `n`, not zeroed first with libzstd.
                let v = crate::zstd::decode_sized(stored, n as usize).map_err(|e| e.in_component(self.role))?;
                if v.len() as u64 != n {
                    return Err(self.error(ErrorKind::LengthMismatch { expected: n, actual: v.len() as u64 }));
                }
                v
            }
            (Encoding::Zstd, None) => {
                let v = crate::zstd::decode_to_vec(stored, limit).map_err(|e| e.in_component(self.role))?;
                self.whole_elements(v.len() as u64)?;
                v
            }
            (Encoding::ZstdSeekable, n) => {
                // The seek table first (its frames must account for `n` before `n` is allocated), then every frame.
                crate::v2::seekable::decode_to_vec(stored, n.unwrap_or(0)).map_err(|e| crate::Error::from(e).in_component(self.role))?
            }
            (Encoding::Unknown, _) => return Err(self.unknown_encoding()),
        };
        let raw = self.encoding == Encoding::Raw && self.endian == Endian::Little;
        self.check_read(if raw { None } else { Some(stored) }, &v)?;
        self.to_little_endian(&mut v);
        self.check_v2_bytes(&v)?;
        Ok(v)
    }

    /// The number of bytes [`Component::read_into`] writes, in bounded
    /// memory: the declared size when there is one (checked as
    /// [`Component::plausible_len`] does), else found by decoding the zstd
    /// frames piece by piece without keeping the output (at most `limit`
    /// bytes, [`DEFAULT_DECODE_LIMIT`] for [`Component::to_vec`]).
    #[cfg(feature = "alloc")]
    pub fn measure_decoded_len(&self, limit: u64) -> Result<u64> {
        if let Some(n) = self.plausible_len()? {
            return Ok(n);
        }
        self.check_decodable()?;
        let stored = self.stored_bytes()?;
        let n = crate::zstd::for_each_chunk(stored, limit, |_| Ok(())).map_err(|e| e.in_component(self.role))?;
        self.whole_elements(n)?;
        Ok(n)
    }

    /// Decode bytes `start..start + out.len()` of the component (little-endian
    /// elements, as [`Component::read_into`] writes them) into `out`; returns
    /// the bytes written. A raw component's range is copied; a
    /// `zt.zstd-seekable/1` part decodes only the frames covering the range;
    /// a v1 `zstd` component (one frame) is decoded whole. A range past the
    /// decoded size is [`ErrorKind::RangeOutOfBounds`]; an empty one reads
    /// nothing. Big-endian elements (v0.1) need a range of whole elements.
    /// The logical type's byte rules are checked on the range (`f4_e2m1`'s
    /// final nibble when the range ends the part). Without the `alloc`
    /// feature only raw components' ranges are read.
    ///
    /// ```
    /// use ztensor::write::{Encoding, NewObject, NewPart, Options, Version, Writer};
    ///
    /// // 3 MiB of u32 stored as zt.zstd-seekable/1 (non-canonical v2), frames of 1 MiB.
    /// let values: Vec<u32> = (0..786_432).collect();
    /// let seekable = Encoding::ZstdSeekable { level: 3, frame: 1 << 20 };
    /// let mut w = Writer::with_version(Vec::new(), Version::V2(Options::non_canonical(4096))).unwrap();
    /// w.add(NewObject::new("t", &[786_432], "dense").part(NewPart::from_slice("data", &values).encoding(seekable))).unwrap();
    /// let bytes = w.finish().unwrap();
    ///
    /// let file = ztensor::File::parse(&bytes).unwrap();
    /// let c = file.require("t").unwrap().data().unwrap();
    /// // Elements 300_000..300_004: only the frame holding them is decoded.
    /// let mut out = [0u8; 16];
    /// assert_eq!(c.read_range_into(300_000 * 4, &mut out).unwrap(), 16);
    /// assert_eq!(out[..4], 300_000u32.to_le_bytes());
    /// assert!(c.read_range_into(c.decoded_len().unwrap() - 8, &mut out).is_err()); // past the end
    /// ```
    pub fn read_range_into(&self, start: u64, out: &mut [u8]) -> Result<usize> {
        let stored = self.stored_bytes();
        self.read_range_by(start, out, stored.ok(), |off, buf| match stored {
            Ok(s) => {
                buf.copy_from_slice(&s[off as usize..off as usize + buf.len()]);
                true
            }
            Err(_) => false,
        })
        .map_err(|e| if e.kind() == ErrorKind::NoData { stored.err().unwrap_or(e) } else { e })
    }

    /// [`Component::read_range_into`] reading the stored bytes through
    /// `read_at(offset in the stored bytes, buf)` (`false`: the read failed,
    /// [`ErrorKind::NoData`] here; the caller keeps its own error): only the
    /// range of a raw component, and the seek table and covering frames of a
    /// seekable part, are read. With `whole`, the stored bytes in memory, a
    /// seekable part's frames are decoded in place.
    pub(crate) fn read_range_by(
        &self,
        start: u64,
        out: &mut [u8],
        whole: Option<&[u8]>,
        mut read_at: impl FnMut(u64, &mut [u8]) -> bool,
    ) -> Result<usize> {
        self.check_decodable()?;
        if self.encoding == Encoding::Zstd {
            return self.zstd_range(start, out, read_at);
        }
        let size = self.plausible_len()?.unwrap_or(0);
        let length = out.len() as u64;
        if start.checked_add(length).map_or(true, |e| e > size) {
            return Err(self.error(ErrorKind::RangeOutOfBounds { start, length, size }));
        }
        let width = self.dtype.width();
        if self.endian == Endian::Big && (crate::types::rem_pow2(start, width) != 0 || crate::types::rem_pow2(length, width) != 0) {
            return Err(self.error(ErrorKind::Unsupported { what: "a byte range of big-endian elements must hold whole elements" }));
        }
        if out.is_empty() {
            return Ok(0);
        }
        match self.encoding {
            #[cfg(feature = "alloc")]
            Encoding::ZstdSeekable => match whole {
                Some(encoded) => crate::v2::range::read_range(encoded, size, start, out),
                None => crate::v2::range::read_range_at(self.length, size, start, out, read_at),
            }
            .map_err(|e| crate::Error::from(e).in_component(self.role))?,
            #[cfg(not(feature = "alloc"))]
            Encoding::ZstdSeekable => {
                let _ = whole;
                return Err(self.error(ErrorKind::Unsupported { what: "zstd decoding needs the `alloc` feature" }));
            }
            _ if !read_at(start, out) => return Err(self.error(ErrorKind::NoData)),
            _ => {}
        }
        if start == 0 && length == size {
            // A range that is the whole component: verify on read, as a whole read does
            // (a raw one's bytes are its stored bytes; a seekable part's, decoded).
            self.check_read(None, out)?;
        }
        self.to_little_endian(out);
        self.check_v2_range(start, out)?;
        Ok(out.len())
    }

    /// A range of a v1 `zstd` component: its one frame decoded whole.
    #[cfg(feature = "alloc")]
    fn zstd_range(&self, start: u64, out: &mut [u8], mut read_at: impl FnMut(u64, &mut [u8]) -> bool) -> Result<usize> {
        let mut all = alloc::vec![0u8; 0];
        if !out.is_empty() || start > 0 {
            let mut stored = alloc::vec![0u8; self.length as usize];
            if !read_at(0, &mut stored) {
                return Err(self.error(ErrorKind::NoData));
            }
            all = self.with_stored(&stored).to_vec()?;
        }
        let size = all.len() as u64;
        let src = start.checked_add(out.len() as u64).filter(|&e| e <= size).map(|e| &all[start as usize..e as usize]);
        let src = src.ok_or_else(|| self.error(ErrorKind::RangeOutOfBounds { start, length: out.len() as u64, size }))?;
        out.copy_from_slice(src);
        Ok(out.len())
    }

    #[cfg(not(feature = "alloc"))]
    fn zstd_range(&self, _start: u64, _out: &mut [u8], _read_at: impl FnMut(u64, &mut [u8]) -> bool) -> Result<usize> {
        Err(self.error(ErrorKind::Unsupported { what: "zstd decoding needs the `alloc` feature" }))
    }

    /// Decode into a typed buffer, whatever its alignment; elements come out
    /// in host byte order. Returns the number of elements written.
    pub fn read_elements<T: Element + IntoBytes>(&self, out: &mut [T]) -> Result<usize> {
        if !T::accepts(self.dtype) {
            return Err(self.error(ErrorKind::TypeMismatch));
        }
        let bytes = out.as_mut_bytes();
        let n = self.read_into(bytes)?;
        if cfg!(target_endian = "big") {
            swap_elements(&mut bytes[..n], self.dtype.width() as usize);
        }
        Ok(n / core::mem::size_of::<T>())
    }

    /// Decode into a new typed `Vec` (host byte order).
    #[cfg(feature = "alloc")]
    pub fn to_vec_of<T: Element + IntoBytes + Default>(&self) -> Result<alloc::vec::Vec<T>> {
        if !T::accepts(self.dtype) {
            return Err(self.error(ErrorKind::TypeMismatch));
        }
        let bytes = self.to_vec()?;
        let mut v = alloc::vec![T::default(); bytes.len() / core::mem::size_of::<T>()];
        let dst = v.as_mut_bytes();
        dst.copy_from_slice(&bytes[..dst.len()]);
        if cfg!(target_endian = "big") {
            swap_elements(dst, self.dtype.width() as usize);
        }
        Ok(v)
    }
}

impl<'a> Component<'a> {
    /// Check the digest: over the stored bytes in v1.x; over the decoded
    /// bytes in v2 (§6.3), a `zt.zstd-seekable/1` part decoded a frame at a
    /// time (with `alloc`), its length and its type's byte rules checked on
    /// the way. The same check as [`File::verify_with`](crate::File::verify_with)'s.
    ///
    /// `Ok(Verified::Ok)` on a match, `NoDigest` / `Unverifiable` when there
    /// is nothing to check (no digest; an unknown algorithm, or a v2 part of
    /// an unknown encoding); a malformed digest, a mismatch
    /// ([`ErrorKind::DigestMismatch`], naming the algorithm) or bytes that do
    /// not decode are errors.
    pub fn verify_digest(&self) -> Result<Verified> {
        if self.digest.is_none() {
            return Ok(Verified::NoDigest);
        }
        crate::verify::part(self, crate::verify::Options::DIGESTS, crate::verify::Bytes::Memory(self.stored_bytes()?))
    }

    /// This component with reads that do not check its digest: for callers
    /// that verified the file already ([`File::verify_with`](crate::File::verify_with)).
    /// By default every read of the whole component ([`Component::read_into`],
    /// [`Component::to_vec`], the typed reads, a range covering it all, and
    /// `fs::Reader`'s reads) checks the digest it has over the bytes it just
    /// produced, in the same pass over them, and fails with
    /// [`ErrorKind::DigestMismatch`] naming the part. Zero-copy views
    /// ([`Component::as_slice`], [`Component::zero_copy_bytes`]) are never
    /// checked: use [`Component::verify_digest`] for them.
    pub fn unverified(mut self) -> Self {
        self.verify_reads = false;
        self
    }

    /// The digest a raw part's read of `len` bytes checks in the same pass
    /// over them: XXH3 (v2, over the decoded bytes, which a raw part's
    /// stored bytes are when `len` is its decoded size) or CRC-32C (v1.2,
    /// over the stored bytes); none when reads are unverified. The callers
    /// check any other digest (SHA-256) afterwards with
    /// [`Component::check_read`], which leaves an unknown algorithm to
    /// `verify`.
    fn in_pass_digest(&self, len: usize) -> Option<Digest<'a>> {
        if !self.verify_reads {
            return None;
        }
        match self.v2_part() {
            Some(p) if p.decoded_size() != len as u64 => None,
            Some(p) => p.digest,
            None if self.v2_ref().is_some() => None,
            None => self.digest.and_then(Digest::read),
        }
    }

    /// Whether an in-pass digest matched: `Ok(true)`, or the mismatch.
    fn in_pass_matched(&self, matched: bool, what: &str) -> Result<bool> {
        if matched {
            return Ok(true);
        }
        Err(self.error(ErrorKind::DigestMismatch).with_value(what))
    }

    /// Fill `dst` with a raw part's stored bytes through `fill(offset,
    /// piece)` (a positional read), `chunk` bytes (a multiple of 1024) at a
    /// time, and hash each piece right after it lands, while it is in the
    /// CPU's cache ([`Component::in_pass_digest`]): the read and its check
    /// in one pass over the bytes (issue 32's budget for verify on read),
    /// where [`Component::check_read`] would read `dst` back from memory.
    /// `Ok(false)`: nothing was checked here, and the caller checks with
    /// `check_read`. (Positional reads are `fs`'s, hence `std`.)
    #[cfg(feature = "std")]
    pub(crate) fn fill_checked<E: From<crate::Error>>(
        &self,
        dst: &mut [u8],
        chunk: usize,
        mut fill: impl FnMut(u64, &mut [u8]) -> core::result::Result<(), E>,
    ) -> core::result::Result<bool, E> {
        let (matched, what) = match self.in_pass_digest(dst.len()) {
            None => return fill(0, dst).map(|()| false),
            Some(Digest::Xxh3(want)) => {
                let got = crate::xxh3::fill_then_hash(dst, chunk, |at, piece| fill(at as u64, piece))?;
                (got == want, XXH3)
            }
            Some(Digest::Crc32c(want)) => {
                let mut crc = Crc32c::new();
                for (i, piece) in dst.chunks_mut(chunk).enumerate() {
                    fill((i * chunk) as u64, piece)?;
                    crc.update(piece);
                }
                (crc.finish() == want, CRC32C)
            }
            Some(_) => return fill(0, dst).map(|()| false),
        };
        Ok(self.in_pass_matched(matched, what)?)
    }

    /// [`Component::fill_checked`] from bytes in memory: `src` copied into
    /// `dst` (the same length) and hashed in the same pass, the digest
    /// computed from the registers that carry the copy where the CPU allows
    /// (`xxh3::copy_then_hash`, `Crc32c::copy_update`).
    fn copy_checked(&self, src: &[u8], dst: &mut [u8]) -> Result<bool> {
        match self.in_pass_digest(dst.len()) {
            None => {
                dst.copy_from_slice(src);
                Ok(false)
            }
            Some(Digest::Xxh3(want)) => self.in_pass_matched(crate::xxh3::copy_then_hash(src, dst) == want, XXH3),
            Some(Digest::Crc32c(want)) => {
                let mut crc = Crc32c::new();
                crc.copy_update(src, dst);
                self.in_pass_matched(crc.finish() == want, CRC32C)
            }
            Some(_) => {
                dst.copy_from_slice(src);
                Ok(false)
            }
        }
    }

    /// Verify on read: the digest over what a whole read produced. v1.x
    /// digests cover the stored bytes (v1.2 spec, "Digests"), v2 digests the
    /// decoded ones (§6.3); `stored` is `None` when they are `decoded` (raw
    /// little-endian). Nothing to do without a digest, or for an algorithm
    /// this library does not know (the part reads; `verify` reports it).
    pub(crate) fn check_read(&self, stored: Option<&[u8]>, decoded: &[u8]) -> Result<()> {
        use crate::verify::{part, Bytes, Options};
        if !self.verify_reads || self.digest.is_none() {
            return Ok(());
        }
        let bytes = match self.v2_ref() {
            Some(_) => Bytes::Decoded(decoded),
            None => Bytes::Memory(stored.unwrap_or(decoded)),
        };
        part(self, Options::DIGESTS, bytes).map(|_| ())
    }
}

/// What a digest checked while a raw part's bytes are read
/// ([`Component::in_pass_digest`]) covers, for a mismatch's message.
const XXH3: &str = "xxh3 of the decoded bytes";
const CRC32C: &str = "crc32c of the stored bytes";
