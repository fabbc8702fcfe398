#!/bin/sh
# Runs every libFuzzer target built under BUILD/fuzz for SECONDS each, on a
# scratch copy of its committed corpus (fuzz/<area>/corpus, plus
# fuzz/<area>/regressions: inputs that once crashed it), so `make check`
# mutates inputs for a while instead of only replaying them.  A crash, a
# sanitizer report or a leak fails the run; the input is left in
# $WORK/<target>/ (printed).  Needs the "fuzz" preset (clang):
#   scripts/fuzz-smoke.sh build-fuzz 8
set -eu
build=${1:-build-fuzz}
seconds=${2:-8}
src=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/etkit-fuzz-XXXXXX")}
found=0
status=0
for exe in $(find "$build/fuzz" -type f -perm -u+x \( -name '*_fuzz' -o -name 'fuzz_*' \) | sort); do
  area=$(basename "$(dirname "$exe")")
  name=$(basename "$exe")
  found=1
  mkdir -p "$work/$name/corpus"
  for seeds in "$src/fuzz/$area/corpus" "$src/fuzz/$area/regressions"; do
    [ -d "$seeds" ] && cp -R "$seeds/." "$work/$name/corpus/"
  done
  if "$exe" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
       -print_final_stats=0 -artifact_prefix="$work/$name/" \
       "$work/$name/corpus" >"$work/$name/log" 2>&1; then
    runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$work/$name/log" | tail -n 1)
    echo "fuzz $name: ${runs:-?} inputs in ${seconds} s, no failure"
  else
    echo "fuzz $name: FAILED (see $work/$name/log and the crash-* file there)"
    tail -n 30 "$work/$name/log"
    status=1
  fi
done
[ "$found" -eq 1 ] || { echo "no fuzz targets under $build/fuzz"; exit 1; }
[ "$status" -ne 0 ] || [ -n "${WORK:-}" ] || rm -rf "$work"
exit "$status"
