#!/usr/bin/python3
"""Python Inspector benchmark: Inspector(...) + to_dataframe() on a large
ETDump against `etkit inspect --tsv_path` on the same file.

    bench_python.py --etkit BUILD/src/cli/etkit --generator BUILD/bench/inspector/bench_inspector
                    --pythonpath BUILD/python [--events 1000000] [--python /usr/bin/python3]

Each side runs in its own child process; the figures are its wall time,
CPU time (user + system: steadier on a loaded machine) and peak RSS
(wait4's rusage of that child alone).  Prints one line per figure,
"<name> <value> <unit>", then the ratios against the goal (time <= 2x,
peak <= 3x + 150 MB).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import sys, time, warnings, resource
warnings.simplefilter("ignore")
t0 = time.perf_counter()
import etkit
ins = etkit.Inspector(etdump_path=sys.argv[1])
df = ins.to_dataframe()
t1 = time.perf_counter()
assert len(df) > 0
print(t1 - t0, len(df))
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
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        dump = os.path.join(tmp, "big.etdp")
        subprocess.run([a.generator, "--generate", "wide", str(a.events), dump],
                       check=True, capture_output=True)
        env = dict(os.environ, PYTHONPATH=a.pythonpath)
        py_wall, py_cpu, py_peak, out = child([a.python, "-c", CHILD, dump], env)
        py_inner, rows = out.split()
        cli_wall, cli_cpu, cli_peak, _ = child([a.etkit, "inspect", "--etdump_path", dump,
                                       "--tsv_path", os.path.join(tmp, "o.tsv"),
                                       "--output", os.devnull])
    print(f"python_rows {rows} rows")
    print(f"python_inspector_to_dataframe_wall {py_wall:.3f} s")
    print(f"python_inspector_to_dataframe_inner {float(py_inner):.3f} s")
    print(f"python_inspector_to_dataframe_cpu {py_cpu:.3f} s")
    print(f"python_peak_rss {py_peak:.1f} MB")
    print(f"cli_inspect_tsv_wall {cli_wall:.3f} s")
    print(f"cli_inspect_tsv_cpu {cli_cpu:.3f} s")
    print(f"cli_inspect_tsv_peak_rss {cli_peak:.1f} MB")
    print(f"time_ratio {py_wall / cli_wall:.2f} x (wall; goal <= 2)")
    print(f"cpu_ratio {py_cpu / cli_cpu:.2f} x (CPU; goal <= 2)")
    print(f"memory_budget {3 * cli_peak + 150:.1f} MB (goal: python peak <= this)")


if __name__ == "__main__":
    main()
