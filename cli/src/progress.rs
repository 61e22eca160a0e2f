//! A progress bar on stderr for long conversions: only when stderr is a
//! terminal, only once the work has run for a moment, redrawn at most a few
//! times a second, and wiped when done (or when the command fails, before
//! the error line is printed).
//!
//! ```text
//! [###########                 ]  42% 1.2/2.9 GiB
//! ```

use std::cell::Cell;
use std::io::{self, IsTerminal, Write};
use std::time::{Duration, Instant};

/// Nothing is drawn before the work has run this long (short conversions stay silent).
const FIRST_DRAW: Duration = Duration::from_millis(300);
/// Minimum time between two redraws.
const REDRAW: Duration = Duration::from_millis(100);
const WIDTH: usize = 30;

/// Bytes done out of an estimated total. Shared (through `Rc`) by the byte
/// sources the writer pulls from.
pub struct Progress {
    enabled: bool,
    total: u64,
    done: Cell<u64>,
    start: Instant,
    last: Cell<Option<Instant>>,
}

impl Progress {
    /// A progress bar for `total` bytes, drawn only if stderr is a terminal.
    pub fn new(total: u64) -> Progress {
        Self::with(total, io::stderr().is_terminal())
    }

    fn with(total: u64, enabled: bool) -> Progress {
        Progress { enabled, total, done: Cell::new(0), start: Instant::now(), last: Cell::new(None) }
    }

    /// Count `n` more bytes done; redraw if it is time.
    pub fn add(&self, n: u64) {
        self.done.set(self.done.get().saturating_add(n));
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        let due = match self.last.get() {
            None => now.duration_since(self.start) >= FIRST_DRAW,
            Some(t) => now.duration_since(t) >= REDRAW,
        };
        if due {
            self.last.set(Some(now));
            let _ = write!(io::stderr().lock(), "\r{}", line(self.done.get(), self.total));
        }
    }

    /// Wipe the bar (if drawn) so that a message can be printed; it is
    /// drawn again at the next update.
    pub fn suspend(&self) {
        if self.last.get().is_some() {
            let blank = " ".repeat(line(self.total, self.total).chars().count() + 8);
            let _ = write!(io::stderr().lock(), "\r{blank}\r");
            // Redraw at the next update.
            self.last.set(Some(self.start));
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.suspend();
    }
}

/// `[####      ]  42% 1.2/2.9 GiB`
fn line(done: u64, total: u64) -> String {
    let done = done.min(total);
    let frac = if total == 0 { 1.0 } else { done as f64 / total as f64 };
    let filled = ((frac * WIDTH as f64) as usize).min(WIDTH);
    let (div, unit) = unit(total);
    format!(
        "[{}{}] {:3}% {:.1}/{:.1} {unit}",
        "#".repeat(filled),
        " ".repeat(WIDTH - filled),
        (frac * 100.0) as u32,
        done as f64 / div,
        total as f64 / div
    )
}

fn unit(total: u64) -> (f64, &'static str) {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut div = 1.0;
    let mut u = 0;
    while total as f64 / div >= 1024.0 && u + 1 < UNITS.len() {
        div *= 1024.0;
        u += 1;
    }
    (div, UNITS[u])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        assert_eq!(line(0, 0), format!("[{}] 100% 0.0/0.0 B", "#".repeat(WIDTH)));
        let l = line(1288490189, 3113851290);
        assert!(l.ends_with(" 41% 1.2/2.9 GiB"), "{l}");
        assert_eq!(l.matches('#').count(), 12);
        assert!(line(5, 2).contains("100% 2.0/2.0 B"));
        let p = Progress::with(10, false);
        p.add(4);
        assert_eq!(p.done.get(), 4);
        assert!(p.last.get().is_none());
    }
}
