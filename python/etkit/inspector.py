"""etkit.inspector: upstream ExecuTorch's Inspector API over the etkit C library.

Scripts written for ``executorch.devtools.inspector`` run unchanged once the
import says ``from etkit import Inspector``.  Names, argument order, defaults,
attribute types and values follow upstream (devtools/inspector/_inspector.py);
the work (parsing, grouping runs into blocks, durations, statistics, tables)
is done by the C library, whose results match upstream bit for bit.

Differences from upstream are listed in docs/compatibility.md ("Python
package"); the main ones: tensors are numpy arrays (upstream: torch tensors),
ETRecords are etkit's own reader (no torch), and ``EventBlock.events`` is a
lazy sequence (events are built when first touched).
"""

import dataclasses
import gc
import operator
import os
import sys
import warnings
from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from typing import Any, Callable, Dict, IO, List, Optional, Sequence, Union

import numpy as np

from . import _checks, _etkit
from . import numerical_comparator, _numeric_gap

# `from etkit.inspector.numerical_comparator import L1Comparator` (upstream:
# executorch.devtools.inspector.numerical_comparator) finds this module
sys.modules[__name__ + ".numerical_comparator"] = numerical_comparator

__all__ = [
    "Event",
    "EventBlock",
    "Inspector",
    "PerfData",
    "TimeScale",
    "ETRecord",
    "parse_etrecord",
    "ETRecordError",
    "compare_results",
]

EDGE_DIALECT_GRAPH_KEY = "edge_dialect_graph_module"
EXCLUDED_COLUMNS_WHEN_PRINTING = [
    "raw",
    "delegate_debug_identifier",
    "stack_traces",
    "module_hierarchy",
    "debug_data",
]
EXCLUDED_EVENTS_WHEN_PRINTING = {"OPERATOR_CALL"}

# etk_inspect_format_t / etk_inspect_view_t of etkit/inspector.h
_FORMAT_TABLE, _FORMAT_TSV, _FORMAT_CSV, _FORMAT_JSON = 0, 1, 2, 3
_VIEW_EVENTS, _VIEW_SUMMARY = 0, 1


class TimeScale(Enum):
    NS = "ns"
    US = "us"
    MS = "ms"
    S = "s"
    CYCLES = "cycles"


TIME_SCALE_DICT = {
    TimeScale.NS: 1000000000,
    TimeScale.US: 1000000,
    TimeScale.MS: 1000,
    TimeScale.S: 1,
    TimeScale.CYCLES: 1,
}


def calculate_time_scale_factor(source_time_scale, target_time_scale) -> float:
    """The divisor that turns source units into target units (upstream's)."""
    return TIME_SCALE_DICT[source_time_scale] / TIME_SCALE_DICT[target_time_scale]


def _time_scale(value, what: str) -> TimeScale:
    if isinstance(value, TimeScale):
        return value
    try:
        return TimeScale(value)
    except ValueError:
        raise ValueError(
            f"{what}: {value!r} is not a TimeScale (ns, us, ms, s, cycles)"
        ) from None


# ---------------------------------------------------------------- PerfData


@dataclass
class PerfData:
    """Durations of one event over the merged runs (target time units)."""

    def __init__(self, raw: List[float]):
        self.raw: List[float] = raw

    @property
    def p10(self) -> float:
        return np.percentile(self.raw, 10)

    @property
    def p50(self) -> float:
        return np.percentile(self.raw, 50)

    @property
    def p90(self) -> float:
        return np.percentile(self.raw, 90)

    @property
    def avg(self) -> float:
        return np.mean(self.raw)

    @property
    def min(self) -> float:
        return min(self.raw)

    @property
    def max(self) -> float:
        return max(self.raw)


def _truncated_list(long_list: List[str]) -> str:
    return (
        f"['{long_list[0]}', '{long_list[1]}' ... '{long_list[-1]}'] "
        f"({len(long_list)} total)"
    )


def _elapsed(start_time, end_time):
    """Upstream's Event._calculate_elapsed_time (its 32-bit wrap rule)."""
    max_uint32 = 2**32 - 1
    if start_time > end_time:
        if (start_time > max_uint32) or (end_time > max_uint32):
            raise ValueError(
                f"Expected start_time ({start_time}) and end_time ({end_time}) "
                f"to be less than {max_uint32} for cases where there is "
                "wrap-around of time values."
            )
        return (max_uint32 - start_time) + end_time
    return end_time - start_time


def _converted_elapsed(converter, name, start, end, quirks):
    """A delegated event's duration through delegate_time_scale_converter.
    With upstream_quirks, upstream's: both stamps converted, then its wrap
    rule on the converted values (which adds the raw 2^32 - 1 to converted
    times: 4294963000.034 ms for a 1296-tick wrap converted to ms).  Without,
    etkit's: a 32-bit wrap is undone on the raw ticks (end + 2^32) before
    converting, so the duration is the converter's of the true ticks
    (0.001296 ms)."""
    if quirks:
        return _elapsed(converter(name, start), converter(name, end))
    if start > end and start <= 2**32 - 1 and end <= 2**32 - 1:
        end += 2**32
    return _elapsed(converter(name, start), converter(name, end))


# ---------------------------------------------------------------- Event


@dataclass
class Event:
    """One operator instance (or framework event) with its perf and debug data.

    Same fields as upstream's Event; see its documentation.
    """

    name: str
    perf_data: Optional[PerfData] = None
    op_types: List[str] = dataclasses.field(default_factory=list)
    delegate_debug_identifier: Optional[Union[int, str]] = None
    debug_handles: Optional[Union[int, Sequence[int]]] = None
    num_outputs: int = 1
    stack_traces: Dict[str, str] = dataclasses.field(default_factory=dict)
    module_hierarchy: Dict[str, Dict] = dataclasses.field(default_factory=dict)
    is_delegated_op: Optional[bool] = None
    delegate_backend_name: Optional[str] = None
    _delegate_debug_metadatas: List[str] = dataclasses.field(default_factory=list)

    debug_data: list = dataclasses.field(default_factory=list)
    _instruction_id: Optional[int] = None

    _delegate_metadata_parser: Optional[Callable[[List[str]], Dict[str, Any]]] = None
    _delegate_time_scale_converter: Optional[
        Callable[[Union[int, str], Union[int, float]], Union[int, float]]
    ] = None
    _start_time: Optional[List[Union[int, float]]] = None
    # set when a field is assigned after construction: the Inspector's
    # tables are then built from the Event objects (upstream's way)
    _edited: bool = dataclasses.field(default=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "_track", True)

    def __setattr__(self, key, value):
        if key != "_edited" and self.__dict__.get("_track"):
            object.__setattr__(self, "_edited", True)
        object.__setattr__(self, key, value)

    @cached_property
    def delegate_debug_metadatas(self) -> Union[List[str], Dict[str, Any]]:
        """The parsed metadata when a parser is set (delegated events), else raw."""
        if not self.is_delegated_op or self._delegate_metadata_parser is None:
            return self._delegate_debug_metadatas
        return self._delegate_metadata_parser(self._delegate_debug_metadatas)

    @property
    def raw_delegate_debug_metadatas(self) -> List[str]:
        return self._delegate_debug_metadatas

    @property
    def start_time(self) -> Optional[List[Union[int, float]]]:
        return self._start_time

    def to_dataframe(self, _units=""):
        import pandas as pd

        return pd.DataFrame(self.asdict(_units=_units))

    def asdict(self, _units="") -> dict:
        perf = self.perf_data
        return {
            "event_name": self.name,
            "raw": [perf.raw if perf else None],
            "p10" + _units: perf.p10 if perf else None,
            "p50" + _units: perf.p50 if perf else None,
            "p90" + _units: perf.p90 if perf else None,
            "avg" + _units: perf.avg if perf else None,
            "min" + _units: perf.min if perf else None,
            "max" + _units: perf.max if perf else None,
            "op_types": [
                self.op_types
                if len(self.op_types) < 5
                else _truncated_list(self.op_types)
            ],
            "delegate_debug_identifier": self.delegate_debug_identifier,
            "stack_traces": [self.stack_traces],
            "module_hierarchy": [self.module_hierarchy],
            "is_delegated_op": self.is_delegated_op,
            "delegate_backend_name": self.delegate_backend_name,
            "debug_data": [self.debug_data],
            "start_time": [self._start_time],
        }


def _event_from_handle(handle, index, parser, converter, scale_factor,
                       quirks=False) -> Event:
    """Builds the Event of C event `index` (one C call per field group)."""
    _, name, iid, delegated, delegate_id, samples, debug_count, _ = handle.event(index)
    perf, start, metas = None, None, []
    if samples:
        raw, start, end, meta = handle.samples(index)
        if delegated and converter is not None:
            raw = [_converted_elapsed(converter, name, s, e, quirks)
                   for s, e in zip(start, end)]
        if raw:  # all samples without an end time: no perf data (etkit)
            perf = PerfData(raw)
        else:
            start = None
        if any(meta):
            metas = [m if m else "" for m in meta]
    ev = Event(
        name=name,
        perf_data=perf,
        delegate_debug_identifier=delegate_id,
        is_delegated_op=delegated,
        _delegate_debug_metadatas=metas,
        debug_data=handle.debug_data(index) if debug_count else [],
        _instruction_id=iid,
        _delegate_metadata_parser=parser,
        _delegate_time_scale_converter=converter,
        _start_time=start,
    )
    link = handle.link(index)
    if link is not None:
        (ev.debug_handles, ev.num_outputs, ev.delegate_backend_name,
         ev.op_types, ev.stack_traces, ev.module_hierarchy) = link
        # filling the link fields is not a user edit: without this every
        # linked event would send the tables down the edited (slow) path
        object.__setattr__(ev, "_edited", False)
    return ev


class _LazyEvents(Sequence):
    """The events of one block, each built on first access and then kept
    (only those: a million untouched events cost nothing here)."""

    def __init__(self, owner, first, count):
        self._owner = owner
        self._first = first
        self._count = count
        self._cache = {}

    def __len__(self):
        return self._count

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self._count))]
        i = operator.index(i)  # a TypeError for what a list refuses
        if i < 0:
            i += self._count
        if not 0 <= i < self._count:
            raise IndexError("event index out of range")
        ev = self._cache.get(i)
        if ev is None:
            ev = self._owner._event(self._first + i)
            self._cache[i] = ev
        return ev

    def __eq__(self, other):
        if isinstance(other, (list, tuple, _LazyEvents)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __repr__(self):
        return repr(list(self))

    def __add__(self, other):
        return list(self) + list(other)

    def edited(self) -> bool:
        """Whether a built event has had a field assigned."""
        return any(ev._edited for ev in self._cache.values())


# ---------------------------------------------------------------- DataFrames


_STATS = ("p10", "p50", "p90", "avg", "min", "max")


def _signatures(cols, backends):
    """Per event, what decides the dtypes pandas gives upstream's frames:
    perf data or not, delegate id None/int/str, backend None/str (int8
    values 0..11: a byte per event)."""
    sig = cols["sig"]
    for k in np.flatnonzero(cols["linked"]):
        if backends[k] is not None:
            sig[k] += 6
    return sig


def _prototype(handle, blocks, sigs, lo, units, parser, converter, quirks=False):
    """Upstream's own construction (Event.to_dataframe per event, concat per
    block, insert the block name, concat the blocks) on one event per
    signature and block: its dtypes are those of the full frame, because
    pandas decides them from the kinds of blocks it concatenates."""
    import pandas as pd

    frames = []
    for name, b_lo, b_hi in blocks:
        seg = sigs[b_lo - lo:b_hi - lo]
        # the first event of each signature (a byte-sized mask per value,
        # not np.unique's sort of the whole column)
        first = [int(np.argmax(seg == v)) for v in range(12)]
        rows = [_event_from_handle(handle, b_lo + k, parser, converter, 1.0, quirks)
                for k in sorted(k for v, k in enumerate(first) if seg[k] == v)]
        df = pd.concat([e.to_dataframe(units) for e in rows], ignore_index=True)
        df.insert(0, "event_block_name", np.asarray([name] * len(rows)),
                  allow_duplicates=True)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def _typed(values, dtype):
    """A column's values with the dtype the prototype frame has."""
    if isinstance(values, np.ndarray) and values.dtype == dtype:
        return values
    if dtype == object:
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out
    return np.array(values, dtype=dtype)


def _frame(handle, blocks, units, include_ddd, parser, converter, quirks=False):
    """The DataFrame of the events of `blocks` ((name, lo, hi) ranges that
    follow each other), built from the C handle's columns of that range:
    Event objects are made only for events that need per-event data
    (links, debug data, a converter) and for one prototype event per dtype
    signature."""
    import pandas as pd

    lo, hi = blocks[0][1], blocks[-1][2]
    n = hi - lo
    # every cell a new object of its own, the empty lists and dicts too
    # (upstream's default_factory per event): appending to one cell
    # changes nothing else
    cols = handle.columns(lo, hi)
    has, deleg = cols["has_perf"], cols["is_delegated"]
    raw, start = cols["raw"], cols["start_time"]
    stats = {k: cols[k] for k in _STATS}
    op_types, traces = cols["op_types"], cols["stack_traces"]
    modules, backends = cols["module_hierarchy"], cols["delegate_backend_name"]
    debug = cols["debug_data"]
    event_names, delegate_ids = cols["name"], cols["delegate_id"]
    for k in np.flatnonzero(cols["linked"]):
        _, _, backend, ops, st, mh = handle.link(lo + int(k))
        op_types[k] = ops if len(ops) < 5 else _truncated_list(ops)
        traces[k], modules[k], backends[k] = st, mh, backend
    for k in np.flatnonzero(cols["has_debug"]):
        debug[k] = handle.debug_data(lo + int(k))
    if converter is not None and deleg.any():
        # the user's converter decides delegated durations: recompute those
        for k in np.flatnonzero(deleg & has):
            ev = _event_from_handle(handle, lo + int(k), parser, converter, 1.0, quirks)
            raw[k] = ev.perf_data.raw
            for s in stats:
                stats[s][k] = getattr(ev.perf_data, s)
    sigs = _signatures(cols, backends)
    proto = _prototype(handle, blocks, sigs, lo, units, parser, converter, quirks)
    # the flags only steered the lookups and the dtypes
    del sigs, cols
    names = np.empty(n, dtype=object)
    for name, b_lo, b_hi in blocks:
        names[b_lo - lo:b_hi - lo] = name
    values = {
        "event_block_name": names,
        "event_name": event_names,
        "raw": raw,
    }
    for s in _STATS:
        col = stats[s]
        if proto[s + units].dtype == object:
            col = [float(x) if h else None for x, h in zip(col, has)]
        values[s + units] = col
    values.update({
        "op_types": op_types,
        "delegate_debug_identifier": delegate_ids,
        "stack_traces": traces,
        "module_hierarchy": modules,
        "is_delegated_op": deleg,
        "delegate_backend_name": backends,
        "debug_data": debug,
        "start_time": start,
    })
    data = {c: _typed(values[c], proto[c].dtype) for c in proto.columns}
    # copy=False: no consolidation of the object columns into one 2-D block
    # (a second copy of every cell pointer at the peak)
    df = pd.DataFrame(data, copy=False)
    if include_ddd:
        metas = _metadata_columns(handle, lo, hi, deleg, parser)
        if metas is not None:
            df = pd.concat([df, metas], axis=1)
    return df


def _metadata_row(metadata):
    """One event's delegate_debug_metadata as upstream lays it out: a list
    in one cell, a dict's items as columns, nothing when empty."""
    import pandas as pd

    if metadata is None or len(metadata) == 0:
        return pd.Series(dtype=object)
    if isinstance(metadata, list):
        return pd.Series([metadata], index=["delegate_debug_metadata"])
    if isinstance(metadata, dict):
        return pd.Series(metadata)
    raise ValueError(
        f"Unexpected type for delegate_debug_metadata: {type(metadata)}"
    )


def _metadata_columns(handle, lo, hi, deleg, parser):
    """Upstream's delegate_debug_metadata columns (include_delegate_debug_data)."""
    import pandas as pd

    rows, any_value = [], False
    for i in range(lo, hi):
        _, name, _, delegated, _, samples, _, _ = handle.event(i)
        metadata = []
        if samples:
            meta = handle.samples(i)[3]
            if any(meta):
                metadata = [m if m else "" for m in meta]
        if delegated and parser is not None:
            metadata = parser(metadata)
        rows.append(_metadata_row(metadata))
        any_value = any_value or (metadata is not None and len(metadata) > 0)
    if not any_value:
        return None
    return pd.DataFrame(rows).reset_index(drop=True)


# ---------------------------------------------------------------- EventBlock


@dataclass
class EventBlock:
    """The events of one pattern of execution (runs with the same signature)."""

    name: str
    events: List[Event] = dataclasses.field(default_factory=list)
    source_time_scale: TimeScale = TimeScale.NS
    target_time_scale: TimeScale = TimeScale.MS
    bundled_input_index: Optional[int] = None
    run_output: Optional[list] = None
    reference_output: Optional[list] = None
    _inspector: Any = dataclasses.field(default=None, repr=False, compare=False)
    _index: int = dataclasses.field(default=-1, repr=False, compare=False)

    def to_dataframe(self, include_units: bool = False,
                     include_delegate_debug_data: bool = False):
        """One row per event (upstream's columns and dtypes)."""
        import pandas as pd

        units = " (" + self.target_time_scale.value + ")" if include_units else ""
        ins = self._inspector
        if ins is not None and isinstance(self.events, _LazyEvents) and \
                not self.events.edited():
            lo = self.events._first
            hi = lo + len(self.events)
            if hi == lo:
                raise ValueError("No objects to concatenate")
            return ins._frame([(self.name, lo, hi)], units, include_delegate_debug_data)
        df = pd.concat([e.to_dataframe(units) for e in self.events], ignore_index=True)
        df.insert(0, "event_block_name",
                  np.asarray([self.name for _ in range(len(self.events))]),
                  allow_duplicates=True)
        if include_delegate_debug_data:
            data = []
            for event in self.events:
                data.append(_metadata_row(event.delegate_debug_metadatas))
            if any(not d.empty for d in data):
                df = pd.concat([df, pd.DataFrame(data)], axis=1)
        return df


# ---------------------------------------------------------------- ETRecord


_EXECUTORCH_MEMBERS = ("debug_handle_map", "delegate_map",
                       "instruction_id_to_num_outs_map", "reference_outputs",
                       "representative_inputs")
_COMPANIONS = ("", "_state_dict", "_constants", "_example_inputs")


class ETRecordError(RuntimeError, ValueError):
    """A file parse_etrecord cannot read as an ETRecord: a RuntimeError as
    upstream raises ("Invalid etrecord file passed in."), and a ValueError
    as etkit's other readers raise."""


class ETRecord:
    """An ETRecord with upstream's attributes: exported_program,
    export_graph_id, edge_dialect_program (one program, or {method: program}
    for several methods), graph_map, _debug_handle_map, _delegate_map,
    _instruction_id_to_num_outs_map, _reference_outputs and
    _representative_inputs (numpy arrays).

    parse_etrecord(path) reads one with etkit's C reader.  ETRecord(...)
    builds one from parts, with upstream's arguments: programs are etkit
    ExportedProgram objects (from another ETRecord), maps are dicts,
    references numpy arrays.  Edits (update_*, copy()) are kept until
    save(path or file object) writes them."""

    def __init__(self, exported_program=None, export_graph_id=None,
                 edge_dialect_program=None, graph_map=None,
                 _debug_handle_map=None, _delegate_map=None,
                 _instruction_id_to_num_outs_map=None, _reference_outputs=None,
                 _representative_inputs=None, *, _handle=None):
        self._h = _handle
        self._members = {}  # name -> bytes (written) or None (dropped)
        self._built = {}  # the members the C record `_h` was written with
        self._tmp = None  # the file a record built from parts is read from
        self._parsed = _handle is not None
        if _handle is not None:
            return
        if exported_program is not None:
            self._put_program("exported_program", exported_program)
        self._put_edges(edge_dialect_program)
        self._put_graph_map(graph_map)
        for name, value in (("debug_handle_map", _debug_handle_map),
                            ("delegate_map", _delegate_map),
                            ("instruction_id_to_num_outs_map",
                             _instruction_id_to_num_outs_map)):
            if value is not None:
                self._put_json(name, value)
        self.export_graph_id = export_graph_id
        if _reference_outputs is not None:
            self.update_reference_outputs(_reference_outputs)
        if _representative_inputs is not None:
            self.update_representative_inputs(_representative_inputs)

    # -- the C reader over the record as edited

    @property
    def _handle(self):
        """The C record: the parsed file, or (built from parts, or edited
        since) the record as it is now, written to a private temporary
        file when first needed, so the Inspector, graphs and etkit's
        readers see every edit (upstream's record is in memory)."""
        if self._h is None or self._members != self._built:
            import tempfile
            import weakref

            fd, tmp = tempfile.mkstemp(prefix="etkit-etrecord-", suffix=".bin")
            os.close(fd)
            weakref.finalize(self, os.unlink, tmp)
            built = dict(self._members)
            self._write_zip(tmp)
            self._tmp = tmp
            self._h = _etkit.open_etrecord(tmp)
            self._built = built
        return self._h

    @property
    def path(self) -> str:
        return self._handle.path

    def methods(self) -> List[str]:
        return self._handle.methods()

    def _member(self, name):
        """A member's bytes as edited (None when absent or dropped)."""
        import zipfile

        if name in self._members:
            return self._members[name]
        if self._h is None:
            return None
        with zipfile.ZipFile(self._h.path) as z:
            return z.read(name) if name in z.namelist() else None

    def _put_json(self, name, value):
        """Sets a JSON member (None: drops it, as upstream's save() leaves
        out a None attribute)."""
        import json

        self._members[name] = None if value is None else json.dumps(value).encode()

    def _drop_programs(self, kinds):
        """Drops every program member of the given kinds (0 edge, 1 ATen,
        2 graph_map; etk_etrecord_program_kind_t) with its companions."""
        for member, _, _, kind in self._handle.programs():
            if kind in kinds:
                for suffix in _COMPANIONS:
                    self._members[member + suffix] = None

    def _put_edges(self, edge_dialect_program):
        if isinstance(edge_dialect_program, ExportedProgram):
            edge_dialect_program = {"forward": edge_dialect_program}
        if edge_dialect_program is not None and not isinstance(edge_dialect_program, dict):
            raise TypeError("edge_dialect_program must be an etkit ExportedProgram or "
                            f"{{method: ExportedProgram}}, not "
                            f"{type(edge_dialect_program).__name__}")
        for method, ep in (edge_dialect_program or {}).items():
            self._put_program(f"edge_dialect_exported_program/{method}", ep)

    def _put_graph_map(self, graph_map):
        for name, ep in (graph_map or {}).items():
            self._put_program(name if "/" in name else f"{name}/forward", ep)

    def _put_program(self, name, ep):
        import zipfile

        if not isinstance(ep, ExportedProgram):
            raise TypeError(f"{name}: expected an etkit ExportedProgram (from an "
                            f"ETRecord), not {type(ep).__name__}")
        with zipfile.ZipFile(ep._prog["path"]) as z:
            names = set(z.namelist())
            for suffix in _COMPANIONS:
                if ep.member + suffix in names:
                    self._members[name + suffix] = z.read(ep.member + suffix)

    def _program(self, member):
        """The handle's program `member` (None: the edge program); a
        damaged one raises ValueError naming this file, as every other
        ETRecord error does."""
        try:
            return self._handle.program(member)
        except ValueError as e:
            text = str(e)
            if text.startswith(self.path + ": "):
                raise
            raise ValueError(f"{self.path}: {text}") from None

    @property
    def graph_map(self) -> Dict[str, "ExportedProgram"]:
        out = {}
        for member, module, method, kind in self._handle.programs():
            if kind == 2:  # ETK_ETRECORD_PROGRAM_EXTRA
                prog = self._program(member)
                if prog is not None:
                    out[member] = ExportedProgram(prog)
        return out

    @graph_map.setter
    def graph_map(self, value):
        self._check_programs(value, "graph_map", dict)
        self._drop_programs((2,))
        self._put_graph_map(value)

    def _edge_program(self):
        """forward's edge program (or the only one): the Inspector's
        reference graph."""
        prog = self._program(None)
        return ExportedProgram(prog) if prog is not None else None

    @property
    def edge_dialect_program(self):
        """The edge program; {method: program} when the record holds
        several methods' (upstream's parse_etrecord)."""
        edges = [(member, method) for member, module, method, kind
                 in self._handle.programs() if kind == 0]
        if len(edges) > 1:
            return {method: ExportedProgram(self._program(member))
                    for member, method in edges}
        return self._edge_program()

    @edge_dialect_program.setter
    def edge_dialect_program(self, value):
        self._check_programs(value, "edge_dialect_program", (dict, ExportedProgram))
        self._drop_programs((0, 3))
        self._put_edges(value)

    @property
    def exported_program(self):
        """The ATen program (member "exported_program"), or None."""
        try:
            prog = self._handle.program("exported_program")
        except (ValueError, KeyError, RuntimeError):
            return None
        return ExportedProgram(prog) if prog is not None else None

    @exported_program.setter
    def exported_program(self, value):
        self._check_programs(value, "exported_program", ExportedProgram)
        self._drop_programs((1,))
        if value is not None:
            self._put_program("exported_program", value)

    @staticmethod
    def _check_programs(value, what, types):
        """Checks an assigned program (or dict of them) before anything
        is dropped: etkit ExportedProgram objects only (no torch)."""
        if value is None:
            return
        if not isinstance(value, types):
            raise TypeError(f"{what}: expected an etkit ExportedProgram (from an "
                            f"ETRecord), not {type(value).__name__}")
        for ep in (value.values() if isinstance(value, dict) else [value]):
            if not isinstance(ep, ExportedProgram):
                raise TypeError(f"{what}: expected an etkit ExportedProgram (from an "
                                f"ETRecord), not {type(ep).__name__}")

    @property
    def export_graph_id(self):
        """The member export_graph_id; 0 when a parsed file has none (as
        upstream's parse_etrecord), None for parts built without one."""
        value = self._json_member("export_graph_id")
        if value is None and self._parsed and "export_graph_id" not in self._members:
            return 0
        return value

    @export_graph_id.setter
    def export_graph_id(self, value):
        self._put_json("export_graph_id", value)

    def _json_member(self, name):
        import json

        text = self._member(name)
        return json.loads(text) if text else None

    # the maps and references are assignable, as upstream's attributes;
    # None drops the member

    @property
    def _debug_handle_map(self):
        return self._json_member("debug_handle_map")

    @_debug_handle_map.setter
    def _debug_handle_map(self, value):
        self._put_json("debug_handle_map", value)

    @property
    def _delegate_map(self):
        return self._json_member("delegate_map")

    @_delegate_map.setter
    def _delegate_map(self, value):
        self._put_json("delegate_map", value)

    @property
    def _instruction_id_to_num_outs_map(self):
        return self._json_member("instruction_id_to_num_outs_map")

    @_instruction_id_to_num_outs_map.setter
    def _instruction_id_to_num_outs_map(self, value):
        self._put_json("instruction_id_to_num_outs_map", value)

    @property
    def _representative_inputs(self):
        """The inputs calculate_numeric_gap runs the graph on (a list of
        numpy arrays), or None."""
        if "representative_inputs" in self._members:
            data = self._members["representative_inputs"]
            return None if data is None else list(self._edited_inputs)
        return self._handle.representative_inputs()

    @_representative_inputs.setter
    def _representative_inputs(self, value):
        if value is None:
            self._members["representative_inputs"] = None
        else:
            self.update_representative_inputs(value)

    @property
    def _reference_outputs(self):
        if "reference_outputs" in self._members:
            data = self._members["reference_outputs"]
            return None if data is None else dict(self._edited_outputs)
        return self._handle.reference_outputs()

    @_reference_outputs.setter
    def _reference_outputs(self, value):
        if value is None:
            self._members["reference_outputs"] = None
        else:
            self.update_reference_outputs(value)

    @property
    def _inputs_override(self):
        """The edited representative inputs (numpy arrays), or None."""
        if self._members.get("representative_inputs") is None:
            return None
        return list(self._edited_inputs)

    def update_representative_inputs(self, representative_inputs) -> None:
        """Sets the inputs: a sequence of arrays (or a list of such
        sequences: the first is used), or an etkit BundledProgram (its
        forward method's first test case, as upstream)."""
        from .bundled_program import BundledProgram

        if isinstance(representative_inputs, BundledProgram):
            items = None
            for suite in representative_inputs.method_test_suites:
                if suite.method_name == "forward":
                    if not suite.test_cases:
                        raise ValueError("The 'forward' method is defined, but no "
                                         "corresponding input test cases are provided.")
                    items = list(suite.test_cases[0].inputs)
            if items is None:
                self._members["representative_inputs"] = None
                return
        else:
            items = list(representative_inputs)
            if items and isinstance(items[0], (list, tuple)):
                items = list(items[0])
        self._edited_inputs = [_as_array(x) for x in items]
        self._members["representative_inputs"] = _etkit.torch_save_tree(
            list(self._edited_inputs))

    def update_reference_outputs(self, reference_outputs) -> None:
        """Sets the reference outputs: {method: [outputs of case 0, of case
        1, ...]}, a list (forward's), or an etkit BundledProgram (every
        case's expected outputs per method), as upstream."""
        from .bundled_program import BundledProgram

        if isinstance(reference_outputs, BundledProgram):
            outputs = {}
            for suite in reference_outputs.method_test_suites:
                outputs[suite.method_name] = []
                for case in suite.test_cases:
                    if not case.expected_outputs:
                        raise ValueError("Missing at least one set of expected outputs "
                                         f"for method {suite.method_name}.")
                    outputs[suite.method_name].append(list(case.expected_outputs))
        elif isinstance(reference_outputs, list):
            outputs = {"forward": reference_outputs}
        elif isinstance(reference_outputs, dict):
            outputs = reference_outputs
        else:
            raise TypeError("reference_outputs must be a dict, a list or a "
                            f"BundledProgram, not {type(reference_outputs).__name__}")
        edited = {}
        for method, cases in outputs.items():
            edited[str(method)] = [
                [_as_array(x) for x in (case if isinstance(case, (list, tuple)) else [case])]
                for case in cases]
        self._edited_outputs = edited
        self._members["reference_outputs"] = _etkit.torch_save_tree(edited)

    def copy(self) -> "ETRecord":
        """A copy with the same programs and without the executorch data
        (maps, reference outputs, representative inputs), as upstream's."""
        other = ETRecord.__new__(ETRecord)
        other._h = self._handle
        other._built = dict(self._built)
        other._members = dict(self._members)
        other._tmp = None
        other._parsed = self._parsed
        other.export_graph_id = self.export_graph_id
        for name in _EXECUTORCH_MEMBERS:
            other._members[name] = None
        return other

    def _write_zip(self, target) -> None:
        import zipfile

        with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as dst:
            written = set()
            if self._h is not None:
                with zipfile.ZipFile(self._h.path) as src:
                    for info in src.infolist():
                        if info.filename in self._members or info.filename in written:
                            continue
                        dst.writestr(info, src.read(info.filename))
                        written.add(info.filename)
            elif "ETRECORD_V0" not in self._members:
                dst.writestr("ETRECORD_V0", b"")
            for name, data in self._members.items():
                if data is not None and name not in written:
                    dst.writestr(name, data)

    def save(self, path) -> None:
        """Writes the ETRecord (every member, edits applied) to a path (all
        or nothing: a temporary file renamed at the end) or to a binary file
        object.  As upstream, a record without an edge program and a debug
        handle map is refused (RuntimeError)."""
        import io
        import tempfile

        has_edge = any(kind == 0 for _, _, _, kind in self._handle.programs())
        if not (has_edge and self._debug_handle_map):
            raise RuntimeError("ETRecord must contain edge dialect program and "
                               "executorch program to be saved")
        if hasattr(path, "write"):
            buf = io.BytesIO()
            self._write_zip(buf)
            path.write(buf.getvalue())
            return
        path = os.fspath(path)
        tmp_dir = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=".etrecord.", dir=tmp_dir)
        os.close(fd)
        try:
            self._write_zip(tmp)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise

    def __repr__(self):
        if self._h is None:
            return f"ETRecord({len(self._members)} members, not saved)"
        return f"ETRecord({self.path!r})"


def _as_array(x):
    """A numpy array of an input or output (a torch tensor through
    .detach().cpu().numpy(); a Python scalar stays a scalar)."""
    if type(x) in (int, float, bool) or x is None:
        return x
    if hasattr(x, "detach") and hasattr(x, "numpy"):
        x = x.detach().cpu().numpy()
    return np.ascontiguousarray(np.asarray(x))


def parse_etrecord(etrecord_path: str) -> ETRecord:
    """Reads an ETRecord file (any layout etkit knows: 2023 to current).
    A file that is not one raises ETRecordError (a RuntimeError, as
    upstream, and a ValueError); a missing file FileNotFoundError."""
    path = _checks.fspath(etrecord_path, "etrecord_path")
    try:
        handle = _etkit.open_etrecord(path)
    except ValueError as e:
        raise ETRecordError(str(e)) from None
    return ETRecord(_handle=handle)


def _refuse_output_is_input(path, inputs) -> None:
    """Raises ValueError when the existing file `path` is one of `inputs`
    ((argument name, path) pairs): the same file, also through hard or
    symbolic links (same device and inode), as `etkit` refuses it."""
    import os

    try:
        out = os.stat(path)
    except (OSError, TypeError, ValueError):
        return
    for name, given in inputs:
        if given is None or not isinstance(given, (str, bytes, os.PathLike)):
            continue
        try:
            st = os.stat(given)
        except (OSError, ValueError):
            continue
        if (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino):
            raise ValueError(
                f"{os.fsdecode(path)}: the output is the same file as the input "
                f"{name}={os.fsdecode(given)!r}: refusing to overwrite it "
                "(choose another output name)")


@dataclass
class GraphNode:
    """One call_function node of an ETRecord program."""

    name: str
    op: str
    target: str
    args: str
    users: List[str]
    meta: Dict[str, Any]


_DIALECTS = {1: "all tags (before 2024-07)", 2: "single key"}


def _listing(rows):
    """Columns padded to their widest cell (in bytes, as `etkit graph`),
    two spaces apart, nothing after a row's last non-empty cell."""
    widths = [max(len(r[c].encode()) for r in rows) for c in range(len(rows[0]))]
    lines = []
    for r in rows:
        last = max([c for c, v in enumerate(r) if v] or [0])
        cells = [v + " " * (widths[c] - len(v.encode())) + "  " for c, v in enumerate(r[:last])]
        lines.append("".join(cells) + r[last])
    return lines


class ExportedProgram:
    """An ETRecord program as etkit reads it (no torch): its nodes with
    name, op, target, args, users and meta (stack_trace, nn_module_stack,
    debug_handle).  print() shows the listing `etkit graph` prints."""

    def __init__(self, prog: dict):
        self._prog = prog
        self.member = prog["member"]
        self.inputs = prog["inputs"]
        self.outputs = prog["outputs"]
        users: Dict[str, List[str]] = {}
        for n in prog["nodes"]:
            for word in (n["args"] or "").replace(",", " ").replace("=", " ").split():
                users.setdefault(word, []).append(n["name"])
        self.nodes = []
        for n in prog["nodes"]:
            meta = {"stack_trace": n["stack_trace"],
                    "nn_module_stack": n["nn_module_stack"],
                    "debug_handle": n["debug_handle"]}
            outs = n["outputs"] or [n["name"]]
            node_users = sorted({u for o in outs for u in users.get(o, [])})
            self.nodes.append(GraphNode(n["name"], "call_function", n["target"],
                                        n["args"], node_users, meta))

    def listing(self, with_args: bool = False) -> str:
        """`etkit graph ETRECORD [--graph NAME] [--args]`'s text."""
        p = self._prog
        verifiers = f"; verifiers {p['verifiers']}" if p["verifiers"] else ""
        head = [
            f"etrecord  {p['path']}",
            f"layout    {p['layout']}",
            f"program   {p['member']} (method {p['method'] or '-'}; schema {p['schema']}; "
            f"unions: {_DIALECTS.get(p['dialect'], 'none seen')}{verifiers})",
            f"inputs    {', '.join(p['inputs'])}",
            f"outputs   {', '.join(p['outputs'])}",
            f"nodes     {len(p['nodes'])}",
            "",
        ]
        rows = [["node", "op", "handle", "module", "source"] + (["args"] if with_args else [])]
        for n in p["nodes"]:
            op = f"{n['op']} ({n['delegate_backend']})" if n["delegate_backend"] else n["op"]
            row = [" " * (2 * min(n["depth"], 16)) + (n["name"] or "-"), op,
                   "-" if n["debug_handle"] is None else str(n["debug_handle"]),
                   n["module_path"] or "-", n["source"] or "-"]
            rows.append(row + ([n["args"] or ""] if with_args else []))
        return "\n".join(head + _listing(rows)) + "\n"

    @property
    def graph_module(self) -> "ExportedProgram":
        """The program itself: etkit has no torch GraphModule, and what
        upstream passes as ep.graph_module (get_delegation_info) etkit
        reads from the program."""
        return self

    def __str__(self):
        return self.listing().rstrip("\n")

    __repr__ = __str__


# ---------------------------------------------------------------- Inspector


class Inspector:
    """APIs for examining model architecture and performance stats.

    Public attributes: ``event_blocks`` (list of EventBlock), ``op_graph_dict``.

    etkit keywords: ``compensate=True`` takes from every event's durations
    what recording the events inside it cost (the dump's calibration,
    written by ``etkit run``; docs/inspector.md); ``event_cost_ns`` gives
    that cost per event for a dump without calibration (upstream's).
    Without them every output is upstream's.
    """

    def __init__(
        self,
        etdump_path: Optional[str] = None,
        etdump_data: Optional[bytes] = None,
        etrecord: Optional[Union[ETRecord, str]] = None,
        source_time_scale: TimeScale = TimeScale.NS,
        target_time_scale: TimeScale = TimeScale.MS,
        debug_buffer_path: Optional[str] = None,
        delegate_metadata_parser: Optional[Callable[[List[str]], Dict[str, Any]]] = None,
        delegate_time_scale_converter: Optional[
            Callable[[Union[int, str], Union[int, float]], Union[int, float]]
        ] = None,
        enable_module_hierarchy: bool = False,
        reference_graph_name: str = EDGE_DIALECT_GRAPH_KEY,
        *,
        debug_buffer: Optional[bytes] = None,
        upstream_quirks: bool = False,
        compensate: bool = False,
        event_cost_ns: Optional[float] = None,
    ) -> None:
        source_time_scale = _time_scale(source_time_scale, "source_time_scale")
        target_time_scale = _time_scale(target_time_scale, "target_time_scale")
        if (source_time_scale == TimeScale.CYCLES) ^ (
            target_time_scale == TimeScale.CYCLES
        ):
            raise RuntimeError(
                "For TimeScale in cycles both the source and target time scale "
                "have to be in cycles."
            )
        self._source_time_scale = source_time_scale
        self._target_time_scale = target_time_scale
        self._delegate_metadata_parser = delegate_metadata_parser
        self._delegate_time_scale_converter = delegate_time_scale_converter
        self._upstream_quirks = bool(upstream_quirks)
        # etkit: take the recorder's own cost out of every duration (the
        # dump's calibration, or event_cost_ns per recorded event)
        if event_cost_ns is not None:
            if isinstance(event_cost_ns, bool) or not isinstance(
                    event_cost_ns, (int, float)) or not event_cost_ns > 0:
                raise ValueError(
                    f"event_cost_ns must be a number of nanoseconds > 0, "
                    f"not {event_cost_ns!r}")
            compensate = True
        self._compensate = bool(compensate)

        if (etdump_path is None) == (etdump_data is None):
            raise ValueError(
                "Expecting exactly one of etdump_path or etdump_data to be specified."
            )
        # every argument checked before anything is read or allocated
        if etdump_path is not None:
            etdump_path = _checks.fspath(etdump_path, "etdump_path")
        else:
            etdump_data = _checks.buffer_bytes(etdump_data, "etdump_data")
        if debug_buffer is not None:
            debug_buffer = _checks.buffer_bytes(debug_buffer, "debug_buffer")
        if debug_buffer_path is not None:
            debug_buffer_path = _checks.fspath(debug_buffer_path, "debug_buffer_path")
        if etrecord is None or isinstance(etrecord, ETRecord):
            self._etrecord = etrecord
        elif isinstance(etrecord, (str, bytes, os.PathLike)):
            self._etrecord = parse_etrecord(etrecord)
        else:
            raise TypeError(
                "Unsupported ETRecord type: an ETRecord or a path (str, bytes or "
                f"os.PathLike), not {type(etrecord).__name__}")
        # files an output must never overwrite (save_trace, save_data_to_tsv)
        self._inputs = [("etdump_path", etdump_path),
                        ("debug_buffer_path", debug_buffer_path),
                        ("etrecord", getattr(self._etrecord, "path", None))]

        if debug_buffer_path is not None:
            debug_buffer = _checks.read_file(debug_buffer_path, "debug buffer")
        elif debug_buffer is None:
            warnings.warn(
                "Output Buffer not found. Tensor Debug Data will not be available.",
                stacklevel=1,
            )
        # the trace names its process after the file, as `etkit trace` does
        self._etdump_name = None if etdump_path is None else os.fsdecode(etdump_path)
        self._handle = _etkit.open_inspector(
            etdump_path, etdump_data, source_time_scale.value,
            target_time_scale.value, debug_buffer, upstream_quirks, 0.0,
            self._compensate, float(event_cost_ns or 0.0))
        mismatches, _, _, logged = self._handle.counts()
        if debug_buffer and not logged:  # as `etkit inspect` warns
            warnings.warn(
                "the debug buffer is not used: the ETDump logs no tensor "
                "values (a debug buffer of another run?)", stacklevel=2)
        if mismatches:
            warnings.warn(
                f"{mismatches} debug value(s) differ between merged runs "
                "(upstream stops with an AssertionError); the first run's "
                "values are kept", stacklevel=2)

        self.event_blocks: List[EventBlock] = []
        for b in range(self._handle.block_count()):
            name, bundled, first, count, outputs, _ = self._handle.block(b)
            run_output = [self._handle.value(e) for e in outputs]
            block = EventBlock(
                name=name,
                events=_LazyEvents(self, first, count),
                source_time_scale=source_time_scale,
                target_time_scale=target_time_scale,
                bundled_input_index=bundled,
                run_output=run_output,
                _inspector=self,
                _index=b,
            )
            self.event_blocks.append(block)

        self.op_graph_dict = None
        self._reference_outputs: Dict[str, list] = {}
        self._enable_module_hierarchy = enable_module_hierarchy
        self._reference_graph_name = reference_graph_name
        if self._etrecord is not None:
            # upstream's gen_graphs_from_etrecord: every graph_map entry,
            # then the edge program under its key; the reference graph must
            # be one of them (KeyError otherwise, as upstream).  Its nodes
            # give the events their op types, stack traces and modules (the
            # default: each block's method's edge program)
            graphs = dict(self._etrecord.graph_map)
            graphs[EDGE_DIALECT_GRAPH_KEY] = self._etrecord._edge_program()
            if reference_graph_name not in graphs:
                raise KeyError(reference_graph_name)
            self.op_graph_dict = graphs
            notes = self._handle.link_etrecord(
                self._etrecord._handle, upstream_quirks,
                None if reference_graph_name == EDGE_DIALECT_GRAPH_KEY
                else reference_graph_name)
            for _, line in notes:
                warnings.warn(line, stacklevel=2)
            self._attach_reference_outputs()

    def _attach_reference_outputs(self):
        """Upstream's step 3: reference_outputs["forward"][bundled_input_index]
        for every block (-1, an unset index, takes the last case)."""
        try:
            refs = self._etrecord._handle.reference_outputs()
        except (RuntimeError, ValueError) as e:
            # a legacy pickle etkit does not decode, or a damaged one: a
            # warning, like the ETRecord's other defects
            warnings.warn(f"reference outputs not read: {e}", stacklevel=3)
            return
        if refs is None:
            return
        cases = refs.get("forward") if isinstance(refs, dict) else None
        if not isinstance(cases, (list, tuple)):
            warnings.warn(
                "reference outputs not read: expected a dict with a 'forward' "
                f"list of cases, found {type(refs).__name__}"
                + ("" if not isinstance(refs, dict) else
                   f" whose 'forward' is {type(cases).__name__}"), stacklevel=3)
            return
        self._reference_outputs = refs
        for block in self.event_blocks:
            index = block.bundled_input_index
            if index is None:
                continue
            if isinstance(index, int) and -len(cases) <= index < len(cases):
                block.reference_output = cases[index]
            else:
                warnings.warn(
                    f"reference outputs: block {block.name!r} names case {index}, "
                    f"the ETRecord has {len(cases)}", stacklevel=3)

    # -- events

    def _event(self, index: int) -> Event:
        return _event_from_handle(
            self._handle, index, self._delegate_metadata_parser,
            self._delegate_time_scale_converter, 1.0, self._upstream_quirks)

    def _frame(self, blocks, units, include_ddd):
        # millions of new lists would run the cyclic collector over and over
        # (they hold no cycles): pause it while the columns are built
        enabled = gc.isenabled()
        gc.disable()
        try:
            return _frame(self._handle, blocks, units, include_ddd,
                          self._delegate_metadata_parser,
                          self._delegate_time_scale_converter,
                          self._upstream_quirks)
        finally:
            if enabled:
                gc.enable()

    # -- upstream's methods

    def to_dataframe(self, include_units: bool = True,
                     include_delegate_debug_data: bool = False):
        """Every event of every block, one row each (upstream's columns)."""
        import pandas as pd

        if not self.event_blocks:
            raise ValueError("No objects to concatenate")
        units = " (" + self._target_time_scale.value + ")" if include_units else ""
        for block in self.event_blocks:
            if len(block.events) == 0:
                raise ValueError("No objects to concatenate")
        if include_delegate_debug_data or not self._pristine():
            # metadata columns are a union over blocks, and edited blocks or
            # events are read from their objects: build per block
            frames = [b.to_dataframe(include_units, include_delegate_debug_data)
                      for b in self.event_blocks]
            return pd.concat(frames, ignore_index=True)
        blocks = [(b.name, b.events._first, b.events._first + len(b.events))
                  for b in self.event_blocks]
        return self._frame(blocks, units, False)

    def _render(self, fmt, include_units, include_delegate_debug_data,
                as_bytes=False):
        # upstream concatenates one frame per block (and per event)
        if not self.event_blocks or any(len(b.events) == 0 for b in self.event_blocks):
            raise ValueError("No objects to concatenate")
        if self._custom_durations(include_delegate_debug_data) or not self._pristine():
            df = self._prepare_dataframe(include_units, include_delegate_debug_data)
            if fmt == _FORMAT_TSV:
                text = df.to_csv(sep="\t")
            else:
                from tabulate import tabulate
                text = tabulate(df, headers="keys", tablefmt="fancy_grid") + "\n"
            return text.encode("utf-8") if as_bytes else text
        return self._handle.render(fmt, _VIEW_EVENTS, include_units,
                                   include_delegate_debug_data, False, False, 0,
                                   as_bytes)

    def _pristine(self) -> bool:
        """event_blocks as the Inspector made them (blocks in order with
        their lazy events, no event field assigned; renaming a block is
        fine): the C library renders them.  Otherwise the tables are built
        from the Python objects, as upstream always does."""
        at = None
        for b in self.event_blocks:
            ev = b.events
            if not isinstance(ev, _LazyEvents) or ev.edited() or \
                    (at is not None and ev._first != at) or \
                    b.name != self._handle.block(b._index)[0]:
                return False
            at = ev._first + len(ev)
        return True

    def _custom_durations(self, include_delegate_debug_data=False) -> bool:
        """A converter (or a parser, when metadata is shown) changes cells
        that the C renderer computes itself."""
        return (self._delegate_time_scale_converter is not None
                or (include_delegate_debug_data
                    and self._delegate_metadata_parser is not None))

    def _prepare_dataframe(self, include_units=True, include_delegate_debug_data=False):
        df = self.to_dataframe(include_units, include_delegate_debug_data)
        df = df.drop(columns=EXCLUDED_COLUMNS_WHEN_PRINTING)
        for name in EXCLUDED_EVENTS_WHEN_PRINTING:
            df = df[~df["event_name"].str.contains(name)]
        df.reset_index(drop=True, inplace=True)
        return df

    def print_data_tabular(self, file: IO[str] = sys.stdout, include_units: bool = True,
                           include_delegate_debug_data: bool = False) -> None:
        """The events table (tabulate's fancy_grid), as `etkit inspect` prints it."""
        data = self._render(_FORMAT_TABLE, include_units,
                            include_delegate_debug_data, as_bytes=True)
        _write_pieces(file, data)

    def save_data_to_tsv(self, file: IO[str], include_units: bool = True,
                         include_delegate_debug_data: bool = False) -> None:
        """The events table as TSV (byte-identical to `etkit inspect --tsv_path`)."""
        if not hasattr(file, "write"):
            file = _checks.fspath(file, "file")  # a path, never an fd
            _refuse_output_is_input(file, self._inputs)
        data = self._render(_FORMAT_TSV, include_units,
                            include_delegate_debug_data, as_bytes=True)
        if not hasattr(file, "write"):
            with open(file, "wb") as f:
                f.write(data)  # the UTF-8 bytes, without the GIL
        else:
            _write_pieces(file, data)

    def find_total_for_module(self, module_name: str) -> float:
        """Sum of avg of the events inside modules whose key contains
        module_name (OPERATOR_CALL events left out, as upstream).  The C
        library sums the events as the Inspector made them; once events or
        blocks are edited, the sum is upstream's loop over the Python
        objects."""
        if self._pristine() and not self._custom_durations():
            return self._handle.module_total(module_name)
        total = 0.0
        for block in self.event_blocks:
            for event in block.events:
                if event.name == "OPERATOR_CALL":
                    continue
                for hierarchy in (event.module_hierarchy or {}).values():
                    if hierarchy and any(module_name in key for key in hierarchy):
                        if event.perf_data is not None:
                            total += event.perf_data.avg
                        break
        return total

    def get_vgf_neural_statistics(self) -> List[Dict[str, Any]]:
        """The VGF neural-accelerator statistics records (Arm's VGF
        backend) found in every event's raw delegate debug metadata, parsed
        as parse_vgf_neural_statistics_delegate_metadata does (upstream's
        method)."""
        from .vgf_neural_statistics import parse_vgf_neural_statistics_delegate_metadata

        records: List[Dict[str, Any]] = []
        for block in self.event_blocks:
            for event in block.events:
                records.extend(parse_vgf_neural_statistics_delegate_metadata(
                    event.raw_delegate_debug_metadatas))
        return records

    def get_op_list(self, event_block: str, show_delegated_ops: Optional[bool] = True):
        return {}

    def write_tensorboard_artifact(self, path: str) -> None:
        return None

    def get_exported_program(self, graph: Optional[str] = None):
        """The ETRecord's edge program (or graph_map[graph]) as an etkit graph."""
        if self._etrecord is None:
            import logging
            logging.warning(
                "Exported program is only available when a valid etrecord_path "
                "was provided at the time of Inspector construction")
            return None
        if graph is None:
            # the attribute, as upstream: {method: program} for a record
            # holding several methods' edge programs
            return self._etrecord.edge_dialect_program
        prog = self._etrecord._handle.program(graph)
        return ExportedProgram(prog) if prog is not None else None

    def calculate_numeric_gap(self, distance: Union[str, "numerical_comparator.NumericalComparatorBase"],
                              disable_debug_handle_valdiation: bool = False,
                              reference_graph: Optional[str] = None):
        """Upstream's numeric gap: the ETRecord's graph is run on its
        representative inputs (by etkit's C interpreter, not torch), every
        operator's output is paired with the runtime's intermediate output
        of the same debug handles, and `distance` ("MSE", "L1", "SNR" or a
        NumericalComparatorBase) measures each pair.  Returns upstream's
        DataFrame: aot_debug_handle, aot_ops, aot_intermediate_output,
        runtime_ops, runtime_debug_handle, runtime_intermediate_output, gap
        (a list per row), stacktraces."""
        return _numeric_gap.calculate_numeric_gap(
            self, distance, disable_debug_handle_valdiation, reference_graph)

    # -- etkit additions

    def compare_results(self, reference: Optional[str] = None):
        """Upstream compare_results of the "Execute" blocks' program outputs
        against the ETRecord's reference outputs (or a .bpte's test cases)
        as a DataFrame: block, output, snr, mse, cosine_similarity."""
        import pandas as pd

        rec = self._etrecord._handle if self._etrecord is not None else None
        if reference is not None:
            reference = _checks.fspath(reference, "reference")
        if rec is None and reference is None:
            raise ValueError(
                "compare_results needs reference outputs: an ETRecord with "
                "reference_outputs or reference=FILE.bpte")
        text, blocks, notes = self._handle.compare_results(rec, reference)
        for _, line in notes:
            warnings.warn(line, stacklevel=2)
        rows = []
        for block, count, values in blocks:
            for i in range(count):
                rows.append({"event_block": block, "output": i,
                             "snr": values[i], "mse": values[count + i],
                             "cosine_similarity": values[2 * count + i]})
        df = pd.DataFrame(rows, columns=["event_block", "output", "snr", "mse",
                                         "cosine_similarity"])
        df.attrs["text"] = text
        return df

    def latency_stats(self, include_units: bool = True):
        """etkit addition: the latency sketches of a stats-mode ETDump
        (`etkit run --profile-mode stats`, docs/long-runs.md) as a
        DataFrame, one row per event: event_block_name, event_name,
        instruction_id, delegate_debug_identifier, count (exact), min,
        p10, p50, p90, p99, p99.9, avg, max (the target time scale; min,
        avg, max exact, the quantiles within error_bound, relative) and
        error_bound: what `etkit inspect` shows for such a dump.  None for
        a dump without sketches.  (to_dataframe() of a stats-mode dump
        shows upstream's columns with one sample per event, the median.)"""
        got = self._handle.latency()
        if got is None:
            return None
        import pandas as pd

        unit = f" ({self._target_time_scale.value})" if include_units else ""
        timed = ["min", "p10", "p50", "p90", "p99", "p99.9", "avg", "max"]
        cols = (["event_block_name", "event_name", "instruction_id",
                 "delegate_debug_identifier", "count"] +
                [c + unit for c in timed] + ["error_bound"])
        return pd.DataFrame([row[:14] for row in got[2]], columns=cols)

    def latency_sketches(self):
        """etkit addition: {(event_block_name, event_name, instruction_id,
        delegate_debug_identifier): LatencySketch} of a stats-mode ETDump,
        in source ticks (merge them across dumps with
        LatencySketch.merge); {} for a dump without sketches."""
        from . import LatencySketch

        got = self._handle.latency()
        if got is None:
            return {}
        return {row[:4]: LatencySketch.from_bytes(row[14]) for row in got[2]}

    def op_summary(self):
        """Per operator type and block: count, total, share, delegate and
        framework overhead (the `etkit inspect --summary` table) as a
        DataFrame."""
        import io
        import pandas as pd

        text = self._handle.render(_FORMAT_TSV, _VIEW_SUMMARY, True, False)
        return pd.read_csv(io.StringIO(text), sep="\t", index_col=0)

    def save_trace(self, path: str) -> None:
        """Writes the Chrome/Perfetto trace of `etkit trace` to path."""
        path = _checks.fspath(path, "path")  # never an fd (save_trace(2))
        _refuse_output_is_input(path, self._inputs)
        data = self._handle.trace_json(self._etdump_name, True)
        with open(path, "wb") as f:
            f.write(data)  # the UTF-8 bytes, without the GIL

    def _graph_html(self, overlay, against, fragment, title=None):
        if self._etrecord is None:
            raise ValueError("the graph view needs an Inspector made with an "
                             "ETRecord (etrecord=...)")
        if against is not None and not isinstance(against, Inspector):
            raise TypeError("against must be an Inspector of a second run")
        page, notes = _etkit.graph_html(
            self._etrecord._handle, self._handle, overlay,
            against._handle if against is not None else None, fragment, title)
        for line in notes:
            warnings.warn(line, stacklevel=3)
        return page

    def save_graph(self, path: str, overlay: str = "time",
                   against: Optional["Inspector"] = None) -> None:
        """Writes the ETRecord's graph as one self-contained HTML page
        (what `etkit graph --html` writes): module groups, delegated
        partitions, nodes coloured by `overlay` ("time", "share", "count",
        "error", "snr", "memory"); with `against` (an Inspector of a second
        run of the same program), coloured by the change from this run to
        that one.  Written to a temporary name and renamed."""
        page = self._graph_html(overlay, against, False)
        tmp = f"{path}.tmp.{os.getpid()}"
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(page)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise

    def graph(self, overlay: str = "time",
              against: Optional["Inspector"] = None) -> "GraphView":
        """The graph view as an object: shown inline in Jupyter
        (_repr_html_), saved with .save(path), the page text in .html."""
        return GraphView(self._graph_html(overlay, against, False))

    def _repr_html_(self) -> str:
        try:
            return self._prepare_dataframe()._repr_html_()
        except ValueError:
            return "<p>(no events)</p>"


_PIECE = 1 << 20


def _write_pieces(file, data: bytes) -> None:
    """Writes UTF-8 ``data`` to a text file object a megabyte at a time:
    one decode of a 260 MB table would hold the GIL for seconds, pieces let
    other threads run in between."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    view = memoryview(data)
    for at in range(0, len(data), _PIECE):
        file.write(decoder.decode(view[at:at + _PIECE]))
    tail = decoder.decode(b"", final=True)
    if tail:
        file.write(tail)


class GraphView:
    """Inspector.graph()'s result: the self-contained page (``html``).
    In Jupyter it is shown in an iframe (srcdoc), so its script runs the
    same in every front end and its styles stay inside it."""

    def __init__(self, html: str):
        self.html = html

    def save(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.html)

    def _repr_html_(self) -> str:
        import html as _html

        return ('<iframe style="width:100%;height:720px;border:0" '
                'sandbox="allow-scripts" srcdoc="'
                + _html.escape(self.html, quote=True) + '"></iframe>')

    def __repr__(self):
        return f"<GraphView: {len(self.html)} bytes of HTML>"


def compare_results(reference_output, run_output, metrics=None, plot=False):
    """Upstream's compare_results: for each metric (snr, mse,
    cosine_similarity, or those named in `metrics`) the list of values of
    the output pairs, rounded to 2 decimals as upstream (None for
    non-tensors).  Without plot the values are printed as upstream does;
    with plot=True a bar chart per metric is written to
    <metric>_output_plot.png when matplotlib is installed."""
    order = ["snr", "mse", "cosine_similarity"]
    wanted = order if metrics is None else [m for m in order if m in metrics]
    results: Dict[str, List[Optional[float]]] = {}
    pairs = list(zip(reference_output, run_output))

    def as_array(x):
        if isinstance(x, np.ndarray):
            return x.astype(np.float32)
        return None

    for metric in wanted:
        values: List[Optional[float]] = []
        for ref, run in pairs:
            a, b = as_array(ref), as_array(run)
            if a is None or b is None:
                values.append(None)
                continue
            a64, b64 = a.astype(np.float32), b.astype(np.float32)
            with np.errstate(divide="ignore", invalid="ignore"):
                if metric == "mse":
                    v = float(np.mean(np.square(a64 - b64)))
                elif metric == "snr":
                    v = float(10 * np.log10(np.mean(np.square(a64)) /
                                            np.mean(np.square(a64 - b64))))
                else:
                    if a64.shape != b64.shape:
                        raise ValueError(
                            f"shape mismatch: {a64.shape} vs {b64.shape}")
                    v = float(np.sum(a64 * b64) /
                              (np.sqrt(np.sum(a64 * a64)) * np.sqrt(np.sum(b64 * b64))))
            values.append(round(v, 2))
        results[metric] = values
        if plot:
            try:
                import matplotlib

                matplotlib.use("Agg")
                import matplotlib.pyplot as plt
            except ImportError:
                print(f"cannot plot {metric}: matplotlib is not installed")
                continue
            fig = plt.figure()
            plt.bar(range(len(values)), [v if v is not None else 0 for v in values])
            plt.title(metric)
            fig.savefig(f"{metric}_output_plot.png")
            plt.close(fig)
        else:
            print(metric)
            print("-" * 20)
            for i, v in enumerate(values):
                print(f"{i:<5}{v:>8.5f}")
            print("\n")
    return results
