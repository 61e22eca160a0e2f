//! `zt id FILE...`: the content digest of v2 files (§6.4).

use crate::args::IdArgs;
use crate::{input, out, Fail};
use ztensor::{ErrorKind, File};

pub fn run(a: &IdArgs) -> Result<(), Fail> {
    crate::each_file(&a.files, |path| {
        let bytes = input::load(path).map_err(|e| Fail::input(path, e))?;
        let file = File::parse(&bytes).map_err(|e| Fail::input(path, e))?;
        let what = match file.version().major {
            2 => "a part without digest: the content digest is not defined",
            _ => "the content digest is defined for format v2 files only",
        };
        let d = file.content_digest().ok_or_else(|| Fail::input(path, ztensor::Error::new(ErrorKind::Unsupported { what })))?;
        out::print(&format!("sha256:{}  {}\n", d.iter().map(|b| format!("{b:02x}")).collect::<String>(), out::path(path)))
    })
}
