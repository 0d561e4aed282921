#!/usr/bin/env python3
"""scripts/serve_fixture.sh neither follows planted links nor kills a planted pid.

usage: serve_fixture_safety.py FIXTURE_SCRIPT CNXSIM WORKDIR

Issue 40 item 21: `start` wrote DIR/serve.err through a symbolic link planted
there (truncating its target), and `stop` sent SIGTERM to whatever process a
planted DIR/serve.pid named. The script now keeps its files in a private
folder made by mktemp -d, and `stop` signals only the cnxsim it started (its
pid, start time and executable as recorded). Every server this test starts
listens on 127.0.0.1, port 0, and is stopped before the test ends; the decoy
processes are this test's own `sleep`s, killed at the end.
"""
import os
import shutil
import signal
import subprocess
import sys


def alive(pid):
    """Whether the process runs (a zombie nobody reaped yet has exited)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(") ", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def main():
    script, cnxsim, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, CNXSIM=cnxsim)
    decoys = []
    failures = []

    def fixture(*args):
        return subprocess.run([script, *args], env=env, capture_output=True, text=True, timeout=60)

    def check(ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            failures.append(what)

    def decoy():
        p = subprocess.Popen(["sleep", "120"])
        decoys.append(p)
        return p

    try:
        # 1. Links planted at every name the old script wrote in DIR.
        d = os.path.join(work, "planted-links")
        os.makedirs(d)
        victims = {}
        for name in ("serve.out", "serve.err", "serve.pid"):
            victim = os.path.join(work, "victim-" + name)
            with open(victim, "w") as f:
                f.write("precious " + name + "\n")
            os.symlink(victim, os.path.join(d, name))
            victims[name] = victim
        r = fixture("start", d)
        check(r.returncode == 0 and r.stdout.startswith("pulsar://127.0.0.1:"), "start beside planted links: " + r.stdout + r.stderr)
        for name, victim in victims.items():
            with open(victim) as f:
                check(f.read() == "precious " + name + "\n", "the target of a link planted at " + name + " is untouched")
            check(os.path.islink(os.path.join(d, name)), "the link planted at " + name + " is left in place")
        files = fixture("files", d).stdout.strip()
        check(os.path.dirname(files) == d and os.path.basename(files).startswith("serve."), "files names the private folder: " + files)
        check(os.path.isdir(files) and (os.stat(files).st_mode & 0o777) == 0o700, "the private folder is mode 0700")
        r = fixture("url", d)
        check(r.returncode == 0 and r.stdout.startswith("pulsar://127.0.0.1:"), "url prints the URL again")

        # 2. A pid planted in the private folder: stop refuses, the decoy lives.
        pidfile = os.path.join(files, "serve.pid")
        with open(pidfile) as f:
            recorded = f.read()
        victim = decoy()
        with open(pidfile, "w") as f:
            f.write(f"{victim.pid}\n")
        r = fixture("stop", d)
        check(r.returncode == 1 and "nothing signalled" in r.stderr, "stop refuses a pid it did not start: " + r.stderr)
        check(victim.poll() is None, "the process a planted serve.pid names is not killed")
        # Another process's pid with the server's start time and executable copied: still not it.
        lines = recorded.splitlines()
        with open(pidfile, "w") as f:
            f.write("\n".join([str(victim.pid)] + lines[1:]) + "\n")
        r = fixture("stop", d)
        check(r.returncode == 1 and victim.poll() is None, "a copied start time and executable do not make a pid ours")
        # The real record: stop stops the server.
        server = int(lines[0])
        with open(pidfile, "w") as f:
            f.write(recorded)
        r = fixture("stop", d)
        check(r.returncode == 0, "stop stops the server it started: " + r.stderr)
        check(not alive(server), "the server is gone")

        # 3. The old layout's DIR/serve.pid naming another process: stop kills nothing.
        d2 = os.path.join(work, "planted-pid")
        os.makedirs(d2)
        victim = decoy()
        with open(os.path.join(d2, "serve.pid"), "w") as f:
            f.write(f"{victim.pid}\n")
        r = fixture("stop", d2)
        check(r.returncode == 1, "stop without a started server fails: " + r.stderr)
        check(victim.poll() is None, "the process a planted DIR/serve.pid names is not killed")

        # 4. A DIR others may write, or a link as DIR, is refused before anything starts.
        d3 = os.path.join(work, "open-to-all")
        os.makedirs(d3)
        os.chmod(d3, 0o777)
        r = fixture("start", d3)
        check(r.returncode == 2 and "writable by every user" in r.stderr, "a world-writable DIR is refused: " + r.stderr)
        os.symlink(d2, os.path.join(work, "link-dir"))
        r = fixture("start", os.path.join(work, "link-dir"))
        check(r.returncode == 2 and "symbolic link" in r.stderr, "a DIR that is a link is refused: " + r.stderr)
        if os.geteuid() == 0:
            d4 = os.path.join(work, "someone-elses")
            os.makedirs(d4)
            os.chown(d4, 65534, 65534)
            r = fixture("start", d4)
            check(r.returncode == 2 and "another user" in r.stderr, "another user's DIR is refused: " + r.stderr)
        check(os.listdir(d3) == [], "nothing was written in a refused DIR")
    finally:
        for p in decoys:
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
            p.wait()
        for d in (os.path.join(work, "planted-links"),):
            subprocess.run([script, "stop", d], env=env, capture_output=True, timeout=60)
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
