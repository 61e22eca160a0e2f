#!/usr/bin/env bash
# The full C ABI check, for CI and by hand:
#   bash scripts/test-c.sh
#
#   1. cargo test of ffi/ (unit tests; include/ztensor.h is up to date)
#   2. examples-c: configure, build, ctest            (build dir: build/c)
#   3. the same under AddressSanitizer + UBSan        (build/c-asan)
#   4. the examples under valgrind, hostile files too (ctest -L valgrind in build/c)
#
# Needs cmake, a C/C++ compiler, pkg-config and valgrind (apt-get install
# cmake pkg-config valgrind). A missing valgrind skips step 4 with a loud
# WARNING; ZT_STRICT=1 or ZT_REQUIRE_C=1 (CI) makes it an error. Environment:
#   CARGO_TARGET_DIR   shared by every step (default: target/ in the repo)
#   ZT_C_BUILD_DIR     where the CMake build dirs go (default: build/)
#   ZT_JOBS            parallel jobs (default: 2)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

warn() {
    printf '\n!!!!!!!! WARNING: %s !!!!!!!!\n\n' "$*" >&2
    [ "${ZT_STRICT:-0}" != 1 ] && [ "${ZT_REQUIRE_C:-0}" != 1 ] || exit 1
}
step() { printf '\n==> %s\n' "$*"; }

jobs=${ZT_JOBS:-2}
builds=${ZT_C_BUILD_DIR:-$root/build}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}

for tool in cmake cargo cc c++ pkg-config; do
    command -v "$tool" >/dev/null || { echo "test-c.sh: $tool not found (apt-get install cmake pkg-config)" >&2; exit 1; }
done

step "cargo test (ffi/: unit tests, header up to date)"
cargo test --manifest-path ffi/Cargo.toml -j "$jobs"

have_valgrind=0
if command -v valgrind >/dev/null; then have_valgrind=1; fi

step "examples-c: configure, build, ctest"
cmake -S examples-c -B "$builds/c" -DZT_VALGRIND=$([ $have_valgrind = 1 ] && echo ON || echo OFF) \
    -DZT_CARGO_TARGET_DIR="$CARGO_TARGET_DIR"
cmake --build "$builds/c" -j "$jobs"
ctest --test-dir "$builds/c" -j "$jobs" -LE valgrind --output-on-failure

step "examples-c with -fsanitize=address,undefined"
cmake -S examples-c -B "$builds/c-asan" -DZT_SANITIZE=ON -DZT_CARGO_TARGET_DIR="$CARGO_TARGET_DIR"
cmake --build "$builds/c-asan" -j "$jobs"
ctest --test-dir "$builds/c-asan" -j "$jobs" --output-on-failure

step "examples-c under valgrind (hostile files included)"
if [ $have_valgrind = 1 ]; then
    ctest --test-dir "$builds/c" -j "$jobs" -L valgrind --output-on-failure
else
    warn "valgrind not installed (apt-get install valgrind); valgrind tests NOT run"
fi

echo
echo "ALL C TEST STEPS PASSED"
