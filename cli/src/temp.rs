//! The temporary file `zt convert` writes before renaming it into place:
//! removed when zt panics (the panic hook exits without unwinding) and on
//! SIGINT, SIGTERM and SIGHUP, after which zt dies of that signal as it
//! would have without the handler. SIGKILL cannot be caught: after it (or a
//! power loss) the hidden `.OUT.PID.N.tmp` file stays beside OUT.

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

static TEMP_FILE: Mutex<Option<PathBuf>> = Mutex::new(None);
static WATCH: Once = Once::new();

/// Register (or clear, with `None`) the temporary output file.
pub fn set(path: Option<&Path>) {
    if path.is_some() {
        WATCH.call_once(watch_signals);
    }
    if let Ok(mut t) = TEMP_FILE.lock() {
        *t = path.map(Path::to_path_buf);
    }
}

/// Remove the registered temporary file, if any.
pub fn remove() {
    // try_lock: a panic while the lock is held must not deadlock the hook.
    if let Ok(mut t) = TEMP_FILE.try_lock() {
        if let Some(p) = t.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// A thread waits for the signals (outside signal context, so it may lock
/// and remove files), cleans up, then re-raises the signal's default action.
fn watch_signals() {
    let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) else { return };
    let spawned = std::thread::Builder::new().name("zt-signals".into()).spawn(move || {
        if let Some(sig) = signals.forever().next() {
            if let Ok(mut t) = TEMP_FILE.lock() {
                if let Some(p) = t.take() {
                    let _ = std::fs::remove_file(p);
                }
            }
            let _ = signal_hook::low_level::emulate_default_handler(sig);
            std::process::exit(128 + sig);
        }
    });
    drop(spawned);
}
