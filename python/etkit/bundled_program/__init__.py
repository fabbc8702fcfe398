"""Bundled programs (.bpte) with upstream's Python API
(executorch.devtools.bundled_program): BundledProgram, MethodTestCase,
MethodTestSuite, and serialize.serialize_from_bundled_program_to_flatbuffer
/ deserialize_from_flatbuffer_to_bundled_program.  See docs/python.md."""

from .config import MethodTestCase, MethodTestSuite
from .core import BundledProgram, BundledProgramError

__all__ = ["BundledProgram", "BundledProgramError", "MethodTestCase",
           "MethodTestSuite"]
