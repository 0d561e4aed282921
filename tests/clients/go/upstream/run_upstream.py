#!/usr/bin/env python3
"""Runs the Go client's own tests (pulsar/*_test.go) against `cnxsim serve`.

usage: run_upstream.py --cnxsim CNXSIM [options]

The source comes from the Go module tool at the version tests/clients/go/go.mod
pins (`go mod download -json github.com/apache/pulsar-client-go@VERSION`, a
read-only directory of the module cache), copied to a work directory and
made writable; nothing is vendored here. The package's test binary is built
once (`go test -c ./pulsar`; the first build downloads the test-only modules
of the client's go.sum through the Go module proxy).

The tests hard-code pulsar://localhost:6650 and http://localhost:8080 (Go
dials with raw system calls, so the C++ suite's LD_PRELOAD port map cannot
redirect them), and pulsar+ssl://localhost:6651 and https://localhost:8443:
serve listens on those ports, which must be free (checked first), with the
suite's own broker.conf (integration-tests/conf/standalone.conf: TLS,
token, basic and TLS authentication, authorization with superusers
localhost, superUser and admin, anonymous role `anonymous`), its paths
/pulsar/certs and /pulsar/tokens pointed at the module's integration-tests
folder, and basicAuthConf at its conf/.htpasswd (the suite's Dockerfile
passes -Dpulsar.auth.basic.conf), written to the work directory; and what
scripts/pulsar-test-service-start.sh creates (tenant `private`, namespace
`private/auth`, the grants), made with the suite's admin token. Before each
test the broker is put back in that state (POST /cnxsim/reset, then the
set-up again).

Each test function runs in its own process (`-test.run '^Name$'`), bounded by
--test-timeout (go test's -test.timeout, and a kill 15 s later); the whole run
by --budget (tests not reached are counted "not run"). Every failure is
classified with the table in classification.py (a fidelity defect, a feature a
broker double leaves out, TLS or authentication: issue 44); a failure the
table does not name is "unclassified", and a hang is always a defect.

options:
  --files A,B      test files to run (default: every pulsar/*_test.go of the default build)
  --run REGEX      only the test functions matching REGEX
  --broker-version V  the release served (default 4.2: the suite's CI runs the
                   apachepulsar/pulsar:latest image, 4.2 when v0.19.0 was released)
  --test-timeout S seconds per test function (default 60)
  --budget S       seconds for the whole run (default 3600)
  --work DIR       work directory (default: a new temporary one)
  --json FILE      the results as JSON
  --markdown FILE  the per-file table and the failures, as Markdown
  --min-passed N   exit 1 when fewer tests pass (default 0)
  --tls-auth auto|yes|no  the suite's TLS and authentication settings, and the
                   tests that use them (class tls-auth). auto (default): yes when
                   the binary has TLS (`cnxsim help serve` names --tls-port, issue
                   44), else no. no: serve runs without the suite's TLS and
                   authentication keys and those tests are counted "not run"
                   (each would wait out the client's 30 s timeout)
  --run-tls-auth   the same as --tls-auth yes

Exits 0 when at least --min-passed passed and no test hung, crashed serve or
is unclassified; 1 otherwise; 77 when go or the module cannot be had, or a
port is taken; 2 on a usage error.
"""
import argparse
import json
import os
import re
import select
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from classification import CLASSES, LONG_TESTS, classify  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "..", "cpp-client"))
from run_upstream_suites import Server as CppSuiteServer  # noqa: E402

SKIP = 77
MODULE = "github.com/apache/pulsar-client-go"
# The ready line names each URL served; read by scheme, never by position.
READY = re.compile(r"^ready: .*\(Pulsar (\S+) behaviour\)")
TLS_URLS = (re.compile(r"(?:^|[ ,])pulsar\+ssl://[^\s,]+"), re.compile(r"(?:^|[ ,])https://[^\s,]+"))
TEST_FUNC = re.compile(r"^func (Test\w+)\(\w+ \*testing\.T\)", re.M)
BUILD_TAG = re.compile(r"^//go:build (.+)$", re.M)
RESULT = re.compile(r"^--- (PASS|FAIL|SKIP): (Test\w+) ")

# scripts/pulsar-test-service-start.sh of the pinned release: what it creates
# with pulsar-admin. The grants are stored (authorization is not modelled).
SETUP = [
    ("POST", "tenants/public", {"adminRoles": ["anonymous"], "allowedClusters": ["standalone"]}),
    ("POST", "namespaces/public/default/permissions/anonymous", ["produce", "consume"]),
    ("PUT", "tenants/private", {"adminRoles": [], "allowedClusters": ["standalone"]}),
    ("PUT", "namespaces/private/auth", None),
    ("POST", "namespaces/private/auth/permissions/token-principal", ["produce", "consume"]),
]


def parse_args(argv):
    p = argparse.ArgumentParser(usage=__doc__.split("\n\n")[1])
    p.add_argument("--cnxsim", required=True)
    p.add_argument("--files")
    p.add_argument("--run")
    p.add_argument("--broker-version", default="4.2")
    p.add_argument("--test-timeout", type=int, default=60)
    p.add_argument("--budget", type=int, default=3600)
    p.add_argument("--work")
    p.add_argument("--json")
    p.add_argument("--markdown")
    p.add_argument("--min-passed", type=int, default=0)
    p.add_argument("--tls-auth", choices=("auto", "yes", "no"), default="auto")
    p.add_argument("--run-tls-auth", action="store_const", const="yes", dest="tls_auth")
    return p.parse_args(argv)


def has_tls(cnxsim):
    """Whether the binary serves TLS (`cnxsim help serve` names --tls-port)."""
    try:
        r = subprocess.run([cnxsim, "help", "serve"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--tls-port" in r.stdout + r.stderr


# The keys of the suite's standalone.conf that need TLS or authentication
# (left out with --tls-auth no).
TLS_AUTH_KEYS = re.compile(r"^(brokerServicePortTls|webServicePortTls|tls\w*|authenticationEnabled|"
                           r"authenticationProviders|authorizationEnabled|anonymousUserRole|tokenSecretKey|"
                           r"superUserRoles|basicAuthConf)=", re.M)


def suite_conf(src, work, tls_auth):
    """The suite's standalone.conf with its container paths pointed at the
    module's integration-tests folder (and basicAuthConf added, as its
    Dockerfile's -Dpulsar.auth.basic.conf), or without the TLS and
    authentication keys; written to work, its path returned."""
    tests = os.path.join(src, "integration-tests")
    with open(os.path.join(tests, "conf", "standalone.conf")) as f:
        text = f.read()
    text = text.replace("/pulsar/certs/", os.path.join(tests, "certs") + "/")
    text = text.replace("/pulsar/tokens/", os.path.join(tests, "tokens") + "/")
    text += f"\nbasicAuthConf={os.path.join(tests, 'conf', '.htpasswd')}\n"
    if not tls_auth:
        text = TLS_AUTH_KEYS.sub(lambda m: "# left out (TLS and authentication off): " + m.group(0), text)
    path = os.path.join(work, "standalone.conf")
    with open(path, "w") as f:
        f.write(text)
    return path


# The Authorization header of the runner's own admin calls: the suite's admin
# token (sub=admin, a superuser), set in main when authentication is on.
ADMIN_HEADERS = {}


def pinned_version():
    with open(os.path.join(HERE, "..", "go.mod")) as f:
        m = re.search(r"^\s*(?:require\s+)?" + re.escape(MODULE) + r" (v\S+)", f.read(), re.M)
    if not m:
        sys.exit(f"{MODULE} is not required by tests/clients/go/go.mod")
    return m.group(1)


def go_env():
    env = dict(os.environ, GOTOOLCHAIN="local", GOFLAGS="-mod=mod")
    env.pop("CNXSIM", None)
    return env


def fetch_source(work):
    """The module's source at the pinned version, copied into work/src."""
    version = pinned_version()
    r = subprocess.run(["go", "mod", "download", "-json", f"{MODULE}@{version}"], env=go_env(),
                       capture_output=True, text=True, timeout=600, cwd=work)
    info = json.loads(r.stdout) if r.stdout.strip().startswith("{") else {}
    if r.returncode != 0 or not info.get("Dir"):
        print(f"skipped: go mod download {MODULE}@{version} failed: {info.get('Error') or r.stderr.strip()}")
        sys.exit(SKIP)
    src = os.path.join(work, "src")
    shutil.copytree(info["Dir"], src)
    for root, dirs, files in os.walk(src):
        for name in dirs + files:
            path = os.path.join(root, name)
            os.chmod(path, os.stat(path).st_mode | stat.S_IWUSR)
    os.chmod(src, os.stat(src).st_mode | stat.S_IWUSR)
    return src, version


def build(src, work):
    binary = os.path.join(work, "pulsar.test")
    began = time.monotonic()
    r = subprocess.run(["go", "test", "-c", "-o", binary, "./pulsar"], cwd=src, env=go_env(),
                       capture_output=True, text=True, timeout=1800)
    if r.returncode != 0:
        print(f"skipped: go test -c ./pulsar failed\n{r.stdout}{r.stderr}")
        sys.exit(SKIP)
    return binary, round(time.monotonic() - began)


# What marks a test as needing TLS or authentication (issue 44): the suite's
# TLS URLs, certificates, and its authentication providers.
# createClientWithTC (transaction_test.go) connects over TLS with a TLS identity.
TLS_AUTH = re.compile(r"serviceURLTLS|webServiceURLTLS|caCertsPath|tlsClientCertPath|tlsClientKeyPath|"
                      r"NewAuthentication\w*\(|tokenFilePath|pulsar\+ssl://|createClientWithTC\(")


def needs_tls_auth(text, test):
    """Whether test's body uses TLS or authentication."""
    start = text.find(f"func {test}(")
    end = text.find("\nfunc ", start + 1)
    return bool(TLS_AUTH.search(text[start:end if end > 0 else len(text)]))


def test_functions(src, files, pattern):
    """{file: [(test function, needs TLS/auth)]} of the files built without tags."""
    out = {}
    pulsar = os.path.join(src, "pulsar")
    names = sorted(f for f in os.listdir(pulsar) if f.endswith("_test.go"))
    for name in names:
        if files and name not in files:
            continue
        with open(os.path.join(pulsar, name)) as f:
            text = f.read()
        tag = BUILD_TAG.search(text)
        if tag and not re.fullmatch(r"go1\.\d+", tag.group(1).strip()):
            continue  # clustered, extensible_load_manager: other set-ups (docker compose)
        funcs = [(t, needs_tls_auth(text, t)) for t in TEST_FUNC.findall(text) if not pattern or re.search(pattern, t)]
        if funcs:
            out[name] = funcs
    return out


def port_taken(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


class Server(CppSuiteServer):
    """serve on 6650/8080; alive() and stop() as the C++ suites' runner has them."""

    def __init__(self, cnxsim, version, conf, log_path, tls=False):  # pylint: disable=super-init-not-called
        self.log = open(log_path, "w")
        # The suite's broker.conf says advertisedAddress=localhost: LOOKUP answers
        # pulsar://localhost:6650, as its standalone broker does.
        self.proc = subprocess.Popen([cnxsim, "serve", "--port", "6650", "--admin-port", "8080", "-v",
                                      "--broker-version", version, "--config", conf],
                                     stdout=subprocess.PIPE, stderr=self.log, text=True)
        ready, _, _ = select.select([self.proc.stdout], [], [], 30)
        line = self.proc.stdout.readline() if ready else ""
        m = READY.match(line.rstrip("\n"))
        if not m:
            self.stop()
            raise RuntimeError(f"cnxsim serve did not print its ready line (got {line!r}); log {log_path}")
        if tls and not all(url.search(line) for url in TLS_URLS):
            self.stop()
            raise RuntimeError(f"the suite's standalone.conf asks for TLS on 6651 and 8443; the ready line names "
                               f"no pulsar+ssl:// or https:// URL: {line.strip()!r}; log {log_path}")
        self.release = m.group(1)


def http(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request("http://127.0.0.1:8080/" + path, method=method, data=data,
                                 headers={"Content-Type": "application/json", **ADMIN_HEADERS})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def set_up():
    """The script's tenants, namespace and grants; the requests refused."""
    refused = []
    for method, path, body in SETUP:
        status, text = http(method, "admin/v2/" + path, body)
        if status >= 300 and status != 409:
            refused.append(f"{method} /admin/v2/{path}: {status} {text[:200]}")
    return refused


RUNNING = []  # the test process running, for on_sigterm


def on_sigterm(*_):
    for proc in RUNNING:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    sys.exit(143)


def run_one(binary, cwd, test, timeout, log):
    """Runs one test function; (outcome, the lines of its output)."""
    cmd = [binary, "-test.run", f"^{test}$", "-test.v", f"-test.timeout={timeout}s", "-test.count=1"]
    log.write(f"\n=== {test}\n")
    log.flush()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            errors="replace", start_new_session=True)
    RUNNING[:] = [proc]
    try:
        out, _ = proc.communicate(timeout=timeout + 15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        log.write(out)
        return "hung", out.splitlines()
    finally:
        RUNNING.clear()
    log.write(out)
    lines = out.splitlines()
    if f"panic: test timed out after {timeout}s" in out:
        return "hung", lines
    outcome = None
    for line in lines:
        m = RESULT.match(line)
        if m and m.group(2) == test:
            outcome = {"PASS": "passed", "FAIL": "failed", "SKIP": "skipped"}[m.group(1)]
    if outcome is None:
        outcome = "crashed" if proc.returncode != 0 else "no result"
    return outcome, lines


def first_failure(lines):
    """The first assertion or error line of a failed test's output."""
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith("Error Trace:") or s.startswith("Error:"):
            for follow in lines[i:i + 8]:
                if follow.strip().startswith("Error:"):
                    text = follow.strip()[len("Error:"):].strip()
                    nxt = lines[lines.index(follow) + 1].strip() if lines.index(follow) + 1 < len(lines) else ""
                    return (text + " " + nxt)[:300] if nxt and not nxt.startswith(("Test:", "Messages:")) else text[:300]
        if s.startswith("panic:"):
            return s[:300]
    for line in lines:
        if re.match(r"^\s+\w+_test\.go:\d+:", line):
            return line.strip()[:300]
    return ""


def main(argv):
    args = parse_args(argv[1:])
    if not shutil.which("go"):
        print("skipped: go not found")
        return SKIP
    tls_auth = args.tls_auth == "yes" or (args.tls_auth == "auto" and has_tls(args.cnxsim))
    ports = (6650, 8080, 6651, 8443) if tls_auth else (6650, 8080)
    taken = [p for p in ports if port_taken(p)]
    if taken:
        print(f"skipped: port(s) {taken} in use on 127.0.0.1; the Go client's tests need {', '.join(map(str, ports))}")
        return SKIP
    work = args.work or tempfile.mkdtemp(prefix="cnxsim-go-upstream-")
    os.makedirs(work, exist_ok=True)
    began = time.monotonic()
    src, version = fetch_source(work)
    binary, build_seconds = build(src, work)
    files = set(args.files.split(",")) if args.files else None
    plan = test_functions(src, files, args.run)
    conf = suite_conf(src, work, tls_auth)
    args.tls_auth = tls_auth
    if tls_auth:
        with open(os.path.join(src, "integration-tests", "tokens", "admin-token")) as f:
            ADMIN_HEADERS["Authorization"] = "Bearer " + f.read().strip()
    print(f"{MODULE} {version}: {sum(len(v) for v in plan.values())} tests in {len(plan)} files; "
          f"test binary built in {build_seconds} s; work {work}", flush=True)

    results = []  # {file, test, outcome, class, reason, detail, seconds}
    signal.signal(signal.SIGTERM, on_sigterm)
    try:
        server = Server(args.cnxsim, args.broker_version, conf, os.path.join(work, "serve.log"), tls_auth)
    except RuntimeError as e:
        print(f"cnxsim serve did not start: {e}", file=sys.stderr)
        return 1
    release = server.release
    setup_refused = set_up()
    deadline = began + args.budget
    server_box = [server]
    try:
        server_problem = run_all(args, plan, binary, src, conf, deadline, results, server_box, work)
    finally:
        stop_error = server_box[0].stop()
    summary = summarise(results)
    report = {"module": MODULE, "version": version, "release": release, "build_seconds": build_seconds,
              "tls_auth": bool(args.tls_auth),
              "seconds": round(time.monotonic() - began), "setup_refused": setup_refused,
              "server": server_problem or stop_error, "files": summary, "results": results}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    text = markdown(report)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    print(text)
    passed = sum(1 for r in results if r["outcome"] == "passed")
    bad = [r for r in results if r["outcome"] in ("hung",) or r["class"] == "unclassified"]
    if passed < args.min_passed or bad or report["server"]:
        return 1
    return 0


def run_all(args, plan, binary, src, conf, deadline, results, server_box, work):
    """Runs every planned test, restarting serve if it died; a problem of serve's, or None."""
    server_problem = None
    server = server_box[0]
    with open(os.path.join(work, "tests.log"), "w") as log:
        for name, funcs in plan.items():
            for test, tls_auth in funcs:
                if tls_auth and not args.tls_auth:
                    results.append({"file": name, "test": test, "outcome": "not run", "class": "tls-auth",
                                    "reason": "uses TLS or authentication: run when the binary has TLS "
                                              "(issue 44), or with --tls-auth yes",
                                    "detail": "", "seconds": 0})
                    continue
                if time.monotonic() > deadline:
                    results.append({"file": name, "test": test, "outcome": "not run", "class": "budget",
                                    "reason": f"past the --budget of {args.budget} s", "detail": "", "seconds": 0})
                    continue
                if not server.alive():
                    server_problem = f"serve exited {server.proc.returncode} before {test}"
                    server.stop()
                    server = Server(args.cnxsim, args.broker_version, conf, os.path.join(work, f"serve-after-{test}.log"),
                                    args.tls_auth)
                    server_box[0] = server
                status, _ = http("POST", "cnxsim/reset")
                if status != 200:
                    server_problem = f"POST /cnxsim/reset answered {status} before {test}"
                set_up()
                t0 = time.monotonic()
                timeout = max(args.test_timeout, LONG_TESTS.get(test, 0))
                outcome, lines = run_one(binary, os.path.join(src, "pulsar"), test, timeout, log)
                seconds = round(time.monotonic() - t0, 1)
                detail = first_failure(lines) if outcome not in ("passed", "skipped") else ""
                cls, reason = classify(name, test, outcome, detail)
                results.append({"file": name, "test": test, "outcome": outcome, "class": cls, "reason": reason,
                                "detail": detail, "seconds": seconds})
                print(f"{outcome:8} {seconds:6.1f}s {name} {test}" + (f"  [{cls}] {detail[:120]}" if detail else ""),
                      flush=True)
    return server_problem


def summarise(results):
    files = {}
    for r in results:
        f = files.setdefault(r["file"], {"tests": 0, "passed": 0, "skipped": 0, "failed": 0, "not run": 0})
        f["tests"] += 1
        key = r["outcome"] if r["outcome"] in ("passed", "skipped", "not run") else "failed"
        f[key] += 1
    return files


def markdown(report):
    out = [f"Go client {report['version']} against cnxsim serve (Pulsar {report['release']} behaviour), "
           f"{report['seconds']} s (test binary built in {report['build_seconds']} s); the suite's TLS and "
           f"authentication settings {'on' if report.get('tls_auth') else 'off'}.", ""]
    out += ["| file | tests | passed | skipped | failed | not run | pass rate |", "|---|---:|---:|---:|---:|---:|---:|"]
    total = {"tests": 0, "passed": 0, "skipped": 0, "failed": 0, "not run": 0}
    for name, f in sorted(report["files"].items()):
        ran = f["tests"] - f["skipped"] - f["not run"]
        rate = f"{100 * f['passed'] / ran:.0f} %" if ran else "-"
        out.append(f"| {name} | {f['tests']} | {f['passed']} | {f['skipped']} | {f['failed']} | {f['not run']} | {rate} |")
        for k in total:
            total[k] += f[k]
    ran = total["tests"] - total["skipped"] - total["not run"]
    rate = f"{100 * total['passed'] / ran:.0f} %" if ran else "-"
    out.append(f"| **all** | {total['tests']} | {total['passed']} | {total['skipped']} | {total['failed']} | "
               f"{total['not run']} | {rate} |")
    counts = {}
    for r in report["results"]:
        if r["outcome"] not in ("passed", "skipped"):
            counts[r["class"]] = counts.get(r["class"], 0) + 1
    out += ["", "Failures by class: " + ", ".join(f"{CLASSES.get(k, k)}: {v}" for k, v in sorted(counts.items())), ""]
    not_run = {}
    for r in report["results"]:
        if r["outcome"] == "not run" and r["class"] == "tls-auth":
            not_run.setdefault(r["file"], []).append(r["test"])
    if not_run:
        out += ["Not run, TLS or authentication (issue 44): " +
                "; ".join(f"{f}: {', '.join(tests)}" for f, tests in sorted(not_run.items())), ""]
    out += ["| test | outcome | class | why | first failure line |", "|---|---|---|---|---|"]
    for r in report["results"]:
        if r["outcome"] in ("passed", "skipped") or (r["outcome"] == "not run" and r["class"] == "tls-auth"):
            continue
        detail = r["detail"].replace("|", "\\|").replace("\n", " ")[:160]
        out.append(f"| {r['file']}: {r['test']} | {r['outcome']} | {r['class']} | {r['reason']} | {detail} |")
    if report["setup_refused"]:
        out += ["", "Set-up requests serve refused: " + "; ".join(report["setup_refused"])]
    if report["server"]:
        out += ["", f"serve: {report['server']}"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main(sys.argv))
