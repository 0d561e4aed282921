#!/usr/bin/env python3
"""What `cnxsim run` writes for people and tools (issue 13), on a failing run.

usage: report_outputs.py CNXSIM SOURCE_DIR WORKDIR

Runs from SOURCE_DIR with the relative path tests/report/failing-report.yaml:
- JUnit: classname tests.report.failing-report (path with dots), the testcase
  name carries [version], time in fixed 3 decimals, <failure type message>
  with the one-line reason and the failure block as text, <properties> with
  the seed and the versions;
- --report -: the Markdown report on stdout (summary, a ```mermaid
  sequenceDiagram per failure, the scenario name's '#' and ';' as mermaid
  entity codes), the run's own lines on stderr;
- -q: only FAIL lines (one per failure, one line each) and a one-line summary;
- --json: one JSON object per run with the documented fields;
- failure blocks: the Avro message as one line without the embedded schemas,
  with the problem paths; -v prints the embedded schemas.
"""
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

SCENARIO = "tests/report/failing-report.yaml"
VERSIONS = ["2.10", "3.0", "4.0"]


def run(cnxsim, src, *args):
    return subprocess.run([cnxsim, "run", SCENARIO, "--seed", "7", *args], cwd=src, capture_output=True, text=True,
                          timeout=300)


def check(cond, what, p=None):
    if not cond:
        print("FAIL: " + what, file=sys.stderr)
        if p is not None:
            print("stdout:\n" + p.stdout + "\nstderr:\n" + p.stderr, file=sys.stderr)
        sys.exit(1)


def main(cnxsim, src, work):
    os.makedirs(work, exist_ok=True)
    junit, js = os.path.join(work, "junit.xml"), os.path.join(work, "runs.jsonl")
    p = run(cnxsim, src, "--junit", junit, "--json", js)
    check(p.returncode == 1, "a failing run exits 1", p)
    # Short Avro failures: one line, no embedded schema, the problem paths.
    check('"fields"' not in p.stdout, "the failure block embeds no schema without -v", p)
    check("    problem:  " in p.stdout, "the failure block lists the checker's problems", p)
    observed = [l for l in p.stdout.splitlines() if l.startswith("    observed: ")]
    check(observed and all("IncompatibleSchema" in l for l in observed), "observed IncompatibleSchema", p)
    v = run(cnxsim, src, "-v")
    check('"fields"' in v.stdout, "-v prints the full broker message with its schemas", v)

    root = ET.parse(junit).getroot()
    cases = list(root.iter("testcase"))
    check(len(cases) == 3, "three test cases")
    for case, version in zip(cases, VERSIONS):
        check(case.get("classname") == "tests.report.failing-report", "classname " + repr(case.get("classname")))
        check(case.get("name").endswith("[" + version + "]"), "name carries the version: " + case.get("name"))
        check(re.fullmatch(r"\d+\.\d{3}", case.get("time")), "fixed-decimal time " + case.get("time"))
        f = case.find("failure")
        check(f is not None and f.get("type") == "ExpectationMismatch", "failure type")
        check("\n" not in f.get("message") and f.get("message").startswith("step 4 (producer): "),
              "one-line failure message: " + repr(f.get("message")))
        check("expected: ok" in f.text and "trace:" in f.text, "the failure block as text")
        props = {q.get("name"): q.get("value") for q in case.find("properties")}
        check(props.get("version") == version and props.get("seed") == "7", "testcase properties " + repr(props))
    suite = root.find("testsuite")
    props = {q.get("name"): q.get("value") for q in suite.find("properties")}
    check(props == {"seed": "7", "versions": ",".join(VERSIONS)}, "testsuite properties " + repr(props))
    check(re.fullmatch(r"\d+\.\d{3}", root.get("time")), "testsuites time")

    lines = [json.loads(l) for l in open(js, encoding="utf-8").read().splitlines()]
    check([l["version"] for l in lines] == VERSIONS, "one JSON object per run")
    for l in lines:
        for key in ("file", "scenario", "version", "profile", "seed", "passed", "seconds", "reason", "setup_error",
                    "steps"):
            check(key in l, "JSON field " + key)
        check(l["passed"] is False and l["seed"] == 7 and l["reason"].startswith("step 4"), "JSON values")
        step = l["steps"][3]
        check(step["status"] == "failed" and step["error"] == "IncompatibleSchema" and step["problems"], "JSON step")
        check("\n" not in step["message"] and '"fields"' not in step["message"], "JSON message is one line")

    md = run(cnxsim, src, "--report", "-")
    check(md.returncode == 1, "--report - keeps the exit status", md)
    check(md.stdout.startswith("# cnxsim report\n"), "--report - writes Markdown to stdout", md)
    check("FAIL  tests/report/failing-report.yaml" in md.stderr and "FAIL  " not in md.stdout.split("```")[0],
          "the run's own lines go to stderr", md)
    blocks = re.findall(r"```mermaid\n(.*?)```", md.stdout, re.S)
    check(len(blocks) == 3 and all(b.startswith("sequenceDiagram\n") for b in blocks), "one mermaid block per failure", md)
    for b in blocks:
        check("rect rgb(" in b and "participant P0 as producer p-full" in b, "highlighted failing step", md)
        for line in b.splitlines()[1:]:
            text = line.split(": ", 1)[1] if ": " in line else line
            check(";" not in text.replace("#59;", "").replace("#35;", "").replace("#lt;", "").replace("#gt;", "")
                  .replace("#38;", "").replace("#quot;", "").replace("#37;", "").replace("#96;", ""),
                  "no raw ';' in a mermaid text: " + line)

    q = run(cnxsim, src, "-q")
    out = q.stdout.splitlines()
    check(q.returncode == 1 and len(out) == 4, "-q: three FAIL lines and a summary", q)
    check(all(l.startswith("FAIL  tests/report/failing-report.yaml: ") for l in out[:3]), "-q FAIL lines", q)
    check(out[3] == "0 passed, 3 failed (seed 7)", "-q summary", q)
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
