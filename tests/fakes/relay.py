"""Relay stdio to a Unix socket, so a test can play the agent over a real process.

Usage: `python tests/fakes/relay.py SOCKET_PATH`. Bytes from stdin go to the socket
and bytes from the socket go to stdout, unchanged and unbuffered. When stdin ends,
the socket's write side is shut; when the socket ends, stdout is closed and the
relay exits. Imports nothing from acp_tui.
"""

from __future__ import annotations

import os
import socket
import sys
import threading

CHUNK = 1 << 20


def pump_stdin(sock: socket.socket) -> None:
    while data := os.read(0, CHUNK):
        sock.sendall(data)
    sock.shutdown(socket.SHUT_WR)


def main() -> None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(sys.argv[1])
    threading.Thread(target=pump_stdin, args=(sock,), daemon=True).start()
    try:
        while data := sock.recv(CHUNK):
            view = memoryview(data)
            while view:
                view = view[os.write(1, view) :]
    except (BrokenPipeError, ConnectionResetError):
        pass
    os.close(1)


if __name__ == "__main__":
    main()
