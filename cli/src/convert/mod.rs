//! `zt convert IN OUT`: safetensors, NumPy `.npy`/`.npz`, GGUF and `.zt` files of
//! any version into a zTensor v2 file (canonical unless options ask
//! otherwise; [`v2`]) or, with `--format-version 1.2`, a v1.2 file, written
//! deterministically and published atomically (see [`HELP`]).
//!
//! Each input module parses and checks its input's structure first (before
//! OUT's temporary file exists), then feeds objects to [`Out`], borrowing
//! the input's mapped bytes wherever they already are little-endian and
//! row-major. Errors name IN (bad or unsupported input) or OUT (a failed
//! write); either way the writer is dropped unfinished, which removes the
//! temporary file, so no OUT appears and an existing OUT is untouched.

mod from_v2;
mod gguf;
mod npy;
mod npz;
mod rules;
mod safetensors;
mod target;
mod v2;
mod zt;

use crate::args::{ConvertArgs, DigestArg};
use crate::progress::Progress;
use crate::{http, input, out, temp, Fail};
use std::cell::RefCell;
use std::fmt::Display;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};
use ztensor::write::{AttrValue, Data, FileSink};
use ztensor::write::v1_2::{Checksum, Compression, NewObject, Writer};
use ztensor::{ErrorKind, File};

/// What `zt convert --help` says after the options.
pub const HELP: &str = "\
IN may be (recognized by its magic bytes; safetensors, which has none, by
its header or its .safetensors extension):
  .safetensors  Each tensor becomes a dense object (in data order);
                __metadata__ becomes file attributes (text). F8_E4M3 and
                F8_E5M2 are stored as u8 with the logical type f8_e4m3fn /
                f8_e5m2; F8_E8M0, F4, F6_E2M3, F6_E3M2 as u8 with f8_e8m0fnu,
                f4_e2m1fn, f6_e2m3fn, f6_e3m2fn (bytes packed as safetensors
                packs them); C64 as f32 pairs with complex64. As v2
                output F6_E2M3 and F6_E3M2 are refused (the tensor is named:
                v2 registers no 6-bit float type).
  .npy          One dense object named after the file (w.npy -> w; from
                stdin: after OUT). bool, ints, f16/f32/f64; complex64/128 as
                f32/f64 pairs with the complex logical type. Big-endian data
                is converted to little-endian, Fortran-ordered arrays are
                transposed to row-major (in memory). Object (pickled),
                string, datetime, void/structured and longdouble arrays are
                refused.
  .npz          Each member NAME.npy becomes the object NAME, in archive
                order; stored (np.savez) or deflated (np.savez_compressed).
  .zt           Any version zt reads (0.1, 1.x), upgraded: every object,
                component, logical type and attribute, and the file
                attributes, are carried over; v0.1 big-endian data becomes
                little-endian; pre-1.2 sparse indices are widened to u64.
                Input digests are verified. To v2: dense stays dense,
                sparse_csr / sparse_coo become zt.sparse_csr/1 /
                zt.sparse_coo/1, bool becomes u8 with the logical type
                bool, f8_e8m0fnu / f4_e2m1fn become f8_e8m0 / f4_e2m1;
                what v2 has no equivalent for (quantized_group and other
                unregistered formats, logical types outside v2's registry,
                CBOR tags in attributes) is refused, naming the object and
                what it is (--format-version 1.2 keeps every object).
  .gguf         GGUF v2 or v3 (llama.cpp): each tensor one object with
                one part 'data', its bytes as stored; the dims reversed to a
                row-major shape. f32, f16, bf16, f64, i8, i16, i32, i64 as
                dense; quantized types (q4_0 ... q8_k, iq*, mxfp4) as
                gguf.<type>/1 (u8 blocks, attributes elems_per_block and
                block_bytes), refused as v1.2 output (the tensor is named).
                Every metadata pair becomes a file attribute of the same
                key. The canonical OUT is the bytes ztensor 2.x's convert
                writes.
  .zt (v2)      Every object is kept (re-laid-out, re-encoded as asked;
                canonical: the bytes ztensor 2.x's convert writes). A
                sharded root is read with its data shards beside it. As
                v1.2 output: dense, sparse and unregistered layouts;
                zt.quant_group/1, zt.mx/1, gguf.* and u32 sparse indices
                are refused (the object is named).
OUT is a zTensor v2 file, canonical (the bytes ztensor 2.x's convert writes
for the same tensors) unless --align, --compress, --digest or --shard-size
is given: each of them makes it non-canonical. --format-version 1.2 writes
the previous generation instead, for readers of the 1.x generation
(ztensor <= 1.2.3); --align and --shard-size are v2 only, crc32c digests
v1.2 only.

OUT keeps the data rules 'zt verify' checks (CSR/COO indices, bool bytes 0
or 1, f4_e2m1's final nibble; v2's stricter ones for v2 output): an input
whose values break one is refused, naming the object and the rule.

OUT is written to a temporary file beside it and renamed into place once
complete: if the conversion fails or is interrupted (Ctrl-C, SIGTERM,
SIGHUP), no OUT is left behind, the temporary file is removed and an
existing OUT is untouched. Only SIGKILL (or a crash of the machine) can
leave the hidden temporary file '.OUT.PID.N.tmp' beside OUT; delete it.
OUT may not be IN itself (also through a link) nor '-', and may not end
in the extension of another format (.safetensors, .npy, .npz, ...). The same input
and options always give the same bytes.

With --compress, v2 stores every part as zt.zstd-seekable/1 (frames of
1 MiB, each decodable alone). v1.2 stores a component that zstd would not
make smaller (random or already compressed bytes, tiny tensors) raw (and
memory-mappable); the summary line counts them, and 'zt info' shows each
component's encoding. Each compressed component is built in memory before
it is written.

After a successful conversion one line sums it up on stderr (objects,
bytes, ratio, time; components kept raw) unless --quiet. A progress bar with rate and ETA is
drawn on stderr while converting, when it is a terminal.
Exit status: 0 success; 1 unreadable, invalid or unsupported input, or a
failed write (one 'zt: FILE: ...' line on stderr); 2 usage error.";

/// What `--digest` asked for.
#[derive(Clone, Copy)]
pub enum DigestOpt {
    /// Not given: the writer's default (v1.2: crc32c), except that `.zt`
    /// components keep their algorithm (or none).
    Keep,
    Set(Checksum),
}

/// The kinds of input.
#[derive(Debug, PartialEq)]
enum Kind {
    Safetensors,
    Npy,
    Npz,
    Zt,
    ZtV2,
    Gguf,
}

fn detect(path: &Path, b: &[u8]) -> Result<Kind, String> {
    if b.starts_with(b"ZTEN") {
        return Ok(Kind::Zt);
    }
    if b.starts_with(from_v2::MAGIC) {
        return Ok(Kind::ZtV2);
    }
    if b.starts_with(gguf::MAGIC) {
        return Ok(Kind::Gguf);
    }
    if b.starts_with(npy::MAGIC) {
        return Ok(Kind::Npy);
    }
    if b.starts_with(npz::MAGIC) || b.starts_with(npz::MAGIC_EMPTY) {
        return Ok(Kind::Npz);
    }
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("safetensors") => return Ok(Kind::Safetensors),
        Some("npy") => return Ok(Kind::Npy),
        Some("npz") => return Ok(Kind::Npz),
        Some("zt") => return Ok(Kind::Zt),
        Some("gguf") => return Ok(Kind::Gguf),
        _ => {}
    }
    if b.len() >= 9 && b[8] == b'{' {
        return Ok(Kind::Safetensors);
    }
    Err("unrecognized input format (expected .safetensors, .npy, .npz, .gguf or .zt)".into())
}

pub fn run(a: &ConvertArgs) -> Result<(), Fail> {
    if http::is_url(&a.input) {
        return from_url(a);
    }
    let started = Instant::now();
    // A component zstd would not make smaller stays raw (v1.2; v2 compresses in its own stage).
    let v2 = v2::Plan::from_args(a)?;
    let compression = a.compress.filter(|_| v2.is_none()).map_or(Compression::Raw, Compression::ZstdIfSmaller);
    let digest = match a.digest {
        _ if v2.is_some() => v2::Plan::stage_digest(),
        None => DigestOpt::Keep,
        Some(DigestArg::None) => DigestOpt::Set(Checksum::None),
        Some(DigestArg::Sha256) => DigestOpt::Set(Checksum::Sha256),
        Some(DigestArg::Crc32c) => DigestOpt::Set(Checksum::Crc32c),
        Some(DigestArg::Xxh3) => unreachable!("refused by v2::Plan::from_args"),
    };
    let (in_path, out_path) = (a.input.as_path(), a.output.as_path());
    target::check(in_path, out_path)?;
    let bytes = input::load(in_path).map_err(|e| Fail::input(in_path, e))?;
    let bad = |e: String| Fail::input(in_path, e);
    // v2: a v1.2 stage file first, rewritten as OUT by `v2`.
    let stage = v2.map(|_| v2::Stage::beside(out_path));
    let write_path = stage.as_ref().map_or(out_path, |s| s.path());
    let new_out = |total| Out::create(in_path, write_path, out_path, compression, digest, total, a.quiet);
    let kind = detect(in_path, &bytes).map_err(bad)?;
    if let (Kind::ZtV2, Some(plan)) = (&kind, &v2) {
        // v2 to v2: straight through, every layout kept.
        let m = ztensor::v2::Manifest::parse(&bytes).map_err(|e| bad(e.to_string()))?;
        let written = v2::from_v2(&m, &bytes, in_path, out_path, plan)?;
        if !a.quiet {
            let line = summary(out_path, m.len() as u64, bytes.len() as u64, written, 0, started.elapsed());
            let _ = writeln!(std::io::stderr().lock(), "{line}");
        }
        return Ok(());
    }
    if let (Kind::Gguf, Some(plan)) = (&kind, &v2) {
        // GGUF to v2: every tensor kept, quantized ones as gguf.<type>/1.
        let g = gguf::parse(&bytes).map_err(bad)?;
        let written = v2::from_gguf(&g, in_path, out_path, plan)?;
        if !a.quiet {
            let line = summary(out_path, g.tensors.len() as u64, bytes.len() as u64, written, 0, started.elapsed());
            let _ = writeln!(std::io::stderr().lock(), "{line}");
        }
        return Ok(());
    }
    let out = match kind {
        Kind::Safetensors => {
            let st = safetensors::parse(&bytes).map_err(bad)?;
            let mut out = new_out(st.total())?;
            st.write(&mut out)?;
            out
        }
        Kind::Npy => {
            let (h, data) = npy::parse(&bytes).map_err(bad)?;
            // From stdin the array is named after OUT.
            let named = if input::is_stdin(in_path) { out_path } else { in_path };
            let stem = named.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let mut out = new_out(h.nbytes)?;
            npy::write(&h, data, &stem, &mut out)?;
            out
        }
        Kind::Npz => {
            let mut npz = npz::parse(&bytes).map_err(bad)?;
            let mut out = new_out(npz.total())?;
            npz.write(&mut out)?;
            out
        }
        Kind::Zt => {
            let file = File::parse(&bytes).map_err(|e| bad(e.to_string()))?;
            let mut out = new_out(zt::total(&file))?;
            zt::write(&file, &mut out)?;
            out
        }
        Kind::Gguf => {
            let g = gguf::parse(&bytes).map_err(bad)?;
            g.check_v12().map_err(bad)?;
            let mut out = new_out(g.total())?;
            g.write(&mut out)?;
            out
        }
        Kind::ZtV2 => {
            let m = ztensor::v2::Manifest::parse(&bytes).map_err(|e| bad(e.to_string()))?;
            let files = from_v2::Files::open(&m, &bytes, in_path).map_err(bad)?;
            let mut out = new_out(from_v2::total(&m))?;
            from_v2::write(&m, &files, &mut out)?;
            out
        }
    };
    let (objects, quiet) = (out.objects, a.quiet);
    let (mut written, kept_raw) = out.finish()?;
    if let (Some(stage), Some(plan)) = (stage, v2) {
        written = stage.finish(in_path, out_path, &plan, quiet)?;
    }
    if !quiet {
        let line = summary(out_path, objects, bytes.len() as u64, written, kept_raw, started.elapsed());
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    }
    Ok(())
}

/// `zt convert URL OUT`: the file (and a v2 root's shards, by their
/// positional names beside it) downloaded into a temporary directory with
/// one plain GET each, then converted as a local file; failures name the URL.
fn from_url(a: &ConvertArgs) -> Result<(), Fail> {
    let url = a.input.to_string_lossy().into_owned();
    let fail = |e: &dyn Display| Fail::input(&a.input, e);
    let dir = Download::dir().map_err(|e| fail(&format_args!("cannot create a temporary directory: {e}")))?;
    // The URL's last segment: its extension tells formats without magic.
    let name = url.split(['?', '#']).next().and_then(|u| u.rsplit('/').next()).filter(|n| !n.is_empty());
    let local = dir.0.join(name.unwrap_or("download"));
    fetch(&url, &local, a.quiet).map_err(|e| fail(&e))?;
    if let Ok(r) = ztensor::fs::Reader::open(&local) {
        for s in r.file().v2().iter().flat_map(|m| m.shards()) {
            let beside = ztensor::v2::shard::positional_path(&local, s.name);
            let (Some(u), Some(p)) = (http::shard_url(&url, s.name), beside) else { continue };
            fetch(&u, &p, a.quiet).map_err(|e| fail(&format_args!("shard {:?} ({u}): {e}", s.name)))?;
        }
    }
    let mut here = a.clone();
    here.input = local.clone();
    run(&here).map_err(|f| match f {
        Fail::Input { file, msg } if file == local => Fail::Input { file: a.input.clone(), msg },
        f => f,
    })
}

fn fetch(url: &str, to: &Path, quiet: bool) -> std::io::Result<u64> {
    let mut f = std::fs::File::create(to)?;
    http::download(url, &mut f, quiet)
}

/// A temporary directory for downloads, removed when dropped, and on a
/// signal or panic before that (registered with [`temp`]).
struct Download(PathBuf);

impl Download {
    fn dir() -> std::io::Result<Download> {
        let mut n = 0;
        loop {
            let d = std::env::temp_dir().join(format!("zt-download-{}-{n}", std::process::id()));
            match std::fs::create_dir(&d) {
                Ok(()) => {
                    temp::add_dir(&d);
                    return Ok(Download(d));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 100 => n += 1,
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for Download {
    fn drop(&mut self) {
        temp::remove_dir(&self.0);
    }
}

/// `zt: OUT: 3 objects, 1.2 MiB -> 800.0 KiB (1.54x) in 0.42 s`: the ratio
/// is read / written, as `info`'s is decoded / stored. Components
/// `--compress` kept raw are counted before the time: `(1.54x), 2
/// components kept raw (zstd would not make them smaller), in 0.42 s`.
fn summary(out_path: &Path, objects: u64, read: u64, written: u64, kept_raw: u64, took: Duration) -> String {
    let ratio = out::ratio(written, Some(read));
    let raw = match kept_raw {
        0 => String::new(),
        1 => ", 1 component kept raw (zstd would not make it smaller),".into(),
        n => format!(", {n} components kept raw (zstd would not make them smaller),"),
    };
    format!(
        "zt: {}: {objects} object{}, {} -> {} ({ratio}){raw} in {:.2} s",
        out_path.display(),
        if objects == 1 { "" } else { "s" },
        out::human(read),
        out::human(written),
        took.as_secs_f64()
    )
}

/// The output being written, and what every input module needs around it.
pub struct Out {
    w: Writer<rules::CheckedSink>,
    pub in_path: PathBuf,
    out_path: PathBuf,
    compression: Compression,
    pub digest: DigestOpt,
    pub progress: Rc<Progress>,
    /// The first failure of a streamed input source (corrupt deflate data;
    /// the writer only sees an I/O error), or the first data rule the
    /// written file breaks (`rules::CheckedSink`).
    pub source_error: Rc<RefCell<Option<String>>>,
    /// Objects added so far.
    objects: u64,
    _temp: TempGuard,
}

impl Out {
    /// The writer of `write_path`: OUT, or the v1.2 stage beside it (then a
    /// failure to create or write it is still blamed on OUT).
    fn create(
        in_path: &Path,
        write_path: &Path,
        out_path: &Path,
        compression: Compression,
        digest: DigestOpt,
        total: u64,
        quiet: bool,
    ) -> Result<Out, Fail> {
        let sink = temp::create(|| FileSink::create(write_path), |s| s.temp_path().to_path_buf())
            .map_err(|e| Fail::input(out_path, e))?;
        let source_error = Rc::new(RefCell::new(None));
        Ok(Out {
            w: Writer::new(rules::CheckedSink::new(sink, source_error.clone())),
            in_path: in_path.to_owned(),
            out_path: out_path.to_owned(),
            compression,
            digest,
            progress: Rc::new(if quiet { Progress::hidden(total) } else { Progress::new(total) }),
            objects: 0,
            source_error,
            // A stage stays registered once published, until the v2 pass unlinks it.
            _temp: TempGuard { after: (write_path != out_path).then(|| write_path.to_owned()) },
        })
    }

    /// A failure blamed on the input.
    pub fn bad_input(&self, msg: impl Display) -> Fail {
        Fail::input(&self.in_path, msg)
    }

    /// One `zt: IN: warning: ...` line on stderr.
    pub fn warn(&self, msg: impl Display) {
        self.progress.println(&format!("zt: {}: warning: {msg}", out::path(&self.in_path)));
    }

    pub fn set_attribute(&mut self, key: &str, v: AttrValue) -> Result<(), Fail> {
        self.w.set_attribute(key, v).map_err(|e| self.bad_input(format!("file attribute {key:?}: {e}")))
    }

    /// Add an object, with the encoding and digest the options ask for.
    pub fn add(&mut self, obj: NewObject<'_>) -> Result<(), Fail> {
        let mut obj = obj.compression(self.compression);
        if let DigestOpt::Set(c) = self.digest {
            obj = obj.checksum(c);
        }
        self.w.add(obj).map_err(|e| self.writer_error(e))?;
        self.objects += 1;
        Ok(())
    }

    fn writer_error(&mut self, e: ztensor::Error) -> Fail {
        if let Some(msg) = self.source_error.borrow_mut().take() {
            return self.bad_input(msg);
        }
        if e.kind() == ErrorKind::Io {
            let msg = self.w.take_io_error().map_or_else(|| e.to_string(), |io| io.to_string());
            return Fail::input(&self.out_path, msg);
        }
        self.bad_input(e)
    }

    /// Write the manifest and publish OUT; the bytes written and the
    /// components `--compress` kept raw.
    fn finish(self) -> Result<(u64, u64), Fail> {
        let Out { w, in_path, out_path, progress, _temp, source_error, .. } = self;
        let kept_raw = w.kept_raw();
        if let Some(stage) = &_temp.after {
            // Registered before the rename, so that no signal can leave it behind.
            temp::add(stage);
        }
        let r = w.finish();
        drop((_temp, progress));
        if let Some(msg) = source_error.take() {
            return Err(Fail::input(&in_path, msg));
        }
        match r {
            Ok(sink) => Ok((std::fs::metadata(sink.file.path()).map(|m| m.len()).unwrap_or(0), kept_raw)),
            Err(e) if e.kind() == ErrorKind::Io => Err(Fail::input(&out_path, e)),
            Err(e) => Err(Fail::input(&out_path, format!("cannot write the manifest: {e}"))),
        }
    }
}

/// Keeps the temporary file registered for the panic hook while alive;
/// then registers `after` (the published v1.2 stage of a v2 conversion).
struct TempGuard {
    after: Option<PathBuf>,
}

impl Drop for TempGuard {
    fn drop(&mut self) {
        temp::set(self.after.as_deref());
    }
}

const CHUNK: usize = 1 << 20;

/// Borrowed little-endian bytes, fed to the writer a chunk at a time (for progress).
pub fn slice_data<'a>(b: &'a [u8], p: &Rc<Progress>) -> Data<'a> {
    let p = p.clone();
    Data::from_chunks(b.len() as u64, b.chunks(CHUNK).inspect(move |c| p.add(c.len() as u64)))
}

/// Big-endian elements of `width` bytes, swapped a chunk at a time.
pub fn swapped_data<'a>(b: &'a [u8], width: usize, p: &Rc<Progress>) -> Data<'a> {
    let p = p.clone();
    Data::from_chunks(
        b.len() as u64,
        b.chunks(CHUNK).map(move |c| {
            let mut v = c.to_vec();
            swap_elements(&mut v, width);
            p.add(c.len() as u64);
            v
        }),
    )
}

/// Bytes already decoded into memory.
pub fn owned_data(v: Vec<u8>, p: &Rc<Progress>) -> Data<'static> {
    p.add(v.len() as u64);
    Data::owned(v)
}

/// Reverse the bytes of each `width`-byte element.
pub fn swap_elements(b: &mut [u8], width: usize) {
    if width > 1 {
        for e in b.chunks_exact_mut(width) {
            e.reverse();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection() {
        let p = Path::new;
        assert_eq!(detect(p("x"), b"ZTEN1000..."), Ok(Kind::Zt));
        assert_eq!(detect(p("x.safetensors"), b"\x93NUMPY\x01\x00"), Ok(Kind::Npy));
        assert_eq!(detect(p("x"), b"PK\x03\x04"), Ok(Kind::Npz));
        assert_eq!(detect(p("x.zt"), b"GGUF\x03\0\0\0"), Ok(Kind::Gguf));
        assert_eq!(detect(p("x.gguf"), b""), Ok(Kind::Gguf));
        assert_eq!(detect(p("x.SafeTensors"), b""), Ok(Kind::Safetensors));
        assert_eq!(detect(p("x.bin"), b"\x02\0\0\0\0\0\0\0{}"), Ok(Kind::Safetensors));
        assert!(detect(p("x.bin"), b"hello world").is_err());
        let mut v = vec![0x12u8, 0x34, 0x56, 0x78, 0x9a];
        swap_elements(&mut v, 2);
        assert_eq!(v, [0x34, 0x12, 0x78, 0x56, 0x9a]);
    }
}
