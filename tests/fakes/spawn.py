"""Run a loopback test server (`python -m MODULE ARGS...`) in its own process.

The server prints `PORT n` once it listens (`tests/fakes/remote_server.py`,
`tests/fakes/h2_server.py`); `spawned` yields that port and the process id,
and terminates the process on leaving.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@contextmanager
def spawned(module: str, *args: str) -> Iterator[tuple[int, int]]:
    """`python -m MODULE ARGS...` from the repository; yields (port, pid)."""
    process = subprocess.Popen(
        [sys.executable, "-m", module, *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # bounded by the server's own start
        assert line.startswith("PORT "), line
        yield int(line.split()[1]), process.pid
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()
