#!/bin/sh
# callgrind_scale.sh BENCH_SCALE [ETKIT] [EVENTS] - where the instructions
# of `etkit inspect` go on the wide-shape dump, counted by valgrind
# --tool=callgrind: deterministic, where the shared machine's timings
# (bench_scale) move by a factor of two from one run to the next.
#
# Generates the dumps with BENCH_SCALE --events EVENTS --keep (default
# 200000 events: callgrind runs some 50 times slower than the program),
# then counts, for flatc's JSON decode of the wide dump and for each
# inspect path bench_scale times:
#   tsv       etkit inspect --format tsv --etdump_path wide  (stdout)
#   tsv_path  etkit inspect --etdump_path wide --tsv_path FILE
#             (the table on stdout and the TSV file)
#   json      etkit inspect --format json --etdump_path wide (stdout)
#   json_file etkit inspect --format json --etdump_path wide -o FILE
# Prints "<name> <value> <unit>" lines: each path's instructions per event,
# its ratio to flatc's (when flatc is on PATH; the CPU-time goals of
# bench_scale are 0.15x for TSV and 0.30x for JSON), and the part of them
# spent opening the dump, computing the rows, in the table, the TSV writer
# and the JSON writer (inclusive counts of those functions).
# ETKIT defaults to the etkit beside BENCH_SCALE's build (../../src/cli).
set -eu
bench=${1:?usage: callgrind_scale.sh path/to/bench_scale [etkit] [events]}
etkit=${2:-$(dirname "$bench")/../../src/cli/etkit}
events=${3:-200000}
command -v valgrind >/dev/null || { echo "callgrind_scale: valgrind not found" >&2; exit 2; }
[ -x "$etkit" ] || { echo "callgrind_scale: no etkit at $etkit" >&2; exit 2; }
schema=$(cd "$(dirname "$0")/../.." && pwd)/schema/etdump_schema_flatcc.fbs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bench" --events "$events" --runs 1 --only tsv_wide --keep "$tmp" >/dev/null ||
  { echo "callgrind_scale: cannot generate the dumps" >&2; exit 2; }
wide=$tmp/wide.etdp

# count NAME CMD...: callgrind on CMD, stdout to /dev/null; leaves the
# annotated inclusive counts in $tmp/NAME.ann
count() {
  name=$1
  shift
  valgrind --tool=callgrind --callgrind-out-file="$tmp/$name.out" "$@" \
    >/dev/null 2>"$tmp/$name.err" || { echo "callgrind_scale: $name failed" >&2; cat "$tmp/$name.err" >&2; exit 2; }
  callgrind_annotate --inclusive=yes --threshold=100 "$tmp/$name.out" \
    2>/dev/null >"$tmp/$name.ann"
  rm -f "$tmp/out.tsv" "$tmp/out.json" "$tmp/wide.json"
}

# total NAME: the program's instructions
total() {
  awk '/PROGRAM TOTALS/ { n = $1; gsub(/,/, "", n); print n; exit }' "$tmp/$1.ann"
}

# part NAME FUNCTION: FUNCTION's inclusive instructions (0 when absent)
part() {
  awk -v fn="$2" '
    { for (i = 2; i <= NF; i++) if ($i ~ (":" fn "( |$)") || $i ~ (":" fn "$")) { n = $1; gsub(/,/, "", n); print n; found = 1; exit } }
    END { if (!found) print 0 }' "$tmp/$1.ann"
}

flatc_ir=0
if command -v flatc >/dev/null; then
  count flatc flatc --json --strict-json --raw-binary --size-prefixed -o "$tmp" "$schema" -- "$wide"
  flatc_ir=$(total flatc)
fi
count tsv "$etkit" inspect --format tsv --etdump_path "$wide"
count tsv_path "$etkit" inspect --etdump_path "$wide" --tsv_path "$tmp/out.tsv"
count json "$etkit" inspect --format json --etdump_path "$wide"
count json_file "$etkit" inspect --format json --etdump_path "$wide" -o "$tmp/out.json"

echo "callgrind_events $events events"
[ "$flatc_ir" -gt 0 ] &&
  awk -v n="$flatc_ir" -v e="$events" 'BEGIN { printf "callgrind_flatc_wide %.0f instructions/event\n", n / e }'
for name in tsv tsv_path json json_file; do
  ir=$(total $name)
  case $name in tsv*) goal=0.15 ;; *) goal=0.30 ;; esac
  open=$(part $name etk_inspector_open_path)
  rows=$(part $name insp_plan_event_row)
  table=$(part $name etk_render_table_rows)
  delim=$(part $name etk_delimited_put_row)
  json=$(part $name insp_render_json)
  awk -v name="$name" -v ir="$ir" -v e="$events" -v f="$flatc_ir" -v goal="$goal" \
    -v open="$open" -v rows="$rows" -v table="$table" -v delim="$delim" -v json="$json" 'BEGIN {
      printf "callgrind_%s_wide %.0f instructions/event", name, ir / e
      if (f > 0) printf " (%.3f x flatc; CPU goal <= %.2f x)", ir / f, goal
      printf "\n"
      printf "callgrind_%s_wide_open %.0f instructions/event\n", name, open / e
      if (rows > 0) printf "callgrind_%s_wide_rows %.0f instructions/event\n", name, rows / e
      if (table > 0) printf "callgrind_%s_wide_table %.0f instructions/event (rows and TSV included)\n", name, table / e
      if (delim > 0) printf "callgrind_%s_wide_tsv_writer %.0f instructions/event\n", name, delim / e
      if (json > 0) printf "callgrind_%s_wide_json_writer %.0f instructions/event\n", name, json / e
    }'
done
