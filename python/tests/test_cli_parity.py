"""What a new user of the Python package trips over (issue 24, sections 4
and 7): outputs that are inputs, wrong kinds of file, and the places where
Python and `etkit` disagreed."""
import os

import pytest

from conftest import quiet_inspector, run_cli


def test_save_trace_refuses_its_input(fixtures, tmp_path):
    """save_trace over the ETDump it reads (also through a hard or a
    symbolic link) raises and leaves the dump as it was."""
    src = os.path.join(fixtures, "appendix_b.etdp")
    dump = tmp_path / "x.etdp"
    dump.write_bytes(open(src, "rb").read())
    before = dump.read_bytes()
    os.link(dump, tmp_path / "hard.etdp")
    os.symlink(dump, tmp_path / "soft.etdp")
    ins = quiet_inspector(etdump_path=str(dump))
    for target in ("x.etdp", "hard.etdp", "soft.etdp"):
        with pytest.raises(ValueError, match="same file as the input etdump_path"):
            ins.save_trace(str(tmp_path / target))
        assert dump.read_bytes() == before
    assert not [p for p in os.listdir(tmp_path) if ".tmp" in p]
    with pytest.raises(ValueError, match="same file as the input etdump_path"):
        ins.save_data_to_tsv(str(tmp_path / "hard.etdp"))
    assert dump.read_bytes() == before
    ins.save_trace(str(tmp_path / "t.json"))  # another file is fine
    assert (tmp_path / "t.json").stat().st_size > 0


def test_program_lists_methods_with_dtypes_and_shapes(conformance):
    import numpy as np
    import etkit

    p = etkit.Program(os.path.join(conformance, "add.pte"))
    assert [m.name for m in p.methods] == ["forward"]
    fwd = p.method()
    assert [(v.kind, v.dtype, v.shape) for v in fwd.inputs] == [
        ("tensor", np.dtype("float32"), (1,))] * 2
    assert [(v.kind, v.dtype, v.shape) for v in fwd.outputs] == [
        ("tensor", np.dtype("float32"), (1,))]
    assert "forward(float32 [1], float32 [1]) -> float32 [1]" in repr(p)
    with pytest.raises(KeyError, match="methods: forward"):
        p.method("nope")


def test_run_without_inputs_uses_ones_as_the_cli(conformance, cli):
    import subprocess
    import numpy as np
    import etkit

    pte = os.path.join(conformance, "add.pte")
    r = etkit.run(pte)
    np.testing.assert_array_equal(r.outputs[0], np.array([2.0], np.float32))
    out = subprocess.run([cli, "run", pte], capture_output=True, text=True)
    assert out.returncode == 0 and "= [2]" in out.stdout


def test_run_refuses_another_dtype_and_names_the_whole_shape(conformance):
    import numpy as np
    import etkit

    pte = os.path.join(conformance, "add.pte")
    with pytest.raises(TypeError, match=r"input 0 is float64 \[1\]; method "
                       r"'forward' takes float32 \[1\]"):
        etkit.run(pte, [np.array([1e40]), np.array([1.0], np.float32)])
    with pytest.raises(ValueError, match="does not fit float32"):
        etkit.run(pte, [[1e40], [1.0]])  # a list: converted, never to inf
    r = etkit.run(pte, [[0.5], [0.25]])  # a list converts when it fits
    assert r.outputs[0].tolist() == [0.75]
    with pytest.raises(ValueError, match=r"is FLOAT \[7, 7\]; the method takes "
                       r"FLOAT \[1\]"):
        etkit.run(pte, [np.zeros((7, 7), np.float32)] * 2)


def test_run_iterations_message_names_the_broken_condition(conformance):
    import etkit

    pte = os.path.join(conformance, "add.pte")
    for bad in (0, -1, 2 ** 64 + 1):
        with pytest.raises(ValueError, match=f"iterations must be 1..1000000, not {bad}"):
            etkit.run(pte, iterations=bad)


def test_run_result_repr_without_debug_buffer(conformance):
    import etkit

    r = etkit.run(os.path.join(conformance, "add.pte"))
    assert "debug_buffer=None," in repr(r) and "None bytes" not in repr(r)


def test_diff_takes_paths(fixtures):
    import etkit

    path = os.path.join(fixtures, "appendix_b.etdp")
    by_path = etkit.diff(path, path)
    by_obj = etkit.diff(quiet_inspector(etdump_path=path),
                        quiet_inspector(etdump_path=path))
    assert by_path.equals(by_obj) and len(by_path) > 0
    with pytest.raises(TypeError, match="Inspector objects or ETDump paths"):
        etkit.diff(path, 3)


def test_wrong_kinds_of_file_say_what_they_are(fixtures, conformance):
    import etkit

    pte = os.path.join(conformance, "add.pte")
    dump = os.path.join(fixtures, "appendix_b.etdp")
    with pytest.raises(Exception, match=r"this is an ExecuTorch program \(\.pte\), "
                       "not an ETDump: a program goes to"):
        quiet_inspector(etdump_path=pte)
    with pytest.raises(Exception, match="this is an ETDump, not an ETRecord"):
        etkit.parse_etrecord(dump)
    with pytest.raises(Exception, match="this is an ETDump, not an ExecuTorch program"):
        etkit.Program(dump)
    with pytest.raises(Exception, match="this is an ETDump, not a debug buffer"):
        quiet_inspector(etdump_path=dump, debug_buffer_path=dump)
    with pytest.raises(Exception, match="directory"):
        quiet_inspector(etdump_path=fixtures)


def test_etrecord_of_another_program_warns(conformance):
    import warnings
    import etkit

    dump = os.path.join(conformance, "etdump_tutorial.etdp")
    record = os.path.join(conformance, "etrecord_toy_mul.bin")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        etkit.Inspector(etdump_path=dump, etrecord=record)
    assert any("matches nothing in the ETDump" in str(w.message) for w in caught)


def test_print_data_tabular_blank_for_events_without_perf_data(oracle_dumps, cli):
    """tabulate prints None as an empty cell: events without perf data show
    empty statistics (never `nan`), in Python as in the CLI."""
    import io

    path = os.path.join(oracle_dumps, "nan_mixed.etdp")
    buf = io.StringIO()
    quiet_inspector(etdump_path=path).print_data_tabular(file=buf)
    text = buf.getvalue()
    assert " nan " not in text
    assert "│ named_debug         │            │" in text
    assert text == run_cli(cli, "--etdump_path", path).decode()


def test_unused_debug_buffer_warns(conformance, fixtures):
    """A debug buffer given with a dump that logs no values (another
    run's) is warned about, as `etkit inspect` warns."""
    import warnings
    import etkit

    dump = os.path.join(conformance, "etdump_tutorial.etdp")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        etkit.Inspector(etdump_path=dump, debug_buffer=b"\0" * 64)
    assert any("debug buffer is not used" in str(w.message) for w in caught)


def test_cli_catches_sigint_and_sigterm_and_dies_of_them(cli, tmp_path):
    """`etkit` installs the handler that removes NAME.tmp.<pid> files on
    SIGINT/SIGTERM (the handler itself: common_files_test) and still dies
    of the signal."""
    import signal
    import subprocess
    import time

    fifo = tmp_path / "in.etdp"
    os.mkfifo(fifo)
    for sig in (signal.SIGTERM, signal.SIGINT):
        proc = subprocess.Popen([cli, "inspect", str(fifo), "-o",
                                 str(tmp_path / "out.txt")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            caught = 0
            for _ in range(200):  # until main() has run (it blocks on the FIFO)
                with open(f"/proc/{proc.pid}/status") as f:
                    line = [l for l in f if l.startswith("SigCgt:")][0]
                caught = int(line.split()[1], 16)
                if caught & (1 << (sig - 1)):
                    break
                time.sleep(0.01)
            assert caught & (1 << (signal.SIGINT - 1))
            assert caught & (1 << (signal.SIGTERM - 1))
            proc.send_signal(sig)
            assert proc.wait(timeout=10) == -sig
        finally:
            if proc.poll() is None:
                proc.kill()
    assert not [p for p in os.listdir(tmp_path) if ".tmp." in p]
