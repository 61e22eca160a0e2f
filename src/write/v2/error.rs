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

/// Each message names what it concerns (`object "w", part "data": `) and
/// the rule, in one sentence.
impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match (&self.object, &self.part) {
            (Some(o), Some(p)) => write!(f, "object {o:?}, part {p:?}: ")?,
            (Some(o), None) => write!(f, "object {o:?}: ")?,
            (None, Some(p)) => write!(f, "part {p:?}: ")?,
            (None, None) => {}
        }
        match &self.kind {
            Kind::Rule(e) => write!(f, "a v2 reader would refuse it: {e}"),
            Kind::NotNfc => {
                let not_nfc = |s: &str| !unicode_normalization::is_nfc(s);
                let what = match (&self.object, &self.part) {
                    (_, Some(p)) if not_nfc(p) => "the part name",
                    (Some(o), _) if not_nfc(o) => "the object name",
                    (Some(_), _) => "an attribute key of the object",
                    (None, _) => "a file attribute key",
                };
                write!(f, "{what} is not in Unicode Normalization Form C, which canonical form requires of every name (§6.3 rule 5); normalize it, or write non-canonical")
            }
            Kind::Unsorted => f.write_str(
                "canonical form places blobs in bytewise (object name, part name) order (§6.3 rule 3), so objects must be added in ascending bytewise name order, and this one sorts before the object added last",
            ),
            Kind::DuplicateObject => f.write_str("an object of this name was already added; object names are unique in a manifest (§3.2)"),
            Kind::DuplicateKey => f.write_str("two parts, or two keys of one map, have the same name; map keys are unique in the manifest's CBOR (§3.1)"),
            Kind::Tag => f.write_str("an attribute value carries a CBOR tag, and format v2 manifests allow no tags (§3.1)"),
            Kind::TooDeep => f.write_str("attributes nest deeper than the 32 levels from the manifest root that format v2 allows (§3.1)"),
            Kind::Option(why) => write!(f, "the writer's options do not allow this: {why}"),
            Kind::Core(crate::ErrorKind::Io) => f.write_str("writing or reading back the output failed (I/O error)"),
            Kind::Core(crate::ErrorKind::LengthMismatch { expected, actual }) => {
                write!(f, "the part's source gave {actual} bytes where it declared {expected}")
            }
            Kind::Core(k) => write!(f, "{k}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// Result of the v2 writer.
pub type Result<T, E = Error> = core::result::Result<T, E>;
