#!/bin/sh
# Runs every benchmark executable built under BUILD/bench and prints their
# "<name> <value> <unit>" lines.
set -eu
build=${1:-build}
found=0
for exe in $(find "$build/bench" -type f -perm -u+x -name 'bench_*' | sort); do
  found=1
  echo "# $exe"
  "$exe"
done
[ "$found" -eq 1 ] || echo "no benchmarks built under $build/bench"
