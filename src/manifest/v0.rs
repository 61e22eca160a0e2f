//! The validating pass over a v0.1 manifest: an array of tensor maps, each
//! a dense object with one `data` component.

use super::fields::{format, opt_text, shape};
use super::pass::{Pass, Seen};
use super::rules::{check_format, component_rules, Dims, Known};
use crate::compact::Component;
use super::schema::{Role, V0Key};
use super::Ctx;
use crate::cbor::Reader;
use crate::error::{Error, ErrorKind, Result};
use crate::types::{DType, Encoding, Format};

/// Validate a v0.1 tensor map at `r`; returns its name.
pub(crate) fn check_object<'a>(ctx: Ctx<'a>, r: &mut Reader<'a>, pass: &mut Pass<'_>) -> Result<&'a str> {
    let start = r.pos;
    let mut len = r.map("tensor")?;
    let seg = pass.scratch.len();
    let mut seen = Seen::new();
    let (mut name, mut offset, mut size, mut dtype, mut shp) = (None, None, None, None, None);
    let (mut encoding, mut fmt) = (None, Format::Dense);
    while r.more(&mut len)? {
        let kpos = r.pos;
        let key = pass.key(r, 3)?;
        let Some(k) = key.and_then(V0Key::from_bytes) else {
            pass.unknown(r, kpos, 4)?;
            continue;
        };
        seen.mark(k as u32, kpos)?;
        match k {
            V0Key::Name => name = Some((r.pos, r.text("name")?)),
            V0Key::Offset => offset = Some(r.uint("offset")?),
            V0Key::Size => size = Some(r.uint("size")?),
            V0Key::DType => {
                let at = r.pos;
                let s = r.text("dtype")?;
                dtype = Some(DType::from_v0_1(s).ok_or_else(|| Error::at(ErrorKind::UnknownDType, at).with_value(s))?);
            }
            V0Key::Shape => shp = Some(shape(r)?),
            V0Key::Encoding => {
                let at = r.pos;
                let s = r.text("encoding")?;
                encoding = Some(Encoding::from_name(s).ok_or_else(|| Error::at(ErrorKind::UnknownEncoding, at).with_value(s))?);
            }
            V0Key::DataEndianness => {
                let at = r.pos;
                if !matches!(opt_text(r, "data_endianness")?, None | Some("little" | "big")) {
                    return Err(Error::at(ErrorKind::BadEndianness, at));
                }
            }
            V0Key::Checksum => {
                opt_text(r, "checksum")?;
            }
            V0Key::Layout => fmt = format(r, "layout")?,
        }
    }
    pass.pop_keys(ctx.buf, seg)?;
    let missing = |field| Error::at(ErrorKind::MissingField { field }, start);
    let (name_pos, name) = name.ok_or_else(|| missing("name"))?;
    if name.is_empty() {
        return Err(Error::at(ErrorKind::EmptyName, name_pos));
    }
    let err_in = |e: Error| e.in_object(name);
    let shape = shp.ok_or_else(|| missing("shape")).map_err(err_in)?;
    let dtype = dtype.ok_or_else(|| missing("dtype")).map_err(err_in)?;
    let encoding = encoding.ok_or_else(|| missing("encoding")).map_err(err_in)?;
    let c = Component {
        dtype,
        encoding,
        offset: offset.ok_or_else(|| missing("offset")).map_err(err_in)?,
        length: size.ok_or_else(|| missing("size")).map_err(err_in)?,
        ..Component::blank(Role::Data.name(), start)
    };
    (|| {
        component_rules(ctx, &c, start, pass.hi)?;
        pass.span(c.offset, c.length);
        let mut known = Known::new();
        known.note(Role::Data, ctx.version, &c);
        // (The tensor map holds the attributes beside the known fields.)
        check_format(ctx, Dims::of_shape(&shape, fmt), fmt, Some(start), &known).map_err(|e| e.or_at(start))
    })()
    .map_err(err_in)?;
    Ok(name)
}

/// Name the tensor in an error, if its map at `pos` has a text `name`
/// (the error may come before the name was read).
#[cold]
pub(crate) fn name_error(buf: &[u8], pos: usize, e: Error) -> Error {
    if e.object().is_some() {
        return e;
    }
    let mut r = Reader::at(buf, pos);
    let Ok(mut len) = r.map("tensor") else { return e };
    while let Ok(true) = r.more(&mut len) {
        let Ok(k) = r.text_bytes("key") else { return e };
        if k == V0Key::Name.name().as_bytes() {
            return match r.text("name") {
                Ok(n) => e.in_object(n),
                Err(_) => e,
            };
        }
        if r.skip(3).is_err() {
            return e;
        }
    }
    e
}
