"""Runs the etkit Python test suite for ctest.

    run_pytest.py TESTS_DIR [--part regular|conformance]

Exit status: pytest's (0 passed; 5 "no tests collected" is a failure too),
or 77 (ctest: SKIPPED) when numpy, pandas or pytest cannot be imported, with
the reason on stdout.  The suite runs in two ctest tests: "regular" (every
test that does not use upstream's conformance files) and "conformance"
(those that do, marked by conftest.py), which is SKIPPED as a whole when
the files are absent, and fails then under CI=true (every dependency is
required there).
"""
import os
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

tests = sys.argv[1]
part = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--part" else "all"
args = ["-q", "-p", "no:cacheprovider", tests]
if part == "regular":
    args += ["-m", "not conformance"]
elif part == "conformance":
    folder = os.environ.get("ETKIT_CONFORMANCE_DIR", "")
    if not os.path.isfile(os.path.join(folder, "etdump_tutorial.etdp")):
        if os.environ.get("CI") == "true":
            print(f"python_package_conformance: required under CI=true: "
                  f"conformance files absent ({folder!r})")
            sys.exit(1)
        print(f"python_package_conformance: skipped: conformance files absent ({folder!r})")
        sys.exit(77)
    args += ["-m", "conformance"]
sys.exit(int(pytest.main(args)))
