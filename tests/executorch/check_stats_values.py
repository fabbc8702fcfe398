"""The STATS debug values of a dump the C++ tracer wrote, read through
flatc's JSON (upstream's schema) and the debug buffer, against numpy's
reductions of the tensors the app logged (their own bytes, kept by
upstream_stats_app in log order).

Usage: check_stats_values.py DUMP.json DEBUG.bin TENSORS.txt TENSORS.bin
Exit 0 all equal, 1 a difference (printed), 2 trouble."""
import json
import math
import struct
import sys

import numpy as np

MARKER = ("etkit:tensor_stats=min,max,mean,abs_max,abs_mean,std,rms,l1_norm,"
          "l2_norm,nan_count,inf_count,zero_count,p99_abs")
FIELDS = MARKER.split("=", 1)[1].split(",")


def numpy_stats(t):
    """upstream's 13 reductions: float32 cast, float64 accumulation."""
    x = t.astype(np.float32).astype(np.float64).ravel()
    a = np.abs(x)
    n = x.size
    k = max(1, -(-n // 100))
    # k-th largest |x|; NaN above every number, as torch.topk orders it
    ranked = np.sort(np.nan_to_num(a, nan=np.inf, posinf=np.inf))
    nans = int(np.count_nonzero(np.isnan(a)))
    kth = math.nan if nans >= k else float(ranked[n - k])
    with np.errstate(invalid="ignore", over="ignore"):
        mean, sq = float(np.mean(x)), float(np.mean(x * x))
        return [float(np.min(x)), float(np.max(x)), mean, float(np.max(a)),
                float(np.mean(a)), math.sqrt(abs(sq - mean * mean)),
                math.sqrt(sq),
                float(np.sum(a)), float(np.sqrt(np.sum(x * x))),
                float(np.count_nonzero(np.isnan(x))),
                float(np.count_nonzero(np.isinf(x))),
                float(np.count_nonzero(x == 0)), kth]


def same(got, want):
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want):
        return got == want
    # numpy sums pairwise, the recorder in order: the last bits may differ
    return abs(got - want) <= 1e-9 * abs(want) + 1e-12


def main(argv):
    if len(argv) != 5:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        dump = json.load(f)
    debug = open(argv[2], "rb").read()
    lines = open(argv[3]).read().split("\n")
    raw = open(argv[4], "rb").read()
    names = [r.get("name") for r in dump["run_data"]]
    if MARKER not in names:
        print("no STATS marker RunData in %s" % names)
        return 1
    tensors = []
    for run in dump["run_data"]:
        for ev in run.get("events", []):
            entry = ev.get("debug_event", {}).get("debug_entry")
            if entry is not None and "tensor" in entry:
                tensors.append(entry["tensor"])
    logged, at = [], 0
    for line in filter(None, lines):
        dtype, numel = line.split()
        dt = np.dtype("float32" if dtype == "f4" else "bool")
        size = int(numel) * dt.itemsize
        logged.append(np.frombuffer(raw[at:at + size], dtype=dt))
        at += size
    if len(tensors) != len(logged) or not logged:
        print("%d STATS vectors in the dump, %d tensors logged"
              % (len(tensors), len(logged)))
        return 1
    bad = 0
    for i, (t, want_of) in enumerate(zip(tensors, logged)):
        if t.get("scalar_type") != "DOUBLE" or t.get("sizes") != [13]:
            print("value %d is not a STATS vector: %s" % (i, t))
            return 1
        off = int(t["offset"])
        got = struct.unpack_from("<13d", debug, off)
        want = numpy_stats(want_of)
        for name, g, w in zip(FIELDS, got, want):
            if not same(g, w):
                print("value %d %s: dump %r, numpy %r" % (i, name, g, w))
                bad += 1
    print("%d STATS vectors equal numpy's" % len(tensors) if not bad else
          "%d differences" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
