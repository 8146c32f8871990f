"""Fake agent that ignores SIGTERM and end of input: only SIGKILL stops it.

Writes "ready" on stdout once SIGTERM is ignored, then sleeps forever without
reading stdin.
"""

from __future__ import annotations

import signal
import sys


def main() -> int:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        signal.pause()


if __name__ == "__main__":
    sys.exit(main())
