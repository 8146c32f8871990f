"""Fake agent that writes one huge line, then its length and SHA-256, then waits.

Usage: big_line.py SIZE

Line 1: SIZE bytes of base64 text (no newline inside), generated and hashed 1 MiB at
a time so this process stays small. Line 2: "SIZE HEXDIGEST". Then it reads stdin to
end of input and exits 0.
"""

from __future__ import annotations

import base64
import hashlib
import random
import sys

BLOCK = 1024 * 1024


def main() -> int:
    size = int(sys.argv[1])
    out = sys.stdout.buffer
    block = base64.b64encode(random.Random(42).randbytes(BLOCK * 3 // 4))
    digest = hashlib.sha256()
    written = 0
    index = 0
    while written < size:
        chunk = (b"%08d" % index + block[8:])[: size - written]
        digest.update(chunk)
        out.write(chunk)
        written += len(chunk)
        index += 1
    out.write(b"\n")
    out.write(f"{size} {digest.hexdigest()}\n".encode())
    out.flush()
    for _ in sys.stdin.buffer:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
