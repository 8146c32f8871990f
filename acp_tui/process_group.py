"""Starting a child in a process group of its own, and signalling that whole group.

The agent (`acp_tui.protocol.transport`) and the commands of v1 client terminals
(`acp_tui.terminal.pty`) each start in a process group of their own, so stopping
one reaches everything it spawned. Both layers are independent of each other, so
the helpers live here, below both (the stdlib and anyio).

Every child started here is registered until it has been reaped
(`is_live_spawn`): the orphan reaper (`acp_tui.process_tree`) never waits for one,
since asyncio's child watcher owns its exit status.
"""

from __future__ import annotations

import errno
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Final, Protocol

import anyio
from anyio.abc import Process

__all__ = [
    "SPAWN_TIMEOUT",
    "group_alive",
    "is_live_spawn",
    "signal_group",
    "start_in_new_group",
]

SPAWN_TIMEOUT: Final = 10.0
"""Seconds the (shielded) start of a child's process may take."""

_spawns: dict[int, Process] = {}
"""The children started here, by pid, until they are seen reaped."""


def is_live_spawn(pid: int) -> bool:
    """Whether `pid` is a child started here and not reaped yet (by its owner).

    Safe to call from any thread.
    """
    process = _spawns.get(pid)
    if process is None:
        return False
    if process.returncode is None:
        return True
    _spawns.pop(pid, None)
    return False


async def start_in_new_group(
    argv: Sequence[str],
    *,
    cwd: str | Path | None,
    env: Mapping[str, str],
    stdin: int,
    stdout: int,
    stderr: int,
) -> Process:
    """Start `argv` as the leader of a new session (and group), under a shield.

    Cancelled halfway (a quit while the child starts), asyncio kills the child it
    has just forked but, cancelled again while it waits for that exit, returns
    without reaping it, and the caller never gets the process to stop its group.
    Shielded, the start completes; the caller's next checkpoint then raises the
    cancellation, and the caller stops the child as usual.

    Raises:
        OSError: The program could not be started, or not in `SPAWN_TIMEOUT`.
        ValueError: `argv` holds a NUL character.
    """
    with anyio.CancelScope(shield=True) as spawning:
        spawning.deadline = anyio.current_time() + SPAWN_TIMEOUT
        process = await anyio.open_process(
            list(argv),
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
        for pid in [pid for pid, old in _spawns.items() if old.returncode is not None]:
            _spawns.pop(pid, None)
        _spawns[process.pid] = process
        return process
    raise OSError(errno.ETIMEDOUT, f"the process did not start in {SPAWN_TIMEOUT:g} s")


class _Signallable(Protocol):
    """What `signal_group` needs of a process (anyio's and asyncio's both fit)."""

    @property
    def pid(self) -> int:
        """The process id, which is also its group id (it leads its group)."""
        ...

    def terminate(self) -> None:
        """Send SIGTERM to the process alone."""
        ...

    def kill(self) -> None:
        """Send SIGKILL to the process alone."""
        ...

    def send_signal(self, signal: signal.Signals) -> None:
        """Send `signal` to the process alone."""
        ...


def signal_group(process: _Signallable, sig: signal.Signals) -> None:
    """Send `sig` to the whole group `process` leads; a vanished group is no error.

    Where a member changed credentials (the group cannot be signalled as a whole),
    the leader alone gets it. Windows has no process groups: the leader only.
    """
    if sys.platform == "win32":  # pragma: no cover - no process groups
        with suppress(OSError):
            if sig == signal.SIGTERM:
                process.terminate()
            else:
                process.kill()
        return
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        pass
    except PermissionError:
        with suppress(OSError):
            process.send_signal(sig)


PROC: Final = Path("/proc")


def group_alive(pgid: int, *, proc: Path = PROC) -> bool:
    """Whether any live process is left in the group `pgid`.

    Zombies do not count: a member that exited after its parent did belongs to
    init, which in a container may never reap it, and it can do nothing more.
    Where `/proc` tells process states (Linux), it decides; elsewhere any member
    counts, zombies included.
    """
    if sys.platform == "win32":  # pragma: no cover - no process groups
        return False
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    live = _live_member(pgid, proc)
    return True if live is None else live  # no /proc: trust the signal


def _live_member(pgid: int, proc: Path) -> bool | None:
    """Whether a member of the group is not a zombie; None without /proc."""
    try:
        entries = os.scandir(proc)
    except OSError:
        return None
    group = str(pgid).encode()
    with entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            try:
                with open(os.path.join(entry.path, "stat"), "rb") as handle:
                    stat = handle.read()
            except OSError:
                continue  # it exited meanwhile
            # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
            fields = stat[stat.rfind(b")") + 2 :].split()
            if len(fields) >= 3 and fields[2] == group and fields[0] not in b"ZX":
                return True
    return False if proc.joinpath("self").exists() else None
