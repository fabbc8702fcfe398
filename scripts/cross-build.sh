#!/bin/sh
# Cross-builds the portable device libraries (core, FlatBuffers, schema
# descriptors, ETDump recorder) for a Cortex-M4 with the `cortex-m` CMake
# preset (ETKIT_RUNTIME_ONLY=ON, MinSizeRel) and prints their code size.
# Without arm-none-eabi-gcc it says so and exits 0, except under CI=true,
# where a skipped Cortex-M build fails the run.
set -eu
cd "$(dirname "$0")/.."

if ! command -v arm-none-eabi-gcc >/dev/null 2>&1; then
  echo "cross-build: arm-none-eabi-gcc not found; Cortex-M build SKIPPED"
  if [ "${CI:-}" = "true" ]; then
    echo "cross-build: CI=true requires it (scripts/install-deps.sh installs it)" >&2
    exit 1
  fi
  exit 0
fi

build=build-cortex-m
log="$build/cross-build.log"
cmake --preset cortex-m >/dev/null
cmake --build "$build" --clean-first -j "${JOBS:-2}" \
  --target etkit_core etkit_flatbuf etkit_schema etkit_recorder >"$log" 2>&1 || {
  cat "$log"
  echo "cross-build: build failed"
  exit 1
}
# The recorder must build warning-free for the target (other folders'
# warnings are reported by their own builds).
if grep -q "src/recorder/.*warning:" "$log"; then
  grep "warning:" "$log"
  echo "cross-build: warnings in src/recorder"
  exit 1
fi

libs="$build/src/core/libetkit_core.a $build/src/flatbuf/libetkit_flatbuf.a $build/src/schema/libetkit_schema.a $build/src/recorder/libetkit_recorder.a"
echo "cross-build: $(arm-none-eabi-gcc --version | head -n 1)"
echo "cross-build: code size per object (bytes), -mcpu=cortex-m4 -mthumb -Os:"
arm-none-eabi-size $libs
echo "cross-build: totals per library:"
for lib in $libs; do
  arm-none-eabi-size -t "$lib" | awk -v l="$(basename "$lib")" \
    'END { printf "  %-24s text %6d  data %4d  bss %4d\n", l, $1, $2, $3 }'
done

# The libraries must not need the heap or any OS service on the device:
# every symbol they leave undefined must be a compiler/libc string helper.
defined=$(arm-none-eabi-nm -g --defined-only $libs | awk 'NF == 3 { print $3 }' | sort -u)
undefined=$(arm-none-eabi-nm -u $libs | awk '$1 == "U" { print $2 }' | sort -u)
external=""
for sym in $undefined; do
  echo "$defined" | grep -qx "$sym" && continue
  case "$sym" in
    memcpy|memset|memcmp|memmove|strlen|__aeabi_*|__gnu_*) external="$external $sym" ;;
    *) echo "cross-build: unexpected external symbol: $sym"; exit 1 ;;
  esac
done
echo "cross-build: external symbols:$external"

# The runtime's no-heap core (what the firmware links) on the same target.
./scripts/check-no-heap.sh "$build"

# What a profiling-only firmware really links (--gc-sections).
elf="$build/mcu_footprint.elf"
arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -Os -ffunction-sections \
  -fdata-sections -Iinclude --specs=nosys.specs -nostartfiles \
  -Wl,--gc-sections -Wl,-e,main -o "$elf" bench/recorder/mcu_footprint.c \
  $build/src/recorder/libetkit_recorder.a $build/src/schema/libetkit_schema.a \
  $build/src/flatbuf/libetkit_flatbuf.a $build/src/core/libetkit_core.a
echo "cross-build: profiling-only firmware (bench/recorder/mcu_footprint.c,"
echo "             16 KiB arena in bss, memcpy/memset from newlib included):"
arm-none-eabi-size "$elf"
