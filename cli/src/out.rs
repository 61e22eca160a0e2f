//! Output helpers.

use crate::Fail;
use std::fmt::Display;
use std::io::{self, Write};
use std::path::Path;

/// Write `s` to stdout and flush.
pub fn print(s: &str) -> Result<(), Fail> {
    let mut o = io::stdout().lock();
    o.write_all(s.as_bytes())?;
    o.flush()?;
    Ok(())
}

/// A message for the user: Rust's ` (os error N)` suffix of I/O errors is
/// dropped (the text before it already says what happened).
pub fn message(msg: impl Display) -> String {
    let s = msg.to_string();
    match s.rfind(" (os error ") {
        Some(i) if s.ends_with(')') && s[i + 11..s.len() - 1].bytes().all(|b| b.is_ascii_digit()) => s[..i].to_owned(),
        _ => s,
    }
}

/// A path as messages show it: `-` (stdin) as `<stdin>`.
pub fn path(p: &Path) -> String {
    if crate::input::is_stdin(p) {
        "<stdin>".into()
    } else {
        p.display().to_string()
    }
}

/// A name for display in text output: as is, unless it is empty or holds
/// control characters (tabs, newlines, NUL...), then quoted and escaped.
pub fn name(s: &str) -> String {
    if s.is_empty() || s.chars().any(char::is_control) {
        format!("{s:?}")
    } else {
        s.to_owned()
    }
}

/// Byte counts in human units, exact below 1 KiB.
pub fn human(n: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64 / 1024.0;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    format!("{v:.1} {}", UNITS[u])
}

/// `N bytes`, with human units in parentheses from 1 KiB on.
pub fn bytes(n: u64) -> String {
    if n < 1024 {
        format!("{n} bytes")
    } else {
        format!("{n} bytes ({})", human(n))
    }
}

/// `decoded / stored` as `1.23x`; `-` when nothing is stored, `?` when the
/// decoded size is unknown.
pub fn ratio(stored: u64, decoded: Option<u64>) -> String {
    match decoded {
        None => "?".into(),
        Some(_) if stored == 0 => "-".into(),
        Some(d) => format!("{:.2}x", d as f64 / stored as f64),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn os_error_suffix_is_dropped() {
        assert_eq!(super::message("No such file or directory (os error 2)"), "No such file or directory");
        assert_eq!(super::message("a (os error x)"), "a (os error x)");
        assert_eq!(super::message("plain"), "plain");
    }
}
