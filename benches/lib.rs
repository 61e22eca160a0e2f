//! Benchmark-only crate: see `open.rs` and `README.md` in this folder.
