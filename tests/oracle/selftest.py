#!/usr/bin/env python3
"""Smoke test of tests/oracle/run-broker (tests/oracle/README.md), without ctest.

usage: selftest.py [VERSION]      (default 4.2)

Starts the real broker of VERSION on port 0 with one --set, checks the ready
line, that GET /admin/v2/clusters answers ["standalone"], that the --set value
is the broker's (GET /admin/v2/brokers/configuration/runtime), then SIGTERMs
run-broker and checks that it exits 0, that no process of its session is left
and that its temporary folder (under a TMPDIR of our own) is gone. Then the
refusals that start no broker: an unknown key, a bad value, an unknown version
(exit 2 with a one-line reason).

Exit 0 passed, 1 failed, 77 skipped (java, mvn or the release's resolved
classpath is missing: scripts/bootstrap test resolves it). Start time and the
JVM's resident memory are printed, never asserted.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_BROKER = os.path.join(HERE, "run-broker")
READY = re.compile(r"^ready: pulsar://127\.0\.0\.1:(\d+) http://127\.0\.0\.1:(\d+) \(Apache Pulsar (\d+\.\d+\.\d+)\)$")
START_LIMIT = 240  # seconds: a bound for a hung start, not a timing assertion
STOP_LIMIT = 120
SKIP = 77


def release_of(version):
    """The pinned release of VERSION (a line or a release) from versions.txt."""
    for line in open(os.path.join(HERE, "versions.txt"), encoding="utf-8"):
        parts = line.split()
        if parts and not parts[0].startswith("#") and version in (parts[0], parts[1]):
            return parts[1]
    return version


def skip_reason(version):
    for tool in ("java", "mvn"):
        if shutil.which(tool) is None:
            return f"{tool} not found (scripts/bootstrap test installs it)"
    cp = os.path.join(HERE, "target", f"classpath-{release_of(version)}.txt")
    if not os.path.isfile(cp):
        return (f"{cp} is missing: Apache Pulsar {version} is not resolved (tests/oracle/resolve {version};"
                " scripts/bootstrap test resolves 4.2)")
    return None


def session_pids(sid):
    """Processes whose session id is SID (run-broker's, started in its own session)."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid:  # fields after the name: state ppid pgrp session
                pids.append(int(entry))
    return pids


def rss_mb(pids):
    total = 0
    for pid in pids:
        try:
            for line in open(f"/proc/{pid}/status"):
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total // 1024


def get_json(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.loads(r.read().decode())


def check(ok, what, failures):
    print(("ok: " if ok else "FAILED: ") + what)
    if not ok:
        failures.append(what)


def read_ready(proc, limit):
    """The first stdout line, or None when run-broker exits or LIMIT seconds pass first."""
    import selectors
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if sel.select(timeout=1):
            line = proc.stdout.readline()
            return line.rstrip("\n") if line else None
    return None


def run_broker_session(version, failures):
    tmp = tempfile.mkdtemp(prefix="oracle-selftest-")
    env = dict(os.environ, TMPDIR=tmp)
    started = time.monotonic()
    proc = subprocess.Popen([RUN_BROKER, version, "--port", "0", "--admin-port", "0",
                             "--set", "isSchemaValidationEnforced=true"],
                            stdout=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try:
        line = read_ready(proc, START_LIMIT)
        m = READY.match(line or "")
        check(m is not None, f"ready line: {line!r}", failures)
        if m is None:
            return
        print(f"start to ready: {time.monotonic() - started:.1f} s, resident memory: "
              f"{rss_mb(session_pids(proc.pid))} MB (Apache Pulsar {m.group(3)})")
        admin = f"http://127.0.0.1:{m.group(2)}"
        check(get_json(admin + "/admin/v2/clusters") == ["standalone"], "GET /admin/v2/clusters is [\"standalone\"]",
              failures)
        check(get_json(admin + "/admin/v2/namespaces/public") == ["public/default"],
              "GET /admin/v2/namespaces/public is [\"public/default\"]", failures)
        runtime = get_json(admin + "/admin/v2/brokers/configuration/runtime")
        check(runtime.get("isSchemaValidationEnforced") == "true", "--set isSchemaValidationEnforced=true is the "
              f"broker's (runtime configuration says {runtime.get('isSchemaValidationEnforced')!r})", failures)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            status = proc.wait(STOP_LIMIT)
        except subprocess.TimeoutExpired:
            status = None
        rest = proc.stdout.read()
        check(status == 0, f"run-broker exits 0 on SIGTERM (status {status})", failures)
        check(rest == "", f"nothing more on stdout after the ready line ({rest[:200]!r})", failures)
        left = session_pids(proc.pid)
        check(left == [], f"no process of run-broker's session left ({left})", failures)
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        leftover = os.listdir(tmp)
        check(leftover == [], f"no temporary files left ({leftover})", failures)
        shutil.rmtree(tmp, ignore_errors=True)


def refusals(version, failures):
    """Bad input starts nothing and says why in one line, exit 2."""
    cases = [
        ([version, "--set", "noSuchBrokerKey=1"], "not a broker.conf key of this release"),
        ([version, "--set", "maxMessageSize=big"], "refused by Pulsar's config loader"),
        ([version, "--set", "isSchemaValidationEnforced=yes"], "takes true or false"),
        ([version, "--set", "brokerServicePort=6650"], "run-broker sets it itself"),
        (["9.9"], "unknown version '9.9'"),
        ([version, "--port", "65536"], "--port takes a port 0-65535"),
        ([version, "--data", "/nonexistent-oracle-folder"], "no such folder"),
    ]
    for args, words in cases:
        r = subprocess.run([RUN_BROKER] + args, capture_output=True, text=True, timeout=120)
        lines = [l for l in r.stderr.splitlines() if l.startswith("run-broker:")]
        check(r.returncode == 2 and r.stdout == "" and any(words in l for l in lines),
              f"run-broker {' '.join(args)} exits 2 saying '{words}' (status {r.returncode}, {lines})", failures)


def main():
    version = sys.argv[1] if len(sys.argv) > 1 else "4.2"
    reason = skip_reason(version)
    if reason:
        print(f"skipped: {reason}")
        return SKIP
    failures = []
    run_broker_session(version, failures)
    refusals(version, failures)
    print(f"selftest of Apache Pulsar {version}: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
