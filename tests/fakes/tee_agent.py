"""Run a real agent, recording every line the client writes to its stdin.

Usage: `python tests/fakes/tee_agent.py RECORD_FILE -- AGENT ARGV...`. stdout and
stderr pass straight through (the child inherits them); stdin is read line by line,
appended to RECORD_FILE, then forwarded. Interop tests use it to show what a real
agent was sent. Imports nothing from acp_tui.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys


def main() -> int:
    record, separator, *argv = sys.argv[1:]
    assert separator == "--", "usage: tee_agent.py RECORD -- ARGV..."
    child = subprocess.Popen(argv, stdin=subprocess.PIPE)
    assert child.stdin is not None
    with open(record, "ab") as log:
        try:
            for line in sys.stdin.buffer:
                log.write(line)
                log.flush()
                child.stdin.write(line)
                child.stdin.flush()
        except BrokenPipeError:
            pass
        finally:
            with contextlib.suppress(BrokenPipeError):
                child.stdin.close()
    return child.wait()


if __name__ == "__main__":
    sys.exit(main())
