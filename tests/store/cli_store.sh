#!/bin/sh
# cli_store.sh ETKIT MAKE_DUMPS DB_OR_URI: `etkit store` end to end on one
# database (a SQLite path, or a postgresql:// URI): add, idempotent add,
# runs/show/trend/compare/export/prune in every format, --fail-above's exit
# status, and bad input (damaged dump, wrong file, bad tag, unknown --where
# key, unreachable database, read-only and full SQLite files) each failing
# with one line and leaving the database as it was.
set -u
etkit=$1
make_dumps=$2
db=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/etkit-store-cli.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "not ok: $*"; failures=$((failures + 1)); }
# expect STATUS COMMAND...: runs COMMAND, checks its exit status; stdout in
# $work/out, stderr in $work/err (one line when it failed)
expect() {
  want=$1
  shift
  "$@" >"$work/out" 2>"$work/err"
  got=$?
  [ "$got" = "$want" ] || fail "exit $got (wanted $want): $*: $(cat "$work/err")"
  if [ "$want" != 0 ] && [ "$(wc -l <"$work/err")" != 1 ]; then
    fail "not one line on stderr: $*: $(cat "$work/err")"
  fi
}
contains() { grep -q -- "$1" "$work/out" || fail "output lacks '$1'"; }
"$make_dumps" "$work" || exit 1
case $db in
  pg)
    # under run_with_postgres.sh: a fresh database on its server
    "$ETKIT_TEST_PG_BIN/psql" -q -h "$ETKIT_TEST_PG_HOST" -U "$ETKIT_TEST_PG_USER" \
      -d postgres -c "DROP DATABASE IF EXISTS etk_cli" -c "CREATE DATABASE etk_cli" || exit 1
    db="postgresql:///etk_cli?host=$ETKIT_TEST_PG_HOST&user=$ETKIT_TEST_PG_USER"
    ;;
  *) rm -f "$db" "$db-wal" "$db-shm" ;;
esac
count_runs() { "$etkit" store runs "$db" --format csv | tail -n +2 | wc -l; }

expect 0 "$etkit" store add "$db" "$work/a1.etdp" "$work/a2.etdp" "$work/a3.etdp" \
  "$work/a4.etdp" "$work/a5.etdp" --tag commit=a --tag model=m \
  "--tag=note=x'); DROP TABLE runs;--"
expect 0 "$etkit" store add "$db" "$work/b1.etdp" "$work/b2.etdp" "$work/b3.etdp" \
  "$work/b4.etdp" "$work/b5.etdp" --tag commit=b --tag model=m
expect 0 "$etkit" store add "$db" "$work/a1.etdp" --tag commit=a
contains "already stored as run 1"
# a stored dump given a new tag gets it (and says so); a tag it has with
# another value stays as stored
expect 0 "$etkit" store add "$db" "$work/a1.etdp" --tag branch=feature --tag commit=zz
contains "already stored as run 1; 1 new tag(s) added, tags it has with another value kept"
expect 0 "$etkit" store runs "$db" --where branch=feature --format csv
[ "$(tail -n +2 "$work/out" | wc -l)" = 1 ] || fail "the re-added dump's new tag was dropped"
expect 0 "$etkit" store runs "$db" --where commit=zz --format csv
[ "$(tail -n +2 "$work/out" | wc -l)" = 0 ] || fail "a re-add changed a tag's value"
# an error of --program or --etrecord names that file, not the dump
expect 1 "$etkit" store add "$db" "$work/b1.etdp" --program "$work/nope.pte"
grep -q "^etkit store: $work/nope.pte: " "$work/err" || fail "bad --program: $(cat "$work/err")"
expect 1 "$etkit" store add "$db" "$work/b1.etdp" --etrecord "$work/nope.etrecord"
grep -q "^etkit store: $work/nope.etrecord: " "$work/err" || fail "bad --etrecord: $(cat "$work/err")"
[ "$(count_runs)" = 10 ] || fail "10 runs expected, got $(count_runs)"
# the digest is the SHA-256 of the file's bytes, as sha256sum says
digest=$(sha256sum "$work/a2.etdp" | cut -c1-64)
expect 0 "$etkit" store runs "$db" --where "digest=$digest" --format csv
[ "$(tail -n +2 "$work/out" | wc -l)" = 1 ] || fail "no run has a2's SHA-256 as its digest"
contains "a2.etdp"
expect 0 "$etkit" store runs "$db" --where "note=x'); DROP TABLE runs;--" --format json
contains "DROP TABLE runs"
expect 0 "$etkit" store show "$db" 1 --format csv
contains "op_007"
# JSON: the run's header and every raw sample, as docs/store.md says
expect 0 "$etkit" store show "$db" 1 --format json
for k in '"run": {' '"digest": ' '"commit": "a"' '"operators": \[' '"durations": \[' '"executions": \['; do
  contains "$k"
done
# a misspelled --op/--module is trouble (2) naming the closest names
expect 2 "$etkit" store trend "$db" --op op_x07
grep -q "closest: op_007" "$work/err" || fail "trend --op op_x07: $(cat "$work/err")"
for f in table csv json; do
  expect 0 "$etkit" store trend "$db" --op op_007 --format $f
  expect 0 "$etkit" store trend "$db" --method Execute --where commit=b --format $f
done
expect 0 "$etkit" store compare "$db" --baseline commit=a --candidate commit=b --format json
for k in '"changes"' '"name": "op_007"' '"instruction_id": 7' '"op_type"' '"module"' \
  '"baseline"' '"candidate"' '"delta_pct"' '"ci_low"' '"ci_high"' '"p_value"' \
  '"significant": true' '"direction": "slower"'; do
  contains "$k"
done
[ "$(grep -c '"significant": true' "$work/out")" = 1 ] || fail "more than one change reported"
expect 0 "$etkit" store compare "$db" --baseline commit=a --candidate commit=b --format csv
# selectors CI needs: the newest N runs of a branch, runs since a date
expect 0 "$etkit" store runs "$db" --where commit=a --where last=2 --format csv
[ "$(tail -n +2 "$work/out" | cut -d, -f1 | tr '\n' ' ')" = "4 5 " ] ||
  fail "last=2 of commit=a: $(cat "$work/out")"
expect 0 "$etkit" store compare "$db" --baseline commit=a --baseline last=3 --candidate commit=b --format json
contains '"baseline_runs": 3'
expect 0 "$etkit" store runs "$db" --where since=2000-01-01 --format csv
[ "$(tail -n +2 "$work/out" | wc -l)" = 10 ] || fail "since=2000-01-01: not every run"
expect 0 "$etkit" store runs "$db" --where "since=2999-01-01 00:00" --format csv
[ "$(tail -n +2 "$work/out" | wc -l)" = 0 ] || fail "since=2999-01-01: runs selected"
expect 1 "$etkit" store runs "$db" --where since=yesterday
# the run's own time: a column of runs, a bad --run-time a usage error
expect 0 "$etkit" store runs "$db" --format csv
head -n 1 "$work/out" | grep -q '^id,added,run_time,digest,' || fail "runs has no run_time column"
expect 2 "$etkit" store add "$db" "$work/b1.etdp" --run-time 2026-02-30x
grep -q "needs an ISO 8601 time" "$work/err" || fail "bad --run-time: $(cat "$work/err")"
expect 0 "$etkit" store add "$db" "$work/a1.etdp" --run-time 2026-01-02T03:04:05+01:00
expect 0 "$etkit" store runs "$db" --where id=1 --format csv
contains ',2026-01-02 02:04:05,'
expect 1 "$etkit" store runs "$db" --where last=0
# the default table fits a 120-column terminal
expect 0 "$etkit" store compare "$db" --baseline commit=a --candidate commit=b
width=$(LC_ALL=C.UTF-8 wc -L <"$work/out")
[ "$width" -le 120 ] || fail "store compare's table is $width columns wide"
contains "op_007"
expect 1 "$etkit" store compare "$db" --baseline commit=a --candidate commit=b --fail-above 5
expect 0 "$etkit" store compare "$db" --baseline commit=a --candidate commit=b --fail-above 50
expect 0 "$etkit" store compare "$db" --baseline commit=a --candidate commit=a --fail-above 1
# wrappers are hidden, --op picks one instruction, a misspelled --op is 2
expect 0 "$etkit" store compare "$db" --baseline commit=a --candidate commit=b --op op_007 --instruction 7 --format csv
[ "$(tail -n +2 "$work/out" | wc -l)" = 1 ] || fail "--op op_007 --instruction 7: not one row"
expect 2 "$etkit" store compare "$db" --baseline commit=a --candidate commit=b --op op_x07
grep -q "closest: op_007" "$work/err" || fail "a misspelled --op does not name the closest: $(cat "$work/err")"
expect 2 "$etkit" store compare "$db" --baseline commit=a --candidate commit=b --op op_007 --instruction 8 --fail-above 1
expect 2 "$etkit" store compare "$db" --baseline commit=a --candidate commit=b --instruction x
expect 0 "$etkit" store export "$db" --format v3 -o "$work/v3.json"
grep -q '"benchmark_values"' "$work/v3.json" || fail "v3 export lacks benchmark_values"
expect 0 "$etkit" store export "$db" --format csv --where commit=b
expect 0 "$etkit" store report "$db" --baseline commit=a --candidate commit=b -o "$work/r.md"
grep -q '| op\\_007 |' "$work/r.md" || fail "the Markdown report lacks op_007's row"
expect 0 "$etkit" store report "$db" --baseline commit=a --candidate commit=b -o "$work/r.html"
grep -q '<svg' "$work/r.html" || fail "the HTML report has no SVG plot"
grep -q 'https\?://[a-z]' "$work/r.html" && grep -v 'xmlns=' "$work/r.html" | grep -q 'https\?://' &&
  fail "the HTML report refers to the network"
expect 2 "$etkit" store report "$db" --baseline commit=a --candidate commit=b
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
case $db in
  postgres*) ;;
  *)
    if [ -n "$browser" ]; then
      # the page as a browser sees it: its SVG plots parsed, with their lines
      sed 's|</body>|<script>document.title="P"+document.querySelectorAll("svg polyline").length+"R"+document.querySelectorAll("tr.slower").length</script></body>|' \
        "$work/r.html" >"$work/measure.html"
      dom=$(timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
        --user-data-dir="$work/profile" --dump-dom "file://$work/measure.html" 2>/dev/null)
      echo "$dom" | grep -q '<title>P[1-9][0-9]*R1</title>' ||
        fail "Chromium did not render the report's plots and one regression row"
    else
      echo "note: no Chromium: the report was not opened in a browser"
    fi
    ;;
esac

# etkit diff with several dumps per side uses the same engine
expect 1 "$etkit" diff "$work/a1.etdp" "$work/a2.etdp" "$work/a3.etdp" "$work/a4.etdp" \
  "$work/a5.etdp" --vs "$work/b1.etdp" "$work/b2.etdp" "$work/b3.etdp" "$work/b4.etdp" \
  "$work/b5.etdp" --fail-above 5 --format csv
contains "Execute,op_007,7,"
[ "$(grep -c ',True,slower,' "$work/out")" = 1 ] || fail "diff --vs: not exactly op_007 flagged"
expect 0 "$etkit" diff "$work/a1.etdp" "$work/a2.etdp" --vs "$work/a3.etdp" "$work/a4.etdp" \
  --fail-above 5 --format json
contains '"direction": "same"'
expect 2 "$etkit" diff "$work/a1.etdp" --vs
expect 2 "$etkit" diff "$work/a1.etdp" --vs "$work/a2.etdp" --vs "$work/a3.etdp"
# a candidate of another program shares only Method::execute: a gate that
# compared no operator is trouble (2), never a pass
expect 0 "$etkit" record-demo --output "$work/other.etdp"
expect 2 "$etkit" diff "$work/a1.etdp" "$work/a2.etdp" --vs "$work/other.etdp" --fail-above 1
grep -q "compared nothing" "$work/err" || fail "diff --vs another program: $(cat "$work/err")"
# the run series of one dump
expect 0 "$etkit" inspect --etdump_path "$work/a1.etdp" --runs --format csv
contains "Execute,steady,8,0,"
expect 0 "$etkit" inspect --etdump_path "$work/a1.etdp" --runs --prompt-tokens 4 --format json
contains '"ms_per_decode_token"'
expect 2 "$etkit" inspect --etdump_path "$work/a1.etdp" --runs --prompt-tokens 0

# stats-mode runs (a latency sketch per operator, no samples): trend's rows
# and compare's gate come from the sketches, in a store that also holds
# full runs; the demo program's own stats dumps (etkit run --profile-mode
# stats) beside synthetic ones with a planted 2x slow-down
stats_db=$db
case $db in
  postgres*) ;;
  *) stats_db="$work/stats.db" ;;
esac
expect 0 "$etkit" store add "$stats_db" "$work/s1.etdp" "$work/s2.etdp" "$work/s3.etdp" --tag commit=s
expect 0 "$etkit" store add "$stats_db" "$work/t1.etdp" "$work/t2.etdp" "$work/t3.etdp" --tag commit=t
expect 0 "$etkit" store trend "$stats_db" --op op_007 --where commit=s --format csv
head -n 1 "$work/out" | grep -q ',p90,p99,error_bound,from$' || fail "trend csv header: $(head -n 1 "$work/out")"
[ "$(grep -c ',8,.*,0.01,sketch$' "$work/out")" = 3 ] || fail "trend of stats runs: $(cat "$work/out")"
expect 0 "$etkit" store trend "$stats_db" --op op_007
width=$(LC_ALL=C.UTF-8 wc -L <"$work/out")
[ "$width" -le 120 ] || fail "store trend's table is $width columns wide"
contains "±1%"
expect 0 "$etkit" store trend "$stats_db" --op op_007 --wide
contains "per_execution"
expect 1 "$etkit" store compare "$stats_db" --baseline commit=s --candidate commit=t --fail-above 50
grep -q "op_007 (instruction 7) is 9[0-9]\.[0-9] % slower\|op_007 (instruction 7) is 1[01][0-9]\.[0-9] % slower" "$work/err" ||
  fail "the 2x slow-down is not named: $(cat "$work/err")"
expect 0 "$etkit" store compare "$stats_db" --baseline commit=s --candidate commit=t --fail-above 150
expect 0 "$etkit" store compare "$stats_db" --baseline commit=s --candidate commit=s --fail-above 1
expect 0 "$etkit" store compare "$stats_db" --baseline commit=s --candidate commit=t --format json
for k in '"rule": "sketch-bounds"' '"baseline_bound": 0.01' '"q_value": null' '"candidate_p90"'; do
  contains "$k"
done
expect 0 "$etkit" store compare "$stats_db" --baseline commit=s --candidate commit=t --format csv
head -n 1 "$work/out" | grep -q ',rule,baseline_bound,candidate_bound,' || fail "compare csv header: $(head -n 1 "$work/out")"
grep -q '^op_007,7,.*,True,slower,sketch-bounds,0.01,0.01,' "$work/out" || fail "compare csv: $(cat "$work/out")"
expect 0 "$etkit" store compare "$stats_db" --baseline commit=s --candidate commit=t
width=$(LC_ALL=C.UTF-8 wc -L <"$work/out")
[ "$width" -le 120 ] || fail "store compare's table of sketches is $width columns wide"
contains "sketch"
# the demo program recorded in stats mode, twice: the same runs on both
# sides hold exactly; two recordings of one program hold a generous gate
"$etkit" demo --output-dir "$work/demo" >/dev/null 2>&1 || fail "etkit demo"
for i in 1 2; do
  expect 0 "$etkit" run "$work/demo/model.pte" --iterations 50 --profile-mode stats \
    --etdump "$work/demo/stats$i.etdp"
done
expect 0 "$etkit" store add "$stats_db" "$work/demo/stats1.etdp" --tag commit=demo1
expect 0 "$etkit" store add "$stats_db" "$work/demo/stats2.etdp" --tag commit=demo2
expect 0 "$etkit" store add "$stats_db" "$work/demo/etdump.etdp" --tag commit=demofull
expect 0 "$etkit" store trend "$stats_db" --op native_call_addmm.out --format csv
[ "$(grep -c ',50,.*,sketch$' "$work/out")" = 2 ] || fail "demo stats trend: $(cat "$work/out")"
grep -q ',samples$' "$work/out" || fail "demo full run missing from the trend: $(cat "$work/out")"
expect 0 "$etkit" store compare "$stats_db" --baseline commit=demo1 --candidate commit=demo1 --fail-above 1
expect 0 "$etkit" store compare "$stats_db" --baseline commit=demo1 --candidate commit=demo2 --fail-above 400
expect 0 "$etkit" store compare "$stats_db" --baseline commit=demofull --candidate commit=demo1 --format json
contains '"rule": "sketch-bounds"'
# the stats runs leave the other checks' store as it was
case $db in
  postgres*) expect 0 "$etkit" store prune "$db" --where commit=s
    expect 0 "$etkit" store prune "$db" --where commit=t
    for c in demo1 demo2 demofull; do expect 0 "$etkit" store prune "$db" --where commit=$c; done ;;
esac

# bad input: one line, non-zero exit, the database unchanged
before=$("$etkit" store export "$db" --format csv | cksum)
expect 1 "$etkit" store add "$db" "$work/damaged.etdp"
expect 1 "$etkit" store add "$db" "$0"
expect 2 "$etkit" store add "$db" "$work/b1.etdp" --tag "bad key=1"
expect 2 "$etkit" store add "$db" "$work/b1.etdp" --tag novalue
expect 1 "$etkit" store runs "$db" --where nosuchkey=1
expect 2 "$etkit" store compare "$db" --baseline commit=zzz --candidate commit=b
expect 2 "$etkit" store trend "$db"
expect 2 "$etkit" store frobnicate "$db"
expect 1 "$etkit" store runs "postgresql:///nosuchdb?host=$work/nosocket"
expect 1 "$etkit" store runs "$work/missing.db"
case $db in
  postgres*) ;;
  *)
    expect 1 "$etkit" store add "file:$db?mode=ro" "$work/b1.etdp" --tag commit=c
    # another program's SQLite database: refused, left as it was (no etkit
    # tables, still in its own journal mode)
    if command -v sqlite3 >/dev/null; then
      sqlite3 "$work/foreign.db" "CREATE TABLE notes (x TEXT)"
      expect 1 "$etkit" store add "$work/foreign.db" "$work/b1.etdp"
      grep -q "not an etkit store" "$work/err" || fail "foreign database: $(cat "$work/err")"
      [ "$(sqlite3 "$work/foreign.db" "SELECT count(*) FROM sqlite_master")" = 1 ] ||
        fail "store add put its tables into a foreign database"
      [ "$(sqlite3 "$work/foreign.db" "PRAGMA journal_mode")" = delete ] ||
        fail "store add switched a foreign database to WAL"
    fi
    # a failed add into a new store leaves no file behind
    expect 1 "$etkit" store add "$work/new.db" "$work/damaged.etdp"
    [ -e "$work/new.db" ] && fail "a failed add left a new store file"
    expect 1 "$etkit" store add "$work/new.db" "$work/a1.etdp" "$work/damaged.etdp"
    [ -e "$work/new.db" ] || fail "an add that stored a run left no store"
    # racing first adds: failed ones (a damaged dump) never remove the new
    # store another add is still writing; every add that said ok is kept
    for round in 1 2 3 4 5 6; do
      rm -f "$work/race.db" "$work/race.db-wal" "$work/race.db-shm" "$work/race.ok"
      for i in 1 2 3 4 5; do
        "$etkit" store add "$work/race.db" "$work/damaged.etdp" >/dev/null 2>&1 &
        ("$etkit" store add "$work/race.db" "$work/a$i.etdp" >/dev/null 2>&1 &&
           echo ok >>"$work/race.ok") &
      done
      wait
      ok=$(cat "$work/race.ok" 2>/dev/null | wc -l)
      stored=$("$etkit" store runs "$work/race.db" --format csv 2>/dev/null | tail -n +2 | wc -l)
      [ "$ok" = "$stored" ] || fail "racing adds: $ok said ok, $stored stored (round $round)"
    done
    # a full disk: the file size limit stops SQLite's writes (SIGXFSZ ignored)
    cp "$db" "$work/full.db"
    size=4 # blocks: the next write to the database or its WAL goes past it
    runs_full=$("$etkit" store runs "$work/full.db" --format csv | wc -l)
    (trap '' XFSZ; ulimit -f "$size"; "$etkit" store add "$work/full.db" \
       "$work/b1.etdp" --tag commit=big >/dev/null 2>"$work/err"
     [ $? != 0 ] || echo "full database: add succeeded" >"$work/full_ok")
    [ -f "$work/full_ok" ] && fail "add into a full database did not fail"
    [ "$("$etkit" store runs "$work/full.db" --format csv | wc -l)" = "$runs_full" ] ||
      fail "a failed add into a full database changed it"
    # an archived store, in a directory its reader may not write: the
    # read-only commands work (root writes anywhere, so it reads as nobody)
    mkdir "$work/archive" && cp "$db" "$work/archive/a.db"
    chmod 755 "$work" && chmod 644 "$work/archive/a.db" && chmod 555 "$work/archive"
    reader=
    [ "$(id -u)" = 0 ] && reader="setpriv --reuid=65534 --regid=65534 --clear-groups"
    for uri in "$work/archive/a.db" "file:$work/archive/a.db?mode=ro"; do
      expect 0 $reader "$etkit" store runs "$uri" --format csv
      [ "$(tail -n +2 "$work/out" | wc -l)" = 10 ] || fail "archived store: not 10 runs"
      expect 0 $reader "$etkit" store compare "$uri" --baseline commit=a --candidate commit=b
    done
    chmod 755 "$work/archive"
    ;;
esac
after=$("$etkit" store export "$db" --format csv | cksum)
[ "$before" = "$after" ] || fail "bad input changed the database"

# an empty condition (an unset variable) never selects every run
for sub in runs export; do
  expect 2 "$etkit" store $sub "$db" --where digest=
done
expect 2 "$etkit" store prune "$db" --where digest=
expect 2 "$etkit" store compare "$db" --baseline commit= --candidate commit=b
expect 2 "$etkit" store show "$db" 99999999999999999999
expect 1 "$etkit" store runs "$db" --where id=99999999999999999999
expect 1 "$etkit" store add "$db" "$work/b1.etdp" --tag id=3
expect 1 "$etkit" store add "$db" "$work/b1.etdp" --tag digest=abc
[ "$(count_runs)" = 10 ] || fail "10 runs expected before prune"
expect 0 "$etkit" store prune "$db" --where commit=a --keep-last 2 --dry-run
contains "would delete 3 runs: 1 2 3"
[ "$(count_runs)" = 10 ] || fail "prune --dry-run deleted runs"
expect 0 "$etkit" store prune "$db" --where commit=a --keep-last 2
contains "deleted 3 runs"
expect 2 "$etkit" store prune "$db" --where
[ "$(count_runs)" = 7 ] || fail "7 runs expected after prune"
# a run of another program shares only Method::execute with the others
expect 0 "$etkit" store add "$db" "$work/other.etdp" --tag commit=other
expect 2 "$etkit" store compare "$db" --baseline commit=b --candidate commit=other --fail-above 1
grep -q "compared nothing" "$work/err" || fail "compare with another program: $(cat "$work/err")"
case $db in
  postgres*)
    # a password in the URI never shows in a message
    # (the server trusts its socket, so the password is not checked: the
    # database "postgres" is reached and is not an etkit store)
    pw_uri="postgresql://x:hunter2secret@/postgres?host=$ETKIT_TEST_PG_HOST&user=$ETKIT_TEST_PG_USER&password=hunter2secret"
    expect 1 "$etkit" store runs "$pw_uri"
    grep -q "not an etkit store" "$work/err" || fail "postgres: $(cat "$work/err")"
    grep -q hunter2secret "$work/err" && fail "the password is in the message: $(cat "$work/err")"
    expect 1 "$etkit" store runs "postgresql://u:hunter2secret@%zz/x"
    grep -q hunter2secret "$work/err" && fail "the password is in libpq's message: $(cat "$work/err")"
    ;;
esac
if [ "$failures" != 0 ]; then
  echo "$failures failures"
  exit 1
fi
echo "all store CLI checks passed on $db"
