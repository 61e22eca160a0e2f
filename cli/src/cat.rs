//! `zt cat FILE OBJECT [--component ROLE] [--force]`.

use crate::args::CatArgs;
use crate::{http, input, Fail};
use std::path::Path;
use std::io::{self, IsTerminal, Write};
use ztensor::{Component, Encoding, Endian, Error, ErrorKind, File};

pub fn run(a: &CatArgs) -> Result<(), Fail> {
    if !a.force && io::stdout().is_terminal() {
        return Err(Fail::Refused(
            "refusing to write binary data to a terminal (redirect stdout, or use --force)".into(),
        ));
    }
    let path = a.file.as_path();
    let role = a.component.as_str();
    let name = a
        .object
        .to_str()
        .ok_or_else(|| Fail::input(path, Error::new(ErrorKind::NotFound).in_object(&a.object.to_string_lossy())))?;
    if http::is_url(path) {
        // The tail, then the part's stored bytes, by range requests;
        // decoded with its digest checked as it is read (verify on read).
        let r = input::open_url(path).map_err(|e| Fail::input(path, e))?;
        let c = part(r.file(), path, name, role)?;
        let decoded = r.to_vec(&c).map_err(|e| Fail::input(path, e))?;
        let mut o = io::stdout().lock();
        o.write_all(&decoded)?;
        o.flush()?;
        return Ok(());
    }
    let bytes = input::load(path).map_err(|e| Fail::input(path, e))?;
    let file = File::parse(&bytes).map_err(|e| Fail::input(path, e))?;
    let c = part(&file, path, name, role)?;
    let mut o = io::stdout().lock();
    if c.shard().is_some() {
        // A v2 part in a shard file: found beside this file and read from it.
        let r = ztensor::fs::Reader::open(path).map_err(|e| Fail::input(path, e))?;
        let rc = r.file().require(name).and_then(|x| x.require(role)).map_err(|e| Fail::input(path, e))?;
        let decoded = r.to_vec(&rc).map_err(|e| Fail::input(path, e))?;
        o.write_all(&decoded)?;
    } else if c.encoding() == Encoding::Raw
        && c.endian() == Endian::Little
        // v2 bool and f4_e2m1 bytes are checked as they are decoded.
        && !(c.digest_covers_decoded() && c.logical_type().is_some())
    {
        // Already what we must write: straight from the mapping, once its
        // digest (if any) matched: nothing is written from a corrupt part.
        let stored = c.stored_bytes().map_err(|e| Fail::input(path, e.in_object(name)))?;
        c.verify_digest().map_err(|e| Fail::input(path, e.in_object(name)))?;
        o.write_all(stored)?;
    } else {
        let decoded = c.to_vec().map_err(|e| Fail::input(path, e.in_object(name)))?;
        o.write_all(&decoded)?;
    }
    o.flush()?;
    Ok(())
}

/// The part `role` of object `name`, refused unless zt can decode it.
fn part<'a>(file: &File<'a>, path: &Path, name: &str, role: &str) -> Result<Component<'a>, Fail> {
    let object = file.require(name).map_err(|e| Fail::input(path, e))?;
    let c = object.require(role).map_err(|e| Fail::input(path, e.in_object(name)))?;
    if !c.is_decodable() {
        let what = "decoding a type or encoding zt does not know (see 'zt info')";
        return Err(Fail::input(path, Error::new(ErrorKind::Unsupported { what }).in_object(name).in_component(role)));
    }
    Ok(c)
}
