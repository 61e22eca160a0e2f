use super::*;
use crate::v2::Manifest;
use alloc::vec;

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn canonical_places_blobs_at_64k_and_shares_identical_parts() {
    let a = f32s(&[1.0, 2.0, 3.0]);
    let mut w = Writer::new(Vec::new());
    w.add_dense("a", &[3], DType::F32, &a[..]).unwrap();
    w.add_dense("b", &[0], DType::F32, &[][..]).unwrap();
    w.add_dense("c", &[12], DType::U8, &a[..]).unwrap();
    w.add_dense("d", &[2], DType::F32, &a[..8]).unwrap();
    let bytes = w.finish().unwrap();
    let m = Manifest::parse(&bytes).unwrap();
    let blob = |n: &str| {
        let p = m.object(n).unwrap().part("data").unwrap();
        (p.offset, p.length)
    };
    assert_eq!(blob("a"), (65536, 12));
    assert_eq!(blob("b"), (131072, 0));
    assert_eq!(blob("c"), (65536, 12));
    assert_eq!(blob("d"), (131072, 8));
    assert_eq!(m.footer().manifest_offset, 196608);
    assert_eq!(&bytes[..8], &MAGIC);
}

#[test]
fn canonical_refuses_unsorted_non_nfc_and_encoded() {
    let mut w = Writer::new(Vec::new());
    w.add_dense("b", &[1], DType::U8, &[1u8][..]).unwrap();
    assert_eq!(w.add_dense("a", &[1], DType::U8, &[1u8][..]).unwrap_err().kind, Kind::Unsorted);
    assert_eq!(w.add_dense("b", &[1], DType::U8, &[1u8][..]).unwrap_err().kind, Kind::DuplicateObject);
    assert_eq!(w.add_dense("e\u{301}", &[1], DType::U8, &[1u8][..]).unwrap_err().kind, Kind::NotNfc);
    let o = NewObject::new("c", &[1], "dense").part(NewPart::new("data", DType::U8, &[1u8][..]).encoding(Encoding::ZSTD_SEEKABLE));
    assert!(matches!(w.add(o).unwrap_err().kind, Kind::Option(_)));
    assert_eq!(w.set_attribute("k\u{301}", 1).unwrap_err().kind, Kind::NotNfc);
    // A size that breaks the dense equation: the reader's rule.
    let e = w.add_dense("d", &[2], DType::F32, &[0u8; 4][..]).unwrap_err();
    assert!(matches!(e.kind, Kind::Rule(r) if r.kind == crate::v2::Kind::SizeMismatch), "{e:?}");
    assert_eq!(e.object.as_deref(), Some("d"));
    let bytes = w.finish().unwrap();
    assert_eq!(Manifest::parse(&bytes).unwrap().len(), 1);
}

#[test]
fn seekable_parts_decode_back() {
    let data: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
    let mut w = Writer::with_options(Vec::new(), Options::non_canonical(4096).digest(DigestAlg::Sha256)).unwrap();
    w.add(NewObject::new("z", &[data.len() as u64], "dense").part(NewPart::new("data", DType::U8, &data[..]).encoding(Encoding::ZSTD_SEEKABLE)))
        .unwrap();
    w.add(NewObject::new("e", &[0], "dense").part(NewPart::new("data", DType::U8, &[][..]).encoding(Encoding::ZSTD_SEEKABLE))).unwrap();
    let bytes = w.finish().unwrap();
    let m = Manifest::parse(&bytes).unwrap();
    for o in m.objects() {
        assert_eq!(crate::v2::verify::object(&o, &bytes).unwrap(), 1);
    }
    let p = m.object("z").unwrap().part("data").unwrap();
    let t = crate::v2::seekable::SeekTable::parse(p.blob(&bytes).unwrap(), p.decoded_size()).unwrap();
    assert_eq!(t.len(), 3);
    let mut out = vec![0u8; data.len()];
    crate::v2::seekable::decode_into(p.blob(&bytes).unwrap(), p.decoded_size(), &mut out).unwrap();
    assert_eq!(out, data);
}

#[cfg(feature = "std")]
#[test]
fn canonical_refuses_a_shared_part_it_cannot_confirm() {
    // IoSink cannot read back: an identical part cannot be confirmed.
    let mut w = Writer::new(crate::write::IoSink::new(Vec::new()));
    w.add_dense("a", &[2], DType::U8, &[1u8, 2][..]).unwrap();
    w.add_dense("b", &[2], DType::U8, &[3u8, 4][..]).unwrap();
    let e = w.add_dense("c", &[2], DType::U8, &[1u8, 2][..]).unwrap_err();
    assert!(matches!(e.kind, Kind::Option(_)), "{e:?}");
    // Non-canonical: written as a blob of its own.
    let mut w = Writer::with_options(crate::write::IoSink::new(Vec::new()), Options::non_canonical(4096)).unwrap();
    w.add_dense("a", &[2], DType::U8, &[1u8, 2][..]).unwrap();
    w.add_dense("c", &[2], DType::U8, &[1u8, 2][..]).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let m = Manifest::parse(&bytes).unwrap();
    assert_ne!(m.object("a").unwrap().part("data").unwrap().offset, m.object("c").unwrap().part("data").unwrap().offset);
}

#[test]
fn bool_parts_are_u8_with_logical_bool() {
    let mut w = Writer::new(Vec::new());
    w.add(NewObject::new("b", &[3], "dense").part(NewPart::from_slice("data", &[true, false, true]))).unwrap();
    let bytes = w.finish().unwrap();
    let m = Manifest::parse(&bytes).unwrap();
    let p = m.object("b").unwrap().part("data").unwrap();
    assert_eq!((p.dtype, p.type_name), (DType::U8, Some("bool")));
    assert_eq!(crate::v2::verify::raw_bytes(&p, &bytes).unwrap(), [1, 0, 1]);
}
