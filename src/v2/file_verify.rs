//! [`File::verify_with`](crate::File::verify_with) on a v2 file: every
//! part's decoded bytes against `decoded_length`, its digest and its type's
//! byte rules, then each object's layout data rules (CSR, COO).

use super::data;
use super::layout::Profile;
use super::part::Digest;
use super::verify::{elements, part, Pieces};
use crate::check::Stored;
use crate::error::{Error, ErrorKind, Result};
use crate::file::File;
use crate::object::Component;
use crate::types::Encoding;
use crate::verify::{Finding, Options, PieceReader, Report};

/// Decoded bytes of a part whose stored bytes are `stored`.
fn decode<'s>(c: &Component<'_>, stored: Stored<'s>) -> Result<Stored<'s>> {
    match c.encoding() {
        Encoding::Raw => Ok(stored),
        #[cfg(feature = "alloc")]
        Encoding::ZstdSeekable => c.with_stored(stored.get()).to_vec().map(Stored::Owned),
        _ => Err(c.error(ErrorKind::Unsupported { what: "decoding this encoding" })),
    }
}

impl<'a> File<'a> {
    pub(crate) fn run_v2<'s>(
        &self,
        m: &super::Manifest<'a>,
        opt: Options,
        load: &impl Fn(&Component<'a>) -> Result<Stored<'s>>,
        pieces: Option<PieceReader<'_, 'a>>,
        mut on: impl FnMut(Finding<'_, 'a>),
    ) -> Report {
        let mut r = Report::default();
        for (o, v2o) in self.objects().zip(m.objects()) {
            r.objects += 1;
            let in_obj = |e: Error| e.in_object(o.name());
            for c in o.components() {
                r.components += 1;
                let Some(mut p) = c.v2_part() else { continue };
                if !opt.digests {
                    p.digest = None;
                }
                if !opt.digests && !opt.data {
                    continue;
                }
                if matches!(p.digest, Some(Digest::Other(..))) || (opt.digests && c.encoding() == Encoding::Unknown) {
                    r.unverifiable += 1;
                    on(Finding::Unverifiable { object: &o, component: &c });
                    if opt.strict {
                        r.problem(in_obj(c.error(ErrorKind::UnverifiableDigest)), &mut on);
                    }
                    if c.encoding() == Encoding::Unknown {
                        continue;
                    }
                }
                // A raw part read by position: hashed piece by piece as it is read.
                if let (Some(read), Encoding::Raw, None, Some(mut h)) = (pieces, c.encoding(), c.shard(), Pieces::new(&p)) {
                    match read(&c, &mut |b| h.update(b)).and_then(|()| {
                        h.finish(p.decoded_size()).map_err(|e| Error::from(e).in_component(c.role()))
                    }) {
                        Ok(true) => r.digests_checked += 1,
                        Ok(false) => {}
                        Err(e) => r.problem(in_obj(e), &mut on),
                    }
                    continue;
                }
                let decoded = match load(&c).and_then(|s| decode(&c, s)) {
                    Ok(d) => d,
                    Err(e) => {
                        r.problem(in_obj(e), &mut on);
                        continue;
                    }
                };
                let n = if opt.data { elements(&v2o, &p) } else { None };
                match part(&p, n, decoded.get()) {
                    Ok(true) => r.digests_checked += 1,
                    Ok(false) => {}
                    Err(e) => r.problem(in_obj(Error::from(e).in_component(c.role())), &mut on),
                }
            }
            if opt.data {
                if let Err(e) = self.layout_data(&o, &v2o, load) {
                    r.problem(in_obj(e), &mut on);
                }
            }
        }
        r
    }

    /// The data rules of a layout (CSR indptr and indices, COO coordinates).
    fn layout_data<'s>(
        &self,
        o: &crate::Object<'a>,
        v2o: &super::Object<'a, '_>,
        load: &impl Fn(&Component<'a>) -> Result<Stored<'s>>,
    ) -> Result<()> {
        let bytes = |role: &str| -> Result<Stored<'s>> {
            let c = o.require(role)?;
            load(&c).and_then(|s| decode(&c, s))
        };
        match v2o.profile() {
            Profile::Csr { index } => {
                let (ip, ix) = (bytes("indptr")?, bytes("indices")?);
                let (rows, cols) = (v2o.dim(0).unwrap_or(0), v2o.dim(1).unwrap_or(0));
                data::check_csr(rows, cols, index, ip.get(), ix.get())?;
            }
            Profile::Coo { index } => {
                let mut shape = [0u64; 64];
                for (s, d) in shape.iter_mut().zip(v2o.dims()) {
                    *s = d;
                }
                data::check_coo(&shape[..v2o.rank()], index, bytes("coords")?.get())?;
            }
            _ => {}
        }
        Ok(())
    }
}
