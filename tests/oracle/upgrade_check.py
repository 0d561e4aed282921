#!/usr/bin/env python3
"""Upgrades between real brokers on the same storage (tests/oracle/README.md).

usage: upgrade_check.py FROM:TO [FROM:TO ...]      e.g. 3.0:4.2 4.2:3.0 2.11:3.0

For each pair: start broker FROM with `run-broker FROM --data DIR`, create
topic public/default/upgrade-check, upload an AVRO schema to it
(POST /admin/v2/schemas/public/default/upgrade-check/schema), read it back,
stop FROM (SIGTERM, exit 0), start broker TO on the same DIR and read the
schema back (GET): the pair works when TO lists the topic and answers the same
schema type, definition and version. Inactive-topic deletion is off
(--set brokerDeleteInactiveTopicsEnabled=false) so the topic, which has no
producer, outlives the check whatever the start times.

Prints one line per pair (works / FAILS with the reason). Exit 0 when every
pair works, 1 otherwise, 77 (skipped) when java, mvn or a release's resolved
classpath is missing.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

import selftest

TOPIC = "public/default/upgrade-check"
SCHEMA = {
    "type": "AVRO",
    "schema": json.dumps({"type": "record", "name": "Upgrade", "namespace": "cnxsim.oracle",
                          "fields": [{"name": "id", "type": "long"}, {"name": "note", "type": ["null", "string"],
                                                                     "default": None}]}),
    "properties": {"written-by": "upgrade_check.py"},
}


class Broker:
    """One run-broker on DATA; stop() returns its exit status."""

    def __init__(self, version, data):
        self.version = version
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([selftest.RUN_BROKER, version, "--data", data,
                                      "--set", "brokerDeleteInactiveTopicsEnabled=false"],
                                     stdout=subprocess.PIPE, stderr=self.stderr, text=True, start_new_session=True)
        line = selftest.read_ready(self.proc, selftest.START_LIMIT)
        m = selftest.READY.match(line or "")
        if m is None:
            self.stop()
            self.stderr.seek(0)
            said = [l.strip() for l in self.stderr if l.startswith("run-broker:")]
            raise RuntimeError(f"{version} did not start on the folder: {said[-1] if said else repr(line)}")
        self.admin = f"http://127.0.0.1:{m.group(2)}"
        self.release = m.group(3)

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.admin + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                text = r.read().decode()
                return r.status, json.loads(text) if text else None
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()[:300]

    def stop(self):
        self.proc.terminate()
        try:
            return self.proc.wait(selftest.STOP_LIMIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return None


def schema_of(broker):
    status, body = broker.call("GET", f"/admin/v2/schemas/{TOPIC}/schema")
    if status != 200:
        raise RuntimeError(f"{broker.release}: GET schema answered {status}: {body}")
    return body.get("type"), body.get("data"), body.get("version")


def write_side(version, data):
    b = Broker(version, data)
    try:
        status, body = b.call("PUT", f"/admin/v2/persistent/{TOPIC}")
        if status // 100 != 2:
            raise RuntimeError(f"{b.release}: creating the topic answered {status}: {body}")
        status, body = b.call("POST", f"/admin/v2/schemas/{TOPIC}/schema", SCHEMA)
        if status // 100 != 2:
            raise RuntimeError(f"{b.release}: POST schema answered {status}: {body}")
        return b.release, schema_of(b)
    finally:
        status = b.stop()
        if status != 0:
            raise RuntimeError(f"{version} exited {status} on SIGTERM")


def read_side(version, data):
    b = Broker(version, data)
    try:
        status, topics = b.call("GET", "/admin/v2/persistent/public/default")
        if status != 200 or f"persistent://{TOPIC}" not in topics:
            raise RuntimeError(f"{b.release}: the topic is not listed after the upgrade ({status}: {topics})")
        return b.release, schema_of(b)
    finally:
        b.stop()


def check_pair(old, new):
    data = tempfile.mkdtemp(prefix="oracle-upgrade-")
    try:
        old_release, before = write_side(old, data)
        new_release, after = read_side(new, data)
        if before != after:
            return False, f"{old_release} -> {new_release}: schema differs: before {before}, after {after}"
        return True, f"{old_release} -> {new_release}: topic and schema (version {after[2]}) kept"
    except (RuntimeError, OSError) as e:
        return False, f"{old} -> {new}: {e}"
    finally:
        shutil.rmtree(data, ignore_errors=True)


def main():
    pairs = [a.split(":", 1) for a in sys.argv[1:]]
    if not pairs or any(len(p) != 2 for p in pairs):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    for version in sorted({v for p in pairs for v in p}):
        reason = selftest.skip_reason(version)
        if reason:
            print(f"skipped: {reason}")
            return selftest.SKIP
    failed = 0
    for old, new in pairs:
        ok, line = check_pair(old, new)
        print(("works: " if ok else "FAILS: ") + line, flush=True)
        failed += 0 if ok else 1
    print(f"upgrade pairs: {len(pairs) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
