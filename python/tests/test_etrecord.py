"""ETRecord linking through Python, checked against `etkit inspect
--etrecord_path` (whose outputs the golden tests pin)."""
import io
import os
import warnings

import pandas as pd
import pytest

import etkit
from etkit.inspector import EventBlock
from conftest import quiet_inspector, run_cli

LINKED = [("appendix_d.etdp", "appendix_d.etrecord"), ("modules.etdp", "modules.etrecord"),
          ("quirks.etdp", "quirks.etrecord")]


@pytest.mark.parametrize("dump,record", LINKED)
def test_linked_tsv_equals_cli(fixtures, cli, dump, record):
    d, r = os.path.join(fixtures, dump), os.path.join(fixtures, record)
    ins = quiet_inspector(etdump_path=d, etrecord=r)
    out = io.StringIO()
    ins.save_data_to_tsv(out)
    tsv = d + ".linked.tsv"
    run_cli(cli, "--etdump_path", d, "--etrecord_path", r, "--tsv_path", tsv,
            "--output", os.devnull)
    with open(tsv, "rb") as f:
        assert out.getvalue().encode() == f.read()
    os.remove(tsv)


@pytest.mark.parametrize("dump,record", LINKED)
def test_linked_events(fixtures, dump, record):
    d, r = os.path.join(fixtures, dump), os.path.join(fixtures, record)
    rec = etkit.parse_etrecord(r)
    ins = quiet_inspector(etdump_path=d, etrecord=rec)
    events = [e for b in ins.event_blocks for e in b.events]
    linked = [e for e in events if e.debug_handles is not None]
    assert linked
    for e in linked:
        assert isinstance(e.debug_handles, (int, list))
        assert isinstance(e.op_types, list)
        assert set(e.stack_traces) == set(e.module_hierarchy)
        for name, stack in e.module_hierarchy.items():
            assert name.endswith("_")
            assert stack is None or isinstance(stack, (dict, str))
    df = ins.to_dataframe()
    slow = pd.concat([EventBlock(name=b.name, events=list(b.events)).to_dataframe(True)
                      for b in ins.event_blocks], ignore_index=True)
    pd.testing.assert_frame_equal(df, slow)


def test_find_total_for_module_equals_events(fixtures):
    d, r = fixtures + "/modules.etdp", fixtures + "/modules.etrecord"
    ins = quiet_inspector(etdump_path=d, etrecord=r)
    events = [e for b in ins.event_blocks for e in b.events]
    keys = {k for e in events for h in e.module_hierarchy.values() if isinstance(h, dict)
            for k in h}
    assert keys
    for name in sorted(keys)[:6] + ["features", "nothing_matches_this"]:
        want = 0.0
        for e in events:
            if e.name == "OPERATOR_CALL":
                continue
            for h in e.module_hierarchy.values():
                if isinstance(h, dict) and any(name in k for k in h):
                    if e.perf_data is not None:
                        want += e.perf_data.avg
                    break
        assert ins.find_total_for_module(name) == pytest.approx(want, rel=1e-12, abs=0)


def test_exported_program(fixtures):
    ins = quiet_inspector(etdump_path=fixtures + "/modules.etdp",
                          etrecord=fixtures + "/modules.etrecord")
    ep = ins.get_exported_program()
    assert ep is not None and ep.nodes
    handles = {n.meta["debug_handle"] for n in ep.nodes}
    linked = {h for b in ins.event_blocks for e in b.events
              for h in ([e.debug_handles] if isinstance(e.debug_handles, int)
                        else e.debug_handles or [])}
    assert linked <= handles
    text = str(ep)
    assert all(n.name in text for n in ep.nodes)
    assert ins.get_exported_program("no_such_graph") is None


def test_old_layout_record(conformance):
    rec = etkit.parse_etrecord(os.path.join(conformance, "etrecord_toy_mul.bin"))
    assert rec.methods()
    assert rec.edge_dialect_program is not None


@pytest.mark.parametrize("name,what", [
    ("bad_map.etrecord", "debug_handle_map: invalid JSON"),
    ("bad_program.etrecord", "edge_dialect_exported_program/forward: invalid JSON"),
    ("no_marker.etrecord", "no ETRECORD_V0 member")])
def test_damaged_records_raise_cleanly(fixtures, name, what):
    path = os.path.join(fixtures, name)
    # each is damaged: the test fails when nothing is raised
    with pytest.raises(ValueError) as e:
        rec = etkit.parse_etrecord(path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ins = etkit.Inspector(etdump_path=fixtures + "/appendix_d.etdp", etrecord=rec)
            ins.to_dataframe()
    text = str(e.value)
    assert "\n" not in text and text.startswith(path + ": ") and what in text, text


@pytest.mark.parametrize("record", ["appendix_d.etrecord", "modules.etrecord",
                                    "quirks.etrecord"])
def test_exported_program_listing_equals_etkit_graph(fixtures, cli, record):
    import subprocess

    path = os.path.join(fixtures, record)
    rec = etkit.parse_etrecord(path)
    ep = rec.edge_dialect_program
    if isinstance(ep, dict):  # several methods: `etkit graph` shows forward's
        ep = ep["forward"]
    for args in ([], ["--args"]):
        out = subprocess.run([cli, "graph", path, *args], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        assert ep.listing(with_args=bool(args)) == out.stdout
    assert str(ep) + "\n" == ep.listing()
