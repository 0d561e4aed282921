#!/usr/bin/env python3
"""Fails when a Catch TEST_CASE name holds ';'.

usage: check_test_names.py TESTS_DIR

catch_discover_tests registers each case under its name, and CMake splits a
name at ';': the parts match no test case, Catch answers "No test cases
matched" and the case never runs, silently. Exit 1 and the offending names.
"""
import pathlib
import re
import sys

NAME = re.compile(r'TEST_CASE\(\s*"((?:[^"\\]|\\.)*)"')


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    bad = []
    for path in sorted(pathlib.Path(argv[1]).rglob("*.cpp")):
        for m in NAME.finditer(path.read_text(encoding="utf-8", errors="replace")):
            if ";" in m.group(1):
                line = path.read_text(encoding="utf-8", errors="replace")[: m.start()].count("\n") + 1
                bad.append(f"{path}:{line}: {m.group(1)}")
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
