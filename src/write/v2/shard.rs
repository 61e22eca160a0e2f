//! Sharded output (§7): blobs go to data shards beside the root (magic,
//! blobs, a footer with no manifest), a new shard when the next blob would
//! take the current one past the size threshold. Shards are named
//! `NNNNN-of-NNNNN` and, by Appendix B's positional convention, stored as
//! `<stem>-NNNNN-of-NNNNN.zt` beside the root `<stem>.zt`. The count is
//! known only at the end: shards are written under temporary names and
//! renamed, and the `-of-NNNNN` of every part's `shard` is patched in the
//! encoded entries (the name has a fixed width), before the root is
//! published (its rename is the commit point).

use super::{Error, Kind, Result};
use crate::v2::container::{FOOTER_LEN, MAGIC, VERSION};
use sha2::{Digest as _, Sha256};
use std::fs;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::string::String;
use std::vec::Vec;

/// The part's `shard` before the count is known: `NNNNN-of-00000`.
pub(crate) fn provisional_name(k: u32) -> String {
    std::format!("{k:05}-of-00000")
}

/// Where in a shard name the count goes, and its width.
pub(crate) const COUNT_AT: usize = 9;

/// A finished data shard.
struct Done {
    tmp: PathBuf,
    size: u64,
    sha256: [u8; 32],
}

/// Data shards being written.
pub(crate) struct ShardSet {
    dir: PathBuf,
    stem: String,
    cur: Option<(BufWriter<fs::File>, PathBuf, Sha256)>,
    done: Vec<Done>,
    published: bool,
}

fn io(_: io::Error) -> Error {
    Error::new(Kind::Core(crate::ErrorKind::Io))
}

impl ShardSet {
    /// Shards beside the root file `root`.
    pub(crate) fn beside(root: &Path) -> Result<ShardSet> {
        let stem = root.file_stem().and_then(|s| s.to_str()).ok_or(Error::new(Kind::Option("the root needs a UTF-8 file name")))?;
        let dir = match root.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Ok(ShardSet { dir, stem: stem.into(), cur: None, done: Vec::new(), published: false })
    }

    /// 1-based index of the shard being written (0: none yet).
    pub(crate) fn current(&self) -> u32 {
        self.done.len() as u32 + u32::from(self.cur.is_some())
    }

    /// Close the current shard (its footer) and start the next.
    pub(crate) fn roll(&mut self) -> Result<()> {
        self.close()?;
        let k = self.done.len() + 1;
        let tmp = self.dir.join(std::format!(".{}-shard-{k:05}.{}.tmp", self.stem, std::process::id()));
        let f = fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&tmp).map_err(io)?;
        self.cur = Some((BufWriter::with_capacity(256 * 1024, f), tmp, Sha256::new()));
        Ok(())
    }

    fn close(&mut self) -> Result<()> {
        if let Some((mut w, tmp, mut h)) = self.cur.take() {
            let mut footer = [0u8; FOOTER_LEN as usize];
            footer[24..28].copy_from_slice(&VERSION.to_le_bytes());
            footer[32..40].copy_from_slice(&MAGIC);
            w.write_all(&footer).map_err(io)?;
            h.update(footer);
            let f = w.into_inner().map_err(|e| io(e.into_error()))?;
            f.sync_all().map_err(io)?;
            let size = f.metadata().map_err(io)?.len();
            self.done.push(Done { tmp, size, sha256: h.finalize().into() });
        }
        Ok(())
    }

    /// Append to the current shard.
    pub(crate) fn put(&mut self, b: &[u8]) -> Result<()> {
        let (w, _, h) = self.cur.as_mut().ok_or(Error::new(Kind::Core(crate::ErrorKind::Io)))?;
        w.write_all(b).map_err(io)?;
        h.update(b);
        Ok(())
    }

    /// Read back bytes of the current shard.
    pub(crate) fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let (w, _, _) = self.cur.as_mut().ok_or(Error::new(Kind::Core(crate::ErrorKind::Io)))?;
        w.flush().map_err(io)?;
        let f = w.get_mut();
        f.seek(SeekFrom::Start(offset)).and_then(|_| f.read_exact(buf)).and_then(|()| f.seek(SeekFrom::End(0)).map(drop)).map_err(io)
    }

    /// Close the last shard and give every shard its final name: returns
    /// the count and the table entries (`NNNNN-of-NNNNN`, size, sha256).
    pub(crate) fn finish(&mut self) -> Result<(u32, Vec<super::manifest::ShardEntry>)> {
        self.close()?;
        let n = self.done.len() as u32;
        let mut table = Vec::new();
        for (i, d) in self.done.iter().enumerate() {
            let name = std::format!("{:05}-of-{n:05}", i + 1);
            fs::rename(&d.tmp, self.dir.join(std::format!("{}-{name}.zt", self.stem))).map_err(io)?;
            table.push((name, d.size, d.sha256));
        }
        self.published = true;
        #[cfg(unix)]
        fs::File::open(&self.dir).and_then(|d| d.sync_all()).map_err(io)?;
        Ok((n, table))
    }
}

impl Drop for ShardSet {
    fn drop(&mut self) {
        if !self.published {
            if let Some((_, tmp, _)) = self.cur.take() {
                let _ = fs::remove_file(tmp);
            }
            for d in &self.done {
                let _ = fs::remove_file(&d.tmp);
            }
        }
    }
}
