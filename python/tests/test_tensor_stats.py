"""Upstream's STATS vector as the recorder computes it
(etkit/tensor_stats.h, through _etkit.tensor_stats) against numpy on the
same tensors: the reference is numpy's float32 cast, then float64 sums."""
import math

import numpy as np
import pytest

from etkit import _etkit

NAMES = ["min", "max", "mean", "abs_max", "abs_mean", "std", "rms",
         "l1_norm", "l2_norm", "nan_count", "inf_count", "zero_count",
         "p99_abs"]


def reference(a):
    f = np.asarray(a).astype(np.float32).ravel().astype(np.float64)
    ab = np.abs(f)
    k = max(1, math.ceil(f.size / 100))
    # k-th largest |x|, NaN ordered above everything (torch.topk)
    order = np.sort(np.where(np.isnan(ab), np.inf, ab))[::-1]
    p99 = np.nan if np.isnan(ab).sum() >= k else order[k - 1]
    with np.errstate(invalid="ignore", over="ignore"):
        return {
            "min": f.min(), "max": f.max(), "mean": f.mean(),
            "abs_max": ab.max(), "abs_mean": ab.mean(),
            "std": f.std(ddof=0), "rms": np.sqrt((f * f).mean()),
            "l1_norm": ab.sum(), "l2_norm": np.sqrt((f * f).sum()),
            "nan_count": float(np.isnan(f).sum()),
            "inf_count": float(np.isinf(f).sum()),
            "zero_count": float((f == 0).sum()),
            "p99_abs": p99,
        }


def same(got, want):
    assert list(got) == NAMES
    for name in NAMES:
        g, w = got[name], want[name]
        if np.isnan(w):
            assert np.isnan(g), name
        else:
            assert g == pytest.approx(w, rel=1e-9, abs=1e-12), name


r = np.random.default_rng(11)


@pytest.mark.parametrize("a", [
    r.standard_normal((4, 8, 16)).astype(np.float32),
    r.standard_normal(12345) * 100.0,
    (r.standard_normal(1001) * 3).astype(np.float16),
    r.integers(-128, 127, 777).astype(np.int8),
    r.integers(0, 3, 500).astype(np.int64),
    np.array([0.0, -0.0, 5.0, -7.0, 1e30], dtype=np.float32),
    np.array([3.5], dtype=np.float32),
    np.array([True, False, True]),
])
def test_stats_equal_numpy(a):
    same(_etkit.tensor_stats(a), reference(a))


def test_p99_abs_is_the_ceil_n_over_100_th_largest():
    a = np.arange(1, 1001, dtype=np.float32)  # k = 10: the 10th largest
    assert _etkit.tensor_stats(-a)["p99_abs"] == 991.0
    a = np.arange(1, 102, dtype=np.float32)  # n = 101: k = 2
    assert _etkit.tensor_stats(a)["p99_abs"] == 100.0


def test_nan_and_inf():
    a = np.array([1.0, np.nan, -np.inf, 0.0], dtype=np.float32)
    got = _etkit.tensor_stats(a)
    assert np.isnan(got["min"]) and np.isnan(got["mean"])
    assert (got["nan_count"], got["inf_count"], got["zero_count"]) == (1, 1, 1)
    assert np.isnan(got["p99_abs"])  # k = 1 and NaN is the largest
    b = np.array([1.0, -np.inf], dtype=np.float32)
    got = _etkit.tensor_stats(b)
    assert got["min"] == -np.inf and got["p99_abs"] == np.inf


def test_empty_and_unsupported():
    got = _etkit.tensor_stats(np.zeros(0, dtype=np.float32))
    assert got["nan_count"] == 0 and np.isnan(got["mean"])
    with pytest.raises(TypeError):
        _etkit.tensor_stats(np.zeros(3, dtype=np.complex64))


def test_doubles_beyond_float_range_become_infinities():
    got = _etkit.tensor_stats(np.array([1e39, -1e300, 2.0, 3.4e38]))
    assert got["inf_count"] == 2 and got["max"] == np.inf
    assert got["min"] == -np.inf
