//! Attribute values: every CBOR value reachable, walked with a depth bound.

use super::*;

pub(crate) fn walk_map(m: ztensor::Map<'_>, depth: usize) {
    let mut n = 0;
    for (k, v) in m.iter() {
        n += 1;
        walk_value(k, depth + 1);
        walk_value(v, depth + 1);
        if let Some(key) = k.as_str() {
            let got = m.get(key).unwrap_or_else(|| panic!("Map::get({key:?}) of a listed key"));
            assert_eq!(got.manifest_offset(), v.manifest_offset(), "Map::get({key:?})");
        }
    }
    assert_eq!(n, m.len());
    assert_eq!(m.is_empty(), n == 0);
    // Debug formatting recurses: only after the depth checks above.
    if debug_values() {
        let _ = format!("{m:?}");
    }
}

pub(crate) fn walk_value(v: Value<'_>, depth: usize) {
    assert!(depth <= MAX_DEPTH + 8, "walked deeper than MAX_DEPTH");
    let raw = v.raw();
    assert!(!raw.is_empty(), "a value with no encoding");
    let _ = (v.as_u64(), v.as_i64(), v.as_f64(), v.as_bool(), v.as_str(), v.as_bytes(), v.is_null());
    let _ = v.untagged();
    match v.get() {
        ValueRef::Uint(x) => assert_eq!(v.as_u64(), Some(x)),
        ValueRef::NegInt(x) => {
            if let Some(i) = v.as_i64() {
                assert_eq!(i, -1 - x as i64);
            }
        }
        ValueRef::Bytes(c) | ValueRef::Text(c) => {
            let total: usize = c.iter().map(<[u8]>::len).sum();
            assert_eq!(total, c.len());
            assert_eq!(c.is_empty(), total == 0);
            if let Some(b) = c.contiguous() {
                assert_eq!(b.len(), total);
            }
            let _ = format!("{c:?}");
        }
        ValueRef::Array(a) => {
            let mut n = 0;
            for item in a.iter() {
                n += 1;
                walk_value(item, depth + 1);
            }
            assert_eq!(n, a.len());
            assert_eq!(a.is_empty(), n == 0);
        }
        ValueRef::Map(m) => walk_map(m, depth), // its keys and values are one level down
        ValueRef::Tag(_, inner) => {
            if known("deep-tags") {
                // Follow the chain without recursing.
                let mut inner = inner;
                while let ValueRef::Tag(_, next) = inner.get() {
                    inner = next;
                }
                walk_value(inner, depth + 1);
            } else {
                walk_value(inner, depth + 1);
            }
        }
        ValueRef::Bool(b) => assert_eq!(v.as_bool(), Some(b)),
        ValueRef::Null => assert!(v.is_null()),
        ValueRef::Undefined | ValueRef::Simple(_) | ValueRef::Float(_) => {}
    }
    if debug_values() {
        let _ = format!("{v:?}");
    }
}
