//! Unit tests of the writer (`alloc` only: they run in `no_std` builds too).

use super::*;
use alloc::string::ToString;
use crate::types::{Format, LogicalType};
use alloc::vec;

fn keys(m: crate::value::Map<'_>) -> Vec<&str> {
    m.iter().map(|(k, _)| k.as_str().unwrap()).collect()
}

#[test]
fn empty_file_is_the_minimal_v1_file() {
    let bytes = Writer::new(Vec::new()).finish().unwrap();
    assert_eq!(bytes.len(), 48);
    assert_eq!(&bytes[..8], b"ZTEN1000");
    assert_eq!(&bytes[40..], b"ZTEN1000");
    assert_eq!(u64::from_le_bytes(bytes[32..40].try_into().unwrap()), 24);
    let f = File::parse(&bytes).unwrap();
    assert!(f.is_empty());
    assert_eq!(f.version(), crate::Version::V1_2);
}

#[test]
fn layout_and_key_order() {
    let mut w = Writer::new(Vec::new());
    w.set_attribute("license", "MIT").unwrap();
    w.add(NewObject::dense("z", &[3], DType::U8, &[1, 2, 3]).attribute("k", 1u8)).unwrap();
    w.add(
        NewObject::dense("a", &[2], DType::U8, &[0x38, 0x40])
            .logical_type(LogicalType::F8E4M3Fn)
            .compression(Compression::ZSTD)
            .checksum(Checksum::Crc32c),
    )
    .unwrap();
    w.add_slice::<f32>("empty_last", &[0, 4], &[]).unwrap();
    let bytes = w.finish().unwrap();
    let f = File::parse(&bytes).unwrap();
    // Objects in insertion order, not sorted.
    let names: Vec<_> = f.objects().map(|o| o.name()).collect();
    assert_eq!(names, ["z", "a", "empty_last"]);
    let z = f.require("z").unwrap();
    assert_eq!(keys(z.fields()), ["shape", "format", "attributes", "components"]);
    // A crc32c digest by default (verify on read has something to check).
    assert_eq!(keys(z.data().unwrap().fields()), ["dtype", "offset", "length", "encoding", "digest"]);
    assert!(z.data().unwrap().digest().unwrap().starts_with("crc32c:0x"));
    assert_eq!(z.data().unwrap().offset(), 64);
    let a = f.require("a").unwrap();
    assert_eq!(keys(a.fields()), ["shape", "format", "components"]);
    let c = a.data().unwrap();
    assert_eq!(keys(c.fields()), ["dtype", "type", "offset", "length", "uncompressed_length", "encoding", "digest"]);
    assert_eq!(c.offset(), 128);
    assert_eq!(c.to_vec().unwrap(), [0x38, 0x40]);
    c.verify_digest().unwrap();
    // A zero-length blob written last: padded to 64, the manifest starts there.
    let e = f.require("empty_last").unwrap().data().unwrap();
    assert_eq!(e.offset() % 64, 0);
    assert_eq!(e.offset(), f.tail().manifest_offset);
    // Root key order.
    let m = f.manifest_bytes();
    let v = crate::value::Value::new(m, 0).as_map().unwrap();
    assert_eq!(keys(v), ["version", "attributes", "objects"]);
    assert_eq!(f.attributes().get("license").unwrap().as_str(), Some("MIT"));
    // Padding is zero.
    assert!(bytes[8..64].iter().all(|&b| b == 0));
    assert!(bytes[67..128].iter().all(|&b| b == 0));
}

#[test]
fn refuses_before_writing() {
    let mut w = Writer::new(Vec::new());
    w.add_slice("x", &[2], &[1u16, 2]).unwrap();
    let pos = w.position();
    let cases: Vec<(NewObject<'_>, ErrorKind)> = vec![
        (NewObject::dense("", &[1], DType::U8, &[1]), ErrorKind::EmptyName),
        (NewObject::dense("x", &[1], DType::U8, &[1]), ErrorKind::DuplicateKey),
        (NewObject::dense("d", &[3], DType::U16, &[1, 2, 3, 4]), ErrorKind::LengthMismatch { expected: 6, actual: 4 }),
        (NewObject::dense("p", &[1], DType::U16, &[1, 2, 3]), ErrorKind::PartialElement { length: 3, width: 2 }),
        (
            NewObject::dense("t", &[1], DType::U16, &[1, 2]).logical_type(LogicalType::Complex64),
            ErrorKind::WrongType { field: "type", expected: "a logical type matching the dtype" },
        ),
        (NewObject::new("m", Format::Dense, &[1]), ErrorKind::MissingComponent { role: "data" }),
        (
            NewObject::new("r", Format::Other("x"), &[1]).with_component("", DType::U8, &[1]),
            ErrorKind::EmptyName,
        ),
        (
            NewObject::new("r2", Format::Other("x"), &[1]).with_component("a", DType::U8, &[1]).with_component(
                "a",
                DType::U8,
                &[1],
            ),
            ErrorKind::DuplicateKey,
        ),
        (
            NewObject::new("c", Format::SparseCsr, &[2, 2])
                .component(NewComponent::from_slice("values", &[1f32]))
                .component(NewComponent::from_slice("indices", &[0u32]))
                .component(NewComponent::from_slice("indptr", &[0u64, 1, 1])),
            ErrorKind::IndexDType,
        ),
        (
            NewObject::sparse_csr_slices("c2", [2, 2], &[1f32], &[0], &[0, 1]),
            ErrorKind::CountMismatch { expected: 3, actual: 2 },
        ),
        (
            NewObject::dense("deep", &[1], DType::U8, &[1]).attribute("a", AttrValue::Cbor(vec![0x81, 0x81])),
            ErrorKind::LengthTooLarge { claimed: 1 },
        ),
        (
            NewObject::dense("dup", &[1], DType::U8, &[1])
                .attribute("a", AttrValue::Map(vec![(1u8.into(), 1u8.into()), (1u8.into(), 2u8.into())])),
            ErrorKind::DuplicateKey,
        ),
    ];
    for (obj, kind) in cases {
        let name = String::from(obj.name());
        let e = w.add(obj).unwrap_err();
        assert_eq!(e.kind(), kind, "{name}: {e}");
        assert_eq!(e.manifest_offset(), None, "{name}");
        assert_eq!(w.position(), pos, "{name}: nothing written");
    }
    assert_eq!(w.set_attribute("bad", AttrValue::Cbor(vec![0x1c])).unwrap_err().kind(), ErrorKind::CborInvalid);
    let bytes = w.finish().unwrap();
    assert_eq!(File::parse(&bytes).unwrap().len(), 1);
}

#[test]
fn streamed_sources_must_match_their_declared_length() {
    let mut w = Writer::new(Vec::new());
    let chunks = vec![vec![1u8; 10], vec![2u8; 10]];
    let short = NewObject::dense("short", &[30], DType::U8, Data::from_chunks(30, chunks.clone()));
    assert_eq!(w.add(short).unwrap_err().kind(), ErrorKind::LengthMismatch { expected: 30, actual: 20 });
    let long = NewObject::dense("long", &[15], DType::U8, Data::from_chunks(15, chunks.clone()));
    assert_eq!(w.add(long).unwrap_err().kind(), ErrorKind::LengthMismatch { expected: 15, actual: 20 });
    let z = NewObject::dense("z", &[15], DType::U8, Data::from_chunks(15, chunks.clone())).compression(Compression::ZSTD);
    assert_eq!(w.add(z).unwrap_err().kind(), ErrorKind::LengthMismatch { expected: 15, actual: 20 });
    // The writer stays usable.
    w.add(NewObject::dense("ok", &[20], DType::U8, Data::from_chunks(20, chunks)).compression(Compression::ZSTD))
        .unwrap();
    let bytes = w.finish().unwrap();
    let f = File::parse(&bytes).unwrap();
    assert_eq!(f.len(), 1);
    let mut want = vec![1u8; 10];
    want.extend([2u8; 10]);
    assert_eq!(f.require("ok").unwrap().data().unwrap().to_vec().unwrap(), want);
}

#[derive(Debug)]
struct Failing {
    budget: usize,
    got: Vec<u8>,
}

impl Sink for Failing {
    fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        if self.got.len() + bytes.len() > self.budget {
            return Err(Error::new(ErrorKind::Io));
        }
        self.got.extend_from_slice(bytes);
        Ok(())
    }
}

#[test]
fn a_failing_sink_breaks_the_writer() {
    for zstd in [false, true] {
        let mut w = Writer::new(Failing { budget: 100, got: Vec::new() });
        let data = [7u8; 200];
        let c = if zstd { Compression::Zstd(1) } else { Compression::Raw };
        let big: Vec<u8> = (0..5000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8).collect();
        let obj = NewObject::dense("a", &[200], DType::U8, &data).compression(c);
        let obj = if zstd { NewObject::dense("a", &[5000], DType::U8, &big).compression(c) } else { obj };
        assert_eq!(w.add(obj).unwrap_err().kind(), ErrorKind::Io);
        assert_eq!(w.add_slice("b", &[1], &[1u8]).unwrap_err().kind(), ErrorKind::Io);
        // Broken first: an object that is itself wrong gets the same answer.
        let mut deep = AttrValue::Null;
        for _ in 0..70 {
            deep = AttrValue::Array(vec![deep]);
        }
        let e = w.add(NewObject::dense("c", &[1], DType::U8, &[1]).attribute("deep", deep)).unwrap_err();
        assert_eq!((e.kind(), e.object().map(|o| o.as_str().to_string())), (ErrorKind::Io, Some("c".to_string())));
        assert_eq!(w.finish().unwrap_err().kind(), ErrorKind::Io);
    }
}

#[test]
fn appends_in_memory() {
    let mut w = Writer::new(Vec::new());
    w.set_attribute("a", 1u8).unwrap();
    w.add(NewObject::dense_slice("x", &[3], &[1i16, 2, 3]).attribute("n", "x").checksum(Checksum::Sha256)).unwrap();
    let first = w.finish().unwrap();
    let blob_end = File::parse(&first).unwrap().tail().manifest_offset as usize;

    let mut w = Writer::append_to_vec(first.clone()).unwrap();
    assert!(w.contains("x"));
    assert_eq!(w.add_slice("x", &[1], &[1u8]).unwrap_err().kind(), ErrorKind::DuplicateKey);
    w.set_attribute("b", 2u8).unwrap();
    w.add_slice("y", &[2], &[5u64, 6]).unwrap();
    let second = w.finish().unwrap();
    assert_eq!(&second[..blob_end], &first[..blob_end], "old blobs kept byte for byte");
    let f = File::parse(&second).unwrap();
    assert_eq!(f.objects().map(|o| o.name()).collect::<Vec<_>>(), ["x", "y"]);
    assert_eq!(keys(f.attributes()), ["a", "b"]);
    let x = f.require("x").unwrap();
    assert_eq!(x.attributes().get("n").unwrap().as_str(), Some("x"));
    x.data().unwrap().verify_digest().unwrap();
    assert_eq!(x.data().unwrap().to_vec_of::<i16>().unwrap(), [1, 2, 3]);
    assert_eq!(f.require("y").unwrap().data().unwrap().offset(), 128);

    // Appending nothing reproduces the file.
    let again = Writer::append_to_vec(second.clone()).unwrap().finish().unwrap();
    assert_eq!(again, second);
}

#[test]
fn same_input_same_bytes() {
    let build = || {
        let mut w = Writer::new(Vec::new());
        w.set_attribute("f", 0.1).unwrap();
        for i in 0..20u32 {
            let data: Vec<u32> = (0..i * 50).collect();
            let c = if i % 2 == 0 { Compression::ZSTD } else { Compression::Raw };
            w.add(
                NewObject::dense(alloc::format!("t{i}"), &[i as u64 * 50], DType::U32, Data::owned(Data::from_slice(&data).to_vec_for_test()))
                    .compression(c)
                    .checksum(Checksum::Sha256),
            )
            .unwrap();
        }
        w.finish().unwrap()
    };
    assert_eq!(build(), build());
}

impl Data<'_> {
    fn to_vec_for_test(&self) -> Vec<u8> {
        match &self.0 {
            Repr::Bytes(b) => b.to_vec(),
            Repr::Stream { .. } => unreachable!(),
        }
    }
}

/// Objects without attributes are checked on typed values
/// (`manifest::check_new`), not by encoding and parsing them; in debug
/// builds `add` asserts that the reader's pass on the encoded entry
/// (`manifest::check_entry`) gives the same verdict. Many random objects,
/// valid and not, must all get through that assertion.
#[test]
fn typed_checks_agree_with_the_readers_pass() {
    assert!(cfg!(debug_assertions), "this test relies on the self-check of debug builds");
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let roles = ["data", "values", "indices", "indptr", "coords", "packed_weight", "scales", "zeros", "x", ""];
    let dtypes = [DType::U8, DType::I16, DType::F32, DType::F64, DType::U64, DType::I32, DType::Bool, DType::BF16];
    let ltypes = [
        None,
        Some(LogicalType::F8E4M3Fn),
        Some(LogicalType::Complex64),
        Some(LogicalType::Complex128),
        Some(LogicalType::Other("f32")),
        Some(LogicalType::Other("mine")),
    ];
    let formats = [Format::Dense, Format::SparseCsr, Format::SparseCoo, Format::Other("x"), Format::Other("dense")];
    let blob = vec![0u8; 4096];
    let (mut ok, mut refused) = (0, 0);
    let mut w = Writer::new(Vec::new());
    // (Miri interprets: fewer objects there.)
    let total = if cfg!(miri) { 400 } else { 4000 };
    for i in 0..total {
        let name = alloc::format!("o{}", i % (total - total / 40)); // some duplicate names
        let dims: Vec<u64> = (0..rnd(4))
            .map(|_| match rnd(10) {
                0 => 0,
                1 => u64::MAX / 2,
                _ => 1 + rnd(6),
            })
            .collect();
        let mut o = NewObject::new(name, formats[rnd(5) as usize], &dims);
        for _ in 0..rnd(5) {
            let dtype = dtypes[rnd(8) as usize];
            let numel: u64 = dims.iter().map(|&d| d.min(6)).product();
            // Mostly plausible lengths, sometimes off by a little.
            let len = match rnd(4) {
                0 => rnd(64),
                _ => (numel * dtype.width() * (1 + rnd(2))).min(4096),
            } as usize;
            let mut c = NewComponent::new(roles[rnd(10) as usize], dtype, &blob[..len]);
            if let Some(t) = ltypes[rnd(6) as usize] {
                if rnd(2) == 0 {
                    c = c.logical_type(t);
                }
            }
            if rnd(4) == 0 {
                c = c.compression(Compression::Zstd(1));
            }
            o = o.component(c);
        }
        match w.add(o) {
            Ok(()) => ok += 1,
            Err(_) => refused += 1,
        }
    }
    assert!(ok > total / 20 && refused > total / 20, "both verdicts exercised: {ok} accepted, {refused} refused");
    let bytes = w.finish().unwrap();
    assert_eq!(File::parse(&bytes).unwrap().len(), ok);
}

#[test]
#[cfg_attr(miri, ignore = "hashes a few hundred thousand names")]
fn names_crafted_to_collide_are_still_written_and_refused_once() {
    // More colliding names than a probe may walk: the name set moves to
    // its ordered tree mid-file; the file is the same as ever.
    let names = names::colliding(400, 10);
    let mut w = Writer::new(Vec::new());
    for (i, n) in names.iter().enumerate() {
        w.add_slice(n, &[1], &[i as u32]).unwrap();
    }
    for n in [&names[0], &names[300], &names[399]] {
        let e = w.add_slice(n, &[1], &[0u32]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::DuplicateKey, "{n}");
        assert!(w.contains(n));
    }
    assert!(!w.contains("t"));
    let bytes = w.finish().unwrap();
    let f = File::parse(&bytes).unwrap();
    assert_eq!(f.len(), 400);
    for (i, n) in names.iter().enumerate() {
        assert_eq!(f.require(n).unwrap().data().unwrap().to_vec_of::<u32>().unwrap(), [i as u32]);
    }
}

#[test]
fn zstd_if_smaller_keeps_incompressible_components_raw() {
    // Bytes zstd cannot shrink (a xorshift stream), and bytes it can.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let noise: Vec<u8> = (0..4096)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let zeros = vec![0u8; 4096];
    let chunks = |b: &Vec<u8>| b.chunks(1000).map(<[u8]>::to_vec).collect::<Vec<_>>();
    let mut w = Writer::new(Vec::new());
    let mode = Compression::ZstdIfSmaller(3);
    for (name, data) in [("noise", Data::bytes(&noise)), ("zeros", Data::bytes(&zeros))] {
        w.add(NewObject::dense(name, &[4096], DType::U8, data).compression(mode).checksum(Checksum::Crc32c)).unwrap();
    }
    // Streamed sources, and the empty component (no frame is smaller than nothing).
    for (name, b) in [("noise_stream", &noise), ("zeros_stream", &zeros)] {
        let data = Data::from_chunks(4096, chunks(b).into_iter());
        w.add(NewObject::dense(name, &[4096], DType::U8, data).compression(mode)).unwrap();
    }
    w.add(NewObject::dense("empty", &[0], DType::U8, &[][..]).compression(mode)).unwrap();
    assert_eq!(w.kept_raw(), 3);
    let bytes = w.finish().unwrap();

    let f = File::parse(&bytes).unwrap();
    for (name, want, encoding) in [
        ("noise", &noise, Encoding::Raw),
        ("zeros", &zeros, Encoding::Zstd),
        ("noise_stream", &noise, Encoding::Raw),
        ("zeros_stream", &zeros, Encoding::Zstd),
    ] {
        let c = f.require(name).unwrap().data().unwrap();
        assert_eq!(c.encoding(), encoding, "{name}");
        assert_eq!(c.to_vec().unwrap(), *want, "{name}");
        match encoding {
            // v1.2: a raw component has no `uncompressed_length`, and is no larger.
            Encoding::Raw => {
                assert_eq!(c.uncompressed_length(), None);
                assert!(!keys(c.fields()).contains(&"uncompressed_length"));
                assert_eq!(c.length(), 4096);
                assert!(c.stored_bytes().is_ok());
            }
            Encoding::Zstd => {
                assert_eq!(c.uncompressed_length(), Some(4096));
                assert!(c.length() < 4096);
            }
            other => panic!("{name}: the v1.2 writer wrote {other:?}"),
        }
    }
    for name in ["noise", "zeros"] {
        assert_eq!(f.require(name).unwrap().data().unwrap().verify_digest().unwrap(), crate::digest::Verified::Ok);
    }
    assert_eq!(f.require("empty").unwrap().data().unwrap().encoding(), Encoding::Raw);

    // The same objects with plain zstd give zstd frames, even when larger.
    let mut w = Writer::new(Vec::new());
    w.add(NewObject::dense("noise", &[4096], DType::U8, &noise).compression(Compression::Zstd(3))).unwrap();
    assert_eq!(w.kept_raw(), 0);
    let bytes = w.finish().unwrap();
    let c = File::parse(&bytes).unwrap().require("noise").unwrap().data().unwrap();
    assert_eq!((c.encoding(), c.uncompressed_length()), (Encoding::Zstd, Some(4096)));
    assert!(c.length() > 4096);
}

#[test]
fn zstd_if_smaller_reports_a_short_stream() {
    let mut w = Writer::new(Vec::new());
    let data = Data::from_chunks(10, [vec![1u8; 4]].into_iter());
    let e = w.add(NewObject::dense("s", &[10], DType::U8, data).compression(Compression::ZstdIfSmaller(3))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LengthMismatch { expected: 10, actual: 4 });
    // A component kept raw counts only once its object is added.
    let obj = NewObject::new("t", Format::Other("pair"), &[2])
        .with_component("tiny", DType::U8, &[1u8, 2][..])
        .with_component("short", DType::U8, Data::from_chunks(10, [vec![1u8; 4]].into_iter()))
        .compression(Compression::ZstdIfSmaller(3));
    assert_eq!(w.add(obj).unwrap_err().kind(), ErrorKind::LengthMismatch { expected: 10, actual: 4 });
    assert_eq!(w.kept_raw(), 0);
    // The writer stays usable.
    w.add_slice("t", &[1], &[1u8]).unwrap();
    assert_eq!(File::parse(&w.finish().unwrap()).unwrap().len(), 1);
}
