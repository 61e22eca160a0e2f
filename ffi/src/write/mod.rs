//! The write half of the C ABI: `zt_writer` over the core's writers
//! (v1.2 `Writer`, format v2 `write::v2::Writer`) over a `FileSink`
//! (streaming, append-only, published atomically).
//!
//! Every `zt_writer_add_*` call validates the object exactly as the reader
//! would validate it (the core writers run the reader's own checks before
//! writing a byte), then writes its blobs to the temporary file before
//! returning: the caller's buffers are never kept.
//!
//! Modules: `args` (argument helpers), `descriptors` (the C structs of
//! objects and attributes), `settings` (`zt_writer_options`), `objects`
//! (the add functions of both versions), `layouts` (v2's layout profiles),
//! `attributes` (file attributes).

mod args;
mod descriptors;
mod settings;

pub use descriptors::*;
pub use settings::*;

use crate::args::{arg, c_str, get_mut, out_ref, take};
use crate::guard::{guard, guard_value, Detail, Fail, Phase};
use crate::zt_status;
use core::cell::Cell;
use core::ffi::c_char;
use descriptors::{V1Defaults, V2Defaults};
use settings::Settings;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use ztensor_core::write::v2::{self as v2, Kind as V2Kind};
use ztensor_core::write::{AttrValue, FileSink, Sink};
use ztensor_core::write::v1_2::{NewObject, Writer};
use ztensor_core::{Error as CoreError, ErrorKind};

/// The largest `ndim` the `zt_writer_add_*` functions take: a shape of
/// format v2 has at most 64 dimensions (§3.3), and v1.2 writers keep to
/// the same bound. A larger `ndim` is `ZT_ERR_INVALID_ARGUMENT`, refused
/// before `shape` is read.
pub const ZT_MAX_NDIM: usize = 64;
const _: () = assert!(ZT_MAX_NDIM as u64 == ztensor_core::v2::MAX_RANK);

// ===================================================================== the handle

/// A writer of one new zTensor file (opaque): `zt_writer_create` (format
/// v2, canonical) or `zt_writer_create_with_options` (v2 or v1.2), then `zt_writer_add_*`
/// / `zt_writer_set_attribute*`, then `zt_writer_finish` (publish) or
/// `zt_writer_abort` (discard).
pub struct zt_writer {
    gen: Gen,
    /// Whether the file was renamed into place: known after the writer is gone.
    published: Arc<AtomicBool>,
    path: PathBuf,
    /// Set while a call runs: still set afterwards only if that call
    /// panicked, when the writer's state is no longer trusted.
    busy: bool,
}

/// The core writer of the chosen format version.
enum Gen {
    V1(Writer<Publishing>, V1Defaults),
    V2(v2::Writer<Publishing>, V2Defaults),
    /// Sharded output: the core writer creates the root and its shards.
    V2Sharded(v2::Writer<FileSink>, V2Defaults),
}

/// The writer's [`FileSink`], recording whether `finish` renamed the file
/// into place even when a later step (syncing the directory) fails, and
/// the operating system's error of a failed write.
struct Publishing {
    sink: FileSink,
    published: Arc<AtomicBool>,
    io: Cell<Option<std::io::Error>>,
}

impl Publishing {
    fn new(sink: FileSink, published: &Arc<AtomicBool>) -> Self {
        Publishing { sink, published: Arc::clone(published), io: Cell::new(None) }
    }

    fn keep<T>(&mut self, r: Result<T, CoreError>) -> Result<T, CoreError> {
        if r.is_err() {
            if let Some(e) = self.sink.take_io_error() {
                self.io.set(Some(e));
            }
        }
        r
    }
}

impl Sink for Publishing {
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), CoreError> {
        let r = self.sink.write_all(bytes);
        self.keep(r)
    }

    fn finish(&mut self) -> Result<(), CoreError> {
        let r = self.sink.finish();
        self.published.store(self.sink.is_published(), Ordering::Relaxed);
        self.keep(r)
    }

    fn take_io_error(&mut self) -> Option<std::io::Error> {
        self.io.take()
    }

    /// Canonical v2 form confirms a shared blob by reading it back.
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<bool, CoreError> {
        let r = self.sink.read_at(offset, buf);
        self.keep(r)
    }

    /// v2 padding (up to the alignment, at most 1 GiB) becomes a hole.
    fn skip_zeros(&mut self, n: u64) -> Result<bool, CoreError> {
        let r = self.sink.skip_zeros(n);
        self.keep(r)
    }

    /// Canonical v2 form drops a streamed blob identical to an earlier one.
    fn rewind_to(&mut self, offset: u64) -> Result<bool, CoreError> {
        let r = self.sink.rewind_to(offset);
        self.keep(r)
    }
}

// A writer may be handed from one thread to another (never shared).
const _: () = {
    const fn send<T: Send>() {}
    send::<zt_writer>();
};

/// The writer behind `w`.
///
/// # Safety
/// `w` is NULL or a live writer.
unsafe fn live<'a>(w: *mut zt_writer) -> Result<&'a mut zt_writer, Fail> {
    // SAFETY: the caller's contract.
    let w = unsafe { get_mut(w, Fail::invalid("`writer` is NULL"))? };
    if w.busy {
        return Err(Fail::with(
            zt_status::ZT_ERR_PANIC,
            "the writer is unusable after an internal error in an earlier call; zt_writer_abort it",
        ));
    }
    Ok(w)
}

/// The format version of a writer, with what it gives objects by default.
#[derive(Clone, Copy)]
enum Version {
    V1(V1Defaults),
    V2(V2Defaults),
}

impl zt_writer {
    fn version(&self) -> Version {
        match &self.gen {
            Gen::V1(_, d) => Version::V1(*d),
            Gen::V2(_, d) | Gen::V2Sharded(_, d) => Version::V2(*d),
        }
    }

    /// Run `f` on the core writer, marking the writer busy meanwhile (so a
    /// panic leaves it refused from then on).
    fn run(&mut self, f: impl FnOnce(&mut Gen) -> Result<(), Fail>) -> Result<(), Fail> {
        self.busy = true;
        let r = f(&mut self.gen);
        self.busy = false;
        r
    }

    /// A v1.2 core error as a failure: validation errors are `ZT_ERR_FORMAT`
    /// (the object would make an invalid file), sink errors `ZT_ERR_IO`
    /// with the operating system's message.
    fn fail(e: CoreError, io: Option<std::io::Error>, path: &Path) -> Fail {
        match io {
            Some(io) if e.kind() == ErrorKind::Io => Fail {
                status: zt_status::ZT_ERR_IO,
                detail: Detail::Owned(format!("{e}: {} (writing {})", crate::guard::OsText(&io), path.display())),
            },
            _ => Fail::core(e, Phase::Open),
        }
    }

    /// A v2 writer error as a failure: I/O is `ZT_ERR_IO`, an option the
    /// writer's form does not allow `ZT_ERR_INVALID_ARGUMENT`, anything the
    /// reader would refuse `ZT_ERR_FORMAT`.
    fn fail_v2(e: v2::Error, io: Option<std::io::Error>, path: &Path) -> Fail {
        let at = match (&e.object, &e.part) {
            (Some(o), Some(p)) => format!(" (object {o:?}, part {p:?})"),
            (Some(o), None) => format!(" (object {o:?})"),
            _ => String::new(),
        };
        let (status, text) = match &e.kind {
            V2Kind::Core(ErrorKind::Io) => {
                let os = io.map_or(String::new(), |io| format!(": {}", crate::guard::OsText(&io)));
                (zt_status::ZT_ERR_IO, format!("I/O error{os} (writing {}){at}", path.display()))
            }
            V2Kind::Option(m) => (zt_status::ZT_ERR_INVALID_ARGUMENT, format!("zTensor v2 writer: {m}{at}")),
            V2Kind::Unsorted => (
                zt_status::ZT_ERR_FORMAT,
                format!("canonical form: objects are added in ascending bytewise name order{at}"),
            ),
            V2Kind::NotNfc => (zt_status::ZT_ERR_FORMAT, format!("canonical form: a name is not in Unicode NFC{at}")),
            V2Kind::DuplicateObject => {
                (zt_status::ZT_ERR_FORMAT, format!("an object of this name was already added{at}"))
            }
            _ => (zt_status::ZT_ERR_FORMAT, e.to_string()),
        };
        Fail { status, detail: Detail::Owned(text) }
    }

    /// Add a v1.2 object.
    fn add(&mut self, name: &str, obj: NewObject<'_>) -> Result<(), Fail> {
        let path = self.path.clone();
        let Gen::V1(w, _) = &mut self.gen else { unreachable!("a v1.2 object for a v2 writer") };
        if w.contains(name) {
            let e = CoreError::new(ErrorKind::DuplicateKey).in_object(name);
            return Err(Fail {
                status: zt_status::ZT_ERR_FORMAT,
                detail: Detail::Owned(format!("{e}: an object of this name was already added")),
            });
        }
        self.run(|g| match g {
            Gen::V1(w, _) => w.add(obj).map_err(|e| Self::fail(e, w.take_io_error(), &path)),
            _ => unreachable!(),
        })
    }

    /// Add a v2 object.
    fn add_v2(&mut self, obj: v2::NewObject<'_>) -> Result<(), Fail> {
        let path = self.path.clone();
        self.run(|g| match g {
            Gen::V2(w, _) => w.add(obj).map_err(|e| Self::fail_v2(e, w.sink().io.take(), &path)),
            Gen::V2Sharded(w, _) => w.add(obj).map_err(|e| Self::fail_v2(e, None, &path)),
            Gen::V1(..) => unreachable!("a v2 object for a v1.2 writer"),
        })
    }

    /// Set a file attribute.
    fn set_attribute(&mut self, key: &str, value: AttrValue) -> Result<(), Fail> {
        let path = self.path.clone();
        self.run(|g| match g {
            Gen::V1(w, _) => w.set_attribute(key, value).map_err(|e| Self::fail(e, w.take_io_error(), &path)),
            Gen::V2(w, _) => w.set_attribute(key, value).map_err(|e| Self::fail_v2(e, None, &path)),
            Gen::V2Sharded(w, _) => w.set_attribute(key, value).map_err(|e| Self::fail_v2(e, None, &path)),
        })
    }
}

// ===================================================================== create, finish, abort

/// Start writing a new zTensor file that will be published at `path`
/// (NUL-terminated; bytes as the OS takes them): format v2 in canonical
/// form (§6.3; the same bytes as PyPI `ztensor` 2.1.2 writes for the same
/// tensors), so objects must be added in ascending bytewise name order
/// (`ZT_ERR_FORMAT` otherwise). For v1.2, for readers of the 1.x
/// generation, use `zt_writer_create_with_options` with `format_version`
/// `ZT_FORMAT_VERSION_1_2`.
///
/// The data goes to a temporary file beside `path` (same directory, name
/// `.<file name>.<pid>.<n>.tmp`); `zt_writer_finish` syncs it and renames it
/// over `path` atomically, so readers never see a half-written file and an
/// existing file at `path` stays whole until then. `zt_writer_abort` (or a
/// failed finish) removes the temporary file.
///
/// On success `*out` receives a new writer; on failure `*out` is NULL
/// (`ZT_ERR_IO` when the temporary file cannot be created or `path` is a
/// directory; `ZT_ERR_INVALID_ARGUMENT` for a NULL pointer).
///
/// Ownership: the caller owns the writer and must release it with exactly
/// one of `zt_writer_finish` or `zt_writer_abort`. `path` is not kept.
/// Thread-safety: may be called from any thread. A writer is used by one
/// thread at a time (it may move between threads; calls on one writer must
/// not overlap). Different writers are independent.
///
/// # Safety
/// `path` is NULL or NUL-terminated; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_create(path: *const c_char, out: *mut *mut zt_writer) -> zt_status {
    arg!(zt_writer_create_with_options(path, core::ptr::null(), out))
}

/// Start writing a new file at `path` as `options` say (NULL: as
/// `zt_writer_create`): format v2 (the default) or v1.2, canonical or not, alignment,
/// digest, compression, shards (see `zt_writer_options`). Published
/// atomically by `zt_writer_finish` as with `zt_writer_create`; sharded
/// output writes its data shards (`<stem>-NNNNN-of-NNNNN.zt`) beside
/// `path` first and publishes the root last.
///
/// A v2 writer takes `zt_writer_add_dense`, `_sparse_csr`, `_sparse_coo`
/// (u64 indices), their `_u32` forms, `zt_writer_add_quant_group`,
/// `zt_writer_add_mx`, `zt_writer_add_gguf`, `zt_writer_add_object` (any
/// layout by name) and the file attributes; in canonical form objects must
/// be added in ascending bytewise name order (`ZT_ERR_FORMAT` otherwise)
/// and identical parts share one blob.
///
/// Statuses: `ZT_ERR_INVALID_ARGUMENT` for NULL pointers and options that
/// do not go together (the message names them); `ZT_ERR_IO` as
/// `zt_writer_create`. On failure `*out` is NULL.
///
/// Ownership: as `zt_writer_create`; `options` is not kept.
/// Thread-safety: as `zt_writer_create`.
///
/// # Safety
/// `path` is NULL or NUL-terminated; `options` NULL or valid for
/// `options->struct_size` bytes; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_create_with_options(
    path: *const c_char,
    options: *const zt_writer_options,
    out: *mut *mut zt_writer,
) -> zt_status {
    guard(|| {
        let out = arg!(out_ref(out)).ok_or_else(|| Fail::invalid("`out` is NULL"))?;
        out.write(core::ptr::null_mut());
        if path.is_null() {
            return Err(Fail::invalid("`path` is NULL"));
        }
        let settings = settings::decide(&arg!(settings::read(options))?)?;
        let bytes = arg!(c_str(path, Fail::invalid("`path` is NULL")))?;
        #[cfg(unix)]
        let p = Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(bytes));
        #[cfg(not(unix))]
        let p = Path::new(core::str::from_utf8(bytes).map_err(|_| Fail::invalid("`path` is not UTF-8"))?);
        let io = |e: std::io::Error| Fail {
            status: zt_status::ZT_ERR_IO,
            detail: Detail::Owned(format!("cannot create {}: {}", p.display(), crate::guard::OsText(&e))),
        };
        if p.is_dir() {
            return Err(io(std::io::Error::other("it is a directory")));
        }
        let published = Arc::new(AtomicBool::new(false));
        let gen = match settings {
            Settings::V2 { opts, defaults, sharded } => create_v2(p, opts, defaults, sharded, &published, io)?,
            Settings::V1(d) => {
                let sink = FileSink::create(p).map_err(io)?;
                Gen::V1(Writer::new(Publishing::new(sink, &published)), d)
            }
        };
        let w = zt_writer { gen, published, path: p.to_path_buf(), busy: false };
        out.write(Box::into_raw(Box::new(w)));
        Ok(())
    })
}

/// The core v2 writer for `opts` at `p`.
fn create_v2(
    p: &Path,
    opts: v2::Options,
    d: V2Defaults,
    sharded: bool,
    published: &Arc<AtomicBool>,
    io: impl Fn(std::io::Error) -> Fail,
) -> Result<Gen, Fail> {
    if sharded {
        // The core writer creates the root's temporary file and the shards.
        let w = v2::Writer::create_with(p, opts).map_err(|e| match e.kind {
            V2Kind::Core(ErrorKind::Io) => io(std::io::Error::other("cannot create the file or its first shard")),
            _ => zt_writer::fail_v2(e, None, p),
        })?;
        return Ok(Gen::V2Sharded(w, d));
    }
    let sink = Publishing::new(FileSink::create(p).map_err(io)?, published);
    let w = v2::Writer::with_options(sink, opts).map_err(|e| zt_writer::fail_v2(e, None, p))?;
    Ok(Gen::V2(w, d))
}

/// Finish the file: write the manifest and footer, sync, and rename the
/// temporary file to the path given to `zt_writer_create` (atomically).
/// The writer is released whatever the outcome.
///
/// `ZT_OK` when the file is published and durable. `ZT_ERR_IO` with a
/// message saying "was published" when the rename succeeded but syncing the
/// directory failed: the file is there, but may not survive a crash.
/// Otherwise nothing is published and
/// the temporary file is removed: `ZT_ERR_IO` when writing, syncing or
/// renaming fails (or failed in an earlier call), `ZT_ERR_FORMAT` when the
/// manifest would be invalid (e.g. larger than 1 GiB). An object refused by
/// an earlier `zt_writer_add_*` call is simply absent: refusals do not
/// spoil the writer.
///
/// Ownership: consumes the writer; it must not be used afterwards (not even
/// with `zt_writer_abort`). `zt_writer_finish(NULL)` returns
/// `ZT_ERR_INVALID_ARGUMENT`.
/// Thread-safety: no other call may use the writer meanwhile.
///
/// # Safety
/// `writer` is NULL or a live writer, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_finish(writer: *mut zt_writer) -> zt_status {
    guard(|| {
        let w = arg!(take(writer)).ok_or_else(|| Fail::invalid("`writer` is NULL"))?;
        if w.busy {
            // Dropping it removes the temporary file.
            return Err(Fail::with(
                zt_status::ZT_ERR_PANIC,
                "the writer is unusable after an internal error in an earlier call; nothing was published",
            ));
        }
        let zt_writer { gen, path, published, .. } = *w;
        // Whether it failed for I/O, and the failure otherwise.
        let r = match gen {
            Gen::V1(w, _) => w.finish().map(drop).map_err(|e| (e.kind() == ErrorKind::Io, Fail::core(e, Phase::Open))),
            Gen::V2(w, _) => w.finish().map(drop).map_err(v2_finish_error(&path)),
            Gen::V2Sharded(w, _) => w.finish().map(drop).map_err(v2_finish_error(&path)),
        };
        match r {
            Ok(()) => Ok(()),
            Err((true, _)) if published.load(Ordering::Relaxed) => Err(Fail {
                status: zt_status::ZT_ERR_IO,
                detail: Detail::Owned(format!(
                    "{} was published, but syncing its directory failed: durability not confirmed \
                     (after a crash the old file or none may be there)",
                    path.display()
                )),
            }),
            Err((true, _)) => Err(Fail {
                status: zt_status::ZT_ERR_IO,
                detail: Detail::Owned(format!(
                    "cannot finish {}: writing, syncing or renaming the temporary file failed; nothing was published",
                    path.display()
                )),
            }),
            Err((false, f)) => Err(f),
        }
    })
}

/// A v2 `finish` error: whether it is I/O, and the failure otherwise.
fn v2_finish_error(path: &Path) -> impl Fn(v2::Error) -> (bool, Fail) + '_ {
    move |e| (e.kind == V2Kind::Core(ErrorKind::Io), zt_writer::fail_v2(e, None, path))
}

/// Discard the file being written: remove the temporary file and release
/// the writer. Nothing is published; a file already at the destination
/// path is left as it was. `zt_writer_abort(NULL)` does nothing.
///
/// Ownership: consumes the writer; it must not be used afterwards.
/// Thread-safety: no other call may use the writer meanwhile.
///
/// # Safety
/// `writer` is NULL or a live writer, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_abort(writer: *mut zt_writer) {
    guard_value((), || {
        // Dropping the sink removes the temporary file.
        drop(arg!(take(writer)));
    })
}

// cbindgen writes the header's functions in the order of these modules.
mod objects;

mod layouts;

mod attributes;

pub use attributes::*;
pub use layouts::*;
pub use objects::*;
