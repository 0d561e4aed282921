#!/usr/bin/env python3
"""`cnxsim run --against` end to end, against `cnxsim serve` (no Java needed).

usage: against_serve.py CNXSIM SOURCE_DIR WORKDIR

serve is an adapter over the same model, so every step that runs must agree:
a disagreement here is a defect of the live executor or of serve's wire and
REST adapters. Checks, each with its own exit status and output:
  1. the example scenario agrees (exit 0), its `check` is not executable;
  2. a scenario whose expectation is wrong disagrees (exit 1, three columns);
  3. a scenario needing a broker setting serve does not run is not executable,
     with the setting it needs, and --strict fails it;
  4. --json writes every verdict;
  5. a differential search of 30 sessions finds no disagreement (exit 0), and
     the same seed gives the same summary;
  6. bad arguments exit 2; an unreachable broker exits 1 with the reason.
Every wait is bounded; serve is stopped with SIGTERM at the end.
"""
import json
import os
import signal
import subprocess
import sys
import time

cnxsim, src, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
os.makedirs(work, exist_ok=True)
failures = []


def check(cond, what, output=""):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)
        if output:
            print(output[-3000:])


serve = subprocess.Popen([cnxsim, "serve", "--port", "0", "--admin-port", "0", "--broker-version", "4.2"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
try:
    line = ""
    deadline = time.time() + 60
    while time.time() < deadline and not line.startswith("ready:"):
        line = serve.stdout.readline()
        if line == "" and serve.poll() is not None:
            break
    check(line.startswith("ready:"), "serve printed its ready line")
    words = line.replace(",", "").split()
    pulsar = next(w for w in words if w.startswith("pulsar://"))
    admin = next(w for w in words if w.startswith("http://"))
    against = ["--against", pulsar, "--admin", admin]

    def run(*args, timeout=900):
        p = subprocess.run([cnxsim, "run", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout, cwd=work)
        return p.returncode, p.stdout

    rc, out = run(os.path.join(src, "doc/examples/first-scenario.yaml"), *against, "-v")
    check(rc == 0 and "AGREE" in out and "step 3 (check): not executable" in out,
          "the example scenario agrees with serve and its check is not executable", out)

    wrong = os.path.join(work, "wrong.yaml")
    open(wrong, "w").write("""name: a wrong expectation
steps:
  - producer: { topic: t, name: p1, schema: STRING }
    expect: { schema_version: 3 }
""")
    rc, out = run(wrong, *against)
    check(rc == 1 and "DISAGREE" in out and "expected:    { schema_version: 3 }" in out
          and "real broker: { schema_version: 0 }" in out and "model:       { schema_version: 0 }" in out,
          "a wrong expectation disagrees, with the three columns", out)

    needs = os.path.join(work, "needs.yaml")
    open(needs, "w").write("""name: needs enforcement on the broker
broker: { config: { isSchemaValidationEnforced: true } }
steps:
  - producer: { topic: t, name: p1, schema: STRING }
    expect: { schema_version: 0 }
""")
    rc, out = run(needs, *against, "--json", os.path.join(work, "needs.json"))
    check(rc == 0 and "NOT EXECUTABLE" in out and "needs isSchemaValidationEnforced=true" in out,
          "a scenario needing a setting serve does not run is not executable, naming the setting", out)
    doc = json.load(open(os.path.join(work, "needs.json")))
    check(doc["scenarios"][0]["needs"] == {"isSchemaValidationEnforced": "true"} and doc["summary"]["not_executable"] == 1,
          "--json lists the settings a scenario needs")
    rc, out = run(needs, *against, "--strict")
    check(rc == 1, "--strict fails a scenario that could not run", out)

    rc, out = run(os.path.join(src, "scenarios/producer"), *against, "--json", os.path.join(work, "producer.json"))
    doc = json.load(open(os.path.join(work, "producer.json")))
    check(rc == 0 and doc["summary"]["disagreed"] == 0 and doc["summary"]["agreed"] > 10,
          "the bundled producer scenarios agree with serve ({} agreed)".format(doc["summary"]["agreed"]), out)

    outs = []
    for n in range(2):
        d = os.path.join(work, f"explore-{n}")
        rc, out = run(*against, "--explore", "30", "--seed", "5", "-o", d)
        outs.append(out.strip().splitlines()[-1] if out.strip() else "")
        check(rc == 0 and "0 disagreement(s)" in out, f"a differential search of 30 sessions finds serve and the model agree (run {n + 1})", out)
    check(outs[0] == outs[1], "the same seed gives the same search")

    rc, out = run(wrong, "--against", pulsar)
    check(rc == 2 and "--admin" in out, "--against without --admin exits 2", out)
    rc, out = run(wrong, "--against", "http://x:1", "--admin", admin)
    check(rc == 2 and "pulsar://" in out, "a non-pulsar:// --against exits 2", out)
    rc, out = run(wrong, *against, "--accept")
    check(rc == 2, "--accept with --against exits 2", out)
    rc, out = run(*against, "--explore", "5")
    check(rc == 2 and "-o" in out, "--explore without -o exits 2", out)
    rc, out = run(wrong, "--against", "pulsar://127.0.0.1:1", "--admin", "http://127.0.0.1:1", "--timeout", "2s")
    check(rc == 1 and "cannot be reached" in out, "an unreachable broker exits 1 with the reason", out)
finally:
    serve.send_signal(signal.SIGTERM)
    try:
        serve.wait(timeout=30)
    except subprocess.TimeoutExpired:
        serve.kill()
        serve.wait()

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
