r"""Run a command inside a pseudo-terminal and stream what it prints.

The demo's `/run` really executes a command, so the client sees genuine terminal
bytes: colours, `\\r` progress bars, and the `\\n` → `\\r\\n` translation of a TTY.

Invariants:

* The command runs in its **own session and process group** (`setsid`), with the
  PTY as its stdin, stdout and stderr. Stopping it signals the whole group.
* **Cancellation kills.** If the caller is cancelled (the turn was cancelled), the
  shielded cleanup sends SIGTERM to the group, waits briefly, then SIGKILL, and
  reaps the child: nothing is left running. The outcome is still recorded on the
  `PtyRun` handle, so the caller can report the exit status.
* Output is handed over as raw bytes, in order, exactly as read from the PTY.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import signal
import struct
import termios
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import anyio
import anyio.to_thread
from anyio.abc import Process

from acp_tui.process_group import start_in_new_group

__all__ = ["KILL_GRACE", "ExitStatus", "PtyRun", "signal_name"]

KILL_GRACE: Final = 1.0
"""Seconds between SIGTERM and SIGKILL when a run is stopped."""

READ_SIZE: Final = 64 * 1024


@dataclass(frozen=True, slots=True)
class ExitStatus:
    """How a command ended: an exit code, or the signal that killed it."""

    exit_code: int | None = None
    signal: str | None = None

    def to_json(self) -> dict[str, int | str]:
        """The ACP `exitStatus` object (only the known fields)."""
        out: dict[str, int | str] = {}
        if self.exit_code is not None:
            out["exitCode"] = self.exit_code
        if self.signal is not None:
            out["signal"] = self.signal
        return out


def signal_name(number: int) -> str:
    """`SIGTERM` for 15, and so on (`SIG<n>` for an unnamed number)."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"SIG{number}"


def _status(returncode: int | None) -> ExitStatus:
    if returncode is None:
        return ExitStatus()
    if returncode < 0:
        return ExitStatus(signal=signal_name(-returncode))
    return ExitStatus(exit_code=returncode)


@dataclass(slots=True)
class PtyRun:
    """One command run in a PTY.

    Args:
        argv: Program and arguments (no shell).
        cwd: Working directory.
        env: Variables added to the environment.
        cols: Terminal width.
        rows: Terminal height.
    """

    argv: Sequence[str]
    cwd: Path
    env: Mapping[str, str] = field(default_factory=dict)
    cols: int = 80
    rows: int = 24
    pid: int | None = None
    """The child's pid (also its process group id), once started."""
    status: ExitStatus | None = None
    """Set when the command has ended (also when it was killed)."""

    async def run(self, on_output: Callable[[bytes], Awaitable[None]]) -> ExitStatus:
        """Run to completion, calling `on_output` with each piece of output."""
        master, slave = os.openpty()
        try:
            fcntl.ioctl(
                slave,
                termios.TIOCSWINSZ,
                struct.pack("HHHH", self.rows, self.cols, 0, 0),
            )
            environment = dict(os.environ)
            environment.update({"TERM": "xterm-256color", **self.env})
            # Shielded (see `start_in_new_group`): a turn cancelled just as the
            # command starts still gets the process, and the `finally` below
            # stops and reaps it; unshielded, asyncio could kill it unreaped.
            process = await start_in_new_group(
                self.argv,
                cwd=self.cwd,
                env=environment,
                stdin=slave,
                stdout=slave,
                stderr=slave,
            )
        except BaseException:
            os.close(master)
            os.close(slave)
            raise
        os.close(slave)
        self.pid = process.pid
        try:
            await self._pump(master, on_output)
            returncode = await process.wait()
            self.status = _status(returncode)
            return self.status
        finally:
            with anyio.CancelScope(shield=True):
                if process.returncode is None:
                    await self._stop(process)
                self.status = self.status or _status(process.returncode)
                os.close(master)
                await process.aclose()

    async def _pump(
        self, master: int, on_output: Callable[[bytes], Awaitable[None]]
    ) -> None:
        pollable = True
        while True:
            try:
                if pollable:
                    try:
                        await anyio.wait_readable(master)
                    except OSError:  # a selector that cannot poll PTYs
                        pollable = False
                if pollable:
                    data = os.read(master, READ_SIZE)
                else:
                    data = await anyio.to_thread.run_sync(
                        os.read, master, READ_SIZE, abandon_on_cancel=True
                    )
            except OSError as error:
                if error.errno == errno.EIO:  # Linux: every slave end is closed
                    return
                raise
            if not data:
                return
            await on_output(data)

    async def _stop(self, process: Process) -> None:
        """SIGTERM the process group, then SIGKILL it; reap the child."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, sig)
            with anyio.move_on_after(KILL_GRACE):
                await process.wait()
                return
