//! Files: written to a temporary file beside the destination, published by
//! an atomic rename at `finish`, removed on any failure.

use super::v1_2::{State, Writer};
use super::Sink;
use crate::container::{Layout, FOOTER_LEN, HEADER_LEN, MAGIC_V0};
use crate::error::{Error, ErrorKind, Result};
use crate::file::File;
use std::fs;
use std::format;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A [`Sink`] that writes a temporary file in the destination's directory
/// and, at [`Sink::finish`], flushes it, syncs it to disk, renames it over
/// the destination and syncs the directory.
///
/// Until then the destination is untouched: an old file there stays whole,
/// and a reader never sees a half-written file under the final name. If
/// the writer is dropped unfinished, or anything fails, the temporary file
/// is removed.
#[derive(Debug)]
pub struct FileSink {
    file: Option<BufWriter<fs::File>>,
    tmp: PathBuf,
    dest: PathBuf,
    published: bool,
    error: Option<io::Error>,
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

impl FileSink {
    /// Start a file that will be published as `dest`.
    pub fn create(dest: impl AsRef<Path>) -> io::Result<FileSink> {
        Self::create_with(dest.as_ref(), |_| Ok(()))
    }

    /// Create the temporary file and run `init` on it before buffering.
    fn create_with(dest: &Path, init: impl FnOnce(&mut fs::File) -> io::Result<()>) -> io::Result<FileSink> {
        let name = dest.file_name().ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
        let dir = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let (mut file, tmp) = loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let mut t = std::ffi::OsString::from(".");
            t.push(name);
            t.push(format!(".{}.{n}.tmp", std::process::id()));
            let tmp = dir.join(t);
            match fs::OpenOptions::new().write(true).read(true).create_new(true).open(&tmp) {
                Ok(f) => break (f, tmp),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        };
        if let Err(e) = init(&mut file) {
            drop(file);
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
        Ok(FileSink {
            file: Some(BufWriter::with_capacity(256 * 1024, file)),
            tmp,
            dest: dest.to_path_buf(),
            published: false,
            error: None,
        })
    }

    /// Where the file will be published.
    pub fn path(&self) -> &Path {
        &self.dest
    }

    /// The temporary file being written.
    pub fn temp_path(&self) -> &Path {
        &self.tmp
    }

    /// Whether `finish` published the file.
    pub fn is_published(&self) -> bool {
        self.published
    }

    fn io<T>(&mut self, r: io::Result<T>) -> Result<T> {
        r.map_err(|e| {
            self.error = Some(e);
            Error::new(ErrorKind::Io)
        })
    }

    fn publish(&mut self) -> io::Result<()> {
        let file = self.file.take().ok_or_else(|| io::Error::other("file already finished"))?;
        let file = file.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        fs::rename(&self.tmp, &self.dest)?;
        self.published = true;
        // Make the rename itself durable (Unix; elsewhere best effort).
        #[cfg(unix)]
        if let Some(dir) = self.dest.parent() {
            let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
            fs::File::open(dir)?.sync_all()?;
        }
        Ok(())
    }
}

impl Sink for FileSink {
    fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        let r = match self.file.as_mut() {
            Some(f) => f.write_all(bytes),
            None => Err(io::Error::other("file already finished")),
        };
        self.io(r)
    }

    fn finish(&mut self) -> Result<()> {
        let r = self.publish();
        self.io(r)
    }

    fn take_io_error(&mut self) -> Option<io::Error> {
        self.error.take()
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<bool> {
        let r = match self.file.as_mut() {
            // Flush what is buffered, read, and return to the write
            // position (past the end when a hole is pending: `skip_zeros`).
            Some(f) => f.flush().and_then(|()| {
                let file = f.get_mut();
                let at = file.stream_position()?;
                file.seek(SeekFrom::Start(offset))?;
                file.read_exact(buf)?;
                file.seek(SeekFrom::Start(at)).map(drop)
            }),
            None => Err(io::Error::other("file already finished")),
        };
        self.io(r).map(|()| true)
    }

    /// Gaps of a page or more become holes: the buffer is flushed and the
    /// file position moved past them (the next write, or the manifest at
    /// the latest, makes the file that long). Smaller ones are written.
    fn skip_zeros(&mut self, n: u64) -> Result<bool> {
        if n < HOLE_MIN {
            return Ok(false);
        }
        let r = match (self.file.as_mut(), i64::try_from(n)) {
            (Some(f), Ok(n)) => f.seek(SeekFrom::Current(n)).map(drop),
            (Some(_), Err(_)) => return Ok(false),
            (None, _) => Err(io::Error::other("file already finished")),
        };
        self.io(r).map(|()| true)
    }

    /// Flush, cut the file at `offset` and write on from there.
    fn rewind_to(&mut self, offset: u64) -> Result<bool> {
        let r = match self.file.as_mut() {
            Some(f) => f.flush().and_then(|()| {
                let file = f.get_mut();
                file.set_len(offset)?;
                file.seek(SeekFrom::Start(offset)).map(drop)
            }),
            None => Err(io::Error::other("file already finished")),
        };
        self.io(r).map(|()| true)
    }
}

/// The smallest gap [`FileSink::skip_zeros`] leaves as a hole (below it,
/// copying zeros costs less than a flush and a seek).
const HOLE_MIN: u64 = 4096;

impl Drop for FileSink {
    fn drop(&mut self) {
        if !self.published {
            drop(self.file.take());
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

fn io_err(_: io::Error) -> Error {
    Error::new(ErrorKind::Io)
}

impl Writer<FileSink> {
    /// Write a new v1.2 file at `path`, published atomically by
    /// [`finish`](Writer::finish) (see [`FileSink`]). An existing file there
    /// is replaced only then.
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        Ok(Writer::new(FileSink::create(path).map_err(io_err)?))
    }

    /// Add objects to an existing v1.2 file.
    ///
    /// The file's manifest is read and validated (its blobs are not read);
    /// its objects and file attributes are kept, new blobs follow its last
    /// blob (64-aligned), and `finish` writes one manifest listing old and
    /// new objects.
    ///
    /// Crash safety by copy: the blob region of the old file is copied into
    /// a temporary file beside it (`std::io::copy`, which on Linux uses
    /// `copy_file_range`, so a reflink on filesystems that share extents,
    /// e.g. Btrfs or XFS; a full copy elsewhere), new objects are written
    /// there, and `finish` renames it over the old file. Until then the old
    /// file is untouched; if anything fails or the writer is dropped, it
    /// stays as it was. The cost is one copy of the old data (and the disk
    /// space for it during the append).
    pub fn append(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let mut f = fs::File::open(path).map_err(io_err)?;
        let file_len = f.metadata().map_err(io_err)?.len();
        let mut header = [0u8; HEADER_LEN as usize];
        let unsupported = Error::new(ErrorKind::Unsupported { what: "appending needs a v1.2 file" });
        if file_len >= HEADER_LEN {
            crate::source::Source::read_at(&f, 0, &mut header).map_err(io_err)?;
            if header == MAGIC_V0 {
                return Err(unsupported);
            }
        }
        if file_len < HEADER_LEN + FOOTER_LEN {
            return Err(Error::new(ErrorKind::FileTooSmall { len: file_len }));
        }
        let crate::fs::tail::TailRead { tail, manifest, .. } = crate::fs::tail::read_tail(&f).map_err(|e| match e {
            crate::fs::Error::Io(_) => Error::new(ErrorKind::Io),
            crate::fs::Error::Format(e) => e,
        })?;
        if tail.layout != Layout::V1 {
            return Err(unsupported);
        }
        let state = State::of(&File::parse_manifest(&manifest, tail, None)?)?;
        f.seek(SeekFrom::Start(0)).map_err(io_err)?;
        let sink = FileSink::create_with(path, |tmp| {
            let n = io::copy(&mut (&mut f).take(tail.manifest_offset), tmp)?;
            if n != tail.manifest_offset {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "file shrank while appending"));
            }
            // Keep the original's permissions.
            if let Ok(m) = f.metadata() {
                let _ = tmp.set_permissions(m.permissions());
            }
            Ok(())
        })
        .map_err(io_err)?;
        Ok(state.resume(sink))
    }
}
