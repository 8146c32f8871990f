"""Fake agent that dies at once, without reading stdin.

Usage: exit_with.py code N | exit_with.py signal NAME

Writes "starting" and then "fatal: boom" (the latter without a newline) to stderr,
then exits with code N or kills itself with signal NAME (e.g. SIGKILL).
"""

from __future__ import annotations

import os
import signal
import sys


def main() -> int:
    kind, value = sys.argv[1], sys.argv[2]
    sys.stderr.write("starting\nfatal: boom")
    sys.stderr.flush()
    if kind == "signal":
        os.kill(os.getpid(), signal.Signals[value])
    return int(value)


if __name__ == "__main__":
    sys.exit(main())
