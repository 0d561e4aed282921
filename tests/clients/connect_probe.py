#!/usr/bin/env python3
"""Connects to a Pulsar service URL and completes the handshake.

usage: connect_probe.py pulsar://HOST:PORT

A stand-in for "your tests" in the ctest fixture example of the README: it
writes CONNECT (a BaseCommand encoded by hand, no Pulsar library) and expects
CONNECTED back within 5 s. Exit 0 when it does.
"""
import re
import socket
import struct
import sys


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, wire_type, payload):
    return varint(number << 3 | wire_type) + payload


def main(argv):
    m = re.match(r"^pulsar://([^:/]+):(\d+)$", argv[1] if len(argv) == 2 else "")
    if not m:
        print(__doc__, file=sys.stderr)
        return 2
    version = b"connect-probe"
    connect = field(1, 2, varint(len(version)) + version) + field(4, 0, varint(21))
    command = field(1, 0, varint(2)) + field(2, 2, varint(len(connect)) + connect)  # type CONNECT = 2
    frame = struct.pack(">II", len(command) + 4, len(command)) + command
    with socket.create_connection((m.group(1), int(m.group(2))), timeout=5) as s:
        s.sendall(frame)
        head = s.recv(8)
        if len(head) < 8:
            print("the server closed the connection", file=sys.stderr)
            return 1
        total, size = struct.unpack(">II", head)
        body = b""
        while len(body) < total - 4:
            chunk = s.recv(total - 4 - len(body))
            if not chunk:
                break
            body += chunk
    # BaseCommand field 1 (type), varint: CONNECTED = 3.
    if body[:2] != bytes([0x08, 0x03]):
        print(f"expected CONNECTED, got {body[:16]!r}", file=sys.stderr)
        return 1
    print(f"CONNECTED by {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
