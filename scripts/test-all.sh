#!/usr/bin/env bash
# Runs every test of the project: the README's test command, and what CI calls.
#   bash scripts/test-all.sh
# Steps that need an optional toolchain piece (the thumbv7em target, the
# s390x target with its cross linker and qemu-user, Miri)
# are skipped with a loud WARNING when it is missing; set ZT_STRICT=1 to
# make a missing piece an error instead.
set -euo pipefail
cd "$(dirname "$0")/.."

warn() { printf '\n!!!!!!!! WARNING: %s !!!!!!!!\n\n' "$*" >&2; [ "${ZT_STRICT:-0}" != 1 ] || exit 1; }
# Each step's wall time, printed as a table at the end (README "Testing").
started=$SECONDS step_at=$SECONDS step_name="" timings=()
lap() { [ -z "$step_name" ] || timings+=("$(printf '%5d s  %s' $((SECONDS - step_at)) "$step_name")"); step_at=$SECONDS; }
step() { lap; step_name="$*"; printf '\n==> %s\n' "$*"; }

step "reference implementation (PyPI ztensor==1.2.3) for the interoperability tests"
if [ -z "${ZT_REFERENCE_PYTHON:-}" ]; then
    venv="${ZT_REFERENCE_VENV:-$PWD/target/zt-ref-venv-1.2.3}"
    if ! "$venv/bin/python" -c 'import ztensor, numpy' 2>/dev/null; then
        python3 -m venv "$venv"
        "$venv/bin/pip" install -q "ztensor==1.2.3" numpy
    fi
    export ZT_REFERENCE_PYTHON="$venv/bin/python"
fi
"$ZT_REFERENCE_PYTHON" -c 'import importlib.metadata as m; print("reference ztensor", m.version("ztensor"))'

step "reference implementation (PyPI ztensor==2.1.2) for the v2 interoperability tests"
if [ -z "${ZT_REFERENCE_V2_PYTHON:-}" ]; then
    venv2="${ZT_REFERENCE_V2_VENV:-$PWD/target/zt-ref-venv-2.1.2}"
    if ! "$venv2/bin/python" -c 'import ztensor, numpy, safetensors' 2>/dev/null; then
        python3 -m venv "$venv2"
        "$venv2/bin/pip" install -q "ztensor==2.1.2" numpy safetensors
    fi
    export ZT_REFERENCE_V2_PYTHON="$venv2/bin/python"
fi
"$ZT_REFERENCE_V2_PYTHON" -c 'import importlib.metadata as m; print("reference ztensor (v2)", m.version("ztensor"))'

step "Miri (scripts/miri.sh), started beside the steps below: it interprets one test at a time, so it mostly takes the core the builds leave idle; its log is printed at the end"
miri_log=target/miri.log
mkdir -p target
CARGO_BUILD_JOBS=1 setsid bash scripts/miri.sh > "$miri_log" 2>&1 &
miri_job=$!
# A failing step ends the run: take Miri down with it.
trap 'kill -- -$miri_job 2>/dev/null || true' EXIT

step "architecture: the core's normal dependencies (none of the command's: zip, clap, the HTTP client...); no file under src/ over 600 lines (issue 31)"
deps="$(cargo tree -p ztensor -e normal --prefix none --format '{p}' | cut -d' ' -f1 | sort -u)"
for c in minicbor; do grep -qx "$c" <<<"$deps" || { echo "the core does not depend on $c" >&2; exit 1; }; done
for c in flate2 zip clap serde_json indicatif heapless ureq rustls ring; do ! grep -qx "$c" <<<"$deps" || { echo "the core depends on $c" >&2; exit 1; }; done
long="$(find src -name '*.rs' -exec wc -l {} + | awk '$2 != "total" && $1 > 600')"
[ -z "$long" ] || { printf 'files over 600 lines:\n%s\n' "$long" >&2; exit 1; }

step "cargo test (default features: std)"
cargo test --workspace

# tests/compact.rs compares the compact reader with the full one on
# mutations of every fixture: 1,000 per fixture in the default build above;
# the other builds (no_std, alloc, the firmware's features, s390x) change only
# feature-gated code around the same passes, so they run a sample of 100
# (their fault fingerprints still cover 1,500 per fixture).
export ZT_COMPACT_MUTATIONS=${ZT_COMPACT_MUTATIONS:-100}

# The readers and error names (Cargo.toml): every one of them, as
# `default` has, for the builds without `default` that test the same code
# as before these were features; the C library adds its `texts`.
readers=v0,v1-legacy,v2,error-names

step "cargo test --no-default-features (no_std, no alloc: zero-allocation test, unit tests, hostile files, compact vs full reader; and the unit tests with no reader feature: v0.1 and v2 files refused, no error names)"
cargo test -p ztensor --no-default-features --features $readers --lib --test zero_alloc --test hostile --test compact
cargo test -p ztensor --no-default-features --lib

step "cargo test --no-default-features --features alloc (and the readers)"
cargo test -p ztensor --no-default-features --features alloc,$readers --lib --test zero_alloc --test hostile --test compact

step "no_std build for the host (no reader feature)"
cargo build -p ztensor --no-default-features

step "no_std build for thumbv7em-none-eabihf (Cortex-M4F); both no-heap C libraries (the compact one is also run by test-embedded.sh)"
if rustup target list --installed 2>/dev/null | grep -qx thumbv7em-none-eabihf; then
    cargo build -p ztensor --no-default-features --features $readers --target thumbv7em-none-eabihf
    cargo build --manifest-path ffi/Cargo.toml --no-default-features --features $readers,texts --target thumbv7em-none-eabihf
    cargo build --manifest-path ffi/Cargo.toml --no-default-features --features compact,$readers,texts --target thumbv7em-none-eabihf
else
    warn "target thumbv7em-none-eabihf not installed (rustup target add thumbv7em-none-eabihf); embedded build NOT checked"
fi

step "big-endian host: the core's tests on s390x under qemu-user"
# (Emulated: 25 mutations a fixture for the readers' comparison; the fault
# fingerprints, whose answers must match the little-endian ones, run whole.)
ZT_COMPACT_MUTATIONS=25 bash scripts/test-s390x.sh

step "C ABI: ffi crate, header, C/C++ examples (plain, sanitizers, valgrind)"
if command -v cmake >/dev/null; then
    bash scripts/test-c.sh
elif [ "${ZT_REQUIRE_C:-0}" = 1 ]; then
    echo "cmake not found, and ZT_REQUIRE_C=1" >&2
    exit 1
else
    warn "cmake not found (apt-get install cmake pkg-config valgrind); C examples NOT run"
fi

step "the firmware's features: the readers without v1-legacy (v1.2 and v2), the compact C layer without texts (numbers)"
# The readers as firmware builds them (no v1-legacy: v1.0 and v1.1 refused
# as unsupported by both); the C layer's tests need `std` (which implies
# v0, v1-legacy, v2 and error-names, not texts), without libzstd: these
# tests decode no zstd, and the zstd C library is not compiled once more.
# (25 mutations a fixture, as on s390x: without v1-legacy only the version
# check differs, and the fault fingerprints still run whole.)
ZT_COMPACT_MUTATIONS=25 cargo test -p ztensor --no-default-features --features v0,v2,error-names --test compact
cargo test --manifest-path ffi/Cargo.toml --no-default-features --features std --lib compact

step "embedded: no-heap libztensor.a in a Cortex-M4F firmware under QEMU (budget line last)"
if command -v arm-none-eabi-gcc >/dev/null && command -v qemu-system-arm >/dev/null && command -v cmake >/dev/null \
    && rustup target list --installed 2>/dev/null | grep -qx thumbv7em-none-eabihf; then
    bash scripts/test-embedded.sh
elif [ "${ZT_REQUIRE_EMBEDDED:-0}" = 1 ]; then
    echo "arm-none-eabi-gcc, qemu-system-arm, cmake or the thumbv7em-none-eabihf target missing, and ZT_REQUIRE_EMBEDDED=1" >&2
    exit 1
else
    warn "arm-none-eabi-gcc / qemu-system-arm / cmake / thumbv7em-none-eabihf missing (apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm); embedded firmware NOT run"
fi

step "doc tests and docs build"
cargo doc -p ztensor --no-deps -q

step "Miri: waiting for scripts/miri.sh (started at the beginning)"
miri_status=0
wait "$miri_job" || miri_status=$?
trap - EXIT
cat "$miri_log"
[ "$miri_status" = 0 ] || { echo "Miri failed (exit $miri_status); its log is above and in $miri_log" >&2; exit 1; }

lap
echo
echo "step times (wall; Miri's own time is in its log above):"
printf '  %s\n' "${timings[@]}"
printf '%7d s  in all\n' $((SECONDS - started))
echo "ALL TEST STEPS PASSED"
