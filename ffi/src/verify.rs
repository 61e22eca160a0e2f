//! Deep verification of a whole file: `zt_verify`, `zt_verify_report`,
//! over the core's one verification (`File::verify_with` / `verify_from`).

use crate::guard::{guard, Detail, Fail};
use crate::handle::{handle, put_opt, zt_file};
use crate::{zt_status, zt_verify_counts, ZT_VERIFY_ALL, ZT_VERIFY_DIGESTS, ZT_VERIFY_DATA, ZT_VERIFY_STRICT};
use ztensor_core::verify::{Options, Report};

/// Deep check of the whole file, O(data): with `ZT_VERIFY_DIGESTS`, every
/// component's digest over its stored bytes (an unknown algorithm is
/// counted and skipped, or a problem with `ZT_VERIFY_STRICT`); with
/// `ZT_VERIFY_DATA`, every component decodes to its declared length and the
/// format's rules hold for the values (CSR `indptr` monotone and within
/// bounds, COO coordinates inside the shape, bool bytes 0 or 1).
/// `flags = 0` means `ZT_VERIFY_ALL` (digests and data, not strict).
///
/// `ZT_OK` when nothing is wrong. Otherwise the status of the first
/// problem (`ZT_ERR_DIGEST_MISMATCH`, `ZT_ERR_CORRUPT_DATA`,
/// `ZT_ERR_FORMAT` for a malformed digest, `ZT_ERR_UNSUPPORTED` for an
/// unknown digest algorithm in strict mode, `ZT_ERR_IO`) and
/// `zt_last_error()` says how many problems there are and what the first is.
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
    // SAFETY: the caller's contract.
    unsafe { zt_verify_report(file, flags, core::ptr::null_mut()) }
}

/// `zt_verify`, and what it looked at: `*counts` (when `counts` is not NULL)
/// receives the numbers of objects, components, checked and unverifiable
/// digests and problems, also when the status is not `ZT_OK` (zeroed when
/// the arguments are refused). An engine that requires every digest to be
/// checked tests `counts.unverifiable == 0`, or passes `ZT_VERIFY_STRICT`.
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
        // SAFETY: the caller's contract, for every call below.
        unsafe { put_opt(counts, zero) };
        let h = unsafe { handle(file)? };
        if flags & !(ZT_VERIFY_ALL | ZT_VERIFY_STRICT) != 0 {
            return Err(Fail::invalid("unknown `zt_verify` flag"));
        }
        let checks = if flags & ZT_VERIFY_ALL == 0 { ZT_VERIFY_ALL } else { flags };
        let options = Options {
            digests: checks & ZT_VERIFY_DIGESTS != 0,
            data: checks & ZT_VERIFY_DATA != 0,
            strict: flags & ZT_VERIFY_STRICT != 0,
        };
        let r = h.verify(options);
        let c = zt_verify_counts {
            objects: r.objects,
            components: r.components,
            digests_checked: r.digests_checked,
            unverifiable: r.unverifiable,
            problems: r.problems,
        };
        unsafe { put_opt(counts, c) };
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
