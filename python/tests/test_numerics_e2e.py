"""calculate_numeric_gap end to end on the files `etkit demo` writes: the
ETRecord carries the graph, its weights and the input the demo ran, so the
interpreter's outputs equal the runtime's (gaps 0); a divergence planted in
one runtime value is found at its node; upstream's debugging tutorial
(steps 1, 4 and 5: import changed only) runs; the ETRecord object has
upstream's attributes."""

import io
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import etkit
from etkit import Inspector

COLUMNS = ["aot_debug_handle", "aot_ops", "aot_intermediate_output", "runtime_ops",
           "runtime_debug_handle", "runtime_intermediate_output", "gap", "stacktraces"]
NODES = ["aten_convolution_default", "aten_relu_default", "aten_max_pool2d_default",
         "aten_convolution_default_1", "aten_relu_default_1", "aten_max_pool2d_default_1",
         "aten_permute_copy_default", "aten_view_copy_default", "aten_addmm_default"]


@pytest.fixture(scope="module")
def demo(cli, tmp_path_factory):
    out = tmp_path_factory.mktemp("demo") / "etkit-demo"
    subprocess.run([cli, "demo", "--output-dir", str(out), "--runs", "1"], check=True,
                   capture_output=True)
    return {"etdump": str(out / "etdump.etdp"), "etrecord": str(out / "model.etrecord"),
            "buffer": str(out / "debug_buffer.bin"), "dir": out}


def inspector(demo, etrecord=None):
    return Inspector(etdump_path=demo["etdump"], etrecord=etrecord or demo["etrecord"],
                     debug_buffer_path=demo["buffer"])


def test_demo_gaps_are_zero(demo):
    df = inspector(demo).calculate_numeric_gap("MSE")
    assert list(df.columns) == COLUMNS
    assert [ops[0] for ops in df["aot_ops"]] == NODES
    assert [h for h in df["aot_debug_handle"]] == [(k,) for k in range(1, 10)]
    assert all(g == [0.0] for g in df["gap"])
    assert df.iloc[3]["runtime_ops"] == ["convolution #0"]
    out = df.iloc[-1]["aot_intermediate_output"]
    ref = etkit.parse_etrecord(demo["etrecord"])._reference_outputs["forward"][0][0]
    np.testing.assert_array_equal(out, ref)
    assert "self.conv1(x)" in df.iloc[0]["stacktraces"]["aten_convolution_default"]
    snr = inspector(demo).calculate_numeric_gap("snr")
    assert all(g == [float("inf")] for g in snr["gap"])


def test_planted_divergence_is_found_at_its_node(demo):
    insp = inspector(demo)
    planted = 0
    for block in insp.event_blocks:
        for ev in block.events:
            if ev.debug_handles in (5, [5]) and ev.debug_data:
                ev.debug_data = [ev.debug_data[0] + np.float32(0.5)]
                planted += 1
    assert planted == 1
    df = insp.calculate_numeric_gap("MSE")
    gaps = [g[0] for g in df["gap"]]
    first = next(i for i, g in enumerate(gaps) if g > 1e-6)
    assert df.iloc[first]["aot_ops"] == ["aten_relu_default_1"]
    assert gaps[first] == pytest.approx(0.25)
    assert sum(g > 0 for g in gaps) == 1


def test_representative_inputs_update_and_save(demo, tmp_path):
    rec = etkit.parse_etrecord(demo["etrecord"])
    x = rec._representative_inputs[0]
    assert x.shape == (1, 1, 8, 8) and x.dtype == np.float32
    assert rec.exported_program is None
    assert rec.edge_dialect_program is not None
    assert rec.graph_map == {}
    assert rec._debug_handle_map["forward"]["3"] == [4, 5]
    assert rec._delegate_map["forward"]["3"]["name"] == "EtkitMicroBackend"
    # upstream's tutorial step 1: update the inputs, save, inspect
    rec.update_representative_inputs([x * 2])
    path = str(tmp_path / "etrecord.bin")
    rec.save(path)
    again = etkit.parse_etrecord(path)
    np.testing.assert_array_equal(again._representative_inputs[0], x * 2)
    df = inspector(demo, path).calculate_numeric_gap("MSE")
    assert df.iloc[0]["gap"][0] > 0  # the runtime ran on x, the graph on 2x


def test_upstream_tutorial_steps_4_and_5(demo, capsys):
    etdump_path, etrecord_path = demo["etdump"], demo["etrecord"]
    debug_buffer_path = demo["buffer"]
    # --- upstream's code, import changed only ---
    inspector = Inspector(
        etdump_path=etdump_path,
        etrecord=etrecord_path,
        debug_buffer_path=debug_buffer_path,
    )

    pd.set_option("display.width", 100000)
    pd.set_option("display.max_columns", None)

    # Calculate numerical gap using Mean Squared Error
    df: pd.DataFrame = inspector.calculate_numeric_gap("MSE")
    print(df)
    df_sorted = df.sort_values(by="gap", ascending=False, key=lambda x: x.apply(lambda y: y[0] if isinstance(y, list) else y))

    print("Top 5 operators with largest numerical discrepancies:")
    print(df_sorted.head(5))

    # Filter for operators with gap above a threshold
    threshold = 1e-4
    problematic_ops = df[df["gap"].apply(lambda x: x[0] > threshold if isinstance(x, list) else x > threshold)]
    print(f"\nOperators with MSE > {threshold}:")
    print(problematic_ops)

    # Use stacktraces to find the source location of problematic operators
    for idx, row in problematic_ops.iterrows():
        print(f"\n--- Operator {idx} ---")
        print(f"Operators: {row['aot_ops']}")
        print(f"Gap: {row['gap']}")
        print("Stack traces:")
        for op_name, trace in row['stacktraces'].items():
            if trace:
                print(f"  {op_name}:")
                # Print first few lines of stack trace
                for line in trace.split('\n')[:3]:
                    print(f"    {line}")
    # --- end of upstream's code ---
    out = capsys.readouterr().out
    assert "Top 5 operators with largest numerical discrepancies:" in out
    assert "aten_addmm_default" in out
    assert len(problematic_ops) == 0


def test_reference_graph_names(demo):
    insp = inspector(demo)
    assert len(insp.calculate_numeric_gap("L1", reference_graph="edge_dialect_exported_program")) == 9
    with pytest.raises(ValueError, match="not found"):
        insp.calculate_numeric_gap("L1", reference_graph="edge_after_transform")


def test_compare_results_free_function(capsys):
    a = np.array([1.0, 2.0, 3.0], np.float32)
    res = etkit.compare_results([a], [a * 1.1])
    assert set(res) == {"snr", "mse", "cosine_similarity"}
    assert res["cosine_similarity"] == [1.0]
    assert res["mse"] == [round(float(np.mean(np.square(a - a * np.float32(1.1)))), 2)]
    assert "snr\n--------------------\n0    " in capsys.readouterr().out
    assert etkit.compare_results([a], [a], metrics=["mse"]) == {"mse": [0.0]}


def test_op_graph_dict_and_reference_graph_name(demo):
    insp = inspector(demo)
    assert list(insp.op_graph_dict) == ["edge_dialect_graph_module"]
    assert len(insp.op_graph_dict["edge_dialect_graph_module"].nodes) == 9
    with pytest.raises(KeyError):
        Inspector(etdump_path=demo["etdump"], etrecord=demo["etrecord"],
                  debug_buffer_path=demo["buffer"], reference_graph_name="nope")


def test_reference_graph_name_selects_the_linked_graph(demo, conformance):
    """upstream's _consume_etrecord: the events' op types, stack traces and
    modules come from op_graph_dict[reference_graph_name]'s nodes with
    their debug handles; calculate_numeric_gap pairs only events that have
    op types.  The demo's record gets a graph_map entry: the toy record's
    edge program, one aten.mul.Tensor node with debug handle 2."""
    toy = etkit.parse_etrecord(os.path.join(conformance, "etrecord_toy_mul.bin"))
    rec = etkit.parse_etrecord(demo["etrecord"])
    rec.graph_map = {"toy": toy.edge_dialect_program}

    def linked(name):
        insp = Inspector(etdump_path=demo["etdump"], etrecord=rec,
                         debug_buffer_path=demo["buffer"], reference_graph_name=name)
        return insp, [(e.name, e.debug_handles, e.op_types, list(e.stack_traces))
                      for b in insp.event_blocks for e in b.events if e.op_types]

    insp, edge = linked("edge_dialect_graph_module")
    assert list(insp.op_graph_dict) == ["toy/forward", "edge_dialect_graph_module"]
    assert ("native_call_relu.out", 2, ["aten.relu.default"],
            ["aten_relu_default_"]) in edge
    assert len(insp.calculate_numeric_gap("MSE")) == 9
    insp, toy_linked = linked("toy/forward")
    assert toy_linked == [
        ("native_call_relu.out", 2, ["aten.mul.Tensor"], ["aten_mul_tensor_"]),
        ("OPERATOR_CALL", 2, ["aten.mul.Tensor"], ["aten_mul_tensor_"])]
    ev = [e for b in insp.event_blocks for e in b.events if e.op_types][0]
    assert "model.py" in ev.stack_traces["aten_mul_tensor_"]
    # the debug handles are still the record's maps'
    assert any(e.debug_handles == 9 for b in insp.event_blocks for e in b.events)
    df = insp.calculate_numeric_gap("MSE")
    assert [h for h in df["aot_debug_handle"]] == [(2,)]
    assert list(df["runtime_ops"]) == [["native_call_relu.out"]]
    # upstream's op_graph_dict[name]: the graph_map key, "/forward" included
    with pytest.raises(KeyError, match="toy"):
        Inspector(etdump_path=demo["etdump"], etrecord=rec,
                  debug_buffer_path=demo["buffer"], reference_graph_name="toy")


def test_reference_graph_on_the_command_line(demo, conformance, cli, tmp_path):
    """etkit inspect / numerics --reference-graph: the same linking."""
    toy = etkit.parse_etrecord(os.path.join(conformance, "etrecord_toy_mul.bin"))
    rec = etkit.parse_etrecord(demo["etrecord"])
    rec.graph_map = {"toy": toy.edge_dialect_program}
    path = str(tmp_path / "two.etrecord")
    rec.save(path)
    files = ["--etdump_path", demo["etdump"], "--etrecord_path", path]

    def run(*args):
        return subprocess.run([cli, *args], capture_output=True, text=True)

    def op_types(*extra):
        out = run("inspect", *files, "--format", "tsv", *extra)
        assert out.returncode == 0, out.stderr
        df = pd.read_csv(io.StringIO(out.stdout), sep="\t")
        return [(n, t) for n, t in zip(df["event_name"], df["op_types"]) if t != "[]"]

    assert ("native_call_relu.out", "['aten.relu.default']") in op_types()
    assert len(op_types()) == len(op_types("--reference-graph", "edge_dialect_graph_module")) > 2
    assert op_types("--reference-graph", "toy") == [
        ("native_call_relu.out", "['aten.mul.Tensor']")]
    assert op_types("--reference-graph", "toy/forward") == op_types("--reference-graph", "toy")
    bad = run("inspect", *files, "--reference-graph", "nope")
    assert bad.returncode != 0 and bad.stdout == ""
    assert bad.stderr.strip().splitlines() == [
        f"etkit inspect: {path}: reference graph 'nope' is not in the ETRecord "
        "(graphs: edge_dialect_graph_module, toy/forward)"]
    gap = run("numerics", *files, "--debug_buffer_path", demo["buffer"], "--gap", "mse",
              "--format", "csv", "--reference-graph", "toy")
    assert gap.returncode == 0, gap.stderr
    rows = list(pd.read_csv(io.StringIO(gap.stdout))["debug_handle"])
    assert rows == [2]
    # trace and report link the same way
    import json

    def trace_ops(*extra):
        out_path = str(tmp_path / "t.json")
        out = run("trace", demo["etdump"], "--etrecord", path, "-o", out_path, *extra)
        assert out.returncode == 0, out.stderr
        with open(out_path) as f:
            events = json.load(f)["traceEvents"]
        return sorted({str(e.get("args", {}).get("op_types")) for e in events
                       if e.get("name") == "native_call_relu.out"})

    assert "aten.mul.Tensor" in str(trace_ops("--reference-graph", "toy"))
    assert "aten.mul.Tensor" not in str(trace_ops())
    for cmd in (["trace", demo["etdump"], "--etrecord", path],
                ["report", "--etdump_path", demo["etdump"], "--etrecord_path", path]):
        bad = run(*cmd, "--reference-graph", "nope", "-o", str(tmp_path / "x.out"))
        assert bad.returncode == 1 and "reference graph 'nope' is not in the ETRecord" in bad.stderr
        assert not os.path.exists(tmp_path / "x.out")
    alone = run("trace", demo["etdump"], "--reference-graph", "toy", "-o", str(tmp_path / "y"))
    assert alone.returncode == 2 and "--reference-graph needs --etrecord" in alone.stderr
    ok = run("report", "--etdump_path", demo["etdump"], "--etrecord_path", path,
             "--reference-graph", "toy", "-o", str(tmp_path / "r.html"))
    assert ok.returncode == 0, ok.stderr


def test_event_block_edits_reach_the_tables(demo, tmp_path):
    import io

    insp = inspector(demo)
    full = insp.to_dataframe()
    # rename a block, keep only its operator events, drop the other block
    execute = [b for b in insp.event_blocks if b.name == "Execute"][0]
    execute.name = "Renamed"
    execute.events = [e for e in execute.events if e.name.startswith("native_call")]
    insp.event_blocks = [execute]
    df = insp.to_dataframe()
    assert set(df["event_block_name"]) == {"Renamed"}
    assert len(df) == len(execute.events) < len(full)
    assert all(n.startswith("native_call") for n in df["event_name"])
    tsv = io.StringIO()
    insp.save_data_to_tsv(tsv)
    assert "Renamed" in tsv.getvalue() and "OPERATOR_CALL" not in tsv.getvalue()
    text = io.StringIO()
    insp.print_data_tabular(text)
    assert "Renamed" in text.getvalue() and "Method::execute" not in text.getvalue()
    # an assigned field of one event reaches the frame too
    insp2 = inspector(demo)
    ev = insp2.event_blocks[1].events[2]
    ev.name = "edited_name"
    assert "edited_name" in list(insp2.to_dataframe()["event_name"])
    # untouched inspectors keep the C tables
    assert inspector(demo)._pristine()


def _traced(demo, name, **kw):
    res = etkit.run(str(demo["dir"] / "model.pte"), **kw)
    etdump, buf = demo["dir"] / f"{name}.etdp", demo["dir"] / f"{name}.bin"
    etdump.write_bytes(res.etdump)
    buf.write_bytes(res.debug_buffer or b"")
    return Inspector(etdump_path=str(etdump), etrecord=demo["etrecord"],
                     debug_buffer_path=str(buf))


def test_a_run_without_intermediate_outputs_says_so(demo):
    insp = _traced(demo, "outputs_only", debug_level="outputs")
    with pytest.raises(ValueError, match="logged no intermediate outputs .*"
                                         "debug_level='intermediates'"):
        insp.calculate_numeric_gap("MSE")


def test_a_run_on_ones_warns_and_inputs_from_fixes_it(demo, recwarn):
    import warnings

    ones = _traced(demo, "ones", debug_level="intermediates")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        df = ones.calculate_numeric_gap("MSE")
    texts = [str(w.message) for w in seen]
    assert any("all-ones inputs" in t and "inputs_from=etrecord" in t for t in texts), texts
    assert (df["gap"].apply(lambda g: g[0]) > 1e-6).all()
    rec = etkit.parse_etrecord(demo["etrecord"])
    for source in (rec, demo["etrecord"]):
        fixed = _traced(demo, "rep", debug_level="intermediates", inputs_from=source)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            df = fixed.calculate_numeric_gap("MSE")
        assert not [w for w in seen if "all-ones" in str(w.message)]
        assert (df["gap"].apply(lambda g: g[0]) == 0).all() and len(df) == 9
    with pytest.raises(ValueError, match="choose one"):
        etkit.run(str(demo["dir"] / "model.pte"), inputs=[np.ones((1, 1, 8, 8))],
                  inputs_from=rec)


def test_falling_back_is_a_warning_not_a_log_line(demo, caplog):
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        inspector(demo).calculate_numeric_gap("MSE")
    assert any("Falling back to 'edge_dialect_exported_program'" in str(w.message)
               and w.category is UserWarning for w in seen)
    assert "Falling back" not in caplog.text


def test_falling_back_is_shown_once_per_call_site(demo):
    # Python's own registry forgets what it showed whenever a filter
    # changes (pandas changes filters inside DataFrame calls), so the
    # reminder came back on every call; a fresh interpreter keeps the
    # default filters
    script = (
        "import etkit, sys\n"
        "i = etkit.Inspector(etdump_path=sys.argv[1], etrecord=sys.argv[2],\n"
        "                    debug_buffer_path=sys.argv[3])\n"
        "for _ in range(3):\n"
        "    i.calculate_numeric_gap('MSE')\n"
        "i.calculate_numeric_gap('MSE')\n")
    args = [demo["etdump"], demo["etrecord"], demo["buffer"]]

    def shown(*flags):
        res = subprocess.run([sys.executable, *flags, "-c", script, *args],
                             capture_output=True, text=True, check=True)
        return res.stderr.count("Falling back to 'edge_dialect_exported_program'")

    assert shown() == 2  # the loop's line once, the last line once
    assert shown("-W", "always::UserWarning") == 4
    assert shown("-W", "ignore::UserWarning") == 0


def test_channels_last_values_are_read_through_their_strides(cli, kws_model, tmp_path):
    # the KWS model's activations are channels-last: the ETDump records
    # their strides, debug_data (as upstream's) lays the bytes out in the
    # shape's order, so the gap compared permuted values (MSE in the
    # thousands on int8 codes) where `etkit numerics --gap` finds 0
    subprocess.run([kws_model, str(tmp_path)], check=True, capture_output=True)
    rec = str(tmp_path / "kws.etrecord")
    dump, buf = str(tmp_path / "r.etdp"), str(tmp_path / "r.bin")
    subprocess.run([cli, "run", str(tmp_path / "kws.pte"), "--etdump", dump,
                    "--debug-buffer", buf, "--debug-level", "intermediates",
                    "--inputs-from", rec], check=True, capture_output=True)
    df = Inspector(etdump_path=dump, etrecord=rec,
                   debug_buffer_path=buf).calculate_numeric_gap("MSE")
    gaps = df["gap"].apply(lambda g: g[0])
    strided = [o for o in df["runtime_intermediate_output"] if o.ndim == 4 and o.shape[1] == 64]
    assert len(df) == 16 and strided and (gaps == 0).all(), gaps.tolist()
    cli_gap = subprocess.run([cli, "numerics", "--gap", "mse", "--etdump_path", dump,
                              "--debug_buffer_path", buf, "--etrecord_path", rec,
                              "--format", "csv"], capture_output=True, text=True, check=True)
    assert cli_gap.stdout.count("\n") == len(df) + 1
