"""Runs the etkit Python test suite for ctest.

Exit status: pytest's (0 passed; 5 "no tests collected" is a failure too),
or 77 (ctest: SKIPPED) when numpy, pandas or pytest cannot be imported, with
the reason on stdout.
"""
import sys

missing = []
for name in ("numpy", "pandas", "pytest"):
    try:
        __import__(name)
    except ImportError:
        missing.append(name)
if missing:
    print(f"python_package: skipped: {sys.executable} cannot import {', '.join(missing)}")
    sys.exit(77)

import pytest  # noqa: E402

sys.exit(int(pytest.main(["-q", "-p", "no:cacheprovider", sys.argv[1]])))
