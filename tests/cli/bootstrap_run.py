#!/usr/bin/env python3
"""`scripts/bootstrap run` builds only what it runs (issue 40 item 26).

usage: bootstrap_run.py SOURCE_DIR WORKDIR [BUILD_DIR]

Runs a copy of scripts/bootstrap in WORKDIR (a tree holding only the
script) with stand-ins on PATH that log their arguments instead of acting:
dpkg-query (every package installed, so nothing is installed), cmake (the
build creates build/sim/cnxsim, itself a stand-in that logs), and checks that
- the build asks for the cnxsim target and nothing else (no plain
  `cmake --build build`, which builds the unit tests, the differential and
  serve tests and the benchmarks),
- the configure step keeps build/ as `cmake --build build` knows it (same
  source, build folder and type),
- the bundled suite is then run by build/sim/cnxsim with the reports,
- a failing suite's exit status is the script's.

With BUILD_DIR (a Ninja build of this tree), also that the cnxsim target's
compile commands touch no file of tests/ or bench/.
"""
import os
import shutil
import stat
import subprocess
import sys

FAKE_CMAKE = """#!/bin/sh
echo "cmake $*" >> "$BOOTSTRAP_LOG"
if [ "$1" = "--build" ]; then
  mkdir -p "$2/sim"
  printf '#!/bin/sh\\necho "cnxsim $*" >> "$BOOTSTRAP_LOG"\\nexit ${FAKE_SUITE_STATUS:-0}\\n' > "$2/sim/cnxsim"
  chmod +x "$2/sim/cnxsim"
fi
"""
FAKE_DPKG_QUERY = """#!/bin/sh
printf 'install ok installed'
"""


def write_exe(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def run_bootstrap(src, work, suite_status):
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(os.path.join(work, "scripts"))
    os.makedirs(os.path.join(work, "fake-bin"))
    shutil.copy(os.path.join(src, "scripts", "bootstrap"), os.path.join(work, "scripts", "bootstrap"))
    write_exe(os.path.join(work, "fake-bin", "cmake"), FAKE_CMAKE)
    write_exe(os.path.join(work, "fake-bin", "dpkg-query"), FAKE_DPKG_QUERY)
    log = os.path.join(work, "log")
    env = dict(os.environ, BOOTSTRAP_LOG=log, FAKE_SUITE_STATUS=str(suite_status),
               PATH=os.path.join(work, "fake-bin") + os.pathsep + os.environ.get("PATH", ""))
    p = subprocess.run(["bash", os.path.join(work, "scripts", "bootstrap"), "run"], cwd=work, env=env,
                       capture_output=True, text=True, timeout=60)
    lines = open(log).read().splitlines() if os.path.exists(log) else []
    return p, lines


def fail(what, p=None, lines=None):
    print("FAIL: " + what, file=sys.stderr)
    if lines is not None:
        print("logged:\n  " + "\n  ".join(lines), file=sys.stderr)
    if p is not None:
        print("stdout:\n" + p.stdout + "\nstderr:\n" + p.stderr, file=sys.stderr)
    return 1


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    src, work = argv[1], argv[2]
    p, lines = run_bootstrap(src, work, 0)
    if p.returncode != 0:
        return fail("bootstrap run exited " + str(p.returncode), p, lines)
    builds = [l.split() for l in lines if l.startswith("cmake --build")]
    configures = [l.split() for l in lines if l.startswith("cmake -S")]
    runs = [l for l in lines if l.startswith("cnxsim ")]
    if len(configures) != 1 or "-B" not in configures[0] or configures[0][configures[0].index("-B") + 1] != "build":
        return fail("one configure of build/", p, lines)
    if "-DCMAKE_BUILD_TYPE=RelWithDebInfo" not in configures[0]:
        return fail("build/ stays a RelWithDebInfo build", p, lines)
    if len(builds) != 1:
        return fail("one build", p, lines)
    b = builds[0]
    targets = [b[i + 1] for i, w in enumerate(b) if w in ("--target", "-t") and i + 1 < len(b)]
    if targets != ["cnxsim"]:
        return fail("the build asks for the cnxsim target only, got targets " + repr(targets), p, lines)
    if runs != ["cnxsim run scenarios --junit reports/junit.xml --report reports/report.md"]:
        return fail("build/sim/cnxsim runs the bundled suite with its reports", p, lines)
    if "== build (cnxsim): " not in p.stdout:
        return fail("the build phase says how long it took", p, lines)
    p, lines = run_bootstrap(src, work, 1)
    if p.returncode != 1:
        return fail("a failing suite's exit status 1 is bootstrap's, got " + str(p.returncode), p, lines)

    if len(argv) > 3 and argv[3]:
        q = subprocess.run(["ninja", "-C", argv[3], "-t", "commands", "cnxsim"], capture_output=True, text=True,
                           timeout=120)
        if q.returncode != 0:
            return fail("ninja -t commands cnxsim in " + argv[3] + ": " + q.stderr)
        own = [os.path.join(os.path.abspath(src), d) + "/" for d in ("tests", "bench")] + [" -o tests/", " -o bench/"]
        strays = [l for l in q.stdout.splitlines() if any(o in l for o in own)]
        if strays:
            return fail("the cnxsim target compiles test or bench files: " + strays[0][:300])
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
