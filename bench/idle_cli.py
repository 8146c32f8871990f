"""Idle RSS of the real `acp-tui` process, with the demo agent connected.

`python -m acp_tui` (no `--agent`: the built-in demo) runs on a pseudo-terminal
of 120x40, as a user starts it, with its own `ACP_TUI_HOME` and working
directory. Its output is read (and thrown away) all along, so it never waits on
a full terminal. Once the status bar reads `idle` (the session is open and the
demo agent has answered `session/new`) it is left alone for `settle` seconds,
then the resident set size of the app's own process is read from
`/proc/PID/status` (the agent is a child process: not counted). Ctrl+Q quits it.

This measures the app as it runs, not a harness around it: the headless
`run_test` of the other long-session figures carries the benchmark's own
modules and Textual's pilot (about 1.5 MB more).

Usage: `uv run python bench/idle_cli.py` prints the figure in MB.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import pty
import signal
import struct
import sys
import tempfile
import termios
import threading
from pathlib import Path
from typing import Final

import anyio

from acp_tui.storage.paths import HOME_ENV_VAR

COLUMNS: Final = 120
ROWS: Final = 40
MB: Final = 1_000_000
READY: Final = b"idle"
"""What the status bar shows once the demo session is open and waits."""


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


async def idle_rss_mb(settle: float = 2.0, open_within: float = 60.0) -> float:
    """The app's RSS (MB) once its demo session is open and `settle` s idle."""
    with (
        tempfile.TemporaryDirectory(prefix="acp-tui-idle-home-") as home,
        tempfile.TemporaryDirectory(prefix="acp-tui-idle-cwd-") as cwd,
    ):
        leader, follower = pty.openpty()
        size = struct.pack("HHHH", ROWS, COLUMNS, 0, 0)
        fcntl.ioctl(follower, termios.TIOCSWINSZ, size)
        env = {**os.environ, HOME_ENV_VAR: home, "TERM": "xterm-256color"}
        env.pop("TEXTUAL", None)
        app = await anyio.open_process(
            [sys.executable, "-m", "acp_tui"],
            stdin=follower,
            stdout=follower,
            stderr=follower,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
        os.close(follower)
        seen = bytearray()
        ready = threading.Event()

        def drain() -> None:
            while True:
                try:
                    data = os.read(leader, 65536)
                except OSError:
                    return
                if not data:
                    return
                if not ready.is_set():
                    seen.extend(data)
                    if READY in seen:
                        ready.set()

        reader = threading.Thread(target=drain, daemon=True)
        reader.start()
        try:
            if not await asyncio.to_thread(ready.wait, open_within):
                raise RuntimeError("the demo session did not open in time")
            await asyncio.sleep(settle)  # (a settled app is what is measured)
            rss = _rss_kb(app.pid) * 1024 / MB  # (kB of 1,024 bytes)
        finally:
            os.write(leader, b"\x11")  # ctrl+q
            try:
                await asyncio.wait_for(app.wait(), 10)
            except TimeoutError:
                os.killpg(app.pid, signal.SIGKILL)
                await app.wait()
            os.close(leader)
            reader.join(timeout=5)
        return rss


if __name__ == "__main__":
    rss = asyncio.run(idle_rss_mb())
    print(f"idle RSS of acp-tui with the demo agent: {rss:.1f} MB")
