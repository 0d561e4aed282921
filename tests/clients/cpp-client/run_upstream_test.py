#!/usr/bin/env python3
"""Runs one of the official C++ client's own gtest programs against a fresh `cnxsim serve`.

usage: run_upstream_test.py CNXSIM PRELOAD [--serve-arg ARG ...] [--timeout S] -- PROGRAM [ARG ...]

The client's tests hard-code pulsar://localhost:6650 and http://localhost:8080.
This starts `CNXSIM serve --port 0 --admin-port 0 [serve args]` (free ports, so
parallel runs never collide), reads both ports from its ready line
(`ready: pulsar://H:P (...), admin http://H:A`) and runs PROGRAM with PRELOAD
(the loopback_port_map library) in LD_PRELOAD and CNXSIM_PORT_MAP=6650=P,8080=A:
the test's connections to localhost:6650 and :8080 reach this server. Then it
stops the server with SIGTERM. Exits 0 only when PROGRAM exited 0 and the server
exited 0; on a failure prints the server's log (-v is passed). Every wait is
bounded (PROGRAM: --timeout, default 120 s).
"""
import os
import re
import select
import signal
import subprocess
import sys
import tempfile

READY = re.compile(r"^ready: pulsar://([^:/\s]+):(\d+) \(.*\), admin http://([^:/\s]+):(\d+)")


def parse(argv):
    if "--" not in argv or len(argv) < 5:
        return None
    split = argv.index("--")
    cnxsim, preload = argv[1], argv[2]
    serve_args, timeout = [], 120.0
    rest = argv[3:split]
    while rest:
        if rest[0] == "--serve-arg" and len(rest) >= 2:
            serve_args.append(rest[1])
        elif rest[0] == "--timeout" and len(rest) >= 2:
            timeout = float(rest[1])
        else:
            print(f"unexpected argument {rest[0]!r}", file=sys.stderr)
            return None
        rest = rest[2:]
    program = argv[split + 1:]
    return (cnxsim, preload, serve_args, timeout, program) if program else None


def server_log(log):
    log.flush()
    log.seek(0)
    return log.read()


def main(argv):
    parsed = parse(argv)
    if parsed is None:
        print(__doc__, file=sys.stderr)
        return 2
    cnxsim, preload, serve_args, timeout, program = parsed
    if not os.path.isfile(preload):
        print(f"{preload}: no such file (the loopback_port_map library)", file=sys.stderr)
        return 2

    # The server's log goes to a file: a pipe nobody reads while the test runs
    # would fill and stall the server.
    log = tempfile.TemporaryFile(mode="w+")
    server = subprocess.Popen([cnxsim, "serve", "--port", "0", "--admin-port", "0", "-v", *serve_args],
                              stdout=subprocess.PIPE, stderr=log, text=True)
    client = None
    try:
        ready, _, _ = select.select([server.stdout], [], [], 15)
        line = server.stdout.readline() if ready else ""
        m = READY.match(line)
        if not m:
            server.kill()
            out, _ = server.communicate(timeout=5)
            print(f"cnxsim serve did not print its ready line; got {line!r}\n{out}{server_log(log)}", file=sys.stderr)
            return 1
        port, admin_port = m.group(2), m.group(4)
        env = dict(os.environ)
        env["LD_PRELOAD"] = preload + (":" + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
        env["CNXSIM_PORT_MAP"] = f"6650={port},8080={admin_port}"
        print(f"cnxsim serve: {line.strip()}; localhost:6650 -> {port}, localhost:8080 -> {admin_port}", flush=True)
        try:
            client = subprocess.run(program, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            print(f"{out}\n{' '.join(program)}: no exit within {timeout:g} s; server log:\n{server_log(log)}", file=sys.stderr)
            return 1
        except OSError as e:
            print(f"{program[0]}: cannot run: {e.strerror}", file=sys.stderr)
            return 1
        sys.stdout.write(client.stdout)
        sys.stderr.write(client.stderr)
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
    try:
        out, _ = server.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        print("cnxsim serve did not exit within 10 s of SIGTERM", file=sys.stderr)
        return 1
    if server.returncode != 0:
        print(f"cnxsim serve exited {server.returncode} after SIGTERM\n{out}{server_log(log)}", file=sys.stderr)
        return 1
    if client.returncode != 0:
        print(f"{program[0]} exited {client.returncode}; server log:\n{server_log(log)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
