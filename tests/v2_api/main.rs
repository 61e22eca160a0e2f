#![cfg(feature = "std")]
//! The v2 parts of the one API for every version: Appendix A's byte rules
//! on every read path (`decode`), seekable range reads (`range`), and the
//! per-profile typed accessors (`profiles`).

mod build;
mod decode;
mod profiles;
mod range;
