"""Every event attribute, the DataFrame, the table and the TSV against the C
CLI (`etkit inspect`, whose outputs the golden and oracle tests pin to
upstream) and against upstream's own construction of the DataFrame."""
import io
import os

import numpy as np
import pandas as pd
import pytest

import etkit
from etkit.inspector import EventBlock
from conftest import all_dumps, quiet_inspector, run_cli

OPEN_FAILS = {"golden_empty_block.etdp"}


def dumps(fixtures, oracle_dumps):
    return all_dumps(fixtures, oracle_dumps)


def test_dataframe_equals_upstream_construction(fixtures, oracle_dumps):
    """The fast (C arrays) DataFrame equals the one upstream's algorithm builds
    from the Event objects (Event.to_dataframe, concat, insert): values,
    column order and dtypes."""
    checked = 0
    for path in dumps(fixtures, oracle_dumps):
        ins = quiet_inspector(etdump_path=path)
        big = sum(len(b.events) for b in ins.event_blocks) > 500
        for units in ((True,) if big else (True, False)):
            try:
                fast = ins.to_dataframe(include_units=units)
            except ValueError as e:
                assert "No objects to concatenate" in str(e)
                continue
            blocks = [EventBlock(name=b.name, events=list(b.events),
                                 target_time_scale=b.target_time_scale)
                      for b in ins.event_blocks]
            slow = pd.concat([b.to_dataframe(include_units=units) for b in blocks],
                             ignore_index=True)
            pd.testing.assert_frame_equal(fast, slow)
            checked += 1
    assert checked >= 20


def test_block_dataframe_defaults(fixtures):
    ins = quiet_inspector(etdump_path=fixtures + "/appendix_b.etdp")
    df = ins.event_blocks[0].to_dataframe()
    assert list(df.columns) == [
        "event_block_name", "event_name", "raw", "p10", "p50", "p90", "avg", "min", "max",
        "op_types", "delegate_debug_identifier", "stack_traces", "module_hierarchy",
        "is_delegated_op", "delegate_backend_name", "debug_data", "start_time"]
    assert "p10 (ms)" in ins.to_dataframe().columns


@pytest.mark.parametrize("units", [True, False])
@pytest.mark.parametrize("ddd", [False, True])
def test_tsv_and_table_equal_cli(fixtures, oracle_dumps, cli, units, ddd):
    flags = ([] if units else ["--no-units"]) + (["--include-delegate-debug-data"] if ddd else [])
    compared = 0
    for path in dumps(fixtures, oracle_dumps):
        ins = quiet_inspector(etdump_path=path)
        out = io.StringIO()
        try:
            ins.save_data_to_tsv(out, include_units=units, include_delegate_debug_data=ddd)
        except ValueError:
            continue
        tsv_path = path + ".py.tsv"
        run_cli(cli, "--etdump_path", path, "--tsv_path", tsv_path, "--output", os.devnull,
                *flags)
        with open(tsv_path, "rb") as f:
            assert out.getvalue().encode() == f.read(), path
        os.remove(tsv_path)
        table = io.StringIO()
        ins.print_data_tabular(table, include_units=units, include_delegate_debug_data=ddd)
        expect = run_cli(cli, "--etdump_path", path, *flags).decode()
        # the CLI appends the allocation table after upstream's table
        assert expect.startswith(table.getvalue()), path
        compared += 1
    assert compared >= 20


def test_tutorial_tsv_is_appendix_a(conformance, source_dir):
    ins = quiet_inspector(etdump_path=os.path.join(conformance, "etdump_tutorial.etdp"))
    out = io.StringIO()
    ins.save_data_to_tsv(out)
    with open(os.path.join(source_dir, "tests/inspector/golden/tutorial.tsv"), "rb") as f:
        assert out.getvalue().encode() == f.read()
    with open(os.path.join(source_dir, "tests/inspector/golden/tutorial.table")) as f:
        table = io.StringIO()
        ins.print_data_tabular(table)
        assert table.getvalue() == f.read()


def test_tsv_to_a_path(fixtures, tmp_path):
    ins = quiet_inspector(etdump_path=fixtures + "/appendix_b.etdp")
    ins.save_data_to_tsv(str(tmp_path / "a.tsv"))
    buf = io.StringIO()
    ins.save_data_to_tsv(buf)
    assert (tmp_path / "a.tsv").read_text() == buf.getvalue()


def test_statistics_are_numpys(fixtures, oracle_dumps):
    """C statistics in the DataFrame == numpy over PerfData.raw, bit for bit."""
    for path in dumps(fixtures, oracle_dumps):
        ins = quiet_inspector(etdump_path=path)
        try:
            df = ins.to_dataframe(include_units=False)
        except ValueError:
            continue
        events = [e for b in ins.event_blocks for e in b.events]
        assert len(events) == len(df)
        for row, e in zip(df.itertuples(index=False), events):
            assert row.event_name == e.name
            if e.perf_data is None:
                continue
            raw = e.perf_data.raw
            assert row.raw == raw
            for name in ("p10", "p50", "p90", "avg", "min", "max"):
                want = getattr(e.perf_data, name)
                got = getattr(row, name)
                assert (np.isnan(want) and np.isnan(got)) or want == got, (path, e.name, name)
            assert e.perf_data.p50 == np.percentile(raw, 50)
            assert e.perf_data.avg == np.mean(raw)
            assert e.start_time == row.start_time


def test_event_fields(fixtures):
    ins = quiet_inspector(etdump_path=fixtures + "/appendix_c.etdp",
                          debug_buffer_path=fixtures + "/appendix_c_debug.bin")
    events = [e for b in ins.event_blocks for e in b.events]
    delegated = [e for e in events if e.is_delegated_op]
    assert delegated, "appendix C has delegated events"
    for e in events:
        assert isinstance(e.name, str)
        assert e.is_delegated_op in (True, False)
        assert e.num_outputs == 1 and e.debug_handles is None and e.op_types == []
        assert isinstance(e._instruction_id, int)
        if e.is_delegated_op:
            assert e.name == str(e.delegate_debug_identifier)
        else:
            assert e.delegate_debug_identifier is None
        for m in e.raw_delegate_debug_metadatas:
            assert isinstance(m, (bytes, str))
        assert e.delegate_debug_metadatas is e.raw_delegate_debug_metadatas
    with_data = [e for e in events if e.debug_data]
    assert with_data
    for e in with_data:
        for v in e.debug_data:
            assert v is None or isinstance(v, (int, float, bool, list, np.ndarray))


def test_debug_data_without_buffer_is_zeros(fixtures):
    with_buf = quiet_inspector(etdump_path=fixtures + "/appendix_c.etdp",
                               debug_buffer_path=fixtures + "/appendix_c_debug.bin")
    without = quiet_inspector(etdump_path=fixtures + "/appendix_c.etdp")
    for a, b in zip([e for bl in with_buf.event_blocks for e in bl.events],
                    [e for bl in without.event_blocks for e in bl.events]):
        assert len(a.debug_data) == len(b.debug_data)
        for x, y in zip(a.debug_data, b.debug_data):
            if isinstance(x, np.ndarray):
                assert x.shape == y.shape and x.dtype == y.dtype
                assert not y.any()


def test_delegate_parser_and_converter(fixtures, oracle_dumps):
    path = os.path.join(oracle_dumps, "delegates.etdp")
    seen = []

    def parser(metadatas):
        seen.append(list(metadatas))
        return {"n": len(metadatas), "first": metadatas[0] if metadatas else None}

    def converter(name, t):
        return t / 1000.0

    ins = quiet_inspector(etdump_path=path, delegate_metadata_parser=parser,
                          delegate_time_scale_converter=converter)
    plain = quiet_inspector(etdump_path=path)
    for b, pb in zip(ins.event_blocks, plain.event_blocks):
        for e, pe in zip(b.events, pb.events):
            if e.is_delegated_op:
                assert isinstance(e.delegate_debug_metadatas, dict)
                if e.perf_data:
                    starts, ends = pe.start_time, None
                    assert len(e.perf_data.raw) == len(starts)
            else:
                assert e.delegate_debug_metadatas == e.raw_delegate_debug_metadatas
                if e.perf_data:
                    assert e.perf_data.raw == pe.perf_data.raw
    assert seen
    df = ins.to_dataframe(include_delegate_debug_data=True)
    assert "n" in df.columns and "first" in df.columns
    slow = pd.concat([EventBlock(name=b.name, events=list(b.events)).to_dataframe(True, True)
                      for b in ins.event_blocks], ignore_index=True)
    pd.testing.assert_frame_equal(df, slow)


def test_converter_changes_delegated_durations(oracle_dumps):
    path = os.path.join(oracle_dumps, "delegates.etdp")
    ins = quiet_inspector(etdump_path=path, delegate_time_scale_converter=lambda n, t: t * 2)
    plain = quiet_inspector(etdump_path=path, source_time_scale="ns", target_time_scale="ns")
    found = False
    for b, pb in zip(ins.event_blocks, plain.event_blocks):
        for e, pe in zip(b.events, pb.events):
            if e.is_delegated_op and e.perf_data:
                assert e.perf_data.raw == [2 * x for x in pe.perf_data.raw]
                found = True
    assert found
    df = ins.to_dataframe(include_units=False)
    events = [e for b in ins.event_blocks for e in b.events]
    for row, e in zip(df.itertuples(index=False), events):
        if e.perf_data:
            assert row.avg == e.perf_data.avg


def test_cycles(fixtures):
    ins = quiet_inspector(etdump_path=fixtures + "/appendix_b.etdp",
                          source_time_scale="cycles", target_time_scale="cycles")
    e = next(e for b in ins.event_blocks for e in b.events if e.perf_data)
    assert all(float(x).is_integer() for x in e.perf_data.raw)
    assert "p10 (cycles)" in ins.to_dataframe().columns


def test_bundled_index_and_run_output(fixtures, oracle_dumps):
    for path in all_dumps(fixtures, oracle_dumps):
        ins = quiet_inspector(etdump_path=path)
        for b in ins.event_blocks:
            assert isinstance(b.bundled_input_index, int)
            assert isinstance(b.run_output, list)


def test_allocation_events_are_read(fixtures):
    ins = quiet_inspector(etdump_path=fixtures + "/allocations.etdp")
    assert sum(len(b.events) for b in ins.event_blocks) > 0
