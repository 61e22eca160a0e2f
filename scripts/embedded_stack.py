#!/usr/bin/env python3
"""Static stack estimate of the firmware from its disassembly.

    arm-none-eabi-objdump -d --no-show-raw-insn -C firmware.elf > dis.txt
    embedded_stack.py dis.txt ROOT...

For each ROOT (a function name as objdump prints it), prints the deepest
path through direct calls (`bl`/`b` to a symbol), each function's frame
being its `push`/`vpush` registers plus its `sub sp` bytes. An estimate:
indirect calls are not followed, a recursive call counts once, and a path
the code never takes counts as much as one it does. The painted stack in
the firmware (scripts/test-embedded.sh) is the measurement.
"""
import functools
import re
import sys


def read(path):
    frames, calls, cur = {}, {}, None
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if m:
            cur = m.group(1)
            frames[cur], calls[cur], pushed = 0, set(), False
            continue
        if cur is None:
            continue
        m = re.search(r"\bpush(?:\.w)?\s+\{([^}]*)\}", line)
        if m and not pushed:
            frames[cur] += 4 * len(m.group(1).split(","))
            pushed = True
        m = re.search(r"\bvpush\s+\{([^}]*)\}", line)
        if m:
            frames[cur] += 8 * len(m.group(1).split(","))
        # `subw` too (Thumb-2's 12-bit immediate form, for large frames).
        m = re.search(r"\bsubw?(?:\.w)?\s+sp, (?:sp, )?#(\d+)", line)
        if m:
            frames[cur] += int(m.group(1))
        m = re.search(r"\bbl?(?:\.w)?\s+[0-9a-f]+ <(.*?)(?:\+0x[0-9a-f]+)?>\s*$", line)
        # Panic paths (bounds checks the optimizer kept) end in zt_panic:
        # not a path a run takes.
        if m and m.group(1) != cur and not re.search(r"panic|index_fail|len_mismatch", m.group(1)):
            calls[cur].add(m.group(1))
    return frames, calls


def main():
    frames, calls = read(sys.argv[1])
    sys.setrecursionlimit(100000)

    @functools.lru_cache(maxsize=None)
    def deepest(f, path=()):
        best = (0, ())
        for g in sorted(calls.get(f, ())):
            if g not in path:
                best = max(best, deepest(g, path + (f,)), key=lambda b: b[0])
        own = frames.get(f, 0)
        return own + best[0], ((own, f),) + best[1]

    for root in sys.argv[2:]:
        if root not in frames:
            sys.exit(f"embedded_stack.py: no function {root!r} in {sys.argv[1]}")
        total, path = deepest(root)
        print(f"{root}: {total} bytes by the call graph: " + " > ".join(f"{f.split('::')[-1]} {n}" for n, f in path))


if __name__ == "__main__":
    main()
