#!/usr/bin/env python3
"""Builds and runs the Go client tests of tests/clients/go as ctests.

usage: run_go_tests.py build OUTPUT
       run_go_tests.py run BINARY CNXSIM [--broker-version V] [--timeout S] -- [go test flags]

`build` compiles the package's test binary to OUTPUT with `go test -c`, offline
(GOPROXY=off, GOFLAGS=-mod=mod, GOTOOLCHAIN=local): the modules go.sum pins
must already be in the module cache (scripts/bootstrap test runs `go mod
download` here). `run` runs that binary against CNXSIM (the test binary starts
its own `cnxsim serve --port 0`), with -test.v and the flags given.

Exit 77 (ctest SKIP_RETURN_CODE) with a message when go, the modules or the
binary are missing; every wait is bounded.
"""
import os
import re
import shutil
import subprocess
import sys

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))


def offline_env():
    env = dict(os.environ)
    env.update(GOPROXY="off", GOFLAGS="-mod=mod", GOTOOLCHAIN="local")
    return env


def build(output):
    go = shutil.which("go")
    if not go:
        print("skipped: go not found (scripts/bootstrap test installs golang-go when no go is installed)")
        return SKIP
    try:
        r = subprocess.run([go, "test", "-c", "-o", output, "."], cwd=HERE, env=offline_env(),
                           capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        print("go test -c: no exit within 900 s", file=sys.stderr)
        return 1
    if r.returncode != 0:
        text = r.stdout + r.stderr
        if "GOPROXY=off" in text or "module lookup disabled" in text or "missing go.sum entry" in text:
            print("skipped: the Go modules of tests/clients/go/go.sum are not in the module cache "
                  "(run `go mod download` in tests/clients/go, as scripts/bootstrap test does)\n" + text)
            return SKIP
        if "requires go >=" in text or "toolchain not available" in text or "note: module requires Go" in text:
            print("skipped: the installed go is older than go.mod's go directive\n" + text)
            return SKIP
        print(text, file=sys.stderr)
        return r.returncode
    print(f"built {output}")
    return 0


def run(argv):
    if "--" not in argv:
        print(__doc__, file=sys.stderr)
        return 2
    split = argv.index("--")
    head, flags = argv[:split], argv[split + 1:]
    binary, cnxsim = head[0], head[1]
    env = dict(os.environ, CNXSIM=cnxsim)
    env.pop("CNXSIM_BROKER_VERSION", None)
    timeout = 120
    rest = head[2:]
    while rest:
        if rest[0] == "--broker-version" and len(rest) > 1:
            env["CNXSIM_BROKER_VERSION"] = rest[1]
        elif rest[0] == "--timeout" and len(rest) > 1:
            timeout = int(rest[1])
        else:
            print(f"unexpected argument {rest[0]!r}", file=sys.stderr)
            return 2
        rest = rest[2:]
    if not os.path.exists(binary):
        print(f"skipped: {binary} not built (clients.go.build was skipped or failed: see its output)")
        return SKIP
    cmd = [binary, "-test.v", f"-test.timeout={timeout}s", *flags]
    try:
        r = subprocess.run(cmd, cwd=HERE, env=env, timeout=timeout + 30, stdout=subprocess.PIPE, text=True,
                           errors="replace")
    except subprocess.TimeoutExpired as e:
        print(e.stdout or "")
        print(f"{' '.join(cmd)}: no exit within {timeout + 30} s", file=sys.stderr)
        return 1
    print(r.stdout, end="")
    # Every test skipped (the TLS and authentication tests on a cnxsim
    # without them): a ctest SKIP, not a pass.
    if r.returncode == 0 and "\n--- SKIP" in "\n" + r.stdout and not re.search(r"^--- (PASS|FAIL)", r.stdout, re.M):
        print("skipped: every test selected skipped itself (the reasons are above)")
        return SKIP
    return r.returncode


def main(argv):
    if len(argv) >= 3 and argv[1] == "build":
        return build(argv[2])
    if len(argv) >= 4 and argv[1] == "run":
        return run(argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
