"""The package under misuse (issue 24, section 8): shared cells, ints taken
for file descriptors, unbounded reads, lost error text, masked integers,
the GIL held through long C work, damaged reference outputs, buffers of
the wrong type, inputs a cast would change, and what a dump can make the
package allocate.  Each test fails on the behaviour it replaces."""
import io
import os
import pathlib
import pickle
import resource
import signal
import subprocess
import threading
import time
import warnings
import zipfile

import numpy as np
import pytest

import etkit
from conftest import quiet_inspector


# ---------------------------------------------------------------- cells


def test_empty_cells_are_each_their_own(fixtures):
    path = os.path.join(fixtures, "appendix_b.etdp")
    owner = quiet_inspector(etdump_path=path)
    first = owner.to_dataframe()
    block = max(owner.event_blocks, key=lambda b: len(b.events)).to_dataframe()
    assert len(first) > 2 and len(block) > 1
    cells_seen = set()
    for frame in (first, block):
        for column, kind in (("op_types", list), ("stack_traces", dict),
                             ("module_hierarchy", dict), ("debug_data", list)):
            cells = list(frame[column])
            assert all(type(c) is kind and len(c) == 0 for c in cells), column
            ids = {id(c) for c in cells}
            assert len(ids) == len(cells), column
            assert not ids & cells_seen, column  # nor shared between columns or frames
            cells_seen |= ids
    first["op_types"][0].append("mine")
    first["stack_traces"][0]["k"] = "v"
    first["module_hierarchy"][1]["m"] = {}
    first["debug_data"][1].append(0)
    assert first["op_types"][1] == [] and first["stack_traces"][1] == {}
    assert first["module_hierarchy"][0] == {} and first["debug_data"][0] == []
    assert block["op_types"][0] == [] and block["stack_traces"][0] == {}
    # a later frame, of this Inspector and of others, is untouched
    for ins in (owner, quiet_inspector(etdump_path=path),
                quiet_inspector(etdump_path=os.path.join(fixtures, "delegates.etdp"))):
        later = ins.to_dataframe()
        assert later["op_types"][0] == [] and later["stack_traces"][0] == {}
        assert later["module_hierarchy"][1] == {} and later["debug_data"][1] == []


def test_columns_take_a_range(fixtures):
    handle = quiet_inspector(
        etdump_path=os.path.join(fixtures, "appendix_b.etdp"))._handle
    count = handle.event_count()
    whole = handle.columns(0, count)
    part = handle.columns(1, count - 1)
    assert len(whole["name"]) == count and len(part["name"]) == count - 2
    assert list(part["name"]) == list(whole["name"][1:count - 1])
    for lo, hi in ((-1, 1), (2, 1), (0, count + 1)):
        with pytest.raises(IndexError):
            handle.columns(lo, hi)


# ---------------------------------------------------------------- paths


def test_path_like_is_taken_everywhere(fixtures, numerics_fixtures, tmp_path):
    dump = pathlib.Path(fixtures) / "appendix_c.etdp"
    debug = pathlib.Path(fixtures) / "appendix_c_debug.bin"
    record = pathlib.Path(fixtures) / "modules.etrecord"
    by_str = quiet_inspector(etdump_path=str(dump), debug_buffer_path=str(debug))
    for d, b in ((dump, debug), (os.fsencode(dump), os.fsencode(debug))):
        ins = quiet_inspector(etdump_path=d, debug_buffer_path=b)
        assert _tsv(ins) == _tsv(by_str)
        got = ins.to_dataframe()["debug_data"]
        want = by_str.to_dataframe()["debug_data"]
        assert [len(v) for v in got] == [len(v) for v in want]
    quiet_inspector(etdump_path=pathlib.Path(fixtures) / "modules.etdp", etrecord=record)
    quiet_inspector(etdump_path=pathlib.Path(fixtures) / "modules.etdp",
                    etrecord=os.fsencode(record))
    assert etkit.parse_etrecord(record).path == str(record)
    by_str.save_trace(tmp_path / "t.json")
    assert (tmp_path / "t.json").stat().st_size > 0
    by_str.save_data_to_tsv(tmp_path / "t.tsv")
    assert (tmp_path / "t.tsv").read_bytes() == _tsv(by_str)


def _tsv(ins):
    buf = io.StringIO()
    ins.save_data_to_tsv(buf)
    return buf.getvalue().encode()


def test_memory_plan_takes_path_like(plan_program, fixtures):
    by_str = etkit.memory_plan(str(plan_program))
    by_path = etkit.memory_plan(pathlib.Path(plan_program))
    assert by_path.buffers.equals(by_str.buffers)
    assert etkit.memory_plan(os.fsencode(plan_program)).tensors.equals(by_str.tensors)


@pytest.fixture(scope="session")
def plan_program():
    folder = os.environ.get("ETKIT_MEMORY_PLANS", "")
    path = os.path.join(folder, "residual.pte")
    if not os.path.isfile(path):
        pytest.skip("memory-plan programs absent (ETKIT_MEMORY_PLANS)")
    return path


@pytest.fixture
def spare_fd():
    """A pipe's read end: an fd that a wrong call would read or close."""
    r, w = os.pipe()
    yield r
    os.close(w)
    try:
        os.close(r)
    except OSError:
        pass


@pytest.mark.parametrize("bad", ["fd", True, False, 3.0, None])
def test_ints_and_others_are_not_paths(fixtures, plan_program, spare_fd, bad, tmp_path):
    value = spare_fd if bad == "fd" else bad
    dump = os.path.join(fixtures, "appendix_b.etdp")
    ins = quiet_inspector(etdump_path=dump)
    calls = [
        lambda: ins.save_trace(value),
        lambda: ins.save_data_to_tsv(value),
        lambda: etkit.memory_plan(value),
        lambda: etkit.run(value, []),
        lambda: etkit.parse_etrecord(value),
    ]
    if value is not None:  # None means "not given" for these
        calls += [lambda: quiet_inspector(etdump_path=value),
                  lambda: quiet_inspector(etdump_path=dump, etrecord=value),
                  lambda: quiet_inspector(etdump_path=dump, debug_buffer_path=value),
                  lambda: etkit.memory_plan(plan_program, etrecord=value)]
    for call in calls:
        with pytest.raises(TypeError):
            call()
    os.fstat(spare_fd)  # still open: nobody took it for a file


def test_dev_zero_is_capped(fixtures, monkeypatch):
    from etkit import _checks

    assert _checks.MAX_INPUT_BYTES == 4 << 30  # etk_read_file's default
    monkeypatch.setattr(_checks, "MAX_INPUT_BYTES", 1 << 20)
    with pytest.raises(ValueError, match="larger than the limit of 1048576 bytes"):
        quiet_inspector(etdump_path=os.path.join(fixtures, "appendix_c.etdp"),
                        debug_buffer_path="/dev/zero")


# ---------------------------------------------------------------- messages


def test_error_text_with_bytes_that_are_not_utf8(tmp_path):
    bad = os.fsencode(tmp_path) + b"/\xff\xfe-missing.etdp"
    with pytest.raises(FileNotFoundError) as e:
        quiet_inspector(etdump_path=bad)
    text = str(e.value)
    assert "-missing.etdp" in text and "\ufffd" in text


def test_long_paths_stay_whole_in_messages(tmp_path, numerics_fixtures):
    deep = tmp_path.joinpath(*(["d" * 100] * 7))
    missing = deep / "x.etdp"
    with pytest.raises(FileNotFoundError) as e:
        quiet_inspector(etdump_path=missing)
    assert str(missing) in str(e.value)
    # compare_outputs.c used to cut the ETRecord's path to 60 characters
    deep.mkdir(parents=True)
    record = deep / "norefs.etrecord"
    record.write_bytes(pathlib.Path(numerics_fixtures, "compare_norefs.etrecord").read_bytes())
    ins = quiet_inspector(etdump_path=os.path.join(numerics_fixtures, "compare.etdp"),
                          etrecord=record)
    with pytest.raises(Exception) as e:
        ins.compare_results()
    assert str(record) in str(e.value)


def test_method_name_not_utf8(plan_program, tmp_path):
    data = pathlib.Path(plan_program).read_bytes()
    name = etkit.memory_plan(plan_program).method.encode()
    assert data.count(name) >= 1
    bad = name[:1] + b"\xff" + name[2:]
    damaged = tmp_path / "bad_name.pte"
    damaged.write_bytes(data.replace(name, bad))
    # the plan is read; the name decoded with replacement (it used to
    # raise UnicodeDecodeError)
    plan = etkit.memory_plan(damaged)
    assert plan.method == bad.decode("utf-8", "replace")
    assert "\ufffd" in plan.method and "\ufffd" in repr(plan)


# ---------------------------------------------------------------- run()


@pytest.fixture(scope="session")
def demo_model(cli, tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    done = subprocess.run([cli, "demo", "--output-dir", str(out)], capture_output=True)
    assert done.returncode == 0, done.stderr.decode()
    return str(out / "model.pte")


DEMO_INPUT = np.ones((1, 1, 8, 8), np.float32)


@pytest.mark.parametrize("iterations,error", [
    (2**64 + 1, ValueError), (2**32 + 1, ValueError), (-1, ValueError), (0, ValueError),
    (1000001, ValueError), (2.5, TypeError), (True, TypeError), ("3", TypeError)])
def test_run_refuses_iterations(demo_model, iterations, error):
    with pytest.raises(error, match="iterations"):
        etkit.run(demo_model, [DEMO_INPUT], iterations=iterations)


def test_run_refuses_inputs_a_cast_would_change(demo_model):
    # float64 for a float32 input is refused as the CLI refuses it (§7):
    # etkit never casts
    with pytest.raises(TypeError, match="float64"):
        etkit.run(demo_model, [DEMO_INPUT.astype(np.float64) / 3])
    assert etkit.run(demo_model, [DEMO_INPUT.astype(np.float32) / 3]).outputs
    with pytest.raises(TypeError, match="input 0"):
        etkit.run(demo_model, ["not a tensor"])
    with pytest.raises(TypeError, match="input 0"):
        etkit.run(demo_model, [np.full((1, 1, 8, 8), "x")])
    with pytest.raises(TypeError, match="complex"):
        etkit.run(demo_model, [DEMO_INPUT.astype(np.complex64)])
    with pytest.raises((TypeError, ValueError)):
        etkit.run(demo_model, [np.full((1, 1, 8, 8), 1e300)])


def test_first_misfit_rules():
    from etkit._checks import first_misfit

    assert first_misfit(np.array([0.1, -3.0, np.inf, np.nan]), np.float32) is None
    assert first_misfit(np.array([1.0, 1e300]), np.float32) == 1e300
    assert first_misfit(np.array([1.0, 2.5]), np.int32) == 2.5
    assert first_misfit(np.array([3, 300]), np.uint8) == 300
    assert first_misfit(np.array([0.0, 1.0]), np.bool_) is None
    assert first_misfit(np.array([2]), np.bool_) == 2
    assert first_misfit(np.array([np.nan]), np.int64) is not None


# ---------------------------------------------------------------- threads


def _ticks_during(fn):
    """How often another Python thread ran while fn() ran (it ticks every
    millisecond when it gets the GIL), and fn's duration."""
    ticks, stop = [], threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    th = threading.Thread(target=ticker)
    th.start()
    time.sleep(0.02)
    t0 = time.perf_counter()
    try:
        fn()
    finally:
        t1 = time.perf_counter()
        stop.set()
        th.join()
    return sum(1 for t in ticks if t0 <= t <= t1), t1 - t0


@pytest.fixture(scope="module")
def wide(python_fixtures):
    return quiet_inspector(etdump_path=os.path.join(python_fixtures, "wide.etdp"))


# A call that holds the GIL throughout lets the ticker run at most once or
# twice (at its edges); these calls take tens of milliseconds or more.
MIN_TICKS = 5


def test_rendering_lets_other_threads_run(wide, tmp_path):
    # the C rendering alone (no Python work inside): before, no tick
    ticks, took = _ticks_during(lambda: wide._handle.render(1, 0, True, False))
    assert ticks >= MIN_TICKS, (ticks, took)
    ticks, took = _ticks_during(lambda: wide.print_data_tabular(file=io.StringIO()))
    assert ticks >= MIN_TICKS, (ticks, took)
    ticks, took = _ticks_during(lambda: wide.save_trace(tmp_path / "t.json"))
    assert ticks >= MIN_TICKS, (ticks, took)


def test_dataframe_columns_let_other_threads_run(wide):
    count = wide._handle.event_count()
    ticks, took = _ticks_during(lambda: wide._handle.columns(0, count))
    assert ticks >= MIN_TICKS, (ticks, took)
    ticks, took = _ticks_during(wide.to_dataframe)
    assert ticks >= MIN_TICKS, (ticks, took)


def test_run_lets_other_threads_run_and_stops_on_ctrl_c(demo_model):
    ticks, took = _ticks_during(
        lambda: etkit.run(demo_model, [DEMO_INPUT], iterations=3000))
    assert ticks >= MIN_TICKS, (ticks, took)
    per_run = took / 3000
    n = int(min(300000, max(3000, 20.0 / per_run)))  # about 20 s of runs
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    t0 = time.perf_counter()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        etkit.run(demo_model, [DEMO_INPUT], iterations=n)
    stopped = time.perf_counter() - t0
    timer.join()
    assert stopped < 0.5 * n * per_run, (stopped, n * per_run)


# ---------------------------------------------------------------- buffers


def test_etdump_data_and_debug_buffer_types(fixtures):
    path = os.path.join(fixtures, "appendix_c.etdp")
    with open(path, "rb") as f:
        data = f.read()
    with open(os.path.join(fixtures, "appendix_c_debug.bin"), "rb") as f:
        debug = f.read()
    want = quiet_inspector(etdump_data=data, debug_buffer=debug).to_dataframe()
    for wrap in (bytearray, memoryview):
        got = quiet_inspector(etdump_data=wrap(data), debug_buffer=wrap(debug)).to_dataframe()
        assert len(got) == len(want)
        for a, b in zip(got["debug_data"], want["debug_data"]):
            assert len(a) == len(b)
            for x, y in zip(a, b):
                np.testing.assert_array_equal(x, y)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for bad in (2**31, 2**31 - 1, 5, [0, 1, 2], "text", 1.5, True):
        with pytest.raises(TypeError, match="etdump_data"):
            quiet_inspector(etdump_data=bad)
        with pytest.raises(TypeError, match="debug_buffer"):
            quiet_inspector(etdump_data=data, debug_buffer=bad)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak) / 1024
    assert grown_mb < 100  # bytes(2**31) would have taken 2 GiB


def _with_reference_pickle(src, dst, payload: bytes):
    """A copy of ETRecord `src` whose reference_outputs archive holds
    `payload` as its data.pkl."""
    with zipfile.ZipFile(src) as outer:
        inner = outer.read("reference_outputs")
        buf = io.BytesIO()
        with zipfile.ZipFile(io.BytesIO(inner)) as zin, \
                zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zout:
            for item in zin.infolist():
                body = payload if item.filename.endswith("data.pkl") else zin.read(item)
                zout.writestr(item.filename, body)
        with zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
            for item in outer.infolist():
                body = buf.getvalue() if item.filename == "reference_outputs" \
                    else outer.read(item)
                zout.writestr(item, body)


@pytest.mark.parametrize("payload", [[1, 2], {"forward": 5}, {"forward": []},
                                     {"other": [[1.0]]}, 7])
def test_damaged_reference_outputs_warn(numerics_fixtures, tmp_path, payload):
    record = tmp_path / "damaged.etrecord"
    _with_reference_pickle(os.path.join(numerics_fixtures, "compare.etrecord"), record,
                           pickle.dumps(payload, protocol=2))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ins = etkit.Inspector(
            etdump_path=os.path.join(numerics_fixtures, "compare.etdp"),
            etrecord=str(record),
            debug_buffer_path=os.path.join(numerics_fixtures, "compare.bin"))
    assert any("reference outputs" in str(w.message) for w in caught), \
        [str(w.message) for w in caught]
    assert all(b.reference_output is None for b in ins.event_blocks)
    ins.to_dataframe()


def test_declared_giant_tensor_allocates_nothing(python_fixtures):
    path = os.path.join(python_fixtures, "huge_tensor.etdp")
    assert os.path.getsize(path) < 16384
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    df = quiet_inspector(etdump_path=path).to_dataframe()
    (value,) = df["debug_data"][0]
    assert value.shape == (1024, 1024, 1024) and value.dtype == np.float32
    assert not value.flags.writeable
    assert value[5, 6, 7] == 0 and value[-1].max() == 0
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 64, grown_mb
