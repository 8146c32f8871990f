"""Fake agent: echo every stdin line back on stdout; exit 0 at end of input.

Usage: echo.py [STDERR_TEXT]   (STDERR_TEXT, if given, is written to stderr first)
"""

from __future__ import annotations

import sys


def main() -> int:
    if len(sys.argv) > 1:
        sys.stderr.write(sys.argv[1] + "\n")
        sys.stderr.flush()
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        out.write(line)
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
