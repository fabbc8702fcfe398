#!/usr/bin/python3
"""Python Inspector benchmark: Inspector(...) + to_dataframe() on a large
ETDump against `etkit inspect --tsv_path` on the same file, and where the
Python side's memory goes.

    bench_python.py --etkit BUILD/src/cli/etkit --generator BUILD/bench/inspector/bench_inspector
                    --pythonpath BUILD/python [--events 1000000] [--python /usr/bin/python3]
                    [--slack-mb 25]

Each side runs in its own child process; the figures are its wall time,
CPU time (user + system: steadier on a loaded machine) and peak RSS
(wait4's rusage of that child alone).  The Python child also reports its
RSS after importing etkit and pandas and after `Inspector(...)`.

A third child builds the same DataFrame and adds up, column by column, the
memory its cells' objects take (each distinct object once, at the size
CPython's allocator gives it: sizes rounded up to 16 bytes, a list's item
array as its own block) and the columns' arrays: the least memory any
frame with upstream's cell types can take.  It also checks that the empty
cells are each their own object (issue 24, section 8).

Prints one line per figure, "<name> <value> <unit>", then the ratios
against issue 24's goal (time <= 2x, peak <= 3x + 150 MB).  The regression
check: the Python peak may exceed the interpreter, the C Inspector and the
frame's floor by at most --slack-mb (transient copies, fragmentation);
otherwise it says FAIL and exits 1.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

TIMED = r"""
import json, sys, time, warnings

def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0

warnings.simplefilter("ignore")
t0 = time.perf_counter()
import etkit
import pandas  # to_dataframe imports it: part of the interpreter's share
rss_import = rss_mb()
ins = etkit.Inspector(etdump_path=sys.argv[1])
rss_inspector = rss_mb()
df = ins.to_dataframe()
t1 = time.perf_counter()
assert len(df) > 0
print(json.dumps({"inner": t1 - t0, "rows": len(df), "rss_import": rss_import,
                  "rss_inspector": rss_inspector, "rss_frame": rss_mb()}))
"""

FLOOR = r"""
import json, sys, warnings
import numpy as np
warnings.simplefilter("ignore")
import etkit

def block(nbytes):
    # CPython's small-object allocator: 16-byte classes up to 512 bytes;
    # above, a malloc chunk with its 8-byte header
    return (nbytes + 15) & ~15 if nbytes <= 512 else (nbytes + 8 + 15) & ~15

def own(o):
    # the allocations of one object (not of what it refers to)
    if type(o) is list:
        head = sys.getsizeof(o) - 8 * len(o)  # allocated == len for these
        return block(head) + (block(8 * len(o)) if o else 0)
    return block(sys.getsizeof(o))

ins = etkit.Inspector(etdump_path=sys.argv[1])
df = ins.to_dataframe()
n = len(df)
out = {"rows": n, "columns": {}}
for name in df.columns:
    values = df[name].to_numpy()
    arrays = values.nbytes
    objects = 0
    if values.dtype == object:
        seen = set()
        for cell in values:
            if cell is None or id(cell) in seen:
                continue
            seen.add(id(cell))
            objects += own(cell)
            if type(cell) is list:
                for item in cell:
                    if item is not None and id(item) not in seen:
                        seen.add(id(item))
                        objects += own(item)
        if name in ("op_types", "stack_traces", "module_hierarchy", "debug_data"):
            # upstream's default_factory: every empty cell its own object
            empties = [id(c) for c in values if len(c) == 0]
            assert len(set(empties)) == len(empties), name + ": shared empty cells"
        del seen
    out["columns"][name] = [arrays, objects]
print(json.dumps(out))
"""


def child(cmd, env=None):
    """Runs cmd; returns (wall s, CPU s, peak RSS MB, stdout) of that child."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen(cmd, stdout=out, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit(f"{cmd[0]} failed with status {proc.returncode}")
        out.seek(0)
        return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, out.read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etkit", required=True)
    ap.add_argument("--generator", required=True)
    ap.add_argument("--pythonpath", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--events", type=int, default=1000000)
    ap.add_argument("--slack-mb", type=float, default=25.0,
                    help="allowed Python peak above interpreter + Inspector + frame floor")
    a = ap.parse_args()
    mb = 1024.0 * 1024.0
    with tempfile.TemporaryDirectory() as tmp:
        dump = os.path.join(tmp, "big.etdp")
        subprocess.run([a.generator, "--generate", "wide", str(a.events), dump],
                       check=True, capture_output=True)
        env = dict(os.environ, PYTHONPATH=a.pythonpath)
        py_wall, py_cpu, py_peak, out = child([a.python, "-c", TIMED, dump], env)
        timed = json.loads(out)
        cli_wall, cli_cpu, cli_peak, _ = child([a.etkit, "inspect", "--etdump_path", dump,
                                                "--tsv_path", os.path.join(tmp, "o.tsv"),
                                                "--output", os.devnull])
        floor = json.loads(child([a.python, "-c", FLOOR, dump], env)[3])
    print(f"python_rows {timed['rows']} rows")
    print(f"python_inspector_to_dataframe_wall {py_wall:.3f} s")
    print(f"python_inspector_to_dataframe_inner {timed['inner']:.3f} s")
    print(f"python_inspector_to_dataframe_cpu {py_cpu:.3f} s")
    print(f"python_peak_rss {py_peak:.1f} MB")
    print(f"cli_inspect_tsv_wall {cli_wall:.3f} s")
    print(f"cli_inspect_tsv_cpu {cli_cpu:.3f} s")
    print(f"cli_inspect_tsv_peak_rss {cli_peak:.1f} MB")
    print(f"time_ratio {py_wall / cli_wall:.2f} x (wall; goal <= 2)")
    print(f"cpu_ratio {py_cpu / cli_cpu:.2f} x (CPU; goal <= 2)")
    print(f"memory_budget {3 * cli_peak + 150:.1f} MB (goal: python peak <= this)")
    # where the Python peak goes
    interp = timed["rss_import"]
    handle = timed["rss_inspector"] - timed["rss_import"]
    print(f"python_rss_interpreter {interp:.1f} MB (python, numpy, pandas, etkit)")
    print(f"python_rss_c_inspector {handle:.1f} MB (the dump and its tables, as the CLI)")
    total = 0.0
    for name, (arrays, objects) in floor["columns"].items():
        key = name.split(" (")[0]
        total += arrays + objects
        print(f"python_floor_{key} {(arrays + objects) / mb:.1f} MB "
              f"(array {arrays / mb:.1f}, objects {objects / mb:.1f})")
    total /= mb
    print(f"python_floor_frame {total:.1f} MB ({total * mb / floor['rows']:.0f} bytes a row)")
    over = py_peak - interp - handle - total
    print(f"python_peak_over_floor {over:.1f} MB (goal <= {a.slack_mb:.0f})")
    if over > a.slack_mb:
        print(f"FAIL python_peak_over_floor {over:.1f} MB > {a.slack_mb:.0f} MB")
        sys.exit(1)


if __name__ == "__main__":
    main()
