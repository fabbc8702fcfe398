#!/bin/sh
# Compiles the runtime's no-heap core for a Cortex-M4 (-DETK_NO_HEAP=1):
# the program reader's core, the runtime's core, the kernels and the
# helpers they share (src/common/buffers.c, error.c, file_kind.c), and
# fails when any of them leaves a heap, file or OS call undefined: what
# the firmware links must need nothing but string, printf-to-buffer and
# math helpers from the C library.  Called by scripts/cross-build.sh.
# (-Wno-format: the readers print uint32_t with %u, which is unsigned long
# on arm-none-eabi and the same width.)
set -eu
cd "$(dirname "$0")/.."
out="${1:-build-cortex-m}/no-heap"
rm -rf "$out"
mkdir -p "$out"
srcs="src/program/owner.c src/program/shapes.c src/program/pte_reader.c
  src/program/bpte_reader.c src/runtime/executor.c src/runtime/memory_plan.c
  src/runtime/backend.c src/runtime/backend_trace.c src/runtime/bundled.c
  src/runtime/trace_session.c src/common/buffers.c src/common/error.c
  src/common/file_kind.c $(ls src/kernels/*.c)"
for f in $srcs; do
  o="$out/$(echo "$f" | tr / _).o"
  arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -Os -std=c11 -Wall -Wextra \
    -Wno-format -DETK_NO_HEAP=1 -Iinclude -Isrc -c "$f" -o "$o"
done
bad=$(arm-none-eabi-nm -u "$out"/*.o | awk '$1 == "U" { print $2 }' | sort -u |
  grep -Ex 'malloc|calloc|realloc|free|aligned_alloc|posix_memalign|_sbrk|f?open|fopen64|fread|fwrite|fclose|stat|printf|fprintf|puts|fputs|exit|abort|getenv|time|clock_gettime' || true)
if [ -n "$bad" ]; then
  echo "check-no-heap: the no-heap core calls:" $bad
  exit 1
fi
echo "check-no-heap: runtime, program reader and kernels (-DETK_NO_HEAP=1) call no heap, file or OS function"
echo "check-no-heap: object code (bytes, -mcpu=cortex-m4 -Os, before --gc-sections):"
for group in program runtime kernels common; do
  arm-none-eabi-size -t "$out"/src_${group}_*.o | awk -v g="$group" \
    'END { printf "  %-10s text %7d  data %4d  bss %4d\n", g, $1, $2, $3 }'
done
