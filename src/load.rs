//! Whole-model load (`std`): many parts decoded into the caller's buffers
//! by a few worker threads, each part's digest checked as it is read.
//!
//! Work is split so that one big part does not serialize the load: on
//! several workers, a part of at least two [`PIECE`]s that holds more than
//! an eighth of a worker's share of the load is read in pieces (a raw
//! little-endian part) or in runs of whole frames (a `zt.zstd-seekable/1`
//! part, § "Profiles"), each piece a work item; other parts are one item
//! each. Items are handed out largest first, so the workers finish within
//! about one item of each other. Smaller parts, and every part on one
//! worker, are read whole: splitting them buys no balance, and a part read
//! whole is hashed as its bytes land (see below).
//!
//! Digests. A part read whole is checked by the read itself (verify on read,
//! [`Component::unverified`]; a raw part hashed a piece at a time, right
//! after each piece lands in the caller's buffer). A part read in pieces has one digest over all
//! of its bytes (v1.2: the stored bytes, which are the decoded ones for raw
//! little-endian parts; v2 §6.3: the decoded bytes), and xxh3, SHA-256 and
//! CRC-32C are computed in order: so its pieces are read in parallel first,
//! and once every read is done the digest of each such part is computed over
//! the caller's buffer, the parts spread over the workers again, largest
//! first. Each byte is still hashed once, but read back from memory rather
//! than from the CPU's cache: the price of spreading one part over workers.

use crate::error::{Error as CoreError, ErrorKind};
use crate::fs::{Error, Reader};
use crate::object::{Component, Object};
use crate::types::{Encoding, Endian};
use crate::File;
use std::sync::Mutex;
use std::vec::Vec;

/// Bytes of a raw part per work item, and the least a run of seekable
/// frames holds: big enough that a piece costs one read call among many
/// bytes, small enough that a few large parts spread over the workers.
pub const PIECE: u64 = 8 << 20;

/// One part to load: `object`'s part (component) `role`, decoded into `dst`,
/// which must be exactly its decoded size.
#[derive(Debug)]
pub struct Request<'r> {
    /// The object, from the file being loaded.
    pub object: Object<'r>,
    /// The part's name (its role).
    pub role: &'r str,
    /// Receives the decoded bytes (little-endian elements, as
    /// [`Reader::read_into`] writes them).
    pub dst: &'r mut [u8],
}

/// How [`load`] works.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Worker threads, the calling thread among them; 0: the machine's
    /// ([`std::thread::available_parallelism`]).
    pub threads: usize,
    /// Check every part's digest as it is read (the default).
    pub verify: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { threads: 0, verify: true }
    }
}

/// What [`load`] reads parts through: decoded reads whole and by range, and
/// a part's stored bytes at an offset. [`Reader`] (mapped, positional, v2
/// shards) and a [`File`] held in memory implement it.
pub trait Parts: Sync {
    /// Decode `c` into `out`; the bytes written (see [`Reader::read_into`]).
    fn read_into(&self, c: &Component<'_>, out: &mut [u8]) -> Result<usize, Error>;
    /// Decode bytes `start..start + out.len()` of `c` (see [`Reader::read_range_into`]).
    fn read_range_into(&self, c: &Component<'_>, start: u64, out: &mut [u8]) -> Result<usize, Error>;
    /// `c`'s stored bytes from `offset` (in its stored bytes) into `out`.
    fn read_stored_at(&self, c: &Component<'_>, offset: u64, out: &mut [u8]) -> Result<(), Error>;
}

impl Parts for Reader {
    fn read_into(&self, c: &Component<'_>, out: &mut [u8]) -> Result<usize, Error> {
        Reader::read_into(self, c, out)
    }

    fn read_range_into(&self, c: &Component<'_>, start: u64, out: &mut [u8]) -> Result<usize, Error> {
        Reader::read_range_into(self, c, start, out)
    }

    fn read_stored_at(&self, c: &Component<'_>, offset: u64, out: &mut [u8]) -> Result<(), Error> {
        Ok(crate::verify::Source::read_component_at(self, c, offset, out)?)
    }
}

impl Parts for File<'_> {
    fn read_into(&self, c: &Component<'_>, out: &mut [u8]) -> Result<usize, Error> {
        Ok(c.read_into(out)?)
    }

    fn read_range_into(&self, c: &Component<'_>, start: u64, out: &mut [u8]) -> Result<usize, Error> {
        Ok(c.read_range_into(start, out)?)
    }

    fn read_stored_at(&self, c: &Component<'_>, offset: u64, out: &mut [u8]) -> Result<(), Error> {
        let stored = c.stored_bytes()?;
        let past = || c.error(ErrorKind::OutOfBounds { offset, length: out.len() as u64, limit: c.length() });
        let at = usize::try_from(offset).map_err(|_| past())?;
        out.copy_from_slice(stored.get(at..).and_then(|s| s.get(..out.len())).ok_or_else(past)?);
        Ok(())
    }
}

impl Reader {
    /// [`load`] from this file.
    pub fn load(&self, requests: &mut [Request<'_>], options: Options) -> Vec<Result<(), Error>> {
        load(self, requests, options)
    }
}

/// Decode every request's part into its `dst`, on `options.threads`
/// workers; one result per request, in their order. A request fails alone
/// (an unknown role: [`ErrorKind::NotFound`]; a `dst` that is not the
/// decoded size: [`ErrorKind::BufferSize`]; a corrupt part:
/// [`ErrorKind::DigestMismatch`] and the like, naming the object and part);
/// the others complete. Two requests may name the same part.
///
/// ```no_run
/// # fn main() -> Result<(), ztensor::fs::Error> {
/// use ztensor::load::{Options, Request};
/// let r = ztensor::fs::Reader::open("model.zt")?;
/// let objects: Vec<_> = r.file().objects().collect();
/// let mut bufs: Vec<Vec<u8>> = objects
///     .iter()
///     .map(|o| vec![0u8; o.data().ok().and_then(|c| c.decoded_len()).unwrap_or(0) as usize])
///     .collect();
/// let mut requests: Vec<Request<'_>> = objects
///     .iter()
///     .zip(&mut bufs)
///     .map(|(o, b)| Request { object: *o, role: "data", dst: &mut b[..] })
///     .collect();
/// for (o, result) in objects.iter().zip(r.load(&mut requests, Options::default())) {
///     result.map_err(|e| { eprintln!("{}: {e}", o.name()); e })?;
/// }
/// # Ok(()) }
/// ```
pub fn load<P: Parts + ?Sized>(parts: &P, requests: &mut [Request<'_>], options: Options) -> Vec<Result<(), Error>> {
    let threads = match options.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    // Parts larger than this are split (see the module's documentation).
    let total: u64 = requests.iter().map(|r| r.dst.len() as u64).sum();
    let whole_up_to = if threads > 1 { total / (8 * threads as u64) } else { u64::MAX };
    let mut results: Vec<Result<(), Error>> = Vec::with_capacity(requests.len());
    let mut items = Vec::new();
    // Parts read in pieces: their digests are checked once every read is done.
    let mut pieced = Vec::new();
    for (i, r) in requests.iter_mut().enumerate() {
        let name = r.object.name();
        let c = match plan(r, options.verify) {
            Ok(c) => c,
            Err(e) => {
                results.push(Err(e.into()));
                continue;
            }
        };
        results.push(Ok(()));
        let len = r.dst.len() as u64;
        match piece_len(parts, &c, len).filter(|_| len > whole_up_to) {
            Some(piece) => {
                pieced.push(i);
                for (k, out) in r.dst.chunks_mut(piece as usize).enumerate() {
                    items.push(Item { request: i, name, c, start: Some(k as u64 * piece), out });
                }
            }
            None => items.push(Item { request: i, name, c, start: None, out: &mut r.dst[..] }),
        }
    }
    items.sort_by_key(|it| it.out.len());
    for (i, e) in run(threads, items, |it| it.read(parts)) {
        // A part's first failure is its result.
        if results[i].is_ok() {
            results[i] = Err(e);
        }
    }
    let mut checks: Vec<(usize, Component<'_>, &str, &[u8])> = Vec::new();
    for i in pieced.into_iter().filter(|&i| results[i].is_ok()) {
        let r = &requests[i];
        if let Some(c) = r.object.component(r.role).filter(|c| options.verify && c.digest().is_some()) {
            checks.push((i, c, r.object.name(), &r.dst[..]));
        }
    }
    checks.sort_by_key(|check| check.3.len());
    let check = |(i, c, name, bytes): (usize, Component<'_>, &str, &[u8])| {
        c.check_read(None, bytes).err().map(|e| (i, Error::Format(e.in_object(name))))
    };
    for (i, e) in run(threads, checks, check) {
        results[i] = Err(e);
    }
    results
}

/// The part a request names, checked against its `dst`: found, and `dst`
/// its decoded size when one is declared (a v1.1 zstd part may declare
/// none: its read then says how many bytes it holds).
fn plan<'r>(r: &Request<'r>, verify: bool) -> Result<Component<'r>, CoreError> {
    let name = r.object.name();
    let c = r.object.component(r.role).ok_or_else(|| CoreError::new(ErrorKind::NotFound).in_component(r.role));
    let c = c.map_err(|e| e.in_object(name))?;
    let c = if verify { c } else { c.unverified() };
    let given = r.dst.len() as u64;
    match c.plausible_len().map_err(|e| e.in_object(name))? {
        Some(needed) if needed != given => Err(c.error(ErrorKind::BufferSize { needed, given }).in_object(name)),
        _ => Ok(c),
    }
}

/// The piece length to split a part of `len` decoded bytes into, or `None`
/// to read it whole: raw little-endian parts in [`PIECE`]s (their stored
/// bytes are the decoded ones, so a piece is a plain read and the digest
/// covers the buffer), seekable parts in runs of whole frames, from their
/// seek table (a frame is never decoded twice). Anything else, or a part
/// smaller than two pieces, is read whole.
fn piece_len<P: Parts + ?Sized>(parts: &P, c: &Component<'_>, len: u64) -> Option<u64> {
    if len < 2 * PIECE || !c.is_decodable() {
        return None;
    }
    match c.encoding() {
        Encoding::Raw if c.endian() == Endian::Little => Some(PIECE),
        Encoding::ZstdSeekable => {
            let read = |off: u64, buf: &mut [u8]| parts.read_stored_at(c, off, buf).is_ok();
            // A table that cannot be read is reported by the whole read.
            let frame = crate::v2::range::frame_size_at(c.length(), read).ok().filter(|&f| f > 0)?;
            Some(frame * (PIECE / frame).max(1)).filter(|&p| p < len)
        }
        _ => None,
    }
}

/// One work item: a whole part, or the piece of one at `start`.
struct Item<'r, 'd> {
    request: usize,
    name: &'r str,
    c: Component<'r>,
    start: Option<u64>,
    out: &'d mut [u8],
}

impl Item<'_, '_> {
    fn read<P: Parts + ?Sized>(self, parts: &P) -> Option<(usize, Error)> {
        let r = match self.start {
            Some(start) => parts.read_range_into(&self.c, start, self.out).map(drop),
            None => match parts.read_into(&self.c, self.out) {
                Ok(n) if n == self.out.len() => Ok(()),
                Ok(n) => Err(self.c.error(ErrorKind::BufferSize { needed: n as u64, given: self.out.len() as u64 }).into()),
                Err(e) => Err(e),
            },
        };
        let named = |e: Error| match e {
            Error::Format(e) => Error::Format(e.in_object(self.name)),
            io => io,
        };
        r.err().map(|e| (self.request, named(e)))
    }
}

/// Run `work` on every item, the last first, on `threads` threads (the
/// calling one among them); the failures, by request.
fn run<T: Send>(threads: usize, items: Vec<T>, work: impl Fn(T) -> Option<(usize, Error)> + Sync) -> Vec<(usize, Error)> {
    let threads = threads.min(items.len()).max(1);
    let queue = Mutex::new(items);
    let worker = || {
        let mut failed = Vec::new();
        loop {
            let next = queue.lock().unwrap_or_else(|e| e.into_inner()).pop();
            match next {
                Some(item) => failed.extend(work(item)),
                None => return failed,
            }
        }
    };
    if threads == 1 {
        return worker();
    }
    std::thread::scope(|s| {
        let others: Vec<_> = (1..threads).map(|_| s.spawn(worker)).collect();
        let mut failed = worker();
        for t in others {
            failed.extend(t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
        failed
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::v2::types::DType;
    use crate::write::v2 as w2;

    /// Which parts are split, and on what: raw ones in pieces, seekable ones
    /// on whole frames, small ones and v1 zstd ones not at all.
    #[test]
    fn parts_split_on_pieces_and_frames() {
        let big = std::vec![7u8; 2 * PIECE as usize + 1];
        let mut w = w2::Writer::with_options(Vec::new(), w2::Options::non_canonical(4096)).unwrap();
        w.add_dense("raw", &[big.len() as u64], DType::U8, &big[..]).unwrap();
        for (name, frame) in [("f3", 3 << 20), ("f16", 16 << 20)] {
            let part = w2::NewPart::new("data", DType::U8, &big[..]).encoding(w2::Encoding::ZstdSeekable { level: 1, frame });
            w.add(w2::NewObject::new(name, &[big.len() as u64], "dense").part(part)).unwrap();
        }
        w.add_dense("small", &[PIECE], DType::U8, &big[..PIECE as usize]).unwrap();
        let bytes = w.finish().unwrap();
        let f = File::parse(&bytes).unwrap();
        let split = |name: &str| {
            let c = f.get(name).unwrap().data().unwrap();
            piece_len(&f, &c, c.decoded_len().unwrap())
        };
        assert_eq!(split("raw"), Some(PIECE));
        assert_eq!(split("f3"), Some(6 << 20));
        assert_eq!(split("f16"), Some(16 << 20));
        assert_eq!(split("small"), None);
    }
}
