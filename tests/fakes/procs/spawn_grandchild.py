"""Fake agent that spawns a grandchild, like npx does, and reports its pid.

Usage: spawn_grandchild.py hang | spawn_grandchild.py exit-on-eof

The grandchild ignores SIGTERM, inherits our stderr (so the stderr pipe stays open
while it lives) and sleeps forever. Once it is ready, this process writes its pid as
one stdout line, then either sleeps forever without reading stdin (`hang`: SIGTERM
kills it) or exits 0 at end of input, orphaning the grandchild (`exit-on-eof`).
"""

from __future__ import annotations

import signal
import subprocess
import sys

GRANDCHILD = """
import signal, sys
signal.signal(signal.SIGTERM, signal.SIG_IGN)
sys.stdout.write("ready\\n")
sys.stdout.flush()
sys.stdout.close()
while True:
    signal.pause()
"""


def main() -> int:
    mode = sys.argv[1]
    child = subprocess.Popen(
        [sys.executable, "-c", GRANDCHILD],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
    )
    assert child.stdout is not None
    if child.stdout.readline() != b"ready\n":
        return 2
    sys.stdout.write(f"{child.pid}\n")
    sys.stdout.flush()
    if mode == "hang":
        while True:
            signal.pause()
    for _ in sys.stdin.buffer:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
