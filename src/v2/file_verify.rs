//! [`File::verify_with`](crate::File::verify_with) on a v2 file: every
//! part through the one per-part check (`crate::verify::part`: decoded bytes
//! against `decoded_length`, digest, type's byte rules), then each object's
//! layout data rules (CSR, COO: `v2::verify::layout`).

use crate::check::Stored;
use crate::error::{ErrorKind, Result};
use crate::file::File;
use crate::object::Component;
use crate::types::Encoding;
use crate::verify::{part, Bytes, Finding, Options, Positional, Report};

/// Decoded bytes of a part whose stored bytes are `stored` (the layout
/// rules' index parts, which need them whole).
fn decode<'s>(c: &Component<'_>, stored: Stored<'s>) -> Result<Stored<'s>> {
    match c.encoding() {
        Encoding::Raw => Ok(stored),
        #[cfg(feature = "alloc")]
        // (The digest is the verification's own step, not this decode's.)
        Encoding::ZstdSeekable => c.with_stored(stored.get()).unverified().to_vec().map(Stored::Owned),
        _ => Err(c.error(ErrorKind::Unsupported { what: "decoding this encoding" })),
    }
}

impl<'a> File<'a> {
    pub(crate) fn run_v2<'s>(
        &self,
        m: &super::Manifest<'a>,
        opt: Options,
        load: &impl Fn(&Component<'a>) -> Result<Stored<'s>>,
        positional: Option<&Positional<'_, 'a>>,
        mut on: impl FnMut(Finding<'_, 'a>),
    ) -> Report {
        let mut r = Report::default();
        for (o, v2o) in self.objects().zip(m.objects()) {
            r.objects += 1;
            for c in o.components() {
                r.components += 1;
                if !opt.digests && !opt.data {
                    continue;
                }
                // Every part through the one per-part check (`verify::part`).
                let found = match positional.filter(|p| (p.by_position)(&c)) {
                    #[cfg(feature = "alloc")]
                    Some(p) => part(&c, opt, Bytes::At(&|offset, out| (p.read)(&c, offset, out))),
                    _ => load(&c).and_then(|s| part(&c, opt, Bytes::Memory(s.get()))),
                };
                r.tally(&o, &c, opt, found, &mut on);
            }
            if opt.data {
                if let Err(e) = self.layout_data(&o, &v2o, load) {
                    r.problem(e.in_object(o.name()), &mut on);
                }
            }
        }
        r
    }

    /// The data rules of a layout (CSR indptr and indices, COO coordinates):
    /// `v2::verify::layout`, on the index parts' decoded bytes.
    fn layout_data<'s>(
        &self,
        o: &crate::Object<'a>,
        v2o: &super::Object<'a, '_>,
        load: &impl Fn(&Component<'a>) -> Result<Stored<'s>>,
    ) -> Result<()> {
        super::verify::layout(v2o, |p| {
            let c = o.require(p.name)?;
            load(&c).and_then(|s| decode(&c, s))
        })
    }
}
