"""The CLI's comparison tables fit 120 columns by default on the demo's
files (an A/B of two runs of the demo program); --wide shows every column
and TSV keeps them all."""
import re
import subprocess

import pytest

WIDTH = 120


def width(text):
    return max(len(line) for line in text.splitlines())


def etkit(cli, *args, cwd=None):
    out = subprocess.run([cli, *args], capture_output=True, cwd=cwd)
    assert out.returncode == 0, out.stderr.decode()
    return out.stdout.decode("utf-8")


@pytest.fixture(scope="module")
def ab(cli, demo, tmp_path_factory):
    d = tmp_path_factory.mktemp("ab")
    etkit(cli, "run", str(demo / "model.pte"), "--debug-level", "intermediates",
          "--etdump", str(d / "b.etdp"), "--debug-buffer", str(d / "b.bin"))
    return {"a": str(demo / "etdump.etdp"), "a_buf": str(demo / "debug_buffer.bin"),
            "b": str(d / "b.etdp"), "b_buf": str(d / "b.bin"),
            "etrecord": str(demo / "model.etrecord")}


UNIT = r"\((ns|µs|ms|s)\)"
PER_MS = {"ns": 1e6, "µs": 1e3, "ms": 1.0, "s": 1e-3}


def unit(table, label):
    """The unit named in the header "label (unit)": the tables pick one
    readable unit per table from the figures, so a loaded machine may
    print the demo's µs figures in ms; the test checks that a unit is
    named, not which one."""
    m = re.search(re.escape(label) + " " + UNIT, table)
    assert m, f"no '{label} (unit)' header in:\n{table}"
    return m.group(1)


def test_diff_table_fits(cli, ab):
    table = etkit(cli, "diff", ab["a"], ab["b"])
    assert "operators:" in table and "native_call_" in table
    assert width(table) <= WIDTH
    wide = etkit(cli, "diff", ab["a"], ab["b"], "--wide")
    assert width(wide) > WIDTH
    assert "avg A" in wide and "p50 A" in wide and "avg A" not in table
    # whole names only in the wide table; a cut one ends in an ellipsis
    assert "native_call_max_pool2d_with_indices.out" in wide
    assert "native_call_max_pool2d_with\u2026" in table
    tsv = etkit(cli, "diff", ab["a"], ab["b"], "--format", "tsv")
    header = tsv.splitlines()[0].split("\t")
    assert "avg_a (ms)" in header and "p50_a (ms)" in header and len(header) == 18


def test_numerics_table_fits(cli, ab):
    args = ["numerics", ab["a"], "--debug_buffer_path", ab["a_buf"], ab["b"],
            "--against-debug-buffer", ab["b_buf"], "--etrecord_path", ab["etrecord"]]
    table = etkit(cli, *args)
    assert "native_call_" in table and "snr (dB)" in table
    assert width(table) <= WIDTH
    wide = etkit(cli, *args, "--wide")
    assert width(wide) > WIDTH
    for column in ("delegate_debug_id", "op_types", "dtype", "mse"):
        assert column in wide and column not in table
    assert "native_call_max_pool2d_with_indices.out" in wide
    tsv = etkit(cli, *args, "--format", "tsv")
    assert len(tsv.splitlines()[0].split("\t")) == 13


def test_store_compare_table_fits(cli, ab, tmp_path):
    db = str(tmp_path / "runs.db")
    etkit(cli, "store", "add", db, ab["a"], "--tag", "v=a")
    etkit(cli, "store", "add", db, ab["b"], "--tag", "v=b")
    table = etkit(cli, "store", "compare", db, "--baseline", "v=a", "--candidate", "v=b",
                  "--threshold", "0")
    assert "native_call_" in table or "...max_pool2d" in table
    assert width(table) <= WIDTH
    # the store keeps milliseconds; a table shows the demo's µs figures in
    # µs with the unit in the header, CSV keeps the raw milliseconds
    assert unit(table, "base") == unit(table, "cand") and "base ms" not in table
    trend = etkit(cli, "store", "trend", db, "--op", "native_call_addmm.out")
    u = unit(trend, "median")
    assert unit(trend, "per exec") == u and unit(trend, "p99") == u
    assert width(trend) <= WIDTH and "exact" in trend
    wide = etkit(cli, "store", "trend", db, "--op", "native_call_addmm.out", "--wide")
    assert width(wide) > WIDTH and unit(wide, "per_execution") and "from" in wide
    wide_cmp = etkit(cli, "store", "compare", db, "--baseline", "v=a", "--candidate", "v=b",
                     "--wide")
    assert width(wide_cmp) > WIDTH and "p_value" in wide_cmp and unit(wide_cmp, "baseline")
    csv = etkit(cli, "store", "trend", db, "--op", "native_call_addmm.out", "--format", "csv")
    assert csv.splitlines()[0].split(",")[4] == "median"
    row = [ln for ln in trend.splitlines() if ln.startswith("│     1 ")][0]
    median_ms = float(csv.splitlines()[1].split(",")[4])
    shown = float(row.split("│")[5])
    want = median_ms * PER_MS[u]
    assert abs(shown - want) <= 0.005 * want, (shown, median_ms, u)
    assert unit(etkit(cli, "store", "show", db, "1"), "median")


def test_diff_of_sets_table_fits(cli, ab):
    # several dumps per side: medians, interval and q in 120 columns, the
    # OPERATOR_CALL wrappers hidden as the two-dump diff hides them
    args = ["diff", ab["a"], ab["a"], "--vs", ab["b"], ab["b"]]
    table = etkit(cli, *args)
    assert "95 % CI" in table and "native_call_" in table
    assert width(table) <= WIDTH
    assert "OPERATOR_CALL" not in table.split("╛")[0]
    assert "wrapper row(s) hidden (--all-rows shows them)" in table
    assert "native_call_max_pool2d\u2026" in table  # cut as diff cuts names
    # durations in one unit named in the header (the demo's are µs)
    assert unit(table, "A") == unit(table, "B")
    wide = etkit(cli, *args, "--wide")
    assert width(wide) > WIDTH and "native_call_max_pool2d_with_indices.out" in wide
    assert "baseline_samples" in wide and "baseline_samples" not in table
    every = etkit(cli, *args, "--all-rows", "--format", "csv")
    assert ",OPERATOR_CALL," in every
    csv = etkit(cli, *args, "--format", "csv")
    assert ",OPERATOR_CALL," not in csv
    assert len(csv.splitlines()[0].split(",")) == 16



def test_store_runs_and_show_tables_fit(cli, ab, tmp_path):
    db = str(tmp_path / "runs.db")
    long_model = "a-model-name-much-longer-than-any-column-should-be"
    etkit(cli, "store", "add", db, ab["a"], "--etrecord", ab["etrecord"], "--tag",
          f"model={long_model}", "--tag", "device=a-board-with-a-long-device-name",
          "--tag", "commit=0123456789abcdef0123456789abcdef", "--tag",
          "notes=several-words-of-free-text-in-a-tag", "--tag", "branch=main")
    etkit(cli, "store", "add", db, ab["b"], "--etrecord", ab["etrecord"], "--tag", "v=b")
    runs = etkit(cli, "store", "runs", db)
    assert width(runs) <= WIDTH
    assert "\u2026" in runs and long_model not in runs  # cut with an ellipsis
    assert " ops " in runs.splitlines()[1] and " operators " not in runs
    wide = etkit(cli, "store", "runs", db, "--wide")
    assert width(wide) > WIDTH
    assert long_model in wide and "run_time" in wide and "branch" in wide
    assert "run_time" not in runs and "branch" not in runs
    csv = etkit(cli, "store", "runs", db, "--format", "csv")
    assert long_model in csv and "run_time" in csv.splitlines()[0]
    show = etkit(cli, "store", "show", db, "1")
    assert width(show) <= WIDTH
    assert "iid" in show and unit(show, "median") and "op_type" not in show
    assert "native_call_" in show
    show_wide = etkit(cli, "store", "show", db, "1", "--wide")
    assert width(show_wide) > WIDTH
    assert "instruction_id" in show_wide and "op_type" in show_wide
    assert "native_call_max_pool2d_with_indices.out" in show_wide
    # each operator of the wide table is in the narrow one, whole or cut
    names = [ln.split("│")[2].strip() for ln in show_wide.splitlines() if ln.startswith("│ Ex")]
    cut = [ln.split("│")[2].strip() for ln in show.splitlines() if ln.startswith("│ Ex")]
    assert len(names) == len(cut) and names
    for whole, shown in zip(names, cut):
        assert shown == whole or (shown.endswith("\u2026") and whole.startswith(shown[:-1]))


def test_store_latency_table_fits(cli, demo, tmp_path):
    db = str(tmp_path / "runs.db")
    for k in (1, 2):
        f = str(tmp_path / f"s{k}.etdp")
        etkit(cli, "run", str(demo / "model.pte"), "--iterations", "20",
              "--profile-mode", "stats", "--etdump", f)
        etkit(cli, "store", "add", db, f, "--tag", f"k={k}")
    table = etkit(cli, "store", "latency", db)
    assert width(table) <= WIDTH
    u = unit(table, "p50")
    assert unit(table, "p99") == u and unit(table, "max") == u
    assert " iid " in table and " bound " in table and "p99.9" not in table
    assert "native_call_convolu" in table  # a name cut with an ellipsis if need be
    wide = etkit(cli, "store", "latency", db, "--wide")
    assert width(wide) > WIDTH and "p99.9" in wide and "native_call_max_pool2d_with_indices.out" in wide
    csv = etkit(cli, "store", "latency", db, "--format", "csv").splitlines()
    assert csv[0].startswith("name,instruction_id,runs,count,min,p10,p50")
    counts = [int(r.split(",")[3]) for r in csv[1:] if r.startswith("native_call_relu.out,")]
    assert counts == [40]  # 20 runs of each stored dump, merged
    # a selection without sketches is one line and exit 1, never an empty table
    for args in (["--op", "nothing"], ["--where", "k=9"]):
        out = subprocess.run([cli, "store", "latency", db, *args], capture_output=True, text=True)
        assert out.returncode == 1 and out.stdout == "", (args, out)
        assert len(out.stderr.splitlines()) == 1 and "no selected run holds latency sketches" in out.stderr
