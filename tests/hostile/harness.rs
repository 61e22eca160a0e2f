// The hostile tests' harness and file builders, `include!`d by
// `tests/hostile/main.rs` and by `tests/compact.rs` (which runs the same
// rule modules with the compact reader compared on every file): each
// includer defines `observe(bytes)`, called on every file the rules build.

// ============================================================== harness

/// Parse `bytes`, which must be refused; returns the error of `File::parse`.
#[track_caller]
fn reject(bytes: &[u8]) -> Error {
    observe(bytes);
    let e = match File::parse(bytes) {
        Ok(f) => panic!("hostile file accepted: {f:?}\nfile bytes: {}", hex(bytes)),
        Err(e) => e,
    };
    let mut scratch = vec![[0u64; 2]; 4096];
    match File::parse_with_scratch(bytes, &mut scratch) {
        Ok(f) => panic!("parse_with_scratch accepted what parse refused ({e}): {f:?}"),
        Err(e2) => assert_eq!(
            e2.kind(),
            e.kind(),
            "parse_with_scratch disagrees with parse"
        ),
    }
    if let Ok(tail) = Tail::from_file(bytes) {
        let m = &bytes
            [tail.manifest_offset as usize..(tail.manifest_offset + tail.manifest_len) as usize];
        let footer = &bytes[bytes.len() - 16..];
        match File::parse_tail(footer, m, bytes.len() as u64) {
            Ok(f) => panic!("parse_tail accepted what parse refused ({e}): {f:?}"),
            Err(e3) => assert_eq!(
                e3.kind(),
                e.kind(),
                "parse_tail disagrees with parse ({e} vs {e3})"
            ),
        }
    }
    e
}

/// Parse `bytes`, which must be refused with exactly `kind`.
#[track_caller]
fn reject_kind(bytes: &[u8], kind: ErrorKind) -> Error {
    let e = reject(bytes);
    assert_eq!(
        e.kind(),
        kind,
        "wrong error kind: {e}\nfile bytes: {}",
        hex(bytes)
    );
    e
}

/// Parse `bytes`, which must be refused with a kind matching a pattern.
macro_rules! reject_match {
    ($bytes:expr, $pat:pat) => {{
        let b: &[u8] = &$bytes;
        let e = reject(b);
        assert!(
            matches!(e.kind(), $pat),
            "expected {}, got {e:?}\nfile bytes: {}",
            stringify!($pat),
            hex(b)
        );
        e
    }};
}

/// A v1.0 or v1.1 file: read with `v1-legacy` (which `std` implies),
/// refused as an unsupported version without it (the firmware's build).
#[track_caller]
fn legacy(bytes: &[u8]) -> Option<File<'_>> {
    if cfg!(feature = "v1-legacy") {
        return Some(accept(bytes));
    }
    observe(bytes);
    let e = File::parse(bytes).map(|f| panic!("a v1.0/v1.1 file read without v1-legacy: {f:?}")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::UnsupportedVersion { major: 1 }, "{e}");
    None
}

/// Parse `bytes`, which must be accepted.
#[track_caller]
fn accept(bytes: &[u8]) -> File<'_> {
    observe(bytes);
    match File::parse(bytes) {
        Ok(f) => f,
        Err(e) => panic!("valid file rejected: {e}\nfile bytes: {}", hex(bytes)),
    }
}

/// Where an error says it happened: object and role names.
#[track_caller]
fn assert_loc(e: &Error, object: Option<&str>, role: Option<&str>) {
    assert_eq!(e.object().map(|n| n.as_str()), object, "object of {e}");
    assert_eq!(e.role().map(|n| n.as_str()), role, "role of {e}");
}

fn hex(b: &[u8]) -> String {
    if b.len() > 600 {
        return format!("({} bytes) {}…", b.len(), hex(&b[..600]));
    }
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn manifest_of(file: &[u8]) -> &[u8] {
    &file[manifest_range(file)]
}

// ============================================================== builders

/// A data region with one 16-byte blob at 64.
fn blobs16() -> Blobs {
    let mut b = Blobs::new();
    assert_eq!(b.add_len(16), 64);
    b
}

/// The `data` component of a dense object map.
fn data(o: &mut Value) -> &mut Value {
    at(at(o, "components"), "data")
}

/// A file of `version` with one dense f32 `[4]` object `w` (16 bytes at 64),
/// after `edit` has changed the object map.
fn dense_file(version: &str, edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut o = dense("f32", &[4], 64, 16);
    edit(&mut o);
    v1_file(&blobs16(), &encode(&manifest(version, [("w", o)])))
}

/// Same as [`dense_file`] but the edit sees the root map.
fn root_file(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut m = manifest("1.2.0", [("w", dense("f32", &[4], 64, 16))]);
    edit(&mut m);
    v1_file(&blobs16(), &encode(&m))
}

/// The object `w` of [`dense_file`], encoded, with its `attributes` value
/// given as raw CBOR (may be malformed).
fn object_raw_attrs(attrs: &[u8]) -> Cbor {
    Cbor::new()
        .map(4)
        .text("shape")
        .value(&shape(&[4]))
        .text("format")
        .text("dense")
        .text("attributes")
        .raw(attrs)
        .text("components")
        .value(&map([("data", comp("f32", 64, 16))]))
        .take()
}

/// A v1.2 file whose object `w` has raw `attributes`.
fn file_raw_attrs(attrs: &[u8]) -> Vec<u8> {
    let m = Cbor::new()
        .map(2)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .map(1)
        .text("w")
        .raw(&object_raw_attrs(attrs).build())
        .build();
    v1_file(&blobs16(), &m)
}

/// A v1.2 file with an extra root field `x` whose value is raw CBOR.
fn file_raw_root_field(value: &[u8]) -> Vec<u8> {
    let m = Cbor::new()
        .map(3)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .value(&map([("w", dense("f32", &[4], 64, 16))]))
        .text("x")
        .raw(value)
        .build();
    v1_file(&blobs16(), &m)
}

/// A v1.2 file whose component `data` has an extra field `x` with a raw value.
fn file_raw_comp_field(value: &[u8]) -> Vec<u8> {
    let c = Cbor::new()
        .map(4)
        .text("dtype")
        .text("f32")
        .text("offset")
        .uint(64)
        .text("length")
        .uint(16)
        .text("x")
        .raw(value)
        .build();
    let m = Cbor::new()
        .map(2)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .map(1)
        .text("w")
        .map(3)
        .text("shape")
        .value(&shape(&[4]))
        .text("format")
        .text("dense")
        .text("components")
        .map(1)
        .text("data")
        .raw(&c)
        .build();
    v1_file(&blobs16(), &m)
}

/// A v1.2 file whose only object's name is given as raw CBOR.
fn file_raw_object_name(name: &[u8]) -> Vec<u8> {
    let m = Cbor::new()
        .map(2)
        .text("version")
        .text("1.2.0")
        .text("objects")
        .map(1)
        .raw(name)
        .value(&dense("f32", &[4], 64, 16))
        .build();
    v1_file(&blobs16(), &m)
}

/// A v0.1 file with one float32 `[4]` tensor `t` (16 bytes at 64), after `edit`.
fn v0_one(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut t = v0_tensor("t", "float32", &[4], 64, 16);
    edit(&mut t);
    v0_file(&blobs16(), &encode(&arr([t])))
}

/// A CSR object `s` of shape `dims` with components (role, dtype, bytes),
/// each blob its own 64-aligned range.
fn sparse_file(version: &str, format: &str, dims: &[u64], comps: &[(&str, &str, u64)]) -> Vec<u8> {
    let mut b = Blobs::new();
    let cs: Vec<(&str, Value)> = comps
        .iter()
        .map(|&(r, d, n)| (r, comp(d, b.add_len(n as usize), n)))
        .collect();
    let o = obj(dims, format, cs);
    v1_file(&b, &encode(&manifest(version, [("s", o)])))
}

/// Two objects `a` and `b` with blobs `[oa, oa+la)` and `[ob, ob+lb)` in a
/// data region of `region` bytes (from 64), listed in manifest order a, b.
fn two_blobs(oa: u64, la: u64, ob: u64, lb: u64, region: usize) -> Vec<u8> {
    let mut b = Blobs::new();
    b.add_len(region);
    let m = manifest(
        "1.2.0",
        [
            ("a", dense("u8", &[la], oa, la)),
            ("b", dense("u8", &[lb], ob, lb)),
        ],
    );
    v1_file(&b, &encode(&m))
}
