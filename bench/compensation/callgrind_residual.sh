#!/bin/sh
# callgrind_residual.sh BENCH_COMPENSATION - the compensation residual in
# instruction counts (valgrind --tool=callgrind): deterministic, the host's
# stand-in for an emulated board's cycle counter.
#
# The pieces bench_compensation --parts runs: 31 executions traced at
# operator level (part_full_runs) and 31 at method level
# (part_method_runs), 1000 OPERATOR_CALL-around-kernel-event pairs around
# a fixed piece of work (part_pairs_around_work) and the work alone
# (part_work_only), and the same hooks skipped at method level
# (part_skipped_around_work), as etk_recorder_calibrate times them.  With
# pair = (pairs - work) / events and skipped likewise, the compensated
# full trace is
#   full - runs x events_per_run x (pair - skipped)
# and the residual its distance to the method-level runs.  Prints
# "<name> <value> <unit>" lines for the demo CNN and the 200-add chain.
set -eu
bench=${1:?usage: callgrind_residual.sh path/to/bench_compensation}
command -v valgrind >/dev/null || { echo "callgrind_residual: valgrind not found" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for prog in demo adds; do
  valgrind --tool=callgrind --callgrind-out-file="$tmp/$prog.out" \
    "$bench" --parts "$prog" >"$tmp/$prog.txt" 2>/dev/null
  callgrind_annotate --inclusive=yes --threshold=100 "$tmp/$prog.out" 2>/dev/null >"$tmp/$prog.ann"
  awk -v prog="$prog" -v facts="$tmp/$prog.txt" '
    BEGIN {
      while ((getline line < facts) > 0) {
        split(line, f, " ")
        v[f[1]] = f[2]
      }
    }
    /part_(full_runs|method_runs|pairs_around_work|skipped_around_work|work_only)/ {
      n = $1; gsub(/,/, "", n)
      for (i = 1; i <= NF; i++)
        if ($i ~ /part_/) { name = $i; sub(/.*:/, "", name); sub(/[ (.].*/, "", name) }
      if (!(name in ir)) ir[name] = n + 0
    }
    END {
      full = ir["part_full_runs"]; meth = ir["part_method_runs"]
      pairs = ir["part_pairs_around_work"]; work = ir["part_work_only"]
      skipped = ir["part_skipped_around_work"]
      if (!full || !meth || !pairs || !work || !skipped) { print "callgrind_residual: a part is missing" > "/dev/stderr"; exit 2 }
      pair = (pairs - work) / v["parts_pairs"]
      skip = (skipped - work) / v["parts_pairs"]
      comp = full - v["parts_runs"] * v["parts_events"] * (pair - skip)
      printf "callgrind_%s_pair %.1f instructions\n", prog, pair
      printf "callgrind_%s_skipped %.1f instructions\n", prog, skip
      printf "callgrind_%s_raw_overhead %.2f %%\n", prog, 100 * (full - meth) / meth
      printf "callgrind_%s_residual %.3f %%\n", prog, 100 * (comp - meth) / meth
    }' "$tmp/$prog.ann"
done
