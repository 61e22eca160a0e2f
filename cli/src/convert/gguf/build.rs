//! A tiny GGUF writer for tests (the parser's unit tests and
//! `cli/tests/cli_gguf.rs`, which includes this file): whole files, or
//! their pieces for hand-made hostile ones. Written from the GGUF
//! specification, independently of the parser.

#![allow(dead_code)]

/// A metadata value.
#[derive(Clone, Debug)]
pub enum Val {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    Bool(bool),
    Str(String),
    /// Element type, elements (each of that type).
    Arr(u32, Vec<Val>),
    U64(u64),
    I64(i64),
    F64(f64),
}

impl Val {
    /// The GGUF value type.
    pub fn ty(&self) -> u32 {
        match self {
            Val::U8(_) => 0,
            Val::I8(_) => 1,
            Val::U16(_) => 2,
            Val::I16(_) => 3,
            Val::U32(_) => 4,
            Val::I32(_) => 5,
            Val::F32(_) => 6,
            Val::Bool(_) => 7,
            Val::Str(_) => 8,
            Val::Arr(..) => 9,
            Val::U64(_) => 10,
            Val::I64(_) => 11,
            Val::F64(_) => 12,
        }
    }

    /// The value's bytes (without its type).
    pub fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Val::U8(v) => out.push(*v),
            Val::I8(v) => out.extend(v.to_le_bytes()),
            Val::U16(v) => out.extend(v.to_le_bytes()),
            Val::I16(v) => out.extend(v.to_le_bytes()),
            Val::U32(v) => out.extend(v.to_le_bytes()),
            Val::I32(v) => out.extend(v.to_le_bytes()),
            Val::F32(v) => out.extend(v.to_le_bytes()),
            Val::Bool(v) => out.push(u8::from(*v)),
            Val::Str(s) => string(out, s),
            Val::Arr(ty, items) => {
                out.extend(ty.to_le_bytes());
                out.extend((items.len() as u64).to_le_bytes());
                for v in items {
                    v.encode(out);
                }
            }
            Val::U64(v) => out.extend(v.to_le_bytes()),
            Val::I64(v) => out.extend(v.to_le_bytes()),
            Val::F64(v) => out.extend(v.to_le_bytes()),
        }
    }
}

/// A u64 length and the bytes.
pub fn string(out: &mut Vec<u8>, s: &str) {
    out.extend((s.len() as u64).to_le_bytes());
    out.extend(s.as_bytes());
}

/// Magic, version, tensor count, metadata count.
pub fn header(version: u32, n_tensors: u64, n_kv: u64) -> Vec<u8> {
    let mut v = b"GGUF".to_vec();
    v.extend(version.to_le_bytes());
    v.extend(n_tensors.to_le_bytes());
    v.extend(n_kv.to_le_bytes());
    v
}

/// One metadata pair.
pub fn kv(out: &mut Vec<u8>, key: &str, v: &Val) {
    string(out, key);
    out.extend(v.ty().to_le_bytes());
    v.encode(out);
}

/// One tensor info; `dims` fastest first (GGUF order).
pub fn info(out: &mut Vec<u8>, name: &str, dims: &[u64], ty: u32, offset: u64) {
    string(out, name);
    out.extend((dims.len() as u32).to_le_bytes());
    for d in dims {
        out.extend(d.to_le_bytes());
    }
    out.extend(ty.to_le_bytes());
    out.extend(offset.to_le_bytes());
}

/// One tensor of a [`file`]: name, row-major shape, ggml type, bytes.
pub struct T {
    pub name: String,
    pub shape: Vec<u64>,
    pub ty: u32,
    pub data: Vec<u8>,
}

/// A whole well-formed file: each tensor's data at the next multiple of
/// `alignment` (which is written as `general.alignment` unless it is 32).
pub fn file(version: u32, alignment: u64, kvs: &[(&str, Val)], tensors: &[T]) -> Vec<u8> {
    let extra = u64::from(alignment != 32);
    let mut v = header(version, tensors.len() as u64, kvs.len() as u64 + extra);
    if alignment != 32 {
        kv(&mut v, "general.alignment", &Val::U32(alignment as u32));
    }
    for (k, val) in kvs {
        kv(&mut v, k, val);
    }
    let mut data: Vec<u8> = Vec::new();
    for t in tensors {
        data.resize(data.len().next_multiple_of(alignment as usize), 0);
        let dims: Vec<u64> = t.shape.iter().rev().copied().collect();
        info(&mut v, &t.name, &dims, t.ty, data.len() as u64);
        data.extend(&t.data);
    }
    v.resize(v.len().next_multiple_of(alignment as usize), 0);
    v.extend(data);
    v
}
