#!/usr/bin/env python3
"""`cnxsim run --shard K/N` and `--version V` through the real binary.

usage: shard_runs.py shards CNXSIM PATH WORKDIR N
       shard_runs.py version CNXSIM FILE WORKDIR V

shards:  runs `cnxsim run PATH --junit` once unsharded and once per shard
         1/N .. N/N; every shard must exit 0, print `shard K/N: M of T runs`
         before the closing `P passed, F failed`, hold M test cases (M within
         one of T/N), and the shards' test cases (classname = file, name =
         scenario [version]) together must be the unsharded run's, each once.
version: runs `cnxsim run FILE --version V --junit`: exit 0 and exactly one
         test case, `... [V]`, whatever versions FILE lists.
"""
import collections
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET


def run(cnxsim, args, junit):
    if os.path.exists(junit):
        os.remove(junit)
    p = subprocess.run([cnxsim, "run", *args, "--junit", junit], capture_output=True, text=True, timeout=900)
    cases = []
    if os.path.exists(junit):
        for case in ET.parse(junit).getroot().iter("testcase"):
            cases.append((case.get("classname"), case.get("name")))
    return p, cases


def fail(message, p=None):
    print("FAIL: " + message, file=sys.stderr)
    if p is not None:
        print("stdout (tail):\n" + "\n".join(p.stdout.splitlines()[-5:]) + "\nstderr:\n" + p.stderr, file=sys.stderr)
    return 1


def shards(cnxsim, path, work, n):
    os.makedirs(work, exist_ok=True)
    # Races are runs like any other for the split; they are left out here only
    # because exploring them four times would dominate the sanitizer build's time
    # (ctest scenarios.races runs them; cli.race_shards splits one race).
    p, everything = run(cnxsim, [path, "--exclude-tags", "races"], os.path.join(work, "junit-all.xml"))
    if p.returncode != 0:
        return fail(f"unsharded run exited {p.returncode}", p)
    if not everything:
        return fail("unsharded run wrote no test case", p)
    total = len(everything)
    union = collections.Counter()
    for k in range(1, n + 1):
        p, cases = run(cnxsim, [path, "--exclude-tags", "races", "--shard", f"{k}/{n}"],
                       os.path.join(work, f"junit-{k}.xml"))
        if p.returncode != 0:
            return fail(f"shard {k}/{n} exited {p.returncode}", p)
        lines = p.stdout.rstrip("\n").split("\n")
        want = f"shard {k}/{n}: {len(cases)} of {total} runs"
        if len(lines) < 2 or lines[-2] != want:
            return fail(f"shard {k}/{n}: expected the line {want!r} before the closing line", p)
        if not re.fullmatch(rf"{len(cases)} passed, 0 failed", lines[-1]):
            return fail(f"shard {k}/{n}: closing line {lines[-1]!r}", p)
        if abs(len(cases) - total / n) >= 1:
            return fail(f"shard {k}/{n} ran {len(cases)} of {total}: not balanced", p)
        union.update(cases)
        print(f"shard {k}/{n}: {len(cases)} of {total}")
    expected = collections.Counter(everything)
    if union != expected:
        missing = expected - union
        extra = union - expected
        return fail(f"the shards do not add up to the unsharded run: missing {sorted(missing.elements())[:5]}, "
                    f"extra or duplicated {sorted(extra.elements())[:5]}")
    print(f"{n} shards ran the {total} runs each once")
    return 0


def version(cnxsim, path, work, v):
    os.makedirs(work, exist_ok=True)
    p, cases = run(cnxsim, [path, "--version", v], os.path.join(work, f"junit-version-{v}.xml"))
    if p.returncode != 0:
        return fail(f"--version {v} exited {p.returncode}", p)
    if len(cases) != 1 or not cases[0][1].endswith(f"[{v}]"):
        return fail(f"--version {v}: expected one test case on [{v}], got {cases}", p)
    print(f"ran {cases[0][1]}")
    return 0


def main(argv):
    if len(argv) == 6 and argv[1] == "shards":
        return shards(argv[2], argv[3], argv[4], int(argv[5]))
    if len(argv) == 6 and argv[1] == "version":
        return version(argv[2], argv[3], argv[4], argv[5])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
