#!/usr/bin/env python3
"""Runs a real client program against a fresh `cnxsim serve`.

usage: run_against_serve.py CNXSIM [--serve-arg ARG ...] -- PROGRAM [ARG ...]

Starts `CNXSIM serve --port 0 [serve args]`, waits for its ready line
(`ready: pulsar://HOST:PORT (...), admin http://HOST:PORT`), runs PROGRAM with
every `{hostport}`, `{url}` and `{admin}` (the admin URL) in its arguments replaced, then stops the server with SIGTERM. Exits 0
only when the program exited 0 and the server exited 0 after SIGTERM; prints
both outputs otherwise. Every wait is bounded, so a hung client or server
fails the test instead of hanging it.
"""
import re
import select
import signal
import subprocess
import sys

READY = re.compile(r"^ready: pulsar://([^:/\s]+):(\d+) \(.*?\), admin (http://[^\s,]+)(?:, .*)?$")


def main(argv):
    if "--" not in argv or len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    split = argv.index("--")
    cnxsim, serve_args = argv[1], []
    rest = argv[2:split]
    while rest:
        if rest[0] != "--serve-arg" or len(rest) < 2:
            print(f"unexpected argument {rest[0]!r}", file=sys.stderr)
            return 2
        serve_args.append(rest[1])
        rest = rest[2:]
    program = argv[split + 1:]

    server = subprocess.Popen([cnxsim, "serve", "--port", "0", *serve_args],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([server.stdout], [], [], 15)
        line = server.stdout.readline() if ready else ""
        m = READY.match(line.rstrip("\n"))
        if not m:
            server.kill()
            out, err = server.communicate(timeout=5)
            print(f"cnxsim serve did not print its ready line; got {line!r}\n{out}{err}", file=sys.stderr)
            return 1
        hostport = f"{m.group(1)}:{m.group(2)}"
        args = [a.replace("{hostport}", hostport).replace("{url}", f"pulsar://{hostport}").replace("{admin}", m.group(3))
                for a in program]
        try:
            client = subprocess.run(args, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            print(f"{' '.join(args)}: no exit within 60 s", file=sys.stderr)
            return 1
        except OSError as e:
            print(f"{args[0]}: cannot run: {e.strerror}", file=sys.stderr)
            return 1
        sys.stdout.write(client.stdout)
        sys.stderr.write(client.stderr)
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
    try:
        out, err = server.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        print("cnxsim serve did not exit within 10 s of SIGTERM", file=sys.stderr)
        return 1
    if server.returncode != 0:
        print(f"cnxsim serve exited {server.returncode} after SIGTERM\n{out}{err}", file=sys.stderr)
        return 1
    if client.returncode != 0:
        print(f"client exited {client.returncode}; server log:\n{err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
