"""A program without its ETRecord (docs/graph-view.md, "a program alone"):
etkit.graph_view(PROGRAM.pte, inspector) and etkit.model_explorer(PROGRAM,
...) give the nodes and values `etkit graph PROGRAM` gives for the same
files, join by instruction id, and refuse what a program cannot do."""
import json
import os
import re
import subprocess
import warnings

import pytest

import etkit
from conftest import quiet_inspector


def nodes_of(page):
    return {m.group(1): m.group(2) for m in re.finditer(
        r'<g class="gn[^"]*" data-node="([^"]*)"(?: data-value="([^"]*)")?', page)}


@pytest.fixture(scope="module")
def runs(cli, tmp_path_factory):
    dirs = []
    for k in range(2):
        d = tmp_path_factory.mktemp(f"prog{k}")
        subprocess.run([cli, "demo", "--output-dir", str(d), "--runs", "3"], check=True,
                       capture_output=True)
        dirs.append(d)
    return dirs


def cli_page(cli, tmp_path, *args):
    out = tmp_path / "cli.html"
    p = subprocess.run([cli, "graph", *args, "--html", str(out)], capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    return out.read_text(encoding="utf-8")


def test_graph_view_of_a_program_equals_cli(cli, runs, tmp_path):
    a, b = runs
    pte, dump = str(a / "model.pte"), str(a / "etdump.etdp")
    ins = quiet_inspector(etdump_path=dump)
    view = etkit.graph_view(pte, ins)
    got = nodes_of(view.html)
    want = nodes_of(cli_page(cli, tmp_path, pte, "--etdump_path", dump))
    assert got == want
    # every instruction once, timed by its own event
    calls = [n for n in got if n.startswith("#")]
    assert sorted(calls) == sorted(f"#{i}" for i in range(8))
    assert all(got[n] is not None for n in calls)
    assert got["input0"] is None and got["output"] is None
    # the bundled program draws the same graph
    assert nodes_of(etkit.graph_view(str(a / "model.bpte"), ins).html) == got
    # A -> B, and without an inspector: uncoloured, or memory
    ins_b = quiet_inspector(etdump_path=str(b / "etdump.etdp"))
    assert 'data-fa="' in etkit.graph_view(pte, ins, against=ins_b).html
    plain = nodes_of(etkit.graph_view(pte).html)
    assert set(plain) == set(got) and all(v is None for v in plain.values())
    memory = nodes_of(etkit.graph_view(pte, overlay="memory").html)
    assert all(memory[n] is not None for n in calls)


def test_model_explorer_of_a_program(cli, runs, tmp_path):
    pte, dump = str(runs[0] / "model.pte"), str(runs[0] / "etdump.etdp")
    ins = quiet_inspector(etdump_path=dump)
    g, nd = tmp_path / "g.json", tmp_path / "nd.json"
    out = etkit.model_explorer(pte, str(g), str(nd), inspector=ins)
    assert out["partitions"] == 1
    ids = {n["id"] for gr in json.loads(g.read_text())["graphs"] for n in gr["nodes"]}
    assert {f"#{i}" for i in range(8)} <= ids
    g2, nd2 = tmp_path / "g2.json", tmp_path / "nd2.json"
    p = subprocess.run([cli, "graph", pte, "--model-explorer", str(g2), "--node-data",
                        str(nd2), "--etdump_path", dump], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert json.loads(nd.read_text()) == json.loads(nd2.read_text())
    assert json.loads(g.read_text()) == json.loads(g2.read_text())


def test_program_refusals(runs, tmp_path):
    pte = str(runs[0] / "model.pte")
    ins = quiet_inspector(etdump_path=str(runs[0] / "etdump.etdp"))
    with pytest.raises(ValueError, match="against"):
        etkit.graph_view(pte, ins, overlay="error")
    with pytest.raises(ValueError, match="reference_graph"):
        etkit.model_explorer(pte, str(tmp_path / "g.json"),
                             reference_graph="exported_program")
    with pytest.raises(Exception, match="nope"):
        etkit.graph_view(pte, method="nope")
    with pytest.raises(TypeError):
        etkit.graph_view(42)


def test_another_programs_etdump(runs, conformance):
    """The demo's ETDump on upstream's add.pte: warned, uncoloured."""
    ins = quiet_inspector(etdump_path=str(runs[0] / "etdump.etdp"))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        page = etkit.graph_view(os.path.join(conformance, "add.pte"), ins).html
    assert any("another program" in str(x.message) for x in w)
    assert all(v is None for v in nodes_of(page).values())
    assert "gv-note" in page
