//! `zt verify [--allow-unverifiable] FILE...`: structure, then the core's
//! [`File::verify_with`]: digests, and the data rules of
//! `Object::check_data` (decoded lengths, CSR/COO indices, bool bytes).
//!
//! Output: each problem is one `zt: FILE: <problem>` line on **stderr**, each
//! warning one `zt: FILE: warning: <what>` line on stderr; the verdict is one
//! line on **stdout**: `FILE: OK (...)` or `FILE: FAILED (N problems)`.
//! A digest zt cannot check (unknown algorithm) is a problem naming its
//! object and component, so the file is not verified (exit 1); with
//! `--allow-unverifiable` it is a warning. `--strict` (the old opt-in to
//! that default) is accepted and changes nothing.

use crate::args::VerifyArgs;
use crate::{http, input, out, Fail};
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
    check_from(file, None, r)
}

/// [`check_file`], or the reader's whole check when given (v2 shards).
fn check_from<'a>(file: &File<'a>, reader: Option<&'a ztensor::fs::Reader>, r: &mut Report<'_>) -> (usize, usize) {
    let options = Options { digests: true, data: true, strict: r.strict };
    let mut on = |f: Finding<'_, 'a>| match f {
        Finding::Unverifiable { object, component } if r.strict => r.problem(unverifiable(object, component)),
        Finding::Unverifiable { object, component } => r.warning(unverifiable(object, component)),
        // Strict mode: the same digest, already reported (with its algorithm) just above.
        Finding::Problem(e) if matches!(e.kind(), ErrorKind::UnverifiableDigest) => {}
        Finding::Problem(e) => r.problem(e),
    };
    let report = match reader {
        // Parts in shards, and the shards' whole-file digests (§7.3).
        Some(rd) => rd.verify_with(options, &mut on),
        None => file.verify_with(options, &mut on),
    };
    r.digests_checked = report.digests_checked;
    (report.objects, report.components)
}

/// Verify every file; each gets its verdict line.
pub fn run(a: &VerifyArgs) -> Result<(), Fail> {
    crate::each_file(&a.files, |path| one(path, !a.allow_unverifiable))
}

fn one(path: &Path, strict: bool) -> Result<(), Fail> {
    let mut r = Report { file: path, strict, problems: 0, warnings: 0, digests_checked: 0 };
    let mut summary = String::new();
    if http::is_url(path) {
        // Read by range requests: the tail, then each part through the reader.
        match input::open_url(path) {
            Ok(rd) => {
                let (objects, components) = check_from(rd.file(), Some(&rd), &mut r);
                if let Some(m) = rd.file().v2() {
                    for s in m.shards() {
                        // A shard found but wrong was a problem of verify_with's.
                        if let Err(ztensor::fs::Error::Format(e)) = rd.shard(s.name) {
                            if e.kind() == ErrorKind::ShardMissing {
                                r.warning(format_args!("shard {:?} not found beside the URL", s.name));
                            }
                        }
                    }
                }
                summary = summarize(rd.file(), objects, components, &r);
            }
            Err(e) => r.problem(e),
        }
        return verdict(path, &r, &summary);
    }
    let bytes = input::load(path).map_err(|e| Fail::input(path, e))?;
    match File::parse(&bytes) {
        Ok(file) => {
            let v2 = file.v2().copied();
            let has_shards = v2.is_some_and(|m| m.shards().next().is_some());
            // Parts in shards are read through a reader that finds the shard files.
            let reader = if has_shards && !input::is_stdin(path) {
                match ztensor::fs::Reader::open(path) {
                    Ok(x) => Some(x),
                    Err(e) => {
                        r.problem(e);
                        None
                    }
                }
            } else {
                None
            };
            let (objects, components) = match &reader {
                Some(rd) => check_from(rd.file(), Some(rd), &mut r),
                None => check_file(&file, &mut r),
            };
            if let Some(m) = v2 {
                shards(path, &m, &mut r);
            }
            summary = summarize(&file, objects, components, &r);
        }
        Err(e) => r.problem(e),
    }
    verdict(path, &r, &summary)
}

/// `3 objects, 5 components, 5 digests verified` (and for v2 the parts
/// without a digest, and the warnings).
fn summarize(file: &File<'_>, objects: usize, components: usize, r: &Report<'_>) -> String {
    let mut summary = format!(
        "{objects} object{}, {components} component{}, {} digest{} verified",
        if objects == 1 { "" } else { "s" },
        if components == 1 { "" } else { "s" },
        r.digests_checked,
        if r.digests_checked == 1 { "" } else { "s" },
    );
    if file.version().major == 2 {
        let undigested = file.objects().flat_map(|o| o.components()).filter(|c| c.digest().is_none()).count();
        summary += &format!(", {undigested} part{} without digest", if undigested == 1 { "" } else { "s" });
    }
    if r.warnings > 0 {
        summary += &format!(", {} warning{}", r.warnings, if r.warnings == 1 { "" } else { "s" });
    }
    summary
}

/// The verdict line on stdout; `Reported` when there were problems.
fn verdict(path: &Path, r: &Report<'_>, summary: &str) -> Result<(), Fail> {
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

/// v2: a shard of the table not found beside the file is a warning (its
/// parts' reads already failed as problems, if any; the shards found were
/// checked by `Reader::verify_with`).
fn shards(path: &Path, m: &ztensor::v2::Manifest<'_>, r: &mut Report<'_>) {
    for s in m.shards() {
        let found = !input::is_stdin(path) && ztensor::v2::shard::locate(path, &s).is_ok();
        if !found {
            r.warning(format_args!("shard {:?} not found beside the file", s.name));
        }
    }
}
