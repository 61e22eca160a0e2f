//! Sharing a blob with an earlier identical one (§6.3 rule 3) once bytes
//! are known: an in-memory part against the blobs already written, a
//! streamed part after it is written (its bytes are known only then: the
//! sink is rewound over it, [`Sink::rewind_to`]), and an in-memory part
//! against a streamed part written before it in its own object.

use super::xxh3::full_hash;
use super::NewPart;
use super::{align_up, Error, Kind, Plan, Result, Writer};
use crate::write::data::Repr;
use crate::write::Sink;
use alloc::vec::Vec;

/// Bytes read back at a time when comparing.
const READ: usize = 1 << 20;

impl<S: Sink> Writer<S> {
    /// An earlier blob with these exact bytes: same key, same XXH3-64 `h`
    /// when its own is known, confirmed by reading it back. (Only blobs of
    /// the file being written are candidates.)
    pub(super) fn find_shared(&mut self, key: (u64, u64), h: u64, b: &[u8]) -> Result<Option<(u32, u64)>> {
        let Some(offs) = self.blobs.get(&key) else { return Ok(None) };
        let offs: Vec<u64> =
            offs.iter().filter(|&&(f, _, full)| f == self.shard && full.map_or(true, |x| x == h)).map(|&(_, o, _)| o).collect();
        Ok(self.first_equal(offs, b)?.map(|o| (self.shard, o)))
    }

    /// The first of `offs` holding the bytes `b` (read back).
    fn first_equal(&mut self, offs: Vec<u64>, b: &[u8]) -> Result<Option<u64>> {
        let mut buf = alloc::vec![0u8; b.len().min(READ)];
        'cands: for off in offs {
            let mut done = 0usize;
            while done < b.len() {
                let n = (b.len() - done).min(buf.len());
                match self.read_back(off + done as u64, &mut buf[..n]) {
                    Ok(true) => {}
                    // Cannot confirm: canonical form cannot be written; otherwise not shared.
                    Ok(false) if self.opts.canonical => {
                        return Err(Error::new(Kind::Option("canonical form shares identical parts: the sink must support read_at")))
                    }
                    Ok(false) => return Ok(None),
                    Err(e) => {
                        self.broken = true;
                        return Err(e);
                    }
                }
                if buf[..n] != b[done..done + n] {
                    continue 'cands;
                }
                done += n;
            }
            return Ok(Some(off));
        }
        Ok(None)
    }

    /// Read back bytes of the file being written.
    pub(super) fn read_back(&mut self, offset: u64, buf: &mut [u8]) -> Result<bool> {
        #[cfg(feature = "std")]
        if self.shard != 0 {
            if let Some(sh) = self.shards.as_mut() {
                return sh.read_at(offset, buf).map(|()| true);
            }
        }
        let r = self.sink.read_at(offset, buf).map_err(Into::into);
        if r.is_err() {
            self.broken = true;
        }
        r
    }

    /// Whether the `len` bytes at `a` and at `b` of the root are equal (read back).
    fn same_bytes(&mut self, a: u64, b: u64, len: u64) -> Result<bool> {
        let n = len.min(READ as u64) as usize;
        let (mut x, mut y) = (alloc::vec![0u8; n], alloc::vec![0u8; n]);
        let mut done = 0u64;
        while done < len {
            let n = (len - done).min(READ as u64) as usize;
            if !self.read_back(a + done, &mut x[..n])? || !self.read_back(b + done, &mut y[..n])? || x[..n] != y[..n] {
                return Ok(false);
            }
            done += n as u64;
        }
        Ok(true)
    }

    /// Streamed part `i` of an object was just written (keyed: canonical
    /// form, the root). Share an earlier identical blob, of an earlier
    /// object or of this one, when the sink can read back and rewind: the
    /// bytes are taken back and the object's later blobs move down. A
    /// sink that cannot read back keeps the blob unshared and unregistered
    /// (so no later part is refused for want of `read_at`).
    pub(super) fn share_streamed(&mut self, parts: &[NewPart<'_>], plans: &mut [Plan], i: usize) -> Result<()> {
        let (Repr::Stream { .. }, Some(key), false) = (&parts[i].data.0, plans[i].key, plans[i].shared) else { return Ok(()) };
        let (x, len, full) = (plans[i].offset, plans[i].length, plans[i].full);
        if !self.read_back(x, &mut [])? {
            plans[i].key = None;
            return Ok(());
        }
        let fits = |f: Option<u64>| f.zip(full).map_or(true, |(a, b)| a == b);
        let mut cands: Vec<u64> = self.blobs.get(&key).map_or(Vec::new(), |c| {
            c.iter().filter(|&&(s, _, f)| s == 0 && fits(f)).map(|&(_, o, _)| o).collect()
        });
        cands.extend(plans[..i].iter().filter(|p| !p.shared && p.shard == 0 && p.key == Some(key) && fits(p.full)).map(|p| p.offset));
        for c in cands {
            if self.same_bytes(c, x, len)? {
                match self.sink.rewind_to(x) {
                    Ok(true) => {}
                    Ok(false) => return Ok(()),
                    Err(e) => {
                        self.broken = true;
                        return Err(e.into());
                    }
                }
                self.pos = x;
                return reshare(plans, i, c, self.opts.align);
            }
        }
        Ok(())
    }

    /// Before part `j` (raw, in memory, unshared) is written: share a
    /// streamed blob of its own object written before it, if identical.
    pub(super) fn share_with_streamed(&mut self, parts: &[NewPart<'_>], plans: &mut [Plan], j: usize) -> Result<()> {
        let (Repr::Bytes(b), Some(key), false) = (&parts[j].data.0, plans[j].key, plans[j].shared) else { return Ok(()) };
        let streamed = |k: usize| matches!(parts[k].data.0, Repr::Stream { .. }) && !plans[k].shared && plans[k].key == Some(key);
        if !(0..j).any(streamed) {
            return Ok(());
        }
        let h = plans[j].full.unwrap_or_else(|| full_hash(b, key));
        let cands: Vec<u64> = (0..j).filter(|&k| streamed(k) && plans[k].full.map_or(true, |f| f == h)).map(|k| plans[k].offset).collect();
        let Some(c) = self.first_equal(cands, b)? else { return Ok(()) };
        plans[j].full = Some(h);
        plans[j].digest = self.digest_of(b, h);
        reshare(plans, j, c, self.opts.align)
    }
}

/// Plan `j` shares the blob at `to` instead of its own: the parts that
/// shared its blob follow it, and the object's blobs after it move down
/// by the room it took (a multiple of `align`, so they stay aligned).
fn reshare(plans: &mut [Plan], j: usize, to: u64, align: u64) -> Result<()> {
    let (x, key) = (plans[j].offset, plans[j].key);
    let delta = align_up(x + plans[j].length, align)? - x;
    for (k, p) in plans.iter_mut().enumerate() {
        if k == j || p.shard != 0 {
            continue;
        }
        if p.shared && p.offset == x && p.key == key {
            p.offset = to;
        } else if p.offset > x {
            p.offset -= delta;
        }
    }
    let p = &mut plans[j];
    p.offset = to;
    p.shared = true;
    Ok(())
}
