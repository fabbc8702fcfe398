"""BundledProgram with upstream's name and arguments
(executorch.devtools.bundled_program.core): a program and test suites for
its methods, written as a .bpte by
serialize.serialize_from_bundled_program_to_flatbuffer.

The program is an upstream program manager (anything with a ``.buffer``
of bytes, as ExecutorchProgramManager), the program's bytes, or, through
``pte_file_path=``, a .pte file.  Every case is checked against its method
when the BundledProgram is made (upstream checks only when given a
program object): inputs by count, kind, dtype and shape, expected outputs
by dtype and rank, as etk_bundled_write() checks them.  A case that does
not fit raises BundledProgramError, which is both an AssertionError (what
upstream raises) and a ValueError.

Tensors are converted without importing torch: a torch tensor through
``.detach().cpu().numpy()``, anything else through numpy.asarray.  An
array whose strides are a permutation of a contiguous layout (a torch
channels_last tensor, a transposed numpy array) keeps that layout as its
dim_order, as upstream records a tensor's dim order; its bytes are stored
in memory order."""

from typing import List, Optional, Sequence

from .. import _etkit
from . import schema as _schema
from .config import MethodTestSuite

__all__ = ["BundledProgram", "BundledProgramError"]


class BundledProgramError(AssertionError, ValueError):
    """A test case that does not fit its program (upstream asserts)."""


# numpy dtype (kind, itemsize) -> c10 scalar type
_DTYPE_CODES = {
    ("u", 1): 0, ("i", 1): 1, ("i", 2): 2, ("i", 4): 3, ("i", 8): 4,
    ("f", 2): 5, ("f", 4): 6, ("f", 8): 7, ("c", 8): 9, ("c", 16): 10,
    ("b", 1): 11, ("u", 2): 27, ("u", 4): 28, ("u", 8): 29,
}


def _as_array(x):
    import numpy as np

    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, np.generic):
        return np.asarray(x)
    if hasattr(x, "detach") and hasattr(x, "numpy"):  # a torch tensor
        try:
            return x.detach().cpu().numpy()
        except TypeError as e:  # bfloat16 and other dtypes numpy lacks
            raise TypeError(f"a tensor of {getattr(x, 'dtype', '?')} cannot be "
                            f"bundled through numpy: {e}") from None
    return np.asarray(x)


def _dim_order(a):
    """The dim order of `a`'s memory layout (dimensions from outermost to
    innermost), or None when its strides are not a permuted dense layout."""
    if a.ndim == 0 or a.flags.c_contiguous:
        return tuple(range(a.ndim))
    order = sorted(range(a.ndim), key=lambda d: (-a.strides[d], d))
    expect = a.itemsize
    for d in reversed(order):
        if a.shape[d] != 1 and a.strides[d] != expect:
            return None
        expect *= a.shape[d]
    return tuple(order)


def _tensor_value(x, what: str):
    import numpy as np

    a = _as_array(x)
    code = _DTYPE_CODES.get((a.dtype.kind, a.dtype.itemsize))
    if code is None or a.dtype.byteorder == ">":
        raise TypeError(f"{what}: dtype {a.dtype} has no bundled scalar type")
    order = _dim_order(a)
    if order is None:  # strided view: store it contiguous
        a = np.ascontiguousarray(a)
        order = tuple(range(a.ndim))
    data = np.ascontiguousarray(a.transpose(order)).tobytes()
    return ("tensor", code, tuple(int(s) for s in a.shape), order, data)


def _value(x, what: str):
    if type(x) is bool:
        return ("bool", x)
    if type(x) is int:
        return ("int", x)
    if type(x) is float:
        return ("float", x)
    return _tensor_value(x, what)


def _program_bytes(program) -> bytes:
    if isinstance(program, (bytes, bytearray, memoryview)):
        return bytes(program)
    buffer = getattr(program, "buffer", None)
    if buffer is None:
        raise TypeError(f"executorch_program must be a program manager (with "
                        f".buffer) or the program's bytes, not "
                        f"{type(program).__name__}")
    return bytes(buffer)


def _schema_value(t):
    kind = t[0]
    if kind == "int":
        return _schema.Value(_schema.Int(t[1]))
    if kind == "bool":
        return _schema.Value(_schema.Bool(t[1]))
    if kind == "float":
        return _schema.Value(_schema.Double(t[1]))
    _, code, sizes, order, data = t
    try:
        code = _schema.ScalarType(code)
    except ValueError:
        pass
    return _schema.Value(_schema.Tensor(code, list(sizes), data, list(order)))


def _schema_from_read(read) -> _schema.BundledProgram:
    version, program, suites = read
    return _schema.BundledProgram(
        version=version,
        method_test_suites=[
            _schema.BundledMethodTestSuite(
                method_name=name,
                test_cases=[_schema.BundledMethodTestCase(
                    [_schema_value(v) for v in ins],
                    [_schema_value(v) for v in exps]) for ins, exps in cases])
            for name, cases in suites],
        program=program)


class BundledProgram:
    """A program bundled with test suites for its methods.

    Public attributes, as upstream: ``method_test_suites`` (sorted by method
    name) and ``executorch_program`` (the object given, or None)."""

    def __init__(self, executorch_program, method_test_suites: Sequence[MethodTestSuite],
                 pte_file_path: Optional[str] = None):
        if not executorch_program and not pte_file_path:
            raise RuntimeError("Either executorch_program or pte_file_path must be provided")
        if executorch_program and pte_file_path:
            raise RuntimeError("Only one of executorch_program or pte_file_path can be used")
        self.method_test_suites: List[MethodTestSuite] = sorted(
            method_test_suites, key=lambda s: s.method_name)
        self.executorch_program = executorch_program or None
        self._pte_file_path = pte_file_path
        if executorch_program:
            program = _program_bytes(executorch_program)
        else:
            import os

            with open(os.fspath(pte_file_path), "rb") as f:
                program = f.read()
        cases = []
        for suite in self.method_test_suites:
            for c, case in enumerate(suite.test_cases):
                where = f"method '{suite.method_name}' case {c}"
                cases.append((
                    suite.method_name,
                    [_value(x, f"{where} input {i}") for i, x in enumerate(case.inputs)],
                    [_tensor_value(x, f"{where} expected output {i}")
                     for i, x in enumerate(case.expected_outputs)]))
        try:
            self._flatbuffer: bytes = _etkit.bundled_write(program, cases)
        except ValueError as e:
            raise BundledProgramError(str(e)) from None
        self._bundled_program_in_schema = None

    def serialize_to_schema(self) -> _schema.BundledProgram:
        """The bundled program as the file holds it (schema dataclasses)."""
        if self._bundled_program_in_schema is None:
            self._bundled_program_in_schema = _schema_from_read(
                _etkit.bundled_read(self._flatbuffer))
        return self._bundled_program_in_schema

    def __repr__(self):
        cases = sum(len(s.test_cases) for s in self.method_test_suites)
        return (f"BundledProgram({len(self.method_test_suites)} method test suites, "
                f"{cases} test cases, {len(self._flatbuffer)} bytes)")


def _input_object(t):
    """A value tuple as the object etkit.run takes: a numpy array in its
    dim order's memory layout, or a Python scalar."""
    if t[0] != "tensor":
        return t[1]
    import numpy as np

    _, code, sizes, order, data = t
    kind_size = next((k for k, c in _DTYPE_CODES.items() if c == code), None)
    if kind_size is None:
        raise TypeError(f"a bundled tensor of scalar type {code} has no numpy dtype")
    kind, size = kind_size
    dtype = np.dtype(bool) if kind == "b" else np.dtype(f"<{kind}{size}")
    stored = [sizes[d] for d in order]
    n = int(np.prod(stored)) if stored else 1
    a = np.frombuffer(data, dtype=dtype, count=n).reshape(stored)
    inverse = [order.index(d) for d in range(len(order))]
    return a.transpose(inverse)
