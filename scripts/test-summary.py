#!/usr/bin/env python3
"""Summarises a ctest run from its JUnit file (ctest --output-junit).

Prints how many tests ran, passed, failed and skipped, and for each skipped
test the reason it gave (the first output line that says SKIPPED, else the
skip rule ctest matched).  Exits 1 when no test ran at all, and, under
CI=true, when any test was skipped: CI must never pass with a suite that
did not run.  Standard library only, so any python3 runs it.

usage: test-summary.py JUNIT.xml [LABEL]
"""
import os
import sys
import xml.etree.ElementTree as ET


def reason(case):
    out = case.findtext("system-out") or ""
    for line in out.splitlines():
        if "SKIPPED" in line or "skipped" in line:
            return line.strip()
    skipped = case.find("skipped")
    return skipped.get("message", "") if skipped is not None else ""


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    label = argv[2] if len(argv) > 2 else os.path.dirname(argv[1]) or "."
    try:
        root = ET.parse(argv[1]).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"test-summary: {label}: cannot read {argv[1]}: {e}",
              file=sys.stderr)
        return 1
    cases = root.iter("testcase")
    ran = passed = failed = 0
    skips = []
    for case in cases:
        ran += 1
        if case.find("skipped") is not None or case.get("status") == "notrun":
            skips.append((case.get("name"), reason(case)))
        elif case.find("failure") is not None or case.get("status") == "fail":
            failed += 1
        else:
            passed += 1
    print(f"test-summary: {label}: {ran} tests, {passed} passed, "
          f"{failed} failed, {len(skips)} skipped")
    for name, why in skips:
        print(f"test-summary:   skipped {name}: {why}")
    if ran == 0:
        print(f"test-summary: {label}: no test ran", file=sys.stderr)
        return 1
    if skips and os.environ.get("CI") == "true":
        print(f"test-summary: {label}: CI=true and {len(skips)} test(s) "
              "skipped; install what they need (scripts/install-deps.sh)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
