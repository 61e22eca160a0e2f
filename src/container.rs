//! The container layer: magic numbers, footer, and where the manifest lies.
//!
//! Works from the whole file or from its tail alone, so that a reader can
//! list a file's objects without touching any tensor bytes.

use crate::error::{Error, ErrorKind, Result};

/// Header and footer magic of v1.x files.
pub const MAGIC_V1: [u8; 8] = *b"ZTEN1000";
/// Header magic of legacy v0.1 files (they have no footer magic).
pub const MAGIC_V0: [u8; 8] = *b"ZTEN0001";
/// Bytes of the header magic.
pub const HEADER_LEN: u64 = 8;
/// Bytes of the v1.x footer: manifest size (u64 LE) and magic.
pub const FOOTER_LEN: u64 = 16;
/// Every blob starts at a multiple of this.
pub const ALIGNMENT: u64 = 64;
/// Largest manifest accepted (spec: 1 GiB).
pub const MAX_MANIFEST_LEN: u64 = 1 << 30;

pub use crate::types::Layout;

/// A file whose header magic names `layout` but whose `len` bytes do not
/// end with that layout's footer ([`Error::truncated`] with this layer's
/// sizes: the smallest file, 17 bytes for v0.1/v1.x and v2 §2's 48, and
/// the footer's length).
pub(crate) const fn truncated(layout: Layout, len: u64) -> Error {
    match layout {
        Layout::V2 => Error::truncated(layout, len, crate::v2::container::MIN_FILE_LEN, crate::v2::container::FOOTER_LEN as u8),
        _ => Error::truncated(layout, len, HEADER_LEN + 9, FOOTER_LEN as u8),
    }
}

/// Bytes of the longest footer (v2's): pass at least this many of a file's
/// last bytes to [`Tail::from_footer`] when the version is not known yet.
pub const MAX_FOOTER_LEN: u64 = crate::v2::container::FOOTER_LEN;

/// Where the manifest lies in a file, learned from its last 16 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tail {
    /// Container generation.
    pub layout: Layout,
    /// Total file length.
    pub file_len: u64,
    /// Absolute offset of the manifest: blobs must end at or before it.
    pub manifest_offset: u64,
    /// Length of the manifest.
    pub manifest_len: u64,
}

impl Tail {
    /// Read the tail from the last `min(16, file_len)` bytes of a file of `file_len` bytes.
    ///
    /// A footer ending in `ZTEN1000` is a v1.x file; anything else is tried
    /// as v0.1 (size in the last 8 bytes). Without the header, a non-zTensor
    /// file is only told apart by its manifest failing to parse; use
    /// [`Tail::check_header`] when the first 8 bytes are at hand.
    pub fn from_footer(footer: &[u8], file_len: u64) -> Result<Tail> {
        Self::locate(footer, file_len, None)
    }

    /// `header`: the layout the header magic announced, when it was read;
    /// without it, a footer that is not `ZTEN1000` is only a guess at v0.1,
    /// and a bad size there means "not a zTensor file".
    fn locate(footer: &[u8], file_len: u64, header: Option<Layout>) -> Result<Tail> {
        if footer.ends_with(&crate::v2::container::MAGIC) && matches!(header, None | Some(Layout::V2)) {
            return Tail::v2(footer, file_len);
        }
        let Some(f) = footer.last_chunk::<16>().filter(|_| file_len >= HEADER_LEN + 9) else {
            return Err(Error::new(ErrorKind::FileTooSmall { len: file_len }));
        };
        let le = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
        let (layout, size, trailer) = match header {
            Some(Layout::V0) if f[8..] == MAGIC_V1 => return Err(Error::new(ErrorKind::MagicMismatch)),
            Some(Layout::V0) => (Layout::V0, le(&f[8..]), 8),
            _ if f[8..] == MAGIC_V1 => (Layout::V1, le(&f[..8]), FOOTER_LEN),
            // The header names a generation but its footer magic is gone:
            // truncated or corrupt.
            Some(l @ (Layout::V1 | Layout::V2)) => return Err(truncated(l, file_len)),
            None => (Layout::V0, le(&f[8..]), 8),
        };
        let guessed = layout == Layout::V0 && header.is_none();
        if size > MAX_MANIFEST_LEN {
            return Err(Error::new(if guessed { ErrorKind::BadMagic } else { ErrorKind::ManifestTooLarge { size } }));
        }
        // header + manifest + trailer must fit; checked arithmetic throughout.
        let need = HEADER_LEN + trailer + size;
        if need > file_len {
            return Err(Error::new(if guessed {
                ErrorKind::BadMagic
            } else {
                ErrorKind::ManifestOutOfBounds { size, file_len }
            }));
        }
        Ok(Tail { layout, file_len, manifest_offset: file_len - trailer - size, manifest_len: size })
    }

    /// Locate the manifest in a whole file, checking header and footer magic.
    pub fn from_file(bytes: &[u8]) -> Result<Tail> {
        let len = bytes.len() as u64;
        let header = bytes.get(..8).ok_or_else(|| Error::new(ErrorKind::FileTooSmall { len }))?;
        Self::from_header_and_footer(header, &bytes[bytes.len().saturating_sub(MAX_FOOTER_LEN as usize)..], len)
    }

    /// Locate the manifest from the file's first 8 bytes and its last
    /// `min(40, file_len)` bytes (16 suffice for v1.x; a v2 footer is 40),
    /// checking both magics: what a reader that reads by position knows.
    /// Unlike [`Tail::from_footer`], a file whose header is right but whose
    /// footer is gone is reported as such (a truncated file), not as "not a
    /// zTensor file".
    pub fn from_header_and_footer(header: &[u8], footer: &[u8], file_len: u64) -> Result<Tail> {
        let layout = match header.get(..8) {
            Some(h) if h == MAGIC_V1 => Layout::V1,
            Some(h) if h == MAGIC_V0 => Layout::V0,
            // v2 §2: the magic at offset 0 and at the end of the 40-byte footer.
            Some(h) if h == crate::v2::container::MAGIC => {
                let whole = file_len >= crate::v2::container::MIN_FILE_LEN && footer.ends_with(&crate::v2::container::MAGIC);
                return if whole || !READS_V2 { Tail::v2(footer, file_len) } else { Err(truncated(Layout::V2, file_len)) };
            }
            Some(_) => return Err(Error::new(ErrorKind::BadMagic)),
            None => return Err(Error::new(ErrorKind::FileTooSmall { len: file_len })),
        };
        if file_len < 17 {
            return Err(match layout {
                Layout::V1 => truncated(Layout::V1, file_len),
                _ => Error::new(ErrorKind::FileTooSmall { len: file_len }),
            });
        }
        let tail = Tail::locate(footer, file_len, Some(layout))?;
        match (layout, tail.layout) {
            (Layout::V1, Layout::V1) | (Layout::V0, Layout::V0) => Ok(tail),
            (Layout::V1, Layout::V0) => Err(Error::new(ErrorKind::BadMagic)),
            (Layout::V0, Layout::V1) => Err(Error::new(ErrorKind::MagicMismatch)),
            _ => Err(Error::new(ErrorKind::BadMagic)),
        }
    }

    /// A v2 tail from the file's last 40 bytes (a data shard: manifest length 0).
    fn v2(footer: &[u8], file_len: u64) -> Result<Tail> {
        use crate::v2::errors::{to_crate, Sizes};
        if !READS_V2 {
            // Refused here, so that the v2 footer's checks stay out of the build.
            return Err(Error::new(ErrorKind::UnsupportedVersion { major: 2 }));
        }
        let f = crate::v2::container::Footer::parse(footer, file_len).map_err(|e| to_crate(e, Sizes::of_footer(footer, file_len)))?;
        Ok(Tail { layout: Layout::V2, file_len, manifest_offset: f.manifest_offset, manifest_len: f.manifest_length })
    }

    /// Check the file's first 8 bytes against this tail's layout.
    pub fn check_header(&self, header: &[u8]) -> Result<()> {
        let want = match self.layout {
            Layout::V1 => MAGIC_V1,
            Layout::V0 => MAGIC_V0,
            Layout::V2 => crate::v2::container::MAGIC,
        };
        match header.get(..8) {
            Some(h) if h == want => Ok(()),
            Some(h) if h == MAGIC_V1 || h == MAGIC_V0 || h == crate::v2::container::MAGIC => {
                Err(Error::new(ErrorKind::MagicMismatch))
            }
            _ => Err(Error::new(ErrorKind::BadMagic)),
        }
    }

    /// Byte range of the manifest in the file.
    pub fn manifest_range(&self) -> core::ops::Range<u64> {
        self.manifest_offset..self.manifest_offset + self.manifest_len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate alloc;
    use alloc::format;
    use alloc::string::ToString;

    fn v1(manifest: &[u8], pad: usize) -> ([u8; 256], usize) {
        let mut f = [0u8; 256];
        f[..8].copy_from_slice(&MAGIC_V1);
        let m = 8 + pad;
        f[m..m + manifest.len()].copy_from_slice(manifest);
        let e = m + manifest.len();
        f[e..e + 8].copy_from_slice(&(manifest.len() as u64).to_le_bytes());
        f[e + 8..e + 16].copy_from_slice(&MAGIC_V1);
        (f, e + 16)
    }

    #[test]
    fn locates_v1_manifest() {
        let (f, n) = v1(&[0xa0], 56);
        let t = Tail::from_file(&f[..n]).unwrap();
        assert_eq!((t.layout, t.manifest_offset, t.manifest_len), (Layout::V1, 64, 1));
        assert_eq!(Tail::from_footer(&f[n - 16..n], n as u64).unwrap(), t);
    }

    #[test]
    fn rejects_bad_containers() {
        let (mut f, n) = v1(&[0xa0], 0);
        assert_eq!(Tail::from_file(&f[..7]).unwrap_err().kind(), ErrorKind::FileTooSmall { len: 7 });
        f[n - 1] = b'X';
        assert_eq!(Tail::from_file(&f[..n]).unwrap_err().kind(), ErrorKind::BadMagic);
        assert!(Tail::from_file(&f[..n]).unwrap_err().to_string().starts_with("truncated v1.x file"));
        let (mut f, n) = v1(&[0xa0], 0);
        f[0] = b'Q';
        assert_eq!(Tail::from_file(&f[..n]).unwrap_err().kind(), ErrorKind::BadMagic);
        let (mut f, n) = v1(&[0xa0], 0);
        f[n - 16..n - 8].copy_from_slice(&(MAX_MANIFEST_LEN + 1).to_le_bytes());
        assert_eq!(
            Tail::from_file(&f[..n]).unwrap_err().kind(),
            ErrorKind::ManifestTooLarge { size: MAX_MANIFEST_LEN + 1 }
        );
        f[n - 16..n - 8].copy_from_slice(&1000u64.to_le_bytes());
        assert_eq!(
            Tail::from_file(&f[..n]).unwrap_err().kind(),
            ErrorKind::ManifestOutOfBounds { size: 1000, file_len: n as u64 }
        );
        let (mut f, n) = v1(&[0xa0], 0);
        f[..8].copy_from_slice(&MAGIC_V0);
        assert_eq!(Tail::from_file(&f[..n]).unwrap_err().kind(), ErrorKind::MagicMismatch);
    }

    #[test]
    fn a_truncated_v1_file_says_its_footer_is_missing() {
        let (f, n) = v1(&[0xa0], 56);
        for cut in [17, 40, n - 1, n - 8] {
            let e = Tail::from_file(&f[..cut]).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::BadMagic, "{cut}");
            let msg = e.to_string();
            assert!(msg.starts_with("truncated v1.x file") && msg.contains(&format!("{cut} bytes")), "{cut}: {msg}");
        }
        // The same from the two ends alone (positional readers).
        let e = Tail::from_header_and_footer(&f[..8], &f[n - 1 - 16..n - 1], n as u64 - 1).unwrap_err();
        assert!(e.to_string().starts_with("truncated v1.x file") && e.to_string().contains("magic"), "{e}");
        assert_eq!(Tail::from_header_and_footer(&f[..8], &f[n - 16..n], n as u64).unwrap(), Tail::from_file(&f[..n]).unwrap());
        // A header that is not zTensor's is still "not a zTensor file".
        let mut g = f;
        g[..8].copy_from_slice(b"PK\x03\x04\0\0\0\0");
        assert!(Tail::from_file(&g[..n]).unwrap_err().to_string().contains("not a zTensor file"));
    }

    #[test]
    fn minimal_v0_file() {
        let mut f = [0u8; 17];
        f[..8].copy_from_slice(&MAGIC_V0);
        f[8] = 0x80;
        f[9] = 1;
        let t = Tail::from_file(&f).unwrap();
        assert_eq!((t.layout, t.manifest_offset, t.manifest_len), (Layout::V0, 8, 1));
        assert!(t.check_header(&f[..8]).is_ok());
        assert_eq!(t.check_header(&MAGIC_V1).unwrap_err().kind(), ErrorKind::MagicMismatch);
    }
}

/// Whether this build reads format v2 files: yes with the `v2` feature (in
/// `default`, implied by `std`); without it (a firmware that reads v1.x
/// only) the v2 reader is left out and v2 files are refused as an
/// unsupported version.
pub(crate) const READS_V2: bool = cfg!(feature = "v2");

#[cfg(test)]
mod v2_gate_tests {
    use crate::File;

    const V2_FILE: &[u8] = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/v2/valid/tied.zt"));

    #[cfg(feature = "v2")]
    #[test]
    fn v2_files_are_read() {
        assert_eq!(File::parse(V2_FILE).unwrap().version().major, 2);
    }

    #[cfg(not(feature = "v2"))]
    #[test]
    fn v2_files_are_refused_without_the_v2_reader() {
        let e = File::parse(V2_FILE).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::UnsupportedVersion { major: 2 }, "{e:?}");
    }
}
