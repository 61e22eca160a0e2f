#!/usr/bin/env bash
# Where the firmware's stack goes deepest for one piece of C, by tracing
# QEMU: the firmware of examples-c/embedded/ is copied under
# target/embedded/probe/, its main() runs only STATEMENT (after the stack
# is painted), and a trace of the stack pointer per translated block gives
# the call chain at the deepest point (scripts/embedded_stack_trace.py).
# Run scripts/test-embedded.sh first (it builds the library and models).
#   bash scripts/embedded-deepest.sh 'zt_file *f = NULL; zt_open_mem_into(model_zt, (size_t)(model_zt_end - model_zt), &storage, slots, EXPECT_OBJECTS, &f);'
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: $0 'C statement'" >&2; exit 2; }
out=$PWD/target/embedded
src=$out/probe/src
rm -rf "$out/probe"
mkdir -p "$src"
cp -r examples-c/embedded/. "$src/"
# The copy's repository root is this one.
sed -i "s|^get_filename_component(ZT_ROOT .*|set(ZT_ROOT \"$PWD\")|" "$src/CMakeLists.txt"
python3 - "$src/main.c" "$1" <<'PY'
import sys
p, stmt = sys.argv[1], sys.argv[2]
s = open(p).read()
at = s.index('    uint32_t bytes = read_model();')
s = s[:at] + '    if (stack_base) { ' + stmt + ' sh_exit(0); }\n' + s[at:]
open(p, 'w').write(s)
PY
cmake -S "$src" -B "$out/probe/build" -DCMAKE_BUILD_TYPE=MinSizeRel \
    -DCMAKE_TOOLCHAIN_FILE="$PWD/examples-c/embedded/cmake/arm-none-eabi.cmake" \
    -DZT_LIBRARY="$PWD/ffi/target/thumbv7em-none-eabihf/embedded/libztensor.a" -DZT_MODELS_DIR="$out/models" >/dev/null
cmake --build "$out/probe/build" >/dev/null
arm-none-eabi-objdump -d --no-show-raw-insn -C "$out/probe/build/firmware.elf" >"$out/probe/firmware.dis"
timeout 600 qemu-system-arm -M mps2-an386 -nographic -icount shift=0 -semihosting-config enable=on,target=native \
    -kernel "$out/probe/build/firmware.elf" -d cpu,nochain -D "$out/probe/qemu-cpu.log" | grep -v '^ztensor firmware\|^DWT' || true
python3 scripts/embedded_stack_trace.py "$out/probe/firmware.dis" <"$out/probe/qemu-cpu.log"
