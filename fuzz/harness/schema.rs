//! The walk over an opened file: the file, its objects (names, shapes, formats, placement).

use super::*;

// ====================================================================
// The walk: every invariant of an opened file
// ====================================================================

/// Walk everything reachable from an opened file and assert its invariants.
/// `data` is the whole file when it was parsed from it, `None` for a file
/// parsed from its tail (every data accessor must then answer `NoData`).
pub fn walk_file(f: &File<'_>, data: Option<&[u8]>) {
    let _ = format!("{f:?}");
    let tail = *f.tail();
    assert_eq!(f.manifest_bytes().len() as u64, tail.manifest_len);
    if let Some(d) = data {
        assert_eq!(d.len() as u64, tail.file_len);
        let r = tail.manifest_range();
        assert_eq!(f.manifest_bytes(), &d[r.start as usize..r.end as usize]);
    }
    match f.layout() {
        Layout::V0 => assert_eq!(f.version().major, 0),
        Layout::V1 => assert_eq!(f.version().major, 1),
        Layout::V2 => assert_eq!(f.version().major, 2),
    }
    walk_map(f.attributes(), 1);

    let n = f.len();
    assert_eq!(f.is_empty(), n == 0);
    assert_eq!(f.objects().len(), n);
    assert!(f.object(n).is_none());
    let mut count = 0;
    let mut spans = Vec::new();
    let v0 = f.version().major == 0;
    let mut buf = vec![0u8; READ_BUF];
    for (i, o) in f.objects().enumerate() {
        count += 1;
        assert_eq!(o.index(), i);
        let by_index = f.object(i).expect("object(i) of a listed object");
        assert_eq!(by_index.name(), o.name());
        // Names are unique: lookup by name finds this very object.
        let by_name = f.get(o.name()).unwrap_or_else(|| panic!("get({:?}) found nothing", o.name()));
        assert_eq!(by_name.index(), i, "get({:?})", o.name());
        assert!(f.require(o.name()).is_ok());
        walk_object(&o, data, &tail, v0, &mut buf, &mut spans);
    }
    assert_eq!(count, n);

    // Blobs never partially overlap (identical spans are weight tying).
    spans.sort_unstable();
    spans.dedup();
    for w in spans.windows(2) {
        assert!(w[0].1 <= w[1].0, "blobs overlap: {:?} and {:?}", w[0], w[1]);
    }

    // The caller-storage index finds every object too.
    let mut slots = vec![[0u32; 4]; n];
    let index = NameIndex::build(f, &mut slots).expect("NameIndex with enough slots");
    for o in f.objects() {
        assert_eq!(index.get(o.name()).map(|x| x.index()), Some(o.index()));
    }
    if n > 0 {
        let mut few = vec![[0u32; 4]; n - 1];
        assert!(NameIndex::build(f, &mut few).is_err());
    }
    assert!(f.get("\u{0}no such object\u{0}").is_none() || f.objects().any(|o| o.name() == "\u{0}no such object\u{0}"));

    if f.objects().any(|o| o.components().any(|c| bomb(&c))) {
        return;
    }
    let mut problems = 0;
    let mut unverifiable = 0;
    let reported = f.verify(|_| problems += 1, |_, _| unverifiable += 1);
    assert_eq!(reported, problems);
    if data.is_none() {
        // Without data, every object with a component has a problem.
        let with_comps = f.objects().filter(|o| o.component_count() > 0).count();
        assert!(problems >= with_comps, "{problems} problems for {with_comps} objects without data");
    }
}

fn walk_object(o: &Object<'_>, data: Option<&[u8]>, tail: &Tail, v0: bool, buf: &mut [u8], spans: &mut Vec<(u64, u64)>) {
    assert!(!o.name().is_empty(), "empty object name accepted");

    // Shape: the dimensions multiply to numel without overflow.
    let s = o.shape();
    let dims: Vec<u64> = s.dims().collect();
    assert_eq!(dims.len(), s.ndim());
    // A zero dimension makes the product 0, even after an overflowing prefix.
    let numel = if dims.contains(&0) {
        0
    } else {
        dims.iter().try_fold(1u64, |a, &d| a.checked_mul(d)).expect("shape product overflows")
    };
    assert_eq!(numel, s.numel());
    assert_eq!(s.to_vec(), dims);
    for (i, &d) in dims.iter().enumerate() {
        assert_eq!(s.dim(i), Some(d));
    }
    assert_eq!(s.dim(dims.len()), None);
    let mut out = vec![0u64; dims.len()];
    assert_eq!(s.copy_to(&mut out), Some(dims.len()));
    assert_eq!(out, dims);
    if !dims.is_empty() {
        assert_eq!(s.copy_to(&mut out[1..]), None);
    }
    let _ = format!("{s:?}");

    let format = o.format();
    assert_eq!(Format::parse(format.name()), format);
    walk_map(o.attributes(), 1);
    walk_map(o.fields(), 1);

    let comps: Vec<Component<'_>> = o.components().collect();
    assert_eq!(comps.len(), o.component_count());
    for c in &comps {
        let again = o.component(c.role()).expect("component(role) of a listed component");
        assert_eq!((again.offset(), again.length()), (c.offset(), c.length()), "duplicate role {:?}", c.role());
        walk_component(c, data, tail, v0, buf);
        if c.length() > 0 {
            spans.push((c.offset(), c.offset() + c.length()));
        }
    }
    assert!(o.component("\u{0}none").is_none() || comps.iter().any(|c| c.role() == "\u{0}none"));

    if format == Format::Dense {
        let d = o.data().expect("a dense object without `data`");
        // A dense object's decoded data is numel elements.
        let ratio = d.logical_type().map_or(Some(1), |t| t.ratio());
        if let (Some(r), Some(n)) = (ratio, d.decoded_len()) {
            let want = numel.checked_mul(r).and_then(|x| x.checked_mul(d.dtype().width()));
            assert_eq!(Some(n), want, "dense {:?}: decoded length vs shape {dims:?}", o.name());
        }
    }

    if debug_objects() {
        // Bounded by what the object itself holds, not by the file's size.
        let d = format!("{o:?}");
        // (Names and roles as `Debug` escapes them: up to 10 characters a byte.)
        let own = 2 * format!("{:?}", o.fields()).len() + 2 * format!("{:?}", o.name()).len() + format!("{s:?}").len() + 4096;
        assert!(d.len() <= own, "Debug of object {:?}: {} bytes (its own fields: {own})", o.name(), d.len());
    }
    if comps.iter().any(bomb) {
        return;
    }
    let checked = o.check_data();
    if data.is_none() && !comps.is_empty() {
        assert!(checked.is_err(), "check_data without data bytes succeeded");
    }
}
