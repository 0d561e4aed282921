#!/usr/bin/env python3
"""Run cnxsim's scenarios against real Apache Pulsar brokers of one release line.

    tests/oracle/oracle_suite.py --cnxsim BIN --line 4.2 [PATH...] [--explore N --seed S --out DIR]
                                 [--json FILE] [--keep-logs DIR]

A broker with default settings is started first (tests/oracle/run-broker) and
every scenario runs on it with `cnxsim run --against`. A scenario that needs
broker.conf settings the running broker does not have (and cannot take at run
time) is reported by cnxsim as not executable, with the settings it needs
(`needs` in --json); those scenarios are then run on one more broker per
distinct set of settings, started with `--set`. With --explore, a differential
search of N seeded sessions runs on a default broker as well.

Prints one table (scenarios and steps: agreed, disagreed, explained, not
executable; sessions: run, disagreements) and exits 0 only when nothing
disagreed and nothing failed. Exit 77 (ctest's skip) when the line's broker
cannot be started here for want of java, mvn or its resolved jars.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SKIP = 77


class Broker:
    """One tests/oracle/run-broker process: started, read its ready line, stopped with SIGTERM."""

    def __init__(self, line, settings, log_dir):
        self.line = line
        self.settings = settings
        self.log_dir = log_dir
        self.proc = None
        self.pulsar = self.http = self.release = None

    def start(self, timeout=300):
        cmd = [os.path.join(HERE, "run-broker"), self.line, "--port", "0", "--admin-port", "0"]
        for k, v in sorted(self.settings.items()):
            cmd += ["--set", f"{k}={v}"]
        self.err = open(os.path.join(self.log_dir, f"broker-{len(os.listdir(self.log_dir))}.err"), "w")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.err, text=True)
        deadline = time.time() + timeout
        line = ""
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if line.startswith("ready: "):
                parts = line.split()
                self.pulsar, self.http = parts[1], parts[2]
                self.release = parts[-1].rstrip(")")
                return True
            if line == "" and self.proc.poll() is not None:
                break
        self.stop()
        return False

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if getattr(self, "err", None):
            self.err.close()


def run_cnxsim(args, broker, paths, extra, json_path):
    cmd = [args.cnxsim, "run", *paths, "--against", broker.pulsar, "--admin", broker.http,
           "--version", broker.release, "--json", json_path, *extra]
    started = time.time()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=args.timeout)
    return proc.returncode, proc.stdout, time.time() - started


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cnxsim", required=True)
    ap.add_argument("--line", default="4.2")
    ap.add_argument("paths", nargs="*", default=[os.path.join(ROOT, "scenarios")])
    ap.add_argument("--explore", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", help="where --explore writes its disagreements")
    ap.add_argument("--json", help="write the summary here")
    ap.add_argument("--keep-logs", help="keep broker logs and cnxsim outputs in this folder")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per cnxsim run")
    args = ap.parse_args()

    log_dir = args.keep_logs or tempfile.mkdtemp(prefix="cnxsim-oracle-suite.")
    os.makedirs(log_dir, exist_ok=True)
    verdicts = {}  # (file, name) -> scenario verdict (an executed one wins over "not executable")
    groups = {}    # frozenset(needs) -> files
    runs = []
    failed = False

    def absorb(json_path, settings):
        nonlocal failed
        doc = json.load(open(json_path))
        for s in doc["scenarios"]:
            key = (s["file"], s["name"])
            prev = verdicts.get(key)
            if s["executable"] or prev is None:
                verdicts[key] = dict(s, settings=settings)
            if not s["executable"] and s.get("needs") and not settings:
                groups.setdefault(frozenset(s["needs"].items()), set()).add(s["file"])

    todo = [({}, args.paths)]
    first = True
    while todo:
        settings, paths = todo.pop(0)
        broker = Broker(args.line, settings, log_dir)
        t0 = time.time()
        if not broker.start():
            tail = open(broker.err.name).read()[-2000:]
            if first and ("needs Java" in tail or "mvn not found" in tail or "could not resolve" in tail
                          or "cannot resolve" in tail):
                print(f"oracle_suite: SKIP: the {args.line} broker cannot start here:\n{tail}")
                return SKIP
            print(f"oracle_suite: the {args.line} broker with {settings or 'default settings'} did not start:\n{tail}")
            return 1
        ready = time.time() - t0
        try:
            out_json = os.path.join(log_dir, f"run-{len(runs)}.json")
            rc, out, secs = run_cnxsim(args, broker, sorted(paths) if settings else paths, [], out_json)
            open(os.path.join(log_dir, f"run-{len(runs)}.txt"), "w").write(out)
            runs.append({"settings": settings, "release": broker.release, "ready_s": round(ready, 1),
                         "run_s": round(secs, 1), "rc": rc})
            print(f"broker {broker.release} {settings or '(default settings)'}: ready in {ready:.1f} s, "
                  f"cnxsim run --against in {secs:.1f} s, exit {rc}")
            if rc not in (0, 1) or not os.path.exists(out_json):
                print(out[-4000:])
                failed = True
            else:
                absorb(out_json, settings)
                if rc == 1:
                    for line in out.splitlines():
                        if line.startswith(("DISAGREE", "ERROR")):
                            print("  " + line)
            if first and args.explore:
                ex_json = os.path.join(log_dir, "explore.json")
                extra = ["--explore", str(args.explore), "--seed", str(args.seed), "-o", args.out or os.path.join(log_dir, "disagreements")]
                rc, out, secs = run_cnxsim(args, broker, [], extra, ex_json)
                open(os.path.join(log_dir, "explore.txt"), "w").write(out)
                print(out.strip().splitlines()[-1] if out.strip() else "(no output)")
                runs.append({"explore": args.explore, "seed": args.seed, "run_s": round(secs, 1), "rc": rc})
                if rc != 0:
                    print(out[-4000:])
                    failed = True
        finally:
            broker.stop()
        if first:
            for needs, files in sorted(groups.items(), key=lambda kv: sorted(kv[0])):
                todo.append((dict(needs), files))
            first = False

    totals = {"scenarios": 0, "agreed": 0, "disagreed": 0, "not_executable": 0, "errors": 0,
              "steps": 0, "steps_agreed": 0, "steps_disagreed": 0, "steps_explained": 0,
              "steps_not_executable": 0, "steps_error": 0}
    for s in verdicts.values():
        totals["scenarios"] += 1
        if not s["executable"]:
            totals["not_executable"] += 1
        elif s["error"]:
            totals["errors"] += 1
        elif s["agreed"]:
            totals["agreed"] += 1
        else:
            totals["disagreed"] += 1
        for st in s["steps"]:
            totals["steps"] += 1
            key = {"agreed": "steps_agreed", "disagreed": "steps_disagreed", "explained": "steps_explained",
                   "not executable": "steps_not_executable", "error": "steps_error"}[st["verdict"]]
            totals[key] += 1
    print(f"\nApache Pulsar {args.line} line: {len(runs)} run(s)")
    print("| scenarios | agreed | disagreed | not executable | errors |")
    print(f"| {totals['scenarios']} | {totals['agreed']} | {totals['disagreed']} | {totals['not_executable']} | {totals['errors']} |")
    print("| steps | agreed | disagreed | explained | not executable | errors |")
    print(f"| {totals['steps']} | {totals['steps_agreed']} | {totals['steps_disagreed']} | {totals['steps_explained']} | "
          f"{totals['steps_not_executable']} | {totals['steps_error']} |")
    if args.json:
        json.dump({"line": args.line, "runs": runs, "totals": totals}, open(args.json, "w"), indent=2)
    if failed or totals["disagreed"] or totals["errors"] or totals["steps_disagreed"] or totals["steps_error"]:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
