//! `zt convert` to v2 (the default; `--format-version 1.2` is the other
//! choice): a v2 input goes straight to the v2
//! writer ([`from_v2`]); any other input is first converted as for
//! v1.2 (raw, no digests) into a hidden stage file beside OUT, which is then
//! rewritten as a zTensor v2 file by [`ztensor::write::v2::Writer`]:
//! canonical (§6.3) unless `--align`, `--compress`, `--digest` or
//! `--shard-size` asks otherwise. Objects go in bytewise name order (what
//! canonical form requires; upstream's `ztensor.convert` does the same), so
//! a canonical OUT is byte-identical to upstream's for the same tensors.
//!
//! v1.x → v2 mapping (what makes `zt convert old.zt new.zt` an upgrade):
//! `dense` stays, `sparse_csr`/`sparse_coo` become
//! `zt.sparse_csr/1`/`zt.sparse_coo/1` (same part names, §5.2's registry);
//! a format that is already a namespaced, versioned v2 layout id (a v2
//! file converted to v1.2 and back) keeps its name; `bool` becomes `u8`
//! with the logical type `bool` (§4.1); the v1.2 logical types
//! `f8_e8m0fnu` and `f4_e2m1fn` take their v2 names `f8_e8m0` and
//! `f4_e2m1`, the others of Appendix A keep theirs; attributes are carried
//! over as they are. What has no v2 equivalent is refused, naming the
//! object and what it is, never dropped: v1.2's `quantized_group` (its
//! attributes do not say what `zt.quant_group/1` requires: axis, packing
//! order, scale form, zero point), other formats without a v2 layout id,
//! logical types outside Appendix A, CBOR tags and simple values in
//! attributes.

use super::DigestOpt;
use crate::args::{ConvertArgs, DigestArg};
use crate::progress::Progress;
use crate::{input, temp, Fail};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use ztensor::write::v2::{
    is_valid_align, DigestAlg, Encoding, Error, Kind, NewObject, NewPart, Options, Writer, CANONICAL_ALIGN,
};
use ztensor::write::{AttrValue, FileSink};
use ztensor::write::v1_2::Checksum;
use ztensor::{File, Format, Value, ValueRef};

/// How the v2 output is laid out (from the command line).
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    options: Options,
    /// zstd level of `zt.zstd-seekable/1` parts, if compressed.
    level: Option<i32>,
}

impl Plan {
    /// The plan for v2 output (the default) and its options; `None` for
    /// `--format-version 1.2` (and then none of the v2-only options may be given).
    pub fn from_args(a: &ConvertArgs) -> Result<Option<Plan>, Fail> {
        if !a.format_version_2() {
            if a.align.is_some() || a.shard_size.is_some() {
                return Err(usage("--align and --shard-size are v2 options (not with --format-version 1.2)"));
            }
            if matches!(a.digest, Some(DigestArg::Xxh3)) {
                return Err(usage("--digest xxh3 is a v2 digest (not with --format-version 1.2)"));
            }
            return Ok(None);
        }
        let digest = match a.digest {
            None => None,
            Some(DigestArg::Xxh3) => Some(DigestAlg::Xxh3),
            Some(DigestArg::Sha256) => Some(DigestAlg::Sha256),
            Some(DigestArg::None) => Some(DigestAlg::None),
            Some(DigestArg::Crc32c) => {
                return Err(usage("--digest crc32c is v1.2 only (--format-version 1.2; v2: xxh3, sha256 or none)"))
            }
        };
        let canonical = a.align.is_none() && a.compress.is_none() && digest.is_none() && a.shard_size.is_none();
        let options = if canonical {
            Options::canonical()
        } else {
            let align = a.align.unwrap_or(CANONICAL_ALIGN);
            if !is_valid_align(align) {
                return Err(usage("--align must be a power of two from 4096 to 1 GiB"));
            }
            let mut o = Options::non_canonical(align).digest(digest.unwrap_or_default());
            if let Some(s) = a.shard_size {
                o = o.shards(s);
            }
            o
        };
        Ok(Some(Plan { options, level: a.compress }))
    }

    /// What the v1.2 stage is written with: raw, no digests.
    pub fn stage_digest() -> DigestOpt {
        DigestOpt::Set(Checksum::None)
    }
}

fn usage(msg: &str) -> Fail {
    Fail::Usage { msg: msg.into(), usage: "zt convert IN OUT [OPTIONS]".into() }
}

/// The hidden v1.2 stage file beside OUT, removed when dropped. While it
/// is written it is the registered temporary file (removed on a signal);
/// it is unlinked as soon as it is mapped for the v2 pass.
pub struct Stage {
    path: PathBuf,
}

impl Stage {
    /// `.OUT.PID.v12.tmp` beside OUT.
    pub fn beside(out: &Path) -> Stage {
        let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let path = out.with_file_name(format!(".{name}.{}.v12.tmp", std::process::id()));
        Stage { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Rewrite the stage as the v2 file OUT; the bytes written (all files).
    /// What v2 refuses (a non-NFC name, ...) is blamed on IN, failed writes on OUT.
    /// A progress bar is drawn for this pass too (unless `quiet`).
    pub fn finish(self, in_path: &Path, out: &Path, plan: &Plan, quiet: bool) -> Result<u64, Fail> {
        let bytes = input::load(&self.path).map_err(|e| {
            // Removed by a signal being handled? Then zt ends of it here.
            temp::sync();
            Fail::input(&self.path, e)
        })?;
        // Mapped (or read): unlinked now, so that no signal can leave it behind
        // (where a mapped file cannot be removed, `drop` removes it later).
        let _ = std::fs::remove_file(&self.path);
        let file = File::parse(&bytes).map_err(|e| Fail::input(&self.path, e))?;
        let total = file.objects().flat_map(|o| o.components()).map(|c| c.length()).sum();
        let progress = Rc::new(if quiet { Progress::hidden(total) } else { Progress::new(total) });
        publish(out, plan, |w, encoding| fill(&file, w, encoding, in_path, out, &progress))
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The v2 layout of a v1.2 format (§5.2), or why it has none.
fn layout<'a>(f: &Format<'a>) -> Result<&'a str, String> {
    match f {
        Format::Dense => Ok("dense"),
        Format::SparseCsr => Ok("zt.sparse_csr/1"),
        Format::SparseCoo => Ok("zt.sparse_coo/1"),
        Format::QuantizedGroup => Err("format \"quantized_group\" has no v2 equivalent: zt.quant_group/1 needs its \
             axis, packing order, scale form and zero point, which v1.2 does not record (--format-version 1.2 keeps it)"
            .into()),
        other if is_layout_id(other.name()) => Ok(other.name()),
        other => Err(format!(
            "format {:?} has no v2 equivalent (a v2 layout is a namespaced, versioned profile id such as \
             zt.sparse_csr/1; --format-version 1.2 keeps it)",
            other.name()
        )),
    }
}

/// Whether `s` has the shape of a v2 layout profile id (§5.2):
/// `namespace.name/version`, e.g. `acme.paged/1`.
fn is_layout_id(s: &str) -> bool {
    let Some((id, version)) = s.rsplit_once('/') else {
        return false;
    };
    let Some((namespace, name)) = id.split_once('.') else {
        return false;
    };
    !namespace.is_empty() && !name.is_empty() && !version.is_empty() && version.bytes().all(|b| b.is_ascii_digit())
}

/// The v2 name of a v1.2 logical type (Appendix A), or why it has none.
fn logical(t: &str) -> Result<&str, String> {
    let v2 = match t {
        "f8_e8m0fnu" => "f8_e8m0",
        "f4_e2m1fn" => "f4_e2m1",
        t => t,
    };
    match ztensor::v2::types::LogicalType::v2(v2) {
        Some(_) => Ok(v2),
        None => Err(format!("logical type {t:?} has no v2 equivalent (not in v2's registry, Appendix A)")),
    }
}

/// A v2 input rewritten as the v2 file OUT (no stage: every layout is kept);
/// the bytes written.
pub fn from_v2(m: &ztensor::v2::Manifest<'_>, file: &[u8], in_path: &Path, out: &Path, plan: &Plan) -> Result<u64, Fail> {
    let files = super::from_v2::Files::open(m, file, in_path).map_err(|e| Fail::input(in_path, e))?;
    publish(out, plan, |w, encoding| {
        super::from_v2::write_v2(m, &files, w, encoding, in_path, |e| refused(e, in_path, out))
    })
}

/// A GGUF input written as the v2 file OUT (no stage: quantized tensors
/// keep their `gguf.<type>/1` layout); the bytes written.
pub fn from_gguf(g: &super::gguf::Gguf<'_>, in_path: &Path, out: &Path, plan: &Plan) -> Result<u64, Fail> {
    publish(out, plan, |w, encoding| g.write_v2(w, encoding, in_path, |e| refused(e, in_path, out)))
}

/// Create OUT's writer, let `fill` add everything, publish OUT; the bytes written.
fn publish(
    out: &Path,
    plan: &Plan,
    fill: impl FnOnce(&mut Writer<FileSink>, Option<Encoding>) -> Result<(), Fail>,
) -> Result<u64, Fail> {
    let werr = |e: Error| Fail::input(out, e);
    let mut w = temp::create(|| Writer::create_with(out, plan.options), |w| w.sink().temp_path().to_path_buf())
        .map_err(werr)?;
    let encoding = plan.level.map(|level| match Encoding::ZSTD_SEEKABLE {
        Encoding::ZstdSeekable { frame, .. } => Encoding::ZstdSeekable { level, frame },
        e => e,
    });
    let r = fill(&mut w, encoding).and_then(|()| w.finish().map_err(werr));
    temp::set(None);
    r?;
    Ok(written(out))
}

/// The writer's errors name the object; a sink or source failure is OUT's, a refusal IN's.
fn refused(e: Error, in_path: &Path, out: &Path) -> Fail {
    match e.kind {
        Kind::Core(_) => Fail::input(out, e),
        _ => Fail::input(in_path, e),
    }
}

fn fill(
    file: &File<'_>,
    w: &mut Writer<FileSink>,
    encoding: Option<Encoding>,
    in_path: &Path,
    out: &Path,
    progress: &Rc<Progress>,
) -> Result<(), Fail> {
    for (k, v) in file.attributes().iter() {
        let key = k.as_str().ok_or_else(|| Fail::input(in_path, "a file attribute key is not text"))?;
        let v = attr(v).map_err(|e| Fail::input(in_path, format!("file attribute {key:?}: {e}")))?;
        w.set_attribute(key, v)
            .map_err(|e| Fail::input(in_path, format!("file attribute {key:?}: {e}")))?;
    }
    let mut objects: Vec<_> = file.objects().collect();
    objects.sort_by(|a, b| a.name().as_bytes().cmp(b.name().as_bytes()));
    for o in objects {
        let bad = |e: &dyn std::fmt::Display| Fail::input(in_path, format!("object {:?}: {e}", o.name()));
        let shape: Vec<u64> = o.shape().dims().collect();
        let mut obj = NewObject::new(o.name(), &shape, layout(&o.format()).map_err(|e| bad(&e))?);
        super::rules::v2_extra(&o).map_err(|e| Fail::input(in_path, e))?;
        for (k, v) in o.attributes().iter() {
            let key = k.as_str().ok_or_else(|| bad(&"an attribute key is not text"))?;
            obj = obj.attribute(key, attr(v).map_err(|e| bad(&format_args!("attribute {key:?}: {e}")))?);
        }
        for c in o.components() {
            let bytes = c.stored_bytes().map_err(|e| bad(&e))?;
            // Fed a chunk at a time, for the progress bar (canonical form
            // shares a streamed duplicate as it does one in memory).
            let mut p = NewPart::new(c.role(), c.dtype(), super::slice_data(bytes, progress));
            if let Some(t) = c.logical_type() {
                let t = logical(t.name()).map_err(|e| bad(&format_args!("component {:?}: {e}", c.role())))?;
                p = p.logical(t);
            }
            if let Some(e) = encoding {
                p = p.encoding(e);
            }
            obj = obj.part(p);
        }
        w.add(obj).map_err(|e| refused(e, in_path, out))?;
    }
    Ok(())
}

/// A v1.2 attribute value, rebuilt item by item so that the writer puts
/// it in deterministic form (v1.2 maps may have their keys in any order).
/// Tags and simple values other than booleans and null have no place in v2.
fn attr(v: Value<'_>) -> Result<AttrValue, &'static str> {
    Ok(match v.get() {
        ValueRef::Uint(n) => AttrValue::Uint(n),
        ValueRef::NegInt(n) => AttrValue::NegInt(n),
        ValueRef::Float(f) => AttrValue::Float(f),
        ValueRef::Bool(b) => AttrValue::Bool(b),
        ValueRef::Null => AttrValue::Null,
        ValueRef::Bytes(c) => AttrValue::Bytes(c.iter().flatten().copied().collect()),
        ValueRef::Text(c) => {
            let b: Vec<u8> = c.iter().flatten().copied().collect();
            AttrValue::Text(String::from_utf8(b).map_err(|_| "text that is not UTF-8")?)
        }
        ValueRef::Array(a) => AttrValue::Array(a.iter().map(attr).collect::<Result<_, _>>()?),
        ValueRef::Map(m) => AttrValue::Map(m.iter().map(|(k, v)| Ok((attr(k)?, attr(v)?))).collect::<Result<_, _>>()?),
        ValueRef::Tag(..) => return Err("a CBOR tag (v2 attributes have none)"),
        ValueRef::Undefined | ValueRef::Simple(_) => return Err("a CBOR simple value v2 does not allow"),
    })
}

/// Bytes of OUT and, when sharded, of its data shards (the sizes its shard
/// table gives: the shards' names vary, see `Options::shards`).
fn written(out: &Path) -> u64 {
    let root = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    let r = ztensor::fs::Reader::open_with(out, ztensor::fs::Mode::Positional);
    let shards = r.ok().and_then(|r| r.file().v2().map(|m| m.shards().map(|s| s.size).sum::<u64>()));
    root + shards.unwrap_or(0)
}
