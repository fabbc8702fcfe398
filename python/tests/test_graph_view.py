"""Inspector.save_graph() and Inspector.graph() (docs/graph-view.md):
the same nodes and values as `etkit graph --html` for the same files,
the A/B view, the notebook form, and the errors."""
import os
import re
import subprocess
import warnings

import pytest

import etkit
from conftest import quiet_inspector

LINKED = [("appendix_d.etdp", "appendix_d.etrecord"), ("modules.etdp", "modules.etrecord"),
          ("quirks.etdp", "quirks.etrecord")]


def nodes_of(page):
    return {m.group(1): m.group(2) for m in re.finditer(
        r'<g class="gn[^"]*" data-node="([^"]*)"(?: data-value="([^"]*)")?', page)}


def cli_page(cli, tmp_path, *args):
    out = tmp_path / "cli.html"
    p = subprocess.run([cli, "graph", *args, "--html", str(out)], capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    return out.read_text(encoding="utf-8")


@pytest.mark.parametrize("dump,record", LINKED)
def test_save_graph_equals_cli(fixtures, cli, tmp_path, dump, record):
    d, r = os.path.join(fixtures, dump), os.path.join(fixtures, record)
    ins = quiet_inspector(etdump_path=d, etrecord=r)
    path = tmp_path / "graph.html"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ins.save_graph(str(path))
    page = path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    want = nodes_of(cli_page(cli, tmp_path, r, "--etdump_path", d))
    assert want and nodes_of(page) == want
    assert not [f for f in os.listdir(tmp_path) if ".tmp." in f]


@pytest.fixture(scope="module")
def demo(cli, tmp_path_factory):
    dirs = []
    for k in range(2):
        d = tmp_path_factory.mktemp(f"demo{k}")
        subprocess.run([cli, "demo", "--output-dir", str(d), "--runs", "3"], check=True,
                       capture_output=True)
        dirs.append(d)
    return dirs


def test_graph_overlays_and_against(cli, demo, tmp_path):
    a, b = demo
    rec = str(a / "model.etrecord")
    ins_a = quiet_inspector(etdump_path=str(a / "etdump.etdp"), etrecord=rec)
    ins_b = quiet_inspector(etdump_path=str(b / "etdump.etdp"), etrecord=rec)
    for overlay in ("time", "share", "count"):
        view = ins_a.graph(overlay=overlay)
        want = nodes_of(cli_page(cli, tmp_path, rec, "--etdump_path",
                                 str(a / "etdump.etdp"), "--overlay", overlay))
        assert nodes_of(view.html) == want
        assert any(v is not None for v in want.values())
    ab = ins_a.graph(against=ins_b)
    want = nodes_of(cli_page(cli, tmp_path, rec, "--etdump_path", str(a / "etdump.etdp"),
                             "--against", str(b / "etdump.etdp")))
    assert nodes_of(ab.html) == want
    assert "data-fa=" in ab.html and "change of p50 time" in ab.html


def test_graph_in_a_notebook(cli, demo, tmp_path):
    a, _ = demo
    ins = quiet_inspector(etdump_path=str(a / "etdump.etdp"),
                          etrecord=str(a / "model.etrecord"))
    view = ins.graph()
    shown = view._repr_html_()
    assert shown.startswith("<iframe") and 'srcdoc="' in shown
    assert "<script>" not in shown  # the page is an escaped attribute
    assert "&lt;script&gt;" in shown
    path = tmp_path / "saved.html"
    view.save(str(path))
    assert path.read_text(encoding="utf-8") == view.html
    assert "GraphView" in repr(view)


def test_graph_errors(demo, fixtures):
    a, _ = demo
    plain = quiet_inspector(etdump_path=str(a / "etdump.etdp"))
    with pytest.raises(ValueError, match="ETRecord"):
        plain.graph()
    ins = quiet_inspector(etdump_path=str(a / "etdump.etdp"),
                          etrecord=str(a / "model.etrecord"))
    with pytest.raises(ValueError, match="unknown overlay"):
        ins.graph(overlay="colour")
    with pytest.raises(TypeError):
        ins.graph(against="not an inspector")


def test_graph_of_another_programs_etdump(conformance):
    ins = quiet_inspector(etdump_path=os.path.join(conformance, "etdump_tutorial.etdp"),
                          etrecord=os.path.join(conformance, "etrecord_toy_mul.bin"))
    with pytest.warns(UserWarning, match="another program"):
        view = ins.graph()
    values = nodes_of(view.html)
    assert values and all(v is None for v in values.values())
    assert "not coloured" in view.html
