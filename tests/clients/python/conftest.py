"""Fixtures of the Python client suite: a `cnxsim serve` per test module.

CNXSIM (set by ctest) names the cnxsim binary. Each fixture starts
`cnxsim serve --port 0` (free ports, 127.0.0.1), reads its ready line
(`ready: pulsar://HOST:PORT (Pulsar X behaviour), admin http://HOST:PORT`)
and stops it with SIGTERM afterwards; every wait is bounded.

PULSAR_SERVICE_URL and PULSAR_ADMIN_URL (both set) point the tests at a broker
that is already running instead (a real one from tests/oracle/run-broker, to
check what a real broker answers); CNXSIM is then not needed.
"""
import json
import logging
import os
import re
import select
import signal
import subprocess
import urllib.error
import urllib.request
import uuid

import pytest

READY = re.compile(r"^ready: (pulsar://\S+) \(Pulsar (\S+) behaviour\), admin (http://[^\s,]+)(?:, .*)?$")


class Broker:
    """A broker the tests talk to: its service URL, admin URL and release."""

    def __init__(self, url, admin, release, process=None):
        self.url, self.admin, self.release, self.process = url, admin, release, process

    def http(self, method, path, body=None):
        """One admin call: returns (status, body text). Errors are answers, not exceptions."""
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        request = urllib.request.Request(self.admin + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=15) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def json(self, method, path, body=None):
        status, text = self.http(method, path, body)
        assert 200 <= status < 300, f"{method} {path}: {status} {text}"
        return json.loads(text) if text else None

    def stop(self):
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            _, err = self.process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.communicate(timeout=5)
            pytest.fail("cnxsim serve did not exit within 10 s of SIGTERM")
        assert self.process.returncode == 0, f"cnxsim serve exited {self.process.returncode}:\n{err}"


def start_serve(*serve_args):
    """Starts `cnxsim serve --port 0 SERVE_ARGS` and returns its Broker once ready."""
    cnxsim = os.environ.get("CNXSIM")
    if not cnxsim:
        pytest.fail("CNXSIM (the cnxsim binary) is not set; ctest sets it")
    process = subprocess.Popen([cnxsim, "serve", "--port", "0", *serve_args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready, _, _ = select.select([process.stdout], [], [], 15)
    line = process.stdout.readline().rstrip("\n") if ready else ""
    m = READY.match(line)
    if not m:
        process.kill()
        out, err = process.communicate(timeout=5)
        pytest.fail(f"cnxsim serve did not print its ready line; got {line!r}\n{out}{err}")
    return Broker(m.group(1), m.group(3), m.group(2), process)


def external_broker():
    url, admin = os.environ.get("PULSAR_SERVICE_URL"), os.environ.get("PULSAR_ADMIN_URL")
    if not (url and admin):
        return None
    broker = Broker(url, admin.rstrip("/"), None)
    status, text = broker.http("GET", "/admin/v2/brokers/version")
    broker.release = text.strip() if status == 200 else "unknown"
    return broker


@pytest.fixture(scope="module")
def broker():
    """A broker for the module: an external one if asked, else a fresh `cnxsim serve`."""
    external = external_broker()
    if external:
        yield external
        return
    served = start_serve()
    yield served
    served.stop()


@pytest.fixture
def serve_factory():
    """Starts servers with given options (a broker version...), stops them after the test."""
    started = []

    def start(*args):
        if external_broker():
            pytest.skip("needs its own cnxsim serve (PULSAR_SERVICE_URL points at an external broker)")
        started.append(start_serve(*args))
        return started[-1]
    yield start
    for served in started:
        served.stop()


class ClientLog(logging.Handler):
    """The C++ core's log lines, as the client's `logger=` hands them to Python.

    The core keeps the logger of the first Client of the process for every later
    one, so there is one logger and one handler, emptied before each test."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []
        self.logger = logging.getLogger("pulsar-client")
        self.logger.setLevel(logging.INFO)
        self.logger.addHandler(self)

    def emit(self, record):
        self.lines.append(record.getMessage())

    def text(self):
        return "\n".join(self.lines)


CLIENT_LOG = ClientLog()


@pytest.fixture
def client_log():
    CLIENT_LOG.lines.clear()
    return CLIENT_LOG


@pytest.fixture
def client(broker, client_log):
    """A pulsar.Client on the module's broker, its log kept in client_log; closed after the test."""
    import pulsar
    c = pulsar.Client(broker.url, operation_timeout_seconds=10, logger=client_log.logger)
    yield c
    c.close()


@pytest.fixture
def topic(request):
    """A topic name of its own per test (the module's broker is shared)."""
    return f"py-{request.node.name.replace('[', '-').replace(']', '')}-{uuid.uuid4().hex[:8]}"


def version_bytes(n):
    """A schema version as the broker sends it: 8 bytes, big-endian."""
    return n.to_bytes(8, "big")
