#!/usr/bin/env bash
# The embedded C library on a Cortex-M4F, under QEMU (docs/embedded.md):
# builds libztensor.a without `std`, with `compact` (the compact reader)
# and the firmware's features (v1.2 and v2 files, zt_last_error as
# numbers), for thumbv7em-none-eabihf, writes the v1.2 models with our writer (the v2
# ones, written by upstream, are committed in examples-c/embedded/models/),
# builds the firmware in examples-c/embedded/ with
# CMake, runs it through ctest on qemu-system-arm -M mps2-an386, and
# measures the library's budget. Two firmwares from one source:
# firmware.elf calls only the read path the issue budgets (its flash is the
# figure), firmware_extras.elf the library's other no-heap functions too.
# Leaves target/embedded/firmware.elf and firmware.map (and the extras'
# beside them). Its last line:
#   embedded: ok flash=<N> ram=<N> stack=<N> heap=0
# flash: .text + .rodata the link map attributes to libztensor.a;
# ram: the library's static RAM + the file handle (zt_file_storage);
# stack: painted peak of open + find of every tensor + zero-copy reads +
# verify, and of the hostile models' refusals: the library's own, each call
# measured from the stack pointer at the call (the firmware also prints the
# program's, from main, with the harness's frames between).
# Needs: rustup target thumbv7em-none-eabihf, cmake, gcc-arm-none-eabi,
# qemu-system-arm (Debian packages; .ci/run installs them).
set -euo pipefail
cd "$(dirname "$0")/.."

# Goals (issue 31) for the read path of v1.2 and v2 without zstd, and
# ceilings: a figure over its ceiling fails the run; over its goal, a loud
# warning (a failure with ZT_EMBEDDED_STRICT=1). The flash goal is not met
# yet (docs/embedded.md has the figures): its ceiling sits a little above
# the figure, so that growth is noticed; the stack's is the goal.
# ZT_EMBEDDED_FLASH_MAX and ZT_EMBEDDED_STACK_MAX raise them to try other
# features.
FLASH_GOAL=24576
STACK_GOAL=2048
FLASH_MAX=${ZT_EMBEDDED_FLASH_MAX:-37376}
STACK_MAX=${ZT_EMBEDDED_STACK_MAX:-$STACK_GOAL}

need() { command -v "$1" >/dev/null || { echo "test-embedded: $1 not found ($2)" >&2; exit 1; }; }
need arm-none-eabi-gcc "apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi"
need qemu-system-arm "apt-get install qemu-system-arm"
need cmake "apt-get install cmake"
rustup target list --installed 2>/dev/null | grep -qx thumbv7em-none-eabihf \
    || { echo "test-embedded: rustup target add thumbv7em-none-eabihf" >&2; exit 1; }

out=$PWD/target/embedded
mkdir -p "$out"

echo "--> models (ffi example embedded_model, our writer)"
# In the C suite's target directory (scripts/test-c.sh, run before this in
# test-all.sh), whose dependencies are already built.
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}" \
    cargo run -q --manifest-path ffi/Cargo.toml --example embedded_model -- "$out/models"

# --features compact: the compact build (docs/embedded.md): the core's
# compact reader, zstd not decoded. The firmware's features add `v2` (v1.2
# and v2 files) and `error-names`, and leave out `texts` (zt_last_error as
# numbers: the header's ZT_FAULT_* and ZT_REFUSAL_*) and `v1-legacy`.
# `error-names` reads nothing more here, but without it the library is 4
# bytes larger (measured: codegen); `v0` changes nothing (the compact
# reader refuses v0.1 files either way). ZT_EMBEDDED_FEATURES replaces the
# firmware's features; the other set (with `texts`: phrases, and
# `v1-legacy`: v1.0-v1.2) is built too, and its read path measured, for
# comparison.
lean_features="compact,v2,error-names"
full_features="compact,v2,error-names,texts,v1-legacy"
features=${ZT_EMBEDDED_FEATURES-$lean_features}
echo "--> libztensor.a: --no-default-features --features $features, profile embedded, thumbv7em-none-eabihf"
cargo rustc -q --manifest-path ffi/Cargo.toml --lib --crate-type staticlib \
    --no-default-features --features "$features" --profile embedded --target thumbv7em-none-eabihf
lib=$PWD/ffi/target/thumbv7em-none-eabihf/embedded/libztensor.a
if [ "$features" = "$lean_features" ]; then other_features=$full_features; else other_features=$lean_features; fi
echo "--> for comparison, libztensor.a with --features $other_features"
cargo rustc -q --manifest-path ffi/Cargo.toml --lib --crate-type staticlib \
    --no-default-features --features "$other_features" --profile embedded --target thumbv7em-none-eabihf \
    --target-dir "$out/other"
other_lib=$out/other/thumbv7em-none-eabihf/embedded/libztensor.a

echo "--> firmware (CMake, arm-none-eabi) and its run under QEMU (ctest)"
cmake -S examples-c/embedded -B "$out/build" -DCMAKE_BUILD_TYPE=MinSizeRel \
    -DCMAKE_TOOLCHAIN_FILE="$PWD/examples-c/embedded/cmake/arm-none-eabi.cmake" \
    -DZT_LIBRARY="$lib" -DZT_MODELS_DIR="$out/models" >/dev/null
cmake --build "$out/build" >/dev/null
cp "$out"/build/firmware{,_extras}.{elf,map} "$out/"
if ! ctest --test-dir "$out/build" -V >"$out/qemu.log" 2>&1; then
    cat "$out/qemu.log" >&2
    echo "test-embedded: the firmware failed under QEMU" >&2
    exit 1
fi
# ctest -V prefixes the tests' output with "1: " (firmware) and "2: " (extras).
sed -n 's/^1: //p' "$out/qemu.log" | grep -v '^Test command' || true
echo "(firmware_extras.elf: $(sed -n 's/^2: model.zt: //p' "$out/qemu.log"))"

echo "--> link-time checks"
for fw in firmware firmware_extras; do
    syms=$(arm-none-eabi-nm "$out/$fw.elf")
    bad=$(grep -E ' (malloc|free|calloc|realloc|_sbrk|_malloc_r|_free_r|__rust_alloc|__rust_dealloc|__rust_realloc|__rust_alloc_zeroed|__rg_alloc)$' <<<"$syms" || true)
    if [ -n "$bad" ]; then
        echo "test-embedded: heap symbols in $fw.elf:" >&2
        echo "$bad" >&2
        exit 1
    fi
    unwind=$(grep -E ' (_Unwind_[A-Za-z_]*|__aeabi_unwind_cpp_pr[0-9]|rust_eh_personality|__gxx_personality_v0)$' <<<"$syms" || true)
    if [ -n "$unwind" ]; then
        echo "test-embedded: unwinding machinery in $fw.elf:" >&2
        echo "$unwind" >&2
        exit 1
    fi
    # A panic (a bug, never a hostile file: the firmware runs them all) can
    # only end in the C hook: the panic handler is the library's
    # rust_begin_unwind (mangled), which calls zt_panic and nothing else.
    grep -qE ' T zt_panic$' <<<"$syms" || { echo "test-embedded: zt_panic not defined by $fw.elf" >&2; exit 1; }
    disasm=$(arm-none-eabi-objdump -d --no-show-raw-insn "$out/$fw.elf")
    handler=$(awk '/rust_begin_unwind>:$/{f=1;next} f&&/^$/{exit} f' <<<"$disasm")
    if [ -z "$handler" ]; then
        echo "test-embedded: no panic handler (rust_begin_unwind) in $fw.elf" >&2
        exit 1
    fi
    calls=$(grep -oE '\bbl?(\.w)?\s+[0-9a-f]+ <[^>]+>' <<<"$handler" | sed 's/.*<//; s/>//' | sort -u)
    if [ "$calls" != zt_panic ]; then
        echo "test-embedded: the panic handler calls [$calls], not just zt_panic:" >&2
        echo "$handler" >&2
        exit 1
    fi
    sites=$(grep -cE 'bl\s+[0-9a-f]+ <[^>]*core9panicking' <<<"$disasm" || true)
    echo "$fw.elf: no malloc/free/_sbrk/__rust_alloc, no unwinding; the panic handler only calls zt_panic ($sites call sites of core::panicking: bounds checks the optimizer kept)"
done

echo "--> budget"
budget=$(sed -n 's/^1: ZT-BUDGET //p' "$out/qemu.log")
field() { sed -n "s/.*\\b$1=\\([0-9]*\\).*/\\1/p" <<<"$2"; }
handle=$(field handle "$budget")
slot=$(field slot "$budget")
stack=$(field stack "$budget")
program_stack=$(field program_stack "$budget")
ticks=$(field open1000_ticks "$budget")
find_ticks=$(field find1000_ticks "$budget")
map=$(python3 scripts/embedded_budget.py "$out/firmware.map" libztensor.a 2>"$out/largest.txt")
flash=$(field flash "$map")
static_ram=$(field ram "$map")
ram=$((static_ram + handle))
echo "libztensor.a in the firmware (the read path): $map"
echo "where it goes (all in target/embedded/largest.txt):"
head -8 "$out/largest.txt"
extras=$(sed -n 's/^2: ZT-BUDGET //p' "$out/qemu.log")
extras_map=$(python3 scripts/embedded_budget.py "$out/firmware_extras.map" libztensor.a 2>/dev/null)
echo "libztensor.a in firmware_extras.elf (also zt_version, zt_file_storage_size, zt_file_get_info,"
echo "  zt_component_read, zt_verify_report, zt_attribute_count/_at, zt_component_at): $extras_map;" \
    "stack $(field stack "$extras") bytes"
# The same archive linked with fewer entry points (no firmware around it:
# only the library's sections count): what the flash figure would be for a
# firmware that calls less.
read_path() { # archive label symbol...
    local lib=$1 label=$2; shift 2
    local us=() s
    for s in "$@" memcpy memset memcmp strlen; do us+=("-Wl,-u,$s"); done
    printf 'void zt_panic(void) { for (;;) {} }\n' >"$out/hook.c"
    arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -nostdlib -Wl,--gc-sections -Wl,-z,noexecstack \
        -Wl,--entry="$1" "${us[@]}" -Wl,-Map="$out/$label.map" -o "$out/$label.elf" "$out/hook.c" "$lib" -lgcc
    echo "  $label: $(python3 scripts/embedded_budget.py "$out/$label.map" libztensor.a 2>/dev/null | sed 's/ ram=.*//')"
}
echo "flash by the functions a firmware calls (the library alone, linked with only those):"
read_path "$lib" open-find-ptr-verify zt_open_mem_into zt_find zt_component_ptr zt_verify zt_status_str zt_last_error
fw_calls=(zt_open_mem_into zt_object_count zt_object_at zt_find zt_object_name zt_object_shape zt_object_get_info
    zt_attribute_find zt_component zt_component_ptr zt_verify zt_status_str zt_last_error)
echo "the firmware's read path (the functions firmware.elf calls), with --features $features and with $other_features:"
read_path "$lib" firmware-features "${fw_calls[@]}"
read_path "$other_lib" other-features "${fw_calls[@]}"
echo "ram: $static_ram static + $handle handle; name index: $slot bytes per object (caller's array)"
echo "stack: $stack bytes the library uses (each call from its caller's stack pointer); $program_stack bytes from the firmware's main, with the harness's frames"
# The painted peak is the measurement; the call graph says where it goes.
arm-none-eabi-objdump -d --no-show-raw-insn -C "$out/firmware.elf" >"$out/firmware.dis"
python3 scripts/embedded_stack.py "$out/firmware.dis" zt_open_mem_into | tee "$out/stack.txt"
# -icount shift=0: 1 instruction per ns of virtual time; SysTick counts the
# 25 MHz clock. The firmware times a loop of exactly 2,000,000 instructions
# to calibrate (40 instructions a tick expected).
calib=$(field calib2m_ticks "$budget")
open_insns=$((ticks * 2000000 / calib))
find_insns=$((find_ticks * 2000000 / calib))
echo "opening a 1,000-tensor model: $open_insns instructions; 1,000 finds: $find_insns instructions (QEMU -icount shift=0, SysTick: $calib ticks per 2,000,000 instructions)"

fails=0
check() { # name value goal ceiling
    if [ "$2" -gt "$4" ]; then
        echo "test-embedded: $1 $2 bytes > ceiling $4" >&2
        fails=1
    elif [ "$2" -gt "$3" ]; then
        printf '\n!!!!!!!! WARNING: embedded %s %s bytes is over the goal of %s bytes !!!!!!!!\n\n' "$1" "$2" "$3" >&2
        [ "${ZT_EMBEDDED_STRICT:-0}" != 1 ] || fails=1
    fi
}
check flash "$flash" "$FLASH_GOAL" "$FLASH_MAX"
check stack "$stack" "$STACK_GOAL" "$STACK_MAX"
check "stack (firmware_extras.elf)" "$(field stack "$extras")" "$STACK_GOAL" "$STACK_MAX"
[ "$fails" = 0 ] || exit 1
echo "embedded: ok flash=$flash ram=$ram stack=$stack heap=0"
