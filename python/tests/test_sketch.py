"""etkit.LatencySketch: the recorder's sketch (etkit/sketch.h) from Python.
Quantiles against numpy's method="lower" on the same values, exact figures,
merging, and the ETKS bytes decoded here from the documented layout."""
import struct

import numpy as np
import pytest

import etkit


QS = [0.001, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999]


def worst_error(sk, v):
    worst = 0.0
    for q in QS:
        truth = np.quantile(v, q, method="lower")
        worst = max(worst, abs(sk.quantile(q) - truth) / truth)
    return worst


@pytest.mark.parametrize("make", [
    lambda r: 2e5 * np.exp(0.3 * r.standard_normal(100000)),
    lambda r: 1e4 * 100.0 ** r.random(100000),
    lambda r: 1e3 * 1e8 ** r.random(100000),
    lambda r: 1e4 / r.random(100000) ** (1 / 1.2),
    lambda r: 1000.0 * r.integers(1, 6, 100000),
])
def test_quantiles_within_bound(make):
    v = make(np.random.default_rng(7))
    sk = etkit.LatencySketch()
    sk.add(v)
    assert sk.count == len(v)
    assert sk.min == v.min() and sk.max == v.max()
    assert sk.sum == pytest.approx(v.sum(), rel=1e-12)
    assert sk.relative_error == 0.01
    assert sk.error_bound >= 0.01
    assert worst_error(sk, v) <= sk.error_bound * (1 + 1e-9)


def test_two_decades_keep_one_percent():
    v = 1e4 * 100.0 ** np.random.default_rng(1).random(50000)
    sk = etkit.LatencySketch(relative_error=0.01)
    for x in v[:10]:
        sk.add(float(x))
    sk.add(v[10:])
    assert sk.error_bound == 0.01
    assert len(sk.to_bytes()) <= 1024


def test_merge_is_exact_and_checks_parameters():
    r = np.random.default_rng(3)
    a_vals = np.floor(1e4 * 3.0 ** r.random(4000))
    b_vals = np.floor(1e3 * 1e6 ** r.random(4000))
    a, b, both = etkit.LatencySketch(), etkit.LatencySketch(), etkit.LatencySketch()
    a.add(a_vals)
    b.add(b_vals)
    both.add(np.concatenate([b_vals, a_vals]))
    a.merge(b)
    assert a.to_bytes() == both.to_bytes()
    with pytest.raises(ValueError):
        a.merge(etkit.LatencySketch(relative_error=0.02))
    with pytest.raises(TypeError):
        a.merge(3)


def test_bytes_layout_and_round_trip():
    sk = etkit.LatencySketch()
    sk.add([0.0, 1500.0, 1500.0, 2500.0, 1e5])
    b = sk.to_bytes()
    magic, ver, shift, n, a, count, zero, total, mn, mx, first, flags = \
        struct.unpack_from("<4sBBHdQQdddiI", b)
    assert magic == b"ETKS" and ver == 1 and shift == 0
    assert (a, count, zero, total, mn, mx, flags) == (
        0.01, 5, 1, sk.sum, 0.0, 1e5, 0)
    counts, at = [], 64
    for _ in range(n):
        v, s = 0, 0
        while True:
            byte = b[at]
            at += 1
            v |= (byte & 0x7F) << s
            s += 7
            if byte < 0x80:
                break
        counts.append(v)
    assert at == len(b) and sum(counts) + zero == count
    assert counts[0] == 2 and counts[-1] == 1
    again = etkit.LatencySketch.from_bytes(b)
    assert again.to_bytes() == b
    assert again.quantile(0.5) == sk.quantile(0.5)
    with pytest.raises(ValueError):
        etkit.LatencySketch.from_bytes(b[:-1])
    with pytest.raises(ValueError):
        etkit.LatencySketch.from_bytes(b + b"\0")


def test_refusals():
    sk = etkit.LatencySketch()
    assert sk.quantile(0.5) is None and sk.min is None
    with pytest.raises(ValueError):
        sk.add([1.0, float("nan")])
    assert sk.count == 0
    with pytest.raises(ValueError):
        etkit.LatencySketch(relative_error=0.9)
    sk.add(5.0)
    with pytest.raises(ValueError):
        sk.quantile(1.5)


def test_quantile_of_an_array_equals_each_quantile():
    r = np.random.default_rng(7)
    sk = etkit.LatencySketch()
    sk.add(1e4 * 100.0 ** r.random(50000))
    got = sk.quantile(QS)
    assert isinstance(got, np.ndarray) and got.dtype == np.float64
    assert got.tolist() == [sk.quantile(q) for q in QS]
    grid = sk.quantile(np.array([[0.0, 0.5], [0.9, 1.0]]))
    assert grid.shape == (2, 2) and grid[0, 0] == sk.min and grid[1, 1] == sk.max
    assert isinstance(sk.quantile(np.float32(0.5)), float)
    assert np.isnan(etkit.LatencySketch().quantile([0.5])).all()
    with pytest.raises(ValueError, match="got 2"):
        sk.quantile([0.5, 2.0])


def test_equality_pickle_and_copy_go_through_the_bytes():
    import copy
    import pickle

    sk = etkit.LatencySketch(relative_error=0.02)
    sk.add(np.linspace(1e3, 1e5, 1000))
    for other in (pickle.loads(pickle.dumps(sk)), copy.deepcopy(sk), copy.copy(sk)):
        assert other is not sk and other == sk and not (other != sk)
        assert other.relative_error == 0.02 and other.to_bytes() == sk.to_bytes()
    twin = copy.copy(sk)
    twin.add(7.0)
    assert twin != sk and sk.count == 1000  # a copy, not a view
    assert (sk == 1) is False
    with pytest.raises(TypeError):
        hash(sk)
