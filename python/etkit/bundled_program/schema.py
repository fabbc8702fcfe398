"""The bundled program as its file stores it: the dataclasses that
etkit.bundled_program.serialize.deserialize_from_flatbuffer_to_bundled_program
returns and BundledProgram.serialize_to_schema() gives, with upstream's
names and fields (executorch.devtools.bundled_program.schema): a
BundledProgram holds a version, one BundledMethodTestSuite per method and
the program's bytes; a test case holds Values, each a Tensor (scalar_type,
sizes, data bytes, dim_order), Int, Bool or Double."""

from dataclasses import dataclass
from enum import IntEnum
from typing import List, Union

__all__ = ["ScalarType", "Tensor", "Int", "Bool", "Double", "ValueUnion",
           "Value", "BundledMethodTestCase", "BundledMethodTestSuite",
           "BundledProgram"]


class ScalarType(IntEnum):
    """c10's dtype codes, as upstream's executorch.exir.scalar_type."""

    BYTE = 0
    CHAR = 1
    SHORT = 2
    INT = 3
    LONG = 4
    HALF = 5
    FLOAT = 6
    DOUBLE = 7
    COMPLEX32 = 8
    COMPLEX64 = 9
    COMPLEX128 = 10
    BOOL = 11
    QINT8 = 12
    QUINT8 = 13
    QINT32 = 14
    BFLOAT16 = 15
    QUINT4x2 = 16
    QUINT2x4 = 17
    BITS16 = 22
    FLOAT8E5M2 = 23
    FLOAT8E4M3FN = 24
    FLOAT8E5M2FNUZ = 25
    FLOAT8E4M3FNUZ = 26
    UINT16 = 27
    UINT32 = 28
    UINT64 = 29


@dataclass
class Tensor:
    scalar_type: ScalarType
    sizes: List[int]
    data: bytes
    dim_order: List[int]


@dataclass
class Int:
    int_val: int


@dataclass
class Bool:
    bool_val: bool


@dataclass
class Double:
    double_val: float


ValueUnion = Union[Tensor, Int, Double, Bool]


@dataclass
class Value:
    val: ValueUnion


@dataclass
class BundledMethodTestCase:
    inputs: List[Value]
    expected_outputs: List[Value]


@dataclass
class BundledMethodTestSuite:
    method_name: str
    test_cases: List[BundledMethodTestCase]


@dataclass
class BundledProgram:
    version: int
    method_test_suites: List[BundledMethodTestSuite]
    program: bytes
