//! What the C ABI tests for Miri share (`main.rs`, the full library;
//! `no_heap.rs`, the no-heap builds): small fixture files, a handle
//! opened as the build opens one, statuses and messages checked, and
//! buffers of exactly the size a call may write (so that one byte more is
//! an out-of-bounds write Miri reports).
#![allow(dead_code)]

use core::ffi::c_char;
use core::marker::PhantomData;
use core::ptr::NonNull;
use ztensor::*;

pub use zt_status::*;

/// `ZT_NUL_TERMINATED`, short.
pub const NUL: usize = ZT_NUL_TERMINATED;

// Fixtures written by the reference implementation (tests/fixtures/NOTES.md).
/// v1.2: a CSR matrix and dense objects with none, empty and many attributes.
pub static ATTRIBUTES: &[u8] = include_bytes!("../../../tests/fixtures/v1.2/attributes.zt");
/// v1.2: CRC-32C and SHA-256 digests, one component without (`none_u8`).
pub static CHECKSUMS: &[u8] = include_bytes!("../../../tests/fixtures/v1.2/checksums.zt");
/// v1.2: scalars (no dimensions) and zero-size components.
pub static SCALARS: &[u8] = include_bytes!("../../../tests/fixtures/v1.2/scalars_zero_size.zt");
/// v1.2: zstd-compressed components.
pub static ZSTD: &[u8] = include_bytes!("../../../tests/fixtures/v1.2/zstd.zt");

/// A v1.2 file of dense one-byte `u8` objects called `names` (fewer than
/// 24 bytes each), all on one blob (as tied weights may be).
pub fn named_objects(names: &[&[u8]]) -> Vec<u8> {
    fn text(m: &mut Vec<u8>, s: &[u8]) {
        m.push(0x60 + u8::try_from(s.len()).unwrap());
        m.extend(s);
    }
    let mut m = vec![0xa2];
    text(&mut m, b"version");
    text(&mut m, b"1.2.0");
    text(&mut m, b"objects");
    m.push(0xa0 + u8::try_from(names.len()).unwrap());
    for name in names {
        text(&mut m, name);
        m.extend([0xa3, 0x65]);
        m.extend(b"shape\x81\x01\x66format\x65dense\x6acomponents\xa1\x64data\xa3");
        m.extend(b"\x65dtype\x62u8\x66offset\x18\x40\x66length\x01");
    }
    let mut f = b"ZTEN1000".to_vec();
    f.resize(64, 0);
    f.push(42);
    f.extend(&m);
    f.extend((m.len() as u64).to_le_bytes());
    f.extend(b"ZTEN1000");
    f
}

/// The calling thread's `zt_last_error()`.
pub fn last_error() -> String {
    // SAFETY: a NUL-terminated string of the library.
    unsafe { std::ffi::CStr::from_ptr(zt_last_error()) }.to_string_lossy().into_owned()
}

/// `got` is `want`, and when it is a failure, the message says `says`.
#[track_caller]
pub fn expect(got: zt_status, want: zt_status, says: &str) {
    let msg = last_error();
    assert_eq!(got, want, "last error: {msg}");
    if want != ZT_OK {
        assert!(msg.contains(says), "{msg:?} does not say {says:?}");
    }
}

/// `ZT_ERR_INVALID_ARGUMENT`, the message saying `says`.
#[track_caller]
pub fn invalid(got: zt_status, says: &str) {
    expect(got, ZT_ERR_INVALID_ARGUMENT, says);
}

#[track_caller]
pub fn ok(got: zt_status) {
    expect(got, ZT_OK, "");
}

/// A C struct of the header, all zero (pointers NULL, enums at 0).
pub fn zeroed<T>() -> T {
    // SAFETY: used only for the header's structs of integers, floats,
    // bools, pointers and enums that have a 0 variant.
    unsafe { core::mem::zeroed() }
}

/// A C struct of the header with every byte 0xA5: what an out-parameter
/// holds before a call, so that "zeroed on failure" can be seen. Only for
/// structs without bools or enums (whose 0xA5 bytes would be invalid).
pub fn garbage<T>() -> T {
    let mut v = core::mem::MaybeUninit::<T>::uninit();
    // SAFETY: every byte written; the caller's T takes any bytes.
    unsafe {
        v.as_mut_ptr().cast::<u8>().write_bytes(0xa5, core::mem::size_of::<T>());
        v.assume_init()
    }
}

/// A string argument: pointer and length.
pub fn s(x: &[u8]) -> (*const c_char, usize) {
    (x.as_ptr().cast(), x.len())
}

/// A pointer that is not NULL and must not be dereferenced: what an
/// out-parameter holds before a call that must set it.
pub fn dangling<T>() -> *mut T {
    NonNull::dangling().as_ptr()
}

/// The bytes at `p` (`n` of them), borrowed from the file.
///
/// # Safety
/// `p` is valid for `n` bytes.
pub unsafe fn bytes_at<'a>(p: *const c_char, n: usize) -> &'a [u8] {
    if n == 0 {
        return &[];
    }
    // SAFETY: the caller's contract.
    unsafe { core::slice::from_raw_parts(p.cast(), n) }
}

/// Whether `p .. p + n` lies inside `file`: a pointer borrowed from it.
pub fn inside(file: &[u8], p: *const c_char, n: usize) -> bool {
    let (start, at) = (file.as_ptr() as usize, p as usize);
    at >= start && at + n <= start + file.len()
}

/// An open handle of this build, released (or its memory freed) on drop.
pub struct Handle<'a> {
    pub f: *mut zt_file,
    /// The no-heap builds' storage and slots, which stay in place.
    #[cfg(not(feature = "std"))]
    _memory: Memory,
    _bytes: PhantomData<&'a [u8]>,
}

impl Handle<'_> {
    pub fn ptr(&self) -> *const zt_file {
        self.f
    }
}

/// Open `bytes` as this build opens memory (`zt_open_mem`, or
/// `zt_open_mem_into` with a slot per object), or the status; `*out`
/// must be NULL after a failure and set after success.
pub fn try_open(bytes: &[u8]) -> Result<Handle<'_>, zt_status> {
    let mut f = dangling();
    #[cfg(feature = "std")]
    // SAFETY: `bytes` outlives the handle.
    let status = unsafe { zt_open_mem(bytes.as_ptr(), bytes.len(), &mut f) };
    #[cfg(not(feature = "std"))]
    let (status, memory) = {
        let mut m = Memory {
            storage: Box::into_raw(Box::new(zeroed())),
            slots: (0..64).map(|_| zt_slot { words: [0; 2] }).collect(),
        };
        // SAFETY: the bytes, storage and slots outlive the handle, in place.
        let s = unsafe { zt_open_mem_into(bytes.as_ptr(), bytes.len(), m.storage, m.slots.as_mut_ptr(), 64, &mut f) };
        (s, m)
    };
    assert_eq!(f.is_null(), status != ZT_OK, "`*out` is set exactly on success");
    if status != ZT_OK {
        return Err(status);
    }
    Ok(Handle {
        f,
        #[cfg(not(feature = "std"))]
        _memory: memory,
        _bytes: PhantomData,
    })
}

#[track_caller]
pub fn open(bytes: &[u8]) -> Handle<'_> {
    try_open(bytes).unwrap_or_else(|s| panic!("open: {s:?}: {}", last_error()))
}

/// A no-heap handle's memory. The storage is held by a raw pointer, not a
/// `Box`: moving a `Box` asserts it is the only way to its memory, which
/// the handle (a pointer into it) is not, by Miri's aliasing rules.
#[cfg(not(feature = "std"))]
struct Memory {
    storage: *mut zt_file_storage,
    slots: Vec<zt_slot>,
}

#[cfg(not(feature = "std"))]
impl Drop for Memory {
    fn drop(&mut self) {
        // SAFETY: from `Box::into_raw`; the handle in it is not used again.
        drop(unsafe { Box::from_raw(self.storage) });
    }
}

#[cfg(feature = "std")]
impl Drop for Handle<'_> {
    fn drop(&mut self) {
        // SAFETY: a live handle, not used afterwards.
        unsafe { zt_close(self.f) }
    }
}

/// The object called `name` in `h`.
#[track_caller]
pub fn find(h: &Handle<'_>, name: &[u8]) -> zt_object {
    find_in(h.ptr(), name)
}

/// The object called `name` in the live handle `f`.
#[track_caller]
pub fn find_in(f: *const zt_file, name: &[u8]) -> zt_object {
    let mut o = zt_object { index: usize::MAX, owner: 0 };
    let (p, n) = s(name);
    // SAFETY: pointers valid for the call.
    ok(unsafe { zt_find(f, p, n, &mut o) });
    o
}

/// `bytes` copied to an address one past a multiple of 8 (the data of a
/// file at an odd address: nothing in it is aligned for its type).
pub struct Shifted {
    buf: Vec<u64>,
    len: usize,
}

impl Shifted {
    pub fn new(bytes: &[u8]) -> Shifted {
        let mut buf = vec![0u64; bytes.len() / 8 + 2];
        let all = unsafe { core::slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<u8>(), buf.len() * 8) };
        all[1..=bytes.len()].copy_from_slice(bytes);
        Shifted { buf, len: bytes.len() }
    }

    pub fn bytes(&self) -> &[u8] {
        // SAFETY: within `buf` (one byte in, `len` bytes).
        unsafe { core::slice::from_raw_parts(self.buf.as_ptr().cast::<u8>().add(1), self.len) }
    }
}

/// `bytes` with the byte at `at` flipped.
pub fn flipped(bytes: &[u8], at: usize) -> Vec<u8> {
    let mut v = bytes.to_vec();
    v[at] ^= 0x01;
    v
}
