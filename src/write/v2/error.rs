//! Errors of the v2 writer.

use alloc::string::String;

/// Why the v2 writer refused or failed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// The reader would refuse it: the rule, as the reader reports it.
    Rule(crate::v2::Error),
    /// Canonical form: a name (object, part or attribute key) not in NFC.
    NotNfc,
    /// Canonical form: objects must be added in ascending bytewise name order.
    Unsorted,
    /// An object of this name was already added.
    DuplicateObject,
    /// Two parts, or two map keys, are equal.
    DuplicateKey,
    /// An attribute value with a CBOR tag (v2 forbids tags).
    Tag,
    /// Attributes nested deeper than 32 levels from the manifest root.
    TooDeep,
    /// An option, or a part setting, the chosen form does not allow.
    Option(&'static str),
    /// From the sink or a source: I/O, or a source not its declared length.
    Core(crate::ErrorKind),
}

/// An error of the v2 writer, with the object and part it concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// What went wrong.
    pub kind: Kind,
    /// The object, when one is concerned.
    pub object: Option<String>,
    /// The part, when one is concerned.
    pub part: Option<String>,
}

impl Error {
    pub(crate) fn new(kind: Kind) -> Self {
        Error { kind, object: None, part: None }
    }
    pub(crate) fn in_object(mut self, name: &str) -> Self {
        self.object.get_or_insert_with(|| name.into());
        self
    }
    pub(crate) fn in_part(mut self, name: &str) -> Self {
        self.part.get_or_insert_with(|| name.into());
        self
    }
}

impl From<crate::Error> for Error {
    fn from(e: crate::Error) -> Self {
        Error::new(Kind::Core(e.kind()))
    }
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match &self.kind {
            Kind::Rule(e) => write!(f, "{e}")?,
            Kind::Core(k) => write!(f, "{k}")?,
            k => write!(f, "zTensor v2 writer: {k:?}")?,
        }
        if let Some(o) = &self.object {
            write!(f, " (object {o:?}")?;
            if let Some(p) = &self.part {
                write!(f, ", part {p:?}")?;
            }
            write!(f, ")")?;
        }
        Ok(())
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// Result of the v2 writer.
pub type Result<T, E = Error> = core::result::Result<T, E>;
