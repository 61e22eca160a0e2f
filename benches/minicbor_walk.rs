//! The reader's validating CBOR walk (`src/cbor.rs`, `Reader::walk`) with
//! minicbor's `Decoder` as its token layer, to time against the hand-written
//! one (`ztensor::__bench_walk`) on the same manifest.
//!
//! The same work as `Reader::walk`: one iterative pass (a fixed stack of
//! `MAX_DEPTH` frames, no recursion), every item well-formed, text checked
//! as UTF-8 (definite and indefinite), container counts checked against the
//! bytes left, tags and containers counted toward the depth limit, and the
//! keys of every map pushed to a scratch list and checked pairwise different
//! when the map ends (pairwise up to 8 keys, sorted beyond, as the core's
//! `Scratch` does). Keys compare by content for text and byte strings, by
//! encoded bytes otherwise (the core also compares integers by value: the
//! manifests here have text keys only).

use minicbor::data::Type;
use minicbor::Decoder;

/// Why the walk stopped (the core's `ErrorKind`s, reduced to what differs).
#[derive(Debug, PartialEq, Eq)]
pub enum WalkError {
    Malformed,
    TooDeep,
    DuplicateKey,
    LengthTooLarge,
}

impl From<minicbor::decode::Error> for WalkError {
    fn from(_: minicbor::decode::Error) -> Self {
        WalkError::Malformed
    }
}

/// A key: the byte range of its content (strings) or of its encoding.
type Key = (usize, usize);

#[derive(Clone, Copy)]
struct Frame {
    left: Option<u64>,
    map: bool,
    key_next: bool,
    item_start: usize,
    seg: usize,
}

/// Walk one item from the start of `buf`; returns the bytes it took.
/// `keys`, when given, is scratch for the duplicate-key checks (cleared by
/// the caller, kept to reuse its capacity).
pub fn walk(buf: &[u8], mut keys: Option<&mut Vec<Key>>) -> Result<usize, WalkError> {
    let max_depth = ztensor::MAX_DEPTH;
    let mut d = Decoder::new(buf);
    let empty = Frame { left: Some(0), map: false, key_next: false, item_start: 0, seg: 0 };
    let mut stack = [empty; ztensor::MAX_DEPTH];
    let mut sp = 0usize;
    let mut item_start = 0usize;
    loop {
        let start = d.position();
        let mut done = true;
        // The content of a definite string item that is not tagged: its key form.
        let mut content: Option<Key> = None;
        match d.datatype()? {
            Type::U8 | Type::U16 | Type::U32 | Type::U64 | Type::I8 | Type::I16 | Type::I32 | Type::I64 | Type::Int => {
                d.int()?;
            }
            Type::Bool | Type::Null | Type::Undefined | Type::Simple | Type::F16 | Type::F32 | Type::F64 => {
                d.skip()?;
            }
            Type::Bytes => {
                let b = d.bytes()?;
                content = (start == item_start).then(|| span(buf, b));
            }
            Type::String => {
                let s = d.str()?;
                content = (start == item_start).then(|| span(buf, s.as_bytes()));
            }
            Type::BytesIndef => {
                for c in d.bytes_iter()? {
                    c?;
                }
            }
            Type::StringIndef => {
                for c in d.str_iter()? {
                    c?;
                }
            }
            t @ (Type::Array | Type::ArrayIndef | Type::Map | Type::MapIndef) => {
                let map = matches!(t, Type::Map | Type::MapIndef);
                let len = if map { d.map()? } else { d.array()? };
                let per = if map { 2 } else { 1 };
                if let Some(n) = len {
                    // Every item takes at least a byte.
                    if n.saturating_mul(per) > (buf.len() - d.position()) as u64 {
                        return Err(WalkError::LengthTooLarge);
                    }
                }
                let left = len.map(|n| n * per);
                if left != Some(0) {
                    if sp + 1 > max_depth {
                        return Err(WalkError::TooDeep);
                    }
                    stack[sp] = Frame { left, map, key_next: true, item_start, seg: keys.as_ref().map_or(0, |k| k.len()) };
                    sp += 1;
                    done = false;
                }
            }
            Type::Tag => {
                d.tag()?;
                if sp + 1 > max_depth {
                    return Err(WalkError::TooDeep);
                }
                stack[sp] = Frame { left: Some(1), map: false, key_next: false, item_start, seg: keys.as_ref().map_or(0, |k| k.len()) };
                sp += 1;
                done = false;
            }
            Type::Break => match sp.checked_sub(1).map(|i| stack[i]) {
                Some(f) if f.left.is_none() && (!f.map || f.key_next) && start == item_start => {
                    // minicbor consumes breaks only inside its own iterators.
                    d.set_position(start + 1);
                    sp -= 1;
                    if let (true, Some(k)) = (f.map, keys.as_deref_mut()) {
                        check_unique(buf, k, f.seg)?;
                    }
                    item_start = f.item_start;
                }
                _ => return Err(WalkError::Malformed),
            },
            Type::Unknown(_) => return Err(WalkError::Malformed),
        }
        if !done {
            item_start = d.position();
            continue;
        }
        loop {
            if sp == 0 {
                return Ok(d.position());
            }
            let f = &mut stack[sp - 1];
            if f.map && f.key_next {
                // Strings by content; anything else by its encoded bytes.
                if let Some(k) = keys.as_deref_mut() {
                    k.push(content.unwrap_or((item_start, d.position())));
                }
            }
            f.key_next = !f.key_next;
            if let Some(n) = &mut f.left {
                *n -= 1;
                if *n == 0 {
                    let f = *f;
                    sp -= 1;
                    if let (true, Some(k)) = (f.map, keys.as_deref_mut()) {
                        check_unique(buf, k, f.seg)?;
                    }
                    item_start = f.item_start;
                    content = None;
                    continue;
                }
            }
            break;
        }
        item_start = d.position();
    }
}

/// The range of `part` (a slice of `buf`) inside `buf`.
fn span(buf: &[u8], part: &[u8]) -> Key {
    let at = part.as_ptr() as usize - buf.as_ptr() as usize;
    (at, at + part.len())
}

/// The keys pushed since `seg` are pairwise different; then pop them.
fn check_unique(buf: &[u8], keys: &mut Vec<Key>, seg: usize) -> Result<(), WalkError> {
    let s = &mut keys[seg..];
    let key = |k: &Key| &buf[k.0..k.1];
    let dup = if s.len() <= 8 {
        (1..s.len()).any(|i| s[..i].iter().any(|p| key(p) == key(&s[i])))
    } else {
        s.sort_unstable_by(|a, b| key(a).cmp(key(b)));
        s.windows(2).any(|w| key(&w[0]) == key(&w[1]))
    };
    keys.truncate(seg);
    if dup {
        Err(WalkError::DuplicateKey)
    } else {
        Ok(())
    }
}
