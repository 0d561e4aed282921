"""Starting and stopping one `cnxsim serve`, without pytest (plugin.py adds the fixtures).

`serve(...)` starts `cnxsim serve --port 0 --admin-port 0 [--broker-version V]
[--set K=V ...] [--setup FILE] [ARGS ...]`, waits for its ready line

    ready: pulsar://H:P (Pulsar 4.2.x behaviour), admin http://H:Q, pulsar+ssl://H:R, admin https://H:S

(read by scheme, never by position: absent listeners are left out) and
returns a CnxsimServer. Every wait is bounded; every failure is a CnxsimError
whose message says what to do.
"""
import json
import os
import re
import select
import shutil
import signal
import ssl
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from contextlib import contextmanager

__all__ = ["CnxsimError", "CnxsimServer", "find_binary", "parse_ready_line", "serve", "start"]

DEFAULT_READY_TIMEOUT = 30.0   # seconds; a sanitizer build starts in about 1 s
DEFAULT_STOP_TIMEOUT = 10.0
_INSTALL_HINT = ("install it from the .deb or the release tarball, or use the container image "
                 "(testkit/python/README.md, 'Getting the binary')")


class CnxsimError(Exception):
    """cnxsim could not be found, started, asked or stopped: the message says why."""


def find_binary(explicit=None, environ=None):
    """The cnxsim executable: EXPLICIT (--cnxsim-binary), else $CNXSIM, else `cnxsim` on PATH."""
    environ = os.environ if environ is None else environ
    if explicit:
        path, origin = os.fspath(explicit), "--cnxsim-binary"
    elif environ.get("CNXSIM"):
        path, origin = environ["CNXSIM"], "the CNXSIM environment variable"
    else:
        found = shutil.which("cnxsim", path=environ.get("PATH"))
        if not found:
            raise CnxsimError("cnxsim binary not found: set CNXSIM=/path/to/cnxsim, pass --cnxsim-binary, "
                              f"or put cnxsim on PATH ({_INSTALL_HINT})")
        return found
    if not os.path.exists(path):
        raise CnxsimError(f"cnxsim binary {path!r} (from {origin}) does not exist ({_INSTALL_HINT})")
    if os.path.isdir(path) or not os.access(path, os.X_OK):
        raise CnxsimError(f"cnxsim binary {path!r} (from {origin}) is not an executable file")
    return path


_URL = {
    "service_url": re.compile(r"(?<![\w+])(pulsar://[^\s,]+)"),
    "service_url_tls": re.compile(r"(pulsar\+ssl://[^\s,]+)"),
    "admin_url": re.compile(r"(http://[^\s,]+)"),
    "admin_url_tls": re.compile(r"(https://[^\s,]+)"),
}
_RELEASE = re.compile(r"\(Pulsar (\S+) behaviour\)")


def parse_ready_line(line):
    """The URLs and release of a ready line, as a dict (absent listeners: None); None if not one."""
    if not line.startswith("ready: "):
        return None
    found = {key: (m.group(1) if (m := rx.search(line)) else None) for key, rx in _URL.items()}
    if not (found["service_url"] or found["service_url_tls"]):
        return None
    release = _RELEASE.search(line)
    found["version"] = release.group(1) if release else None
    return found


class _Drain(threading.Thread):
    """Reads a pipe to its end so serve never blocks on it; keeps the last LIMIT bytes."""
    LIMIT = 64 * 1024

    def __init__(self, stream, initial=b""):
        super().__init__(daemon=True)
        self.stream, self.data = stream, bytearray(initial[-self.LIMIT:])

    def run(self):
        for chunk in iter(lambda: self.stream.read1(65536) if hasattr(self.stream, "read1")
                          else self.stream.read(65536), b""):
            self.data += chunk
            del self.data[:-self.LIMIT]

    def text(self):
        return bytes(self.data).decode("utf-8", "replace")


class CnxsimServer:
    """One running `cnxsim serve`.

    service_url / admin_url: the plain listeners (None when turned off);
    service_url_tls / admin_url_tls: the TLS ones (None unless asked for);
    version: the release served ("4.2.x"), updated by upgrade().
    token / trust_certs: the admin token and CA file the helper calls use
    (restart, upgrade, status, admin) when authentication or TLS is on.
    """

    def __init__(self, process, command, urls, token=None, trust_certs=None, stop_timeout=DEFAULT_STOP_TIMEOUT,
                 stdout=b"", stderr=b""):
        self.process, self.command = process, command
        self.service_url, self.admin_url = urls["service_url"], urls["admin_url"]
        self.service_url_tls, self.admin_url_tls = urls["service_url_tls"], urls["admin_url_tls"]
        self.version = urls["version"]
        self.token, self.trust_certs, self.stop_timeout = token, trust_certs, stop_timeout
        self.exit_status = None
        self._out, self._err = _Drain(process.stdout, stdout), _Drain(process.stderr, stderr)
        self._out.start()
        self._err.start()

    def __repr__(self):
        return f"<CnxsimServer {self.service_url or self.service_url_tls} Pulsar {self.version}>"

    @property
    def stderr(self):
        """What serve wrote on stderr so far (the last 64 KiB)."""
        return self._err.text()

    # --- the admin API -----------------------------------------------------
    def admin(self, method, path, body=None, headers=None, timeout=15):
        """One admin call on this server: (status, body text). HTTP errors are answers, not exceptions."""
        base = self.admin_url or self.admin_url_tls
        if base is None:
            raise CnxsimError("this cnxsim serve has no admin listener (--admin-port none)")
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        all_headers = {"Content-Type": "application/json"}
        if self.token:
            all_headers["Authorization"] = f"Bearer {self.token}"
        all_headers.update(headers or {})
        request = urllib.request.Request(base + path, data=data, method=method, headers=all_headers)
        context = None
        if base.startswith("https://"):
            context = ssl.create_default_context(cafile=self.trust_certs)
        try:
            with urllib.request.urlopen(request, timeout=timeout, context=context) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()
        except (urllib.error.URLError, OSError) as e:
            raise CnxsimError(f"{method} {base}{path}: {e} (is cnxsim serve still running?{self._exited()})") from e

    def _cnxsim_call(self, method, path):
        status, text = self.admin(method, path)
        if not 200 <= status < 300:
            raise CnxsimError(f"{method} {path}: HTTP {status} {text}")
        return json.loads(text) if text.strip().startswith("{") else text

    def status(self):
        """GET /cnxsim/status as a dict (release, profile, serviceUrl, connections, loadedTopics)."""
        return self._cnxsim_call("GET", "/cnxsim/status")

    def restart(self):
        """POST /cnxsim/restart: the broker restarts on the same release under the connected clients."""
        self._cnxsim_call("POST", "/cnxsim/restart")
        return self

    def upgrade(self, version):
        """POST /cnxsim/upgrade?version=V: restarts on release V; self.version follows."""
        self._cnxsim_call("POST", "/cnxsim/upgrade?" + urllib.parse.urlencode({"version": str(version)}))
        release = self.status().get("release")
        self.version = release or str(version)
        return self

    # --- stopping ------------------------------------------------------------
    def _exited(self):
        code = self.process.poll()
        return "" if code is None else f" it exited with status {code}: {self.stderr.strip()[-2000:]}"

    def stop(self, check=True):
        """SIGTERM, at most stop_timeout seconds, then SIGKILL. With CHECK, an exit status other
        than 0 (serve's status when stopped by a signal) raises CnxsimError with its stderr."""
        if self.exit_status is not None:
            return self.exit_status
        killed = False
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=self.stop_timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
                killed = True
        self._out.join(timeout=5)
        self._err.join(timeout=5)
        self.exit_status = self.process.returncode
        if check and killed:
            raise CnxsimError(f"cnxsim serve did not exit within {self.stop_timeout:g} s of SIGTERM: killed\n"
                              f"{self.stderr.strip()[-4000:]}")
        if check and self.exit_status != 0:
            raise CnxsimError(f"cnxsim serve exited with status {self.exit_status} when stopped\n"
                              f"{self.stderr.strip()[-4000:]}")
        return self.exit_status

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop(check=exc[0] is None)


def _given(args, option):
    return any(a == option or a.startswith(option + "=") for a in args)


def _command(binary, version, settings, setup, args, ports):
    args = [os.fspath(a) for a in (args or ())]
    command = [binary, "serve"]
    for option in ("--port", "--admin-port"):  # free ports unless ARGS choose (e.g. `--port none`)
        if ports and not _given(args, option):
            command += [option, "0"]
    if version is not None:
        command += ["--broker-version", str(version)]
    for key, value in (settings or {}).items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        command += ["--set", f"{key}={value}"]
    if setup is not None:
        command += ["--setup", os.fspath(setup)]
    return command + args


def start(binary=None, version=None, settings=None, setup=None, args=(), token=None, trust_certs=None,
          ready_timeout=DEFAULT_READY_TIMEOUT, stop_timeout=DEFAULT_STOP_TIMEOUT, env=None, free_ports=True):
    """Starts `cnxsim serve` and returns the CnxsimServer once its ready line is read.

    binary: the executable (default: find_binary()); version: --broker-version;
    settings: {broker.conf key: value} as --set; setup: a --setup file; args:
    more serve arguments (e.g. ["--tls-port", "0"]); token / trust_certs: for the
    helper's own admin calls when authentication / TLS is on; free_ports: add
    --port 0 and --admin-port 0 where ARGS do not give --port / --admin-port
    themselves (`--port none` turns the plain listener off).
    """
    binary = find_binary(binary)
    command = _command(binary, version, settings, setup, args, free_ports)
    try:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, env=env)
    except OSError as e:
        raise CnxsimError(f"cannot start {binary}: {e}") from e
    out, err = bytearray(), bytearray()
    deadline = time.monotonic() + ready_timeout
    line = None
    open_streams = [process.stdout, process.stderr]
    try:
        while line is None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CnxsimError(f"cnxsim serve printed no ready line within {ready_timeout:g} s\n"
                                  f"command: {' '.join(command)}\nstdout: {bytes(out).decode(errors='replace')}"
                                  f"\nstderr: {bytes(err).decode(errors='replace')[-4000:]}")
            if process.stdout not in open_streams:  # stdout closed without a full line: serve is gone
                try:
                    process.wait(timeout=min(left, 5))
                except subprocess.TimeoutExpired:
                    continue
                if process.stderr in open_streams:
                    err.extend(process.stderr.read())
                raise CnxsimError(f"cnxsim serve exited with status {process.returncode} before its ready line\n"
                                  f"command: {' '.join(command)}\n"
                                  f"{bytes(err).decode(errors='replace').strip()[-4000:]}")
            readable, _, _ = select.select(open_streams, [], [], min(left, 0.5))
            for stream in readable:
                chunk = os.read(stream.fileno(), 65536)
                if not chunk:
                    open_streams.remove(stream)
                    continue
                (out if stream is process.stdout else err).extend(chunk)
                del err[:-_Drain.LIMIT]
            if b"\n" in out:
                first, _, rest = bytes(out).partition(b"\n")
                line = first.decode("utf-8", "replace")
                out = bytearray(rest)
        urls = parse_ready_line(line)
        if urls is None:
            raise CnxsimError(f"cnxsim serve's first line is not a ready line: {line!r}\n"
                              f"command: {' '.join(command)}\n{bytes(err).decode(errors='replace')[-4000:]}")
    except BaseException:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)
        process.stdout.close()
        process.stderr.close()
        raise
    return CnxsimServer(process, command, urls, token=token, trust_certs=trust_certs, stop_timeout=stop_timeout,
                        stdout=bytes(out), stderr=bytes(err))


@contextmanager
def serve(**options):
    """`with serve(version="3.0") as server:` start(**options), stopped (and checked) on exit."""
    server = start(**options)
    try:
        yield server
    except BaseException:
        server.stop(check=False)
        raise
    server.stop()
