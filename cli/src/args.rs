//! Hand-written argument parsing: long and short flags, `--flag=value`,
//! `--` to end options, `-h`/`--help` anywhere before `--`.

use crate::Fail;
use std::ffi::OsString;

/// A flag a command accepts.
pub struct Flag {
    pub long: &'static str,
    pub short: Option<char>,
    /// Whether it takes a value (`--component ROLE`).
    pub takes_value: bool,
    /// With `takes_value`: the value is optional and only given inline
    /// (`--compress` or `--compress=19`); the next argument is never taken.
    pub optional_value: bool,
}

/// What a command accepts and says about itself.
pub struct Command {
    pub name: &'static str,
    /// One line: `zt info [--json] FILE`.
    pub usage: &'static str,
    /// Full `--help` text (after the usage line).
    pub help: &'static str,
    pub flags: &'static [Flag],
    /// Names of the positional arguments, all required.
    pub positional: &'static [&'static str],
}

/// Parsed arguments of one command.
pub struct Parsed {
    flags: Vec<(&'static str, Option<String>)>,
    pub positional: Vec<OsString>,
}

impl Parsed {
    /// Whether a value-less flag was given.
    pub fn has(&self, long: &str) -> bool {
        self.flags.iter().any(|(l, _)| *l == long)
    }

    /// The value of the last occurrence of a flag.
    pub fn value(&self, long: &str) -> Option<&str> {
        self.flags.iter().rev().find(|(l, _)| *l == long).and_then(|(_, v)| v.as_deref())
    }

    /// The last occurrence of a flag with an optional value: `None` when
    /// absent, `Some(None)` when given bare, `Some(Some(v))` for `--flag=v`.
    pub fn optional(&self, long: &str) -> Option<Option<&str>> {
        self.flags.iter().rev().find(|(l, _)| *l == long).map(|(_, v)| v.as_deref())
    }
}

impl Command {
    /// A usage error for this command.
    pub fn usage_error(&self, msg: impl Into<String>) -> Fail {
        Fail::Usage { msg: msg.into(), usage: self.usage }
    }

    /// Print the help text.
    pub fn help_text(&self) -> String {
        format!("Usage: {}\n\n{}", self.usage, self.help)
    }

    /// Parse `args` (after the command name). `Ok(None)`: help was asked for.
    pub fn parse(&self, args: impl IntoIterator<Item = OsString>) -> Result<Option<Parsed>, Fail> {
        let mut out = Parsed { flags: Vec::new(), positional: Vec::new() };
        let mut args = args.into_iter();
        let mut options_done = false;
        while let Some(arg) = args.next() {
            let opt = if options_done { None } else { arg.to_str().filter(|s| s.starts_with('-') && s.len() > 1) };
            let Some(opt) = opt else {
                if !options_done && arg.to_str().is_none() && arg.as_encoded_bytes().starts_with(b"-") {
                    return Err(self.usage_error(format!("unknown option {:?}", arg)));
                }
                out.positional.push(arg);
                continue;
            };
            if opt == "--" {
                options_done = true;
                continue;
            }
            if opt == "-h" || opt == "--help" {
                return Ok(None);
            }
            let (flag, inline) = if let Some(long) = opt.strip_prefix("--") {
                let (name, inline) = match long.split_once('=') {
                    Some((n, v)) => (n, Some(v.to_owned())),
                    None => (long, None),
                };
                let flag = self.flags.iter().find(|f| f.long == name);
                (flag.ok_or_else(|| self.usage_error(format!("unknown option '--{name}'")))?, inline)
            } else {
                let mut chars = opt[1..].chars();
                let c = chars.next().unwrap_or('-');
                let rest: String = chars.collect();
                let flag = self.flags.iter().find(|f| f.short == Some(c));
                let flag = flag.ok_or_else(|| self.usage_error(format!("unknown option '-{c}'")))?;
                if !rest.is_empty() && !flag.takes_value {
                    return Err(self.usage_error(format!("unknown option '{opt}'")));
                }
                (flag, (!rest.is_empty()).then_some(rest))
            };
            let value = if flag.takes_value {
                match inline {
                    Some(v) => Some(v),
                    None if flag.optional_value => None,
                    None => {
                        let v =
                            args.next().ok_or_else(|| self.usage_error(format!("'--{}' needs a value", flag.long)))?;
                        let v = v
                            .into_string()
                            .map_err(|v| self.usage_error(format!("value {v:?} of '--{}' is not UTF-8", flag.long)))?;
                        Some(v)
                    }
                }
            } else {
                if inline.is_some() {
                    return Err(self.usage_error(format!("'--{}' takes no value", flag.long)));
                }
                None
            };
            out.flags.push((flag.long, value));
        }
        let want = self.positional.len();
        if out.positional.len() < want {
            let missing = self.positional[out.positional.len()];
            return Err(self.usage_error(format!("missing {missing}")));
        }
        if out.positional.len() > want {
            return Err(self.usage_error(format!("unexpected argument {:?}", out.positional[want])));
        }
        Ok(Some(out))
    }
}
