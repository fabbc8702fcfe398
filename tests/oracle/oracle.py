#!/usr/bin/env python3
"""Oracle test: etkit's table, TSV and CSV against pandas + tabulate.

For every generated ETDump (make_oracle_dumps.c) this script

  1. decodes the file independently of etkit, with
     `flatc --json --strict-json --defaults-json --size-prefixed`, as
     upstream's Inspector does;
  2. groups runs and events with upstream's rules (docs: inspector.md
     sections 3-6) and builds the DataFrame the way upstream's
     Event.asdict / EventBlock.to_dataframe / Inspector._prepare_dataframe
     do (op types and backend names, which come from ETRecord linking, are
     taken from etkit's JSON output: linking is not what this test checks);
  3. prints it with `tabulate(df, headers="keys", tablefmt="fancy_grid")`
     and `df.to_csv(sep=...)`, and compares byte for byte with
     `etkit inspect` (table on stdout, --tsv_path, --format tsv, --format
     csv).

The documented deviation of etkit (docs/compatibility.md, "Renderers")
is applied to the expected text, and counted, so that it stays the only
difference: control characters in table cells are escaped (\\n, \\x1b,
\\u202e).  TSV and CSV are pandas' bytes exactly (a bare '\\r' unquoted).

Usage: oracle.py --etkit ETKIT --make MAKE_DUMPS --flatc FLATC
                 --schema etdump_schema_flatcc.fbs --workdir DIR
Exit status: 0 all equal, 1 a difference, 77 skipped (no pandas/tabulate,
no flatc).
"""

import argparse
import json
import math
import os
import random
import struct
import shutil
import subprocess
import sys

SKIP = 77


def import_libraries():
    """Imports pandas, numpy and tabulate, re-running the script with another
    interpreter (ETKIT_ORACLE_PYTHON, then /usr/bin/python3) if this one
    lacks them; exits 77 when none has them."""
    try:
        import numpy  # noqa: F401
        import pandas  # noqa: F401
        import tabulate  # noqa: F401
        return
    except ImportError as e:
        missing = str(e)
    if not os.environ.get("ETKIT_ORACLE_REEXEC"):
        for cand in (os.environ.get("ETKIT_ORACLE_PYTHON"), "/usr/bin/python3"):
            if not cand or not os.path.exists(cand):
                continue
            if os.path.realpath(cand) == os.path.realpath(sys.executable):
                continue
            probe = subprocess.run(
                [cand, "-c", "import numpy, pandas, tabulate"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if probe.returncode == 0:
                env = dict(os.environ, ETKIT_ORACLE_REEXEC="1")
                os.execve(cand, [cand] + sys.argv, env)
    print("oracle: skipped (%s); install python3-pandas python3-tabulate "
          "python3-numpy" % missing)
    sys.exit(SKIP)


import_libraries()

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import tabulate as tabulate_module  # noqa: E402
from tabulate import tabulate  # noqa: E402

# etkit counts code points, as tabulate does without the optional wcwidth
# package (docs/compatibility.md); make the oracle independent of it.
tabulate_module.WIDE_CHARS_MODE = False

MAX_UINT32 = 2**32 - 1
UNITS = {"ns": 1000000000, "us": 1000000, "ms": 1000, "s": 1, "cycles": 1}
EXCLUDED_COLUMNS = ["raw", "delegate_debug_identifier", "stack_traces",
                    "module_hierarchy", "debug_data"]

# ------------------------------------------------------------ decoding


def decode(flatc, schema, path, outdir):
    subprocess.run([flatc, "--json", "--strict-json", "--defaults-json",
                    "--size-prefixed", "--raw-binary", "-o", outdir, schema,
                    "--", path], check=True)
    stem = os.path.splitext(os.path.basename(path))[0]
    with open(os.path.join(outdir, stem + ".json"), encoding="utf-8") as f:
        return json.load(f)


def is_output(entry):
    out = (entry or {}).get("output")
    return bool(out and out.get("bool_val"))


def elapsed(start, end):
    if start > end:
        if start > MAX_UINT32 or end > MAX_UINT32:
            raise ValueError("wrap-around beyond 32 bits")
        return (MAX_UINT32 - start) + end
    return end - start


def profile_sig(p):
    iid = p.get("instruction_id", -1)
    dint = p.get("delegate_debug_id_int", -1)
    dstr = p.get("delegate_debug_id_str")
    return (p.get("name") or "", iid if iid != -1 else None,
            dint if dint != -1 else None, dstr if dstr != "" else None)


class Event:
    """The fields of upstream's Event that the printed frame shows."""

    def __init__(self):
        self.name = ""
        self.raw = None
        self.op_types = []
        self.delegate_id = None
        self.is_delegated_op = None
        self.backend = None
        self.start_time = None
        self.metadatas = []

    def apply_signature(self, sig):
        if sig is None:
            return
        _, _, dint, dstr = sig
        ident = dint if dint is not None else (dstr or None)
        delegated = ident is not None
        name = sig[0] if not delegated else str(ident)
        if name:
            self.name = name
        self.delegate_id = ident
        self.is_delegated_op = delegated


def event_blocks(dump, source, target):
    """Upstream's EventBlock._gen_from_etdump, reduced to printed fields:
    list of (block name, [Event])."""
    factor = UNITS[source] / UNITS[target]
    groups = {}
    for run in dump.get("run_data") or []:
        events = run.get("events")
        if events is None:
            continue
        instr = {}
        for ev in events:
            pe, de = ev.get("profile_event"), ev.get("debug_event")
            populated = pe if pe is not None else de
            if populated is None:
                raise ValueError("Unable to find populated event")
            key = (populated.get("instruction_id", -1),
                   populated.get("chain_index", 0),
                   populated.get("delegate_debug_id_int", -1),
                   populated.get("delegate_debug_id_str"))
            slot = instr.setdefault(key, {"profile": None, "debug": None})
            if pe is not None:
                slot["profile"] = (slot["profile"] or []) + [pe]
            elif not is_output(de.get("debug_entry")):
                slot["debug"] = (slot["debug"] or []) + [de]
        sigs = {}
        for slot in instr.values():
            if slot["profile"] is None and slot["debug"] is None:
                continue
            dsig = profile_sig(slot["debug"][0]) if slot["debug"] else None
            if slot["profile"] is None:
                sigs[(None, dsig)] = {"profile": None, "debug": slot["debug"]}
                continue
            for pe in slot["profile"]:
                sigs[(profile_sig(pe), dsig)] = {"profile": [pe],
                                                 "debug": slot["debug"]}
        run_key = (run.get("name"), tuple(sigs.keys()),
                   run.get("bundled_input_index", -1))
        group = groups.setdefault(run_key, {})
        for sig, inst in sigs.items():
            group.setdefault(sig, []).append(inst)

    blocks = []
    for (name, _, _), group in groups.items():
        out = []
        for (psig, dsig), instances in group.items():
            e = Event()
            e.apply_signature(psig)
            raw, starts, metas = [], [], []
            for inst in instances:
                if inst["profile"] is None:
                    continue
                p = inst["profile"][0]
                s, t = p.get("start_time", 0), p.get("end_time", 0)
                if e.is_delegated_op:
                    raw.append(elapsed(s / factor, t / factor))
                else:
                    raw.append(float(elapsed(s, t)) / factor)
                starts.append(s)
                m = p.get("delegate_debug_metadata")
                metas.append(bytes(m) if m else "")
            if raw:
                e.raw = raw
            if any(metas):
                e.metadatas = metas
            if starts:
                e.start_time = starts
            e.apply_signature(dsig)
            out.append(e)
        blocks.append((name, out))
    return blocks


# ------------------------------------------------------------ frames


def event_row(e, units):
    """Upstream's Event.asdict(_units), one DataFrame row."""
    def stat(fn):
        return fn(e.raw) if e.raw else None

    ops = e.op_types
    if len(ops) >= 5:
        ops = "['%s', '%s' ... '%s'] (%d total)" % (ops[0], ops[1], ops[-1],
                                                    len(ops))
    return pd.DataFrame({
        "event_name": e.name,
        "raw": [e.raw],
        "p10" + units: stat(lambda r: np.percentile(r, 10)),
        "p50" + units: stat(lambda r: np.percentile(r, 50)),
        "p90" + units: stat(lambda r: np.percentile(r, 90)),
        "avg" + units: stat(np.mean),
        "min" + units: stat(min),
        "max" + units: stat(max),
        "op_types": [ops],
        "delegate_debug_identifier": e.delegate_id,
        "stack_traces": [{}],
        "module_hierarchy": [{}],
        "is_delegated_op": e.is_delegated_op,
        "delegate_backend_name": e.backend,
        "debug_data": [[]],
        "start_time": [e.start_time],
    })


def block_frame(name, events, units, include_metadata):
    df = pd.concat([event_row(e, units) for e in events], ignore_index=True)
    df.insert(0, "event_block_name", np.asarray([name for _ in events]),
              allow_duplicates=True)
    if include_metadata:
        data = []
        for e in events:
            if e.metadatas:
                data.append(pd.Series([e.metadatas],
                                      index=["delegate_debug_metadata"]))
            else:
                data.append(pd.Series(dtype=object))
        if any(not d.empty for d in data):
            df = pd.concat([df, pd.DataFrame(data)], axis=1)
    return df


def prepared_frame(blocks, target, include_units, include_metadata):
    units = " (" + target + ")" if include_units else ""
    df = pd.concat([block_frame(n, evs, units, include_metadata)
                    for n, evs in blocks], ignore_index=True)
    df = df.drop(columns=EXCLUDED_COLUMNS)
    df = df[~df["event_name"].str.contains("OPERATOR_CALL")]
    df.reset_index(drop=True, inplace=True)
    return df, like_pandas_1_5(df, units)


def like_pandas_1_5(df, units):
    """The statistics of events without perf data are None.  pandas 1.5
    (Debian's, the one upstream's users ran) keeps them in object columns
    when the per-event frames also hold a bool column, as upstream's do:
    tabulate prints empty cells.  pandas 2 ignores those all-None cells
    when it concatenates and makes the columns float64 (NaN, "nan" in the
    table).  etkit prints empty cells, as tabulate does for None
    (docs/compatibility.md); under pandas >= 2 the oracle turns such NaN
    cells back into None.  Returns the number of columns converted."""
    if int(pd.__version__.split(".")[0]) < 2:
        return 0
    converted = 0
    for stat in ("p10", "p50", "p90", "avg", "min", "max"):
        col = stat + units
        if df[col].dtype != object and df[col].isna().any():
            df[col] = df[col].astype(object).where(df[col].notna(), None)
            converted += 1
    return converted


# ------------------------------------------------- documented deviations

BIDI = {0x061C, 0x200E, 0x200F} | set(range(0x202A, 0x202F)) | \
    set(range(0x2066, 0x206A))


def escape_controls(s):
    """etkit's table escapes control and bidi characters (deviation 1)."""
    out = []
    for ch in s:
        c = ord(ch)
        if c < 0x20 or 0x7F <= c <= 0x9F or c in (0x2028, 0x2029) or c in BIDI:
            if ch == "\t":
                out.append("\\t")
            elif ch == "\n":
                out.append("\\n")
            elif ch == "\r":
                out.append("\\r")
            elif c < 0x100:
                out.append("\\x%02x" % c)
            else:
                out.append("\\u%04x" % c)
        else:
            out.append(ch)
    return "".join(out)


def table_text(df):
    shown = df.copy()
    changed = 0
    for col in shown.columns:
        if shown[col].dtype != object:
            continue
        values = []
        for v in shown[col]:
            if isinstance(v, str):
                w = escape_controls(v)
                changed += w != v
                v = w
            values.append(v)
        shown[col] = pd.Series(values, index=shown.index, dtype=object)
    return tabulate(shown, headers="keys", tablefmt="fancy_grid") + "\n", changed


def delimited_text(df, sep):
    """df.to_csv(sep=sep), which etkit matches byte for byte (a bare '\\r'
    stays unquoted, as pandas writes it); the second value counts
    deviations and is always 0."""
    return df.to_csv(sep=sep), 0


# ------------------------------------------------------------ numbers


def number_samples(count):
    """Doubles that stress repr() and format(x, "g"): random bit patterns,
    short decimals at every scale, the layout boundaries (1e-4, 1e16 for
    repr; 1e-4, 1e6 for "g"), 7-digit values ending in 5 (ties for "g"),
    integers near 2**53, powers of two, subnormals, signed zeros, inf, nan."""
    rnd = random.Random(20240601)
    xs = [0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, 2.2250738585072014e-308,
          1.7976931348623157e308, 0.1, 0.2, 0.3, 1 / 3, 2 / 3]
    for e in range(-330, 310):
        for m in ("1", "9.999999", "9.9999995", "9.99999949", "1.0000005",
                  "5", "2.5", "1.234565", "1.2345650000000001", "9.5"):
            try:
                xs.append(float("%se%d" % (m, e)))
            except OverflowError:
                pass
    for k in range(-1074, 1024):
        xs.append(math.ldexp(1.0, k))
        xs.append(math.nextafter(math.ldexp(1.0, k), math.inf))
        xs.append(math.nextafter(math.ldexp(1.0, k), 0.0))
    for _ in range(count):
        kind = rnd.randrange(6)
        if kind == 0:
            x = struct.unpack("<d", struct.pack("<Q", rnd.getrandbits(64)))[0]
        elif kind == 1:  # short decimals: durations divided by a unit
            x = rnd.randrange(1, 10 ** rnd.randrange(1, 16)) / 10.0 ** rnd.randrange(0, 22)
        elif kind == 2:  # integers, as durations in ns -> ns give
            x = float(rnd.randrange(0, 2 ** rnd.randrange(1, 64)))
        elif kind == 3:  # ratios with long expansions
            x = rnd.randrange(1, 10 ** 9) / rnd.randrange(1, 10 ** 9) * 10.0 ** rnd.randrange(-12, 20)
        elif kind == 4:  # 7 significant digits, often ending in 5
            x = float("%d%de%d" % (rnd.randrange(100000, 1000000), rnd.choice((5, 5, 4, 6)),
                                   rnd.randrange(-30, 30)))
        else:  # a neighbour of a short decimal
            x = float("%de%d" % (rnd.randrange(1, 10 ** 6), rnd.randrange(-25, 25)))
            x = math.nextafter(x, rnd.choice((math.inf, -math.inf)))
        xs.append(-x if rnd.random() < 0.1 else x)
    return xs


def check_numbers(tool, count):
    """Compares etkit's repr/"g" texts of many doubles with Python's.
    Returns the number of mismatches (the first few are printed)."""
    xs = number_samples(count)
    data = "".join("%016x\n" % struct.unpack("<Q", struct.pack("<d", x))[0]
                   for x in xs)
    r = subprocess.run([tool], input=data.encode(), stdout=subprocess.PIPE,
                       check=True)
    lines = r.stdout.decode().split("\n")
    bad = 0
    for x, line in zip(xs, lines):
        want = "%r\t%s" % (x, format(x, "g"))
        if line != want:
            bad += 1
            if bad <= 10:
                print("FAIL number %r: etkit %r, Python %r" % (x, line, want))
    if len(lines) != len(xs) + 1:
        bad += 1
        print("FAIL numbers: %d lines for %d values" % (len(lines) - 1, len(xs)))
    print("oracle: %d doubles formatted, %d differences" % (len(xs), bad))
    return bad


# ------------------------------------------------------------ the cases

# name, file, options, (source, target) or None for the default ns -> ms
CASES = [
    ("digits", "digits.etdp", []),
    ("digits_us", "digits.etdp", ["--target_time_scale", "us"]),
    ("digits_s_no_units", "digits.etdp",
     ["--target_time_scale", "s", "--no-units"]),
    ("boundaries_ms", "boundaries.etdp", []),
    ("boundaries_us", "boundaries.etdp", ["--target_time_scale", "us"]),
    ("boundaries_s", "boundaries.etdp", ["--target_time_scale", "s"]),
    ("boundaries_ns", "boundaries.etdp", ["--target_time_scale", "ns"]),
    ("boundaries_s_to_ns", "boundaries.etdp",
     ["--source_time_scale", "s", "--target_time_scale", "ns"]),
    ("boundaries_ms_to_us", "boundaries.etdp",
     ["--source_time_scale", "ms", "--target_time_scale", "us"]),
    ("boundaries_cycles", "boundaries.etdp",
     ["--source_time_scale", "cycles", "--target_time_scale", "cycles"]),
    ("nan_mixed", "nan_mixed.etdp", []),
    ("nan_only", "nan_only.etdp", []),
    ("unicode", "unicode.etdp", []),
    ("hostile", "hostile.etdp", []),
    ("numeric_mixed", "numeric_mixed.etdp", []),
    ("numeric_floats", "numeric_floats.etdp", []),
    ("numeric_ints", "numeric_ints.etdp", []),
    ("numeric_bools", "numeric_bools.etdp", []),
    ("delegates", "delegates.etdp", []),
    ("delegates_metadata", "delegates.etdp",
     ["--include-delegate-debug-data", "--target_time_scale", "us"]),
    ("delegated_ids", "delegated_ids.etdp", []),
    ("block_names", "block_names.etdp", []),
    ("many_rows", "many_rows.etdp", ["--target_time_scale", "us"]),
    # etkit fixes upstream's wrap-around formula unless asked not to
    ("wrap", "wrap.etdp", ["--target_time_scale", "ns", "--upstream-quirks"]),
    ("op_types", "op_types.etdp", ["--etrecord_path", "op_types.etrecord"]),
    ("calibrated", "calibrated.etdp", []),
]


def option(args, name, default):
    return args[args.index(name) + 1] if name in args else default


def run_etkit(etkit, args, cwd):
    r = subprocess.run([etkit, "inspect"] + args, cwd=cwd,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise RuntimeError("etkit inspect %s: exit %d: %s" % (
            " ".join(args), r.returncode, r.stderr.decode(errors="replace")))
    return r.stdout.decode("utf-8")


def link_from_etkit(etkit, args, cwd, blocks):
    """Copies op types and backend names (ETRecord linking) from etkit's JSON
    events, checking that both sides agree on the events."""
    doc = json.loads(run_etkit(etkit, args + ["--format", "json"], cwd))
    flat = [e for _, evs in blocks for e in evs]
    if len(flat) != len(doc["events"]):
        raise RuntimeError("etkit JSON has %d events, flatc decoding %d" %
                           (len(doc["events"]), len(flat)))
    for e, j in zip(flat, doc["events"]):
        if e.name != j["event_name"]:
            raise RuntimeError("event %r vs etkit %r" % (e.name,
                                                         j["event_name"]))
        e.op_types = list(j["op_types"])
        e.backend = j["delegate_backend_name"]


def first_difference(a, b):
    la, lb = a.split("\n"), b.split("\n")
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return "line %d:\n  expected %r\n  etkit    %r" % (i + 1, x, y)
    return "line counts differ: expected %d, etkit %d" % (len(la), len(lb))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etkit", required=True)
    ap.add_argument("--make", required=True)
    ap.add_argument("--format-numbers", help="format_numbers helper")
    ap.add_argument("--numbers", type=int, default=200000,
                    help="random doubles to check (plus fixed ones)")
    ap.add_argument("--flatc", default="flatc")
    ap.add_argument("--schema", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--case", action="append", help="run only these cases")
    a = ap.parse_args()
    flatc = shutil.which(a.flatc) or (a.flatc if os.path.exists(a.flatc) else None)
    if not flatc:
        print("oracle: skipped (flatc not found)")
        return SKIP
    print("oracle: pandas %s, tabulate %s, numpy %s, python %s" % (
        pd.__version__, tabulate_module.__version__, np.__version__,
        sys.version.split()[0]))
    os.makedirs(a.workdir, exist_ok=True)
    subprocess.run([a.make, a.workdir], check=True)
    jsondir = os.path.join(a.workdir, "json")
    os.makedirs(jsondir, exist_ok=True)

    failures, deviations, checked = 0, {"table": 0, "tsv": 0, "pandas1": 0}, 0
    if a.format_numbers:
        failures += check_numbers(a.format_numbers, a.numbers)
    decoded = {}
    for name, file, opts in CASES:
        if a.case and name not in a.case:
            continue
        path = os.path.join(a.workdir, file)
        if file not in decoded:
            decoded[file] = decode(flatc, a.schema, path, jsondir)
        source = option(opts, "--source_time_scale", "ns")
        target = option(opts, "--target_time_scale", "ms")
        blocks = event_blocks(decoded[file], source, target)
        args = ["--etdump_path", file] + opts
        if "--etrecord_path" in opts:
            link_from_etkit(a.etkit, args, a.workdir, blocks)
        df, converted = prepared_frame(blocks, target, "--no-units" not in opts,
                                       "--include-delegate-debug-data" in opts)
        deviations["pandas1"] += converted

        expected_table, escaped = table_text(df)
        expected_tsv, quoted_tsv = delimited_text(df, "\t")
        expected_csv, quoted_csv = delimited_text(df, ",")
        deviations["table"] += escaped
        deviations["tsv"] += quoted_tsv + quoted_csv

        tsv_file = name + ".out.tsv"
        got_table = run_etkit(a.etkit, args + ["--tsv_path", tsv_file],
                              a.workdir)
        with open(os.path.join(a.workdir, tsv_file), encoding="utf-8",
                  newline="") as f:
            got_tsv_file = f.read()
        got = {
            "table": (expected_table, got_table),
            "tsv_path": (expected_tsv, got_tsv_file),
            "tsv": (expected_tsv, run_etkit(a.etkit, args + ["--format", "tsv"],
                                            a.workdir)),
            "csv": (expected_csv, run_etkit(a.etkit, args + ["--format", "csv"],
                                            a.workdir)),
        }
        for kind, (want, have) in got.items():
            checked += 1
            if want == have:
                continue
            failures += 1
            stem = os.path.join(a.workdir, "%s.%s" % (name, kind))
            with open(stem + ".expected", "w", encoding="utf-8",
                      newline="") as f:
                f.write(want)
            with open(stem + ".etkit", "w", encoding="utf-8", newline="") as f:
                f.write(have)
            print("FAIL %s (%s): %s\n  files: %s.expected / .etkit" % (
                name, kind, first_difference(want, have), stem))
    print("oracle: %d comparisons, %d differences; documented deviations "
          "applied: %d escaped table cells, %d TSV/CSV outputs with a quoted "
          "'\\r', %d statistics columns typed as pandas 1.5 does" % (
              checked, failures, deviations["table"], deviations["tsv"],
              deviations["pandas1"]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
