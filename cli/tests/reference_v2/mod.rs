//! What the tests that run the v2 reference share: PyPI `ztensor` 2.1.2,
//! run by `$ZT_REFERENCE_V2_PYTHON` (else `python3`), which must import it
//! and numpy. If it cannot, the tests that call [`run_python`] FAIL: they
//! never pass without having run the reference.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

pub const REFERENCE_VERSION: &str = "2.1.2";

/// The first bytes of every v2 file (§2.1).
pub const V2_MAGIC: &[u8] = b"\x89ZT2\r\n\x1a\n";

fn python() -> String {
    std::env::var("ZT_REFERENCE_V2_PYTHON").ok().filter(|s| !s.is_empty()).unwrap_or_else(|| "python3".to_owned())
}

/// Run the reference interpreter on `script` (which must first check the
/// version it runs); panic loudly if it is not usable or the script fails.
pub fn run_python(script: &str, args: &[&str]) -> String {
    let py = python();
    let out = Command::new(&py).arg("-c").arg(script).args(args).output().unwrap_or_else(|e| {
        panic!(
            "\n\nREFERENCE NOT AVAILABLE: cannot run `{py}` ({e}).\nSet ZT_REFERENCE_V2_PYTHON to a Python with \
             `pip install ztensor=={REFERENCE_VERSION} numpy`.\n\n"
        )
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

/// Prefix of every script: refuse any other reference version.
pub const CHECK_VERSION: &str = "\
import importlib.metadata as m, sys
v = m.version('ztensor')
if v != '2.1.2':
    sys.exit('reference ztensor is ' + v + ', expected 2.1.2')
import ztensor
";

/// Run our `zt`.
pub fn zt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zt")).args(args).output().expect("run zt")
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
