#!/usr/bin/env python3
"""Table of the last `open` benchmark run, from criterion's JSON.

usage: python3 benches/summary.py [TARGET_DIR]   (default: $CARGO_TARGET_DIR or ./target)
"""
import json, os, sys
from pathlib import Path

target = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CARGO_TARGET_DIR", "target"))
root = target / "criterion"
cols = [("ours", "parse"), ("ours", "parse+names"), ("ref", "open_path"), ("ref", "new_mem"),
        ("safetensors", "deserialize"), ("minicbor", "skip")]


def median_ns(n, f, p):
    e = root / f"open_{n}" / f / p / "new" / "estimates.json"
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


sizes = sorted(int(d.name.split("_")[1]) for d in root.glob("open_*") if d.name.split("_")[1].isdigit())
print("| objects | " + " | ".join(f"{f}/{p}" for f, p in cols) + " | ref/ours (path) | ref/ours (mem) | safetensors/ours | ours/minicbor-skip | ours ns/object |")
print("|" + "---|" * (len(cols) + 6))
for n in sizes:
    t = {c: median_ns(n, *c) for c in cols}
    ours, skip = t[("ours", "parse")], t[("minicbor", "skip")]

    def x(a, b):
        return f"{a / b:.2f}x" if a and b else "-"

    print(f"| {n:,} | " + " | ".join(fmt(t[c]) for c in cols)
          + f" | {x(t[('ref', 'open_path')], ours)} | {x(t[('ref', 'new_mem')], ours)}"
          + f" | {x(t[('safetensors', 'deserialize')], ours)} | {x(ours, skip)}"
          + (f" | {ours / n:.0f} |" if ours else " | - |"))
