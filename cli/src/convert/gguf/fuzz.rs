//! What the fuzz target `gguf` checks on every input (fuzz/harness/mod.rs
//! includes this file, `parse.rs` and `ggml.rs`; `tests/fuzz_replay.rs`
//! replays its corpus): parsing never panics, and an accepted file is
//! consistent.

use super::parse::{elements, parse, MAX_DIMS};
use std::collections::HashSet;

/// Parse `data`; if accepted, check every tensor.
pub fn fuzz_one(data: &[u8]) {
    let Ok(g) = parse(data) else { return };
    let mut names = HashSet::new();
    let mut spans = Vec::new();
    for t in &g.tensors {
        assert!(names.insert(t.name.as_str()), "duplicate name {:?}", t.name);
        assert!(t.shape.len() <= MAX_DIMS as usize);
        let elements = elements(&t.shape).expect("no overflow");
        assert_eq!(elements % t.ty.elems_per_block, 0);
        assert_eq!(t.data.len() as u64, elements / t.ty.elems_per_block * t.ty.block_bytes);
        let start = t.data.as_ptr() as usize - data.as_ptr() as usize;
        assert!(start + t.data.len() <= data.len());
        if !t.data.is_empty() {
            spans.push((start, start + t.data.len()));
        }
    }
    spans.sort_unstable();
    assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0), "overlapping tensors");
}
