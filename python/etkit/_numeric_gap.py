"""Inspector.calculate_numeric_gap without torch: the AOT side comes from
etkit's C interpreter (the ETRecord's graph run with etkit's kernels on the
representative inputs), the runtime side from the Inspector's event blocks,
and the pairing follows upstream's _inspector_utils rules one for one
(merge of overlapping runtime handles, connected components of
overlapping AOT/runtime handles, the output picked by negative index).
"""

import logging
import sys
import warnings
from collections import defaultdict
from collections.abc import Sequence
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from . import _etkit

from .numerical_comparator import (
    DebugHandle,
    L1Comparator,
    MSEComparator,
    NumericalComparatorBase,
    SNRComparator,
)

log = logging.getLogger(__name__)

EXCLUDED_EVENTS_FOR_INTERMEDIATE_OUTPUT = {"OPERATOR_CALL"}
EDGE_NAME = "edge_dialect_exported_program"
ATEN_NAME = "exported_program"


# ------------------------------------------------------------ runtime side

def _merge_runtime_debug_handles(h1: DebugHandle, h2: DebugHandle) -> DebugHandle:
    """h1's elements not in h2 (order and duplicates kept), then h2's
    elements without duplicates."""
    out = [x for x in h1 if x not in set(h2)]
    seen = set(out)
    for x in h2:
        if x not in seen:
            out.append(x)
            seen.add(x)
    return tuple(out)


def merge_runtime_overlapping_debug_handles(runtime: Dict[DebugHandle, Tuple[int, Any, int]]):
    """One key per group of overlapping handles; the value of the highest
    instruction id wins, its handles coming last."""
    merged: Dict[DebugHandle, Tuple[int, Any, int]] = {}
    for handle, value in runtime.items():
        cur, last = handle, value
        remove = []
        for existing, existing_value in merged.items():
            if set(handle) & set(existing):
                if existing_value[0] < value[0]:
                    cur = _merge_runtime_debug_handles(existing, cur)
                else:
                    cur = _merge_runtime_debug_handles(cur, existing)
                    last = existing_value
                remove.append(existing)
        for k in remove:
            merged.pop(k)
        merged[cur] = last
    return merged


def _through_strides(value, strides):
    """A logged array read through the strides the ETDump records (a
    channels-last tensor is stored in its dim order; debug_data, as
    upstream's, lays the bytes out in the shape's order).  Values the
    strides cannot describe are kept as they are."""
    if isinstance(value, list) and isinstance(strides, list):
        return [_through_strides(v, s) for v, s in zip(value, strides)]
    if not isinstance(value, np.ndarray) or not isinstance(strides, tuple) or \
            len(strides) != value.ndim or value.size == 0 or min(strides, default=0) < 0:
        return value
    dense, step = [], 1
    for d in reversed(value.shape):
        dense.insert(0, step)
        step *= d
    if list(strides) == dense:
        return value
    if sum((d - 1) * s for d, s in zip(value.shape, strides)) >= value.size:
        return value
    flat = np.ascontiguousarray(value).reshape(-1)
    return np.lib.stride_tricks.as_strided(
        flat, shape=value.shape,
        strides=[s * flat.itemsize for s in strides]).copy()


def _layout(values):
    if isinstance(values, list):
        return [_layout(v) for v in values]
    return (values.shape, values.dtype) if isinstance(values, np.ndarray) else None


def _logged_values(block, k, ev):
    """ev.debug_data, each array read through its recorded strides, for an
    event of the Inspector's blocks whose values still have the logged
    shapes (values assigned in another layout are kept as they are)."""
    events = getattr(block, "events", None)
    handle = getattr(getattr(events, "_owner", None), "_handle", None)
    first = getattr(events, "_first", None)
    data = ev.debug_data
    if handle is None or first is None or not hasattr(handle, "debug_strides") or \
            not isinstance(data, list):
        return data
    strides = handle.debug_strides(first + k)
    if len(strides) != len(data) or \
            _layout(data) != _layout(handle.debug_data(first + k)):
        return data
    return [_through_strides(v, s) for v, s in zip(data, strides)]


def runtime_intermediate_outputs(event_blocks):
    """(handle -> (debug_data, num_outputs), handle -> [event name]) from
    the events, as upstream's _get_runtime_intermediate_outputs_and_op_names."""
    inner: Dict[Optional[str], set] = defaultdict(set)
    for block in event_blocks:
        for ev in block.events:
            if ev.is_delegated_op and ev.op_types and ev.debug_data and \
                    ev.debug_handles is not None:
                hs = ev.debug_handles
                inner[ev.delegate_backend_name].update((hs,) if isinstance(hs, int) else hs)
    outputs: Dict[DebugHandle, Tuple[int, Any, int]] = {}
    names: Dict[DebugHandle, List[str]] = {}
    for block in event_blocks:
        for k, ev in enumerate(block.events):
            if ev.name in EXCLUDED_EVENTS_FOR_INTERMEDIATE_OUTPUT or not ev.op_types:
                continue
            hs = ev.debug_handles
            handle = (hs,) if isinstance(hs, int) else tuple(hs)
            if ev.name == "DELEGATE_CALL":
                backend = inner.get(ev.delegate_backend_name)
                if backend and not set(handle).isdisjoint(backend):
                    continue
            current = outputs.get(handle, (-1, None, ev.num_outputs))
            if ev._instruction_id > current[0]:
                outputs[handle] = (ev._instruction_id, _logged_values(block, k, ev),
                                   ev.num_outputs)
                names[handle] = [ev.name]
    merged = merge_runtime_overlapping_debug_handles(outputs)
    return {k: (v[1], v[2]) for k, v in merged.items()}, names


# ------------------------------------------------------------ pairing

def _find_matching_by_shape_and_dtype(aot: np.ndarray, runtime: Sequence):
    shape = [i for i, r in enumerate(runtime)
             if isinstance(r, np.ndarray) and r.shape == aot.shape]
    if len(shape) == 1:
        return runtime[shape[0]]
    if len(shape) > 1:
        dtype = [i for i in shape if runtime[i].dtype == aot.dtype]
        if len(dtype) == 1:
            return runtime[dtype[0]]
    return runtime[-1]


def _map_sequence_aot_output(aot, runtime, neg):
    if not isinstance(runtime, Sequence):
        raise TypeError("runtime intermediate output should be a sequence when aot "
                        "intermediate output is a sequence")
    last = runtime[neg]
    if isinstance(last, list) and all(isinstance(t, np.ndarray) for t in last):
        mapped = last
    elif isinstance(last, np.ndarray):
        mapped = runtime
    else:
        raise ValueError("The last element of runtime argument list must be a tensor or "
                         "a list of tensors when aot intermediate output is a sequence")
    return tuple(aot), tuple(mapped)


def _map_non_sequence_aot_output(aot, runtime, num_outputs, neg):
    if not isinstance(runtime, Sequence):
        return runtime
    mapped = runtime[neg]
    if num_outputs == 1 and len(runtime) > 1 and isinstance(aot, np.ndarray):
        mapped = _find_matching_by_shape_and_dtype(aot, runtime)
    return mapped


class ReferenceArray(np.ndarray):
    """An AOT output: a numpy array hashed by identity, like the torch
    tensors upstream uses as keys of the (handle, output) mapping."""

    __hash__ = object.__hash__


def _hashable(out):
    if isinstance(out, np.ndarray):
        return out.view(ReferenceArray)
    if isinstance(out, list):
        return [_hashable(o) for o in out]
    return out


def map_runtime_aot_intermediate_outputs(aot: Dict[DebugHandle, Any],
                                         runtime: Dict[DebugHandle, Tuple[Any, int]]):
    """(aot handle, aot output) -> (runtime handle, runtime output) over the
    connected components of overlapping handles (AOT outputs must be
    hashable: ReferenceArray, or tuples of them)."""
    nodes = [("aot", h, o, 1) for h, o in aot.items()]
    nodes += [("rt", h, v[0], v[1]) for h, v in runtime.items()]
    sets = [set(n[1]) for n in nodes]
    edges: Dict[int, List[int]] = {i: [] for i in range(len(nodes))}
    for i in range(len(nodes)):
        for j in range(i + 1, len(nodes)):
            if nodes[i][0] != nodes[j][0] and sets[i] & sets[j]:
                edges[i].append(j)
                edges[j].append(i)
    seen = [False] * len(nodes)
    mapping = {}
    for start in range(len(nodes)):
        if seen[start]:
            continue
        comp, stack = [], [start]
        seen[start] = True
        while stack:  # the same order as upstream's recursive DFS
            n = stack.pop()
            comp.append(n)
            for m in reversed(edges[n]):
                if not seen[m]:
                    seen[m] = True
                    stack.append(m)
        aot_list = [(nodes[i][1], nodes[i][2]) for i in comp if nodes[i][0] == "aot"]
        rt_list = [nodes[i][1:] for i in comp if nodes[i][0] == "rt"]
        if not aot_list or not rt_list:
            continue
        if len(rt_list) != 1:
            raise ValueError(
                f"Expected only one runtime debug handle, but found {len(rt_list)}: {rt_list}")
        rt_handle, rt_out, num_outputs = rt_list[0]
        aot_map = dict(aot_list)
        for i in range(num_outputs):
            neg = -(i + 1)
            if not {k[0] for k in aot_map}.issubset(set(rt_handle)):
                continue
            key = (rt_handle[neg],)
            if key not in aot_map:
                continue
            aot_out = aot_map[key]
            if isinstance(aot_out, Sequence):
                aot_out, mapped = _map_sequence_aot_output(aot_out, rt_out, neg)
            else:
                mapped = _map_non_sequence_aot_output(aot_out, rt_out, num_outputs, neg)
            mapping[(rt_handle, aot_out)] = (rt_handle, mapped)
    return mapping


# ------------------------------------------------------------ the AOT side

_SHOWN_AT: set = set()


def _filter_action(message: str, category, module: str, lineno: int) -> str:
    """The action of the first filter of warnings.filters that matches, as
    warnings.warn_explicit picks it (its default when none does)."""
    for action, msg, cat, mod, ln in warnings.filters:
        if ((msg is None or msg.match(message)) and issubclass(category, cat)
                and (mod is None or mod.match(module)) and (ln == 0 or ln == lineno)):
            return action
    return warnings.defaultaction


def warn_once_per_site(message: str, stacklevel: int) -> None:
    """warnings.warn(message, UserWarning, stacklevel), shown once per call
    site under the "default" action as Python promises.  Python's own
    registry forgets what it showed whenever a filter changes, and pandas
    (and subprocess) change filters inside their calls, so the reminder
    came back on every call; this registry is kept here instead.  The
    "always" and "error" actions (and "ignore") are left to warnings."""
    frame = sys._getframe(stacklevel)
    site = (frame.f_code.co_filename, frame.f_lineno)
    module = frame.f_globals.get("__name__", "")
    action = _filter_action(message, UserWarning, module, site[1])
    if action in ("default", "module", "once"):
        key = (message,) + (site if action == "default" else
                            (site[0],) if action == "module" else ())
        if key in _SHOWN_AT:
            return
        _SHOWN_AT.add(key)
    warnings.warn(message, UserWarning, stacklevel=stacklevel + 1)


def resolve_reference_graph(etrecord, reference_graph: Optional[str]) -> str:
    """The ETRecord member to run, with upstream's names and errors."""
    if reference_graph is None or reference_graph == ATEN_NAME:
        if reference_graph is None:
            # upstream logs this on every call; a warning is shown once
            # per call site and can be filtered
            warn_once_per_site("Either ATen dialect exported program is not in ETRecord, "
                               "or debug handle backpropagation failed. Falling back to "
                               "'edge_dialect_exported_program'.", stacklevel=4)
            return EDGE_NAME
        raise ValueError(
            "Cannot use 'exported_program': Debug handle backpropagation failed or exported "
            "program is unavailable. Please check if the exported program is available in "
            "ETRecord, or try to disable debug handle validation.")
    if reference_graph == EDGE_NAME:
        return EDGE_NAME
    lookup = reference_graph if "/" in reference_graph else f"{reference_graph}/forward"
    graphs = etrecord.graph_map or {}
    if lookup not in graphs:
        raise ValueError(
            f"Reference graph '{lookup}' not found. Available options: 'exported_program', "
            f"'edge_dialect_exported_program', or one of the graphs in graph_map: "
            f"{list(graphs.keys())}")
    return lookup


def aot_intermediate_outputs(etrecord, graph_name: str, max_memory: int = 0):
    """(handle -> output, handle -> [node names], handle -> {name: stack
    trace}) of the graph run by etkit's interpreter.  Nodes the interpreter
    could not run are left out (with one warning each, naming why)."""
    member = None if graph_name == EDGE_NAME else graph_name
    nodes = _etkit.interp(etrecord._handle, member, max_memory, etrecord._inputs_override)
    outputs, names, traces = {}, {}, {}
    for name, op, handles, status, message, outs, is_list, trace in nodes:
        if not handles or "getitem" in name:
            continue
        key = tuple(handles)
        names.setdefault(key, []).append(name)
        traces.setdefault(key, {})[name] = trace
        if status != "ok":
            log.warning("no AOT reference for %s (%s): %s", name, op, message)
            continue
        value = list(outs) if is_list or len(outs) != 1 else outs[0]
        outputs[key] = _hashable(value)
    return outputs, names, traces


def check_logged(event_blocks) -> None:
    """Raises ValueError when the run logged no intermediate output at all
    (traced without them): nothing could be paired, and upstream fails
    later with an IndexError."""
    ops = [ev for block in event_blocks for ev in block.events
           if ev.name not in EXCLUDED_EVENTS_FOR_INTERMEDIATE_OUTPUT and ev.op_types
           and ev.debug_handles is not None]
    if ops and not any(ev.debug_data for ev in ops):
        raise ValueError(
            f"the ETDump logged no intermediate outputs ({len(ops)} operator events, "
            "none with a value); record them with etkit.run(program, "
            "debug_level='intermediates') or `etkit run PROGRAM --etdump D "
            "--debug-level intermediates` (upstream: ETDumpGen.set_debug_buffer and "
            "EventTracerDebugLogLevel.kIntermediateOutputs)")


# How far a gap may be from the truth before the row diverges (etkit
# numerics --gap's defaults); SNR diverges below its bound.
_BOUNDS = {MSEComparator: (1e-6, False), L1Comparator: (1e-3, False),
           SNRComparator: (40.0, True)}


def _first_gap_worse(df, comparator) -> Optional[bool]:
    bound = _BOUNDS.get(type(comparator))
    if bound is None or len(df) == 0:
        return None
    gap = df.iloc[0]["gap"]
    gap = float(gap[0] if isinstance(gap, (list, tuple)) else gap)
    if gap != gap:
        return True
    return gap < bound[0] if bound[1] else gap > bound[0]


def warn_if_ones(etrecord, graph, df, runtime, aot_names, runtime_names, comparator):
    """When the first row (in graph order: an operator near the program's
    inputs) diverges, compares it again with the graph run on ones (what
    etkit.run and `etkit run` feed by default): a match there means the run
    was not made on the ETRecord's representative inputs, and warns."""
    if not _first_gap_worse(df, comparator):
        return
    try:
        base = etrecord._representative_inputs
        ones = [np.ones_like(np.asarray(x)) for x in base] if base else None
        if not ones:
            return
        member = None if graph == EDGE_NAME else graph
        nodes = _etkit.interp(etrecord._handle, member, 0, ones)
    except (AttributeError, TypeError, ValueError, RuntimeError):
        return  # best effort: the table stands as it is
    aot = {}
    for name, op, handles, status, message, outs, is_list, trace in nodes:
        if handles and "getitem" not in name and status == "ok":
            aot[tuple(handles)] = _hashable(list(outs) if is_list or len(outs) != 1
                                            else outs[0])
    again = comparator.compare(map_runtime_aot_intermediate_outputs(aot, runtime),
                               aot_names, runtime_names)
    if _first_gap_worse(again, comparator) is False:
        warnings.warn(
            "the run's values are those of all-ones inputs (etkit.run's default), not "
            "of the ETRecord's representative inputs, so every operator diverges; run "
            "again with etkit.run(program, inputs_from=etrecord, "
            "debug_level='intermediates') or `etkit run PROGRAM --inputs-from "
            "ETRECORD`", UserWarning, stacklevel=4)


def make_comparator(distance, inspector) -> NumericalComparatorBase:
    if isinstance(distance, NumericalComparatorBase):
        if distance.inspector is None:
            distance.inspector = inspector
        return distance
    metric = distance.strip().upper()
    table = {"MSE": MSEComparator, "L1": L1Comparator, "SNR": SNRComparator}
    if metric not in table:
        raise ValueError(f"Unsupported distance metric {distance!r}")
    return table[metric](inspector=inspector)


def calculate_numeric_gap(inspector, distance, disable_debug_handle_valdiation=False,
                          reference_graph=None):
    """Inspector.calculate_numeric_gap (see there)."""
    etrecord = inspector._etrecord
    if etrecord is None:
        raise ValueError(
            "Missing etrecord or missing representative inputs within etrecord, both of "
            "which are required for calculating numerical gap (the Inspector was made "
            "without an ETRecord)")
    graph = resolve_reference_graph(etrecord, reference_graph)
    check_logged(inspector.event_blocks)
    aot, aot_names, aot_traces = aot_intermediate_outputs(etrecord, graph)
    if not aot or not aot_names:
        raise ValueError(
            "Missing etrecord or missing representative inputs within etrecord, both of "
            "which are required for calculating numerical gap")
    runtime, runtime_names = runtime_intermediate_outputs(inspector.event_blocks)
    mapping = map_runtime_aot_intermediate_outputs(aot, runtime)
    comparator = make_comparator(distance, inspector)
    df = comparator.compare(mapping, aot_names, runtime_names)
    warn_if_ones(etrecord, graph, df, runtime, aot_names, runtime_names, comparator)

    def stacktraces(aot_ops):
        out: Dict[str, Optional[str]] = {}
        for op in aot_ops:
            for per_handle in aot_traces.values():
                if op in per_handle:
                    out[op] = per_handle[op]
                    break
            else:
                out[op] = None
        return out

    if len(df) > 0:
        df["stacktraces"] = df["aot_ops"].apply(stacktraces)
    return df
