"""A BundledProgram to and from its flatbuffer (.bpte), with upstream's
names (executorch.devtools.bundled_program.serialize).  Both directions
are etkit's C writer and reader; the bytes decode with upstream's
bundled_program_schema.fbs and run with `etkit run --verify`."""

from ... import _etkit
from .. import core as _core
from ..core import BundledProgram
from ..schema import BundledProgram as _SchemaBundledProgram

__all__ = ["serialize_from_bundled_program_to_flatbuffer",
           "deserialize_from_flatbuffer_to_bundled_program"]


def serialize_from_bundled_program_to_flatbuffer(bundled_program: BundledProgram) -> bytes:
    """The .bpte bytes of `bundled_program`."""
    if not isinstance(bundled_program, BundledProgram):
        raise TypeError(f"expected a BundledProgram, not {type(bundled_program).__name__}")
    return bundled_program._flatbuffer


def deserialize_from_flatbuffer_to_bundled_program(flatbuffer: bytes) -> _SchemaBundledProgram:
    """The schema form (etkit.bundled_program.schema.BundledProgram) of a
    .bpte's bytes; every table is checked and the embedded program loaded.
    As upstream, this is the schema dataclass, not a BundledProgram."""
    return _core._schema_from_read(_etkit.bundled_read(flatbuffer))
