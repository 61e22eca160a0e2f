//! Every exported `zt_*` function of the full library through its
//! raw-pointer paths, small enough for Miri (`scripts/miri.sh`, which
//! says which unsafe code each test reaches): NULL for each pointer
//! argument in turn, buffers of exactly the size a call may write (one
//! byte more is an out-of-bounds write Miri reports), short and empty
//! ones, lengths and counts over `PTRDIFF_MAX` or whose byte size
//! overflows, objects of another handle and stale indices,
//! `ZT_NUL_TERMINATED` and explicit lengths, names with a NUL inside or
//! not UTF-8, arguments at odd addresses where the header allows them,
//! every out-parameter read back. The statuses and messages are the
//! header's. Runs natively in `cargo test` too.
//!
//! The read checks (`reads`, `components`, `foreign`) are shared with
//! `miri_no_heap.rs`, which runs them on the no-heap builds.
#![cfg(feature = "std")]

mod components;
mod foreign;
mod library;
mod load;
mod reads;
mod support;
mod writer;
mod writer_layouts;
mod writer_v2;

#[test]
fn file_info() {
    reads::file_info();
}

#[test]
fn objects_by_position() {
    reads::objects_by_position();
}

#[test]
fn objects_by_name() {
    reads::objects_by_name();
}

#[test]
fn object_info_and_shape() {
    reads::object_info_and_shape();
}

#[test]
fn attributes() {
    reads::attributes();
}

#[test]
fn component_descriptions() {
    components::descriptions();
}

#[test]
fn writer_v2_seekable_ranges() {
    writer_v2::seekable_ranges();
}

#[test]
fn zero_copy_and_reads() {
    components::zero_copy_and_reads();
}

#[test]
fn compressed_components() {
    components::compressed();
}

#[test]
fn ranges() {
    components::ranges();
}

#[test]
fn verification() {
    components::verification();
}

#[test]
fn component_digests() {
    components::component_digests();
}

#[test]
fn foreign_objects() {
    foreign::foreign_objects();
}

#[test]
fn open_by_path() {
    library::open_by_path();
}

#[test]
fn open_memory() {
    library::open_memory();
}

#[test]
fn static_texts() {
    library::static_texts();
}

#[test]
fn last_error_per_thread() {
    library::last_error_per_thread();
}

#[test]
fn read_as() {
    library::read_as();
}

#[test]
fn writer_dense_objects() {
    writer::dense_objects();
}

#[test]
fn writer_abort_leaves_nothing() {
    writer::abort_leaves_nothing();
}

#[test]
fn writer_v1_2_layouts() {
    writer_layouts::v1_2_layouts();
}

#[test]
fn writer_options_by_struct_size() {
    writer_v2::options_by_struct_size();
}

#[test]
fn writer_v2_layouts() {
    writer_v2::v2_layouts();
}

#[test]
fn whole_model_load() {
    load::whole_model();
}
