#!/usr/bin/env bash
# Runs the core's tests under Miri (undefined-behaviour checker):
#   - the library's unit tests (`--lib`),
#   - tests/miri_core.rs: small fixtures walked completely, zero-copy views,
#     typed reads, zstd, digests, hostile inputs, the writer, and positional
#     file reads through ztensor::fs::Reader (memory maps are skipped: Miri
#     does not support mmap).
#
#   bash scripts/miri.sh
#
# Exits 0 with a LOUD warning when the nightly toolchain or its miri
# component is missing (so CI's main path survives); set ZT_STRICT=1 to make
# that an error. Fails when Miri reports undefined behaviour or a test fails.
set -euo pipefail
cd "$(dirname "$0")/.."

warn() { printf '\n!!!!!!!! WARNING: %s !!!!!!!!\n\n' "$*" >&2; }

if ! cargo +nightly miri --version >/dev/null 2>&1; then
    warn "Miri is not available (rustup +nightly component add miri rust-src); UB checks NOT run"
    [ "${ZT_STRICT:-0}" != 1 ] || exit 1
    exit 0
fi
cargo +nightly miri --version

# File I/O (fs::Reader in positional mode) needs the host's filesystem.
export MIRIFLAGS="${MIRIFLAGS:--Zmiri-disable-isolation}"
export ZT_MIRI_FS=1

# Unit tests too slow under Miri (interpreted zstd compression of MBs of
# data: hours), skipped here; they run natively in `cargo test`.
# Skipped under Miri (each runs natively in the test command): work of
# minutes to hours when interpreted, with no unsafe code of ours on its path.
SKIP=(
    --skip write::zstd::tests::frames_decode_back
    --skip write::v2::tests::seekable_parts_decode_back
    --skip v2::tests::reads_upstream_fixtures_bit_identically
    --skip v2::tests::mutated_manifests_never_panic
    --skip v2::tests::refuses_every_hostile_file_with_its_rule
    --skip v2::tests::name_index_finds_every_object_and_nothing_else
    --skip write::v2::tests::streamed_duplicates_are_shared_in_files
    # Parses every v0.1/v1.x fixture, many_objects.zt (2.8 MB) among them,
    # through the skim and the views: safe code only.
    --skip manifest::skim::tests::skim_reads_what_the_views_read_in_every_fixture
    # Measured under Miri (2026-11-23, one test thread, 5554 s in all):
    # 2811 s, 502 s, 389 s and 321 s: the v2 writer hashing and comparing
    # megabytes interpreted; its only unsafe (a prefetch hint) is compiled
    # out under Miri. They run natively in `cargo test`.
    --skip write::v2::tests::parts_digested_while_written_get_the_digest_and_share_only_identical_bytes
    --skip write::v2::tests::a_file_with_holes_for_padding_has_the_bytes_written_in_memory
    --skip write::v2::tests::streamed_duplicates_are_shared_as_in_memory_ones
    --skip write::v2::tests::a_sink_that_cannot_rewind_keeps_streamed_duplicates_unshared
    # 79 s under Miri (2026-11-28, --report-time): ~10,000 lists of blobs
    # through two overlap rules, safe code only; it runs natively.
    --skip compact::pass::tests::overlap_in_is_first_overlap
)

echo "==> miri: library unit tests"
cargo +nightly miri test -p ztensor --lib -- "${SKIP[@]}"

echo "==> miri: tests/miri_core.rs"
cargo +nightly miri test -p ztensor --test miri_core

echo
echo "MIRI: NO UNDEFINED BEHAVIOUR FOUND"
