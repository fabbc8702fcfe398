#!/bin/sh
# Cross-builds the C++ ExecuTorch adapter (etkit::ETDumpTracer and
# upstream's ETDumpGen, src/executorch) in the runtime-only configuration,
# as a device build gets it, and checks what it installs:
#   - Cortex-M4 (the cortex-m preset + ETKIT_EXECUTORCH_DIR): every object
#     of libetkit_executorch.a is 32-bit ARM;
#   - aarch64-linux-gnu (Debian's g++-aarch64-linux-gnu; the stand-in for
#     an Android NDK build, docs/porting.md): installed, then a consumer
#     compiled with `pkg-config etkit-executorch` and linked with upstream's
#     runtime subset for the same target, and etkit-executorch.pc needs
#     nothing of the host library.
# ETKIT_EXECUTORCH_DIR: upstream's headers (default
# ../shared/third_party/executorch-runtime).  A missing cross compiler is
# SKIPPED, except under CI=true.
set -eu
cd "$(dirname "$0")/.."
et=${ETKIT_EXECUTORCH_DIR:-$(cd .. && pwd)/shared/third_party/executorch-runtime}
[ -f "$et/executorch/runtime/core/event_tracer.h" ] || {
  echo "cross-build-adapter: no ExecuTorch headers in $et (set ETKIT_EXECUTORCH_DIR)" >&2
  exit 1
}
jobs=${JOBS:-2}

skip() {
  echo "cross-build-adapter: $1 not found; $2 SKIPPED"
  if [ "${CI:-}" = "true" ]; then
    echo "cross-build-adapter: CI=true requires it (scripts/install-deps.sh)" >&2
    exit 1
  fi
}

# ---- Cortex-M
if command -v arm-none-eabi-g++ >/dev/null 2>&1; then
  b=build-cortex-m-adapter
  cmake --preset cortex-m -B "$b" -DETKIT_EXECUTORCH_DIR="$et" >/dev/null
  cmake --build "$b" -j "$jobs" --target etkit_executorch >"$b/build.log" 2>&1 || {
    cat "$b/build.log"; echo "cross-build-adapter: Cortex-M build failed"; exit 1; }
  if grep -q "src/executorch/.*warning:" "$b/build.log"; then
    grep "warning:" "$b/build.log"; echo "cross-build-adapter: warnings"; exit 1
  fi
  bad=$(arm-none-eabi-readelf -h "$b/src/executorch/libetkit_executorch.a" |
        awk '/Machine:/ && !/ARM/' | head -n 1)
  [ -z "$bad" ] || { echo "cross-build-adapter: not ARM: $bad"; exit 1; }
  echo "cross-build-adapter: Cortex-M4 libetkit_executorch.a:"
  arm-none-eabi-size -t "$b/src/executorch/libetkit_executorch.a" | tail -n 1
else
  skip arm-none-eabi-g++ "Cortex-M adapter build"
fi

# ---- aarch64-linux-gnu
if command -v aarch64-linux-gnu-g++ >/dev/null 2>&1; then
  b=build-aarch64-adapter
  prefix=$PWD/$b/prefix
  rm -rf "$prefix"
  cmake -B "$b" -DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=aarch64 \
    -DCMAKE_C_COMPILER=aarch64-linux-gnu-gcc \
    -DCMAKE_CXX_COMPILER=aarch64-linux-gnu-g++ -DCMAKE_BUILD_TYPE=MinSizeRel \
    -DETKIT_RUNTIME_ONLY=ON -DETKIT_WERROR=ON -DETKIT_EXECUTORCH_DIR="$et" \
    >/dev/null
  cmake --build "$b" -j "$jobs" >"$b/build.log" 2>&1 || {
    cat "$b/build.log"; echo "cross-build-adapter: aarch64 build failed"; exit 1; }
  cmake --install "$b" --prefix "$prefix" >/dev/null
  pc=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs etkit-executorch)
  case "$pc" in
    *zip*|*jansson*|*sqlite*|*-lpq*|*"-letkit "*)
      echo "cross-build-adapter: the .pc needs the host library: $pc"; exit 1 ;;
  esac
  rt=$et/executorch/runtime
  # shellcheck disable=SC2086 # flags are words
  aarch64-linux-gnu-g++ -O1 tests/install/consumer_executorch.cpp $pc \
    "$rt/core/portable_type/tensor_impl.cpp" \
    "$rt/core/exec_aten/util/tensor_shape_to_c_string.cpp" \
    "$rt/core/exec_aten/util/tensor_util_portable.cpp" "$rt/core/evalue.cpp" \
    "$rt/core/tag.cpp" "$rt/platform/platform.cpp" "$rt/platform/log.cpp" \
    "$rt/platform/abort.cpp" "$rt/platform/profiler.cpp" \
    "$rt/platform/runtime.cpp" "$rt/platform/default/posix.cpp" \
    -lpthread -o "$b/consumer_executorch"
  aarch64-linux-gnu-readelf -h "$b/consumer_executorch" | grep -q "AArch64" || {
    echo "cross-build-adapter: the consumer is not AArch64"; exit 1; }
  echo "cross-build-adapter: aarch64-linux-gnu install and consumer link ok"
else
  skip aarch64-linux-gnu-g++ "aarch64 adapter build"
fi
