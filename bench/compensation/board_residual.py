#!/usr/bin/python3
"""board_residual.py - the compensation residual on QEMU's emulated boards.

    board_residual.py --etkit ETKIT --firmware-dir DIR --bench BENCH_COMPENSATION
                      --work DIR [--boards mps2-an386,mps3-an547]
                      [--iterations 5] [--max-residual PERCENT]

For the demo CNN (`etkit demo`) and the 200-add chain
(`bench_compensation --write-adds`), on each board: `etkit run --target`
traced at operator level (it calibrates by default) and at
`--profile-level method`, then the median Method::execute of each, read by
`etkit inspect --format json`, the full trace's both raw and
`--compensate`d.  Under `-icount` the cycle counts are deterministic, so
one round says it all.  Prints "<name> <value> <unit>" lines:

    board_<board>_<prog>_method_only    median Method::execute (cycles)
    board_<board>_<prog>_raw_overhead   full trace against it (%)
    board_<board>_<prog>_residual       compensated full trace against it (%)
    board_<board>_calibration_pair, _skipped   the dump's figures (cycles)

--max-residual: exit 1 when a residual's magnitude exceeds it (the ctest
`device_compensation` gate, label qemu); 2 when something cannot run.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys


def trouble(msg):
    print(f"board_residual: {msg}", file=sys.stderr)
    sys.exit(2)


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        trouble(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr.decode(errors='replace')}")
    return p.stdout


def execute_median(etkit, dump, *extra):
    d = json.loads(run([etkit, "inspect", "--etdump_path", dump, "--format", "json", *extra]))
    rows = [e for e in d["events"] if e["event_name"] == "Method::execute"]
    if len(rows) != 1 or not rows[0]["raw"]:
        trouble(f"{dump}: no single Method::execute row")
    return statistics.median(rows[0]["raw"])


def calibration(dump):
    with open(dump, "rb") as f:
        m = re.search(rb"etkit:calibration=pair=([0-9.]+),.*?skipped=([0-9.]+)", f.read())
    if not m:
        trouble(f"{dump}: no calibration (etkit run --target must calibrate by default)")
    return float(m.group(1)), float(m.group(2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etkit", required=True)
    ap.add_argument("--firmware-dir", required=True)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--boards", default="mps2-an386,mps3-an547")
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--max-residual", type=float)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    run([a.etkit, "demo", "--output-dir", os.path.join(a.work, "demo")])
    adds = os.path.join(a.work, "adds.pte")
    run([a.bench, "--write-adds", adds])
    programs = {"demo": os.path.join(a.work, "demo", "model.pte"), "adds": adds}
    worst = 0.0
    for board in a.boards.split(","):
        elf = os.path.join(a.firmware_dir, board + ".elf")
        for name, pte in programs.items():
            full = os.path.join(a.work, f"{board}_{name}_full.etdp")
            meth = os.path.join(a.work, f"{board}_{name}_method.etdp")
            common = [a.etkit, "run", pte, "--target", board, "--firmware", elf,
                      "--iterations", str(a.iterations)]
            run(common + ["--etdump", full])
            run(common + ["--etdump", meth, "--profile-level", "method"])
            base = execute_median(a.etkit, meth)
            raw = execute_median(a.etkit, full)
            comp = execute_median(a.etkit, full, "--compensate")
            residual = 100.0 * (comp - base) / base
            worst = max(worst, abs(residual))
            print(f"board_{board}_{name}_method_only {base:.0f} cycles")
            print(f"board_{board}_{name}_raw_overhead {100.0 * (raw - base) / base:.2f} %")
            print(f"board_{board}_{name}_residual {residual:.3f} %")
        pair, skipped = calibration(full)
        print(f"board_{board}_calibration_pair {pair:.3f} cycles")
        print(f"board_{board}_calibration_skipped {skipped:.3f} cycles")
    if a.max_residual is not None and worst > a.max_residual:
        print(f"board_residual: a residual of {worst:.3f} % is above {a.max_residual} %",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
