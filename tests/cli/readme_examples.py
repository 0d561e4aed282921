#!/usr/bin/env python3
"""Every README example that runs cnxsim runs as written (issue 40 item 27).

usage: readme_examples.py CNXSIM SOURCE_DIR WORKDIR [--list]

Reads SOURCE_DIR/README.md and takes every command of its ```sh blocks that
runs cnxsim (`build/sim/cnxsim ...`, or an installed `cnxsim ...`; a command
continued with `\\` is one). Each is run with bash, exactly as written, from
WORKDIR laid out as a fresh clone after `scripts/bootstrap run`:
build/sim/cnxsim is CNXSIM, `cnxsim` on PATH is CNXSIM, scenarios/ is the
source tree's, and the reader's own files the examples name are copies of
tests/cli/readme/ (my.yaml, v1.avsc, v2.avsc, v3.avsc). $GITHUB_STEP_SUMMARY
is a file in WORKDIR. Each must exit 0.

An installed `cnxsim ...` that is word for word a `build/sim/cnxsim ...`
already run (`cnxsim run`, the bundled suite) is not run twice: here both
are CNXSIM on the same files, and runs are deterministic. For the same
reason `run scenarios/FOLDER` without options is not run again after `run`
(the bundled suite, every folder of it) passed: under the sanitizers each
exploration of the races takes minutes.

Commands that run until stopped: `serve ... --port 0` is started, must print
its ready line within 60 s, and must exit 0 on SIGTERM. `serve` on the fixed
default port, `record` and `run --against` (which need a real broker) are listed as
skipped, with the reason. Anything else in the blocks (cmake, apt-get, the
CI loop around scripts/serve_fixture.sh) is not a cnxsim example and is not
run. --list prints the commands and what would be done with each.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import time

RUNS_CNXSIM = re.compile(r"(^|[\s(<])(build/sim/cnxsim|cnxsim)(\s|$)")
READY_SECONDS = 60
COMMAND_SECONDS = 1800  # a whole-suite run under the sanitizers


def sh_commands(readme):
    """(line number, command) for every command of the ```sh blocks."""
    out, block, pending, start = [], False, "", 0
    for number, line in enumerate(open(readme, encoding="utf-8").read().split("\n"), 1):
        if line.startswith("```"):
            block = line.strip() == "```sh"
            continue
        if not block or (not pending and (not line.strip() or line.lstrip().startswith("#"))):
            continue
        if not pending:
            start = number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        out.append((start, pending + line))
        pending = ""
    return out


def words(command):
    """The command's words up to its comment."""
    return command.split(" #")[0].split()


def within(key, earlier):
    """Whether `key` is `run FOLDER` without options and `earlier`, a passing
    `run` without options, ran the bundled suite or a folder holding FOLDER:
    then every scenario of FOLDER passed there already (runs are
    deterministic and a scenario's runs do not depend on the others)."""
    if len(key) != 3 or key[1] != "run" or key[2].startswith("-") or earlier[:2] != key[:2]:
        return False
    if len(earlier) == 2:
        return os.path.normpath(key[2]).split(os.sep)[0] == "scenarios"
    return len(earlier) == 3 and os.path.normpath(key[2]).startswith(os.path.normpath(earlier[2]) + os.sep)


def plan(command):
    """'run', 'serve' (bounded), 'skip: why', or None (not a cnxsim example)."""
    if not RUNS_CNXSIM.search(command.split(" #")[0]):
        return None
    w = words(command)
    at = next(i for i, x in enumerate(w) if x.endswith("cnxsim"))
    sub = w[at + 1] if at + 1 < len(w) else ""
    if sub == "record":
        return "skip: `record` proxies a real broker (--upstream)"
    if "--against" in command:
        return "skip: `run --against` needs a real broker (tests/oracle runs it, ctest -L oracle)"
    if sub == "serve":
        if "--port" in w and w[w.index("--port") + 1] == "0":
            return "serve"
        return "skip: serve on the fixed default ports 6650/8080 (the --port 0 line runs it)"
    return "run"


def fresh_clone(cnxsim, src, work):
    """WORKDIR as a clone after `scripts/bootstrap run`, with the reader's files."""
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(os.path.join(work, "build", "sim"))
    os.makedirs(os.path.join(work, "bin"))
    for link in (os.path.join(work, "build", "sim", "cnxsim"), os.path.join(work, "bin", "cnxsim")):
        os.symlink(os.path.abspath(cnxsim), link)
    os.symlink(os.path.join(src, "scenarios"), os.path.join(work, "scenarios"))
    fixtures = os.path.join(src, "tests", "cli", "readme")
    for name in sorted(os.listdir(fixtures)):
        shutil.copy(os.path.join(fixtures, name), os.path.join(work, name))
    env = dict(os.environ)
    env["PATH"] = os.path.join(work, "bin") + os.pathsep + env.get("PATH", "")
    env["GITHUB_STEP_SUMMARY"] = os.path.join(work, "step-summary.md")
    return env


def run_bounded_serve(command, work, env):
    """Starts a `serve --port 0` example, waits for its ready line, stops it with SIGTERM."""
    p = subprocess.Popen(["bash", "-c", "exec " + command.split(" #")[0]], cwd=work, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + READY_SECONDS
        ready = ""
        while time.monotonic() < deadline and not ready.startswith("ready: "):
            ready = p.stdout.readline()
            if not ready and p.poll() is not None:
                break
        if not ready.startswith("ready: "):
            return f"no ready line within {READY_SECONDS} s (exit {p.poll()}): {p.stderr.read() if p.poll() is not None else ''}"
        p.send_signal(signal.SIGTERM)
        status = p.wait(timeout=30)
        return None if status == 0 else f"exit {status} on SIGTERM: {p.stderr.read()}"
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    cnxsim, src, work = argv[1:4]
    readme = os.path.join(src, "README.md")
    commands = [(n, c, plan(c)) for n, c in sh_commands(readme)]
    commands = [(n, c, p) for n, c, p in commands if p]
    if "--list" in argv:
        for n, c, p in commands:
            print(f"README.md:{n}: [{p}] {c}")
        return 0
    if len([p for _, _, p in commands if p == "run"]) < 10:
        print("FAIL: fewer than 10 cnxsim examples found in README.md's sh blocks: the extraction is broken",
              file=sys.stderr)
        return 1
    env = fresh_clone(cnxsim, src, work)
    failures = 0
    first_line = {}
    for n, command, what in commands:
        if what.startswith("skip"):
            print(f"README.md:{n}: {what}: {command}")
            continue
        key = tuple("build/sim/cnxsim" if w == "cnxsim" else w for w in words(command))
        if key in first_line:  # runs are deterministic: the same command on the same files, the same answer
            print(f"README.md:{n}: as README.md:{first_line[key]} (the installed cnxsim is this one): {command}")
            continue
        covering = next((first_line[k] for k in first_line if within(key, k)), None)
        if covering:
            print(f"README.md:{n}: its scenarios passed in README.md:{covering}, the same run without options: {command}")
            continue
        first_line[key] = n
        started = time.monotonic()
        if what == "serve":
            problem = run_bounded_serve(command, work, env)
        else:
            p = subprocess.run(["bash", "-c", command], cwd=work, env=env, capture_output=True, text=True,
                               timeout=COMMAND_SECONDS)
            problem = None if p.returncode == 0 else f"exit {p.returncode}\nstdout:\n{p.stdout[-3000:]}\nstderr:\n{p.stderr[-3000:]}"
        took = time.monotonic() - started
        if problem:
            failures += 1
            print(f"FAIL README.md:{n}: {command}\n  {problem}", file=sys.stderr)
        else:
            print(f"ok   README.md:{n} ({took:.1f} s): {command}")
    print(f"{len(commands)} examples, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
