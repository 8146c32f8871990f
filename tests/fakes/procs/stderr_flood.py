"""Fake agent that floods stderr, then says "done" on stdout and waits for EOF.

Usage: stderr_flood.py COUNT WIDTH

Line i (from 0) is `f"{i:08d} "` padded with "x" to WIDTH bytes including its
newline. If nobody drains stderr, the pipe fills and this process blocks before
"done" is ever written.
"""

from __future__ import annotations

import sys


def flood_line(index: int, width: int) -> bytes:
    head = b"%08d " % index
    return head + b"x" * (width - len(head) - 1) + b"\n"


def main() -> int:
    count, width = int(sys.argv[1]), int(sys.argv[2])
    err = sys.stderr.buffer
    batch: list[bytes] = []
    size = 0
    for index in range(count):
        line = flood_line(index, width)
        batch.append(line)
        size += len(line)
        if size >= 256 * 1024:
            err.write(b"".join(batch))
            batch, size = [], 0
    err.write(b"".join(batch))
    err.flush()
    sys.stdout.buffer.write(b"done\n")
    sys.stdout.buffer.flush()
    for _ in sys.stdin.buffer:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
