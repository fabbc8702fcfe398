"""etkit: ExecuTorch's developer tools (Inspector, ETDump, ETRecord) in C.

Migrating a script from upstream is one line::

    from etkit import Inspector      # was: from executorch.devtools.inspector import Inspector

See docs/python.md.  Beyond upstream: Inspector.op_summary(),
Inspector.save_trace(path), Inspector.compare_results(), etkit.diff(a, b)
etkit.run(program, inputs) (the reference runtime, returning the ETDump
bytes that Inspector(etdump_data=...) reads), etkit.Program(path) (a
program's methods with their input and output dtypes and shapes, as
`etkit info`), etkit.memory_plan(program) (a program's memory plan as
DataFrames), etkit.model_explorer(etrecord, graph_path, node_data_path,
inspector) (Model Explorer's graph and node-data files) and
etkit.Store(url) (the run history of `etkit store`: add, runs, trend,
compare as DataFrames) and etkit.capture(source, output_dir) (the
files a device sent over a UART or in a log, as `etkit capture`).
"""

import os

from . import _etkit
from ._etkit import LatencySketch
from .inspector import (
    ETRecord,
    ETRecordError,
    Event,
    EventBlock,
    ExportedProgram,
    GraphView,
    Inspector,
    PerfData,
    TimeScale,
    compare_results,
    parse_etrecord,
)
from .memory import MemoryPlan, memory_plan
from .graph import graph_view, model_explorer
from .program import Program, _program_inputs
from .store import Store
from .capture import CaptureResult, CapturedFile, capture
from .bundled_program import BundledProgram
from .delegation import (DelegationBreakdown, get_delegation_info,
                         print_delegation_info)
from .vgf_neural_statistics import (parse_vgf_neural_statistics_delegate_metadata,
                                    parse_vgf_neural_statistics_metadata)
from . import inspector as _inspector, memory as _memory

__version__ = "0.1.0"

__all__ = [
    *_inspector.__all__,
    "ExportedProgram",
    "GraphView",
    "diff",
    *_memory.__all__,
    "model_explorer",
    "graph_view",
    "Store",
    "run",
    "RunResult",
    "Program",
    "capture",
    "CapturedFile",
    "CaptureResult",
    "BundledProgram",
    "DelegationBreakdown",
    "get_delegation_info",
    "print_delegation_info",
    "LatencySketch",
    "parse_vgf_neural_statistics_delegate_metadata",
    "parse_vgf_neural_statistics_metadata",
]


def _as_inspector(x, side):
    """An Inspector, or one opened (quietly) on an ETDump path, as
    `etkit diff A.etdp B.etdp` takes them."""
    import os
    import warnings

    if isinstance(x, Inspector):
        return x
    if isinstance(x, (str, bytes, os.PathLike)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Output Buffer not found"
            return Inspector(etdump_path=os.fsdecode(x))
    raise TypeError(
        f"etkit.diff takes Inspector objects or ETDump paths; {side} is "
        f"{type(x).__name__}")


def diff(a, b, metric: str = "avg"):
    """`etkit diff` of two Inspectors or ETDump paths (A = baseline) as a
    DataFrame: per block the totals (method, operators, delegate and
    framework overhead), then every operator matched by name and
    instruction, with delta and change %."""
    import io

    import pandas as pd

    a = _as_inspector(a, "a")
    b = _as_inspector(b, "b")
    text = _etkit.diff(a._handle, b._handle, metric)
    return pd.read_csv(io.StringIO(text), sep="\t", keep_default_na=False,
                       na_values=[""])


class RunResult:
    """What etkit.run returns: outputs (numpy arrays or scalars), etdump
    (bytes), debug_buffer (bytes or None) and dropped (events the recorder
    could not keep, normally 0)."""

    def __init__(self, outputs, etdump, debug_buffer, dropped, snapshots=(),
                 snapshot_paths=(), suppressed=0):
        self.outputs = outputs
        self.etdump = etdump
        self.debug_buffer = debug_buffer
        self.dropped = dropped
        # the flight recorder (trigger=): each snapshot a complete ETDump
        # (bytes), the files written into snapshot_dir, and the firings not
        # taken (limit, spacing, keep-after)
        self.snapshots = list(snapshots)
        self.snapshot_paths = list(snapshot_paths)
        self.suppressed = suppressed

    def inspector(self, **kwargs) -> Inspector:
        """Inspector(etdump_data=self.etdump) with this run's debug buffer."""
        kwargs.setdefault("debug_buffer", self.debug_buffer)
        return Inspector(etdump_data=self.etdump, **kwargs)

    def __iter__(self):
        return iter((self.outputs, self.etdump, self.debug_buffer))

    def __repr__(self):
        debug = ("None" if self.debug_buffer is None
                 else f"{len(self.debug_buffer)} bytes")
        return (f"RunResult(outputs={len(self.outputs)}, etdump={len(self.etdump)} "
                f"bytes, debug_buffer={debug}, dropped={self.dropped})")


def _inputs_from(etrecord, inputs):
    """The representative inputs of `etrecord` (an ETRecord or a path)."""
    if inputs is not None:
        raise ValueError("inputs and inputs_from both give the inputs: choose one")
    if not isinstance(etrecord, ETRecord):
        from . import _checks

        etrecord = parse_etrecord(_checks.fspath(etrecord, "inputs_from"))
    items = etrecord._representative_inputs
    if not items:
        raise ValueError(f"{etrecord.path}: the ETRecord has no representative inputs "
                         "(upstream: ETRecord.update_representative_inputs)")
    return list(items)


_DEBUG_LEVELS = {"none": 0, "outputs": 1, "intermediates": 2, "stats": 3,
                 0: 0, 1: 1, 2: 2, 3: 3}


def run(program_path: str, inputs=None, iterations: int = 1, debug_level="none",
        method: str = None, allocation_events: bool = False,
        warmup: int = 0, inputs_from=None, calibrate: bool = True,
        profile_mode: str = "full", keep_runs: int = None, trigger=None,
        keep_after: int = 0, trigger_limit: int = 0, trigger_spacing: int = 0,
        snapshot_dir=None, stats_error: float = None) -> RunResult:
    """Runs `method` (default forward) of a .pte or .bpte with etkit's
    reference runtime `iterations` times on `inputs` (numpy arrays or
    scalars), traced, after `warmup` untraced runs.  Without inputs, as
    `etkit run`: a .bpte's first test case of the method, else tensors of
    ones of each input's dtype and shape and the values traced into the
    program for scalars.  An array of another dtype than the program's is
    refused (as `etkit run --input` refuses it), never cast.

    debug_level: "none", "outputs" (program outputs logged into the debug
    buffer), "intermediates" (every instruction's outputs) or "stats" (the
    same values, each tensor as its 13-value STATS vector: the Inspector
    gives a dict {"min": ..., "p99_abs": ...} per such debug value).
    allocation_events: record allocators and allocations (off by default,
    as `etkit run`: upstream's Inspector stops on them).

    inputs_from: an ETRecord (or its path) whose representative inputs to
    run on instead of `inputs`, as `etkit run --inputs-from`: the inputs
    calculate_numeric_gap runs the graph on, so that its rows compare like
    with like.

    calibrate: measure the recorder's own cost first, as `etkit run` does,
    so that Inspector(..., compensate=True) can take it out (the ETDump
    gains an event-less "etkit:calibration=..." run that upstream's
    Inspector skips).

    The flight recorder, as `etkit run`'s options of the same names
    (docs/triggers.md): profile_mode="ring" keeps the newest keep_runs
    (default 8) runs only; trigger (an expression or a list of them:
    "Method::execute>2ms", "aten.add*>3*p99", "nan") takes a snapshot, a
    complete ETDump, keep_after runs after a run where one holds, at most
    trigger_limit (0: no limit) and trigger_spacing runs apart.  The
    snapshots are in RunResult.snapshots (bytes) and, with snapshot_dir, in
    DIR/snapshot-NNN.etdp (RunResult.snapshot_paths).

    profile_mode="stats" (`etkit run --profile-mode stats`,
    docs/long-runs.md) keeps one latency sketch per event instead of every
    run: the ETDump's size no longer grows with `iterations`.  Its
    quantiles are within stats_error (relative, default 0.01, 0.0001 to
    0.2) while an event's times span two decades (the bound widens beyond,
    and says so).  Inspector(...).latency_stats() reads them.
    """
    if profile_mode not in ("full", "ring", "stats"):
        raise ValueError(
            f"profile_mode must be 'full', 'ring' or 'stats', not {profile_mode!r}")
    ring = profile_mode == "ring"
    profile_level = 1  # ETK_TRACE_PROFILE_ALL
    if stats_error is not None and profile_mode != "stats":
        raise ValueError("stats_error needs profile_mode='stats'")
    if profile_mode == "stats":
        if trigger is not None:
            raise ValueError("profile_mode='stats' keeps no runs to snapshot: "
                             "no trigger")
        err = 0.01 if stats_error is None else stats_error
        if isinstance(err, bool) or not isinstance(err, (int, float)) or \
                not 0.0001 <= err <= 0.2:
            raise ValueError(f"stats_error must be 0.0001..0.2, not {stats_error!r}")
        profile_level = 2 | (int(round(err * 1e6)) << 8)  # STATS_AT(ppm)
    if keep_runs is not None and not ring:
        raise ValueError("keep_runs needs profile_mode='ring'")
    triggers = () if trigger is None else (
        (trigger,) if isinstance(trigger, str) else tuple(trigger))
    if not triggers and (keep_after or trigger_limit or trigger_spacing or
                         snapshot_dir is not None):
        raise ValueError("keep_after, trigger_limit, trigger_spacing and "
                         "snapshot_dir need a trigger")
    for name, v in (("keep_runs", 8 if keep_runs is None else keep_runs),
                    ("keep_after", keep_after), ("trigger_limit", trigger_limit),
                    ("trigger_spacing", trigger_spacing)):
        if type(v) is not int:
            raise TypeError(f"{name} must be an int, not {type(v).__name__}")
    level = _DEBUG_LEVELS.get(debug_level)
    if level is None:
        raise ValueError(
            "debug_level must be 'none', 'outputs', 'intermediates' or 'stats', "
            f"not {debug_level!r}")
    # triggers that could never fire here, refused as `etkit run` does
    for t in triggers:
        if t == "nan" and level == 0:
            raise ValueError("trigger 'nan' needs a debug_level (outputs, "
                             "intermediates or stats): without one no value "
                             "is logged")
        if t in ("mismatch", "manual"):
            raise ValueError(f"trigger {t!r} cannot fire in etkit.run "
                             "(mismatch: `etkit run X.bpte --verify`; manual: "
                             "the C API's etk_recorder_trigger)")
    from . import _checks

    # iterations as given: the extension refuses what is not an int in
    # 1..1000000 (int() would truncate 2.5 and accept "3")
    program_path = _checks.fspath(program_path, "program_path")
    if type(warmup) is not int or not 0 <= warmup <= 1000000:
        raise ValueError(f"warmup must be an int in 0..1000000, not {warmup!r}")
    if inputs_from is not None:
        inputs = _inputs_from(inputs_from, inputs)
    if inputs is None:
        inputs = _bundled_inputs(program_path, method)
    inputs = _program_inputs(program_path, method, inputs)
    outs, etdump, debug, dropped, snaps, suppressed = _etkit.run(
        program_path, inputs, iterations, level, method,
        bool(allocation_events), warmup, bool(calibrate), ring, triggers,
        8 if keep_runs is None else keep_runs, keep_after, trigger_limit,
        trigger_spacing, profile_level)
    if dropped:
        import warnings
        warnings.warn(f"the recorder dropped {dropped} events", stacklevel=2)
    paths = []
    if snapshot_dir is not None:
        paths = _write_snapshots(_checks.fspath(snapshot_dir, "snapshot_dir"), snaps)
    return RunResult(outs, etdump, debug, dropped, snaps, paths, suppressed)


def _write_snapshots(folder, snaps):
    """DIR/snapshot-NNN.etdp for each snapshot (a temp name renamed, as
    `etkit run --snapshot-dir` writes them); the paths."""
    os.makedirs(folder, exist_ok=True)
    paths = []
    for k, data in enumerate(snaps):
        path = os.path.join(folder, f"snapshot-{k:03d}.etdp")
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        paths.append(path)
    return paths


def _bundled_inputs(path, method):
    """The first test case's inputs of `method` (forward, else the first
    suite) when `path` is a .bpte, else None."""
    with open(path, "rb") as f:
        head = f.read(8)
    if head[4:8] != b"BP08":
        return None
    from .bundled_program import core

    with open(path, "rb") as f:
        suites = _etkit.bundled_read(f.read())[2]
    names = [n for n, _ in suites]
    want = method or ("forward" if "forward" in names or not names else names[0])
    for name, cases in suites:
        if name == want and cases:
            return [core._input_object(v) for v in cases[0][0]]
    return None
