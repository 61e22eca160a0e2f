//! Thread CPU time as a criterion measurement, shared by the benches
//! (`#[path = "cpu_time.rs"] mod cpu_time;`).

use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter, WallTime};

/// Thread CPU time (user + system) of the benchmark thread.
pub struct CpuTime {
    wall: WallTime,
}

impl CpuTime {
    pub fn new() -> Self {
        CpuTime { wall: WallTime }
    }
}

/// The calling thread's CPU time (user + system), in nanoseconds.
pub fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl Measurement for CpuTime {
    type Intermediate = u64;
    type Value = Duration;

    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, start: u64) -> Duration {
        Duration::from_nanos(thread_cpu_ns() - start)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, v: &Duration) -> f64 {
        v.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        self.wall.formatter()
    }
}

/// One warm-up call each, then `rounds` calls each of `ours` and `theirs`,
/// alternating which goes first (so neither always runs on a cache the
/// other warmed); each call timed by `time`. The times, sorted, in ns.
/// A contestant is whatever `time` runs: a closure (`&mut dyn FnMut()`) or
/// an index into a table of them.
pub fn interleaved<T>(
    rounds: usize,
    ours: &mut T,
    theirs: &mut T,
    mut time: impl FnMut(&mut T) -> f64,
) -> (Vec<f64>, Vec<f64>) {
    time(ours);
    time(theirs);
    let (mut a, mut b) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    for i in 0..rounds {
        if i % 2 == 0 {
            a.push(time(ours));
            b.push(time(theirs));
        } else {
            b.push(time(theirs));
            a.push(time(ours));
        }
    }
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    (a, b)
}
