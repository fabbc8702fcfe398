"""Inspector(..., compensate=True): the recorder's own cost taken out of
the durations, from the calibration `etkit run` and etkit.run() write."""
import math
import subprocess
import warnings

import pytest

import etkit


def _inspector(**kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return etkit.Inspector(**kwargs)


def _calibration(etdump):
    """The marker's figures, read back from the bytes by etkit's parser."""
    names = [b.decode() for b in etdump.split(b"\0") if b"etkit:calibration=" in b]
    assert len(names) == 1
    text = names[0][names[0].index("etkit:calibration="):]
    return dict(kv.split("=") for kv in text[len("etkit:calibration="):].split(","))


def _durations(insp, name):
    out = []
    for block in insp.event_blocks:
        for ev in block.events:
            if ev.name == name and ev.perf_data is not None:
                out.extend(ev.perf_data.raw)
    return out


def _nested_counts(insp):
    """Events of each Execute block, to know how many Method::execute holds."""
    return [len(b.events) for b in insp.event_blocks if b.name == "Execute"]


@pytest.fixture(scope="module")
def traced(demo):
    return etkit.run(str(demo / "model.pte"), iterations=3)


def test_run_calibrates_by_default(demo, traced):
    figures = _calibration(traced.etdump)
    assert float(figures["pair"]) > 0
    assert int(figures["reps"]) == 31
    plain = etkit.run(str(demo / "model.pte"), iterations=3, calibrate=False)
    assert b"etkit:calibration=" not in plain.etdump


def test_compensate_subtracts_the_events_inside(traced):
    raw = _inspector(etdump_data=traced.etdump, target_time_scale="ns")
    comp = _inspector(etdump_data=traced.etdump, target_time_scale="ns",
                      compensate=True)
    # 1 ns per event: what is taken off counts the events inside
    ones = _inspector(etdump_data=traced.etdump, target_time_scale="ns",
                      event_cost_ns=1.0)
    figures = _calibration(traced.etdump)
    # etkit's executor marks its kernel calls' wrappers adjacent: each run
    # measures its own pair from their gaps (docs/inspector.md)
    assert figures["adjacent"] == "1"
    pair, skipped = float(figures["pair"]), float(figures["skipped"])
    # the blocks are the same (the marker is no block), the events too
    assert [b.name for b in raw.event_blocks] == [b.name for b in comp.event_blocks]
    assert _nested_counts(raw) == _nested_counts(comp)
    r = _durations(raw, "Method::execute")
    c = _durations(comp, "Method::execute")
    n = _durations(ones, "Method::execute")
    assert len(r) == len(c) == len(n) == 3
    for x, y, z in zip(r, c, n):
        assert y < x
        # a whole number of events inside (OPERATOR_CALL events included:
        # more than the table's rows), each costing the run's pair less
        # skipped; a median of whole-tick gaps is a whole or half tick
        k = x - z
        assert k >= 1 and k == pytest.approx(round(k), abs=1e-6)
        run_pair = (x - y) / round(k) + skipped
        assert pair / 4 <= run_pair <= pair * 4
        assert 2 * run_pair == pytest.approx(round(2 * run_pair), abs=1e-6)
    # leaf kernels keep their durations exactly
    for name in ("native_call_addmm.out",):
        assert _durations(raw, name) == _durations(comp, name)


def test_event_cost_for_a_dump_without_calibration(demo):
    plain = etkit.run(str(demo / "model.pte"), iterations=2, calibrate=False)
    with pytest.raises(ValueError, match="calibration"):
        _inspector(etdump_data=plain.etdump, compensate=True)
    raw = _inspector(etdump_data=plain.etdump, target_time_scale="ns")
    given = _inspector(etdump_data=plain.etdump, target_time_scale="ns",
                       event_cost_ns=5.0)
    r = _durations(raw, "Method::execute")
    g = _durations(given, "Method::execute")
    for x, y in zip(r, g):
        k = (x - y) / 5.0
        assert k >= 1 and math.isclose(k, round(k), abs_tol=1e-6)
    for bad in (0, -1.0, "5", True):
        with pytest.raises(ValueError):
            _inspector(etdump_data=plain.etdump, event_cost_ns=bad)


def test_without_the_flag_the_marker_is_invisible(traced):
    """The marker run adds no block, row or column."""
    a = _inspector(etdump_data=traced.etdump)
    df = a.to_dataframe()
    assert "etkit:calibration" not in " ".join(map(str, df["event_block_name"]))
    # Default and one merged Execute block: the marker is no block
    assert [b.name for b in a.event_blocks] == ["Default", "Execute"]


def test_cli_compensate_agrees_with_python(cli, traced, tmp_path):
    import json

    path = tmp_path / "run.etdp"
    path.write_bytes(traced.etdump)
    out = subprocess.run([cli, "inspect", str(path), "--compensate", "--format",
                          "json", "--target_time_scale", "ns"],
                         check=True, capture_output=True, text=True).stdout
    rows = [e for e in json.loads(out)["events"]
            if e["event_name"] == "Method::execute"]
    comp = _inspector(etdump_data=traced.etdump, target_time_scale="ns",
                      compensate=True)
    want = _durations(comp, "Method::execute")
    assert len(rows) == 1
    assert rows[0]["min (ns)"] == pytest.approx(min(want))
    assert rows[0]["max (ns)"] == pytest.approx(max(want))
