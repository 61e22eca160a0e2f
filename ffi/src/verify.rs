//! Deep verification of a whole file: `zt_verify`, `zt_verify_report`,
//! over the core's one verification (`File::verify_with` / `verify_from`).

use crate::guard::{guard, Detail, Fail};
use crate::handle::{arg, handle, put_opt, zt_file};
use crate::{zt_status, zt_verify_counts, ZT_VERIFY_ALL, ZT_VERIFY_DIGESTS, ZT_VERIFY_DATA, ZT_VERIFY_STRICT,
    ZT_VERIFY_ALLOW_UNVERIFIABLE};
use ztensor_core::verify::{Options, Report};

/// Deep check of the whole file, O(data): with `ZT_VERIFY_DIGESTS`, every
/// component's digest as `zt_component_verify` checks it (v1.x: over the
/// stored bytes; v2: over the decoded bytes, a seekable part a frame at a
/// time) and, for a v2 file opened by path, the whole-file digest of every
/// shard of its table found beside it (a digest of an unknown
/// algorithm cannot be checked: it is counted, and is a problem unless
/// `ZT_VERIFY_ALLOW_UNVERIFIABLE`, so a file with a part that could not be
/// checked is never reported as verified); with
/// `ZT_VERIFY_DATA`, every component decodes to its declared length and the
/// format's rules hold for the values (CSR `indptr` monotone and within
/// bounds, COO coordinates inside the shape, bool bytes 0 or 1).
/// `flags = 0` means `ZT_VERIFY_ALL` (digests and data, unverifiable
/// digests are problems). `ZT_VERIFY_STRICT` is accepted and is the
/// default; it is refused with `ZT_VERIFY_ALLOW_UNVERIFIABLE`
/// (`ZT_ERR_INVALID_ARGUMENT`).
///
/// `ZT_OK` when nothing is wrong. Otherwise the status of the first
/// problem (`ZT_ERR_DIGEST_MISMATCH`, `ZT_ERR_CORRUPT_DATA`,
/// `ZT_ERR_FORMAT` for a malformed digest, `ZT_ERR_UNSUPPORTED` for a
/// digest of an unknown algorithm (not checked: the file opens and reads,
/// but is not verified; with `ZT_VERIFY_ALLOW_UNVERIFIABLE` such a digest is
/// only counted and the status may be `ZT_OK`), `ZT_ERR_IO`) and
/// `zt_last_error()` says how many problems there are and what the first is
/// (for an unverifiable digest: its object and component).
/// The file checked is the one the handle reads: in positional mode its
/// bytes are read through the handle's descriptor (never re-opened by path,
/// never mapped: a file truncated meanwhile gives `ZT_ERR_IO`).
///
/// Ownership: nothing to free; buffers used for decoding are the library's
/// and released before returning. Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn zt_verify(file: *const zt_file, flags: u32) -> zt_status {
    arg!(zt_verify_report(file, flags, core::ptr::null_mut()))
}

/// `zt_verify`, and what it looked at: `*counts` (when `counts` is not NULL)
/// receives the numbers of objects, components, checked and unverifiable
/// digests and problems, also when the status is not `ZT_OK` (zeroed when
/// the arguments are refused). An engine that requires every digest to be
/// checked needs nothing more (unverifiable digests are problems by
/// default); with `ZT_VERIFY_ALLOW_UNVERIFIABLE` it tests
/// `counts.unverifiable == 0`.
///
/// Ownership: nothing to free. Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` NULL or live; `counts` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn zt_verify_report(
    file: *const zt_file,
    flags: u32,
    counts: *mut zt_verify_counts,
) -> zt_status {
    guard(|| {
        let zero = zt_verify_counts { objects: 0, components: 0, digests_checked: 0, unverifiable: 0, problems: 0 };
        arg!(put_opt(counts, zero));
        let h = arg!(handle(file))?;
        if flags & !(ZT_VERIFY_ALL | ZT_VERIFY_STRICT | ZT_VERIFY_ALLOW_UNVERIFIABLE) != 0 {
            return Err(Fail::invalid("unknown `zt_verify` flag"));
        }
        let allow = flags & ZT_VERIFY_ALLOW_UNVERIFIABLE != 0;
        if allow && flags & ZT_VERIFY_STRICT != 0 {
            return Err(Fail::invalid("`ZT_VERIFY_STRICT` with `ZT_VERIFY_ALLOW_UNVERIFIABLE`"));
        }
        let checks = if flags & ZT_VERIFY_ALL == 0 { ZT_VERIFY_ALL } else { flags };
        let options = Options {
            digests: checks & ZT_VERIFY_DIGESTS != 0,
            data: checks & ZT_VERIFY_DATA != 0,
            strict: !allow,
        };
        let r = h.verify(options);
        let c = zt_verify_counts {
            objects: r.objects,
            components: r.components,
            digests_checked: r.digests_checked,
            unverifiable: r.unverifiable,
            problems: r.problems,
        };
        arg!(put_opt(counts, c));
        into_result(r)
    })
}

/// `Ok` when the report found nothing; else the first problem's status and
/// a message with the count.
fn into_result(r: Report) -> Result<(), Fail> {
    match r.first_problem {
        None => Ok(()),
        Some(first) => {
            let status = crate::guard::status_of(first.kind(), crate::guard::Phase::Data);
            Err(Fail { status, detail: Detail::Verify { count: r.problems, first } })
        }
    }
}
