#!/usr/bin/env python3
"""`cnxsim run --jobs N` prints and writes what a run on one thread does.

usage: jobs_same_output.py CNXSIM WORKDIR N PATH...

Runs `cnxsim run PATH... --junit --json --report` with `--jobs 1` and with
`--jobs N`. The exit status, stdout, stderr, the JSON lines and the JUnit and
Markdown reports must be the same byte for byte, once the run times (JUnit
`time`, JSON `seconds`) and a sanitizer's process id on stderr are set aside; they are
the only figures that may differ. AddressSanitizer's notice that it does not fully
follow swapcontext is set aside too: it is the sanitizer's, not cnxsim's, and its
once-per-process flag is not atomic, so two threads whose first swapcontext (a race
fiber, the checker's side stack) falls at the same moment both print it.
"""
import os
import re
import subprocess
import sys


def run(cnxsim, paths, work, jobs):
    out = os.path.join(work, f"jobs-{jobs}")
    os.makedirs(out, exist_ok=True)
    files = {k: os.path.join(out, "run." + k) for k in ("xml", "json", "md")}
    for f in files.values():
        if os.path.exists(f):
            os.remove(f)
    p = subprocess.run([cnxsim, "run", *paths, "--jobs", str(jobs), "--junit", files["xml"], "--json", files["json"],
                        "--report", files["md"]], capture_output=True, text=True, timeout=1500)
    written = {}
    for k, f in files.items():
        if os.path.exists(f):
            with open(f, encoding="utf-8", errors="replace") as fh:
                written[k] = fh.read()
    # A sanitizer build's notes on stderr carry the process id.
    p.stderr = re.sub(r"(?m)^==\d+==", "==PID==", p.stderr)
    p.stderr = re.sub(r"(?m)^==PID==WARNING: ASan doesn't fully support makecontext/swapcontext.*\n", "", p.stderr)
    written["xml"] = re.sub(r'time="[0-9.]+"', 'time="T"', written.get("xml", ""))
    written["json"] = re.sub(r'"seconds":[0-9.e+-]+', '"seconds":T', written.get("json", ""))
    return p, written


def main():
    cnxsim, work, n, paths = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    p1, w1 = run(cnxsim, paths, work, 1)
    pn, wn = run(cnxsim, paths, work, n)
    problems = []
    if p1.returncode != pn.returncode:
        problems.append(f"exit status {p1.returncode} on one thread, {pn.returncode} on {n}")
    for what, a, b in (("stdout", p1.stdout, pn.stdout), ("stderr", p1.stderr, pn.stderr),
                       *((k, w1.get(k, ""), wn.get(k, "")) for k in ("xml", "json", "md"))):
        if a != b:
            la, lb = a.splitlines(), b.splitlines()
            at = next((i for i, (x, y) in enumerate(zip(la, lb)) if x != y), min(len(la), len(lb)))
            problems.append(f"{what} differs at line {at + 1}:\n  --jobs 1: {la[at] if at < len(la) else '(end)'}\n"
                            f"  --jobs {n}: {lb[at] if at < len(lb) else '(end)'}")
    if not p1.stdout and not p1.stderr:
        problems.append("the run printed nothing")
    for p in problems:
        print("FAIL: " + p, file=sys.stderr)
    if not problems:
        print(f"--jobs 1 and --jobs {n}: the same exit status ({p1.returncode}), output and reports "
              f"({len(p1.stdout.splitlines())} lines)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
