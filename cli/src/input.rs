//! Getting a file's bytes into memory: mapped when it is a regular file,
//! read otherwise (pipes, character devices, empty files); or, for a URL,
//! a reader that fetches only what is asked for (`crate::http`).

use memmap2::Mmap;
use std::fs;
use std::io::{self, Read};
use std::ops::Deref;
use std::path::Path;

/// A whole file in memory.
pub enum Bytes {
    /// A read-only mapping: page-aligned, so every 64-aligned blob is too.
    Mapped(Mmap),
    /// Read into the heap (no alignment promise beyond the allocator's).
    Owned(Vec<u8>),
}

impl Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

/// Whether `path` is `-`, standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Map (or read) `path`; `-` reads standard input to its end.
pub fn load(path: &Path) -> io::Result<Bytes> {
    if is_stdin(path) {
        let mut v = Vec::new();
        io::stdin().lock().read_to_end(&mut v)?;
        return Ok(Bytes::Owned(v));
    }
    let mut file = fs::File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::other("is a directory"));
    }
    if meta.is_file() && meta.len() > 0 {
        // SAFETY: the mapping is read-only and private to this process. If
        // another process truncates or rewrites the file while we read it,
        // we may see inconsistent bytes (or get SIGBUS on truncation); that
        // is the usual, accepted contract of command-line tools that map
        // their input, and the parser never trusts the bytes anyway.
        #[allow(unsafe_code)]
        if let Ok(m) = unsafe { Mmap::map(&file) } {
            return Ok(Bytes::Mapped(m));
        }
    }
    let mut v = Vec::new();
    file.read_to_end(&mut v)?;
    Ok(Bytes::Owned(v))
}

/// A reader of the file at an `http://` or `https://` URL, by range
/// requests: opening reads its tail, each part is read when asked for.
pub fn open_url(url: &Path) -> Result<ztensor::fs::Reader, String> {
    let src = crate::http::HttpSource::open(&url.to_string_lossy()).map_err(crate::out::message)?;
    ztensor::fs::Reader::from_source(src).map_err(crate::out::message)
}
