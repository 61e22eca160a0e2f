//! What the tests that run the v2 reference share: PyPI `ztensor` 2.1.2,
//! run by `$ZT_REFERENCE_V2_PYTHON` (else `python3`), which must import it
//! and numpy. If it cannot, the tests that call [`run_python`] FAIL: they
//! never pass without having run the reference.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

#[path = "../../../tests/common/reference_v2.rs"]
mod common;

/// The first bytes of every v2 file (§2.1).
pub const V2_MAGIC: &[u8] = b"\x89ZT2\r\n\x1a\n";

/// Run the reference interpreter on `script` (which must first check the
/// version it runs) with these arguments; panic loudly if it is not usable
/// or the script fails.
pub fn run_python(script: &str, args: &[&str]) -> String {
    common::run_python(script, &args.iter().map(Path::new).collect::<Vec<_>>())
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
