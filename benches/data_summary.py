#!/usr/bin/env python3
"""Tables of the last `data` benchmark run, from criterion's JSON (medians).

usage: python3 benches/data_summary.py [TARGET_DIR]   (default: $CARGO_TARGET_DIR or ./target)

The interleaved `theirs/ours` ratios are printed by the benchmark itself,
at the end of its run; this gives criterion's per-contestant medians.
"""
import json, os, sys
from pathlib import Path

target = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CARGO_TARGET_DIR", "target"))
root = target / "criterion"


def median_ns(group, ident):
    e = root / group / ident / "new" / "estimates.json"
    if not e.exists():
        return None
    return json.loads(e.read_text())["median"]["point_estimate"]


def fmt(ns):
    if ns is None:
        return "-"
    for unit, d in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= d:
            return f"{ns / d:.3g} {unit}"
    return f"{ns:.3g} ns"


def rate(nbytes, ns):
    if ns is None:
        return "-"
    gbs = nbytes / ns  # bytes per ns = GB/s
    return f"{gbs * 1e9 / 2**30:.2f} GiB/s" if gbs * 1e9 >= 2**30 else f"{gbs * 1e9 / 2**20:.0f} MiB/s"


def x(theirs, ours):
    return f"{theirs / ours:.3f}" if theirs and ours else "-"


MIB = 1 << 20

print("### zstd decode (criterion medians)\n")
cols = ["ours/read_into", "libzstd/decompress_to_buffer", "ours/to_vec", "libzstd/decompress",
        "ours-ruzstd/decode_into", "ruzstd/decode_all"]
print("| data | " + " | ".join(f"`{c}`" for c in cols)
      + " | libzstd buf / ours read_into | libzstd vec / ours to_vec | ruzstd / ours-ruzstd |")
print("|" + "---|" * (len(cols) + 4))
for data in ["f32-1MiB", "f32-16MiB", "text-1MiB", "text-16MiB"]:
    g = f"zstd_{data}"
    n = int(data.split("-")[1].removesuffix("MiB")) * MIB
    t = {c: median_ns(g, c) for c in cols}
    print(f"| {data} | " + " | ".join(f"{fmt(t[c])} ({rate(n, t[c])})" for c in cols)
          + f" | {x(t[cols[1]], t[cols[0]])} | {x(t[cols[3]], t[cols[2]])} | {x(t[cols[5]], t[cols[4]])} |")

print("\n### sha256 verify (criterion medians)\n")
print("| size | `ours/verify_digest` | `sha2/digest` | sha2 / ours |")
print("|---|---|---|---|")
for size in [16, 256]:
    g = f"sha256_{size}MiB"
    a, b = median_ns(g, "ours/verify_digest"), median_ns(g, "sha2/digest")
    if a or b:
        print(f"| {size} MiB | {fmt(a)} ({rate(size * MIB, a)}) | {fmt(b)} ({rate(size * MIB, b)}) | {x(b, a)} |")

print("\n### raw component into a caller buffer, 64 MiB, page cache (criterion medians)\n")
print("| `ours/positional_read_into` | `std/read_exact_at` | `ours/mmap_read_into` | std / ours positional |")
print("|---|---|---|---|")
g = "read_64MiB"
a, b, c = (median_ns(g, i) for i in ["ours/positional_read_into", "std/read_exact_at", "ours/mmap_read_into"])
print(f"| {fmt(a)} ({rate(64 * MIB, a)}) | {fmt(b)} ({rate(64 * MIB, b)}) | {fmt(c)} ({rate(64 * MIB, c)}) | {x(b, a)} |")

print("\n### open of sparse files (criterion medians)\n")
print("| file | `ours/mmap` | `ours/positional` | `raw/mmap` |")
print("|---|---|---|---|")
for label in ["64MiB", "1GiB", "4GiB"]:
    g = f"open_{label}"
    t = [median_ns(g, i) for i in ["ours/mmap", "ours/positional", "raw/mmap"]]
    if any(t):
        print(f"| {label} | " + " | ".join(fmt(v) for v in t) + " |")
