#!/usr/bin/env python3
"""Runs the Go test helper's tests (testkit/go) as a ctest.

usage: run_tests.py CNXSIM [helper|example]

helper   `go test` in testkit/go: the package's own tests (standard library
         only; the failure messages with fake binaries, and the real CNXSIM)
example  `go test` in testkit/go/example: the example with pulsar-client-go
         (its modules come from the module cache, filled by `go mod download`
         in scripts/bootstrap test)

Offline (GOPROXY=off, GOFLAGS=-mod=mod, GOTOOLCHAIN=local). Exit 77 (ctest
SKIP_RETURN_CODE) with a message when go, the modules or a new enough go are
missing; go test's -timeout and a kill bound every wait.
"""
import os
import shutil
import subprocess
import sys

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv):
    if len(argv) != 3 or argv[2] not in ("helper", "example"):
        print(__doc__, file=sys.stderr)
        return 2
    cnxsim, which = argv[1], argv[2]
    go = shutil.which("go")
    if not go:
        print("skipped: go not found (scripts/bootstrap test installs golang-go when no go is installed)")
        return SKIP
    cwd = HERE if which == "helper" else os.path.join(HERE, "example")
    env = dict(os.environ, GOPROXY="off", GOFLAGS="-mod=mod", GOTOOLCHAIN="local", CNXSIM=cnxsim)
    cmd = [go, "test", "-count=1", "-v", "-timeout=120s", "."]
    try:
        r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        print(f"{' '.join(cmd)} in {cwd}: no exit within 600 s", file=sys.stderr)
        return 1
    text = r.stdout + r.stderr
    if r.returncode != 0 and "--- FAIL" not in text and "FAIL\t" not in text:
        if "GOPROXY=off" in text or "module lookup disabled" in text or "missing go.sum entry" in text:
            print("skipped: the Go modules of testkit/go/example/go.sum are not in the module cache "
                  "(run `go mod download` in testkit/go/example, as scripts/bootstrap test does)\n" + text)
            return SKIP
        if "requires go >=" in text or "toolchain not available" in text or "note: module requires Go" in text:
            print("skipped: the installed go is older than go.mod's go directive\n" + text)
            return SKIP
    print(text)
    return r.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv))
