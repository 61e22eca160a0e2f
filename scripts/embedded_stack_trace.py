#!/usr/bin/env python3
"""The call chain at the deepest stack point of a QEMU `-d cpu,nochain`
log (stdin), by a shadow stack of (function, SP when first seen), with the
firmware's disassembly (argv[1]) naming the functions; an optional
argv[2] keeps only the points under that function. Each line: the SP
offsets (below the first SP seen) where the function was entered and the
deepest it went itself. A heuristic (inlined and tail-called functions
blur it); the painted figures are the measurement. Used by
scripts/embedded-deepest.sh.
"""
import sys, re, bisect
syms = []
for l in open(sys.argv[1]):
    m = re.match(r'^([0-9a-f]+) <(.*)>:$', l)
    if m:
        syms.append((int(m.group(1), 16), m.group(2)))
syms.sort()
addrs = [a for a, _ in syms]
def fn(pc):
    i = bisect.bisect_right(addrs, pc) - 1
    return syms[i][1] if i >= 0 else '?'
stack = []  # (func, sp at entry, min sp)
best = None
gmin = 1 << 32
base = None
for l in sys.stdin:
    if 'R13=' not in l:
        continue
    m = re.search(r'R13=([0-9a-f]+).*R15=([0-9a-f]+)', l)
    sp = int(m.group(1), 16); f = fn(int(m.group(2), 16))
    if base is None: base = sp
    # returned: frames entered at a lower SP than now (strictly), or same func re-found below
    while stack and stack[-1][1] < sp:
        stack.pop()
    idx = next((i for i in range(len(stack) - 1, -1, -1) if stack[i][0] == f and stack[i][1] >= sp), None)
    if idx is not None and all(s[1] <= sp for s in stack[idx + 1:]):
        del stack[idx + 1:]
        stack[idx][2] = min(stack[idx][2], sp)
    else:
        stack.append([f, sp, sp])
    if len(sys.argv) > 2 and not any(e[0] == sys.argv[2] for e in stack):
        continue
    if sp < gmin:
        gmin = sp
        best = [(a, b, c) for a, b, c in stack]
print(f"deepest: {base - gmin} B below the first SP")
prev = None
for f, entry, low in best:
    print(f"  {base - entry:6d} .. {base - low:6d}  {f}")
