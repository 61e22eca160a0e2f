//! The data rules `zt verify` checks, applied by `zt convert` before OUT is
//! published (issue 30, L2): an input whose values break them (CSR/COO
//! indices, bool bytes, `f4_e2m1`'s final nibble) is refused, naming the
//! object and the rule, and nothing is left behind.
//!
//! Where each rule is checked:
//! - v1.2 output and the v1.2 stage of a v2 conversion: the written file,
//!   by the reader's own verify ([`CheckedSink`]), whatever the input;
//! - v2 output from the stage: the rules v2 adds to v1.2's ([`v2_extra`]);
//! - v2 input: its own rules as it is read (`from_v2`, `verify::layout`).

use std::cell::RefCell;
use std::rc::Rc;
use ztensor::verify::Options;
use ztensor::write::{FileSink, Sink};
use ztensor::{Error, ErrorKind, File, Format, Object};

/// Data rules only: digests are the writer's own, just computed.
const DATA: Options = Options { digests: false, data: true, strict: false };

/// A [`FileSink`] that, at `finish`, checks the written file's data rules
/// (the reader's [`File::verify_with`]) before publishing it. A broken
/// rule is kept in `problem` (the error names the object and component)
/// and the file is not published (dropped unfinished, it is removed).
pub struct CheckedSink {
    pub file: FileSink,
    problem: Rc<RefCell<Option<String>>>,
}

impl CheckedSink {
    pub fn new(file: FileSink, problem: Rc<RefCell<Option<String>>>) -> CheckedSink {
        CheckedSink { file, problem }
    }

    fn check(&mut self) -> Result<(), Error> {
        // Reading back flushes what the sink buffers: the temporary file is whole.
        self.file.read_at(0, &mut [])?;
        let bytes = crate::input::load(self.file.temp_path()).map_err(|_| Error::new(ErrorKind::Io))?;
        let report = File::parse(&bytes)?.verify_with(DATA, |_| {});
        match report.first_problem {
            Some(e) => {
                self.problem.borrow_mut().get_or_insert(e.to_string());
                Err(e)
            }
            None => Ok(()),
        }
    }
}

impl Sink for CheckedSink {
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.file.write_all(bytes)
    }

    fn finish(&mut self) -> Result<(), Error> {
        self.check()?;
        self.file.finish()
    }

    fn take_io_error(&mut self) -> Option<std::io::Error> {
        self.file.take_io_error()
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<bool, Error> {
        self.file.read_at(offset, buf)
    }

    fn skip_zeros(&mut self, n: u64) -> Result<bool, Error> {
        self.file.skip_zeros(n)
    }

    fn rewind_to(&mut self, offset: u64) -> Result<bool, Error> {
        self.file.rewind_to(offset)
    }
}

/// The data rules v2 has and v1.2 has not, on an object of the v1.2 stage
/// (raw, `u64` indices; v1.2's own rules were checked by [`CheckedSink`]):
/// CSR columns strictly increasing within a row and COO cells distinct
/// (§5.3's and §5.4's profiles), `f4_e2m1`'s final odd nibble zero (Appendix A).
pub fn v2_extra(o: &Object<'_>) -> Result<(), Error> {
    use ztensor::v2::data::{check_coo, check_csr, check_logical};
    use ztensor::v2::types::{DType as Index, LogicalType};
    let bytes = |role: &str| o.require(role).and_then(|c| c.stored_bytes().map_err(|e| e.in_component(role)));
    let shape: Vec<u64> = o.shape().dims().collect();
    let in_object = |e: ztensor::v2::Error| Error::from(e).in_object(o.name());
    // The element count of the values' logical type (for the final nibble).
    let values = match o.format() {
        Format::SparseCsr => {
            let (indptr, indices) = (bytes("indptr")?, bytes("indices")?);
            let (rows, cols) = (shape.first().copied().unwrap_or(0), shape.get(1).copied().unwrap_or(0));
            check_csr(rows, cols, Index::U64, indptr, indices).map_err(|e| in_object(e).in_component("indices"))?;
            indices.len() as u64 / 8
        }
        Format::SparseCoo => {
            let coords = bytes("coords")?;
            check_coo(&shape, Index::U64, coords).map_err(|e| in_object(e).in_component("coords"))?;
            coords.len() as u64 / 8 / (shape.len() as u64).max(1)
        }
        _ => o.shape().numel(),
    };
    for c in o.components() {
        // (Its v1.2 name, or v2's, which the v2 pass keeps: `v2::logical`.)
        let f4 = c.logical_type().is_some_and(|t| matches!(t.name(), "f4_e2m1fn" | "f4_e2m1"));
        let n = if o.format() == Format::Dense || c.role() == "values" { values } else { continue };
        if f4 {
            check_logical(LogicalType::F4E2M1, n, c.stored_bytes()?).map_err(|e| in_object(e).in_component(c.role()))?;
        }
    }
    Ok(())
}
