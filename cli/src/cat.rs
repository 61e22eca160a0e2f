//! `zt cat FILE OBJECT [--component ROLE]`.

use crate::args::{Command, Flag, Parsed};
use crate::{input, Fail};
use std::io::{self, Write};
use std::path::PathBuf;
use ztensor::{Encoding, Endian, Error, ErrorKind, File};

pub const COMMAND: Command = Command {
    name: "cat",
    usage: "zt cat FILE OBJECT [--component ROLE]",
    help: "\
Write one component's decoded bytes to stdout: decompressed, elements in
little-endian byte order (big-endian v0.1 data is swapped), nothing else.

Options:
  -c, --component ROLE   The component to write (default: data)
  -h, --help             Show this help

Use '--' before an object name that starts with '-'.
",
    flags: &[Flag { long: "component", short: Some('c'), takes_value: true, optional_value: false }],
    positional: &["FILE", "OBJECT"],
};

pub fn run(p: &Parsed) -> Result<(), Fail> {
    let path = PathBuf::from(&p.positional[0]);
    let role = p.value("component").unwrap_or("data");
    let bytes = input::load(&path).map_err(|e| Fail::input(&path, e))?;
    let file = File::parse(&bytes).map_err(|e| Fail::input(&path, e))?;
    let name = p.positional[1].to_str().ok_or_else(|| {
        Fail::input(&path, Error::new(ErrorKind::NotFound).in_object(&p.positional[1].to_string_lossy()))
    })?;
    let object = file.require(name).map_err(|e| Fail::input(&path, e))?;
    let c = object.require(role).map_err(|e| Fail::input(&path, e.in_object(name)))?;
    let mut o = io::stdout().lock();
    if c.encoding() == Encoding::Raw && c.endian() == Endian::Little {
        // Already what we must write: straight from the mapping.
        let stored = c.stored_bytes().map_err(|e| Fail::input(&path, e.in_object(name)))?;
        o.write_all(stored)?;
    } else {
        let decoded = c.to_vec().map_err(|e| Fail::input(&path, e.in_object(name)))?;
        o.write_all(&decoded)?;
    }
    o.flush()?;
    Ok(())
}
