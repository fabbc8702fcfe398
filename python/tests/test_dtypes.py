"""Debug values of every dtype upstream inflates, checked element by element
against the debug buffer's bytes (make_python_fixtures writes 0, 1, 2, ...)."""
import os

import numpy as np
import pytest

from conftest import quiet_inspector, run_cli

DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
          "bool", "uint16", "uint16"]


def open_dtypes(python_fixtures, buffer=True):
    return quiet_inspector(
        etdump_path=os.path.join(python_fixtures, "dtypes.etdp"),
        debug_buffer_path=os.path.join(python_fixtures, "dtypes.bin") if buffer else None)


def test_every_dtype(python_fixtures):
    ins = open_dtypes(python_fixtures)
    block = ins.event_blocks[0]
    assert block.name == "Execute" and block.bundled_input_index == 0
    with open(os.path.join(python_fixtures, "dtypes.bin"), "rb") as f:
        buf = f.read()
    tensors = [e.debug_data[0] for e in block.events[: len(DTYPES)]]
    for k, (t, dtype) in enumerate(zip(tensors, DTYPES)):
        assert isinstance(t, np.ndarray)
        assert t.dtype == np.dtype(dtype) and t.shape == (2, 3)
        want = np.frombuffer(buf, dtype=np.uint8 if dtype == "bool" else dtype,
                             count=6, offset=64 * k).reshape(2, 3)
        if dtype == "bool":
            want = want.astype(bool)
        np.testing.assert_array_equal(t, want)
    scalars = [e.debug_data[0] for e in block.events[len(DTYPES): len(DTYPES) + 5]]
    assert scalars == [-42, True, 0.25, 0.25, None]
    assert type(scalars[0]) is int and type(scalars[1]) is bool
    lst = block.events[len(DTYPES) + 5].debug_data[0]
    assert isinstance(lst, list) and [a.dtype.name for a in lst] == ["float32", "int64"]


def test_merged_runs(python_fixtures):
    ins = open_dtypes(python_fixtures)
    ev = ins.event_blocks[0].events[0]
    assert len(ev.perf_data.raw) == 3 and len(ev.start_time) == 3
    assert ev.start_time == [1000, 101000, 201000]


def test_zeros_without_buffer(python_fixtures):
    ins = open_dtypes(python_fixtures, buffer=False)
    for e in ins.event_blocks[0].events[: len(DTYPES)]:
        assert not e.debug_data[0].any()


def test_unsupported_dtype_fails_at_open(python_fixtures):
    # upstream's Inspector inflates every debug value while it builds its
    # events and raises RuntimeError("Unsupported scalar type ...")
    with pytest.raises(RuntimeError, match="Unsupported scalar type"):
        quiet_inspector(
            etdump_path=os.path.join(python_fixtures, "bf16.etdp"),
            debug_buffer_path=os.path.join(python_fixtures, "dtypes.bin"))
    # without a debug buffer there is nothing to inflate
    ins = quiet_inspector(etdump_path=os.path.join(python_fixtures, "bf16.etdp"))
    assert ins.event_blocks[0].name == "Unsupported"


def test_dtypes_tsv_equals_cli(python_fixtures, cli):
    import io

    ins = open_dtypes(python_fixtures)
    out = io.StringIO()
    ins.save_data_to_tsv(out)
    path = os.path.join(python_fixtures, "dtypes.cli.tsv")
    run_cli(cli, "--etdump_path", os.path.join(python_fixtures, "dtypes.etdp"),
            "--debug_buffer_path", os.path.join(python_fixtures, "dtypes.bin"),
            "--tsv_path", path, "--output", os.devnull)
    with open(path, "rb") as f:
        assert out.getvalue().encode() == f.read()
