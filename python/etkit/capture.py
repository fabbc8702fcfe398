"""etkit.capture(source, output_dir=None): the files a device sent over a
byte pipe (etkit transport frames, or upstream's Arm runner log blocks),
as `etkit capture` finds them (docs/transport.md).

The decoding and every check are the C library's (etkit/capture.h).  The
source is read whole: a path, bytes, or a binary file object.  With
output_dir each file is written there, complete ones under their name,
incomplete ones only as NAME.partial (through a temporary name, renamed
at the end, so nothing complete-looking is ever half-written).
"""

import os
from dataclasses import dataclass, field
from typing import List, Optional

from . import _etkit

__all__ = ["capture", "CapturedFile", "CaptureResult"]


@dataclass
class CapturedFile:
    """One file found: name as sent, kind ("etdump", "debug_buffer",
    "output", "log", "other"), size in bytes, whether it is complete, one
    line per problem, its bytes (an incomplete file's good prefix), where
    it came from ("framed" or "arm_log") and, with output_dir, the path
    written."""

    name: str
    kind: str
    size: int
    complete: bool
    problems: List[str]
    data: bytes = field(repr=False)
    source: str = "framed"
    out_name: str = ""
    path: Optional[str] = None


class CaptureResult(list):
    """The list of CapturedFile, plus `problems` (the stream's own
    problems, e.g. a damaged frame) and `ok` (every file complete, no
    problem, at least one file: `etkit capture`'s exit status 0)."""

    problems: List[str]

    @property
    def ok(self) -> bool:
        return (len(self) > 0 and not self.problems
                and all(f.complete for f in self))


def _read(source) -> bytes:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if isinstance(source, (str, os.PathLike)):
        with open(os.fspath(source), "rb") as f:
            return f.read()
    if hasattr(source, "read"):
        data = source.read()
        if isinstance(data, str):
            raise TypeError("etkit.capture needs a binary file object")
        return data
    raise TypeError(
        f"etkit.capture takes a path, bytes or a binary file, not "
        f"{type(source).__name__}")


def _write(path: str, data: bytes) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def capture(source, output_dir=None) -> CaptureResult:
    """Finds every ETDump, debug buffer, output... in `source` and returns
    them (a CaptureResult); writes them into `output_dir` when given."""
    files, problems = _etkit.capture_bytes(_read(source))
    result = CaptureResult()
    result.problems = list(problems)
    if output_dir is not None:
        os.makedirs(output_dir, exist_ok=True)
    for d in files:
        f = CapturedFile(name=d["name"], kind=d["kind"], size=len(d["data"]),
                         complete=d["complete"], problems=d["problems"],
                         data=d["data"], source=d["source"],
                         out_name=d["out_name"])
        if output_dir is not None:
            name = f.out_name + ("" if f.complete else ".partial")
            f.path = os.path.join(os.fspath(output_dir), name)
            _write(f.path, f.data)
        result.append(f)
    return result
