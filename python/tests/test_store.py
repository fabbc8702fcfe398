"""etkit.Store (docs/store.md): add, runs, trend and compare as DataFrames
on a SQLite file, with dumps from tests/store/make_store_dumps.c (a1..a5
baseline, b1..b5 with op_007 10 % slower)."""
import os
import subprocess

import pytest

import etkit


@pytest.fixture(scope="module")
def dumps(tmp_path_factory):
    maker = os.environ.get("ETKIT_MAKE_STORE_DUMPS")
    if not maker:
        pytest.skip("ETKIT_MAKE_STORE_DUMPS is not set (run through ctest)")
    folder = tmp_path_factory.mktemp("store_dumps")
    subprocess.run([maker, str(folder)], check=True)
    return folder


@pytest.fixture()
def store(dumps, tmp_path):
    s = etkit.Store(tmp_path / "runs.db")
    for i in range(1, 6):
        s.add(dumps / f"a{i}.etdp", commit="a", model="m")
        s.add(dumps / f"b{i}.etdp", tags={"commit": "b"}, model="m")
    return s


def test_add_is_idempotent(store, dumps):
    runs = store.runs()
    assert len(runs) == 10
    again = store.add(dumps / "a1.etdp", commit="a")
    assert again == int(runs.loc[runs.source.str.endswith("a1.etdp"), "id"].iloc[0])
    assert len(store.runs()) == 10
    assert list(store.runs(commit="b").commit) == ["b"] * 5


def test_trend(store):
    t = store.trend(op="op_007")
    assert len(t) == 10
    assert (t["samples"] == 8).all()
    # the candidate runs are about 10 % slower
    ratio = t["median"].iloc[5:].median() / t["median"].iloc[:5].median()
    assert 1.05 < ratio < 1.15
    assert len(store.trend(method="Execute", commit="a")) == 5
    with pytest.raises(ValueError):
        store.trend(op="op_007", method="Execute")


def test_compare_finds_only_the_planted_change(store):
    c = store.compare({"commit": "a"}, {"commit": "b"})
    assert len(c) == 31
    flagged = c[c["significant"]]
    assert list(flagged["name"]) == ["op_007"]
    row = flagged.iloc[0]
    assert row["direction"] == "slower"
    assert row["ci_low"] > 0 and 5 < row["delta_pct"] < 15
    for column in ("baseline", "candidate", "p_value", "q_value", "ci_high"):
        assert column in c.columns


def test_stats_mode_runs_come_from_their_sketches(dumps, tmp_path):
    # s1..s3: stats-mode dumps (a latency sketch per operator); t1..t3 the
    # same with op_007 2x slower
    s = etkit.Store(tmp_path / "stats.db")
    for i in range(1, 4):
        s.add(dumps / f"s{i}.etdp", commit="s")
        s.add(dumps / f"t{i}.etdp", commit="t")
        s.add(dumps / f"a{i}.etdp", commit="a")
    t = s.trend(op="op_007")
    assert list(t["from"]) == ["sketch", "sketch", "samples"] * 3
    sketch = t[t["from"] == "sketch"]
    assert (sketch["error_bound"] == 0.01).all() and (sketch["samples"] == 8).all()
    assert (t["p90"] >= t["median"]).all() and (t["p99"] >= t["p90"]).all()
    c = s.compare({"commit": "s"}, {"commit": "t"})
    flagged = c[c["significant"] & (c["name"] == "op_007")]
    assert len(flagged) == 1
    row = flagged.iloc[0]
    assert row["rule"] == "sketch-bounds" and 80 < row["delta_pct"] < 120
    assert row["ci_low"] > 0 and row["q_value"] != row["q_value"]  # NaN
    # full runs against full runs keep the rank test
    assert set(s.compare({"commit": "a"}, {"commit": "a"})["rule"]) == {"mann-whitney"}


def test_bad_queries_raise(store, tmp_path):
    with pytest.raises(ValueError, match="nosuchkey"):
        store.runs(nosuchkey="1")
    with pytest.raises(Exception):
        etkit.Store(tmp_path / "missing.db").runs()
    with pytest.raises(Exception):
        store.add(tmp_path / "missing.etdp")


def test_failed_first_add_leaves_no_file(tmp_path, dumps):
    """A failed add into a store that did not exist creates no file (the
    CLI and Python share the library's rule); a good add keeps it."""
    bad = tmp_path / "bad.etdp"
    bad.write_bytes(b"not an etdump at all")
    new = tmp_path / "new.db"
    with pytest.raises(ValueError):
        etkit.Store(new).add(bad)
    assert sorted(os.listdir(tmp_path)) == ["bad.etdp"]
    etkit.Store(new).add(dumps / "a1.etdp")
    assert new.exists()
    with pytest.raises(ValueError):
        etkit.Store(new).add(bad)
    assert len(etkit.Store(new).runs()) == 1


def test_nul_and_empty_conditions_are_refused(store, dumps):
    # a NUL used to cut the tag at it ('a\x00b' stored as 'a'); an empty
    # condition (an unset variable) selected every run
    with pytest.raises(ValueError, match="NUL"):
        store.add(dumps / "a1.etdp", tags={"k": "a\x00b"})
    with pytest.raises(ValueError, match="NUL"):
        store.runs(**{"co\x00mmit": "a"})
    with pytest.raises(ValueError, match="empty value"):
        store.runs(digest="")
    with pytest.raises(ValueError, match="empty value"):
        store.compare({"commit": ""}, {"commit": "b"})


def test_repr_hides_the_password():
    s = etkit.Store("postgresql://ci:s3cret@db.example/runs?password=other")
    text = repr(s)
    assert "s3cret" not in text and "other" not in text
    assert "postgresql://ci:***@db.example/runs" in text


def test_show_export_report_prune(store, tmp_path):
    runs = store.runs()
    assert str(runs["added"].dtype).startswith("datetime64")
    shown = store.show(int(runs["id"][0]))
    assert "op_007" in set(shown["operator"])
    with pytest.raises(ValueError):
        store.show("1")
    v3 = store.export("v3", commit="b")
    assert '"benchmark_values"' in v3
    assert store.export("csv", commit="a").count("\n") > 5
    page = tmp_path / "r.md"
    assert store.report({"commit": "a"}, {"commit": "b"}, page) is None
    assert "op\\_007" in page.read_text()
    assert "<svg" in store.report({"commit": "a"}, {"commit": "b"})
    assert store.prune(commit="a", keep_last=2, dry_run=True) == [1, 3, 5]
    assert len(store.runs()) == 10
    assert store.prune(commit="a", keep_last=2) == 3
    assert len(store.runs()) == 7
    with pytest.raises(ValueError):
        store.prune()


def test_run_time_is_a_datetime64(tmp_path, dumps):
    import datetime

    import pandas as pd

    s = etkit.Store(str(tmp_path / "timed.db"))
    s.add(dumps / "a1.etdp", run_time="2026-01-02T03:04:05+01:00")
    s.add(dumps / "a2.etdp",
          run_time=datetime.datetime(2026, 1, 3, 4, 5, 6))  # naive: UTC
    s.add(dumps / "a3.etdp")
    runs = s.runs()
    assert str(runs["run_time"].dtype).startswith("datetime64")
    assert runs["run_time"][0] == pd.Timestamp("2026-01-02 02:04:05", tz="UTC")
    assert runs["run_time"][1] == pd.Timestamp("2026-01-03 04:05:06", tz="UTC")
    assert pd.isna(runs["run_time"][2])
    # since= selects on the run's own time when it has one
    assert list(s.runs(since="2026-01-03")["id"]) == [2, 3]
    assert "run_time" in s.export("csv").splitlines()[0].split(",")
    with pytest.raises(ValueError):
        s.add(dumps / "a4.etdp", run_time="yesterday")
    with pytest.raises(ValueError):
        s.add(dumps / "a4.etdp", run_time=12)
