//! `zt verify [--strict] FILE...`: structure, then the core's
//! [`File::verify_with`]: digests, and the data rules of
//! `Object::check_data` (decoded lengths, CSR/COO indices, bool bytes).
//!
//! Output: each problem is one `zt: FILE: <problem>` line on **stderr**, each
//! warning one `zt: FILE: warning: <what>` line on stderr; the verdict is one
//! line on **stdout**: `FILE: OK (...)` or `FILE: FAILED (N problems)`.
//! With `--strict`, a digest zt cannot check is a problem, not a warning.

use crate::args::VerifyArgs;
use crate::{input, out, Fail};
use std::fmt::Display;
use std::io::{self, Write};
use std::path::Path;
use ztensor::digest::Digest;
use ztensor::verify::{Finding, Options};
use ztensor::{Component, ErrorKind, File, Object};

/// Collects what a verification finds.
pub struct Report<'p> {
    file: &'p Path,
    /// Unverifiable digests are problems.
    strict: bool,
    pub problems: usize,
    pub warnings: usize,
    pub digests_checked: usize,
}

impl Report<'_> {
    fn line(&self, what: impl Display) {
        let _ = writeln!(io::stderr().lock(), "zt: {}: {what}", out::path(self.file));
    }

    /// Record a problem (makes the verification fail).
    pub fn problem(&mut self, e: impl Display) {
        self.problems += 1;
        self.line(e);
    }

    /// Record a warning (does not fail the verification).
    pub fn warning(&mut self, what: impl Display) {
        self.warnings += 1;
        self.line(format_args!("warning: {what}"));
    }
}

/// `unknown digest algorithm "md5", not verified (object "x", component "data")`
fn unverifiable(o: &Object<'_>, c: &Component<'_>) -> String {
    let d = c.digest().unwrap_or("");
    let alg = match Digest::parse(d) {
        Ok(Digest::Unknown { algorithm }) => algorithm,
        _ => d.split_once(':').map_or(d, |(a, _)| a),
    };
    format!("unknown digest algorithm {alg:?}, not verified (object {:?}, component {:?})", o.name(), c.role())
}

/// Every check of a parsed file ([`File::verify_with`]: digests and data
/// rules); returns the objects and components looked at.
pub fn check_file(file: &File<'_>, r: &mut Report<'_>) -> (usize, usize) {
    let options = Options { digests: true, data: true, strict: r.strict };
    let report = file.verify_with(options, |f| match f {
        Finding::Unverifiable { object, component } if r.strict => r.problem(unverifiable(object, component)),
        Finding::Unverifiable { object, component } => r.warning(unverifiable(object, component)),
        // Strict mode: the same digest, already reported (with its algorithm) just above.
        Finding::Problem(e) if matches!(e.kind(), ErrorKind::UnverifiableDigest) => {}
        Finding::Problem(e) => r.problem(e),
    });
    r.digests_checked = report.digests_checked;
    (report.objects, report.components)
}

/// Verify every file; each gets its verdict line.
pub fn run(a: &VerifyArgs) -> Result<(), Fail> {
    crate::each_file(&a.files, |path| one(path, a.strict))
}

fn one(path: &Path, strict: bool) -> Result<(), Fail> {
    let bytes = input::load(path).map_err(|e| Fail::input(path, e))?;
    let mut r = Report { file: path, strict, problems: 0, warnings: 0, digests_checked: 0 };
    let mut summary = String::new();
    match File::parse(&bytes) {
        Ok(file) => {
            let (objects, components) = check_file(&file, &mut r);
            summary = format!(
                "{objects} object{}, {components} component{}, {} digest{} verified",
                if objects == 1 { "" } else { "s" },
                if components == 1 { "" } else { "s" },
                r.digests_checked,
                if r.digests_checked == 1 { "" } else { "s" },
            );
            if r.warnings > 0 {
                summary += &format!(", {} warning{}", r.warnings, if r.warnings == 1 { "" } else { "s" });
            }
        }
        Err(e) => r.problem(e),
    }
    let label = out::path(path);
    let verdict = if r.problems == 0 {
        format!("{label}: OK ({summary})\n")
    } else {
        format!("{label}: FAILED ({} problem{})\n", r.problems, if r.problems == 1 { "" } else { "s" })
    };
    // The exit status reflects the verdict even if stdout is gone.
    let printed = out::print(&verdict);
    if r.problems > 0 {
        return Err(Fail::Reported);
    }
    printed
}
