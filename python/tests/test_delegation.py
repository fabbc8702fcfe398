"""Upstream's delegation summary (get_delegation_info /
print_delegation_info) and `etkit graph ETRECORD --delegation`, on the
graph tests' full serde record (a lowered XnnpackBackend module, a cond,
a multi-output split) and the demo's ETRecord.  The counts are checked
against an independent reading: Model Explorer's graph file, whose node
ids are FX's node names (getitem nodes included) per subgraph."""
import io
import json
import os
import re
import subprocess
from contextlib import redirect_stdout

import pytest

import etkit


def record(source_dir):
    return os.path.join(source_dir, "fuzz", "graph", "corpus", "zip-full")


def expected_from_model_explorer(path, tmp_path):
    etkit.model_explorer(path, tmp_path / "g.json")
    graphs = {g["id"]: g for g in json.loads((tmp_path / "g.json").read_text())["graphs"]}
    counts = {}

    def add(graph, delegated):
        for n in graph["nodes"]:
            if n["namespace"].startswith("inputs") or n["id"].startswith("output") or \
                    n.get("label") in ("placeholder", "output", "input"):
                continue
            op = re.sub(r"_[\d]+$", "", n["id"])
            if not delegated and op == "executorch_call_delegate":
                continue
            c = counts.setdefault(op, [0, 0])
            c[0 if delegated else 1] += 1

    add(graphs["graph"], False)
    lowered = [g for k, g in graphs.items() if k.startswith("graph/lowered_module_")]
    for g in lowered:
        add(g, True)
    return counts, len(lowered)


def test_counts_match_the_graph(source_dir, tmp_path):
    path = record(source_dir)
    info = etkit.get_delegation_info(path)
    want, subgraphs = expected_from_model_explorer(path, tmp_path)
    got = {k: [b.delegated, b.non_delegated] for k, b in info.delegation_by_operator.items()}
    assert got == want
    assert info.num_delegated_subgraphs == subgraphs == 1
    assert info.num_delegated_nodes == sum(v[0] for v in want.values())
    assert info.num_non_delegated_nodes == sum(v[1] for v in want.values())
    assert got["getitem"] == [0, 4] and got["aten_relu_default"] == [1, 0]
    assert info.delegation_by_backend == {"XnnpackBackend": {"subgraphs": 1,
                                                             "delegated_nodes": 1}}
    df = info.get_operator_delegation_dataframe()
    assert list(df.columns) == ["op_type", "occurrences_in_delegated_graphs",
                                "occurrences_in_non_delegated_graphs"]
    assert list(df["op_type"])[:-1] == sorted(want) and df["op_type"].iloc[-1] == "Total"
    assert df.iloc[-1, 1] == info.num_delegated_nodes
    # the same from the record object and from its program's graph_module
    rec = etkit.parse_etrecord(path)
    assert etkit.get_delegation_info(rec) == info
    assert etkit.get_delegation_info(rec.edge_dialect_program.graph_module) == info
    with pytest.raises(TypeError):
        etkit.get_delegation_info(42)


def test_cli_prints_what_python_prints(source_dir, cli):
    pytest.importorskip("tabulate")
    path = record(source_dir)
    out = io.StringIO()
    with redirect_stdout(out):
        etkit.print_delegation_info(path)
    r = subprocess.run([cli, "graph", path, "--delegation"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    backends = [l for l in lines if l.startswith("backend ")]
    assert backends == ["backend XnnpackBackend: 1 subgraph, 1 node"]
    assert "\n".join(l for l in lines if not l.startswith("backend ")) + "\n" == out.getvalue()


def test_undelegated_record(cli, demo):
    info = etkit.get_delegation_info(str(demo / "model.etrecord"))
    assert info.num_delegated_subgraphs == 0 and info.num_delegated_nodes == 0
    assert info.num_non_delegated_nodes == 9
    r = subprocess.run([cli, "graph", str(demo / "model.etrecord"), "--delegation"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "Total delegated subgraphs: 0" in r.stdout
    r = subprocess.run([cli, "graph", str(demo / "model.pte"), "--delegation"],
                       capture_output=True, text=True)
    # a program alone holds delegate calls, not the delegated nodes: one
    # line saying what is needed (not an "unknown argument")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and r.stdout == ""
    assert "--delegation needs the program's ETRecord" in r.stderr
