#!/usr/bin/env python3
"""The bundled suite gives the same results with every fast path off.

usage: fast_paths_same_output.py CNXSIM WORKDIR [RUN ARGS...]

Runs `cnxsim run RUN ARGS... --junit --json` twice: as it is (the fast paths
on) and with CNXSIM_FAST_PATHS=off, which takes no fast path, only the
reference each stands for: the full Avro parser and resolver for the quick
parser and the fast pass, nlohmann::json for JsonTape's reader, yaml-cpp for
the YAML quick tree, and every command encoded and decoded for the in-process
hand-off (broker_model/core/fast_paths.h). Both runs must pass, and their exit
status, stdout, stderr and the JUnit and JSON outputs must be the same byte
for byte once the run times (JUnit `time`, JSON `seconds`) and a sanitizer's
process id are set aside. With `--check-flag`, a third run with
`--no-fast-paths` instead of the variable must give the same too.
"""
import os
import re
import subprocess
import sys


def run(cnxsim, args, work, name, env_value=None, extra=()):
    out = os.path.join(work, name)
    os.makedirs(out, exist_ok=True)
    files = {k: os.path.join(out, "run." + k) for k in ("xml", "json")}
    for f in files.values():
        if os.path.exists(f):
            os.remove(f)
    env = dict(os.environ)
    env.pop("CNXSIM_FAST_PATHS", None)
    if env_value is not None:
        env["CNXSIM_FAST_PATHS"] = env_value
    p = subprocess.run([cnxsim, "run", *args, *extra, "--junit", files["xml"], "--json", files["json"]],
                       capture_output=True, text=True, timeout=3000, env=env)
    written = {}
    for k, f in files.items():
        with open(f, encoding="utf-8", errors="replace") if os.path.exists(f) else open(os.devnull) as fh:
            written[k] = fh.read()
    p.stderr = re.sub(r"(?m)^==\d+==", "==PID==", p.stderr)
    p.stderr = re.sub(r"(?m)^==PID==WARNING: ASan doesn't fully support makecontext/swapcontext.*\n", "", p.stderr)
    written["xml"] = re.sub(r'time="[0-9.]+"', 'time="T"', written["xml"])
    written["json"] = re.sub(r'"seconds":[0-9.e+-]+', '"seconds":T', written["json"])
    return p, written


def differences(label, a, b):
    (pa, wa), (pb, wb) = a, b
    problems = []
    if pa.returncode != pb.returncode:
        problems.append(f"exit status {pa.returncode} with the fast paths on, {pb.returncode} {label}")
    for what, x, y in (("stdout", pa.stdout, pb.stdout), ("stderr", pa.stderr, pb.stderr),
                       ("JUnit", wa["xml"], wb["xml"]), ("JSON", wa["json"], wb["json"])):
        if x != y:
            lx, ly = x.splitlines(), y.splitlines()
            at = next((i for i, (u, v) in enumerate(zip(lx, ly)) if u != v), min(len(lx), len(ly)))
            problems.append(f"{what} differs at line {at + 1}:\n  on: {lx[at] if at < len(lx) else '(end)'}\n"
                            f"  {label}: {ly[at] if at < len(ly) else '(end)'}")
    return problems


def main():
    cnxsim, work, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    check_flag = "--check-flag" in args
    args = [a for a in args if a != "--check-flag"]
    on = run(cnxsim, args, work, "on")
    off = run(cnxsim, args, work, "off", env_value="off")
    problems = differences("off (CNXSIM_FAST_PATHS=off)", on, off)
    if check_flag:
        problems += differences("off (--no-fast-paths)", on, run(cnxsim, args, work, "flag", extra=["--no-fast-paths"]))
    if on[0].returncode != 0:
        problems.append(f"the run with the fast paths on failed (exit {on[0].returncode}):\n{on[0].stdout[-2000:]}"
                        f"{on[0].stderr[-2000:]}")
    if "<testcase" not in on[1]["xml"]:
        problems.append("the JUnit output holds no test case")
    for p in problems:
        print("FAIL: " + p, file=sys.stderr)
    if not problems:
        print(f"fast paths on and off: the same exit status ({on[0].returncode}), output, JUnit and JSON "
              f"({on[1]['xml'].count('<testcase')} test cases)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
