//! Where the writer's bytes go: the file or data shard being written,
//! positions, padding and alignment (§2.4: blobs at aligned offsets after
//! the magic; §7.2: data shards).

use super::{Error, Kind, Result, Writer};
use crate::v2::container::{FOOTER_LEN, MAGIC};
use crate::write::Sink;

/// Where the next blob may go: a file (0: this one, k: data shard k) and
/// the first free byte in it.
#[derive(Clone, Copy)]
pub(super) struct Place {
    pub(super) shard: u32,
    pub(super) end: u64,
}

/// A blob or manifest past the largest offset a file can have.
pub(super) fn out_of_bounds() -> Error {
    Error::new(Kind::Rule(crate::v2::Error { kind: crate::v2::Kind::BlobOutOfBounds, offset: None, context: "" }))
}

pub(super) fn align_up(v: u64, a: u64) -> Result<u64> {
    v.checked_next_multiple_of(a).ok_or_else(out_of_bounds)
}

/// `a + b`, or [`out_of_bounds`] past `u64::MAX`.
pub(super) fn end_of(a: u64, b: u64) -> Result<u64> {
    a.checked_add(b).ok_or_else(out_of_bounds)
}

impl<S: Sink> Writer<S> {
    pub(super) fn usable(&self) -> Result<()> {
        if self.broken {
            return Err(Error::new(Kind::Core(crate::ErrorKind::Io)));
        }
        Ok(())
    }

    pub(super) fn put(&mut self, b: &[u8]) -> Result<()> {
        #[cfg(feature = "std")]
        if self.shard != 0 {
            if let Some(sh) = self.shards.as_mut() {
                if let Err(e) = sh.put(b) {
                    self.broken = true;
                    return Err(e);
                }
                self.pos += b.len() as u64;
                return Ok(());
            }
        }
        if let Err(e) = self.sink.write_all(b) {
            self.broken = true;
            return Err(e.into());
        }
        self.pos += b.len() as u64;
        Ok(())
    }

    /// Leave `n` zero bytes as a hole when the sink can (data shards: never).
    pub(super) fn skip_zeros(&mut self, n: u64) -> Result<bool> {
        if self.shard != 0 {
            return Ok(false);
        }
        match self.sink.skip_zeros(n) {
            Ok(true) => {
                self.pos += n;
                Ok(true)
            }
            Ok(false) => Ok(false),
            Err(e) => {
                self.broken = true;
                Err(e.into())
            }
        }
    }

    /// Blobs go to data shard `k` from now on (a new one: the current is closed).
    #[cfg(feature = "std")]
    pub(super) fn roll_to(&mut self, k: u32) -> Result<()> {
        let Some(sh) = self.shards.as_mut() else { return Err(Error::new(Kind::Core(crate::ErrorKind::Io))) };
        while sh.current() < k {
            if let Err(e) = sh.roll() {
                self.broken = true;
                return Err(e);
            }
        }
        self.shard = k;
        self.pos = 0;
        Ok(())
    }

    /// Pad with zeros to `to` (the magic first, in a new file).
    pub(super) fn pad_to(&mut self, to: u64) -> Result<()> {
        if self.pos == 0 {
            self.put(&MAGIC)?;
        }
        const ZEROS: [u8; 4096] = [0; 4096];
        if to > self.pos && self.skip_zeros(to - self.pos)? {
            return Ok(());
        }
        while self.pos < to {
            let n = (to - self.pos).min(ZEROS.len() as u64) as usize;
            self.put(&ZEROS[..n])?;
        }
        Ok(())
    }

    /// The first offset a new blob may take.
    pub(super) fn next_free(&self) -> u64 {
        self.pos.max(MAGIC.len() as u64)
    }

    /// Where the next blob may go.
    pub(super) fn place(&self) -> Place {
        if self.opts.shard_size.is_some() && self.shard == 0 {
            // Sharded output: the first blob starts data shard 1.
            return Place { shard: 1, end: MAGIC.len() as u64 };
        }
        Place { shard: self.shard, end: self.next_free() }
    }

    /// Take `len` bytes at the next aligned offset of `place`, in a new data
    /// shard when sharding and they would take the current one past its size.
    pub(super) fn take(&self, place: &mut Place, len: u64) -> Result<(u32, u64)> {
        let mut at = align_up(place.end, self.opts.align)?;
        if let Some(limit) = self.opts.shard_size {
            let over = at.checked_add(len).and_then(|e| e.checked_add(FOOTER_LEN)).map_or(true, |e| e > limit);
            if over && place.end > MAGIC.len() as u64 {
                *place = Place { shard: place.shard + 1, end: MAGIC.len() as u64 };
                at = align_up(place.end, self.opts.align)?;
            }
        }
        place.end = end_of(at, len)?;
        Ok((place.shard, at))
    }
}
