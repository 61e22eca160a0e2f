//! Writes the models the Cortex-M firmware (`examples-c/embedded/`) reads
//! from flash, with our writer, and a C header of what the firmware must find.
//!
//!     cargo run --manifest-path ffi/Cargo.toml --example embedded_model -- OUT_DIR
//!
//! OUT_DIR receives:
//! - `model.zt`: v1.2, 100 objects in an unsorted name order: 97 dense
//!   tensors of assorted dtypes (one scalar, one empty), one
//!   `quantized_group`, one `sparse_csr`, one `sparse_coo`; some components
//!   carry CRC-32C or SHA-256 digests; file and object attributes;
//! - `big.zt`: 1,000 small dense tensors (the open-cost measurement);
//! - `hostile_dup.zt`: two objects renamed to the same name (invalid: open fails);
//! - `hostile_digest.zt`: a digested tensor with one data byte flipped
//!   (opens; verification reports a digest mismatch);
//! - `hostile_sparse.zt`: a CSR matrix with a column index out of range
//!   (opens; verification reports corrupt data);
//! - `hostile_overlap.zt`: a blob moved inside another one (invalid: open
//!   fails, through the no-heap overlap check and its locating of the blob);
//! - `deep.zt`: one object whose attribute `nest` is an array nested as
//!   deep as the format allows (valid: the CBOR walks' worst case);
//! - `hostile_deep.zt`: the same one level deeper (invalid: too deep);
//! - `keys.zt`: one object with 12 attributes under chunked text keys
//!   (valid: the duplicate-key check's deepest path, a sort comparing
//!   chunk by chunk);
//! - `expect.h`: every component's name, role, length and FNV-1a hash of its
//!   stored bytes, every object's format, rank and element count.

use std::fmt::Write as _;
use ztensor_core::write::Data;
use ztensor_core::write::v1_2::{Checksum, NewObject, Writer};
use ztensor_core::{DType, File};

/// Deterministic filler bytes (a 32-bit LCG).
fn bytes(seed: u32, n: usize) -> Vec<u8> {
    let mut s = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 24) as u8
        })
        .collect()
}

/// FNV-1a, 32 bits: the firmware computes the same over each component.
fn fnv1a(b: &[u8]) -> u32 {
    b.iter().fold(0x811c_9dc5u32, |h, &x| (h ^ x as u32).wrapping_mul(0x0100_0193))
}

fn u64s(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The 100-object model.
fn model() -> Vec<u8> {
    let mut w = Writer::new(Vec::new());
    w.set_attribute("framework", "ztensor-embedded-example").unwrap();
    w.set_attribute("layers", 31u64).unwrap();
    // 31 layers × 3 tensors, inserted layer by layer: "layers.10.*" comes
    // after "layers.9.*", so the names are not in sorted order.
    let kinds: [(&str, DType, &[u64]); 3] =
        [("weight", DType::F32, &[8, 8]), ("bias", DType::F16, &[8]), ("scale", DType::I8, &[4, 4])];
    let mut seed = 1;
    for layer in 0..31u32 {
        for (kind, dtype, shape) in kinds {
            let n = shape.iter().product::<u64>() as usize * dtype.width() as usize;
            let checksum = match seed % 7 {
                0 => Checksum::Sha256,
                1 | 4 => Checksum::Crc32c,
                _ => Checksum::None,
            };
            let mut o = NewObject::dense(format!("layers.{layer}.{kind}"), shape, dtype, Data::owned(bytes(seed, n)))
                .checksum(checksum);
            if kind == "weight" && layer % 10 == 0 {
                o = o.attribute("init", "xavier").attribute("layer", layer as u64);
            }
            w.add(o).unwrap();
            seed += 1;
        }
    }
    w.add(NewObject::dense("embed.tokens", &[32, 16], DType::BF16, Data::owned(bytes(900, 32 * 16 * 2)))).unwrap();
    w.add(NewObject::dense(
        "head.mask",
        &[64],
        DType::Bool,
        Data::owned(bytes(901, 64).iter().map(|b| b & 1).collect()),
    ))
    .unwrap();
    w.add(NewObject::dense("temperature", &[], DType::F64, Data::owned(0.7f64.to_le_bytes().to_vec()))).unwrap();
    w.add(NewObject::dense("empty", &[0, 4], DType::U32, Data::owned(Vec::new()))).unwrap();
    // quantized_group: 4-bit weights, 16 rows × 32 columns, groups of 32.
    w.add(
        NewObject::quantized_group(
            "head.qweight",
            &[16, 32],
            (DType::U8, Data::owned(bytes(902, 16 * 32 / 2))),
            (DType::F16, Data::owned(bytes(903, 16 * 2))),
            (DType::U8, Data::owned(bytes(904, 16))),
            4,
            32,
            "u8_low_first",
        )
        .checksum(Checksum::Crc32c),
    )
    .unwrap();
    // sparse_csr 8 × 16 with 10 non-zeros; sparse_coo 3-D with 5.
    let indices = [0u64, 3, 15, 1, 2, 7, 0, 9, 14, 5];
    let indptr = [0u64, 2, 3, 3, 5, 6, 8, 9, 10];
    w.add(
        NewObject::sparse_csr(
            "graph.adjacency",
            [8, 16],
            DType::F32,
            Data::owned(bytes(905, 40)),
            Data::owned(u64s(&indices)),
            Data::owned(u64s(&indptr)),
        )
        .checksum(Checksum::Sha256),
    )
    .unwrap();
    let coords = [0u64, 1, 2, 3, 3, /* dim 1 */ 0, 0, 4, 1, 2, /* dim 2 */ 7, 6, 5, 4, 0];
    w.add(NewObject::sparse_coo(
        "graph.features",
        &[4, 5, 8],
        DType::I32,
        Data::owned(bytes(906, 20)),
        Data::owned(u64s(&coords)),
    ))
    .unwrap();
    w.finish().unwrap()
}

/// 1,000 small dense tensors, in writer order (unsorted names).
fn big() -> Vec<u8> {
    let mut w = Writer::new(Vec::new());
    for i in 0..1000u32 {
        w.add(NewObject::dense(format!("block.{i}.w"), &[4], DType::F32, Data::owned(bytes(i, 16)))).unwrap();
    }
    w.finish().unwrap()
}

/// Replace the only occurrence of `from` in the manifest by `to` (same length).
fn patch_manifest(mut b: Vec<u8>, from: &[u8], to: &[u8]) -> Vec<u8> {
    let start = File::parse(&b).unwrap().tail().manifest_offset as usize;
    let hits: Vec<usize> = (start..b.len() - from.len()).filter(|&i| &b[i..i + from.len()] == from).collect();
    assert_eq!(hits.len(), 1, "{:?} occurs {} times", String::from_utf8_lossy(from), hits.len());
    b[hits[0]..hits[0] + to.len()].copy_from_slice(to);
    b
}

/// The file offset of `object`'s `role` component.
fn offset_of(b: &[u8], object: &str, role: &str) -> usize {
    File::parse(b).unwrap().require(object).unwrap().require(role).unwrap().offset() as usize
}

fn hostile_dup() -> Vec<u8> {
    let mut w = Writer::new(Vec::new());
    w.add_slice("dup.a", &[2], &[1.0f32, 2.0]).unwrap();
    w.add_slice("dup.b", &[2], &[3.0f32, 4.0]).unwrap();
    patch_manifest(w.finish().unwrap(), b"dup.b", b"dup.a")
}

fn hostile_digest() -> Vec<u8> {
    let mut w = Writer::new(Vec::new());
    w.add(NewObject::dense_slice("signed", &[4], &[1.0f32, 2.0, 3.0, 4.0]).checksum(Checksum::Crc32c)).unwrap();
    let mut b = w.finish().unwrap();
    let at = offset_of(&b, "signed", "data");
    b[at] ^= 0x01;
    b
}

fn hostile_sparse() -> Vec<u8> {
    let mut w = Writer::new(Vec::new());
    let (values, indices, indptr) = ([1.0f32, 2.0], [0u64, 1], [0u64, 1, 2]);
    // No digest (v1.2's default is crc32c): the data rule, not the digest, must catch it.
    w.add(NewObject::sparse_csr_slices("m", [2, 2], &values, &indices, &indptr).checksum(Checksum::None)).unwrap();
    let mut b = w.finish().unwrap();
    // Column index 1 becomes 1 + 2^32: far outside the 2 columns.
    let at = offset_of(&b, "m", "indices") + 8 + 4;
    b[at] = 1;
    b
}

fn hostile_overlap() -> Vec<u8> {
    let mut w = Writer::new(Vec::new());
    w.add_slice("ov.a", &[128], &[1.0f32; 128]).unwrap(); // [64, 576)
    w.add_slice("ov.b", &[16], &[2.0f32; 16]).unwrap(); // [576, 640)
    let b = w.finish().unwrap();
    assert_eq!(offset_of(&b, "ov.b", "data"), 576);
    // ov.b's offset 576 (CBOR 0x19 0x0240) becomes 320: inside ov.a.
    patch_manifest(b, &[0x19, 0x02, 0x40], &[0x19, 0x01, 0x40])
}

/// A v1.2 file by hand: one `u8` byte in object `deep`, whose attribute
/// `nest` is `levels` nested one-element arrays around a 0.
fn deep(levels: usize) -> Vec<u8> {
    let mut attributes = vec![0xa1, 0x64];
    attributes.extend_from_slice(b"nest");
    attributes.extend(std::iter::repeat(0x81).take(levels));
    attributes.push(0x00);
    by_hand("deep", &attributes, &[])
}

/// A v1.2 file by hand: object `keys` with 12 attributes whose keys are
/// chunked text, `(_ "k" "00")` ..., and the same map in its component,
/// as the value of an unknown field `x` and as the key of another (the
/// duplicate-key check sorts them, comparing chunk by chunk: its deepest
/// path, deepest inside a component).
fn chunked_keys() -> Vec<u8> {
    let mut map = vec![0xac];
    for i in 0..12u8 {
        map.extend_from_slice(&[0x7f, 0x61, b'k', 0x62, b'0' + i / 10, b'0' + i % 10, 0xff, i]);
    }
    // In the component: `"x": map` and `map: 0` (a map as a key).
    let mut fields = vec![0x61, b'x'];
    fields.extend_from_slice(&map);
    fields.extend_from_slice(&map);
    fields.push(0x00);
    by_hand("keys", &map, &fields)
}

/// A v1.2 file by hand: one dense `u8` object `name` of one byte (0x2a)
/// with the CBOR map `attributes`; `fields`, when not empty, are two more
/// keys and values in its component.
fn by_hand(name: &str, attributes: &[u8], fields: &[u8]) -> Vec<u8> {
    let text = |m: &mut Vec<u8>, t: &str| {
        assert!(t.len() < 24);
        m.push(0x60 | t.len() as u8);
        m.extend_from_slice(t.as_bytes());
    };
    let mut m = vec![0xa2];
    text(&mut m, "version");
    text(&mut m, "1.2.0");
    text(&mut m, "objects");
    m.push(0xa1);
    text(&mut m, name);
    m.push(0xa4);
    text(&mut m, "shape");
    m.extend_from_slice(&[0x81, 0x01]);
    text(&mut m, "format");
    text(&mut m, "dense");
    text(&mut m, "attributes");
    m.extend_from_slice(attributes);
    text(&mut m, "components");
    m.push(0xa1);
    text(&mut m, "data");
    m.push(if fields.is_empty() { 0xa3 } else { 0xa5 });
    m.extend_from_slice(fields);
    text(&mut m, "dtype");
    text(&mut m, "u8");
    text(&mut m, "offset");
    m.extend_from_slice(&[0x18, 64]);
    text(&mut m, "length");
    m.push(0x01);
    let mut b = b"ZTEN1000".to_vec();
    b.resize(64, 0);
    b.push(0x2a);
    b.extend_from_slice(&m);
    b.extend_from_slice(&(m.len() as u64).to_le_bytes());
    b.extend_from_slice(b"ZTEN1000");
    b
}

/// Nesting levels of `deep.zt`'s attribute: the manifest's limit
/// (`MAX_DEPTH` counts the root map, `objects`, the object, `attributes`).
const DEEP: usize = ztensor_core::MAX_DEPTH - 4;

/// C string literal for `s` (names here are plain ASCII).
fn c_str(s: &str) -> String {
    assert!(s.bytes().all(|b| b.is_ascii_graphic() || b == b' '));
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn expect_h(model: &[u8], big: &[u8]) -> String {
    let f = File::parse(model).unwrap();
    let mut objects = String::new();
    let mut comps = String::new();
    let (mut ncomp, mut ndigest) = (0, 0);
    for o in f.objects() {
        writeln!(
            objects,
            "    {{{}, {}, {}, {}, {}}},",
            c_str(o.name()),
            c_str(o.format().name()),
            o.shape().ndim(),
            o.shape().numel(),
            o.component_count()
        )
        .unwrap();
        for c in o.components() {
            let b = c.stored_bytes().unwrap();
            writeln!(comps, "    {{{}, {}, {}u, 0x{:08x}u}},", c_str(o.name()), c_str(c.role()), b.len(), fnv1a(b))
                .unwrap();
            ncomp += 1;
            ndigest += c.digest().is_some() as usize;
        }
    }
    let mut s =
        String::from("/* Generated by ffi/examples/embedded_model.rs: what the firmware must find in model.zt. */\n");
    s += "#pragma once\n#include <stdint.h>\n\n";
    s += "typedef struct { const char *name; const char *format; uint32_t ndim; uint64_t numel; uint32_t components; } expect_object;\n";
    s += "typedef struct { const char *object; const char *role; uint32_t length; uint32_t fnv1a; } expect_component;\n\n";
    writeln!(s, "#define EXPECT_OBJECTS {}", f.len()).unwrap();
    writeln!(s, "#define EXPECT_COMPONENTS {ncomp}").unwrap();
    writeln!(s, "#define EXPECT_DIGESTS {ndigest}").unwrap();
    writeln!(s, "#define EXPECT_MODEL_BYTES {}", model.len()).unwrap();
    writeln!(s, "#define EXPECT_BIG_OBJECTS {}", File::parse(big).unwrap().len()).unwrap();
    writeln!(s, "\nstatic const expect_object expect_objects[EXPECT_OBJECTS] = {{\n{objects}}};").unwrap();
    writeln!(s, "\nstatic const expect_component expect_components[EXPECT_COMPONENTS] = {{\n{comps}}};").unwrap();
    s
}

fn main() {
    let out = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: embedded_model OUT_DIR"));
    std::fs::create_dir_all(&out).unwrap();
    let (m, b) = (model(), big());
    let write = |name: &str, bytes: &[u8]| std::fs::write(out.join(name), bytes).unwrap();
    write("model.zt", &m);
    write("big.zt", &b);
    write("hostile_dup.zt", &hostile_dup());
    write("hostile_digest.zt", &hostile_digest());
    write("hostile_sparse.zt", &hostile_sparse());
    write("hostile_overlap.zt", &hostile_overlap());
    write("deep.zt", &deep(DEEP));
    write("hostile_deep.zt", &deep(DEEP + 1));
    write("keys.zt", &chunked_keys());
    write("expect.h", expect_h(&m, &b).as_bytes());
    let deep_ok = deep(DEEP);
    let f = File::parse(&deep_ok).unwrap();
    assert_eq!(f.require("deep").unwrap().data().unwrap().stored_bytes().unwrap(), &[0x2a]);
    let keys = chunked_keys();
    assert_eq!(File::parse(&keys).unwrap().require("keys").unwrap().attributes().len(), 12);
    let too_deep = File::parse(&deep(DEEP + 1)).unwrap_err();
    assert_eq!(too_deep.kind(), ztensor_core::ErrorKind::TooDeep, "{too_deep}");
    // The hostile files really are what their names say (checked on the host).
    assert!(File::parse(&hostile_dup()).is_err());
    let bad_digest = hostile_digest();
    assert!(File::parse(&bad_digest).unwrap().require("signed").unwrap().data().unwrap().verify_digest().is_err());
    let bad_sparse = hostile_sparse();
    assert!(File::parse(&bad_sparse).unwrap().require("m").unwrap().check_data().is_err());
    let overlap = File::parse(&hostile_overlap()).unwrap_err();
    assert!(matches!(overlap.kind(), ztensor_core::ErrorKind::Overlap { offset: 320, length: 64 }), "{overlap}");
    println!("embedded_model: {} objects, {} bytes; big: {} bytes", File::parse(&m).unwrap().len(), m.len(), b.len());
}
