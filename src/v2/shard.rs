//! Shard files (§7): checking one against its table entry, and finding it
//! beside the root (Appendix B: positional name, then by size and digest).

use super::container::{self, Footer, FOOTER_LEN};
use super::error::{Error, Kind, Result};
use super::manifest::Shard;
use crate::digest::{Digest, Hasher};

/// The cheap rungs of §7.3: the file is a v2 file (magic, footer, version)
/// of exactly the table's size.
pub fn check(shard: &Shard<'_>, file: &[u8]) -> Result<()> {
    if file.len() as u64 != shard.size {
        return Err(Error::ctx(Kind::ShardMismatch, "size"));
    }
    if !container::has_magic(file) || file.len() < FOOTER_LEN as usize {
        return Err(Error::ctx(Kind::ShardMismatch, "magic"));
    }
    Footer::parse(&file[file.len() - FOOTER_LEN as usize..], shard.size).map_err(|e| Error { context: "footer", ..e })?;
    Ok(())
}

/// The deep rung: the whole-file digest.
pub fn verify(shard: &Shard<'_>, file: &[u8]) -> Result<()> {
    let mut h = Pieces::new(shard)?;
    h.update(file);
    h.finish()
}

/// [`verify`] over the shard's bytes handed in pieces, in order
/// ([`Pieces::update`]), then checked ([`Pieces::finish`]): a shard is
/// never held whole to be verified.
pub struct Pieces {
    want: Digest<'static>,
    hasher: Hasher,
}

impl Pieces {
    /// For `shard`; a digest of an unknown algorithm is [`Kind::Unsupported`].
    pub fn new(shard: &Shard<'_>) -> Result<Pieces> {
        match (shard.digest.known(), Hasher::like(&shard.digest)) {
            (Some(want), Some(hasher)) => Ok(Pieces { want, hasher }),
            _ => Err(Error::ctx(Kind::Unsupported, "shard digest")),
        }
    }

    /// The algorithm's name.
    pub fn algorithm(&self) -> &'static str {
        self.want.algorithm()
    }

    /// The shard's next bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        self.hasher.update(bytes);
    }

    /// Whether everything handed has the table's digest.
    pub fn finish(self) -> Result<()> {
        if self.hasher.sum() == self.want {
            Ok(())
        } else {
            Err(Error::ctx(Kind::DigestMismatch, "shard"))
        }
    }
}

/// Appendix B's positional name: `<dir>/<stem>-<name>.zt` for a root `<dir>/<stem>.zt`.
#[cfg(feature = "std")]
pub fn positional_path(root: &std::path::Path, name: &str) -> Option<std::path::PathBuf> {
    let stem = root.file_stem()?.to_str()?;
    Some(root.with_file_name(std::format!("{stem}-{name}.zt")))
}

/// Find a shard beside `root`: its positional name if that file has the
/// table's size, else any regular file in the same directory with the
/// table's size and whole-file digest. Read from disk; [`check`] is left to the caller.
#[cfg(feature = "std")]
pub fn locate(root: &std::path::Path, shard: &Shard<'_>) -> Result<std::path::PathBuf> {
    use std::fs;
    let size_is = |p: &std::path::Path| fs::metadata(p).map(|m| m.is_file() && m.len() == shard.size).unwrap_or(false);
    if let Some(p) = positional_path(root, shard.name) {
        if size_is(&p) {
            return Ok(p);
        }
    }
    let dir = match root.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let entries = fs::read_dir(&dir).map_err(|_| Error::ctx(Kind::ShardMissing, "directory"))?;
    for e in entries.flatten() {
        let p = e.path();
        if p != root && size_is(&p) {
            if let Ok(bytes) = fs::read(&p) {
                if verify(shard, &bytes).is_ok() {
                    return Ok(p);
                }
            }
        }
    }
    Err(Error::ctx(Kind::ShardMissing, "shard"))
}
