"""Damaged inputs raise one clean exception and the interpreter lives on;
repeated use does not leak."""
import gc
import glob
import os
import resource
import sys
import warnings

import numpy as np
import pytest

import etkit
from conftest import quiet_inspector

ERRORS = (ValueError, OSError, RuntimeError, MemoryError)


def exercise(ins):
    for b in ins.event_blocks:
        for e in b.events:
            e.perf_data and e.perf_data.avg
            e.debug_data
    ins.to_dataframe()


def test_bad_input_corpus(source_dir):
    """Every file of the corpus is damaged (the CLI refuses each, see its
    .err golden): the package must raise too, by path and by bytes, with
    the CLI's message (upstream's own text for an empty block)."""
    files = sorted(glob.glob(os.path.join(source_dir, "tests/inspector/bad_inputs/*.etdp")))
    assert len(files) >= 5
    for path in files:
        with open(path, "rb") as f:
            data = f.read()
        with open(path[:-len(".etdp")] + ".err", encoding="utf-8") as f:
            cli = f.read().strip()
        assert cli.startswith("etkit inspect: @FILE@: "), path
        want = cli[len("etkit inspect: @FILE@: "):]
        for kwargs in ({"etdump_path": path}, {"etdump_data": data}):
            with pytest.raises(ERRORS) as e:
                exercise(quiet_inspector(**kwargs))
            text = str(e.value)
            assert text and "\n" not in text, path
            if "empty events vector" in want:
                assert text == "No objects to concatenate", (path, text)
            else:
                assert want in text, (path, kwargs.keys(), text, want)


def test_truncations_and_bit_flips(fixtures):
    with open(fixtures + "/appendix_c.etdp", "rb") as f:
        good = f.read()
    with open(fixtures + "/appendix_c_debug.bin", "rb") as f:
        dbg = f.read()
    cases = [good[:n] for n in range(0, len(good), max(1, len(good) // 97))]
    for k in range(0, len(good), 7):
        flipped = bytearray(good)
        flipped[k] ^= 0xFF
        cases.append(bytes(flipped))
    raised = 0
    for data in cases:
        try:
            exercise(quiet_inspector(etdump_data=data, debug_buffer=dbg[: len(dbg) // 2]))
        except ERRORS:
            raised += 1
    assert raised > 0


def test_debug_buffer_too_short(fixtures):
    # run outputs are inflated when the Inspector is built (as upstream),
    # intermediate values when an event is first touched
    with pytest.raises(ValueError, match="outside the debug buffer"):
        ins = quiet_inspector(etdump_path=fixtures + "/appendix_c.etdp",
                              debug_buffer=b"\0" * 3)
        for b in ins.event_blocks:
            for e in b.events:
                e.debug_data


def test_no_leak_in_a_loop(fixtures, oracle_dumps):
    path = os.path.join(oracle_dumps, "delegates.etdp")
    data = open(path, "rb").read()

    def once():
        ins = quiet_inspector(etdump_data=data)
        exercise(ins)
        ins.event_blocks[0].to_dataframe()
        try:
            quiet_inspector(etdump_data=data[:100])
        except ERRORS:
            pass

    for _ in range(20):
        once()
    gc.collect()
    refs = sys.gettotalrefcount() if hasattr(sys, "gettotalrefcount") else None
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    blocks = len(gc.get_objects())
    for _ in range(100):
        once()
    gc.collect()
    assert len(gc.get_objects()) - blocks < 200
    assert sys.getrefcount(data) < 10
    growth_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0
    assert growth_kb < 20 * 1024, growth_kb
    if refs is not None:
        assert sys.gettotalrefcount() - refs < 1000


def test_damaged_programs_through_run(conformance, tmp_path):
    with open(os.path.join(conformance, "add.pte"), "rb") as f:
        good = f.read()
    x = np.ones(1, np.float32)
    failures = 0
    for n in list(range(0, len(good), max(1, len(good) // 40))) + [len(good) - 1]:
        path = tmp_path / "cut.pte"
        path.write_bytes(good[:n])
        try:
            etkit.run(str(path), [x, x])
        except ERRORS + (TypeError, KeyError) as e:
            assert str(e) and "\n" not in str(e)
            failures += 1
    assert failures > 0


def test_run_does_not_leak(conformance):
    pte = os.path.join(conformance, "add.pte")
    x = np.ones(1, np.float32)
    for _ in range(10):  # warm-up: the same calls as measured (pandas caches)
        r = etkit.run(pte, [x, x], iterations=2, debug_level="intermediates")
        quiet_inspector(etdump_data=r.etdump, debug_buffer=r.debug_buffer).to_dataframe()
    gc.collect()
    objects = len(gc.get_objects())
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(100):
        r = etkit.run(pte, [x, x], iterations=2, debug_level="intermediates")
        quiet_inspector(etdump_data=r.etdump, debug_buffer=r.debug_buffer).to_dataframe()
    gc.collect()
    assert len(gc.get_objects()) - objects < 200
    assert sys.getrefcount(x) < 10
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0 < 20 * 1024
