"""Upstream's numerical comparators (executorch.devtools.inspector.
numerical_comparator) on numpy instead of torch.

Also importable as ``etkit.inspector.numerical_comparator``, the path a
migrated script uses.  A comparator turns two intermediate outputs into a
float; ``compare`` runs the whole pipeline of
``Inspector.calculate_numeric_gap``: preprocessing (identity unless a
subclass overrides it), validation of the preprocessed mapping, one row
per mapping entry, a DataFrame.
"""

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

DebugHandle = Tuple[int, ...]
IntermediateOutputMapping = Dict[Tuple[DebugHandle, Any], Tuple[DebugHandle, Any]]

__all__ = [
    "DebugHandle",
    "IntermediateOutputMapping",
    "L1Comparator",
    "MSEComparator",
    "NumericalComparatorBase",
    "SNRComparator",
]


def convert_to_float_tensor(input_data: Any) -> np.ndarray:
    """A value as a float64 array, as upstream's helper makes a float64 CPU
    tensor: sequences are refused, NaN becomes 0 and (only then) the
    infinities become the largest finite doubles."""
    assert not isinstance(input_data, Sequence)
    try:
        arr = np.asarray(input_data, dtype=np.float64)
    except Exception as e:  # noqa: BLE001 - upstream wraps every failure
        raise ValueError(
            f"Cannot convert value of type {type(input_data)} to a tensor: {e}")
    if np.isnan(arr).any():
        arr = np.nan_to_num(arr)
    return arr


def find_op_names(target_debug_handle: DebugHandle,
                  debug_handle_to_op_names: Dict[DebugHandle, List[str]]) -> List[str]:
    """Names of the ops whose handles are all inside the target handle."""
    dh_set = set(target_debug_handle)
    result: List[str] = []
    for key, names in debug_handle_to_op_names.items():
        if set(key).issubset(dh_set):
            result.extend(names)
    return result


class NumericalComparatorBase(ABC):
    """Base of the comparators: override ``element_compare`` (and, for
    layout changes or dequantization, ``preprocessing``)."""

    def __init__(self, inspector=None) -> None:
        self._inspector = inspector

    @property
    def inspector(self):
        return self._inspector

    @inspector.setter
    def inspector(self, value) -> None:
        self._inspector = value

    def preprocessing(self, mapping: IntermediateOutputMapping) -> IntermediateOutputMapping:
        """Transforms the mapping before comparison (identity)."""
        return mapping

    @abstractmethod
    def element_compare(self, a: Any, b: Any) -> float:
        """The distance between two outputs (AOT first)."""

    @staticmethod
    def _validate_preprocessing_output(processed_mapping) -> None:
        if not isinstance(processed_mapping, dict):
            raise TypeError(
                f"preprocessing() must return a dict, got {type(processed_mapping).__name__}. "
                "Expected format: Dict[Tuple[DebugHandle, Any], Tuple[DebugHandle, Any]]")
        for key, value in processed_mapping.items():
            if not isinstance(key, tuple) or len(key) != 2:
                raise ValueError(
                    f"Invalid key format in preprocessed mapping: {key}. "
                    "Expected Tuple[DebugHandle, Any] where DebugHandle is Tuple[int, ...]")
            handle = key[0]
            if not isinstance(handle, tuple) or not all(isinstance(x, int) for x in handle):
                raise ValueError(
                    f"Invalid AOT debug handle in key: {handle}. Expected Tuple[int, ...]")
            if not isinstance(value, tuple) or len(value) != 2:
                raise ValueError(
                    f"Invalid value format in preprocessed mapping: {value}. "
                    "Expected Tuple[DebugHandle, Any] where DebugHandle is Tuple[int, ...]")
            handle = value[0]
            if not isinstance(handle, tuple) or not all(isinstance(x, int) for x in handle):
                raise ValueError(
                    f"Invalid runtime debug handle in value: {handle}. "
                    "Expected Tuple[int, ...]")

    def _compare_intermediate_outputs(self, a: Any, b: Any) -> List[float]:
        a_seq, b_seq = isinstance(a, Sequence), isinstance(b, Sequence)
        if a_seq and b_seq:
            if len(a) != len(b):
                raise ValueError(
                    f"Sequences 'a' ({a}) and 'b' ({b}) must have the same length "
                    f"for comparison. len(a): {len(a)} len(b): {len(b)}.")
            return [self.element_compare(x, y) for x, y in zip(a, b)]
        if not a_seq and not b_seq:
            return [self.element_compare(a, b)]
        raise ValueError(
            f"Both inputs 'a' ({a}) and 'b' ({b}) must be sequences "
            f"or both must be non-sequences.")

    def compare(self, mapping: IntermediateOutputMapping,
                aot_debug_handle_to_op_names: Dict[DebugHandle, List[str]],
                runtime_debug_handle_to_op_names: Dict[DebugHandle, List[str]]):
        """preprocessing -> validation -> one row per entry -> DataFrame."""
        import pandas as pd

        processed = self.preprocessing(mapping)
        self._validate_preprocessing_output(processed)
        rows = []
        for (aot_handle, aot_out), (rt_handle, rt_out) in processed.items():
            if aot_out is None or rt_out is None:
                continue
            if isinstance(aot_out, Sequence) and len(aot_out) > 1:
                continue
            rows.append({
                "aot_debug_handle": aot_handle,
                "aot_ops": find_op_names(aot_handle, aot_debug_handle_to_op_names),
                "aot_intermediate_output": aot_out,
                "runtime_ops": find_op_names(rt_handle, runtime_debug_handle_to_op_names),
                "runtime_debug_handle": rt_handle,
                "runtime_intermediate_output": rt_out,
                "gap": self._compare_intermediate_outputs(aot_out, rt_out),
            })
        return pd.DataFrame(rows)


def _difference(kind: str, a, b):
    try:
        return a - b
    except Exception as e:  # noqa: BLE001 - shapes that do not broadcast
        raise ValueError(f"Error computing {kind} difference between tensors: {e}")


class L1Comparator(NumericalComparatorBase):
    """Sum of absolute differences (float64)."""

    def element_compare(self, a: Any, b: Any) -> float:
        t_a, t_b = convert_to_float_tensor(a), convert_to_float_tensor(b)
        return float(np.abs(_difference("L1", t_a, t_b)).sum())


class MSEComparator(NumericalComparatorBase):
    """Mean of squared differences (float64)."""

    def element_compare(self, a: Any, b: Any) -> float:
        t_a, t_b = convert_to_float_tensor(a), convert_to_float_tensor(b)
        return float(np.mean(np.square(_difference("MSE", t_a, t_b))))


class SNRComparator(NumericalComparatorBase):
    """10 log10(mean(a^2) / mean((a - b)^2)) in dB, `a` the reference."""

    def element_compare(self, a: Any, b: Any) -> float:
        t_a, t_b = convert_to_float_tensor(a), convert_to_float_tensor(b)
        signal = np.mean(np.power(t_a, 2))
        noise = np.mean(np.power(_difference("SNR", t_a, t_b), 2))
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(10 * np.log10(np.float64(signal) / np.float64(noise)))
