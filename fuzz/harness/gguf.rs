//! `zt convert`'s GGUF parser: the command is a binary crate, so its files
//! are included by path (`fuzz.rs` holds the checks).

#[path = "../../cli/src/convert/gguf/fuzz.rs"]
pub mod fuzz;
#[path = "../../cli/src/convert/gguf/ggml.rs"]
pub mod ggml;
#[path = "../../cli/src/convert/gguf/parse.rs"]
pub mod parse;
