#!/usr/bin/env python3
"""Records a real session and replays it (issue 11's acceptance tests).

usage: record_session.py CNXSIM NODE PULSAR_FLEX_DIR WORKDIR [--through-proxy]
                         [--client-program PROGRAM]

Starts `CNXSIM serve --port 0 --admin-port 0 --record WORKDIR/serve.yaml`,
waits until GET /admin/v2/clusters answers, then drives a small session with
curl and the pulsar-flex client (a schema-less producer and a Shared
consumer): create a tenant and a namespace, set its compatibility strategy,
upload a schema, produce and consume on that topic, test a compatible
schema, delete the schema and the topic. It stops the server with SIGTERM
and requires `CNXSIM run --strict` on the recording to pass.

With --through-proxy every call goes through `CNXSIM record` in front of the
server (`-o WORKDIR/proxy.yaml`), after a peer sending an oversized frame has
been closed by the proxy; the proxy's recording must pass too, and
its steps (everything after `steps:`) must equal the server's own recording.
With --client-program the session is PROGRAM's instead: it is run as
`PROGRAM pulsar://HOST:PORT http://ADMIN-HOST:PORT` and must exit 0.
Every wait is bounded; exit 0 only when all of that held.
"""
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import time

SERVE_READY = re.compile(r"^ready: pulsar://(\S+) \(.*?\), admin (http://[^\s,]+)")
RECORD_READY = re.compile(r"^ready: pulsar://(\S+) -> \S+, admin (http://\S+) -> ")

ORDER_V1 = {"type": "record", "name": "Order", "namespace": "shop",
            "fields": [{"name": "id", "type": "long"}]}
ORDER_V2 = {"type": "record", "name": "Order", "namespace": "shop",
            "fields": [{"name": "id", "type": "long"},
                       {"name": "note", "type": ["null", "string"], "default": None}]}


def fail(text):
    print(text, file=sys.stderr)
    sys.exit(1)


def start(args, ready, what):
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    readable, _, _ = select.select([proc.stdout], [], [], 15)
    line = proc.stdout.readline() if readable else ""
    m = ready.match(line)
    if not m:
        proc.kill()
        out, err = proc.communicate(timeout=5)
        fail(f"{what} did not print its ready line; got {line!r}\n{out}{err}")
    return proc, m.group(1), m.group(2)


def stop(proc, what):
    # One SIGTERM only: a second one may land after the process has torn its
    # handler down on its way out, and kill it (exit -15).
    if not getattr(proc, "signalled", False):
        proc.send_signal(signal.SIGTERM)
        proc.signalled = True
    try:
        out, err = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        fail(f"{what} did not exit within 15 s of SIGTERM")
    if proc.returncode != 0:
        fail(f"{what} exited {proc.returncode} after SIGTERM\n{out}{err}")


def curl(method, url, body=None):
    """The status and body of one call, as curl reports them."""
    args = ["curl", "-sS", "-m", "10", "-X", method, "-o", "-", "-w", "\n%{http_code}", url]
    if body is not None:
        args[1:1] = ["-H", "Content-Type: application/json", "--data-binary", body]
    done = subprocess.run(args, capture_output=True, text=True, timeout=20)
    if done.returncode != 0:
        return 0, done.stderr
    text, _, status = done.stdout.rpartition("\n")
    return int(status), text


def wait_for_clusters(admin):
    deadline = time.time() + 15
    while time.time() < deadline:
        status, body = curl("GET", admin + "/admin/v2/clusters")
        if status == 200 and "standalone" in body:
            return
        time.sleep(0.2)
    fail(f"GET {admin}/admin/v2/clusters did not answer 200 within 15 s")


def call(admin, method, path, body):
    """One admin call that must succeed (2xx: the status itself differs between releases)."""
    status, text = curl(method, admin + path, body)
    if status // 100 != 2:
        fail(f"{method} {path}: HTTP {status} {text!r}, expected a 2xx answer")


def session(node, flex_dir, hostport, admin):
    schema = lambda s: json.dumps({"type": "AVRO", "schema": json.dumps(s), "properties": {"owner": "shop"}})
    call(admin, "PUT", "/admin/v2/tenants/acme", json.dumps({"allowedClusters": ["standalone"]}))
    call(admin, "PUT", "/admin/v2/namespaces/acme/shop", None)
    call(admin, "PUT", "/admin/v2/namespaces/acme/shop/schemaCompatibilityStrategy", '"BACKWARD"')
    call(admin, "POST", "/admin/v2/schemas/acme/shop/orders/schema", schema(ORDER_V1))
    client = subprocess.run([node, os.path.join(flex_dir, "roundtrip.js"), hostport,
                             "persistent://acme/shop/orders", "5"], capture_output=True, text=True, timeout=60)
    if client.returncode != 0:
        fail(f"pulsar-flex roundtrip exited {client.returncode}\n{client.stdout}{client.stderr}")
    call(admin, "POST", "/admin/v2/schemas/acme/shop/orders/compatibility", schema(ORDER_V2))
    call(admin, "GET", "/admin/v2/schemas/acme/shop/orders/schema", None)
    call(admin, "DELETE", "/admin/v2/schemas/acme/shop/orders/schema", None)
    call(admin, "DELETE", "/admin/v2/persistent/acme/shop/orders?force=true", None)


def bad_peer(hostport):
    """A peer declaring a frame over the size limit is closed, and only it (the session then runs)."""
    host, _, port = hostport.rpartition(":")
    with socket.create_connection((host, int(port)), timeout=5) as peer:
        peer.sendall(b"\xff\xff\xff\xff" + b"x" * 64)
        try:
            if peer.recv(1) != b"":
                fail("the proxy answered a malformed frame instead of closing the connection")
        except ConnectionResetError:
            pass
        except socket.timeout:
            fail("the proxy kept a peer that declared an oversized frame open for 5 s")


def replay(cnxsim, path):
    done = subprocess.run([cnxsim, "run", "--strict", path], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        fail(f"cnxsim run --strict {path} exited {done.returncode}\n{done.stdout}{done.stderr}\n"
             f"--- {path}\n{open(path).read()}")
    print(done.stdout, end="")


def steps_of(path):
    text = open(path).read()
    return text[text.index("\nsteps:\n"):]


def program_session(program, hostport, admin):
    done = subprocess.run([program, "pulsar://" + hostport, admin], capture_output=True, text=True, timeout=90)
    print(done.stdout, end="")
    if done.returncode != 0:
        fail(f"{program} exited {done.returncode}\n{done.stdout}{done.stderr}")


def main(argv):
    options, program = argv[5:], None
    if "--client-program" in options:
        at = options.index("--client-program")
        if at + 1 >= len(options):
            print(__doc__, file=sys.stderr)
            return 2
        program = options[at + 1]
        del options[at:at + 2]
    if len(argv) < 5 or options not in ([], ["--through-proxy"]):
        print(__doc__, file=sys.stderr)
        return 2
    cnxsim, node, flex_dir, workdir = argv[1:5]
    through_proxy = options == ["--through-proxy"]
    os.makedirs(workdir, exist_ok=True)
    serve_file = os.path.join(workdir, "serve.yaml")
    proxy_file = os.path.join(workdir, "proxy.yaml")
    for f in (serve_file, proxy_file):
        if os.path.exists(f):
            os.remove(f)
    server, hostport, admin = start([cnxsim, "serve", "--port", "0", "--admin-port", "0", "--record", serve_file],
                                    SERVE_READY, "cnxsim serve")
    proxy = None
    try:
        wait_for_clusters(admin)
        if through_proxy:
            proxy, hostport, admin = start([cnxsim, "record", "--listen", "127.0.0.1:0", "--upstream", hostport,
                                            "--admin-upstream", admin, "-o", proxy_file],
                                           RECORD_READY, "cnxsim record")
            wait_for_clusters(admin)
            bad_peer(hostport)
        if program:
            program_session(program, hostport, admin)
        else:
            session(node, flex_dir, hostport, admin)
    finally:
        for proc in (proxy, server):
            if proc and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                proc.signalled = True
    if proxy:
        stop(proxy, "cnxsim record")
    stop(server, "cnxsim serve")
    replay(cnxsim, serve_file)
    if through_proxy:
        replay(cnxsim, proxy_file)
        if steps_of(serve_file) != steps_of(proxy_file):
            fail(f"the proxy's recording differs from serve's:\n--- serve\n{open(serve_file).read()}"
                 f"--- proxy\n{open(proxy_file).read()}")
        print("the proxy recorded the same steps and outcomes as serve")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
