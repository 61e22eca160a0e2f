//! `zt_writer_options`: the format version and the file-wide choices of a
//! writer (canonical form, alignment, digest, compression, shards), checked
//! together before anything is created.

use super::descriptors::{seekable, zstd_level, V1Defaults, V2Defaults};
use crate::args::arg;
use crate::guard::Fail;
use crate::zt_status;
use ztensor_core::write::v2::{is_valid_align, DigestAlg, Encoding, Options, CANONICAL_ALIGN};
use ztensor_core::write::v1_2::{Checksum, Compression};

/// The format version a writer writes (`zt_writer_options.format_version`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum zt_format_version {
    /// The default: format v2 (what `zt_writer_create` writes).
    ZT_FORMAT_VERSION_DEFAULT = 0,
    /// zTensor v1.2, for readers of the 1.x generation (PyPI `ztensor`
    /// up to 1.2.3, which cannot read v2).
    ZT_FORMAT_VERSION_1_2 = 1,
    /// zTensor format v2 (the container of PyPI `ztensor` 2.x): the default.
    ZT_FORMAT_VERSION_2 = 2,
}

/// Whether a v2 writer writes canonical form (§6.3: identical tensors give
/// identical bytes) (`zt_writer_options.canonical`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum zt_canonical {
    /// v2: canonical unless `alignment`, a digest other than xxh3,
    /// `compression` or `shard_size` is set. v1.2: not applicable.
    ZT_CANONICAL_DEFAULT = 0,
    /// Canonical form (v2 only); the options it excludes are refused.
    ZT_CANONICAL_YES = 1,
    /// Not canonical: any alignment, digest, compression, shards.
    ZT_CANONICAL_NO = 2,
}

/// The digest a writer puts on every part (`zt_writer_options.digest`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum zt_writer_digest {
    /// v2: xxh3. v1.2: crc32c, so that reads can check what they read
    /// (each object's `zt_write_options.digest` may choose another).
    ZT_WRITER_DIGEST_DEFAULT = 0,
    /// No digest.
    ZT_WRITER_DIGEST_NONE = 1,
    /// XXH3-64 over the decoded bytes (v2 only; canonical form's).
    ZT_WRITER_DIGEST_XXH3 = 2,
    /// SHA-256: v2 over the decoded bytes, v1.2 over the stored bytes.
    ZT_WRITER_DIGEST_SHA256 = 3,
    /// CRC-32C over the stored bytes (v1.2 only).
    ZT_WRITER_DIGEST_CRC32C = 4,
}

/// The file-wide options of a new writer (`zt_writer_create_with_options`).
///
/// It grows at its end in later versions: set `struct_size` to
/// `sizeof(zt_writer_options)` (`zt_writer_options_init` does), so the
/// library knows which fields the caller has. With every other field 0
/// the writer is `zt_writer_create`'s: format v2 in canonical form
/// (§6.3): blobs at 64 KiB boundaries, xxh3 digests, raw parts, one file,
/// objects added in ascending bytewise name order; byte-identical to PyPI
/// `ztensor` 2.1.2's writer for the same tensors. `format_version`
/// `ZT_FORMAT_VERSION_1_2` writes v1.2 instead (objects raw with no digest
/// unless asked), for readers of the 1.x generation.
///
/// Combinations the chosen version cannot write are refused with
/// `ZT_ERR_INVALID_ARGUMENT`, `zt_last_error()` naming them: v2 options
/// (alignment, xxh3, zstd-seekable, frame or shard size) with v1.2;
/// canonical form with an alignment, a digest other than xxh3,
/// compression or shards; an alignment that is not a power of two from
/// 4096 to 1 GiB;
/// CRC-32C or v1.2's zstd with v2.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct zt_writer_options {
    /// `sizeof(zt_writer_options)` as the caller compiled it.
    pub struct_size: usize,
    /// A `zt_format_version`.
    pub format_version: u32,
    /// A `zt_canonical` (v2).
    pub canonical: u32,
    /// v2, not canonical: blobs start at multiples of this power of two
    /// from 4096 to 1 GiB; 0 for 4096 (65536 in canonical form). The
    /// padding before each blob is left as a hole in the file where the
    /// file system allows.
    pub alignment: u64,
    /// A `zt_writer_digest`.
    pub digest: u32,
    /// A `zt_encoding` for objects whose `zt_write_options` leave it RAW:
    /// `ZT_ENCODING_RAW` (default); `ZT_ENCODING_ZSTD` (v1.2) or
    /// `ZT_ENCODING_ZSTD_SEEKABLE` (v2, `zt.zstd-seekable/1`, not canonical).
    pub compression: u32,
    /// zstd level of `compression`: 0 for the default (3), else -131072..=22.
    pub compression_level: i32,
    /// v2 zstd-seekable: decoded bytes per frame, 1 to 16 MiB; 0 for 1 MiB.
    pub frame_size: u32,
    /// v2, not canonical: blobs go to data shards of at most this many
    /// bytes (`<stem>-NNNNN-of-NNNNN.zt` beside the root `path`, a larger
    /// blob in a shard of its own); 0 for one file.
    pub shard_size: u64,
}

/// Fill `*options` with the defaults (every field 0) and `struct_size`.
///
/// Returns `ZT_ERR_INVALID_ARGUMENT` when `options` is NULL.
///
/// Ownership: the caller owns `*options`. Thread-safety: safe from any thread.
///
/// # Safety
/// `options` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_writer_options_init(options: *mut zt_writer_options) -> zt_status {
    crate::guard::guard(|| {
        arg!(crate::handle::put(options, DEFAULTS, "`options` is NULL"))?;
        Ok(())
    })
}

const DEFAULTS: zt_writer_options = zt_writer_options {
    struct_size: core::mem::size_of::<zt_writer_options>(),
    format_version: 0,
    canonical: 0,
    alignment: 0,
    digest: 0,
    compression: 0,
    compression_level: 0,
    frame_size: 0,
    shard_size: 0,
};

/// What to create, decided from the options.
pub(super) enum Settings {
    V1(V1Defaults),
    V2 { opts: Options, defaults: V2Defaults, sharded: bool },
}

/// The caller's options: the fields its `struct_size` covers, the rest at
/// their defaults; fields past ours must be 0 (a newer caller asking for
/// something this library cannot do).
///
/// # Safety
/// `p` is NULL or valid for `(*p).struct_size` bytes.
pub(super) unsafe fn read(p: *const zt_writer_options) -> Result<zt_writer_options, Fail> {
    if p.is_null() {
        return Ok(DEFAULTS);
    }
    // SAFETY: `struct_size` is the first field, present in every version.
    let size = unsafe { p.cast::<usize>().read_unaligned() };
    let ours = core::mem::size_of::<zt_writer_options>();
    if size < ours {
        // This is the first version: no smaller one exists.
        return Err(Fail::invalid("`struct_size` is not sizeof(zt_writer_options) (call zt_writer_options_init)"));
    }
    if size > isize::MAX as usize {
        return Err(Fail::invalid("`struct_size` is too large"));
    }
    // SAFETY: valid for `size` bytes by the caller's contract.
    let extra = unsafe { core::slice::from_raw_parts(p.cast::<u8>().add(ours), size - ours) };
    if extra.iter().any(|&b| b != 0) {
        return Err(Fail::invalid("zt_writer_options sets fields this library does not know (a newer header?)"));
    }
    // SAFETY: valid for `ours` bytes.
    Ok(unsafe { p.read_unaligned() })
}

fn refuse(what: &'static str) -> Fail {
    Fail::invalid(what)
}

/// Check the options as a whole and decide what to create.
pub(super) fn decide(o: &zt_writer_options) -> Result<Settings, Fail> {
    let level = zstd_level(o.compression_level, "`compression_level` is out of range (-131072..=22)")?;
    if o.canonical > 2 {
        return Err(refuse("`canonical` is not a zt_canonical"));
    }
    if o.digest > 4 {
        return Err(refuse("`digest` is not a zt_writer_digest"));
    }
    if o.compression > 2 {
        return Err(refuse("`compression` is not ZT_ENCODING_RAW, ZT_ENCODING_ZSTD or ZT_ENCODING_ZSTD_SEEKABLE"));
    }
    if o.compression == 0 && (o.compression_level != 0 || o.frame_size != 0) {
        return Err(refuse("`compression_level` and `frame_size` need `compression`"));
    }
    match o.format_version {
        1 => v1(o, level),
        0 | 2 => v2(o, level),
        _ => Err(refuse("`format_version` is not a zt_format_version")),
    }
}

fn v1(o: &zt_writer_options, level: i32) -> Result<Settings, Fail> {
    if o.canonical == 1 {
        return Err(refuse("canonical form is a format v2 option (v1.2 has none)"));
    }
    if o.alignment != 0 {
        return Err(refuse("`alignment` is a format v2 option (v1.2 aligns every blob to 64 bytes)"));
    }
    if o.shard_size != 0 {
        return Err(refuse("`shard_size` is a format v2 option (v1.2 writes one file)"));
    }
    if o.frame_size != 0 {
        return Err(refuse("`frame_size` is for v2's zstd-seekable; v1.2 writes one zstd frame per component"));
    }
    let checksum = match o.digest {
        0 => Checksum::Crc32c,
        1 => Checksum::None,
        3 => Checksum::Sha256,
        4 => Checksum::Crc32c,
        _ => return Err(refuse("`digest` ZT_WRITER_DIGEST_XXH3 is a format v2 digest (v1.2: sha256, crc32c)")),
    };
    let compression = match (o.compression, level) {
        (0, _) => Compression::Raw,
        (1, 0) => Compression::ZSTD,
        (1, l) => Compression::Zstd(l),
        _ => {
            return Err(refuse(
                "`compression` ZT_ENCODING_ZSTD_SEEKABLE is a format v2 encoding (v1.2: ZT_ENCODING_ZSTD)",
            ))
        }
    };
    Ok(Settings::V1(V1Defaults { compression, checksum }))
}

fn v2(o: &zt_writer_options, level: i32) -> Result<Settings, Fail> {
    let digest = match o.digest {
        0 | 2 => DigestAlg::Xxh3,
        1 => DigestAlg::None,
        3 => DigestAlg::Sha256,
        _ => return Err(refuse("`digest` ZT_WRITER_DIGEST_CRC32C is a v1.2 digest (v2: xxh3, sha256, none)")),
    };
    let encoding = match o.compression {
        0 => Encoding::Raw,
        2 => {
            if o.frame_size as u64 > ztensor_core::v2::seekable::MAX_FRAME {
                return Err(refuse("`frame_size` is over 16 MiB"));
            }
            seekable(level, o.frame_size)
        }
        _ => {
            return Err(refuse("`compression` ZT_ENCODING_ZSTD is v1.2's: v2 compresses as ZT_ENCODING_ZSTD_SEEKABLE"))
        }
    };
    let plain = o.alignment == 0 && matches!(o.digest, 0 | 2) && o.compression == 0 && o.shard_size == 0;
    let canonical = match o.canonical {
        0 => plain,
        1 => {
            if o.alignment != 0 && o.alignment != CANONICAL_ALIGN {
                return Err(refuse(
                    "canonical form places blobs at 64 KiB boundaries: leave `alignment` 0 or set canonical NO",
                ));
            }
            if !matches!(o.digest, 0 | 2) {
                return Err(refuse("canonical form puts xxh3 digests on every part: `digest` must be DEFAULT or XXH3"));
            }
            if o.compression != 0 {
                return Err(refuse("canonical form stores parts raw: no `compression`"));
            }
            if o.shard_size != 0 {
                return Err(refuse("canonical form is a single file: no `shard_size`"));
            }
            true
        }
        _ => false,
    };
    let opts = if canonical {
        Options::canonical()
    } else {
        let align = if o.alignment == 0 { ztensor_core::v2::container::BLOB_ALIGN } else { o.alignment };
        if !is_valid_align(align) {
            return Err(refuse("`alignment` must be a power of two from 4096 to 1 GiB (1073741824)"));
        }
        let opts = Options::non_canonical(align).digest(digest);
        if o.shard_size != 0 {
            opts.shards(o.shard_size)
        } else {
            opts
        }
    };
    Ok(Settings::V2 { opts, defaults: V2Defaults { digest, encoding, canonical }, sharded: o.shard_size != 0 })
}
