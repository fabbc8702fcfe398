"""etkit.run(..., profile_mode="stats"): a latency sketch per event instead
of every run (docs/long-runs.md), read back by Inspector.latency_stats()
and Inspector.latency_sketches()."""
import warnings

import pytest

import etkit


def _inspector(data, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return etkit.Inspector(etdump_data=data, **kwargs)


@pytest.fixture(scope="module")
def stats(demo):
    return {n: etkit.run(str(demo / "model.pte"), iterations=n,
                         profile_mode="stats") for n in (10, 1000)}


def test_size_does_not_follow_the_runs(demo, stats):
    full = etkit.run(str(demo / "model.pte"), iterations=1000)
    small, large = len(stats[10].etdump), len(stats[1000].etdump)
    assert large < 3 * small
    assert large * 50 < len(full.etdump)


def test_latency_stats_has_exact_counts_and_ordered_quantiles(stats):
    insp = _inspector(stats[1000].etdump, target_time_scale="us")
    df = insp.latency_stats()
    assert list(df.columns) == [
        "event_block_name", "event_name", "instruction_id",
        "delegate_debug_identifier", "count", "min (us)", "p10 (us)",
        "p50 (us)", "p90 (us)", "p99 (us)", "p99.9 (us)", "avg (us)",
        "max (us)", "error_bound"]
    execute = df[df.event_block_name == "Execute"]
    assert len(execute) > 5
    assert (execute["count"] == 1000).all()
    assert (df[df.event_block_name == "Default"]["count"] == 1).all()
    for _, row in execute.iterrows():
        qs = [row[c] for c in ("p10 (us)", "p50 (us)", "p90 (us)",
                               "p99 (us)", "p99.9 (us)")]
        assert qs == sorted(qs)
        bound = row["error_bound"]
        assert row["min (us)"] * (1 - bound) <= qs[0]
        assert qs[-1] <= row["max (us)"] * (1 + bound)
    # 1%, or the bound after halvings (2a / (1 + a^2) each)
    for b in execute.error_bound:
        assert any(abs(b - x) < 1e-4 for x in (0.01, 0.019998, 0.039984, 0.07987))


def test_the_events_table_shows_the_median(stats):
    """upstream's columns: one sample per event, the sketch's median"""
    insp = _inspector(stats[1000].etdump, target_time_scale="ns")
    sk = insp.latency_sketches()
    df = insp.to_dataframe()
    relu = df[df.event_name == "native_call_relu.out"].iloc[0]
    assert len(relu["raw"]) == 1
    (key,) = [k for k in sk if k[1] == "native_call_relu.out"]
    assert relu["raw"][0] == round(sk[key].quantile(0.5))
    assert sk[key].count == 1000


def test_sketches_merge_across_dumps(stats):
    a = _inspector(stats[10].etdump).latency_sketches()
    b = _inspector(stats[1000].etdump).latency_sketches()
    assert a.keys() == b.keys()
    for k in a:
        merged = etkit.LatencySketch.from_bytes(a[k].to_bytes())
        merged.merge(b[k])
        assert merged.count == a[k].count + b[k].count
        assert merged.min == min(a[k].min, b[k].min)
        assert merged.max == max(a[k].max, b[k].max)


def test_a_full_dump_has_no_sketches(demo):
    full = etkit.run(str(demo / "model.pte"), iterations=2)
    insp = _inspector(full.etdump)
    assert insp.latency_stats() is None
    assert insp.latency_sketches() == {}


def test_stats_error_is_honoured_and_checked(demo):
    r = etkit.run(str(demo / "model.pte"), iterations=20, profile_mode="stats",
                  stats_error=0.05)
    df = _inspector(r.etdump).latency_stats()
    assert (df.error_bound >= 0.05 - 1e-12).all()
    with pytest.raises(ValueError):
        etkit.run(str(demo / "model.pte"), stats_error=0.02)
    with pytest.raises(ValueError):
        etkit.run(str(demo / "model.pte"), profile_mode="stats", stats_error=0.5)
    with pytest.raises(ValueError):
        etkit.run(str(demo / "model.pte"), profile_mode="stats",
                  trigger="Method::execute>1ms")
    with pytest.raises(ValueError):
        etkit.run(str(demo / "model.pte"), profile_mode="sketch")


def test_a_stats_dump_is_not_compensated(demo, stats):
    # its events are medians at time 0: nothing says which ran inside which
    with pytest.raises(ValueError, match="cannot be compensated"):
        _inspector(stats[10].etdump, compensate=True)
    full = etkit.run(str(demo / "model.pte"), iterations=10)
    assert _inspector(full.etdump, compensate=True).event_blocks
