//! `zt` with a terminal (a pseudo-terminal) on stdout or stderr: `cat`
//! refuses to write binary data to it unless forced, and `convert` draws a
//! progress bar with rate and ETA on it.

use std::fs::File;
use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::Path;
use std::process::{Command, Stdio};

/// A pseudo-terminal: its master side to read, its slave side to hand to zt.
fn pty() -> (File, OwnedFd) {
    let (mut master, mut slave) = (-1, -1);
    let size = libc::winsize { ws_row: 24, ws_col: 120, ws_xpixel: 0, ws_ypixel: 0 };
    // SAFETY: openpty writes two descriptors it opened; we own them from here.
    let r = unsafe { libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null_mut(), &size) };
    assert_eq!(r, 0, "openpty: {}", std::io::Error::last_os_error());
    unsafe { (File::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) }
}

/// Read the master side until every slave descriptor is closed.
fn drain(mut master: File) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        // Linux answers EIO once the slave side is closed: the end.
        while let Ok(n) = master.read(&mut buf) {
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        out
    })
}

fn fixture(rel: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("cli/ is inside the repository");
    root.join("tests/fixtures").join(rel).display().to_string()
}

#[test]
fn cat_refuses_a_terminal_unless_forced() {
    let f = fixture("v1.2/zstd.zt");
    for (force, want_code) in [(false, 1), (true, 0)] {
        let (master, slave) = pty();
        let reader = drain(master);
        let mut args = vec!["cat", f.as_str(), "zeros_f32_1024"];
        if force {
            args.push("--force");
        }
        let o = Command::new(env!("CARGO_BIN_EXE_zt"))
            .args(&args)
            .stdout(Stdio::from(slave))
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let shown = reader.join().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(want_code), "{args:?}: {err}");
        if force {
            assert!(err.is_empty(), "{err}");
            assert!(shown.len() >= 4096, "{} bytes reached the terminal", shown.len());
        } else {
            assert_eq!(err, "zt: refusing to write binary data to a terminal (redirect stdout, or use --force)\n");
            assert!(shown.is_empty(), "{shown:?}");
        }
    }
}

#[test]
fn convert_draws_a_progress_bar_with_rate_and_eta() {
    let dir = tempfile::tempdir().unwrap();
    // 64 MiB of one tensor, hashed: well over the bar's first-draw delay (0.3 s) in a debug build.
    let n: usize = 64 << 20;
    let header = format!(r#"{{"w":{{"dtype":"U8","shape":[{n}],"data_offsets":[0,{n}]}}}}"#);
    let mut file = (header.len() as u64).to_le_bytes().to_vec();
    file.extend_from_slice(header.as_bytes());
    file.resize(file.len() + n, 0x5a);
    let input = dir.path().join("big.safetensors");
    std::fs::write(&input, &file).unwrap();
    let out = dir.path().join("big.zt");
    for quiet in [false, true] {
        let (master, slave) = pty();
        let reader = drain(master);
        let mut args = vec!["convert", "--digest", "sha256", input.to_str().unwrap(), out.to_str().unwrap()];
        if quiet {
            args.push("--quiet");
        }
        let status = Command::new(env!("CARGO_BIN_EXE_zt"))
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::from(slave))
            .status()
            .unwrap();
        let shown = String::from_utf8_lossy(&reader.join().unwrap()).into_owned();
        assert!(status.success(), "{shown}");
        if quiet {
            assert!(shown.is_empty(), "{shown:?}");
            continue;
        }
        assert!(shown.contains("%") && shown.contains("MiB/s") && shown.contains("ETA"), "{shown:?}");
        // The bar is wiped; the last line is the summary.
        let last = shown.rsplit(['\r', '\n']).find(|l| !l.trim().is_empty()).unwrap_or("");
        // (v2, the default: the blob starts at 64 KiB, hence 64.1 MiB written.)
        assert!(last.contains("1 object, 64.0 MiB -> 64.1 MiB"), "{shown:?}");
    }
}
