"""etkit additions on the same objects, etkit.run, and the user script of
the issue end to end."""
import io
import json
import os
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest

import etkit
from conftest import quiet_inspector, run_cli


USER_SCRIPT = """
import sys, warnings
warnings.simplefilter("ignore")
from etkit import Inspector
ins = Inspector(etrecord=sys.argv[1], etdump_path=sys.argv[2])
ins.print_data_tabular(include_delegate_debug_data=True, include_units=False)
with open(sys.argv[3], "w", encoding="utf-8") as f:
    ins.save_data_to_tsv(f)
for block in ins.event_blocks:
    for event in block.events:
        if event.name == "Method::execute":
            print(event.perf_data.raw)
"""


def test_user_script_end_to_end(fixtures, cli, tmp_path):
    """The issue's script, import line changed, in a fresh interpreter."""
    import subprocess
    import sys

    etdump = os.path.join(fixtures, "appendix_d.etdp")
    record = os.path.join(fixtures, "appendix_d.etrecord")
    out = subprocess.run([sys.executable, "-c", USER_SCRIPT, record, etdump,
                          str(tmp_path / "model.csv")],
                         capture_output=True, text=True, check=True).stdout
    table = run_cli(cli, "--etdump_path", etdump, "--etrecord_path", record,
                    "--include-delegate-debug-data", "--no-units").decode()
    assert out.startswith(table)
    ins = quiet_inspector(etdump_path=etdump, etrecord=record)
    raws = [e.perf_data.raw for b in ins.event_blocks for e in b.events
            if e.name == "Method::execute"]
    assert raws and out[len(table):] == "".join(f"{r}\n" for r in raws)
    run_cli(cli, "--etdump_path", etdump, "--etrecord_path", record,
            "--tsv_path", str(tmp_path / "cli.tsv"), "--output", os.devnull)
    assert (tmp_path / "model.csv").read_bytes() == (tmp_path / "cli.tsv").read_bytes()


def test_op_summary_equals_cli(fixtures, cli):
    path = os.path.join(fixtures, "delegates.etdp")
    df = quiet_inspector(etdump_path=path).op_summary()
    text = run_cli(cli, "--etdump_path", path, "--summary", "--format", "tsv").decode()
    want = pd.read_csv(io.StringIO(text), sep="\t", index_col=0)
    pd.testing.assert_frame_equal(df, want)
    assert "op_type" in df.columns and len(df) > 0


@pytest.mark.parametrize("name", ["appendix_b.etdp", "delegates.etdp", "wrap.etdp"])
def test_save_trace_equals_cli(fixtures, cli, tmp_path, name):
    path = os.path.join(fixtures, name)
    quiet_inspector(etdump_path=path).save_trace(str(tmp_path / "py.json"))
    out = subprocess.run([cli, "trace", "--etdump_path", path, "-o",
                          str(tmp_path / "cli.json")], capture_output=True)
    assert out.returncode == 0, out.stderr.decode()
    py = (tmp_path / "py.json").read_bytes()
    assert py == (tmp_path / "cli.json").read_bytes()
    doc = json.loads(py)
    slices = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
    assert slices


def test_diff(fixtures, cli):
    """Two different dumps: the frame equals `etkit diff`'s TSV cell for
    cell (no fillna: an empty cell is NaN on both sides), and the deltas
    are B - A of the two Inspectors' own per-operator figures."""
    pa = os.path.join(fixtures, "appendix_b.etdp")
    pb = os.path.join(fixtures, "delegates.etdp")
    a, b = quiet_inspector(etdump_path=pa), quiet_inspector(etdump_path=pb)
    df = etkit.diff(a, b)
    out = subprocess.run([cli, "diff", pa, pb, "--format", "tsv", "--metric", "avg"],
                         capture_output=True)
    assert out.returncode == 0, out.stderr.decode()
    want = pd.read_csv(io.StringIO(out.stdout.decode()), sep="\t",
                       keep_default_na=False, na_values=[""])
    pd.testing.assert_frame_equal(df, want)
    delta = [c for c in df.columns if c.startswith("delta")][0]
    assert df[delta].notna().any() and (df[delta].dropna() != 0).any()
    # independently: a matched operator's values are each side's own avg
    # (to_dataframe), its delta their difference
    ops = df[(df["kind"] == "operator") & (df["match"] == "exact")]
    assert len(ops)
    fa, fb = a.to_dataframe(), b.to_dataframe()
    for _, row in ops.iterrows():
        va = [c for c in df.columns if c.startswith("avg_a")][0]
        vb = [c for c in df.columns if c.startswith("avg_b")][0]
        mine_a = fa[(fa.event_block_name == row["block"]) & (fa.event_name == row["event"])]
        mine_b = fb[(fb.event_block_name == row["block"])
                    & (fb.event_name == (row["event_b"] if isinstance(row["event_b"], str)
                                         else row["event"]))]
        assert np.isclose(row[va], mine_a["avg (ms)"].iloc[0])
        assert np.isclose(row[vb], mine_b["avg (ms)"].iloc[0])
        assert np.isclose(row[delta], row[vb] - row[va])
    with pytest.raises(TypeError):
        etkit.diff(a, 3)  # paths are taken (test_cli_parity), numbers not


def test_repr_html(fixtures):
    html = quiet_inspector(etdump_path=os.path.join(fixtures, "appendix_b.etdp"))._repr_html_()
    assert html.startswith("<div>") and "event_block_name" in html


def test_run_closes_the_loop(conformance):
    pte = os.path.join(conformance, "add.pte")
    a = np.array([2.0], dtype=np.float32)
    b = np.array([3.5], dtype=np.float32)
    r = etkit.run(pte, [a, b], iterations=4, debug_level="intermediates")
    assert r.dropped == 0
    np.testing.assert_array_equal(r.outputs[0], a + b)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a debug buffer is given: no warning
        ins = etkit.Inspector(etdump_data=r.etdump, debug_buffer=r.debug_buffer)
    execute = [blk for blk in ins.event_blocks if blk.name == "Execute"]
    assert execute
    ev = next(e for e in execute[0].events if e.name == "Method::execute")
    assert len(ev.perf_data.raw) == 4
    logged = [v for e in execute[0].events for v in e.debug_data]
    assert any(isinstance(v, np.ndarray) and np.array_equal(v, a + b) for v in logged)
    assert execute[0].run_output == [] or np.array_equal(execute[0].run_output[0], a + b)


def test_run_errors(conformance):
    pte = os.path.join(conformance, "add.pte")
    with pytest.raises(ValueError, match="takes 2 inputs"):
        etkit.run(pte, [np.zeros(1, np.float32)])
    with pytest.raises(ValueError):
        etkit.run(pte, [np.zeros(1, np.float32)] * 2, debug_level="everything")
    with pytest.raises(FileNotFoundError):
        etkit.run("/nonexistent.pte", [])
    with pytest.raises(ValueError):
        etkit.run(pte, [np.zeros((7, 7), np.float32)] * 2)


def test_compare_results_needs_references(fixtures):
    ins = quiet_inspector(etdump_path=os.path.join(fixtures, "appendix_c.etdp"))
    with pytest.raises(ValueError, match="reference outputs"):
        ins.compare_results()


def test_calculate_numeric_gap_errors(fixtures):
    ins = quiet_inspector(etdump_path=os.path.join(fixtures, "appendix_b.etdp"))
    with pytest.raises(ValueError):
        ins.calculate_numeric_gap("cosine-ish")
    with pytest.raises(ValueError, match="ETRecord"):
        ins.calculate_numeric_gap("MSE")


def test_compare_results_equals_cli(numerics_fixtures, source_dir, cli):
    f = numerics_fixtures
    ins = quiet_inspector(etdump_path=os.path.join(f, "compare.etdp"),
                          etrecord=os.path.join(f, "compare.etrecord"),
                          debug_buffer_path=os.path.join(f, "compare.bin"))
    df = ins.compare_results()
    golden = os.path.join(source_dir, "tests/numerics/golden/compare_results.stdout")
    with open(golden) as g:
        text = g.read()
    assert text.endswith(df.attrs["text"])
    assert list(df.columns) == ["event_block", "output", "snr", "mse", "cosine_similarity"]
    # every value of the table is printed in the text, in order
    for metric in ("snr", "mse", "cosine_similarity"):
        for v in df[metric]:
            assert f"{v:>8.5f}" in df.attrs["text"]


def test_reference_output_per_block(numerics_fixtures):
    f = numerics_fixtures
    ins = quiet_inspector(etdump_path=os.path.join(f, "compare.etdp"),
                          etrecord=os.path.join(f, "compare.etrecord"),
                          debug_buffer_path=os.path.join(f, "compare.bin"))
    cases = ins._reference_outputs["forward"]
    assert len(cases) >= 2
    for b in ins.event_blocks:
        want = cases[b.bundled_input_index]  # -1: the last case, as upstream
        assert len(b.reference_output) == len(want)
        for x, y in zip(b.reference_output, want):
            np.testing.assert_array_equal(x, y)
    assert isinstance(ins.event_blocks[0].run_output[0], np.ndarray)
