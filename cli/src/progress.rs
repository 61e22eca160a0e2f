//! A progress bar on stderr for long conversions (indicatif): only when
//! stderr is a terminal, only once the work has run for a moment (short
//! conversions stay silent), with rate and ETA, and wiped when done (or
//! when the command fails, before the error line is printed).
//!
//! ```text
//! [###########                 ]  42% 1.2 GiB/2.9 GiB 310.5 MiB/s ETA 5s
//! ```

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::cell::Cell;
use std::io::{self, IsTerminal};
use std::time::{Duration, Instant};

/// Nothing is drawn before the work has run this long.
const FIRST_DRAW: Duration = Duration::from_millis(300);
/// The bar's look.
const TEMPLATE: &str = "[{bar:30}] {percent:>3}% {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} ETA {eta}";

/// Bytes done out of an estimated total. Shared (through `Rc`) by the byte
/// sources the writer pulls from.
pub struct Progress {
    bar: ProgressBar,
    /// Whether the bar may be shown (stderr is a terminal, not `--quiet`).
    enabled: bool,
    /// Whether it is being drawn.
    shown: Cell<bool>,
    start: Instant,
}

impl Progress {
    /// A progress bar for `total` bytes, drawn only if stderr is a terminal.
    pub fn new(total: u64) -> Progress {
        Self::with(total, io::stderr().is_terminal())
    }

    /// One that never draws (`--quiet`).
    pub fn hidden(total: u64) -> Progress {
        Self::with(total, false)
    }

    fn with(total: u64, enabled: bool) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template(TEMPLATE) {
            bar.set_style(style.progress_chars("## "));
        }
        Progress { bar, enabled, shown: Cell::new(false), start: Instant::now() }
    }

    /// Count `n` more bytes done.
    pub fn add(&self, n: u64) {
        self.bar.inc(n);
        if self.enabled && !self.shown.get() && self.start.elapsed() >= FIRST_DRAW {
            self.shown.set(true);
            self.bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(10));
        }
    }

    /// Bytes counted so far.
    #[cfg(test)]
    pub fn done(&self) -> u64 {
        self.bar.position()
    }

    /// Print a line on stderr without tearing the bar.
    pub fn println(&self, line: &str) {
        self.bar.suspend(|| eprintln!("{line}"));
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_without_drawing() {
        assert!(ProgressStyle::with_template(TEMPLATE).is_ok());
        let p = Progress::with(10, false);
        p.add(4);
        assert_eq!(p.done(), 4);
        assert!(!p.shown.get());
    }
}
