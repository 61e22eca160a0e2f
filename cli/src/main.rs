//! `zt`: inspect zTensor (`.zt`) files, and convert other formats to them.
//!
//! Exit status: 0 success; 1 invalid or corrupt input, or an I/O error (one
//! `zt: FILE: <error>` line on stderr per problem); 2 usage error (a short
//! usage line on stderr). Nothing panics into a backtrace: a panic hook
//! turns any bug into one `zt: internal error` line and exit status 1. A
//! closed stdout (`zt cat ... | head -c1`) ends the command quietly with 0.

mod args;
mod cat;
mod convert;
mod http;
mod id;
mod info;
mod input;
mod json;
mod out;
mod progress;
mod temp;
mod verify;

use args::Cmd;
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Why a command did not succeed.
pub enum Fail {
    /// Bad command line: exit 2.
    Usage { msg: String, usage: String },
    /// The input is unreadable, invalid or corrupt: exit 1.
    Input { file: PathBuf, msg: String },
    /// A refusal that concerns no one file (`zt cat` to a terminal): exit 1.
    Refused(String),
    /// Writing the output failed (a broken pipe ends quietly).
    Output(io::Error),
    /// Problems were already reported (verify, several files): exit 1.
    Reported,
}

impl Fail {
    /// An input failure for `file`.
    pub fn input(file: &Path, msg: impl fmt::Display) -> Fail {
        Fail::Input { file: file.to_owned(), msg: out::message(msg) }
    }
}

impl From<io::Error> for Fail {
    fn from(e: io::Error) -> Self {
        Fail::Output(e)
    }
}

/// Report a failure on stderr; its exit status.
fn report(f: Fail) -> u8 {
    let mut err = io::stderr().lock();
    match f {
        Fail::Usage { msg, usage } => {
            // `zt info [--json] FILE...` → `zt info --help`; the top level → `zt --help`.
            let cmd = usage.split_whitespace().nth(1).filter(|w| !w.starts_with('<'));
            let help = cmd.map_or("zt --help".to_owned(), |c| format!("zt {c} --help"));
            let _ = writeln!(err, "zt: {msg}\nusage: {usage}\n(see '{help}')");
            2
        }
        Fail::Input { file, msg } => {
            let _ = writeln!(err, "zt: {}: {msg}", out::path(&file));
            1
        }
        Fail::Refused(msg) => {
            let _ = writeln!(err, "zt: {msg}");
            1
        }
        Fail::Output(e) if e.kind() == io::ErrorKind::BrokenPipe => 0,
        Fail::Output(e) => {
            let _ = writeln!(err, "zt: stdout: {}", out::message(e));
            1
        }
        Fail::Reported => 1,
    }
}

/// Run `f` on each file; report each failure and go on. `Reported` if any failed.
pub fn each_file(files: &[PathBuf], mut f: impl FnMut(&Path) -> Result<(), Fail>) -> Result<(), Fail> {
    let stdin_uses = files.iter().filter(|p| input::is_stdin(p)).count();
    if stdin_uses > 1 {
        return Err(Fail::Refused("'-' (stdin) can be given only once".into()));
    }
    let mut failed = false;
    for p in files {
        match f(p) {
            Ok(()) => {}
            Err(Fail::Output(e)) => return Err(Fail::Output(e)),
            Err(e) => {
                failed = true;
                report(e);
            }
        }
    }
    if failed {
        Err(Fail::Reported)
    } else {
        Ok(())
    }
}

fn run() -> Result<(), Fail> {
    let Some(cli) = args::parse(std::env::args_os())? else { return Ok(()) };
    match cli.command {
        Cmd::Info(a) => info::run(&a),
        Cmd::Cat(a) => cat::run(&a),
        Cmd::Verify(a) => verify::run(&a),
        Cmd::Id(a) => id::run(&a),
        Cmd::Convert(a) => convert::run(&a),
    }
}

fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        temp::remove();
        let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
            (*s).to_owned()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "panic".to_owned()
        };
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        let _ = writeln!(io::stderr(), "zt: internal error: {msg}{at}");
        std::process::exit(1);
    }));
}

fn main() -> ExitCode {
    install_panic_hook();
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => ExitCode::from(report(f)),
    }
}
