#!/usr/bin/env python3
"""Read the firmware's GNU ld link map and say what libztensor.a puts in it.

    embedded_budget.py firmware.map LIBNAME

Prints `flash=<.text+.rodata bytes> ram=<.data+.bss bytes>` for the input
sections the map attributes to LIBNAME (e.g. libztensor.a), then, on
stderr, the largest of them.
"""
import re
import sys

def sections(map_path, lib):
    """(output section kind, input section name, size) of LIBNAME's input sections."""
    lines = open(map_path, encoding="utf-8", errors="replace").read().splitlines()
    # Only the memory map part (after "Linker script and memory map").
    try:
        lines = lines[next(i for i, l in enumerate(lines) if l.startswith("Linker script and memory map")):]
    except StopIteration:
        sys.exit(f"{map_path}: no memory map")
    out = []
    pending = None
    entry = re.compile(r"^ (\S+)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S.*)$")
    lone = re.compile(r"^ (\.\S+)$")
    cont = re.compile(r"^\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S.*)$")
    for l in lines:
        m = entry.match(l)
        if m:
            name, size, origin = m.group(1), int(m.group(2), 16), m.group(3)
        elif pending and cont.match(l):
            m = cont.match(l)
            name, size, origin = pending, int(m.group(1), 16), m.group(2)
        else:
            m = lone.match(l)
            pending = m.group(1) if m else None
            continue
        pending = None
        if f"{lib}(" in origin and size:
            out.append((name, size))
    return out

def kind(name):
    for k in (".text", ".rodata", ".data", ".bss"):
        if name == k or name.startswith(k + "."):
            return k
    return None

def module(section):
    """The Rust module (two path segments) of a function or data section,
    from its legacy-mangled symbol; C symbols as they are."""
    sym = section.split(".", 2)[-1] if section.count(".") >= 2 else section
    if sym.startswith("_R"):
        # v0 mangling (the precompiled core and compiler_builtins).
        if "compiler_builtins" in sym:
            return "compiler_builtins (mem, soft float, 64-bit division)"
        for token, name in (("3fmt", "core::fmt"), ("7unicode", "core::unicode"), ("3str", "core::str"),
                            ("4char", "core::char"), ("5slice", "core::slice"), ("3num", "core::num")):
            if token in sym:
                return name
        return "core (other)"
    if sym.startswith(".Lanon") or sym.startswith("str1") or sym.startswith("cst"):
        return "(constants: strings, tables)"
    if not sym.startswith("_ZN"):
        return sym
    parts, i = [], 3
    while i < len(sym) and sym[i].isdigit():
        j = i
        while sym[j].isdigit():
            j += 1
        n = int(sym[i:j])
        parts.append(sym[j:j + n])
        i = j + n
    parts = [p for p in parts if not (p.startswith("h") and len(p) == 17)]
    if parts and (parts[0].startswith("_$LT$") or parts[0].startswith("$LT$") or parts[0].startswith("$RF$")):
        # <T as Trait>::f: name it by T's crate and module.
        text = parts[0].replace("_$LT$", "").replace("$LT$", "").replace("$RF$", "").replace("..", "::")
        crate_path = [p for p in text.replace("$u20$", " ").split(" ") if "::" in p]
        parts = crate_path[-1].split("::") if crate_path else parts
    return "::".join(parts[:2])

def main():
    map_path, lib = sys.argv[1], sys.argv[2]
    secs = sections(map_path, lib)
    total = {".text": 0, ".rodata": 0, ".data": 0, ".bss": 0}
    for name, size in secs:
        k = kind(name)
        if k:
            total[k] += size
    print(f"flash={total['.text'] + total['.rodata']} ram={total['.data'] + total['.bss']}"
          f" text={total['.text']} rodata={total['.rodata']} data={total['.data']} bss={total['.bss']}")
    counted = [(n, sz) for n, sz in secs if kind(n) in (".text", ".rodata")]
    modules = {}
    for name, size in counted:
        m = module(name)
        modules[m] = modules.get(m, 0) + size
    print("flash by module:", file=sys.stderr)
    for m, size in sorted(modules.items(), key=lambda x: -x[1]):
        print(f"  {size:7d}  {m}", file=sys.stderr)
    print("largest sections:", file=sys.stderr)
    for name, size in sorted(counted, key=lambda s: -s[1])[:25]:
        print(f"  {size:7d}  {name}", file=sys.stderr)

main()
