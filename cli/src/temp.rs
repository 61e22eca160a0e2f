//! The temporary file `zt convert` writes before renaming it into place:
//! removed when zt panics (the panic hook exits without unwinding) and on
//! SIGINT, SIGTERM and SIGHUP, after which zt dies of that signal as it
//! would have without the handler; so is the directory a URL is
//! downloaded into. SIGKILL cannot be caught: after it (or a
//! power loss) the hidden `.OUT.PID.N.tmp` file stays beside OUT.

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

/// The registered files: one, or two while a file is renamed into place
/// (its temporary name and the name it gets: see [`add`]).
static TEMP_FILE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// Temporary directories (`zt convert URL`'s download), removed with their
/// contents on the same occasions; [`set`] and [`create`] leave them be.
static TEMP_DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static WATCH: Once = Once::new();

/// Register (or clear, with `None`) the temporary output file.
pub fn set(path: Option<&Path>) {
    if path.is_some() {
        WATCH.call_once(watch_signals);
    }
    if let Ok(mut t) = TEMP_FILE.lock() {
        t.clear();
        t.extend(path.map(Path::to_path_buf));
    }
}

/// Create the temporary output file with `create` and register it (the
/// path `path` gives) in one step: the registry stays locked meanwhile, so
/// a signal arriving between the file's creation and its registration
/// waits and then removes it too.
pub fn create<T, E>(create: impl FnOnce() -> Result<T, E>, path: impl FnOnce(&T) -> PathBuf) -> Result<T, E> {
    WATCH.call_once(watch_signals);
    let mut t = TEMP_FILE.lock().unwrap_or_else(|e| e.into_inner());
    let made = create()?;
    t.clear();
    t.push(path(&made));
    Ok(made)
}

/// Register one more file beside the registered one (a v1.2 stage about to
/// be renamed into place, which `zt convert` still has to remove).
pub fn add(path: &Path) {
    WATCH.call_once(watch_signals);
    if let Ok(mut t) = TEMP_FILE.lock() {
        t.push(path.to_path_buf());
    }
}

/// Register a temporary directory, removed (with what it holds) on a
/// signal or a panic until [`remove_dir`] removes it.
pub fn add_dir(path: &Path) {
    WATCH.call_once(watch_signals);
    if let Ok(mut d) = TEMP_DIRS.lock() {
        d.push(path.to_path_buf());
    }
}

/// Remove a directory [`add_dir`] registered, and forget it.
pub fn remove_dir(path: &Path) {
    if let Ok(mut d) = TEMP_DIRS.lock() {
        d.retain(|p| p != path);
    }
    let _ = std::fs::remove_dir_all(path);
}

fn remove_dirs(d: &mut Vec<PathBuf>) {
    for p in d.drain(..) {
        let _ = std::fs::remove_dir_all(p);
    }
}

/// Wait for a signal being handled, if any: it removes the registered files
/// and ends the process holding the registry, so this returns only when no
/// signal is. (A registered file found missing may have been removed so:
/// the caller waits here rather than report it as an error.)
pub fn sync() {
    drop(TEMP_FILE.lock());
}

/// Remove the registered temporary file, if any.
pub fn remove() {
    // try_lock: a panic while the lock is held must not deadlock the hook.
    if let Ok(mut t) = TEMP_FILE.try_lock() {
        for p in t.drain(..) {
            let _ = std::fs::remove_file(p);
        }
    }
    if let Ok(mut d) = TEMP_DIRS.try_lock() {
        remove_dirs(&mut d);
    }
}

/// A thread waits for the signals (outside signal context, so it may lock
/// and remove files), cleans up, then re-raises the signal's default action.
fn watch_signals() {
    let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    let spawned = std::thread::Builder::new().name("zt-signals".into()).spawn(move || {
        if let Some(sig) = signals.forever().next() {
            // The registry stays locked until the process ends: see `sync`.
            let guard = TEMP_FILE.lock();
            if let Ok(mut d) = TEMP_DIRS.lock() {
                remove_dirs(&mut d);
            }
            if let Ok(mut t) = guard {
                for p in t.drain(..) {
                    let _ = std::fs::remove_file(p);
                }
                let _ = signal_hook::low_level::emulate_default_handler(sig);
                std::process::exit(128 + sig);
            }
            let _ = signal_hook::low_level::emulate_default_handler(sig);
            std::process::exit(128 + sig);
        }
    });
    drop(spawned);
}
