r"""Run a command in a pseudo-terminal, in its own process group, on anyio.

`PtyProcess` is the process side of a client-owned terminal (ACP v1
`terminal/create`): the command sees a TTY on stdin, stdout and stderr, so colours,
`\r` progress bars and line editing behave as in a real terminal, and its output
arrives as raw bytes, in order.

Invariants:

* **One process group, and what left it.** The command starts in its own session
  and process group (`start_new_session=True`), so it and everything it spawns (a
  shell's background jobs, a build tool's workers) are signalled together. A
  descendant that leaves the group (`setsid`, `setpgid`, a daemon's double fork) is
  found through the command's `acp_tui.process_tree.Lineage` (Linux: the command's
  environment marker, its terminal, its session, its process tree; acp-tui is made
  a child subreaper before the first command starts, so no orphan escapes to
  init) and is signalled with the group. Elsewhere only the group is tracked.
* **Reading never blocks the event loop.** The PTY's master end is non-blocking and
  read when the loop says it is readable (a worker thread polls it where the loop
  cannot watch a PTY). `read()` returns `b""` once every writer has closed it.
* **Stopping is bounded and shielded**, like the agent transport: SIGTERM to the
  group and the escapees, wait, SIGKILL to them, wait; then leftovers (a grandchild
  that outlived the leader, an escapee) get the same, polled, since they are not
  our children; then escapees that died as acp-tui's children (re-parented
  orphans) are reaped, so none stays a zombie. Each step has a module-level
  timeout; the worst case is their sum (about eight seconds). `aclose()` does this,
  closes the PTY and reaps the child, under `CancelScope(shield=True)`, whatever
  cancelled the caller. `kill()` does the same, the PTY left open.
* **No orphans at interpreter exit.** Every live command is registered; an `atexit`
  hook sends SIGKILL to the group and the escapees of any command that was never
  closed (the event loop died before its cleanup ran).
* **No PTY, no problem.** Where no PTY can be opened (Windows, or the system ran out
  of them) the command gets pipes instead: stdout and stderr together, stdin from
  the null device.

No Rich, no Textual: this is a headless layer.
"""

from __future__ import annotations

import atexit
import errno
import logging
import os
import secrets
import select
import signal
import struct
import sys
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from subprocess import DEVNULL, PIPE, STDOUT
from typing import Final, Self

import anyio
import anyio.lowlevel
import anyio.to_thread
from anyio.abc import AsyncResource, Process

from acp_tui.process_group import group_alive, signal_group, start_in_new_group
from acp_tui.process_tree import (
    MARKER_VARIABLE,
    Lineage,
    ProcessInfo,
    enable_subreaper,
)

__all__ = [
    "CLOSE_TIMEOUT",
    "DEFAULT_COLS",
    "DEFAULT_ROWS",
    "GROUP_TERMINATE_TIMEOUT",
    "KILL_TIMEOUT",
    "READ_SIZE",
    "REAP_TIMEOUT",
    "TERM",
    "TERMINATE_TIMEOUT",
    "ExitStatus",
    "PtyProcess",
    "signal_name",
]

log = logging.getLogger(__name__)

TERMINATE_TIMEOUT: Final = 2.0
"""After SIGTERM to the group: time for the command's signal handlers to clean up."""

KILL_TIMEOUT: Final = 2.0
"""After SIGKILL to the group: the kernel reaps almost at once; this only bounds the
wait for a process stuck in uninterruptible sleep, which nothing can kill."""

GROUP_TERMINATE_TIMEOUT: Final = 1.0
"""Once the leader has exited: grace for leftover group members after SIGTERM,
before they get SIGKILL."""

GROUP_POLL_INTERVAL: Final = 0.02
"""How often to look for leftover group members. They are not our children, so
there is nothing to wait on: polling `killpg(pgid, 0)` is the only way."""

CLOSE_TIMEOUT: Final = 1.0
"""Closing the pipes and reaping an exited child: immediate in practice."""

REAP_TIMEOUT: Final = 1.0
"""After the kill: time for escapees to die and be reaped (their parents, killed
too, hand them to acp-tui as they exit)."""

THREAD_POLL_INTERVAL: Final = 0.1
"""Where the event loop cannot watch a PTY, a worker thread waits this long at most
per poll, so a cancelled read returns promptly."""

READ_SIZE: Final = 64 * 1024
"""Bytes asked for per read."""

DEFAULT_COLS: Final = 80
"""The PTY's width unless the caller says otherwise."""

DEFAULT_ROWS: Final = 24
"""The PTY's height unless the caller says otherwise."""

TERM: Final = "xterm-256color"
"""The `TERM` the command sees: what the app's terminal emulator understands, not
what the user's own terminal is."""


@dataclass(frozen=True, slots=True)
class ExitStatus:
    """How a command ended: its exit code, or the signal that killed it."""

    exit_code: int | None = None
    signal: str | None = None

    @classmethod
    def from_returncode(cls, returncode: int | None) -> ExitStatus:
        """The status for a `Popen`-style return code (negative: killed by a signal).

        Args:
            returncode: The child's return code; None gives an empty status.

        Returns:
            The exit status.
        """
        if returncode is None:
            return cls()
        if returncode < 0:
            return cls(signal=signal_name(-returncode))
        return cls(exit_code=returncode)

    def to_json(self) -> dict[str, int | str | None]:
        """The ACP `TerminalExitStatus` object: `{exitCode, signal}`, both nullable."""
        return {"exitCode": self.exit_code, "signal": self.signal}


def signal_name(number: int) -> str:
    """`SIGTERM` for 15, and so on (`SIG<n>` for a number with no name).

    Args:
        number: A signal number.

    Returns:
        The signal's name.
    """
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"SIG{number}"


# -- the interpreter-exit backstop ---------------------------------------------------

_live_groups: dict[int, Lineage] = {}
"""The commands started and not yet closed: process group id -> lineage."""


def _kill_live_groups() -> None:
    """At interpreter exit: SIGKILL every group never closed, and its escapees."""
    if sys.platform == "win32":  # pragma: no cover - no process groups
        return
    for pgid, lineage in list(_live_groups.items()):
        with suppress(OSError):
            members = lineage.members()  # while the leader still links them
            os.killpg(pgid, signal.SIGKILL)
            lineage.signal_escapees(signal.SIGKILL, members)
    _live_groups.clear()


atexit.register(_kill_live_groups)


def _pty_available() -> bool:
    return sys.platform != "win32" and hasattr(os, "openpty")


class PtyProcess(AsyncResource):
    """A command running in a PTY (or, failing that, with pipes).

    Start one with `PtyProcess.start()`; use it as an async context manager (an
    anyio `AsyncResource`: leaving it calls `aclose()`), or call `aclose()`, so
    that it is always stopped and reaped.

    Args:
        process: The started child.
        master: The PTY's master end (non-blocking), or None when using pipes.
    """

    def __init__(
        self, process: Process, master: int | None, lineage: Lineage | None = None
    ) -> None:
        self._process = process
        self._master = master
        self._uses_pty = master is not None
        self._pollable = True
        self._closed = False
        self._lineage = lineage or Lineage(process.pid, secrets.token_hex(8))
        _live_groups[process.pid] = self._lineage

    @classmethod
    async def start(
        cls,
        argv: Sequence[str],
        *,
        cwd: str | Path,
        env: Mapping[str, str] | None = None,
        cols: int = DEFAULT_COLS,
        rows: int = DEFAULT_ROWS,
        use_pty: bool = True,
    ) -> PtyProcess:
        """Start `argv` (no shell) in `cwd`, with `env` added to the environment.

        Args:
            argv: The program and its arguments.
            cwd: The working directory.
            env: Variables added to (or replacing those of) this process's
                environment. `TERM` is `xterm-256color` unless given here;
                `ACP_TUI_TERMINAL` is always the command's own marker.
            cols: The PTY's width.
            rows: The PTY's height.
            use_pty: False to use pipes even where a PTY is available.

        Returns:
            The running process.

        Raises:
            OSError: The program could not be started (not found, not executable,
                bad working directory...).
            ValueError: `argv` is empty or holds a NUL character.
        """
        if not argv:
            raise ValueError("empty command")
        enable_subreaper()  # before any command can leave an orphan behind
        marker = secrets.token_hex(8)
        environment = dict(os.environ)
        environment["TERM"] = TERM
        environment.update(env or {})
        environment[MARKER_VARIABLE] = marker
        master: int | None = None
        slave: int | None = None
        if use_pty and _pty_available():
            try:
                master, slave = os.openpty()
            except OSError:  # out of PTYs: pipes still work
                master = slave = None
        if master is None or slave is None:
            process = await start_in_new_group(
                argv,
                cwd=cwd,
                env=environment,
                stdin=DEVNULL,
                stdout=PIPE,
                stderr=STDOUT,
            )
            return await cls._started(process, None, Lineage(process.pid, marker))
        try:
            _set_size(slave, cols, rows)
            os.set_blocking(master, False)
            terminal = os.fstat(slave)
            process = await start_in_new_group(
                argv, cwd=cwd, env=environment, stdin=slave, stdout=slave, stderr=slave
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)  # the child has its copies; EOF comes when they close
        lineage = Lineage(process.pid, marker, (terminal.st_dev, terminal.st_ino))
        return await cls._started(process, master, lineage)

    @classmethod
    async def _started(
        cls, process: Process, master: int | None, lineage: Lineage
    ) -> Self:
        """Own `process`; stop it again if the start was cancelled meanwhile.

        `start_in_new_group` completes a start under a shield: a cancellation
        that came during it is raised at the checkpoint here.
        """
        started = cls(process, master, lineage)
        try:
            await anyio.lowlevel.checkpoint()
        except BaseException:
            await started.aclose()
            raise
        return started

    # -- state -------------------------------------------------------------------

    @property
    def pid(self) -> int:
        """The command's pid, which is also its process group id."""
        return self._process.pid

    @property
    def uses_pty(self) -> bool:
        """Whether the command runs in a PTY (False: pipes)."""
        return self._uses_pty

    @property
    def exit_status(self) -> ExitStatus | None:
        """How the command ended, or None while it runs."""
        returncode = self._process.returncode
        return None if returncode is None else ExitStatus.from_returncode(returncode)

    # -- I/O -----------------------------------------------------------------------

    async def read(self, max_bytes: int = READ_SIZE) -> bytes:
        """Wait for output and return what is there (at most `max_bytes`).

        Args:
            max_bytes: The most bytes to return.

        Returns:
            The next bytes the command wrote, or `b""` once its output has ended
            (every process holding the terminal has closed it) or `aclose()` ran.

        Raises:
            OSError: Reading failed for another reason.
        """
        if self._closed:
            return b""
        master = self._master
        if master is None:
            stream = self._process.stdout
            assert stream is not None
            try:
                return await stream.receive(max_bytes)
            except (
                anyio.EndOfStream,
                anyio.ClosedResourceError,
                anyio.BrokenResourceError,
            ):
                return b""
        while not self._closed:
            if self._pollable:
                try:
                    await anyio.wait_readable(master)
                except anyio.ClosedResourceError:
                    return b""
                except OSError:  # a selector that cannot watch PTYs (kqueue)
                    self._pollable = False
                    continue
                data = _read_ready(master, max_bytes)
            else:
                data = await anyio.to_thread.run_sync(
                    _poll_and_read, master, max_bytes, THREAD_POLL_INTERVAL
                )
            if data is not None:
                return data
        return b""

    async def wait(self) -> ExitStatus:
        """Wait for the command (the group's leader) to exit.

        Returns:
            Its exit status.
        """
        return ExitStatus.from_returncode(await self._process.wait())

    # -- stopping ----------------------------------------------------------------

    async def kill(self) -> None:
        """Stop the command, its whole group and its escapees (bounded, shielded).

        SIGTERM, then SIGKILL if the leader is still there after
        `TERMINATE_TIMEOUT`; leftovers get the same. Returns once the leader has
        been reaped (or the bounds ran out). The PTY stays open, so any output
        still buffered can be read.
        """
        with anyio.CancelScope(shield=True):
            await self._terminate()

    async def aclose(self) -> None:
        """Kill the command if needed, close the PTY and reap the child. Idempotent.

        Bounded and shielded: runs to its end even if the caller is cancelled.
        """
        if self._closed:
            return
        self._closed = True
        with anyio.CancelScope(shield=True):
            try:
                await self._terminate()
            finally:
                _live_groups.pop(self._process.pid, None)
                master, self._master = self._master, None
                if master is not None:
                    anyio.notify_closing(master)
                    os.close(master)
                with anyio.move_on_after(CLOSE_TIMEOUT), suppress(Exception):
                    await self._process.aclose()

    async def _terminate(self) -> None:
        """Stop the group and the escapees, then reap the escapees. Call shielded.

        SIGTERM, then SIGKILL; leftovers the same again, polled.
        """
        if self._process.returncode is None:
            # Looked at while the leader lives: its process tree links them still.
            await self._signal(signal.SIGTERM, await self._look())
            if not await self._wait_leader(TERMINATE_TIMEOUT):
                await self._signal(signal.SIGKILL, await self._look())
                await self._wait_leader(KILL_TIMEOUT)
        members = await self._look()
        if self._left(members):
            await self._signal(signal.SIGTERM, members)
            with anyio.move_on_after(GROUP_TERMINATE_TIMEOUT):
                # Not our children: no exit event exists, so poll.
                while self._left(members := await self._look()):  # noqa: ASYNC110
                    await anyio.sleep(GROUP_POLL_INTERVAL)
            with anyio.move_on_after(KILL_TIMEOUT):
                while self._left(members := await self._look()):
                    await self._signal(signal.SIGKILL, members)  # it may fork
                    await anyio.sleep(GROUP_POLL_INTERVAL)
        if members and set(members) - {self._process.pid}:
            with anyio.move_on_after(REAP_TIMEOUT):
                # Killed parents hand their zombies to acp-tui as they exit: poll.
                reap = self._lineage.reap
                while not await anyio.to_thread.run_sync(reap):  # noqa: ASYNC110
                    await anyio.sleep(GROUP_POLL_INTERVAL)

    async def _wait_leader(self, seconds: float) -> bool:
        with anyio.move_on_after(seconds):
            await self._process.wait()
        return self._process.returncode is not None

    async def _look(self) -> dict[int, ProcessInfo] | None:
        """The lineage's processes now (None without `/proc`), in a worker thread."""
        return await anyio.to_thread.run_sync(self._lineage.members)

    def _left(self, members: Mapping[int, ProcessInfo] | None) -> bool:
        """Whether a live process is left, in the group or out of it."""
        if members is None:  # no /proc: the group is all there is to see
            return group_alive(self._process.pid)
        return any(not info.zombie for info in members.values())

    async def _signal(
        self, sig: signal.Signals, members: Mapping[int, ProcessInfo] | None
    ) -> None:
        """Send `sig` to the whole group and to every escapee among `members`."""
        signal_group(self._process, sig)
        if sent := self._lineage.signal_escapees(sig, members):
            log.info(
                "command %d: sent %s to %d process(es) that left its process group",
                self._process.pid,
                sig.name,
                sent,
            )


def _set_size(fd: int, cols: int, rows: int) -> None:
    """Give the terminal at `fd` a size (what `stty size` and curses read)."""
    import fcntl
    import termios

    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def _read_ready(fd: int, max_bytes: int) -> bytes | None:
    """Read from a non-blocking PTY master: bytes, `b""` at the end, None if empty."""
    try:
        return os.read(fd, max_bytes)
    except BlockingIOError:
        return None
    except OSError as error:
        if error.errno == errno.EIO:  # Linux: every slave end is closed
            return b""
        raise


def _poll_and_read(fd: int, max_bytes: int, timeout: float) -> bytes | None:
    """In a worker thread: wait up to `timeout` for `fd`, then read it."""
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
    except (OSError, ValueError):  # closed meanwhile
        return b""
    if not ready:
        return None
    return _read_ready(fd, max_bytes)
