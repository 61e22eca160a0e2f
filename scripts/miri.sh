#!/usr/bin/env bash
# Miri (the undefined-behaviour checker) where the unsafe code is: the C
# ABI in ffi/, which takes every raw pointer a C caller hands it, and the
# core's few unsafe modules. Tests of safe code alone run natively only
# (`cargo test`): Miri interprets, orders of magnitude slower.
#
#   bash scripts/miri.sh
#
# What each run reaches (the unsafe sites: `grep -rn unsafe src ffi/src`):
#
# 1. ffi, the full library (std): ffi/tests/miri_abi/main.rs, every
#    exported zt_* function through its pointers (NULL in turn, buffers of
#    exactly the size a call may write, lengths over PTRDIFF_MAX, objects
#    of another handle, stale indices, arguments at odd addresses).
#    Reaches: ffi/src/{args,handle,file,object,attributes,component,
#    convert,verify,value,errors,message,guard}.rs (handles boxed and
#    freed, slices from pointer + length, out-parameters, the per-thread
#    message); ffi/src/write/*.rs (writer handles, strings, shapes and
#    index arrays read unaligned, struct arrays, zt_writer_options read by
#    its struct_size); and through them in the core: src/utf8.rs (every
#    manifest text), src/xxh3.rs's scalar path (v2 parts over 240 bytes:
#    Miri detects no AVX2 at run time), src/fs.rs's positional reads
#    (zt_open with ZT_OPEN_POSITIONAL; its only unsafe line, the memory
#    map, cannot run under Miri).
# 2. ffi, the no-heap build (--no-default-features, with every reader): the library's own
#    test miri_no_heap (ffi/tests/miri_abi/no_heap.rs, with the read checks
#    of 1). Reaches: ffi/src/embedded.rs zt_open_mem_into (the handle
#    written into caller storage, slots taken as the core's scratch and
#    name index), handle.rs index_in_place, message.rs's static buffer, and
#    the read modules of 1 over it.
# 3. ffi, the compact build (--features compact, with every reader and texts): the same
#    test. Reaches: ffi/src/compact/{mod,data}.rs, all their unsafe.
#    (ffi/src/compact/tests/ compare it with the full library on every
#    fixture and 5,000 mutations: natively only, in the std build.)
# 4. The core, built with AVX2 (a target directory of its own):
#    xxh3::tests (src/xxh3.rs's AVX2 module: every load, prefetch and store,
#    against the scalar xxh3; not xxh3::portable, which is safe code), utf8::tests (src/utf8.rs's
#    from_utf8_unchecked after its own validation), fs::tests and
#    tests/miri_core.rs fs_reader (src/fs.rs's positional Reader).
#
# Not under Miri: src/fs.rs's memory map and what reads through one
# (zt_open without ZT_OPEN_POSITIONAL); src/write/names.rs's prefetch hint
# (compiled out under Miri: cfg(not(miri))); ffi/src/bare.rs's panic hook
# and ffi/src/mem.rs (firmware targets only).
#
# Measured on a 2-core machine shared with other jobs (load 2 to 5), builds
# with one job (CARGO_BUILD_JOBS=1): 11.6 minutes from empty target
# directories, 5.6 warm (1: 95 s, 2: 88 s, 3: 98 s, 4: 54 s); the Miri
# sysroot, built once per toolchain, took 55 s more.
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

# File I/O (positional reads, the writer's files) needs the host's filesystem.
export MIRIFLAGS="${MIRIFLAGS:--Zmiri-disable-isolation}"
export ZT_MIRI_FS=1

step() {
    printf '\n==> miri: %s\n' "$1"
    shift
    local start=$SECONDS
    "$@"
    printf '<== %s s\n' "$((SECONDS - start))"
}

ffi=(--manifest-path ffi/Cargo.toml)
# The host builds here leave out the default `libzstd` (the zstd C library,
# which Miri cannot run) and decode zstd with ruzstd: the same Rust around it.
step "1. ffi, full library: every exported zt_* function (ffi/tests/miri_abi)" \
    cargo +nightly miri test "${ffi[@]}" --no-default-features --features std,v1-legacy,texts --test miri_abi
step "2. ffi, no-heap build: zt_open_mem_into and the reads (miri_no_heap)" \
    cargo +nightly miri test "${ffi[@]}" --no-default-features --features v0,v1-legacy,v2,error-names,texts --lib miri_no_heap
step "3. ffi, compact (firmware) build: the same" \
    cargo +nightly miri test "${ffi[@]}" --no-default-features --features compact,v0,v1-legacy,v2,error-names,texts --lib miri_no_heap
# (AVX2 at compile time: Miri then runs xxh3's AVX2 path; x86-64 only.)
avx2=""
[ "$(uname -m)" != x86_64 ] || avx2="-C target-feature=+avx2"
step "4. core with AVX2: xxh3's AVX2 path, utf8, fs positional reads" \
    env RUSTFLAGS="${RUSTFLAGS:-} $avx2" \
    cargo +nightly miri test -p ztensor --no-default-features --features std,v1-legacy --lib --test miri_core --target-dir target/miri-avx2 \
    -- xxh3::tests:: utf8:: fs::tests:: fs_reader

echo
echo "MIRI: NO UNDEFINED BEHAVIOUR FOUND"
