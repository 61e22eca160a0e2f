#!/usr/bin/env bash
# zt_open + zt_find of every object of a 100k-object file: C (through the
# C ABI, examples-c/bench_find.c) against Rust (the same work through the
# Rust API, ffi/examples/bench_find.rs). Prints both and the ratio C / Rust
# of the best runs (goal: at most 1.2).
#
#   bash scripts/bench-ffi.sh [OBJECTS] [ITERS] [ROUNDS]     # defaults: 100000 10 5
#
# Both programs run ROUNDS times, alternating, on the same file (written by
# bench_find.c the first time); each round reports the best of ITERS. Times
# are the thread's CPU time (a shared machine's wall clock mostly measures
# the neighbours); ZT_BENCH_WALL=1 measures wall-clock time instead.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
n=${1:-100000}
iters=${2:-10}
rounds=${3:-5}
jobs=${ZT_JOBS:-2}
builds=${ZT_C_BUILD_DIR:-$root/build}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}

cmake -S examples-c -B "$builds/c-bench" -DCMAKE_BUILD_TYPE=Release -DZT_CARGO_TARGET_DIR="$CARGO_TARGET_DIR" >/dev/null
cmake --build "$builds/c-bench" -j "$jobs" --target bench_find >/dev/null
cargo build --release --manifest-path ffi/Cargo.toml --example bench_find -j "$jobs" 2>/dev/null

file="$builds/bench-$n.zt"
c_bench="$builds/c-bench/bench_find"
rust_bench="$CARGO_TARGET_DIR/release/examples/bench_find"
"$c_bench" --objects "$n" --iters 1 "$file" >/dev/null   # writes the file if needed
ls -l "$file"

field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p"; }
min() { if [ -z "$1" ] || [ "$2" -lt "$1" ]; then echo "$2"; else echo "$1"; fi; }
c_min="" rust_min="" c_find="" rust_find="" c_open="" rust_open=""
for r in $(seq "$rounds"); do
    c_line=$("$c_bench" --objects "$n" --iters "$iters" "$file")
    rust_line=$("$rust_bench" "$file" "$n" "$iters")
    echo "round $r: $c_line"
    echo "round $r: $rust_line"
    c_min=$(min "$c_min" "$(echo "$c_line" | field min_ns)")
    rust_min=$(min "$rust_min" "$(echo "$rust_line" | field min_ns)")
    c_open=$(min "$c_open" "$(echo "$c_line" | field open_min_ns)")
    rust_open=$(min "$rust_open" "$(echo "$rust_line" | field open_min_ns)")
    c_find=$(min "$c_find" "$(echo "$c_line" | field find_min_ns)")
    rust_find=$(min "$rust_find" "$(echo "$rust_line" | field find_min_ns)")
done
awk -v c="$c_min" -v r="$rust_min" -v co="$c_open" -v ro="$rust_open" -v cf="$c_find" -v rf="$rust_find" -v n="$n" 'BEGIN {
    printf "best of all runs (%d objects):\n", n
    printf "  open          C %8.2f ms   Rust %8.2f ms   C/Rust %.3f\n", co / 1e6, ro / 1e6, co / ro
    printf "  find x %-6d C %8.2f ms   Rust %8.2f ms   C/Rust %.3f   (%.0f vs %.0f ns per find)\n", n, cf / 1e6, rf / 1e6, cf / rf, cf / n, rf / n
    printf "  open + find   C %8.2f ms   Rust %8.2f ms   C/Rust %.3f   (goal <= 1.2)\n", c / 1e6, r / 1e6, c / r
}'
