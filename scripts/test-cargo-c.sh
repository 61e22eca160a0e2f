#!/usr/bin/env bash
# libztensor installed by cargo-c, then used through pkg-config; run by hand
# (not by CI or test-all.sh: installing cargo-c takes longer than CI's budget):
#   cargo install cargo-c --locked    # tested with 0.10.24+cargo-0.98.0 on Rust 1.95
#   bash scripts/test-cargo-c.sh
#
#   1. cargo cinstall --release into a fresh prefix (ffi/Cargo.toml's
#      [package.metadata.capi]);
#   2. the layout: libztensor.so.X.Y.Z (X.Y.Z = ffi/Cargo.toml's version),
#      libztensor.so.0 -> it (the SONAME), libztensor.so, libztensor.a,
#      include/ztensor.h + ztensor.hpp equal to the committed ones, ztensor.pc;
#   3. examples-c/consumer/consumer.c built with `pkg-config ztensor` and run,
#      LD_LIBRARY_PATH unset, with an rpath; then without one, with
#      LD_LIBRARY_PATH set to the prefix's lib directory alone; then with
#      libztensor.a and `pkg-config --static`'s libraries. Each run must count
#      the objects the fixtures' reference data lists.
#
# Environment: CARGO_TARGET_DIR (default: target/ in the repo; cargo-c builds
# in its <host triple>/ directory), ZT_CARGO_C_WORK (default: a fresh
# temporary directory, removed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}

fail() { echo "test-cargo-c.sh: FAILED: $*" >&2; exit 1; }
step() { printf '\n==> %s\n' "$*"; }

command -v cargo-cinstall >/dev/null ||
    fail "cargo-cinstall not found: install cargo-c first (cargo install cargo-c --locked)"
for tool in cc c++ pkg-config readelf python3; do
    command -v "$tool" >/dev/null || fail "$tool not found"
done

if [ -n "${ZT_CARGO_C_WORK:-}" ]; then
    work=$ZT_CARGO_C_WORK
    rm -rf "$work"
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
prefix=$work/prefix
version=$(sed -n 's/^version *= *"\([0-9.]*\)".*/\1/p' ffi/Cargo.toml | head -n 1)
major=${version%%.*}
[ -n "$version" ] || fail "no version in ffi/Cargo.toml"

step "cargo cinstall --release --prefix $prefix ($(cargo cinstall --version 2>&1 | head -n 1))"
cargo cinstall --manifest-path ffi/Cargo.toml --release --prefix "$prefix"

step "installed layout"
pc=$(find "$prefix" -name ztensor.pc)
[ -n "$pc" ] || fail "no ztensor.pc under $prefix"
libdir=$(dirname "$(dirname "$pc")")
echo "libdir: $libdir"
(cd "$prefix" && find . \( -type f -o -type l \) | sort | while read -r f; do
    if [ -L "$f" ]; then echo "  $f -> $(readlink "$f")"; else echo "  $f"; fi
done)
real=libztensor.so.$version
[ -f "$libdir/$real" ] && [ ! -L "$libdir/$real" ] || fail "$libdir/$real is not a file"
[ "$(readlink "$libdir/libztensor.so.$major")" = "$real" ] || fail "libztensor.so.$major is not a link to $real"
[ "$(readlink -f "$libdir/libztensor.so")" = "$(readlink -f "$libdir/$real")" ] ||
    fail "libztensor.so does not lead to $real"
[ -f "$libdir/libztensor.a" ] || fail "no libztensor.a"
readelf -d "$libdir/$real" | grep -F "Library soname: [libztensor.so.$major]" ||
    fail "the SONAME of $real is not libztensor.so.$major"
for h in ztensor.h ztensor.hpp; do
    cmp "$prefix/include/$h" "include/$h" || fail "installed include/$h differs from the committed one"
done
export PKG_CONFIG_PATH=$libdir/pkgconfig
echo "--- ztensor.pc"
cat "$pc"
[ "$(pkg-config --modversion ztensor)" = "$version" ] || fail "ztensor.pc's version is not $version"

# The fixtures and how many objects their reference data lists.
v12=tests/fixtures/v1.2/zstd.zt
v2=tests/fixtures/v2/valid/quant_group.zt
count_v12=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["objects"]))' \
    tests/fixtures/v1.2/zstd.expected.json)
count_v2=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["files"]["quant_group.zt"]["objects"]))' \
    tests/fixtures/v2/manifest.json)

# run_consumer EXE [ENV...]: runs EXE on both fixtures (LD_LIBRARY_PATH unset
# unless given) and checks what it prints.
run_consumer() {
    local exe=$1 file count out
    shift
    for pair in "$v12:$count_v12" "$v2:$count_v2"; do
        file=${pair%%:*}
        count=${pair##*:}
        out=$(env -u LD_LIBRARY_PATH "$@" "$exe" "$file") || fail "$exe $file exited with $?"
        echo "$out"
        [ "$out" = "libztensor $version: $file has $count objects" ] ||
            fail "$exe printed '$out', expected libztensor $version and $count objects"
    done
}
consumer=examples-c/consumer/consumer.c

step "pkg-config ztensor, with an rpath"
# shellcheck disable=SC2046 # pkg-config's output is a list of flags
cc "$consumer" -o "$work/consumer_rpath" $(pkg-config --cflags --libs ztensor) \
    -Wl,-rpath,"$(pkg-config --variable=libdir ztensor)"
readelf -d "$work/consumer_rpath" | grep -F "Shared library: [libztensor.so.$major]" ||
    fail "consumer_rpath does not need libztensor.so.$major"
run_consumer "$work/consumer_rpath"

step "pkg-config ztensor, no rpath, LD_LIBRARY_PATH=$libdir"
# shellcheck disable=SC2046
cc "$consumer" -o "$work/consumer_plain" $(pkg-config --cflags --libs ztensor)
if env -u LD_LIBRARY_PATH "$work/consumer_plain" "$v12" >/dev/null 2>&1; then
    fail "consumer_plain started without rpath or LD_LIBRARY_PATH: is libztensor installed system-wide?"
fi
run_consumer "$work/consumer_plain" LD_LIBRARY_PATH="$libdir"

step "pkg-config --static ztensor, libztensor.a picked with -Wl,-Bstatic"
# -lztensor finds libztensor.so first; -Bstatic around it takes libztensor.a,
# and Libs.private (rustc's native-static-libs) links dynamically.
static_libs=$(pkg-config --static --libs ztensor)
echo "pkg-config --static --libs ztensor: $static_libs"
# shellcheck disable=SC2046,SC2086
cc "$consumer" -o "$work/consumer_static" $(pkg-config --cflags ztensor) \
    ${static_libs/-lztensor/-Wl,-Bstatic -lztensor -Wl,-Bdynamic}
if readelf -d "$work/consumer_static" | grep -F libztensor; then
    fail "consumer_static needs a shared libztensor"
fi
run_consumer "$work/consumer_static"

echo
echo "CARGO-C INSTALL PASSED (libztensor $version, $(cargo cinstall --version 2>&1 | head -n 1))"
