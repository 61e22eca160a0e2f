#!/usr/bin/env python3
"""Table + ratios of the last `write` benchmark run, from criterion's JSON.

usage: python3 benches/write_summary.py [TARGET_DIR]   (default: $CARGO_TARGET_DIR or ./target)

A ratio "ours vs X" is time(X) / time(ours): above 1 means ours is faster.
Times are criterion's median; the second ratio table uses each contestant's
fastest sample (time per run) instead, which is less sensitive to a busy
machine (noise only ever adds time).
"""
import json, os, sys
from pathlib import Path

target = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CARGO_TARGET_DIR", "target"))
root = target / "criterion"
cases = ["1x256MiB", "10000x16KiB", "100000x64B"]
cols = [("ours", "create"), ("ours", "iosink"), ("ref", "create"), ("safetensors", "serialize_to_file"),
        ("plain", "bufwriter"), ("plain", "bufwriter+fsync+rename"), ("plain", "bufwriter+manifest")]
ratios = [  # (label, numerator X, denominator ours)
    ("iosink vs plain", ("plain", "bufwriter"), ("ours", "iosink")),
    ("create vs plain+fsync", ("plain", "bufwriter+fsync+rename"), ("ours", "create")),
    ("iosink vs plain+manifest", ("plain", "bufwriter+manifest"), ("ours", "iosink")),
    ("iosink vs ref", ("ref", "create"), ("ours", "iosink")),
    ("create vs ref", ("ref", "create"), ("ours", "create")),
    ("iosink vs safetensors", ("safetensors", "serialize_to_file"), ("ours", "iosink")),
    ("create vs safetensors", ("safetensors", "serialize_to_file"), ("ours", "create")),
]


def median_ns(clock, case, f, p):
    e = root / f"write-{clock}_{case}" / f / p / "new" / "estimates.json"
    if not e.exists():
        return None
    return json.loads(e.read_text())["median"]["point_estimate"]


def min_ns(clock, case, f, p):
    e = root / f"write-{clock}_{case}" / f / p / "new" / "sample.json"
    if not e.exists():
        return None
    d = json.loads(e.read_text())
    return min(t / i for t, i in zip(d["times"], d["iters"]))


def fmt(ns):
    if ns is None:
        return "-"
    for unit, d in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= d:
            return f"{ns / d:.3g} {unit}"
    return f"{ns:.3g} ns"


print("| clock | case | " + " | ".join(f"{f}/{p}" for f, p in cols) + " |")
print("|" + "---|" * (len(cols) + 2))
rows = []
for clock in ("cpu", "wall"):
    for case in cases:
        t = {c: median_ns(clock, case, *c) for c in cols}
        if all(v is None for v in t.values()):
            continue
        m = {c: min_ns(clock, case, *c) for c in cols}
        rows.append((clock, case, t, m))
        print(f"| {clock} | {case} | " + " | ".join(fmt(t[c]) for c in cols) + " |")

for title, k in (("median", 2), ("fastest sample", 3)):
    print()
    print(f"ratios ({title}): time(X) / time(ours), above 1 = ours faster")
    print()
    print("| clock | case | " + " | ".join(r[0] for r in ratios) + " |")
    print("|" + "---|" * (len(ratios) + 2))
    for row in rows:
        t = row[k]

        def x(a, b):
            return f"{t[a] / t[b]:.2f}x" if t[a] and t[b] else "-"
        print(f"| {row[0]} | {row[1]} | " + " | ".join(x(a, b) for _, a, b in ratios) + " |")
