//! Sharded output (§7): blobs go to data shards beside the root (magic,
//! blobs, a footer with no manifest), a new shard when the next blob would
//! take the current one past the size threshold. Shards are named
//! `NNNNN-of-NNNNN` (plus a suffix, below) and, by Appendix B's positional
//! convention, stored as `<stem>-<name>.zt` beside the root `<stem>.zt`.
//! The count is known only at the end: shards are written under temporary
//! names and renamed, and the `-of-NNNNN` of every part's `shard` is patched
//! in the encoded entries (the name has a fixed width), before the root is
//! published.
//!
//! Publishing is atomic for a reader at the root's path: it sees the old
//! model or the new one, never a mix. The new shards never take the names
//! of files already there: their names get the first suffix (none, `.1`,
//! `.2`, ...) under which no `<stem>-NNNNN-of-NNNNN<suffix>.zt` exists, so
//! a rewrite in place alternates between two families of names. The root's
//! rename is the commit point (shard names are labels, §7.1: the new root
//! names the new files); the old root's shards are removed after it. One
//! writer per path at a time: a second one would remove the first's files.
//!
//! A killed writer leaves its temporary files (`.<stem>-shard-NNNNN.<pid>.tmp`,
//! the root's `.<stem>.zt.<pid>.<n>.tmp`, `FileSink`'s) and, if killed between its shard
//! renames and its root's, shards no root names. The next writer to the
//! same path removes both before it starts: temporary files of processes
//! that are gone (where `/proc` says which processes are alive; elsewhere
//! they are left), and `<stem>-NNNNN-of-NNNNN<suffix>.zt` files that the
//! live root does not name (none when a file at the root's path is not a v2
//! file this library opens: then nothing is removed).

use super::{Error, Kind, Result};
use crate::v2::container::{FOOTER_LEN, MAGIC, VERSION};
use sha2::{Digest as _, Sha256};
use std::fs;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::string::String;
use std::vec::Vec;

/// The part's `shard` before the count is known: `NNNNN-of-00000<suffix>`.
pub(crate) fn provisional_name(k: u32, suffix: &str) -> String {
    std::format!("{k:05}-of-00000{suffix}")
}

/// Where in a shard name the count goes, and its width.
pub(crate) const COUNT_AT: usize = 9;

/// The name suffixes tried in turn, the first free one taken (at most two
/// families exist at once: the live model's and the one being published).
const SUFFIXES: [&str; 4] = ["", ".1", ".2", ".3"];

/// Whether `file` (a file name in the root's directory) is a data shard of
/// the root `<stem>.zt` by this writer's naming: `<stem>-NNNNN-of-NNNNN<suffix>.zt`
/// with one of [`SUFFIXES`]; returns the suffix.
fn shard_suffix_of(stem: &str, file: &str) -> Option<&'static str> {
    let rest = file.strip_prefix(stem)?.strip_prefix('-')?.strip_suffix(".zt")?;
    let (name, suffix) = (rest.get(..14)?, rest.get(14..)?);
    let digits = |s: &str| s.len() == 5 && s.bytes().all(|b| b.is_ascii_digit());
    let ok = digits(&name[..5]) && &name[5..9] == "-of-" && digits(&name[9..]);
    SUFFIXES.into_iter().find(|&x| x == suffix).filter(|_| ok)
}

/// Whether `file` is a temporary file of a writer to the root `root` (its
/// file name, `<stem>.<ext>`): a shard's or the root's, of a process that
/// is gone.
fn stale_temp(root: &str, file: &str) -> bool {
    let stem = root.rsplit_once('.').map_or(root, |(s, _)| s);
    let rest = file.strip_prefix('.');
    let pid = match rest.and_then(|f| f.strip_prefix(stem)).and_then(|f| f.strip_prefix("-shard-")) {
        // `.<stem>-shard-NNNNN.<pid>.tmp`
        Some(shard) => shard.strip_suffix(".tmp").and_then(|r| r.split_once('.')).map(|(_, pid)| pid),
        // `.<root>.<pid>.<n>.tmp` (the root's `FileSink`)
        None => rest
            .and_then(|f| f.strip_prefix(root))
            .and_then(|f| f.strip_prefix('.'))
            .and_then(|f| f.strip_suffix(".tmp"))
            .and_then(|r| r.split_once('.'))
            .map(|(pid, _)| pid),
    };
    let Some(pid) = pid.and_then(|p| p.parse::<u32>().ok()) else { return false };
    // Only where /proc lists the live processes (Linux); elsewhere, left.
    let proc = Path::new("/proc");
    proc.join("self").exists() && pid != std::process::id() && !proc.join(std::format!("{pid}")).exists()
}

/// The shard names the v2 root at `root` has (empty: no file there);
/// `None` when a file is there that this library does not open as a v2 root.
fn live_shards(root: &Path) -> Option<Vec<String>> {
    if !root.exists() {
        return Some(Vec::new());
    }
    let r = crate::fs::Reader::open_with(root, crate::fs::Mode::Positional).ok()?;
    let m = r.file().v2()?;
    Some(m.shards().map(|s| String::from(s.name)).collect())
}
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
    /// Every shard name's suffix: none of the files beside the root has it.
    suffix: &'static str,
    /// The live root's shard files, removed once the new root is published.
    old: Vec<PathBuf>,
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
        let root_name = root.file_name().and_then(|s| s.to_str()).unwrap_or(stem);
        let dir = match root.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        // What a killed writer left (see the module docs), then a suffix no file has.
        let live = live_shards(root);
        let mut taken = Vec::new();
        for e in fs::read_dir(&dir).map_err(io)?.flatten() {
            let name = e.file_name();
            let Some(name) = name.to_str() else { continue };
            if stale_temp(root_name, name) {
                let _ = fs::remove_file(e.path());
            } else if let Some(suffix) = shard_suffix_of(stem, name) {
                let named = |l: &Vec<String>| l.iter().any(|n| std::format!("{stem}-{n}.zt") == name);
                match &live {
                    Some(l) if !named(l) => {
                        let _ = fs::remove_file(e.path());
                    }
                    _ => taken.push(suffix),
                }
            }
        }
        // The live root's names are taken too, their files there or not.
        for n in live.iter().flatten() {
            taken.extend(shard_suffix_of(stem, &std::format!("{stem}-{n}.zt")));
        }
        let suffix = SUFFIXES.into_iter().find(|s| !taken.contains(s));
        let suffix = suffix.ok_or(Error::new(Kind::Option("every shard name suffix is taken beside the root")))?;
        let old = live.unwrap_or_default().iter().map(|n| dir.join(std::format!("{stem}-{n}.zt"))).collect();
        Ok(ShardSet { dir, stem: stem.into(), suffix, old, cur: None, done: Vec::new(), published: false })
    }

    /// The name of shard `k` of `n`.
    fn name(&self, k: u32, n: u32) -> String {
        std::format!("{k:05}-of-{n:05}{}", self.suffix)
    }

    /// Where the shard called `name` goes (Appendix B's positional name).
    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(std::format!("{}-{name}.zt", self.stem))
    }

    /// The suffix of every shard name of this output.
    pub(crate) fn suffix(&self) -> &'static str {
        self.suffix
    }

    /// Once the new root is published: remove the old root's shard files
    /// (none of them has a new shard's name). Failures are left: the new
    /// model is whole, and the next writer removes what no root names.
    pub(crate) fn remove_old(&mut self) {
        let n = self.done.len() as u32;
        let new: Vec<PathBuf> = (1..=n).map(|k| self.path(&self.name(k, n))).collect();
        for p in self.old.drain(..).filter(|p| !new.contains(p)) {
            let _ = fs::remove_file(p);
        }
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
            let name = self.name(i as u32 + 1, n);
            // Never over a live file (the suffix says so): the old model stays whole until the root's rename.
            fs::rename(&d.tmp, self.path(&name)).map_err(io)?;
            #[cfg(test)]
            if tests::CRASH_AFTER_SHARD_RENAMES.with(|c| c.get()) == Some(i + 1) {
                return Err(Error::new(Kind::Core(crate::ErrorKind::Io)));
            }
            pause_for_tests(i + 1);
            table.push((name, d.size, d.sha256));
        }
        self.published = true;
        #[cfg(unix)]
        fs::File::open(&self.dir).and_then(|d| d.sync_all()).map_err(io)?;
        Ok((n, table))
    }
}

/// Test hook, not an API, in builds with the `test-hooks` feature only (the
/// `zt` command's tests turn it on): with `ZT_TEST_PAUSE_AFTER_SHARD_RENAMES=k`
/// in the environment, the process says so on stderr right after its `k`-th
/// shard rename and waits there forever, so that a test can SIGKILL a real
/// writer at that instant (cli/tests/cli_harden.rs: "a writer killed right
/// after its first shard rename").
#[cfg(feature = "test-hooks")]
fn pause_for_tests(renamed: usize) {
    let wanted = std::env::var("ZT_TEST_PAUSE_AFTER_SHARD_RENAMES").ok().and_then(|v| v.parse().ok());
    if wanted == Some(renamed) {
        std::eprintln!("ztensor: paused after {renamed} shard renames (ZT_TEST_PAUSE_AFTER_SHARD_RENAMES)");
        loop {
            std::thread::park();
        }
    }
}

#[cfg(not(feature = "test-hooks"))]
fn pause_for_tests(_renamed: usize) {}

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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    std::thread_local! {
        /// Fail `finish` right after this many shard renames, as a writer
        /// killed there would stop (its root not published).
        pub(crate) static CRASH_AFTER_SHARD_RENAMES: core::cell::Cell<Option<usize>> =
            const { core::cell::Cell::new(None) };
    }

    /// The suffix of a shard file of the root `model.zt`.
    pub(crate) fn suffix_of(file: &str) -> Option<&'static str> {
        shard_suffix_of("model", file)
    }

    #[test]
    fn shard_names_and_stale_temporaries_are_recognised() {
        assert_eq!(shard_suffix_of("m", "m-00001-of-00002.zt"), Some(""));
        assert_eq!(shard_suffix_of("m", "m-00001-of-00002.1.zt"), Some(".1"));
        let others =
            ["m-00001-of-00002.9.zt", "m-0001-of-00002.zt", "m-00001-of-0000x.zt", "n-00001-of-00002.zt", "m.zt"];
        for other in others {
            assert_eq!(shard_suffix_of("m", other), None, "{other}");
        }
        // Process ids above Linux's pid_max belong to no process.
        assert!(stale_temp("m.zt", ".m-shard-00001.99999999.tmp"));
        assert!(stale_temp("m.zt", ".m.zt.99999999.3.tmp"));
        assert!(stale_temp("m.bin", ".m.bin.99999999.3.tmp"));
        let mine = std::process::id();
        assert!(!stale_temp("m.zt", &std::format!(".m-shard-00001.{mine}.tmp")));
        assert!(!stale_temp("m.zt", &std::format!(".m.zt.{mine}.0.tmp")));
        assert!(!stale_temp("m.zt", ".n-shard-00001.99999999.tmp"));
        assert!(!stale_temp("m.zt", ".m.bin.99999999.3.tmp"));
        assert!(!stale_temp("m.zt", ".m-shard-00001.x.tmp"));
    }
}
