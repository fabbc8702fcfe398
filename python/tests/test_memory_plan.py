"""etkit.memory_plan against `etkit memory PROGRAM --format json`: the
programs the memory-plan tests build (ETKIT_MEMORY_PLANS) and the
conformance programs, with and without an ETRecord; damaged programs."""
import glob
import json
import os
import subprocess
import warnings

import pytest

import etkit


@pytest.fixture(scope="session")
def plans():
    path = os.environ.get("ETKIT_MEMORY_PLANS", "")
    files = sorted(glob.glob(os.path.join(path, "*.pte")))
    if not files:
        pytest.skip("memory-plan programs absent (ETKIT_MEMORY_PLANS)")
    return files


def cli_json(cli, program, *args):
    out = subprocess.run([cli, "memory", program, "--format", "json", *args],
                         capture_output=True)
    assert out.returncode == 0, out.stderr.decode()
    return json.loads(out.stdout), out.stderr.decode()


def cli_check(cli, program):
    out = subprocess.run([cli, "memory", program, "--check"],
                         capture_output=True)
    assert out.returncode in (0, 3), out.stderr.decode()
    return out.stdout.decode().splitlines(), out.returncode


def cell(value):
    """A DataFrame cell as the JSON holds it (pd.NA -> None)."""
    import pandas as pd

    if value is pd.NA:
        return None
    if hasattr(value, "item"):
        return value.item()
    return value


def assert_rows_equal(frame, rows):
    assert len(frame) == len(rows)
    for i, row in enumerate(rows):
        for key, want in row.items():
            assert key in frame.columns, key
            got = cell(frame[key].iloc[i])
            # floats too: the JSON prints them to round-trip exactly
            assert got == want and type(got) is type(want), (key, i, got, want)


def assert_plan_equals_cli(cli, program, *args, plan=None):
    want, _ = cli_json(cli, program, *args)
    got = plan if plan is not None else etkit.memory_plan(program)
    assert got.method == want["method"]
    assert got.num_instructions == want["num_instructions"]
    assert got.num_chains == want["num_chains"]
    assert got.backward_jumps == want["backward_jumps"]
    assert got.overlap_total == want["overlap_total"]
    assert got.overlaps_truncated == want["overlaps_truncated"]
    assert_rows_equal(got.buffers, want["buffers"])
    assert_rows_equal(got.tensors, want["tensors"])
    assert_rows_equal(got.overlaps, want["overlaps"])
    assert (got.overlaps["kind"] == "unsafe").all()
    invalid = got.tensors.loc[got.tensors["invalid"], "value"].tolist()
    assert invalid == want["invalid"]
    lines, status = cli_check(cli, program)
    assert got.problems == lines
    assert got.ok == (status == 0)
    return got


def test_builder_programs_equal_cli(cli, plans):
    seen_problem = seen_ok = False
    for program in plans:
        got = assert_plan_equals_cli(cli, program)
        seen_problem |= not got.ok
        seen_ok |= got.ok
    # the fixtures cover a bad plan and a good one
    assert seen_problem and seen_ok


def test_dtypes(plans):
    program = [p for p in plans if p.endswith("chain_unsafe.pte")][0]
    got = etkit.memory_plan(program)
    assert list(got.buffers.columns[:5]) == [
        "mem_id", "size", "peak_bytes", "peak_instruction", "utilisation"]
    assert list(got.tensors.columns[:6]) == [
        "value", "mem_id", "offset", "nbytes", "first", "last"]
    assert list(got.overlaps.columns[:3]) == ["a", "b", "kind"]
    assert str(got.tensors["first"].dtype) == "Int64"
    assert str(got.buffers["peak_instruction"].dtype) == "Int64"
    assert str(got.tensors["nbytes"].dtype) == "int64"
    assert str(got.buffers["utilisation"].dtype) == "float64"
    assert len(got.overlaps) == 2 and not got.ok
    out = subprocess.run([os.environ["ETKIT_CLI"], "memory", program],
                         capture_output=True)
    assert str(got) == out.stdout.decode()


def test_methods_and_missing_method(plans):
    program = plans[0]
    assert etkit.memory_plan(program, method="forward").method == "forward"
    with pytest.raises(ValueError, match="no_such_method"):
        etkit.memory_plan(program, method="no_such_method")


def test_etrecord_names_equal_cli(cli, plans, fixtures):
    record = os.path.join(fixtures, "modules.etrecord")
    for program in plans:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = etkit.memory_plan(program, etrecord=record)
        assert_plan_equals_cli(cli, program, "--etrecord", record, plan=got)
    named = etkit.memory_plan([p for p in plans if p.endswith("long_chain.pte")][0],
                              etrecord=etkit.parse_etrecord(record))
    assert (named.tensors["name"] == "aten_add_tensor").sum() == 1
    with pytest.raises(TypeError):
        etkit.memory_plan(plans[0], etrecord=3)


def test_conformance_programs_equal_cli(cli, conformance):
    programs = sorted(glob.glob(os.path.join(conformance, "*.pte")))
    assert programs
    for program in programs:
        assert_plan_equals_cli(cli, program)
    record = os.path.join(conformance, "etrecord_toy_mul.bin")
    _, note = cli_json(cli, programs[0], "--etrecord", record)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = etkit.memory_plan(programs[0], etrecord=record)
    assert_plan_equals_cli(cli, programs[0], "--etrecord", record, plan=got)
    assert bool(note) == bool(caught)


def damaged_copies(program, tmp_path):
    data = open(program, "rb").read()
    yield "truncated", data[: len(data) // 2]
    flipped = bytearray(data)
    for i in range(8, len(flipped), 7):
        flipped[i] ^= 0xA5
    yield "flipped", bytes(flipped)


def test_damaged_programs_raise_cli_line(cli, plans, tmp_path):
    raised = 0
    for program in plans[:3]:
        for kind, data in damaged_copies(program, tmp_path):
            path = tmp_path / f"{kind.replace(' ', '_')}.pte"
            path.write_bytes(data)
            out = subprocess.run([cli, "memory", str(path), "--format", "json"],
                                 capture_output=True)
            if out.returncode == 0:
                # a damage the reader tolerates: same values both ways
                assert_plan_equals_cli(cli, str(path))
                continue
            with pytest.raises(ValueError) as info:
                etkit.memory_plan(str(path))
            message = str(info.value)
            assert "\n" not in message
            assert message in out.stderr.decode(), (kind, message)
            raised += 1
    assert raised >= 3
    # not a program at all: the CLI shows the dump view instead, so only
    # the Python side is checked
    path = tmp_path / "bad_identifier.pte"
    data = open(plans[0], "rb").read()
    path.write_bytes(data[:4] + b"XX12" + data[8:])
    with pytest.raises(ValueError, match="not an ExecuTorch program"):
        etkit.memory_plan(str(path))
    with pytest.raises(FileNotFoundError):
        etkit.memory_plan(str(tmp_path / "absent.pte"))


def test_leak_loop(plans):
    import gc
    import tracemalloc

    program = plans[0]
    for _ in range(20):
        etkit.memory_plan(program)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(200):
        etkit.memory_plan(program)
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert after - before < 200_000
