#!/usr/bin/env python3
"""ctest testkit.pytest: installs pytest-cnxsim as a user does and runs its own tests.

usage: run_tests.py VENV CNXSIM WORK_DIR

VENV is the Python client suite's virtual environment (tests/clients/python/.venv,
made by `scripts/bootstrap test`; it holds pytest). Without it, or without pytest
in it, the run is skipped (exit 77, saying why). Otherwise a fresh virtual
environment in WORK_DIR/venv gets VENV's packages through a .pth file and
VENV's `pip --python WORK_DIR/venv/bin/python install --no-index --no-deps
testkit/python` (the plugin's build backend is
standard library only: nothing is downloaded), so the tests see the plugin
through its pytest11 entry point as installed, never from the source tree, and
VENV itself is left unchanged (other suites run from it at the same time).
Then pytest runs testkit/python/tests with CNXSIM in the environment.
"""
import os
import shutil
import subprocess
import sys

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    venv, cnxsim, work = argv[1], os.path.abspath(argv[2]), os.path.abspath(argv[3])
    python = os.path.join(venv, "bin", "python")
    if not os.access(python, os.X_OK):
        print(f"skipped: no Python virtual environment at {venv} (scripts/bootstrap test makes it)")
        return SKIP
    probe = subprocess.run([python, "-c", "import pytest, sysconfig; print(sysconfig.get_paths()['purelib'])"],
                           capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        print(f"skipped: pytest is missing from {venv} (scripts/bootstrap test installs it)")
        return SKIP
    site = probe.stdout.strip()
    scratch = os.path.join(work, "venv")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(work, exist_ok=True)
    subprocess.run([python, "-m", "venv", "--without-pip", scratch], check=True, timeout=120)
    scratch_python = os.path.join(scratch, "bin", "python")
    scratch_site = subprocess.run([scratch_python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    with open(os.path.join(scratch_site, "cnxsim_client_suite_venv.pth"), "w") as f:
        f.write(site + "\n")
    install = subprocess.run([python, "-m", "pip", "--python", scratch_python, "install", "--quiet", "--disable-pip-version-check",
                              "--no-index", "--no-deps", "--no-cache-dir", PACKAGE],
                             capture_output=True, text=True, timeout=120, cwd=work)
    if install.returncode != 0:
        print(f"pip install {PACKAGE} failed:\n{install.stdout}{install.stderr}", file=sys.stderr)
        return 1
    env = dict(os.environ, CNXSIM=cnxsim, PYTHONDONTWRITEBYTECODE="1")
    command = [scratch_python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfEsxX",
               f"--basetemp={os.path.join(work, 'tmp')}", HERE]
    try:
        # cwd=WORK_DIR: `import pytest_cnxsim` must find the installed copy, not the source tree.
        return subprocess.run(command, env=env, timeout=240, cwd=work).returncode
    except subprocess.TimeoutExpired:
        print(f"{' '.join(command)}: no exit within 240 s", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
