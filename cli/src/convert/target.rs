//! Checks on OUT before anything is read or written: it is not `-`
//! (stdout), not a directory, not IN itself (same device and inode: also through a symbolic
//! or hard link), and its extension does not name another format (a `.zt`
//! under a `.npy` name would mislead every later reader).

use crate::{input, Fail};
use std::path::Path;

/// Extensions of other tensor and data formats, refused for OUT.
const OTHER_FORMATS: &[&str] = &[
    "safetensors",
    "npy",
    "npz",
    "pt",
    "pth",
    "ckpt",
    "bin",
    "gguf",
    "ggml",
    "onnx",
    "h5",
    "hdf5",
    "pkl",
    "pickle",
    "json",
    "tflite",
    "pb",
    "msgpack",
];

/// Refuse an OUT that would destroy or disguise data.
pub fn check(in_path: &Path, out_path: &Path) -> Result<(), Fail> {
    if input::is_stdin(out_path) {
        // A file is published by renaming it into place: stdout cannot be OUT.
        return Err(Fail::Refused("OUT cannot be '-': zt convert writes a file (name it)".into()));
    }
    if out_path.is_dir() {
        return Err(Fail::input(out_path, "is a directory"));
    }
    if !input::is_stdin(in_path) && same_file(in_path, out_path) {
        return Err(Fail::input(
            out_path,
            format!("is the input file {in_path:?}; write to another file (the input would be replaced)"),
        ));
    }
    if let Some(ext) = out_path.extension().and_then(|e| e.to_str()) {
        let lower = ext.to_ascii_lowercase();
        if OTHER_FORMATS.contains(&lower.as_str()) {
            return Err(Fail::input(
                out_path,
                format!("refusing to write a zTensor file under the .{ext} extension of another format (use .zt)"),
            ));
        }
    }
    Ok(())
}

/// Whether both paths name one existing file (links followed).
#[cfg(unix)]
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// Whether both paths name one existing file (by canonical path).
#[cfg(not(unix))]
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}
