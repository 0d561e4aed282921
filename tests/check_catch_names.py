#!/usr/bin/env python3
"""Fails when a Catch2 test name would not select itself on the command line.

usage: check_catch_names.py EXECUTABLE...

catch_discover_tests runs each test as `EXE "<name>"`, and Catch reads that
argument as a test spec: a leading `~` or `-` negates it (the ctest would run
every other test instead, and never its own), `*` is a wildcard, `exclude:`
excludes, and `;` splits a CMake list. catch_discover_tests escapes `,`, `[`
and `]` itself. Exit 0 when every name is safe, 1 with the bad ones listed.
"""
import subprocess
import sys


def problem(name):
    if name[:1] in ("~", "-", "*"):
        return f"starts with {name[0]!r}, which Catch reads as a test-spec operator"
    if name.endswith("*"):
        return "ends with '*', a wildcard"
    if name.lower().startswith("exclude:"):
        return "starts with 'exclude:'"
    if ";" in name:
        return "contains ';', which splits a CMake list"
    return None


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    bad = 0
    count = 0
    for exe in argv[1:]:
        out = subprocess.run([exe, "--list-test-names-only"], capture_output=True, text=True, timeout=120).stdout
        for name in (line for line in out.split("\n") if line.strip()):
            count += 1
            why = problem(name)
            if why:
                bad += 1
                print(f"{exe}: test {name!r} {why}")
    print(f"{count} test names, {bad} unsafe")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
