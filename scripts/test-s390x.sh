#!/usr/bin/env bash
# Runs the core's tests (ztensor's unit tests and tests/*.rs) on a big-endian
# host: s390x-unknown-linux-gnu under qemu-user. Zero-copy views of
# multi-byte elements must be refused there and every typed read must still
# give the right elements.
#   bash scripts/test-s390x.sh
# Needs (installs nothing itself; .ci/run installs them):
#   rustup target add s390x-unknown-linux-gnu
#   apt-get install gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user
# When one is missing it prints a loud WARNING and exits 0; set
# ZT_REQUIRE_S390X=1 (or ZT_STRICT=1) to make that an error.
#
# Built with `std` and ruzstd (no default `libzstd`): the zstd C library is
# not cross-compiled; every line of Rust around zstd is the same.
# Built with --release, keeping debug assertions and overflow checks (the
# unit tests rely on the writer's debug self-check): qemu runs optimized code
# several times faster. Not run here, each with a loud line:
#   - tests/cli*.rs: they spawn the `zt` binary, which cannot start from
#     inside the emulator (no binfmt_misc: exit 127);
#   - the two limits.rs tests that re-run the test binary as a child to
#     measure its peak RSS (same reason; qemu's RSS is not the program's);
#   - tests/interop_reference.rs when ZT_REFERENCE_PYTHON is not set (it
#     runs the host's Python reference on the files our s390x build writes;
#     scripts/test-all.sh sets it).
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=s390x-unknown-linux-gnu
SYSROOT=/usr/s390x-linux-gnu

loud() { printf '\n!!!!!!!! WARNING: %s !!!!!!!!\n\n' "$*" >&2; }

missing=()
[ -d "$(rustc --print sysroot)/lib/rustlib/$TARGET" ] || missing+=("Rust target $TARGET (rustup target add $TARGET)")
command -v s390x-linux-gnu-gcc >/dev/null || missing+=("linker s390x-linux-gnu-gcc (apt-get install gcc-s390x-linux-gnu)")
[ -e "$SYSROOT/lib/libc.so.6" ] || missing+=("s390x C library in $SYSROOT (apt-get install libc6-dev-s390x-cross)")
command -v qemu-s390x >/dev/null || missing+=("qemu-s390x (apt-get install qemu-user)")
if [ ${#missing[@]} -gt 0 ]; then
    list=$(printf '%s; ' "${missing[@]}")
    loud "big-endian (s390x) tests NOT run: missing ${list%; }"
    if [ "${ZT_REQUIRE_S390X:-0}" = 1 ] || [ "${ZT_STRICT:-0}" = 1 ]; then
        exit 1
    fi
    exit 0
fi

export CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_LINKER="${CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_LINKER:-s390x-linux-gnu-gcc}"
export CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_RUNNER="${CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_RUNNER:-qemu-s390x -L $SYSROOT}"
export CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS=true
export CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS=true

# Each test target: tests/NAME.rs or tests/NAME/main.rs. Targets that start
# a child process (the reference Python, the test binary itself) run on one
# test thread: a fork inside qemu-user while another test thread holds one
# of qemu's locks can leave the child hung before it execs (seen once, in
# writer_v2). The others run on the default threads.
targets=(--lib)
forking=()
for f in tests/*.rs tests/*/main.rs; do
    [ -e "$f" ] || continue
    name=$(basename "${f%/main.rs}" .rs)
    case "$name" in
        cli*)
            loud "s390x: tests/$name.rs SKIPPED (spawns the zt binary, which cannot start inside qemu-user)"
            continue ;;
        interop_reference)
            if [ -z "${ZT_REFERENCE_PYTHON:-}" ]; then
                loud "s390x: tests/$name.rs SKIPPED (set ZT_REFERENCE_PYTHON to a Python with ztensor==1.2.3 and numpy)"
                continue
            fi ;;
    esac
    if grep -qE 'Command::new|reference_v2' "$f"; then
        forking+=(--test "$name")
    else
        targets+=(--test "$name")
    fi
done

# Tests that re-run the test binary as a child process.
child_tests=(one_gib_manifest_on_disk one_million_objects_rss)
loud "s390x: limits.rs tests SKIPPED (re-run the test binary as a child, impossible under qemu-user): ${child_tests[*]}"
skips=()
for t in "${child_tests[@]}"; do
    skips+=(--skip "$t")
done

start=$(date +%s)
# The timeout turns any hang into a failure.
s390x_test() {
    timeout "${ZT_S390X_TIMEOUT:-2400}" \
        cargo test -p ztensor --release --target "$TARGET" --no-default-features --features std,v1-legacy \
            --no-fail-fast "$@"
}
s390x_test "${targets[@]}"
s390x_test "${forking[@]}" -- --test-threads=1 "${skips[@]}"
echo "s390x (big-endian, qemu-user) tests passed in $(($(date +%s) - start)) s"
