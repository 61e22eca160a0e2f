//! Writer (work in progress).
