"""Fake agent that reports its working directory and one environment variable.

Usage: print_env.py NAME

Writes two stdout lines, os.getcwd() and the value of NAME (or "<unset>"), then
waits for end of input and exits 0.
"""

from __future__ import annotations

import os
import sys


def main() -> int:
    sys.stdout.write(os.getcwd() + "\n")
    sys.stdout.write(os.environ.get(sys.argv[1], "<unset>") + "\n")
    sys.stdout.flush()
    for _ in sys.stdin.buffer:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
