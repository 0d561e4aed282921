#!/usr/bin/env python3
"""Races are run (issue 40 item 28): `concurrently` steps are explored
(doc/scenario-format.md#races-concurrently), so nothing cnxsim prints or its
documentation says may claim they are not.

usage: races_are_run.py CNXSIM SOURCE_DIR

Fails on any sentence of `cnxsim profiles --gaps`, of README.md or of a
Markdown file under doc/ that says races or `concurrently` are not run, and
when doc/recording.md no longer points at how a race is run.
"""
import glob
import os
import re
import subprocess
import sys

CLAIM = re.compile(r"(races?|`concurrently`|concurrent\w*)[^.;()]{0,60}\bnot (run|raced|explored)\b"
                   r"|\bnot run by this cnxsim\b", re.IGNORECASE)


def claims(text):
    return [m.group(0) for m in CLAIM.finditer(" ".join(text.split()))]


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    cnxsim, src = argv[1:]
    found = []
    gaps = subprocess.run([cnxsim, "profiles", "--gaps"], capture_output=True, text=True, timeout=60)
    if gaps.returncode != 0 or "gap(s)" not in gaps.stdout:
        print("FAIL: cnxsim profiles --gaps: exit " + str(gaps.returncode) + "\n" + gaps.stderr, file=sys.stderr)
        return 1
    found += ["cnxsim profiles --gaps: " + c for c in claims(gaps.stdout)]
    docs = [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "doc", "**", "*.md"), recursive=True))
    for path in docs:
        found += [os.path.relpath(path, src) + ": " + c for c in claims(open(path, encoding="utf-8").read())]
    recording = open(os.path.join(src, "doc", "recording.md"), encoding="utf-8").read()
    if "scenario-format.md#races-concurrently" not in recording:
        found.append("doc/recording.md: no link to scenario-format.md#races-concurrently")
    if found:
        print("FAIL: races are run, but:\n  " + "\n  ".join(found), file=sys.stderr)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
