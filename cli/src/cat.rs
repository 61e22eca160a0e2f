//! `zt cat FILE OBJECT [--component ROLE] [--force]`.

use crate::args::CatArgs;
use crate::{input, Fail};
use std::io::{self, IsTerminal, Write};
use ztensor::{Encoding, Endian, Error, ErrorKind, File};

pub fn run(a: &CatArgs) -> Result<(), Fail> {
    if !a.force && io::stdout().is_terminal() {
        return Err(Fail::Refused(
            "refusing to write binary data to a terminal (redirect stdout, or use --force)".into(),
        ));
    }
    let path = a.file.as_path();
    let role = a.component.as_str();
    let bytes = input::load(path).map_err(|e| Fail::input(path, e))?;
    let file = File::parse(&bytes).map_err(|e| Fail::input(path, e))?;
    let name = a
        .object
        .to_str()
        .ok_or_else(|| Fail::input(path, Error::new(ErrorKind::NotFound).in_object(&a.object.to_string_lossy())))?;
    let object = file.require(name).map_err(|e| Fail::input(path, e))?;
    let c = object.require(role).map_err(|e| Fail::input(path, e.in_object(name)))?;
    let mut o = io::stdout().lock();
    if c.encoding() == Encoding::Raw && c.endian() == Endian::Little {
        // Already what we must write: straight from the mapping.
        let stored = c.stored_bytes().map_err(|e| Fail::input(path, e.in_object(name)))?;
        o.write_all(stored)?;
    } else {
        let decoded = c.to_vec().map_err(|e| Fail::input(path, e.in_object(name)))?;
        o.write_all(&decoded)?;
    }
    o.flush()?;
    Ok(())
}
