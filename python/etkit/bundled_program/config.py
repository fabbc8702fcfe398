"""Test cases of a bundled program, with upstream's names
(executorch.devtools.bundled_program.config): a MethodTestCase holds the
inputs of one run of a method and, optionally, the outputs it must give;
a MethodTestSuite the cases of one method.

Values are what upstream takes without torch: numpy arrays (or anything
with __array__), torch tensors (read through .numpy(); torch itself is
never imported), and Python int, bool and float for scalar inputs.
Inputs and expectations may be nested in lists, tuples and dicts (dict
values in their order), which are flattened as upstream's tree_flatten
flattens them."""

from dataclasses import dataclass
from typing import Any, List, Optional, Sequence

__all__ = ["MethodTestCase", "MethodTestSuite", "ConfigValue"]

#: what one flattened input or expected output may be
ConfigValue = Any


def _is_tensor_like(x) -> bool:
    import numpy as np

    return (isinstance(x, (np.ndarray, np.generic)) or hasattr(x, "__array__")
            or (hasattr(x, "numpy") and hasattr(x, "dtype")))


def _flatten(data, out: list) -> list:
    if isinstance(data, (list, tuple)):  # namedtuples are tuples
        for x in data:
            _flatten(x, out)
    elif isinstance(data, dict):
        for x in data.values():
            _flatten(x, out)
    else:
        out.append(data)
    return out


def _flatten_and_check(data, what: str) -> List[ConfigValue]:
    if not isinstance(data, (list, tuple, dict)):
        raise TypeError(f"{what} must be a list, tuple or dict of values, not "
                        f"{type(data).__name__}")
    flat = _flatten(data, [])
    for i, x in enumerate(flat):
        if x is None:
            raise TypeError(f"{what} {i} is None; a bundled value cannot be null")
        if type(x) in (int, bool, float) or _is_tensor_like(x):
            continue
        raise TypeError(f"{what} {i} is a {type(x).__name__}; bundled values are "
                        "tensors (numpy arrays, torch tensors), int, bool or float")
    return flat


class MethodTestCase:
    """One run of a method: `inputs` (every input of the method, in order)
    and `expected_outputs` (the outputs it must give; None for a case that
    only feeds inputs, as for profiling)."""

    def __init__(self, inputs, expected_outputs: Optional[Sequence] = None) -> None:
        self.inputs: List[ConfigValue] = _flatten_and_check(inputs, "input")
        self.expected_outputs: List[ConfigValue] = []
        if expected_outputs is not None:
            self.expected_outputs = _flatten_and_check(expected_outputs,
                                                       "expected output")

    def __repr__(self):
        return (f"MethodTestCase({len(self.inputs)} inputs, "
                f"{len(self.expected_outputs)} expected outputs)")


@dataclass
class MethodTestSuite:
    """The test cases of the method named method_name."""

    method_name: str
    test_cases: Sequence[MethodTestCase]
