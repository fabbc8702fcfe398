"""etkit.run's flight recorder (profile_mode="ring", keep_runs, trigger,
keep_after, trigger_limit, trigger_spacing, snapshot_dir): the options of
`etkit run` of the same names (docs/triggers.md)."""
import re
import warnings

import pytest

import etkit


def _inspector(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return etkit.Inspector(etdump_data=data)


def _executes(data):
    return [d for b in _inspector(data).event_blocks for e in b.events
            if e.name == "Method::execute" for d in e.perf_data.raw]


def _note(snapshot):
    notes = re.findall(rb"etkit:trigger=([^\x00]*)", snapshot)
    assert len(notes) == 1
    return dict(kv.split("=", 1) for kv in notes[0].decode().split(",", 5))


def test_ring_keeps_the_newest_runs(demo):
    full = etkit.run(str(demo / "model.pte"), iterations=20)
    ring = etkit.run(str(demo / "model.pte"), iterations=20, profile_mode="ring",
                     keep_runs=4)
    assert len(_executes(full.etdump)) == 20
    assert len(_executes(ring.etdump)) == 4
    assert ring.snapshots == [] and ring.suppressed == 0
    # the size stays fixed however many runs
    longer = etkit.run(str(demo / "model.pte"), iterations=60, profile_mode="ring",
                       keep_runs=4)
    assert len(longer.etdump) == len(ring.etdump)


def test_trigger_limit_spacing_keep_after_and_files(demo, tmp_path):
    r = etkit.run(str(demo / "model.pte"), iterations=40, trigger="Method::execute>0ns",
                  keep_after=1, trigger_limit=2, trigger_spacing=10,
                  snapshot_dir=tmp_path / "snaps", profile_mode="ring", keep_runs=3)
    # every run fires; taken at runs 0 and 10, the 38 others are not
    assert [_note(s)["run"] for s in r.snapshots] == ["0", "10"]
    assert [_note(s)["after"] for s in r.snapshots] == ["1", "1"]
    assert r.suppressed == 38
    assert [p.rsplit("/", 1)[1] for p in map(str, r.snapshot_paths)] == [
        "snapshot-000.etdp", "snapshot-001.etdp"]
    for path, data in zip(r.snapshot_paths, r.snapshots):
        with open(path, "rb") as f:
            assert f.read() == data
    # a snapshot holds the firing run and the one after it (run 0 has no
    # earlier run), and reads as an ETDump
    assert len(_executes(r.snapshots[0])) == 2
    assert len(_executes(r.snapshots[1])) == 3 + 1


def test_duration_threshold_fires_only_above_it(demo):
    never = etkit.run(str(demo / "model.pte"), iterations=5, trigger="Method::execute>100s")
    assert never.snapshots == [] and never.suppressed == 0
    op = etkit.run(str(demo / "model.pte"), iterations=5, trigger="native_call_addmm*>0ns",
                   trigger_limit=1)
    note = _note(op.snapshots[0])
    assert note["event"] == "native_call_addmm.out" and note["run"] == "0"


def test_p99_of_a_pattern_fires_once_it_has_its_samples(demo):
    """One sketch per trigger over every event its pattern matches: here
    the demo's seven native_call_* operators (different ops, one p99)."""
    prog = str(demo / "model.pte")
    per_run = sum(1 for b in _inspector(etkit.run(prog).etdump).event_blocks
                  for e in b.events if e.name.startswith("native_call_"))
    assert per_run == 7
    low = etkit.run(prog, iterations=30, trigger="native_call_*>1e-9*p99", trigger_limit=1)
    # 100 durations first (ETK_FLIGHT_DEFAULT_MIN_SAMPLES), the first one
    # after them is above a billionth of the p99
    assert _note(low.snapshots[0])["run"] == str(100 // per_run)
    high = etkit.run(prog, iterations=30, trigger="native_call_*>1e9*p99")
    assert high.snapshots == []


def test_nan_trigger_on_logged_tensors(demo):
    # the demo's values are finite: a nan trigger never fires
    r = etkit.run(str(demo / "model.pte"), iterations=3, debug_level="intermediates",
                  trigger="nan")
    assert r.snapshots == []


@pytest.mark.parametrize("kwargs, error", [
    (dict(trigger="x>2parsecs"), "unknown unit"),
    (dict(keep_runs=3), "keep_runs needs profile_mode='ring'"),
    (dict(snapshot_dir="s"), "need a trigger"),
    (dict(profile_mode="stats2"), "profile_mode must be"),
    (dict(profile_mode="ring", keep_runs=0), "keep_runs"),
    # triggers that could never fire
    (dict(trigger="nan"), "trigger 'nan' needs a debug_level"),
    (dict(trigger=["Method::execute>2ms", "nan"]), "needs a debug_level"),
    (dict(trigger="mismatch"), "cannot fire in etkit.run"),
    (dict(trigger="manual"), "cannot fire in etkit.run"),
])
def test_misuse(demo, kwargs, error):
    with pytest.raises(ValueError, match=re.escape(error)):
        etkit.run(str(demo / "model.pte"), **kwargs)
