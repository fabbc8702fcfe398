"""The public surface: names, signature, defaults, errors and warnings."""
import inspect as pyinspect
import warnings

import pytest

import etkit
import etkit.inspector
from conftest import quiet_inspector


def test_exports():
    from etkit import Event, EventBlock, Inspector, PerfData, TimeScale, parse_etrecord
    from etkit.inspector import Inspector as I2, TimeScale as T2

    assert Inspector is I2 and TimeScale is T2
    for obj in (Event, EventBlock, PerfData, parse_etrecord):
        assert obj.__module__ == "etkit.inspector"


def test_time_scale_values():
    assert [(m.name, m.value) for m in etkit.TimeScale] == [
        ("NS", "ns"), ("US", "us"), ("MS", "ms"), ("S", "s"), ("CYCLES", "cycles")]


def test_inspector_signature_matches_upstream():
    params = list(pyinspect.signature(etkit.Inspector.__init__).parameters.values())[1:]
    upstream = [
        ("etdump_path", None), ("etdump_data", None), ("etrecord", None),
        ("source_time_scale", etkit.TimeScale.NS), ("target_time_scale", etkit.TimeScale.MS),
        ("debug_buffer_path", None), ("delegate_metadata_parser", None),
        ("delegate_time_scale_converter", None), ("enable_module_hierarchy", False),
        ("reference_graph_name", "edge_dialect_graph_module")]
    positional = [(p.name, p.default) for p in params if p.kind == p.POSITIONAL_OR_KEYWORD]
    assert positional == upstream


def test_method_defaults():
    sig = pyinspect.signature
    assert list(sig(etkit.Inspector.to_dataframe).parameters)[1:] == [
        "include_units", "include_delegate_debug_data"]
    assert sig(etkit.Inspector.to_dataframe).parameters["include_units"].default is True
    assert sig(etkit.EventBlock.to_dataframe).parameters["include_units"].default is False
    assert list(sig(etkit.Inspector.print_data_tabular).parameters)[1:] == [
        "file", "include_units", "include_delegate_debug_data"]
    assert list(sig(etkit.Inspector.save_data_to_tsv).parameters)[1:] == [
        "file", "include_units", "include_delegate_debug_data"]


def test_exactly_one_etdump_source(fixtures):
    with pytest.raises(ValueError, match="Expecting exactly one of etdump_path or etdump_data"):
        quiet_inspector()
    with pytest.raises(ValueError, match="Expecting exactly one"):
        quiet_inspector(etdump_path=fixtures + "/appendix_b.etdp", etdump_data=b"x")


def test_cycles_must_be_on_both_sides(fixtures):
    with pytest.raises(RuntimeError, match="both the source and target time scale"):
        quiet_inspector(etdump_path=fixtures + "/appendix_b.etdp",
                        source_time_scale=etkit.TimeScale.CYCLES)


def test_bad_etrecord_type(fixtures):
    with pytest.raises(TypeError, match="Unsupported ETRecord type"):
        quiet_inspector(etdump_path=fixtures + "/appendix_b.etdp", etrecord=42)


def test_output_buffer_warning(fixtures):
    with pytest.warns(UserWarning, match="Output Buffer not found"):
        etkit.Inspector(etdump_path=fixtures + "/appendix_b.etdp")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        etkit.Inspector(etdump_path=fixtures + "/appendix_c.etdp",
                        debug_buffer_path=fixtures + "/appendix_c_debug.bin")


def test_time_scales_as_strings(fixtures):
    a = quiet_inspector(etdump_path=fixtures + "/appendix_b.etdp", target_time_scale="us")
    b = quiet_inspector(etdump_path=fixtures + "/appendix_b.etdp",
                        target_time_scale=etkit.TimeScale.US)
    assert a.event_blocks[0].target_time_scale is etkit.TimeScale.US
    assert [e.perf_data.raw for e in a.event_blocks[0].events if e.perf_data] == \
        [e.perf_data.raw for e in b.event_blocks[0].events if e.perf_data]
    with pytest.raises(ValueError):
        quiet_inspector(etdump_path=fixtures + "/appendix_b.etdp", target_time_scale="hours")


def test_missing_file():
    with pytest.raises(FileNotFoundError):
        quiet_inspector(etdump_path="/nonexistent/dir/x.etdp")
    with pytest.raises(FileNotFoundError):
        etkit.parse_etrecord("/nonexistent/dir/x.etrecord")


def test_etdump_data_equals_path(fixtures):
    path = fixtures + "/delegates.etdp"
    with open(path, "rb") as f:
        data = f.read()
    a = quiet_inspector(etdump_path=path).to_dataframe()
    b = quiet_inspector(etdump_data=data).to_dataframe()
    assert a.to_csv() == b.to_csv()


def test_stubs_like_upstream(fixtures):
    ins = quiet_inspector(etdump_path=fixtures + "/appendix_b.etdp")
    assert ins.get_op_list("Execute") == {}
    assert ins.write_tensorboard_artifact("x") is None
    assert ins.get_exported_program() is None
    assert ins.op_graph_dict is None and ins._reference_outputs == {}


def test_empty_block_fails_like_upstream(conformance):
    import io
    import os

    ins = quiet_inspector(etdump_path=os.path.join(conformance, "golden_empty_block.etdp"))
    for call in (ins.to_dataframe, lambda: ins.save_data_to_tsv(io.StringIO()),
                 lambda: ins.print_data_tabular(io.StringIO())):
        with pytest.raises(ValueError, match="No objects to concatenate"):
            call()
