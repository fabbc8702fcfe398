"""etkit.memory_plan: the memory plan of a program (.pte) as DataFrames.

The values are those of ``etkit memory PROGRAM.pte --format json`` (the C
library computes both); see docs/memory-plan.md for the definitions
(lifetimes in instruction indices, peaks, unsafe overlaps, aliases).
"""

import os
from typing import List, Optional

from . import _checks, _etkit
from .inspector import ETRecord, parse_etrecord

__all__ = ["MemoryPlan", "memory_plan"]

# columns that are null where the plan has no value (nullable Int64)
_NULLABLE = {"peak_instruction", "first", "last", "alias_of"}
_INTEGER = {"mem_id", "size", "peak_bytes", "tensor_count", "used_end",
            "value", "offset", "nbytes", "a", "b", "byte_start", "byte_end"}


def _integers(values):
    """int64, or uint64 for a column with a value of 2**63 or more."""
    import numpy as np

    try:
        return np.array(values, dtype=np.int64)
    except OverflowError:
        return np.array(values, dtype=np.uint64)


def _frame(columns: dict, nullable=_NULLABLE):
    import pandas as pd

    data = {}
    for name, values in columns.items():
        if name in nullable:
            data[name] = pd.array(values, dtype="Int64")
        elif name in _INTEGER or name in ("first", "last"):
            data[name] = _integers(values)
        elif name in ("is_input", "is_output", "invalid"):
            data[name] = pd.array(values, dtype=bool)
        elif name == "utilisation":
            data[name] = pd.array(values, dtype="float64")
        else:
            data[name] = pd.Series(values, dtype=object)
    return pd.DataFrame(data, columns=list(columns))


class MemoryPlan:
    """The memory plan of one method of a program.

    Attributes: ``method``, ``num_instructions``, ``num_chains``,
    ``backward_jumps``; DataFrames ``buffers`` (mem_id, size, peak_bytes,
    peak_instruction, utilisation, tensor_count, used_end), ``tensors``
    (value, mem_id, offset, nbytes, first, last, dtype, sizes, op, name,
    module, source, is_input, is_output, alias_of, invalid) and ``overlaps``
    (a, b, kind, mem_id, byte_start, byte_end, first, last); ``problems``
    (the lines ``etkit memory --check`` prints) and ``ok`` (no problem).
    """

    def __init__(self, raw: dict):
        self.method: str = raw["method"]
        self.num_instructions: int = raw["num_instructions"]
        self.num_chains: int = raw["num_chains"]
        self.backward_jumps: int = raw["backward_jumps"]
        self.overlap_total: int = raw["overlap_total"]
        self.overlaps_truncated: bool = raw["overlaps_truncated"]
        self.buffers = _frame(raw["buffers"])
        self.tensors = _frame(raw["tensors"])
        self.overlaps = _frame(raw["overlaps"], nullable=())
        self.problems: List[str] = raw["problems"].splitlines()
        self.notes: List[str] = raw["notes"]
        self._table: str = raw["table"]

    @property
    def ok(self) -> bool:
        """True when ``etkit memory --check`` finds no problem."""
        return not self.problems

    def __str__(self) -> str:
        return self._table

    def __repr__(self) -> str:
        return (f"MemoryPlan(method={self.method!r}, "
                f"instructions={self.num_instructions}, "
                f"buffers={len(self.buffers)}, tensors={len(self.tensors)}, "
                f"problems={len(self.problems)})")

    def _repr_html_(self) -> str:
        return self.buffers._repr_html_() + self.tensors.head(50)._repr_html_()


def memory_plan(path: str, method: Optional[str] = None,
                etrecord=None) -> MemoryPlan:
    """Reads the memory plan of ``method`` (default: the first execution
    plan) of the program at ``path``.  ``etrecord`` (a path or an object of
    ``etkit.parse_etrecord``) names tensors after the graph node of their
    first instruction.  A damaged program raises ValueError with one line;
    a merely wrong plan is returned with its ``problems``."""
    if etrecord is None:
        handle = None
    elif isinstance(etrecord, ETRecord):
        handle = etrecord._handle
    elif isinstance(etrecord, (str, bytes, os.PathLike)):
        handle = parse_etrecord(etrecord)._handle
    else:
        raise TypeError(
            "Unsupported ETRecord type: an ETRecord or a path (str, bytes or "
            f"os.PathLike), not {type(etrecord).__name__}")
    raw = _etkit.memory_plan(_checks.fspath(path, "path"), method, handle)
    if raw["notes"]:
        import warnings
        for note in raw["notes"]:
            warnings.warn(f"{note}; tensors keep value names", stacklevel=2)
    return MemoryPlan(raw)
