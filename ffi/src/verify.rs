//! Deep verification of a whole file: `zt_verify`.

use crate::guard::{guard, Detail, Fail, Phase};
use crate::handle::{handle, zt_file};
use crate::zt_status;
#[cfg(feature = "std")]
use ztensor_core::fs::{Mode, Reader};
use ztensor_core::{Error as CoreError, ErrorKind, File};

/// `zt_verify` flag: check every component's digest (stored bytes).
pub const ZT_VERIFY_DIGESTS: u32 = 1;
/// `zt_verify` flag: check every component's data (decodes to its declared
/// length; sparse indices in range; bool bytes are 0 or 1).
pub const ZT_VERIFY_DATA: u32 = 2;
/// `zt_verify` flags: everything (the same as passing 0).
pub const ZT_VERIFY_ALL: u32 = 3;

/// Deep check of the whole file, O(data): with `ZT_VERIFY_DIGESTS`, every
/// component's digest over its stored bytes (an unknown algorithm is
/// skipped, not an error); with `ZT_VERIFY_DATA`, every component decodes
/// to its declared length and the format's rules hold for the values (CSR
/// `indptr` monotone and within bounds, COO coordinates inside the shape,
/// bool bytes 0 or 1). `flags = 0` means `ZT_VERIFY_ALL`.
///
/// `ZT_OK` when nothing is wrong. Otherwise the status of the first
/// problem (`ZT_ERR_DIGEST_MISMATCH`, `ZT_ERR_CORRUPT_DATA`,
/// `ZT_ERR_FORMAT` for a malformed digest, `ZT_ERR_IO`) and
/// `zt_last_error()` says how many problems there are and what the first is.
/// In positional mode the file is memory-mapped for the duration of the
/// call (after checking it is still the file that was opened; if it changed,
/// `ZT_ERR_IO`); where it cannot be mapped, digests and decoded lengths are
/// checked through positional reads and the sparse/bool value rules are not.
///
/// Ownership: nothing to free; buffers used for decoding are the library's
/// and released before returning. Thread-safety: safe on a shared handle.
///
/// # Safety
/// `file` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn zt_verify(file: *const zt_file, flags: u32) -> zt_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let h = unsafe { handle(file)? };
        if flags & !ZT_VERIFY_ALL != 0 {
            return Err(Fail::invalid("unknown `zt_verify` flag"));
        }
        let flags = if flags == 0 { ZT_VERIFY_ALL } else { flags };
        verify(h, flags & ZT_VERIFY_DIGESTS != 0, flags & ZT_VERIFY_DATA != 0)
    })
}

/// Problems found by a verification: how many, and the first.
#[derive(Default)]
struct Problems {
    count: usize,
    first: Option<(zt_status, CoreError)>,
}

impl Problems {
    fn report(&mut self, f: Fail, object: &str) {
        self.count += 1;
        if self.first.is_none() {
            let e = match f.detail {
                Detail::Core(e) => e.in_object(object),
                _ => CoreError::new(ErrorKind::Io).in_object(object),
            };
            self.first = Some((f.status, e));
        }
    }

    fn into_result(self) -> Result<(), Fail> {
        match self.first {
            None => Ok(()),
            Some((status, first)) => Err(Fail { status, detail: Detail::Verify { count: self.count, first } }),
        }
    }
}

fn verify(h: &zt_file, digests: bool, data: bool) -> Result<(), Fail> {
    #[cfg(feature = "std")]
    if let Some(path) = h.positional_path() {
        // The data rules need the component bytes side by side: map the file
        // for the duration of the check, after making sure it is the same.
        if let Ok(mapped) = Reader::open_with(path, Mode::Mmap) {
            let (a, b) = (mapped.file(), h.file());
            if a.tail() != b.tail() || a.manifest_bytes() != b.manifest_bytes() {
                return Err(Fail::with(zt_status::ZT_ERR_IO, "the file changed on disk since it was opened"));
            }
            return verify_file(a, digests, data);
        }
        return verify_positional(h, digests, data);
    }
    verify_file(h.file(), digests, data)
}

/// Verify a file whose bytes are in memory (mapped or lent).
fn verify_file(file: &File<'_>, digests: bool, data: bool) -> Result<(), Fail> {
    let mut p = Problems::default();
    for o in file.objects() {
        if digests {
            for c in o.components() {
                if let Err(e) = c.verify_digest() {
                    p.report(Fail::core(e, Phase::Data), o.name());
                }
            }
        }
        if data {
            if let Err(e) = o.check_data() {
                p.report(Fail::core(e, Phase::Data), o.name());
            }
        }
    }
    p.into_result()
}

/// Verify through positional reads (when the file cannot be mapped):
/// digests, and that every component decodes to its declared length.
#[cfg(feature = "std")]
fn verify_positional(h: &zt_file, digests: bool, data: bool) -> Result<(), Fail> {
    use ztensor_core::digest::Digest;
    let mut p = Problems::default();
    for o in h.file().objects() {
        for c in o.components() {
            if let (true, Some(d)) = (digests, c.digest()) {
                match Digest::parse(d) {
                    Err(e) => p.report(Fail::core(e.in_component(c.role()), Phase::Data), o.name()),
                    Ok(d) => match h.read_stored(&c) {
                        Err(f) => p.report(f, o.name()),
                        Ok(bytes) if d.matches(&bytes) == Some(false) => {
                            let e = CoreError::new(ErrorKind::DigestMismatch).in_component(c.role());
                            p.report(Fail::core(e, Phase::Data), o.name());
                        }
                        Ok(_) => {}
                    },
                }
            }
            if data {
                match h.to_vec(&c) {
                    Err(f) => p.report(f, o.name()),
                    Ok(v) => {
                        if let Some(n) = c.decoded_len().filter(|&n| n != v.len() as u64) {
                            let kind = ErrorKind::LengthMismatch { expected: n, actual: v.len() as u64 };
                            p.report(Fail::core(CoreError::new(kind).in_component(c.role()), Phase::Data), o.name());
                        }
                    }
                }
            }
        }
    }
    p.into_result()
}
