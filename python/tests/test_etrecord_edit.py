"""ETRecord editing with upstream's API (update_reference_outputs,
update_representative_inputs from arrays or a BundledProgram, copy, save to
a path or a file object, building from parts,
_instruction_id_to_num_outs_map), and the deviations of issue 31 section 5
fixed: edge_dialect_program of a multi-method record, the converter's
wrap-around, parse_etrecord's error type.  Every edited record is read back
with etkit's C reader (and `etkit info`)."""
import io
import json
import os
import subprocess
import warnings
import zipfile

import numpy as np
import pytest

import etkit
from etkit.bundled_program.config import MethodTestCase, MethodTestSuite


def quiet(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return etkit.Inspector(**kw)


def members(path_or_bytes):
    src = io.BytesIO(path_or_bytes) if isinstance(path_or_bytes, bytes) else path_or_bytes
    with zipfile.ZipFile(src) as z:
        return {n: z.read(n) for n in z.namelist()}


def test_maps_and_reference_outputs_round_trip(demo, tmp_path):
    rec = etkit.parse_etrecord(str(demo / "model.etrecord"))
    raw = members(str(demo / "model.etrecord"))
    assert rec._instruction_id_to_num_outs_map == json.loads(raw["instruction_id_to_num_outs_map"])
    y = np.arange(10, dtype=np.float32).reshape(1, 10)
    rec.update_reference_outputs([[y]])
    assert list(rec._reference_outputs) == ["forward"]
    buf = io.BytesIO()
    rec.save(buf)  # a file object, as upstream allows
    path = tmp_path / "edited.etrecord"
    path.write_bytes(buf.getvalue())
    back = etkit.parse_etrecord(str(path))
    (case,) = back._reference_outputs["forward"]
    np.testing.assert_array_equal(case[0], y)
    # everything else copied unchanged
    new = members(str(path))
    for name, data in raw.items():
        if name != "reference_outputs":
            assert new[name] == data, name
    # a path: all or nothing, and the CLI reads it
    rec.update_representative_inputs([np.ones((1, 1, 8, 8), np.float32)])
    rec.save(tmp_path / "again.etrecord")
    back = etkit.parse_etrecord(str(tmp_path / "again.etrecord"))
    np.testing.assert_array_equal(back._representative_inputs[0], np.ones((1, 1, 8, 8)))
    assert [f for f in os.listdir(tmp_path) if f.startswith(".etrecord.")] == []


def test_references_from_a_bundled_program(demo, tmp_path):
    x = np.full((1, 1, 8, 8), 0.5, np.float32)
    y = etkit.run(str(demo / "model.pte"), [x]).outputs[0]
    bp = etkit.BundledProgram(None, [MethodTestSuite("forward", [MethodTestCase([x], [y])])],
                              pte_file_path=str(demo / "model.pte"))
    rec = etkit.parse_etrecord(str(demo / "model.etrecord"))
    rec.update_reference_outputs(bp)
    rec.update_representative_inputs(bp)
    rec.save(tmp_path / "r.etrecord")
    back = etkit.parse_etrecord(str(tmp_path / "r.etrecord"))
    np.testing.assert_array_equal(back._reference_outputs["forward"][0][0], y)
    np.testing.assert_array_equal(back._representative_inputs[0], x)
    # the Inspector compares the run with the new references
    ins = quiet(etdump_path=str(demo / "etdump.etdp"), etrecord=str(tmp_path / "r.etrecord"))
    assert ins._etrecord._reference_outputs["forward"][0][0].shape == (1, 10)
    bad = etkit.BundledProgram(None, [MethodTestSuite("forward", [MethodTestCase([x])])],
                               pte_file_path=str(demo / "model.pte"))
    with pytest.raises(ValueError, match="expected outputs"):
        rec.update_reference_outputs(bad)


def test_copy_drops_the_executorch_data(demo, tmp_path):
    rec = etkit.parse_etrecord(str(demo / "model.etrecord"))
    c = rec.copy()
    assert c._debug_handle_map is None and c._delegate_map is None
    assert c._instruction_id_to_num_outs_map is None
    assert c._reference_outputs is None and c._representative_inputs is None
    assert c.edge_dialect_program.member == rec.edge_dialect_program.member
    assert rec._debug_handle_map is not None  # the original keeps them
    with pytest.raises(RuntimeError, match="edge dialect program"):
        c.save(tmp_path / "c.etrecord")
    assert not (tmp_path / "c.etrecord").exists()


def test_build_from_parts(demo, tmp_path, cli):
    src = etkit.parse_etrecord(str(demo / "model.etrecord"))
    y = np.zeros((1, 10), np.float32)
    rec = etkit.ETRecord(edge_dialect_program=src.edge_dialect_program,
                         _debug_handle_map=src._debug_handle_map,
                         _delegate_map=src._delegate_map,
                         _instruction_id_to_num_outs_map=src._instruction_id_to_num_outs_map,
                         _reference_outputs={"forward": [[y]]},
                         export_graph_id=7)
    out = tmp_path / "parts.etrecord"
    rec.save(out)
    r = subprocess.run([cli, "info", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "reference outputs: present" in r.stdout and "export graph id: 7" in r.stdout
    assert "edge program edge_dialect_exported_program/forward: 9 nodes" in r.stdout
    # the Inspector links the same with the rebuilt record, also unsaved
    a = quiet(etdump_path=str(demo / "etdump.etdp"), etrecord=str(demo / "model.etrecord"))
    b = quiet(etdump_path=str(demo / "etdump.etdp"), etrecord=str(out))
    c = quiet(etdump_path=str(demo / "etdump.etdp"), etrecord=etkit.ETRecord(
        edge_dialect_program=src.edge_dialect_program, _debug_handle_map=src._debug_handle_map,
        _delegate_map=src._delegate_map))
    ops = lambda ins: [e.op_types for blk in ins.event_blocks for e in blk.events]
    assert ops(a) == ops(b) == ops(c) and any(ops(a))
    with pytest.raises(TypeError):
        etkit.ETRecord(edge_dialect_program="not a program")


def test_multi_method_edge_programs(fixtures):
    rec = etkit.parse_etrecord(os.path.join(fixtures, "quirks.etrecord"))
    ep = rec.edge_dialect_program
    assert isinstance(ep, dict) and "forward" in ep and len(ep) > 1
    for method, prog in ep.items():
        assert prog.member.endswith("/" + method)
    # the Inspector's reference graph stays forward's
    ins = quiet(etdump_path=os.path.join(fixtures, "quirks.etdp"), etrecord=rec)
    assert ins.op_graph_dict["edge_dialect_graph_module"].member == ep["forward"].member
    # get_exported_program() is the attribute, as upstream's
    got = ins.get_exported_program()
    assert isinstance(got, dict) and {m: p.member for m, p in got.items()} == \
        {m: p.member for m, p in ep.items()}


def test_converter_wrap_is_undone_before_converting(fixtures):
    path = os.path.join(fixtures, "wrap.etdp")

    def delegated(quirks):
        ins = quiet(etdump_path=path, delegate_time_scale_converter=lambda n, t: t / 1e6,
                    upstream_quirks=quirks)
        return [e.perf_data.raw[0] for b in ins.event_blocks for e in b.events
                if e.is_delegated_op and e.perf_data]

    # 4294967000 -> 1000 ticks is 1296 ticks: 0.001296 in the converter's unit
    assert delegated(False) == [pytest.approx(0.001296, rel=1e-6)]
    assert delegated(True) == [pytest.approx(4294963000.034, rel=1e-12)]  # upstream's


def test_parse_etrecord_errors_as_upstream(tmp_path):
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"not a zip at all")
    with pytest.raises(RuntimeError) as e:
        etkit.parse_etrecord(str(bad))
    assert isinstance(e.value, ValueError)  # and as etkit's readers
    with pytest.raises(FileNotFoundError):
        etkit.parse_etrecord(str(tmp_path / "missing.bin"))


def test_find_total_for_module_sees_edited_events(fixtures):
    ins = quiet(etdump_path=os.path.join(fixtures, "modules.etdp"),
                etrecord=os.path.join(fixtures, "modules.etrecord"))
    events = [e for b in ins.event_blocks for e in b.events]
    keys = sorted({k for e in events for h in e.module_hierarchy.values()
                   if isinstance(h, dict) for k in h})
    name = keys[0]
    before = ins.find_total_for_module(name)
    inside = [e for e in events if e.name != "OPERATOR_CALL" and e.perf_data is not None
              and any(isinstance(h, dict) and any(name in k for k in h)
                      for h in e.module_hierarchy.values())]
    assert inside and before > 0
    ev = inside[0]
    old = ev.perf_data.avg
    ev.perf_data = etkit.PerfData([old + 1000.0])  # an edit, as upstream allows
    assert ins.find_total_for_module(name) == pytest.approx(before + 1000.0, rel=1e-12)


def test_linked_events_are_not_edited_until_the_user_assigns(fixtures):
    """Filling an event's link fields (debug handles, op types, stacks,
    module hierarchy) is the Inspector's doing, not a user edit: the tables
    keep the C path until a field is really assigned."""
    ins = quiet(etdump_path=os.path.join(fixtures, "modules.etdp"),
                etrecord=os.path.join(fixtures, "modules.etrecord"))
    linked = [e for b in ins.event_blocks for e in b.events if e.module_hierarchy]
    assert linked  # the record links these events
    assert not any(e._edited for e in linked)
    assert not any(b.events.edited() for b in ins.event_blocks)
    assert ins._pristine()
    linked[0].op_types = ["edited"]
    assert linked[0]._edited and not ins._pristine()
    assert "edited" in str(list(ins.to_dataframe()["op_types"]))


def test_attributes_are_assignable_and_reach_the_inspector(demo, tmp_path):
    """Upstream's ETRecord attributes are plain attributes: assigned values
    are what save() writes and what an Inspector given the (unsaved) record
    links with."""
    rec = etkit.parse_etrecord(str(demo / "model.etrecord"))
    assert rec.export_graph_id == 0  # the file has none: upstream's default
    y = np.full((1, 10), 3.0, np.float32)
    before = quiet(etdump_path=str(demo / "etdump.etdp"), etrecord=rec)
    old = [b.reference_output for b in before.event_blocks if b.name == "Execute"]
    assert old and not np.array_equal(old[0][0], y)
    rec._reference_outputs = {"forward": [[y]]}
    rec.export_graph_id = 5
    edge = rec.edge_dialect_program
    rec.graph_map = {"extra": edge}  # "<module>" means "<module>/forward"
    rec._delegate_map = None
    after = quiet(etdump_path=str(demo / "etdump.etdp"), etrecord=rec)
    refs = [b.reference_output for b in after.event_blocks if b.name == "Execute"]
    np.testing.assert_array_equal(refs[0][0], y)
    assert set(after.op_graph_dict) == {"edge_dialect_graph_module", "extra/forward"}
    assert list(rec.graph_map) == ["extra/forward"] and rec._delegate_map is None
    buf = io.BytesIO()
    rec.save(buf)
    saved = members(buf.getvalue())
    assert "delegate_map" not in saved and json.loads(saved["export_graph_id"]) == 5
    assert saved["extra/forward"] == saved["edge_dialect_exported_program/forward"]
    back = etkit.parse_etrecord(str(demo / "model.etrecord"))
    assert back._delegate_map is not None  # the file itself is unchanged
    path = tmp_path / "assigned.etrecord"
    path.write_bytes(buf.getvalue())
    back = etkit.parse_etrecord(str(path))
    assert back.export_graph_id == 5 and list(back.graph_map) == ["extra/forward"]
    # programs: replaced, dropped, and refused when not etkit programs
    back.graph_map = None
    back.edge_dialect_program = {"forward": edge, "other": edge}
    assert sorted(back.edge_dialect_program) == ["forward", "other"]
    assert back.graph_map == {}
    with pytest.raises(TypeError):
        back.exported_program = "a torch program"
    with pytest.raises(TypeError):
        back.edge_dialect_program = {"forward": 1}
    assert sorted(back.edge_dialect_program) == ["forward", "other"]  # unchanged
    back._debug_handle_map = None
    with pytest.raises(RuntimeError, match="edge dialect program"):
        back.save(tmp_path / "no_map.etrecord")
