//! Opening from bytes: the whole file, the tail alone, a v0.1 container.

use super::*;

// ====================================================================
// (a) open_walk: the whole file from bytes
// ====================================================================

/// `File::parse` the bytes, then walk and read everything; the other ways
/// of opening (`parse_with_scratch`, `parse_tail`) must agree.
pub fn open_walk(data: &[u8]) {
    if super::v2::is_v2(data) {
        return super::v2_open(data);
    }
    let parsed = File::parse(data);

    // parse_with_scratch: same verdict (or out of scratch).
    let mut scratch = vec![[0u64; 2]; 4096];
    match (&parsed, File::parse_with_scratch(data, &mut scratch)) {
        (Ok(_), Ok(_)) => {}
        (_, Err(e)) if matches!(e.kind(), ErrorKind::ScratchTooSmall { .. }) => {}
        (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "parse vs parse_with_scratch: {a} / {b}"),
        (a, b) => panic!("parse {:?} vs parse_with_scratch {:?}", a.as_ref().err(), b.err()),
    }

    // parse_tail from the footer and manifest alone: same verdict whenever
    // the container itself is sound (it does not see the data bytes, but
    // bounds are checked against the same file length).
    if let Ok(tail) = Tail::from_file(data) {
        let m = &data[tail.manifest_offset as usize..(tail.manifest_offset + tail.manifest_len) as usize];
        // The last 40 bytes: a v2 footer's length (v1.x reads the last 16 of them).
        let footer = &data[data.len() - data.len().min(40)..];
        let t = File::parse_tail(footer, m, data.len() as u64);
        match (&parsed, &t) {
            (Ok(_), Ok(f)) => walk_file(f, None),
            (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "parse vs parse_tail: {a} / {b}"),
            (a, b) => panic!("parse {:?} vs parse_tail {:?}", a.as_ref().err(), b.as_ref().err()),
        }
    }

    if let Ok(f) = parsed {
        assert!(Tail::from_file(data).is_ok());
        assert_eq!(f.bytes().map(<[u8]>::len), Some(data.len()));
        walk_file(&f, Some(data));
    }
}

// ====================================================================
// (b) tail_only: footer first, then the manifest
// ====================================================================

/// `Tail::from_footer` on the last 16 bytes, `File::parse_tail` on the
/// manifest range; also `from_footer` with a fuzzed file length.
pub fn tail_only(data: &[u8]) {
    if super::v2::is_v2(data) {
        return super::v2_open(data);
    }
    let len = data.len() as u64;

    // A file length taken from the input: the arithmetic must hold for any.
    if data.len() >= 24 {
        let fake = u64::from_le_bytes(data[..8].try_into().unwrap());
        if let Ok(t) = Tail::from_footer(&data[data.len() - 16..], fake) {
            check_tail(&t, fake);
        }
    }
    if data.len() < 16 {
        assert!(Tail::from_footer(data, len).is_err(), "a footer shorter than 16 bytes was accepted");
        return;
    }
    let footer = &data[data.len() - data.len().min(40)..];
    let from_footer = Tail::from_footer(footer, len);
    if let Ok(t) = Tail::from_file(data) {
        // With the header at hand, the same tail (and never a worse one).
        assert_eq!(from_footer.as_ref().ok(), Some(&t), "from_file and from_footer disagree");
        assert!(t.check_header(&data[..8]).is_ok());
    }
    let Ok(tail) = from_footer else { return };
    check_tail(&tail, len);
    let r = tail.manifest_range();
    let manifest = &data[r.start as usize..r.end as usize];

    // The wrong manifest length is refused.
    if !manifest.is_empty() {
        let e = File::parse_tail(footer, &manifest[1..], len).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::ManifestLengthMismatch { .. }), "{e}");
    }

    let t = File::parse_tail(footer, manifest, len);
    let m = File::parse_manifest(manifest, tail, Some(data));
    match (&t, &m) {
        (Ok(_), Ok(_)) => {}
        (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "parse_tail vs parse_manifest: {a} / {b}"),
        (a, b) => panic!("parse_tail {:?} vs parse_manifest(data) {:?}", a.as_ref().err(), b.as_ref().err()),
    }
    if let Ok(f) = t {
        assert_eq!(f.tail(), &tail);
        assert!(f.bytes().is_none());
        walk_file(&f, None);
    }
    if let Ok(f) = m {
        walk_file(&f, Some(data));
    }
}

fn check_tail(t: &Tail, file_len: u64) {
    assert_eq!(t.file_len, file_len);
    assert!(t.manifest_len <= ztensor::container::MAX_MANIFEST_LEN);
    assert!(t.manifest_offset >= ztensor::container::HEADER_LEN, "{t:?}");
    let trailer = match t.layout {
        Layout::V1 => 16,
        Layout::V0 => 8,
        // v2: the manifest is a blob anywhere before the 40-byte footer.
        Layout::V2 => {
            assert!(t.manifest_offset + t.manifest_len + 40 <= file_len, "{t:?}");
            return;
        }
    };
    assert_eq!(t.manifest_offset + t.manifest_len + trailer, file_len, "{t:?}");
    assert_eq!(t.manifest_range(), t.manifest_offset..t.manifest_offset + t.manifest_len);
}

// ====================================================================
// (c) legacy_v0: the input forced into a v0.1 container
// ====================================================================

/// Wrap `data` as a v0.1 file: `[u16 LE blob length][blob bytes][manifest]`
/// becomes `ZTEN0001`, zeros up to 64, the blob bytes, the manifest, and the
/// manifest size (u64 LE). Blobs start at 64 as the reference writer puts them.
pub fn legacy_v0_file(data: &[u8]) -> Vec<u8> {
    let (n, rest) = match data {
        [a, b, rest @ ..] => (u16::from_le_bytes([*a, *b]) as usize, rest),
        _ => (0, data),
    };
    let n = n.min(rest.len());
    let (blobs, manifest) = rest.split_at(n);
    let mut f = Vec::with_capacity(64 + data.len() + 8);
    f.extend_from_slice(b"ZTEN0001");
    f.resize(64, 0);
    f.extend_from_slice(blobs);
    f.extend_from_slice(manifest);
    f.extend_from_slice(&(manifest.len() as u64).to_le_bytes());
    f
}

/// The inverse of [`legacy_v0_file`] for a v0.1 file whose blobs start at
/// 64 (to make seeds from real files).
pub fn legacy_v0_input(file: &[u8]) -> Option<Vec<u8>> {
    let t = Tail::from_file(file).ok()?;
    if t.layout != Layout::V0 || t.manifest_offset < 64 {
        return None;
    }
    let blobs = &file[64..t.manifest_offset as usize];
    let mut out = (u16::try_from(blobs.len()).ok()?).to_le_bytes().to_vec();
    out.extend_from_slice(blobs);
    out.extend_from_slice(&file[t.manifest_range().start as usize..t.manifest_range().end as usize]);
    Some(out)
}

pub fn legacy_v0(data: &[u8]) {
    let file = legacy_v0_file(data);
    if let Ok(f) = File::parse(&file) {
        assert_eq!(f.layout(), Layout::V0);
        assert_eq!(f.version().major, 0);
        for o in f.objects() {
            assert_eq!(o.component_count(), 1, "a v0.1 tensor has one component");
            assert_eq!(o.components().next().map(|c| c.role()), Some("data"));
        }
    }
    open_walk(&file);
}
