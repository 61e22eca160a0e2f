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
mod info;
mod input;
mod json;
mod out;
mod progress;
mod verify;

use std::ffi::OsString;
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const TOP_USAGE: &str = "zt <COMMAND> [OPTIONS] FILE ...";

const TOP_HELP: &str = "\
zt: inspect zTensor (.zt) files, and convert other formats to them

Usage: zt <COMMAND> [OPTIONS] FILE ...

Commands:
  info [--json] FILE                   Summarize the objects and components of a file
  cat FILE OBJECT [--component ROLE]   Write a component's decoded bytes to stdout
  verify FILE                          Check structure, digests and decoding
  convert IN OUT [--compress[=LEVEL]] [--digest ALG]
                                       Convert .safetensors, .npy, .npz or any
                                       .zt version into a zTensor v1.2 file
  help [COMMAND]                       Show help for zt or a command

Options:
  -h, --help      Show help (also after a command: zt info --help)
  -V, --version   Show zt's version

Exit status: 0 success, 1 invalid or corrupt input or I/O error,
2 usage error.
";

/// Why a command did not succeed.
pub enum Fail {
    /// Bad command line: exit 2.
    Usage { msg: String, usage: &'static str },
    /// The input is unreadable, invalid or corrupt: exit 1.
    Input { file: PathBuf, msg: String },
    /// Writing the output failed (a broken pipe ends quietly).
    Output(io::Error),
    /// Problems were already reported (verify): exit 1.
    Reported,
}

impl Fail {
    /// An input failure for `file`.
    pub fn input(file: &Path, msg: impl fmt::Display) -> Fail {
        Fail::Input { file: file.to_owned(), msg: msg.to_string() }
    }
}

impl From<io::Error> for Fail {
    fn from(e: io::Error) -> Self {
        Fail::Output(e)
    }
}

fn commands() -> [&'static args::Command; 4] {
    [&info::COMMAND, &cat::COMMAND, &verify::COMMAND, &convert::COMMAND]
}

fn run(mut argv: impl Iterator<Item = OsString>) -> Result<(), Fail> {
    let top_usage = |msg: String| Fail::Usage { msg, usage: TOP_USAGE };
    let Some(cmd) = argv.next() else {
        return Err(top_usage("missing command".into()));
    };
    let Some(cmd) = cmd.to_str() else {
        return Err(top_usage(format!("unknown command {cmd:?}")));
    };
    match cmd {
        "-h" | "--help" => return out::print(TOP_HELP),
        "-V" | "--version" => return out::print(&format!("zt {}\n", env!("CARGO_PKG_VERSION"))),
        "help" => {
            let Some(topic) = argv.next() else { return out::print(TOP_HELP) };
            if let Some(extra) = argv.next() {
                return Err(top_usage(format!("unexpected argument {extra:?}")));
            }
            return match commands().into_iter().find(|c| topic.to_str() == Some(c.name)) {
                Some(c) => out::print(&c.help_text()),
                None => Err(top_usage(format!("unknown command {topic:?}"))),
            };
        }
        _ => {}
    }
    let Some(command) = commands().into_iter().find(|c| c.name == cmd) else {
        let what = if cmd.starts_with('-') { "option" } else { "command" };
        return Err(top_usage(format!("unknown {what} '{cmd}'")));
    };
    let Some(parsed) = command.parse(argv)? else {
        return out::print(&command.help_text());
    };
    match command.name {
        "info" => info::run(&parsed),
        "cat" => cat::run(&parsed),
        "verify" => verify::run(&parsed),
        "convert" => convert::run(&parsed),
        _ => Err(top_usage(format!("unknown command '{cmd}'"))),
    }
}

/// A temporary output file being written (`zt convert`): removed if zt
/// panics, since the panic hook exits without unwinding.
static TEMP_FILE: std::sync::Mutex<Option<PathBuf>> = std::sync::Mutex::new(None);

/// Register (or clear) the temporary output file.
pub fn set_temp_file(path: Option<&Path>) {
    if let Ok(mut t) = TEMP_FILE.lock() {
        *t = path.map(Path::to_path_buf);
    }
}

fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        if let Ok(mut t) = TEMP_FILE.try_lock() {
            if let Some(p) = t.take() {
                let _ = std::fs::remove_file(p);
            }
        }
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
    let result = run(std::env::args_os().skip(1));
    let mut err = io::stderr().lock();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail::Usage { msg, usage }) => {
            // `zt info [--json] FILE` → `zt info --help`; the top level → `zt --help`.
            let cmd = usage.split_whitespace().nth(1).filter(|w| !w.starts_with('<'));
            let help = cmd.map_or("zt --help".to_owned(), |c| format!("zt {c} --help"));
            let _ = writeln!(err, "zt: {msg}\nusage: {usage}\n(see '{help}')");
            ExitCode::from(2)
        }
        Err(Fail::Input { file, msg }) => {
            let _ = writeln!(err, "zt: {}: {msg}", file.display());
            ExitCode::from(1)
        }
        Err(Fail::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Fail::Output(e)) => {
            let _ = writeln!(err, "zt: stdout: {e}");
            ExitCode::from(1)
        }
        Err(Fail::Reported) => ExitCode::from(1),
    }
}
