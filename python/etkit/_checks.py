"""etkit._checks: what the package refuses before any work starts.

Arguments arrive from scripts and notebooks in every shape; these helpers
turn the accepted ones into what the C extension takes and refuse the rest
with one clear exception, before anything is opened or allocated:

- paths: ``str``, ``bytes`` or ``os.PathLike``; an ``int`` (or ``bool``) is
  never taken as a file descriptor (``open(3)`` would read, and close, the
  application's fd 3);
- byte buffers (``etdump_data``, ``debug_buffer``): ``bytes``, ``bytearray``
  or ``memoryview``; an ``int`` would make ``bytes(n)`` allocate n zero
  bytes, a list would be encoded as bytes;
- files read here (a debug buffer) are capped like the C readers
  (``etk_read_file``: 4 GiB), so ``/dev/zero`` fails with a ValueError
  instead of reading until MemoryError;
- ``first_misfit``: the value of a program input that a cast to the
  input's dtype would change (called by the extension's ``run``).
"""

import os

import numpy as np

# etk_read_file's default limit (src/common/files.c): the same cap as the CLI
MAX_INPUT_BYTES = 4 << 30

_CHUNK = 1 << 20


def fspath(value, what: str):
    """``value`` as a path (str or bytes), or TypeError naming ``what``."""
    if isinstance(value, (str, bytes, os.PathLike)):
        return os.fspath(value)
    raise TypeError(
        f"{what} must be a path (str, bytes or os.PathLike), not "
        f"{type(value).__name__}")


def buffer_bytes(value, what: str) -> bytes:
    """``value`` (bytes, bytearray or memoryview) as bytes, or TypeError."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    raise TypeError(
        f"{what} must be bytes, bytearray or memoryview, not "
        f"{type(value).__name__}")


def read_file(path, what: str, limit: int = None) -> bytes:
    """The bytes of the file at ``path`` (a path, see fspath), at most
    ``limit`` bytes (default MAX_INPUT_BYTES): a regular file larger than
    that is refused before reading, any other file (a device, a pipe) as
    soon as it passes the limit."""
    path = fspath(path, what)
    limit = MAX_INPUT_BYTES if limit is None else limit
    shown = os.fsdecode(path)
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        if st.st_size > limit:
            raise ValueError(
                f"{shown}: {what} is larger than the limit of {limit} bytes")
        parts, total = [], 0
        while True:
            chunk = f.read(min(_CHUNK, limit + 1 - total))
            if not chunk:
                break
            parts.append(chunk)
            total += len(chunk)
            if total > limit:
                raise ValueError(
                    f"{shown}: {what} is larger than the limit of {limit} bytes")
        return b"".join(parts)


def first_misfit(values: np.ndarray, dtype: np.dtype):
    """The first element of ``values`` that a cast to ``dtype`` would not
    keep, or None.  To a floating dtype only overflow counts (a finite
    value that would become infinite; rounding is what a float input
    means); to an integer or bool dtype the value must be whole and in
    range."""
    values = np.asarray(values)
    dtype = np.dtype(dtype)
    with np.errstate(all="ignore"):
        if dtype.kind == "f":
            big = np.finfo(dtype).max
            bad = np.isfinite(values) & (np.abs(values) > big)
        else:
            lo, hi = (0, 1) if dtype.kind == "b" else (
                np.iinfo(dtype).min, np.iinfo(dtype).max)
            if values.dtype.kind == "f":
                whole = np.isfinite(values) & (values == np.round(values))
            else:
                whole = np.ones(values.shape, dtype=bool)
            bad = ~(whole & (values >= lo) & (values <= hi))
    if not bad.any():
        return None
    return values[bad].flat[0].item()
