//! Whole-model load: `zt_load` (issue #33), over the core's `load`.

use crate::args::{arg, bytes_arg};
use crate::guard::{guard, Fail, Phase};
use crate::handle::{handle, not_found, object, zt_file};
use crate::{zt_object, zt_status};
use core::ffi::{c_char, c_uint, c_void};
use core::ptr::{addr_of, addr_of_mut};
use ztensor_core::load::Request;

/// `zt_load` flag: skip digest checks (for a file verified already, as
/// `ZT_READ_NO_VERIFY` at open does for every read of the handle).
pub const ZT_LOAD_NO_VERIFY: u32 = 1;

/// One part for `zt_load` to decode into the caller's buffer.
#[repr(C)]
pub struct zt_load_request {
    /// The object, from `zt_find` / `zt_object_at` on the same handle.
    pub object: zt_object,
    /// The component (v2: part) name, `role_len` bytes.
    pub role: *const c_char,
    /// Length of `role` in bytes, or `ZT_NUL_TERMINATED`.
    pub role_len: usize,
    /// Receives the decoded bytes (little-endian elements, as
    /// `zt_component_read` writes them).
    pub dst: *mut c_void,
    /// Must equal the decoded size (`zt_component`'s `decoded_length`).
    pub dst_len: usize,
    /// Out: this request's result.
    pub status: zt_status,
}

/// Decode the parts `reqs[0..n]` name into their buffers, on `threads`
/// worker threads (the calling one among them; 0: one per core of the
/// machine). Large raw parts are read in pieces and `zt.zstd-seekable/1`
/// parts in runs of whole frames, spread over the workers, largest first.
/// Every part with a digest is checked as it is read (see
/// `ZT_READ_NO_VERIFY`), unless `flags` has `ZT_LOAD_NO_VERIFY` or the
/// handle was opened with `ZT_READ_NO_VERIFY`. Works on every handle:
/// mapped, positional (`ZT_OPEN_POSITIONAL`), in memory; v2 parts in
/// shards are read from their shards.
///
/// Each request's `status` is set. A request fails alone: an unknown role
/// (`ZT_ERR_NOT_FOUND`), a `dst_len` other than the decoded size
/// (`ZT_ERR_BUFFER_TOO_SMALL` below it, `ZT_ERR_INVALID_ARGUMENT` above),
/// a `dst` that is NULL with a nonzero `dst_len` or overlaps the `dst` of
/// another request (`ZT_ERR_INVALID_ARGUMENT`, each of them), a corrupt
/// part (`ZT_ERR_DIGEST_MISMATCH`, `ZT_ERR_CORRUPT_DATA`, `ZT_ERR_FORMAT`),
/// a failed read (`ZT_ERR_IO`); the others complete. Two requests may name
/// the same part (with buffers of their own). A failed request's `dst` may
/// hold part of the data.
///
/// Returns `ZT_OK` when every request succeeded, else the status of the
/// first failed one in request order, whose message (naming the object and
/// part) is `zt_last_error()`'s. `ZT_ERR_INVALID_ARGUMENT` for a NULL
/// `file`, a NULL `reqs` with `n > 0` or an unknown flag (then every
/// request's `status` says so, when `reqs` is not NULL).
///
/// Ownership: the caller owns `reqs` and the buffers; nothing is kept.
/// Thread-safety: safe on a shared handle; the buffers must not be touched
/// by others during the call.
///
/// # Safety
/// `file` NULL or live; `reqs` NULL or valid for reading and writing `n`
/// requests, each with `role` valid for `role_len` bytes (or
/// NUL-terminated) and `dst` NULL or writable for `dst_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn zt_load(
    file: *const zt_file,
    reqs: *mut zt_load_request,
    n: usize,
    threads: c_uint,
    flags: u32,
) -> zt_status {
    guard(|| {
        if reqs.is_null() && n > 0 {
            return Err(Fail::invalid("`reqs` is NULL"));
        }
        if n > isize::MAX as usize / core::mem::size_of::<zt_load_request>() {
            return Err(Fail::invalid("`n` is too large"));
        }
        // Statuses are written through raw pointers: the caller's `status`
        // fields may hold anything, which a reference to a request must not.
        // SAFETY: `reqs` is valid for `n` requests, by the caller's contract.
        let set = |i: usize, s: zt_status| unsafe { addr_of_mut!((*reqs.add(i)).status).write(s) };
        let early = |f: Fail| {
            (0..n).for_each(|i| set(i, f.status));
            Err(f)
        };
        let h = match arg!(handle(file)) {
            Ok(h) => h,
            Err(f) => return early(f),
        };
        if flags & !ZT_LOAD_NO_VERIFY != 0 {
            return early(Fail::invalid("unknown `zt_load` flag"));
        }
        let mut fails: Vec<Option<Fail>> = (0..n).map(|i| arg!(check(reqs, i)).err()).collect();
        // Requests whose buffers overlap fail (before any slice is made of
        // them): two workers would write the same bytes. Sorted by start, a
        // buffer overlaps another when it starts before an earlier one ends
        // or ends after the next one starts.
        let mut spans: Vec<(usize, usize, usize)> = (0..n)
            .filter(|&i| fails[i].is_none())
            // SAFETY: as above.
            .map(|i| unsafe { (addr_of!((*reqs.add(i)).dst).read() as usize, addr_of!((*reqs.add(i)).dst_len).read(), i) })
            .filter(|&(_, len, _)| len > 0)
            .collect();
        spans.sort_unstable();
        let mut reach = 0;
        for (k, &(start, len, i)) in spans.iter().enumerate() {
            let next = spans.get(k + 1).map_or(usize::MAX, |s| s.0);
            if (k > 0 && start < reach) || start + len > next {
                fails[i] = Some(Fail::invalid("`dst` overlaps the `dst` of another request"));
            }
            reach = reach.max(start + len);
        }
        let mut requests = Vec::with_capacity(n);
        let mut which = Vec::with_capacity(n);
        for i in 0..n {
            if fails[i].is_some() {
                continue;
            }
            // SAFETY: the caller's contract; `dst` checked and disjoint from the others'.
            match unsafe { request(h, reqs, i) } {
                Ok(r) => {
                    requests.push(r);
                    which.push(i);
                }
                Err(f) => fails[i] = Some(f),
            }
        }
        let threads = usize::try_from(threads).unwrap_or(usize::MAX);
        let results = h.load(&mut requests, threads, flags & ZT_LOAD_NO_VERIFY == 0);
        for (i, r) in which.into_iter().zip(results) {
            fails[i] = r.err().map(|e| Fail::fs(e, Phase::Data));
        }
        let mut first = None;
        for (i, f) in fails.into_iter().enumerate() {
            set(i, f.as_ref().map_or(zt_status::ZT_OK, |f| f.status));
            first = first.or(f);
        }
        first.map_or(Ok(()), Err)
    })
}

/// Request `i`'s buffer: NULL only when empty, at most `PTRDIFF_MAX` bytes.
///
/// # Safety
/// `reqs` is valid for reading request `i`.
unsafe fn check(reqs: *const zt_load_request, i: usize) -> Result<(), Fail> {
    // SAFETY: the caller's contract.
    let (dst, len) = unsafe { (addr_of!((*reqs.add(i)).dst).read(), addr_of!((*reqs.add(i)).dst_len).read()) };
    if dst.is_null() && len > 0 {
        return Err(Fail::invalid("`dst` is NULL"));
    }
    if len > isize::MAX as usize {
        return Err(Fail::invalid("`dst_len` is over PTRDIFF_MAX"));
    }
    Ok(())
}

/// Request `i` for the core: its object, role and buffer.
///
/// # Safety
/// `reqs` is valid for reading request `i`, whose `role` is valid for
/// `role_len` bytes (or NUL-terminated) and whose `dst` passed [`check`],
/// is writable for `dst_len` bytes and used by no other request.
unsafe fn request<'f>(h: &'f zt_file, reqs: *const zt_load_request, i: usize) -> Result<Request<'f>, Fail> {
    // SAFETY: the caller's contract: request `i` is readable (its fields
    // read one by one, its `status` may hold anything).
    let (obj, role, role_len, dst, len) = unsafe {
        let p = reqs.add(i);
        let (dst, len) = (addr_of!((*p).dst).read(), addr_of!((*p).dst_len).read());
        (addr_of!((*p).object).read(), addr_of!((*p).role).read(), addr_of!((*p).role_len).read(), dst, len)
    };
    let o = object(h, &obj)?;
    let role = arg!(bytes_arg(role, role_len, "`role` is NULL"))?;
    let role = core::str::from_utf8(role).map_err(|_| not_found(Some(o.name()), Some(role)))?;
    // SAFETY: writable for `len` bytes and not aliased, by the caller's contract.
    let dst: &mut [u8] = if len == 0 { &mut [] } else { unsafe { core::slice::from_raw_parts_mut(dst.cast(), len) } };
    Ok(Request { object: o, role, dst })
}
