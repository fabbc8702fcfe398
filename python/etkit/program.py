"""etkit.Program(path): a program's methods with the dtype and shape of
each input and output (the `etkit info` listing), and the inputs
etkit.run makes or checks from them."""

from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

from . import _etkit

__all__ = ["Program", "MethodSpec", "ValueSpec"]


@dataclass(frozen=True)
class ValueSpec:
    """One input or output: a tensor (dtype, shape; `dynamic` when the
    shape is an upper bound) or a scalar traced into the program (value)."""

    kind: str
    dtype: Any = None
    shape: Optional[Tuple[int, ...]] = None
    dynamic: bool = False
    value: Any = None

    def __str__(self):
        if self.kind == "tensor":
            dims = ", ".join(str(d) for d in self.shape)
            bound = "at most " if self.dynamic else ""
            return f"{self.dtype} {bound}[{dims}]"
        return f"{self.kind} {self.value!r}" if self.value is not None else self.kind


@dataclass(frozen=True)
class MethodSpec:
    """A method of a program: its name, inputs and outputs (ValueSpec)."""

    name: str
    inputs: List[ValueSpec]
    outputs: List[ValueSpec]

    def __str__(self):
        ins = ", ".join(str(v) for v in self.inputs) or "no inputs"
        outs = ", ".join(str(v) for v in self.outputs) or "nothing"
        return f"{self.name}({ins}) -> {outs}"


def _spec(t) -> ValueSpec:
    kind, dtype, shape, extra = t
    if kind == "tensor":
        return ValueSpec(kind, dtype, tuple(shape), bool(extra))
    return ValueSpec(kind, value=extra)


class Program:
    """What a .pte (or the program of a .bpte) declares: ``methods`` (a list
    of MethodSpec) and ``method(name)``.  The file is read once and not
    kept open."""

    def __init__(self, path):
        import os

        if not isinstance(path, (str, bytes, os.PathLike)):
            raise TypeError(f"Program takes a path, not {type(path).__name__}")
        self.path = os.fsdecode(path)
        self.methods: List[MethodSpec] = [
            MethodSpec(name, [_spec(v) for v in ins], [_spec(v) for v in outs])
            for name, ins, outs in _etkit.program_info(path)]

    def method(self, name: Optional[str] = None) -> MethodSpec:
        """The method `name` (default: forward, or the only one)."""
        for m in self.methods:
            if m.name == (name or "forward"):
                return m
        if name is None and self.methods:
            return self.methods[0]
        listed = ", ".join(m.name for m in self.methods) or "none"
        raise KeyError(f"no method named {name or 'forward'!r} in {self.path} "
                       f"(methods: {listed})")

    def __repr__(self):
        lines = [f"Program({self.path!r}): {len(self.methods)} method(s)"]
        lines += [f"  {m}" for m in self.methods]
        return "\n".join(lines)


def _program_inputs(path, method, inputs) -> list:
    """etkit.run's inputs: ones and the traced scalars when none are given
    (as `etkit run`), else the given ones with arrays of another dtype than
    the program's refused and other values converted without loss."""
    import numpy as np

    if inputs is not None and not isinstance(inputs, (list, tuple)):
        inputs = list(inputs)
    try:
        spec = Program(path).method(method)
    except KeyError:
        return list(inputs or [])  # the runtime names the missing method
    if inputs is None or (len(inputs) == 0 and spec.inputs):
        made = []
        for v in spec.inputs:
            if v.kind == "tensor" and isinstance(v.dtype, np.dtype):
                made.append(np.ones(v.shape, dtype=v.dtype))
            else:
                made.append(v.value)
        return made
    if len(inputs) != len(spec.inputs):
        raise ValueError(f"method '{spec.name}' takes {len(spec.inputs)} inputs "
                         f"({', '.join(str(v) for v in spec.inputs)}), "
                         f"{len(inputs)} given")
    out = []
    for i, (x, v) in enumerate(zip(inputs, spec.inputs)):
        if v.kind == "tensor" and isinstance(v.dtype, np.dtype):
            if isinstance(x, np.ndarray) and x.dtype != v.dtype:
                raise TypeError(
                    f"input {i} is {x.dtype} {list(x.shape)}; method "
                    f"'{spec.name}' takes {v}: convert it first "
                    f"(x.astype(np.{v.dtype.name})), etkit does not cast")
            if not isinstance(x, np.ndarray):
                given = np.asarray(x)
                if given.dtype.kind not in "biuf":
                    raise TypeError(f"input {i} is {given.dtype}; method "
                                    f"'{spec.name}' takes {v}")
                with np.errstate(all="ignore"):
                    x = given.astype(v.dtype)
                    if v.dtype.kind == "f":  # rounding is fine, overflow is not
                        lost = np.isfinite(given) & ~np.isfinite(x)
                    else:
                        lost = x.astype(given.dtype) != given
                if np.any(lost):
                    raise ValueError(
                        f"input {i} does not fit {v.dtype} without changing its "
                        f"values (method '{spec.name}' takes {v})")
        out.append(x)
    return out
