//! The v2 reference interpreter (PyPI ztensor 2.1.2) for interoperability
//! tests: `ZT_REFERENCE_V2_PYTHON`, failing loudly when it is unusable.
//! Included by path from tests/writer_v2.rs, ffi/tests/write_v2.rs and
//! cli/tests/reference_v2/mod.rs.

use std::path::Path;
use std::process::Command;

/// The PyPI `ztensor` version the tests compare with.
pub const REFERENCE_VERSION: &str = "2.1.2";

pub fn python() -> String {
    std::env::var("ZT_REFERENCE_V2_PYTHON").ok().filter(|s| !s.is_empty()).unwrap_or_else(|| "python3".to_owned())
}

/// Run the reference interpreter; panic loudly if it is not usable.
pub fn run_python(script: &str, args: &[&Path]) -> String {
    let py = python();
    let out = Command::new(&py).arg("-c").arg(script).args(args).output().unwrap_or_else(|e| {
        panic!("\n\nREFERENCE NOT AVAILABLE: cannot run `{py}` ({e}).\nSet ZT_REFERENCE_V2_PYTHON to a Python with `pip install ztensor=={REFERENCE_VERSION} numpy`.\n\n")
    });
    if !out.status.success() {
        panic!(
            "\n\nreference run with `{py}` failed ({}). Is ztensor=={REFERENCE_VERSION} installed there \
             (ZT_REFERENCE_V2_PYTHON)?\n{}\n",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    String::from_utf8(out.stdout).unwrap()
}
