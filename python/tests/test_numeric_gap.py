"""calculate_numeric_gap's pairing and comparators against upstream's rules
(devtools/inspector/_inspector_utils.py, numerical_comparator/): the cases
of upstream's tests, re-derived here without torch.  The AOT side is given
directly (monkeypatched), so these tests need no ETRecord; the interpreter
end-to-end tests are in test_numerics_e2e.py."""

from types import SimpleNamespace

import numpy as np
import pytest

from etkit import Event
from etkit import _numeric_gap as ng
from etkit.inspector.numerical_comparator import (
    L1Comparator,
    MSEComparator,
    NumericalComparatorBase,
    SNRComparator,
)

COLUMNS = ["aot_debug_handle", "aot_ops", "aot_intermediate_output", "runtime_ops",
           "runtime_debug_handle", "runtime_intermediate_output", "gap", "stacktraces"]


def event(name, handles, data, iid, op_types=("op",), num_outputs=1, **kw):
    return Event(name=name, debug_handles=handles, debug_data=data, _instruction_id=iid,
                 op_types=list(op_types), num_outputs=num_outputs, **kw)


def fake_inspector(events, graph_map=None):
    rec = SimpleNamespace(graph_map=graph_map or {})
    return SimpleNamespace(_etrecord=rec,
                           event_blocks=[SimpleNamespace(events=events)])


def with_aot(monkeypatch, outputs, names, traces=None):
    traces = traces or {k: {n: None for n in v} for k, v in names.items()}
    monkeypatch.setattr(ng, "aot_intermediate_outputs",
                        lambda rec, graph, max_memory=0: (
                            {k: ng._hashable(v) for k, v in outputs.items()}, names, traces))


# ------------------------------------------------------------ comparators

def test_l1_values():
    c = L1Comparator()
    assert c.element_compare(np.array([1.0]), np.array([1.0])) == 0
    assert c.element_compare(1, 2) == 1.0
    assert c.element_compare(np.array([3, 2, -1, np.nan]), np.array([np.nan, 0, -3, 1])) == 8.0
    assert c.element_compare(np.array([[4, 9], [6, 4]]), np.array([[1, 2], [3, 5]])) == 14.0


def test_mse_values():
    c = MSEComparator()
    assert c.element_compare(10, 2) == 64.0
    assert c.element_compare(np.array([3, 1, -3, np.nan]), np.array([np.nan, 0, -3, 2])) == 3.5
    assert c.element_compare(np.array([[4, 9], [6, 4]]), np.array([[1, 2], [3, 10]])) == 25.75


def test_snr_values():
    c = SNRComparator()
    assert c.element_compare(np.array([1.0, 2.0]), np.array([1.0, 2.0])) == float("inf")
    assert c.element_compare(1, 2) == 0.0
    assert c.element_compare(np.array([np.nan, 1]), np.array([0, 1])) == float("inf")
    got = c.element_compare(np.array([[4, 9], [6, 4]]), np.array([[1, 2], [3, 5]]))
    assert got == pytest.approx(10 * np.log10(37.25 / 17), abs=1e-12)
    assert np.isnan(c.element_compare(0.0, 0.0))
    assert c.element_compare(0.0, 1.0) == float("-inf")


def test_shape_mismatch_raises():
    with pytest.raises(ValueError, match="Error computing L1 difference"):
        L1Comparator().element_compare(np.zeros(3), np.zeros(4))


def test_sequences_are_refused_by_element_compare():
    with pytest.raises(AssertionError):
        MSEComparator().element_compare([1.0], [1.0])


# ------------------------------------------------------------ runtime merge

def test_merge_overlapping_runtime_handles():
    got = ng.merge_runtime_overlapping_debug_handles({
        (1, 2, 3): (1, "a", 1), (2, 3, 4, 5): (2, "b", 1), (6, 7, 8): (3, "c", 1),
        (10, 11): (4, "d", 1), (11, 12): (5, "e", 1)})
    assert got == {(1, 2, 3, 4, 5): (2, "b", 1), (6, 7, 8): (3, "c", 1),
                   (10, 11, 12): (5, "e", 1)}
    got = ng.merge_runtime_overlapping_debug_handles(
        {(9,): (1, "a", 1), (9, 9, 9): (2, "b", 1), (9, 9): (3, "c", 1)})
    assert got == {(9,): (3, "c", 1)}


def test_largest_instruction_kept_and_operator_call_skipped():
    a, b = np.array([1.0]), np.array([2.0])
    events = [event("op", 3, [a], 4), event("op", 3, [b], 7), event("op", 3, [a], 5),
              event("OPERATOR_CALL", 3, [a], 9), event("noop", 4, [a], 1, op_types=())]
    out, names = ng.runtime_intermediate_outputs([SimpleNamespace(events=events)])
    assert list(out) == [(3,)]
    assert out[(3,)][0][0] is b
    assert names == {(3,): ["op"]}


# ------------------------------------------------------------ the DataFrame

def test_l1_gap_two_rows(monkeypatch):
    with_aot(monkeypatch, {(0,): np.array([1.0, 2.0, 3.0]), (1,): np.array([4.0, 5.0, 6.0])},
             {(0,): ["op_0"], (1,): ["op_1"]})
    insp = fake_inspector([event("op_0", 0, [np.array([2.0, 1.0, 4.0])], 1),
                           event("op_1", 1, [np.array([4.0, 5.0, 6.0])], 2)])
    df = ng.calculate_numeric_gap(insp, "L1")
    assert list(df.columns) == COLUMNS
    assert len(df) == 2
    assert df.iloc[0]["gap"] == [3.0]
    assert df.iloc[1]["gap"] == [0.0]
    assert df.iloc[0]["aot_debug_handle"] == (0,)
    assert df.iloc[0]["runtime_ops"] == ["op_0"]
    assert df.iloc[0]["stacktraces"] == {"op_0": None}


def test_exact_int_and_bool_outputs_keep_upstreams_float64_distances(monkeypatch):
    # upstream's comparators turn every value into a float64 tensor, so an
    # index or a flag gets an MSE/L1/SNR like any number; the Python method
    # keeps that (etkit's CLI numerics count mismatches instead:
    # docs/compatibility.md)
    aot = {(0,): np.array([1, 5, 3, 9], np.int64), (1,): np.array([True, False, True, True])}
    with_aot(monkeypatch, aot, {(0,): ["argmax"], (1,): ["gt"]})
    rt = [np.array([1, 2, 3, 7], np.int64), np.array([True, True, False, True])]
    insp = fake_inspector([event("argmax", 0, [rt[0]], 1), event("gt", 1, [rt[1]], 2)])
    mse = ng.calculate_numeric_gap(insp, "MSE")
    assert list(mse["gap"]) == [[(9 + 4) / 4], [2 / 4]]  # mean squared difference
    l1 = ng.calculate_numeric_gap(insp, "L1")
    assert list(l1["gap"]) == [[5.0], [2.0]]  # sum of absolute differences
    snr = ng.calculate_numeric_gap(insp, "SNR")
    # 10 log10(sum a^2 / sum (a - b)^2), a = AOT: 116/13 and 3/2
    assert snr["gap"][0][0] == pytest.approx(10 * np.log10(116 / 13), rel=1e-12)
    assert snr["gap"][1][0] == pytest.approx(10 * np.log10(3 / 2), rel=1e-12)
    assert all(isinstance(g[0], float) for g in mse["gap"])


def test_fused_runtime_handles_pair_with_the_last_aot_node(monkeypatch):
    # runtime fused nodes 1..3 into one instruction: the AOT output of the
    # last handle (3) is compared, the row's AOT handle is the runtime's
    aot = {(1,): np.array([1.0]), (2,): np.array([2.0]), (3,): np.array([3.0])}
    with_aot(monkeypatch, aot, {(1,): ["a"], (2,): ["b"], (3,): ["c"]})
    insp = fake_inspector([event("fused", [1, 2, 3], [np.array([3.5])], 5)])
    df = ng.calculate_numeric_gap(insp, "mse")
    assert len(df) == 1
    row = df.iloc[0]
    assert row["aot_debug_handle"] == (1, 2, 3)
    assert row["aot_ops"] == ["a", "b", "c"]
    assert row["gap"] == [0.25]
    assert row["aot_intermediate_output"][0] == 3.0


def test_multi_output_runtime_picks_the_shape_match(monkeypatch):
    aot = {(1,): np.ones((2, 3), np.float32)}
    with_aot(monkeypatch, aot, {(1,): ["layer_norm"]})
    rt = [np.zeros((2, 3), np.float32), np.zeros((2, 1), np.float32), np.zeros((2, 1), np.float32)]
    insp = fake_inspector([event("native_layer_norm.out", 1, rt, 1)])
    df = ng.calculate_numeric_gap(insp, "L1")
    assert df.iloc[0]["gap"] == [6.0]
    assert df.iloc[0]["runtime_intermediate_output"] is rt[0]


def test_two_runtime_nodes_in_one_component_raise(monkeypatch):
    with_aot(monkeypatch, {(1,): np.ones(1), (2,): np.ones(1)}, {(1,): ["a"], (2,): ["b"]})
    # (1,2) AOT handles cannot exist (AOT keys are single), so join two
    # runtime entries through one AOT node with a two-handle key
    monkeypatch.setattr(ng, "aot_intermediate_outputs", lambda *a, **k: (
        {(1, 2): ng._hashable(np.ones(1))}, {(1, 2): ["ab"]}, {(1, 2): {"ab": None}}))
    insp = fake_inspector([event("x", 1, [np.ones(1)], 1), event("y", 2, [np.ones(1)], 2)])
    with pytest.raises(ValueError, match="Expected only one runtime debug handle"):
        ng.calculate_numeric_gap(insp, "L1")


def test_planted_divergence_is_the_first_large_gap(monkeypatch):
    rng = np.random.default_rng(0)
    aot = {(h,): rng.standard_normal(8).astype(np.float32) for h in range(1, 6)}
    with_aot(monkeypatch, aot, {k: [f"op{k[0]}"] for k in aot})
    events = []
    for h in range(1, 6):
        rt = aot[(h,)].copy() + np.float32(1e-7)
        if h >= 3:  # node 3 diverges, and everything after it inherits it
            rt += np.float32(0.5)
        events.append(event(f"op{h}", h, [rt], h))
    df = ng.calculate_numeric_gap(fake_inspector(events), "SNR")
    snr = [g[0] for g in df["gap"]]
    first_bad = next(i for i, v in enumerate(snr) if v < 20)
    assert df.iloc[first_bad]["aot_ops"] == ["op3"]
    assert all(v > 60 for v in snr[:2])


def test_custom_comparator_and_preprocessing(monkeypatch):
    class MaxAbs(NumericalComparatorBase):
        def element_compare(self, a, b):
            return float(np.max(np.abs(np.asarray(a, float) - np.asarray(b, float))))

    class Doubled(MaxAbs):
        def preprocessing(self, mapping):
            return {k: (v[0], v[1] * 2) for k, v in mapping.items()}

    with_aot(monkeypatch, {(0,): np.array([1.0, 2.0, 3.0]), (1,): np.array([4.0, 5.0, 6.0])},
             {(0,): ["a"], (1,): ["b"]})
    insp = fake_inspector([event("a", 0, [np.array([2.0, 1.0, 5.0])], 1),
                           event("b", 1, [np.array([3.0, 6.0, 5.0])], 2)])
    df = ng.calculate_numeric_gap(insp, MaxAbs())
    assert [g[0] for g in df["gap"]] == [2.0, 1.0]
    comparator = Doubled()
    df = ng.calculate_numeric_gap(insp, comparator)
    assert comparator.inspector is insp
    assert [g[0] for g in df["gap"]] == [7.0, 7.0]

    class Bad(MaxAbs):
        def preprocessing(self, mapping):
            return [1]

    with pytest.raises(TypeError, match="preprocessing\\(\\) must return a dict"):
        ng.calculate_numeric_gap(insp, Bad())


def test_distance_and_reference_graph_errors(monkeypatch):
    with_aot(monkeypatch, {(0,): np.ones(1)}, {(0,): ["a"]})
    insp = fake_inspector([event("a", 0, [np.ones(1)], 1)],
                          graph_map={"edge_after_transform/forward": object()})
    with pytest.raises(ValueError, match="Unsupported distance metric 'cosine'"):
        ng.calculate_numeric_gap(insp, "cosine")
    with pytest.raises(ValueError, match="Reference graph 'nope/forward' not found"):
        ng.calculate_numeric_gap(insp, "L1", reference_graph="nope")
    with pytest.raises(ValueError, match="Cannot use 'exported_program'"):
        ng.calculate_numeric_gap(insp, "L1", reference_graph="exported_program")
    assert len(ng.calculate_numeric_gap(insp, " l1 ", reference_graph="edge_after_transform")) == 1


def test_missing_aot_outputs_raise(monkeypatch):
    with_aot(monkeypatch, {}, {})
    with pytest.raises(ValueError, match="missing representative inputs"):
        ng.calculate_numeric_gap(fake_inspector([]), "MSE")


def test_no_rows_gives_an_empty_frame(monkeypatch):
    with_aot(monkeypatch, {(0,): np.ones(1)}, {(0,): ["a"]})
    df = ng.calculate_numeric_gap(fake_inspector([event("b", 7, [np.ones(1)], 1)]), "MSE")
    assert len(df) == 0 and list(df.columns) == []


def test_values_are_read_through_recorded_strides():
    # a channels-last tensor: stored in dim order (0, 2, 3, 1), shown by
    # debug_data in the shape's order as upstream inflates it
    x = np.arange(1 * 3 * 2 * 2, dtype=np.int8).reshape(1, 3, 2, 2)
    logged = x.transpose(0, 2, 3, 1).copy().reshape(-1).reshape(x.shape)
    back = ng._through_strides(logged, (12, 1, 6, 3))
    assert np.array_equal(back, x) and not np.array_equal(logged, x)
    assert ng._through_strides(x, (12, 4, 2, 1)) is x  # dense: unchanged
    assert ng._through_strides(x, (12, 4, 2)) is x  # strides that do not fit
    assert ng._through_strides(x, (12, 1, 6, 99)) is x  # outside the data
    assert np.array_equal(ng._through_strides([logged, 3], [(12, 1, 6, 3), None])[0], x)
