#!/usr/bin/env python3
"""The CI examples in doc/ci parse as YAML and carry what doc/ci/README.md
promises: the .deb installed, a run with --junit and --report, both published;
and each one's build step installs every Debian package a Release build of
cnxsim needs (scripts/bootstrap's list without the test and benchmark ones)."""
import pathlib
import re
import sys

import yaml

ci = pathlib.Path(sys.argv[1])
problems = []

gha = yaml.safe_load((ci / "github-actions.yml").read_text())
steps = [s for job in gha["jobs"].values() for s in job.get("steps", [])]
text = yaml.safe_dump(gha)
for want in ["apt-get install", "--junit", "--report", "actions/upload-artifact", "dorny/test-reporter"]:
    if want not in text:
        problems.append(f"github-actions.yml: no {want}")
if not steps:
    problems.append("github-actions.yml: no steps")

gl = yaml.safe_load((ci / "gitlab-ci.yml").read_text())
jobs = {k: v for k, v in gl.items() if isinstance(v, dict) and "script" in v}
if not any(j.get("artifacts", {}).get("reports", {}).get("junit") for j in jobs.values()):
    problems.append("gitlab-ci.yml: no job with artifacts:reports:junit")
gltext = yaml.safe_dump(gl)
for want in ["apt-get install", "--junit", "--report"]:
    if want not in gltext:
        problems.append(f"gitlab-ci.yml: no {want}")

docker = (ci / "Dockerfile").read_text()
if docker.count("FROM debian:12-slim") < 2:
    problems.append("Dockerfile: not multi-stage on debian:12-slim")

# The build's packages, from scripts/bootstrap's first packages=( ... ) list.
bootstrap = (ci.parent.parent / "scripts" / "bootstrap").read_text()
listed = re.search(r"^packages=\((.*?)^\)", bootstrap, re.S | re.M).group(1)
needed = set(re.sub(r"#.*", "", listed).split()) - {"catch2", "libbenchmark-dev"}
for name, example in [("github-actions.yml", text), ("gitlab-ci.yml", gltext), ("Dockerfile", docker)]:
    missing = sorted(p for p in needed if not re.search(rf"(?<![\w.+-]){re.escape(p)}(?![\w.+-])", example))
    if missing:
        problems.append(f"{name}: the build step does not install {' '.join(missing)} (scripts/bootstrap)")

for p in problems:
    print(p)
print("OK" if not problems else f"{len(problems)} problem(s)")
sys.exit(1 if problems else 0)
