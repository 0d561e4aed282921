#!/usr/bin/env python3
"""Runs one file of the Python client suite under pytest, for ctest.

usage: run_suite.py VENV CNXSIM [--needs-serve-option OPTION] TEST_FILE [PYTEST_ARG ...]

VENV is the virtual environment `scripts/bootstrap test` makes
(tests/clients/python/.venv, from requirements.txt). Without it, or without
the packages in it, the run is skipped: it prints why and exits 77 (the ctest's
SKIP_RETURN_CODE). Otherwise it runs VENV's pytest on TEST_FILE with CNXSIM
(the cnxsim binary the fixtures start) in the environment, bounded in time,
and exits with pytest's status. With --needs-serve-option, a cnxsim whose
`cnxsim help serve` does not name OPTION skips the file (exit 77): a suite
written ahead of the serve feature it drives.
"""
import os
import subprocess
import sys

SKIP = 77
PACKAGES = "import pulsar, pulsar.schema, fastavro, google.protobuf, pytest"
INSTALL = "scripts/bootstrap test installs it: python3 -m venv {venv} && {venv}/bin/pip install --require-hashes -r {req}"


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    venv, cnxsim, rest = argv[1], argv[2], argv[3:]
    needs = None
    if rest[:1] == ["--needs-serve-option"] and len(rest) >= 3:
        needs, rest = rest[1], rest[2:]
    test_file, extra = rest[0], rest[1:]
    if needs:
        help_text = subprocess.run([cnxsim, "help", "serve"], capture_output=True, text=True, timeout=60)
        if needs not in help_text.stdout + help_text.stderr:
            print(f"skipped: this cnxsim serve has no {needs} (`{cnxsim} help serve` does not name it), "
                  f"which {os.path.basename(test_file)} needs")
            return SKIP
    python = os.path.join(venv, "bin", "python")
    install = INSTALL.format(venv=venv, req=os.path.join(os.path.dirname(os.path.abspath(__file__)), "requirements.txt"))
    if not os.access(python, os.X_OK):
        print(f"skipped: no Python virtual environment at {venv} ({install})")
        return SKIP
    check = subprocess.run([python, "-c", PACKAGES], capture_output=True, text=True, timeout=60)
    if check.returncode != 0:
        print(f"skipped: the client packages are missing from {venv}: {check.stderr.strip().splitlines()[-1]} ({install})")
        return SKIP
    env = dict(os.environ, CNXSIM=cnxsim, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PULSAR_SERVICE_URL", None)  # ctest runs always start their own serve
    env.pop("PULSAR_ADMIN_URL", None)
    command = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfEsxX", test_file, *extra]
    try:
        return subprocess.run(command, env=env, timeout=150).returncode
    except subprocess.TimeoutExpired:
        print(f"{' '.join(command)}: no exit within 150 s", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
