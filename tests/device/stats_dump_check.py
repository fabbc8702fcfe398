#!/usr/bin/python3
"""stats_dump_check.py - a stats profile dump (`etkit run --profile-mode
stats`) against a one-run dump of every event of the same program
(tests/device/device_stats.cmake):

  stats_dump_check.py ETKIT STATS FULL1 RUNS [OTHER_STATS...]

- the stats dump's keys (block name, event name, instruction, delegate id)
  are the full dump's;
- each key's count is RUNS times its calls in the full run for the Execute
  block's events, its calls for the load's (they happen once);
- min <= p10 <= p50 <= p90 <= p99 <= p99.9 <= max and min <= avg <= max;
- no key was refused (the table held every event);
- every OTHER_STATS dump (the host's of the same program) has the same keys.
Exit 0 when all hold, 1 with the first difference.
"""
import json
import subprocess
import sys

QUANTILES = ["min", "p10", "p50", "p90", "p99", "p99.9", "max"]


def inspect(etkit, path):
    out = subprocess.run([etkit, "inspect", path, "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def key(event):
    # a delegate's event is known by its delegate id (the full dump's rows
    # name it by that id, the stats dump's leave the name empty)
    deleg = event["delegate_debug_identifier"]
    return (event["event_block_name"],
            event["event_name"] if deleg is None else None,
            event["instruction_id"], deleg)


def column(event, name):
    """The value of column `name` whatever its unit suffix."""
    for k, v in event.items():
        if k == name or k.startswith(name + " ("):
            return v
    raise KeyError(name)


def stats_rows(doc, path):
    sk = doc.get("latency_sketches")
    if sk is None:
        sys.exit(f"{path}: not a stats profile dump (no latency_sketches)")
    if sk.get("refused") != 0:
        sys.exit(f"{path}: {sk.get('refused')} keys refused")
    rows = {}
    for e in doc["events"]:
        if key(e) in rows:
            sys.exit(f"{path}: key {key(e)} twice")
        rows[key(e)] = e
    return rows


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    etkit, stats_path, full_path, runs = sys.argv[1:5]
    runs = int(runs)
    stats = stats_rows(inspect(etkit, stats_path), stats_path)
    calls = {}
    for e in inspect(etkit, full_path)["events"]:
        calls[key(e)] = calls.get(key(e), 0) + len(e["raw"])
    if set(stats) != set(calls):
        sys.exit(f"{stats_path}: keys {sorted(map(str, set(stats) ^ set(calls)))}"
                 f" not in both it and {full_path}")
    for k, e in stats.items():
        want = calls[k] * (runs if k[0] == "Execute" else 1)
        if e["count"] != want:
            sys.exit(f"{stats_path}: {k}: count {e['count']}, expected {want}")
        q = [column(e, n) for n in QUANTILES]
        avg = column(e, "avg")
        if q != sorted(q) or not q[0] <= avg <= q[-1] or q[0] < 0:
            sys.exit(f"{stats_path}: {k}: quantiles out of order {q}, avg {avg}")
    for other in sys.argv[5:]:
        o = stats_rows(inspect(etkit, other), other)
        if set(o) != set(stats):
            sys.exit(f"{other}: keys {sorted(map(str, set(o) ^ set(stats)))} "
                     f"not in both it and {stats_path}")
    execute = sum(1 for k in stats if k[0] == "Execute")
    print(f"{stats_path}: {len(stats)} keys ({execute} per run) agree with "
          f"{full_path} over {runs} runs")


if __name__ == "__main__":
    main()
