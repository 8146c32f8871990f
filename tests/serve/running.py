"""A real `acp-tui serve` process for the tests in this folder.

`start_serve` runs `python -m acp_tui serve` on a free loopback port, in a process
group of its own, with every home (acp-tui's, the XDG dirs) under a test
directory, its output in a log file; `stop_group` always ends the group. The URL
the server prints (with its per-launch token) is read from that log, bounded.
`children` lists the server's child processes from /proc: textual-serve starts
one app process per accepted WebSocket, so a refused request must add none.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import pytest

SERVER_START_BOUND: Final = 30.0
STOP_BOUND: Final = 10.0

_URL: Final = re.compile(r"(http://\S+/\?token=([A-Za-z0-9_-]+))")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def isolated_environment(root: Path) -> dict[str, str]:
    """This environment with acp-tui's home and the XDG dirs under `root`."""
    env = dict(os.environ)
    env["ACP_TUI_HOME"] = str(root / "acp-tui-home")
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        env[name] = str(root / "xdg" / name.lower())
    return env


@dataclass
class Served:
    """A running `acp-tui serve`."""

    port: int
    process: subprocess.Popen[bytes]
    log: Path
    _printed: tuple[str, str] | None = field(default=None, init=False)
    _never_printed: bool = field(default=False, init=False)

    @property
    def origin(self) -> str:
        """The origin of the page the server serves (its printed address)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        """The WebSocket endpoint, without a token."""
        return f"ws://127.0.0.1:{self.port}/ws"

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def log_tail(self) -> str:
        return self.log_text()[-3000:]

    def printed_url(self) -> tuple[str, str]:
        """The (URL, token) the server printed; fails if it never prints one.

        Bounded by SERVER_START_BOUND (once: a server that never printed it is
        not asked again).
        """
        if self._printed is not None:
            return self._printed
        if self._never_printed:
            pytest.fail("acp-tui serve printed no URL with a token")
        deadline = time.monotonic() + SERVER_START_BOUND
        while (found := _URL.search(self.log_text())) is None:
            if time.monotonic() > deadline or self.process.poll() is not None:
                self._never_printed = True
                pytest.fail(
                    "acp-tui serve printed no URL with a token:\n" + self.log_tail()
                )
            # The pause between looks doubles as the check that it still runs.
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=0.05)
        self._printed = (found.group(1), found.group(2))
        return self._printed

    @property
    def token(self) -> str:
        return self.printed_url()[1]

    def children(self) -> set[int]:
        """The pids of the server's running child processes."""
        return children(self.process.pid)


def children(pid: int) -> set[int]:
    """The pids whose parent is `pid` (zombies excluded), from /proc."""
    found: set[int] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state, parent = stat.rsplit(")", 1)[1].split()[:2]
        if int(parent) == pid and state != "Z":
            found.add(int(entry.name))
    return found


def wait_listening(served: Served) -> None:
    """Until the server accepts connections (fails if it exits or takes too long)."""
    deadline = time.monotonic() + SERVER_START_BOUND
    while True:
        try:
            with socket.create_connection(("127.0.0.1", served.port), timeout=1.0):
                return
        except OSError:
            pass
        try:  # the pause between tries doubles as the check that it still runs
            served.process.wait(timeout=0.1)
        except subprocess.TimeoutExpired:
            pass
        else:
            pytest.fail(f"acp-tui serve exited early:\n{served.log_tail()}")
        if time.monotonic() > deadline:
            pytest.fail(f"acp-tui serve did not listen in time:\n{served.log_tail()}")


def start_serve(workdir: Path, env: dict[str, str], *options: str) -> Served:
    """`acp-tui serve --port FREE OPTIONS...` in `workdir`, once it listens.

    Its output goes to `workdir`'s sibling `serve.log`. The caller must
    `stop_group(served.process)`.
    """
    port = free_port()
    workdir.mkdir(parents=True, exist_ok=True)
    log = workdir.parent / "serve.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "acp_tui", "serve", "--port", str(port), *options],
            cwd=workdir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    served = Served(port=port, process=process, log=log)
    try:
        wait_listening(served)
    except BaseException:
        stop_group(process)
        raise
    return served


def stop_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the server's process group, then SIGKILL it if it lingers."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            process.wait(timeout=STOP_BOUND)
            break
        except subprocess.TimeoutExpired:
            continue
    process.wait(timeout=STOP_BOUND)
