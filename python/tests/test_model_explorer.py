"""etkit.model_explorer: Model Explorer's graph and node-data files from an
ETRecord, checked against the published dataclasses' schema
(model_explorer_schema.py), on `etkit demo`'s files, upstream's 2023 sample
and the graph tests' full serde record (fuzz/graph/corpus/zip-full)."""
import json
import math
import os
import subprocess
import warnings

import pytest

import etkit
from model_explorer_schema import validate_graph_collection, validate_node_data


@pytest.fixture(scope="module")
def demo(cli, tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    run = subprocess.run([cli, "demo", "--output-dir", str(out), "--runs", "3"],
                         capture_output=True)
    assert run.returncode == 0, run.stderr.decode()
    return out


def _load(path):
    with open(path) as f:
        return json.load(f)


def test_validator_catches_mistakes():
    assert validate_graph_collection({"graphs": []})  # no label
    bad_node = {"label": "x", "graphs": [{"id": "g", "nodes": [
        {"id": "a", "label": "a", "incomingEdges": [{"sourceNodeId": "zz"}]},
        {"id": "b", "label": 3},
        {"id": "c", "label": "c", "colour": "red"}]}]}
    errors = validate_graph_collection(bad_node)
    assert any("unknown node 'zz'" in e for e in errors)
    assert any("label" in e for e in errors)
    assert any("unknown field 'colour'" in e for e in errors)
    assert validate_node_data({"g": {"results": {"a": {"value": "1"}}}})
    assert validate_node_data({"g": {"results": {"a": {"value": True}}}})


def test_demo_graph_and_node_data(demo, tmp_path):
    graph_path = tmp_path / "graph.json"
    data_path = tmp_path / "share.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        insp = etkit.Inspector(etdump_path=str(demo / "etdump.etdp"),
                               etrecord=str(demo / "model.etrecord"))
    info = etkit.model_explorer(str(demo / "model.etrecord"), graph_path,
                                data_path, inspector=insp, overlay="share")
    # 9 calls, the input x, 6 weights (the demo ETRecord carries its state
    # dict since the interpreter branch), the output
    assert info == {"nodes": 17, "partitions": 1}
    graph = _load(graph_path)
    assert validate_graph_collection(graph) == []
    nodes = {n["id"]: n for n in graph["graphs"][0]["nodes"]}
    assert graph["graphs"][0]["id"] == "graph"
    assert nodes["x"]["namespace"] == "inputs"
    assert nodes["aten_convolution_default"]["label"] == "aten.convolution"
    # the delegated nodes sit in their partition's namespace
    assert nodes["aten_convolution_default_1"]["namespace"].startswith(
        "EtkitMicroBackend_0")
    assert nodes["output"]["incomingEdges"][0]["sourceNodeId"] == "aten_addmm_default"
    data = _load(data_path)
    assert validate_node_data(data, graph) == []
    results = data["graph"]["results"]
    # every operator ran: one share per call node, none for placeholders
    calls = [i for i, n in nodes.items() if n["namespace"] != "inputs" and i != "output"]
    assert sorted(results) == sorted(calls)
    assert all(0 < r["value"] < 100 for r in results.values())
    # the same figure as the Inspector's event for the first convolution
    df = insp.to_dataframe()
    execute = df[df.event_name == "Method::execute"]["avg (ms)"].iloc[0]
    conv = df[df.event_name == "native_call_convolution.out"]["avg (ms)"].iloc[0]
    assert math.isclose(results["aten_convolution_default"]["value"],
                        conv / execute * 100, rel_tol=1e-9)


def test_etdump_of_another_program_warns(demo, tmp_path, conformance):
    toy = os.path.join(conformance, "etrecord_toy_mul.bin")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        insp = etkit.Inspector(etdump_path=str(demo / "etdump.etdp"))
    with pytest.warns(UserWarning, match="another program"):
        etkit.model_explorer(toy, tmp_path / "g.json", tmp_path / "d.json",
                             inspector=insp)
    data = _load(tmp_path / "d.json")
    assert data["graph"]["results"] == {}
    assert validate_node_data(data, _load(tmp_path / "g.json")) == []


def test_full_serde_record(source_dir, tmp_path):
    record = os.path.join(source_dir, "fuzz", "graph", "corpus", "zip-full")
    info = etkit.model_explorer(record, tmp_path / "g.json")
    assert info["partitions"] == 2
    graph = _load(tmp_path / "g.json")
    assert validate_graph_collection(graph) == []
    ids = [g["id"] for g in graph["graphs"]]
    assert ids == ["graph", "graph/lowered_module_0", "graph/true_graph_0",
                   "graph/false_graph_0"]
    nodes = {n["id"]: n for n in graph["graphs"][0]["nodes"]}
    # getitem nodes for the multi-output split, as FX deserialises it
    assert nodes["getitem_1"]["label"] == "getitem"
    cat_edges = nodes["aten_cat_default"]["incomingEdges"]
    assert [e["sourceNodeId"] for e in cat_edges] == ["getitem_1", "getitem"]
    shape = {a["key"]: a["value"] for a in
             nodes["aten_convolution_default"]["outputsMetadata"][0]["attrs"]}
    assert shape["tensor_shape"] == "torch.float32[1, 2, 1, 1]"
    assert nodes["executorch_call_delegate"]["subgraphIds"] == ["graph/lowered_module_0"]


def test_arguments_are_checked(tmp_path, source_dir):
    record = os.path.join(source_dir, "fuzz", "graph", "corpus", "zip-full")
    with pytest.raises(ValueError, match="needs an inspector"):
        etkit.model_explorer(record, tmp_path / "g.json", tmp_path / "d.json")
    with pytest.raises(ValueError, match="overlay"):
        etkit.model_explorer(record, tmp_path / "g.json", overlay="colour")
    with pytest.raises(Exception, match="no such graph"):
        etkit.model_explorer(record, tmp_path / "g.json",
                             reference_graph="exported_program")
    assert not (tmp_path / "g.json").exists()


def test_overlay_names_are_the_cli_ones(demo, tmp_path, cli):
    """Every `etkit graph --overlay` name works in Python (issue 28: "error"
    was refused), and the node data equals the CLI's, unit field included."""
    rec = str(demo / "model.etrecord")
    dump, buf = str(demo / "etdump.etdp"), str(demo / "debug_buffer.bin")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        insp = etkit.Inspector(etdump_path=dump, etrecord=rec, debug_buffer_path=buf)
    for overlay in ("time", "share", "count", "error", "mse", "snr", "memory"):
        mine = tmp_path / f"py_{overlay}.json"
        theirs = tmp_path / f"cli_{overlay}.json"
        etkit.model_explorer(rec, tmp_path / "g.json", mine,
                             inspector=None if overlay == "memory" else insp,
                             overlay=overlay)
        args = [cli, "graph", rec, "--node-data", str(theirs), "--overlay", overlay]
        if overlay != "memory":
            args += ["--etdump_path", dump, "--debug_buffer_path", buf]
        run = subprocess.run(args, capture_output=True)
        assert run.returncode == 0, run.stderr.decode()
        assert _load(mine) == _load(theirs), overlay
        assert validate_node_data(_load(mine)) == []
    time_data = _load(tmp_path / "py_time.json")["graph"]
    assert time_data["unit"] in ("s", "ms", "\u00b5s", "ns")
    assert _load(tmp_path / "py_memory.json")["graph"]["unit"] in ("B", "KiB", "MiB")
