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

/// Parts past the sharing prefix: distinct, identical, and equal but for
/// the last byte (same length and prefix, so a sharing candidate that the
/// full hash turns down), plus an empty part and short ones.
fn one_pass_objects() -> Vec<(String, Vec<u8>)> {
    let big = |seed: u8| -> Vec<u8> { (0..PREFIX * 3 + 5).map(|i| (i as u8).wrapping_mul(31) ^ seed).collect() };
    let mut tail = big(1);
    *tail.last_mut().unwrap() ^= 0xff;
    let named = [("a", big(1)), ("b", vec![]), ("c", big(2)), ("d", tail), ("e", big(1)), ("f", vec![7u8; 100]), ("g", big(2))];
    named.into_iter().map(|(n, b)| (n.into(), b)).collect()
}

fn write_one_pass<S: Sink>(mut w: Writer<S>) -> S {
    for (n, b) in one_pass_objects() {
        w.add_dense(&n, &[b.len() as u64], DType::U8, &b[..]).unwrap();
    }
    w.finish().unwrap()
}

#[test]
fn parts_digested_while_written_get_the_digest_and_share_only_identical_bytes() {
    for opts in [Options::canonical(), Options::non_canonical(4096).digest(DigestAlg::Sha256)] {
        let bytes = write_one_pass(Writer::with_options(Vec::new(), opts).unwrap());
        let m = Manifest::parse(&bytes).unwrap();
        for o in m.objects() {
            assert_eq!(crate::v2::verify::object(&o, &bytes).unwrap(), 1);
        }
        let off = |n: &str| m.object(n).unwrap().part("data").unwrap().offset;
        assert_eq!(off("e"), off("a"));
        assert_eq!(off("g"), off("c"));
        assert_ne!(off("d"), off("a"));
        for (n, b) in one_pass_objects() {
            let p = m.object(&n).unwrap().part("data").unwrap();
            assert_eq!(crate::v2::verify::raw_bytes(&p, &bytes).unwrap(), b, "{n}");
            if opts.is_canonical() {
                assert_eq!(p.digest_text.unwrap(), alloc::format!("xxh3:{:016x}", xxhash_rust::xxh3::xxh3_64(&b)));
            }
        }
    }
}

#[cfg(feature = "std")]
#[test]
fn a_file_with_holes_for_padding_has_the_bytes_written_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.zt");
    let sink = write_one_pass(Writer::create(&path).unwrap());
    assert!(sink.is_published());
    let file = std::fs::read(&path).unwrap();
    assert!(file == write_one_pass(Writer::new(Vec::new())), "the file differs from the in-memory bytes");
    // The sink's read-back (confirming "e" and "g") returns to the write position, past a hole.
    let mut s = crate::write::FileSink::create(dir.path().join("r.zt")).unwrap();
    s.write_all(b"abc").unwrap();
    assert!(s.skip_zeros(1 << 16).unwrap());
    let mut buf = [0u8; 2];
    assert!(s.read_at(1, &mut buf).unwrap());
    assert_eq!(&buf, b"bc");
    s.write_all(b"z").unwrap();
    s.finish().unwrap();
    let r = std::fs::read(dir.path().join("r.zt")).unwrap();
    assert_eq!(r.len(), 3 + (1 << 16) + 1);
    assert!(r[3..r.len() - 1].iter().all(|&x| x == 0) && r.ends_with(b"z"));
}

#[test]
fn error_messages_name_the_object_part_and_rule() {
    let msg = |e: Error| alloc::string::ToString::to_string(&e);
    let mut w = Writer::new(Vec::new());
    w.add_dense("b", &[1], DType::U8, &[1u8][..]).unwrap();
    assert_eq!(
        msg(w.add_dense("a", &[1], DType::U8, &[1u8][..]).unwrap_err()),
        "object \"a\": canonical form places blobs in bytewise (object name, part name) order (§6.3 rule 3), so objects must be \
         added in ascending bytewise name order, and this one sorts before the object added last"
    );
    assert_eq!(
        msg(w.add_dense("b", &[1], DType::U8, &[1u8][..]).unwrap_err()),
        "object \"b\": an object of this name was already added; object names are unique in a manifest (§3.2)"
    );
    let nfc = "is not in Unicode Normalization Form C, which canonical form requires of every name (§6.3 rule 5); normalize it, or write non-canonical";
    assert_eq!(msg(w.add_dense("e\u{301}", &[1], DType::U8, &[1u8][..]).unwrap_err()), alloc::format!("object {:?}: the object name {nfc}", "e\u{301}"));
    let o = NewObject::new("c", &[1], "dense").part(NewPart::new("e\u{301}", DType::U8, &[1u8][..]));
    assert_eq!(msg(w.add(o).unwrap_err()), alloc::format!("object \"c\", part {:?}: the part name {nfc}", "e\u{301}"));
    let o = NewObject::dense("c", &[1], DType::U8, &[1u8][..]).attribute("k\u{301}", 1);
    assert_eq!(msg(w.add(o).unwrap_err()), alloc::format!("object \"c\": an attribute key of the object {nfc}"));
    assert_eq!(msg(w.set_attribute("k\u{301}", 1).unwrap_err()), alloc::format!("a file attribute key {nfc}"));
    let o = NewObject::new("c", &[1], "dense").part(NewPart::new("data", DType::U8, &[1u8][..]).encoding(Encoding::ZSTD_SEEKABLE));
    assert_eq!(
        msg(w.add(o).unwrap_err()),
        "object \"c\", part \"data\": the writer's options do not allow this: canonical form forbids encoded parts"
    );
    let o = NewObject::new("c", &[1], "dense").part(NewPart::new("x", DType::U8, &[1u8][..])).part(NewPart::new("x", DType::U8, &[2u8][..]));
    assert_eq!(
        msg(w.add(o).unwrap_err()),
        "object \"c\": two parts, or two keys of one map, have the same name; map keys are unique in the manifest's CBOR (§3.1)"
    );
    let o = NewObject::dense("c", &[1], DType::U8, &[1u8][..]).attribute("t", AttrValue::Tag(1, alloc::boxed::Box::new(AttrValue::Null)));
    assert_eq!(msg(w.add(o).unwrap_err()), "object \"c\": an attribute value carries a CBOR tag, and format v2 manifests allow no tags (§3.1)");
    let mut deep = AttrValue::Null;
    for _ in 0..40 {
        deep = AttrValue::Array(vec![deep]);
    }
    assert_eq!(
        msg(w.add(NewObject::dense("c", &[1], DType::U8, &[1u8][..]).attribute("t", deep)).unwrap_err()),
        "object \"c\": attributes nest deeper than the 32 levels from the manifest root that format v2 allows (§3.1)"
    );
    // The reader's own rule, with its words.
    let e = w.add_dense("c", &[3], DType::U8, &[1u8][..]).unwrap_err();
    assert!(matches!(e.kind, Kind::Rule(_)), "{e:?}");
    let m = msg(e.clone());
    let Kind::Rule(r) = &e.kind else { unreachable!() };
    assert_eq!(m, alloc::format!("object \"c\": a v2 reader would refuse it: {r}"));
    // A source shorter than it declared.
    let short = crate::write::Data::from_chunks(4, [&[1u8, 2][..]]);
    assert_eq!(
        msg(w.add(NewObject::dense("d", &[4], DType::U8, short)).unwrap_err()),
        "object \"d\", part \"data\": the part's source gave 2 bytes where it declared 4"
    );
    assert_eq!(
        msg(Writer::with_options(Vec::new(), Options::non_canonical(100)).unwrap_err()),
        "the writer's options do not allow this: alignment must be a power of two from 4096 to 1 GiB"
    );
}

/// How a test part's bytes are given.
#[derive(Clone, Copy, PartialEq)]
enum Via {
    Memory,
    Chunks,
    #[cfg(feature = "std")]
    Reader,
}

/// Test objects: name, parts (name, bytes, how given).
type Objs = Vec<(&'static str, Vec<(&'static str, Vec<u8>, Via)>)>;

/// Pseudo-random bytes.
fn noise(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Objects (name, parts (name, bytes, how given)) whose streamed parts
/// duplicate others: of an earlier object, of their own object (later
/// parts move down), as the source of later in-memory duplicates, and one
/// equal to another in length and first 64 KiB only (not shared).
fn dup_objects() -> Objs {
    let x = noise(1, 200_000);
    let y = noise(2, 150_000);
    let z = noise(3, 70_000);
    let w = noise(4, 100_000);
    let mut w2 = w.clone();
    w2[90_000] ^= 1;
    let small = noise(5, 1000);
    #[cfg(feature = "std")]
    let reader = Via::Reader;
    #[cfg(not(feature = "std"))]
    let reader = Via::Chunks;
    vec![
        ("a", vec![("data", x.clone(), Via::Memory)]),
        ("b", vec![("data", x.clone(), Via::Chunks)]),
        ("c", vec![("data", y.clone(), reader)]),
        ("d", vec![("data", y.clone(), Via::Memory)]),
        (
            "e",
            vec![
                ("p0", z.clone(), Via::Memory),
                ("p1", z.clone(), Via::Chunks),
                ("p2", w.clone(), Via::Memory),
                ("p3", w2.clone(), Via::Chunks),
                ("p4", w2.clone(), Via::Memory),
                ("p5", x.clone(), reader),
                ("p6", small.clone(), Via::Memory),
                ("p7", Vec::new(), Via::Memory),
                ("p8", Vec::new(), Via::Chunks),
                ("p9", z.clone(), Via::Memory),
            ],
        ),
        ("f", vec![("data", y.clone(), Via::Chunks)]),
        ("g", vec![("data", small.clone(), Via::Chunks), ("data2", w2, Via::Memory)]),
    ]
}

/// Write `objs`, every part given as listed or (`memory`) all in memory.
fn write_dups<S: Sink>(mut w: Writer<S>, objs: &Objs, memory: bool) -> S {
    for (name, parts) in objs {
        let mut o = NewObject::new(*name, &[], "x.test/1");
        for (pn, b, via) in parts {
            let data = match if memory { Via::Memory } else { *via } {
                Via::Memory => Data::bytes(b),
                Via::Chunks => Data::from_chunks(b.len() as u64, b.chunks(999)),
                #[cfg(feature = "std")]
                Via::Reader => Data::from_reader(b.len() as u64, std::io::Cursor::new(&b[..])),
            };
            o = o.part(NewPart::new(*pn, DType::U8, data));
        }
        w.add(o).unwrap();
    }
    w.finish().unwrap()
}

/// The file opens, and every part reads back as given, digest checked.
fn check_reads_back(bytes: &[u8], objs: &Objs) {
    let f = crate::File::parse(bytes).unwrap();
    let m = f.v2().unwrap();
    for (name, parts) in objs {
        let o = m.object(name).unwrap();
        assert_eq!(crate::v2::verify::object(&o, bytes).unwrap(), parts.len());
        for (pn, b, _) in parts {
            assert_eq!(crate::v2::verify::raw_bytes(&o.part(pn).unwrap(), bytes).unwrap(), &b[..], "{name}/{pn}");
        }
    }
}

#[test]
fn streamed_duplicates_are_shared_as_in_memory_ones() {
    let objs = dup_objects();
    let want = write_dups(Writer::new(Vec::new()), &objs, true);
    let got = write_dups(Writer::new(Vec::new()), &objs, false);
    assert!(got == want, "streamed parts give other bytes ({} vs {})", got.len(), want.len());
    check_reads_back(&got, &objs);
    // The sharing itself: the streamed duplicates point at the first blob.
    let m = Manifest::parse(&got).unwrap();
    let at = |o: &str, p: &str| m.object(o).unwrap().part(p).unwrap().offset;
    assert_eq!(at("b", "data"), at("a", "data"));
    assert_eq!(at("d", "data"), at("c", "data"));
    assert_eq!(at("e", "p1"), at("e", "p0"));
    assert_eq!(at("e", "p4"), at("e", "p3"));
    assert_ne!(at("e", "p3"), at("e", "p2"));
    assert_eq!(at("e", "p5"), at("a", "data"));
    assert_eq!(at("e", "p8"), at("e", "p7"));
    assert_eq!(at("e", "p9"), at("e", "p0"));
    assert_eq!(at("f", "data"), at("c", "data"));
    assert_eq!(at("g", "data"), at("e", "p6"));
    assert_eq!(at("g", "data2"), at("e", "p3"));
}

#[test]
fn a_sink_that_cannot_rewind_keeps_streamed_duplicates_unshared() {
    /// A Vec that can read back but not rewind.
    struct NoRewind(Vec<u8>);
    impl Sink for NoRewind {
        fn write_all(&mut self, b: &[u8]) -> crate::Result<()> {
            self.0.write_all(b)
        }
        fn read_at(&mut self, o: u64, buf: &mut [u8]) -> crate::Result<bool> {
            self.0.read_at(o, buf)
        }
    }
    let objs = dup_objects();
    let got = write_dups(Writer::new(NoRewind(Vec::new())), &objs, false).0;
    check_reads_back(&got, &objs);
    let m = Manifest::parse(&got).unwrap();
    let at = |o: &str, p: &str| m.object(o).unwrap().part(p).unwrap().offset;
    assert_ne!(at("b", "data"), at("a", "data"));
    // An in-memory part still shares a streamed blob (read back).
    assert_eq!(at("d", "data"), at("c", "data"));
}

#[cfg(feature = "std")]
#[test]
fn streamed_duplicates_are_shared_in_files() {
    let objs = dup_objects();
    let want = write_dups(Writer::new(Vec::new()), &objs, true);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.zt");
    write_dups(Writer::create(&path).unwrap(), &objs, false);
    let got = std::fs::read(&path).unwrap();
    assert!(got == want, "streamed parts give other bytes in a file ({} vs {})", got.len(), want.len());
    check_reads_back(&got, &objs);
}

/// Alignment is bounded (audit "Hardening v2", M1): a power of two from
/// 4096 to 1 GiB, refused when the writer is made, so padding (at most
/// `align - 1` bytes before a blob or the manifest) stays bounded.
#[test]
fn alignment_over_1_gib_is_refused_when_the_writer_is_made() {
    for align in [1 << 31, 1 << 40, 1 << 63] {
        let e = Writer::with_options(Vec::new(), Options::non_canonical(align)).unwrap_err();
        assert!(matches!(e.kind, Kind::Option(m) if m.contains("1 GiB")), "{align}: {e}");
    }
    assert!(Writer::with_options(Vec::new(), Options::non_canonical(1 << 30)).is_ok());
    #[cfg(feature = "std")]
    {
        let dir = tempfile::tempdir().unwrap();
        let e = Writer::create_with(dir.path().join("a.zt"), Options::non_canonical(1 << 63)).unwrap_err();
        assert!(matches!(e.kind, Kind::Option(m) if m.contains("1 GiB")), "{e}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing is created");
    }
}

/// A part declaring more bytes than any file can hold is refused before
/// anything is written (checked offsets, no overflow), in words, and the
/// writer stays usable (audit "Hardening v2", M1 and messages).
#[test]
fn a_part_too_large_for_any_file_is_refused() {
    for opts in [Options::canonical(), Options::non_canonical(MAX_ALIGN)] {
        let mut w = Writer::with_options(Vec::new(), opts).unwrap();
        let huge = u64::MAX - 10;
        let e = w.add(NewObject::dense("a", &[huge], DType::U8, crate::write::Data::from_chunks(huge, [&[1u8][..]]))).unwrap_err();
        assert!(matches!(&e.kind, Kind::Rule(r) if r.kind == crate::v2::Kind::BlobOutOfBounds), "{e:?}");
        assert_eq!(
            alloc::string::ToString::to_string(&e),
            "object \"a\", part \"data\": a v2 reader would refuse it: blob lies outside its file's data region"
        );
        assert_eq!(w.position(), 0, "nothing written");
        w.add_dense("b", &[1], DType::U8, &[1u8][..]).unwrap();
        let bytes = w.finish().unwrap();
        assert_eq!(Manifest::parse(&bytes).unwrap().len(), 1);
    }
}

/// A sharded model rewritten in place (issue 30, M2): a writer stopped
/// right after its first shard rename leaves the old model whole at the
/// root's path; the next writer removes what it left (and a killed
/// writer's temporary files), publishes, and removes the old shards.
#[cfg(feature = "std")]
#[test]
fn a_sharded_rewrite_is_atomic_and_cleans_up_after_a_killed_writer() {
    use crate::fs::Reader;
    use crate::v2::types::DType;
    use std::string::ToString;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("model.zt");
    let write = |fill: u8, crash: Option<usize>| {
        shard::tests::CRASH_AFTER_SHARD_RENAMES.with(|c| c.set(crash));
        let mut w = Writer::create_with(&root, Options::non_canonical(4096).shards(8192)).unwrap();
        for (i, name) in ["a", "b", "c"].into_iter().enumerate() {
            // Distinct bytes: equal blobs would be stored once.
            let data = vec![fill + 16 * i as u8; 6000];
            w.add(NewObject::new(name, &[6000], "dense").part(NewPart::new("data", DType::U8, &data[..]))).unwrap();
        }
        let r = w.finish().map(drop);
        shard::tests::CRASH_AFTER_SHARD_RENAMES.with(|c| c.set(None));
        r
    };
    // The model at the root's path: it verifies, and every object holds `fill`.
    let holds = |fill: u8| {
        let r = Reader::open(&root).unwrap();
        let report = r.verify_with(crate::verify::Options::ALL, |_| {});
        assert!(report.is_ok(), "{:?}", report.first_problem);
        assert_eq!(report.digests_checked, 3);
        for (i, o) in r.file().objects().enumerate() {
            assert_eq!(r.to_vec(&o.component("data").unwrap()).unwrap(), vec![fill + 16 * i as u8; 6000]);
        }
        r.file().v2().unwrap().shards().count()
    };
    let files = || {
        let mut v: Vec<std::string::String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .collect();
        v.sort();
        v
    };
    write(1, None).unwrap();
    let n = holds(1);
    assert!(n >= 2, "{n}");
    let first = files();
    assert!(first.iter().all(|f| f == "model.zt" || shard::tests::suffix_of(f) == Some("")), "{first:?}");

    // Stopped after its first shard rename: the old model, whole.
    assert!(write(2, Some(1)).is_err());
    assert_eq!(holds(1), n);
    let orphans: Vec<_> = files().into_iter().filter(|f| !first.contains(f)).collect();
    assert_eq!(orphans.len(), 1, "{orphans:?}");
    // What a killed writer (a process that is gone) leaves.
    let stale = [".model-shard-00002.99999999.tmp", ".model.zt.99999999.0.tmp"];
    for f in stale {
        std::fs::write(dir.path().join(f), b"left behind").unwrap();
    }

    // The next writer: the leftovers removed, the new model published, the old shards removed.
    write(3, None).unwrap();
    assert_eq!(holds(3), n);
    let second = files();
    assert_eq!(second.len(), n + 1, "{second:?}");
    assert!(second.iter().all(|f| f == "model.zt" || shard::tests::suffix_of(f) == Some(".1")), "{second:?}");
    // And once more: back to the first family of names.
    write(4, None).unwrap();
    assert_eq!(holds(4), n);
    assert_eq!(files(), first);
    // The live root's shard files gone (a broken model): the next writer
    // still keeps clear of its names, and keeps its own shards.
    for f in files().iter().filter(|f| *f != "model.zt") {
        std::fs::remove_file(dir.path().join(f)).unwrap();
    }
    write(5, None).unwrap();
    assert_eq!(holds(5), n);
    assert_eq!(files(), second);
}
