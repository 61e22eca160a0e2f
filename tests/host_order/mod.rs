//! Zero-copy views and typed reads, asserted the same way on any host.
//!
//! A zero-copy view of multi-byte elements exists only on a little-endian
//! host (the spec stores little-endian elements); a big-endian host (s390x,
//! `scripts/test-s390x.sh`) must refuse it with the byte-order reason. The
//! typed (decoded) reads work everywhere, so they are checked on every host
//! against the stored bytes, and against the view where there is one.
#![allow(dead_code)] // each test file uses its own part

use zerocopy::IntoBytes;
use ztensor::{Component, Element, Encoding, Endian, ErrorKind, Result};

/// Why a zero-copy view of multi-byte elements is refused on a big-endian host.
pub const NOT_HOST_ORDER_REASON: &str = "elements are not in host byte order";

/// The refusal of a zero-copy view of multi-byte elements on a big-endian host.
pub const NOT_HOST_ORDER: ErrorKind = ErrorKind::NotZeroCopy { reason: NOT_HOST_ORDER_REASON };

/// Whether this host can view `T` elements of a little-endian file without copying.
pub fn host_can_view<T>() -> bool {
    cfg!(target_endian = "little") || core::mem::size_of::<T>() == 1
}

/// A zero-copy view (`Component::as_slice` or an accessor built on it) as
/// this host must answer it: the view itself (it must succeed) where the host
/// can have one, else the byte-order refusal (asserted) and `None`.
pub fn zero_copy<T>(view: Result<&[T]>) -> Option<&[T]> {
    if host_can_view::<T>() {
        Some(view.unwrap_or_else(|e| panic!("zero-copy view refused on this host: {e}")))
    } else {
        match view {
            Ok(_) => panic!("a big-endian host gave a zero-copy view of multi-byte elements"),
            Err(e) => assert_eq!(e.kind(), NOT_HOST_ORDER, "{e}"),
        }
        None
    }
}

/// `c` decoded as `T` by the typed paths: `read_elements` into two buffers
/// at different addresses and, with the `alloc` feature, `to_vec_of`, which
/// must agree; for a raw little-endian component, the elements must also be
/// its stored bytes, each byte-swapped on a big-endian host. (No `alloc`
/// needed: `tests/hostile.rs` also runs without it.)
pub fn typed_read<T: Element + IntoBytes + Default>(c: &Component<'_>) -> Vec<T> {
    let len = c.decoded_len().expect("a declared decoded size") as usize;
    let n = len / core::mem::size_of::<T>();
    let mut v = vec![T::default(); n];
    assert_eq!(c.read_elements(&mut v).unwrap_or_else(|e| panic!("typed read: {e}")), n);
    let mut shifted = vec![T::default(); n + 1];
    assert_eq!(c.read_elements(&mut shifted[1..]).unwrap(), n);
    assert_eq!(shifted[1..].as_bytes(), v.as_bytes(), "read_elements gave different elements at another address");
    #[cfg(feature = "alloc")]
    assert_eq!(c.to_vec_of::<T>().unwrap().as_bytes(), v.as_bytes(), "read_elements and to_vec_of disagree");
    if c.encoding() == Encoding::Raw && c.endian() == Endian::Little {
        let mut le = v.as_bytes().to_vec();
        if cfg!(target_endian = "big") {
            le.chunks_exact_mut(core::mem::size_of::<T>()).for_each(<[u8]>::reverse);
        }
        assert_eq!(le, c.stored_bytes().unwrap(), "typed elements are not the stored little-endian ones");
    }
    v
}

/// [`typed_read`], plus the zero-copy view of a raw component in aligned
/// memory: on hosts that have it, the same elements as the typed read.
pub fn typed_read_and_view<T: Element + IntoBytes + Default>(c: &Component<'_>) -> Vec<T> {
    let v = typed_read::<T>(c);
    if let Some(view) = zero_copy(c.as_slice::<T>()) {
        assert_eq!(view.as_bytes(), v.as_bytes(), "zero-copy view and typed read disagree");
    }
    v
}
