"""Every process a command started, however it left its process group; orphans reaped.

A v1 client terminal's command (`acp_tui.terminal.pty`) runs in a process group of
its own, and stopping the group stops most of what it spawned. A descendant can
leave the group, though: `setsid` (a new session), `setpgid` (a new group), or the
classic daemon (fork, `setsid`, fork, and the middle process exits, so the daemon
is orphaned). `Lineage` finds such processes again, and `enable_subreaper` makes
sure none escapes for good. Linux only (`/proc`, `prctl`); elsewhere a lineage is
empty and a command is tracked by its process group alone.

Invariants, and why:

* **acp-tui is a child subreaper** (`PR_SET_CHILD_SUBREAPER`, set once, before the
  first terminal starts). An orphan anywhere below acp-tui is re-parented to
  acp-tui instead of to init, so every process a terminal ever started stays in
  acp-tui's process tree, where a scan finds it. This applies to every orphan
  below acp-tui, the agent's too.
* **Orphans are reaped, and only orphans.** A re-parented orphan is acp-tui's
  child, and nobody else will `waitpid` it: left alone, it would stay a zombie
  until acp-tui exits. asyncio's child watcher (which anyio uses) waits for the
  pids it spawned, one by one, never for "any child", so orphans do not confuse
  it; but reaping one of *its* children would steal that child's exit status. So
  the reaper never waits for "any child" either: it waits by pid, for zombies it
  knows are not acp-tui's own spawns. Those are the members of a lineage it killed
  (never the command itself), and any other zombie child that is not a live spawn
  registered by `process_group.start_in_new_group` and has stayed unreaped for
  `ORPHAN_GRACE` (every spawn in acp-tui goes through asyncio, which reaps its
  children at once). A daemon thread sweeps every `SWEEP_INTERVAL`.
* **A lineage is found again at each look**, from a fresh `/proc` scan of the
  processes below acp-tui: the command (the leader), everything in its process
  group or session, every process whose environment carries the command's marker
  (`MARKER_VARIABLE`, inherited by every descendant that keeps its environment),
  every process that holds the command's terminal open (its PTY, or the pipe
  standing in for one), and everything below any of those, as well as processes
  seen in the lineage before. A pid counts as seen only with the start time it had
  then, so a pid reused by an unrelated process is never signalled.
* **What cannot be found:** a descendant that empties its environment, closes the
  terminal, and whose parents have all exited by the time of the look (it is then
  acp-tui's child, but nothing says which terminal it came from). It is reaped
  once it exits; it is not killed.

No anyio here: the scans are synchronous (callers run them in a worker thread, or
at interpreter exit).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from acp_tui.process_group import is_live_spawn

__all__ = [
    "MARKER_VARIABLE",
    "ORPHAN_GRACE",
    "PROC",
    "SWEEP_INTERVAL",
    "Lineage",
    "ProcessInfo",
    "enable_subreaper",
    "read_processes",
    "subreaper_enabled",
]

PROC: Final = Path("/proc")

MARKER_VARIABLE: Final = "ACP_TUI_TERMINAL"
"""The environment variable that marks a terminal's processes (a random value per
terminal)."""

SWEEP_INTERVAL: Final = 1.0
"""Seconds between two looks for zombie orphans."""

ORPHAN_GRACE: Final = 3.0
"""A zombie child that is not a live registered spawn is reaped once it has been a
zombie this long: nothing in acp-tui leaves its own child unwaited that long."""

_PR_SET_CHILD_SUBREAPER: Final = 36
"""`prctl` option (linux/prctl.h), Linux 3.4."""


@dataclass(frozen=True, slots=True)
class ProcessInfo:
    """One process, from `/proc/PID/stat`."""

    pid: int
    ppid: int
    pgrp: int
    session: int
    state: str
    """One letter: `R`, `S`, `D`, `T`, `Z` (zombie), ..."""
    start: int
    """Start time, in clock ticks since boot: with the pid, the process's identity."""

    @property
    def zombie(self) -> bool:
        """Whether it has exited and waits to be reaped."""
        return self.state in ("Z", "X")


def read_processes(proc: Path = PROC) -> dict[int, ProcessInfo] | None:
    """Every process `proc` lists, by pid; None without a `/proc`."""
    try:
        entries = os.scandir(proc)
    except OSError:
        return None
    processes: dict[int, ProcessInfo] = {}
    root = os.fspath(proc)
    with entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            info = _read_stat(int(entry.name), root)
            if info is not None:
                processes[info.pid] = info
    return processes


def _read_stat(pid: int, proc: str | Path) -> ProcessInfo | None:
    try:
        with open(f"{os.fspath(proc)}/{pid}/stat", "rb", buffering=0) as handle:
            data = handle.read(4096)
    except OSError:
        return None  # it exited meanwhile
    # "pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
    # cmajflt utime stime cutime cstime priority nice num_threads itrealvalue
    # starttime ...": comm may hold spaces and parentheses.
    fields = data[data.rfind(b")") + 2 :].split()
    try:
        return ProcessInfo(
            pid=pid,
            ppid=int(fields[1]),
            pgrp=int(fields[2]),
            session=int(fields[3]),
            state=fields[0].decode("ascii", "replace"),
            start=int(fields[19]),
        )
    except (IndexError, ValueError):
        return None


def _below(processes: Mapping[int, ProcessInfo], tops: Iterable[int]) -> set[int]:
    """`tops` (those that exist) and every process below them."""
    children: dict[int, list[int]] = {}
    for info in processes.values():
        children.setdefault(info.ppid, []).append(info.pid)
    found = {pid for pid in tops if pid in processes}
    pending = list(found)
    while pending:
        for child in children.get(pending.pop(), ()):
            if child not in found:
                found.add(child)
                pending.append(child)
    return found


class Lineage:
    """The processes one command started, found again at each `members()`.

    Args:
        leader: The command's pid, which leads its process group and session.
        marker: The value of `MARKER_VARIABLE` in the command's environment.
        channel: `(st_dev, st_ino)` of the command's terminal (the PTY's slave end,
            or the output pipe): a process holding it open belongs to the lineage.
        proc: Where `/proc` is (tests give a fake one).
    """

    def __init__(
        self,
        leader: int,
        marker: str,
        channel: tuple[int, int] | None = None,
        *,
        proc: Path = PROC,
    ) -> None:
        self.leader = leader
        self._needle = f"\0{MARKER_VARIABLE}={marker}\0".encode()
        self._channel = channel
        self._proc = proc
        self._root = os.fspath(proc)
        self._seen: set[tuple[int, int]] = set()
        """(pid, start time) of every member ever found."""

    def members(self) -> dict[int, ProcessInfo] | None:
        """Every process of the lineage that exists now, zombies included.

        The leader is one (while it exists). None without `/proc`.
        """
        processes = read_processes(self._proc)
        if processes is None:
            return None
        own = os.getpid()
        if subreaper_enabled():
            candidates = _below(processes, [own]) - {own}
        else:  # orphans went to init: look everywhere
            candidates = set(processes) - {own}
        tops = set()
        for pid in candidates:
            info = processes[pid]
            if self.leader in (pid, info.pgrp, info.session) or (
                (pid, info.start) in self._seen
            ):
                tops.add(pid)
            elif info.session != pid and is_live_spawn(info.session):
                # In the session of the agent or of another command: theirs. A
                # process can only ever join a session its parent was in.
                continue
            elif self._marked(pid) or self._holds_channel(pid):
                tops.add(pid)
        members = {pid: processes[pid] for pid in _below(processes, tops) & candidates}
        self._seen.update((pid, info.start) for pid, info in members.items())
        return members

    def signal_escapees(
        self, sig: signal.Signals, members: Mapping[int, ProcessInfo] | None
    ) -> int:
        """Send `sig` to every live member outside the leader's process group.

        The group itself is signalled as a whole, by the caller.

        Args:
            sig: The signal.
            members: What `members()` returned just before.

        Returns:
            How many processes were signalled.
        """
        sent = 0
        for pid, info in (members or {}).items():
            if info.pgrp == self.leader or info.zombie:
                continue
            with suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
                sent += 1
        return sent

    def reap(self) -> bool:
        """Reap the zombie members that are acp-tui's children, never the leader.

        The leader is asyncio's child (its owner waits for it), and so is any
        other live registered spawn; the others are orphans re-parented here,
        which nobody else waits for.

        Returns:
            Whether nothing is left to wait for: no member alive, and no zombie
            member that is, or will be (its parent is a member), acp-tui's.
        """
        own = os.getpid()
        members = self.members() or {}
        left = False
        for pid, info in members.items():
            if pid == self.leader or is_live_spawn(pid):
                continue
            if not info.zombie:
                left = True
            elif info.ppid == own:
                _reap(pid)
            elif info.ppid in members:
                left = True  # its parent dies next, and hands it to acp-tui
        return not left

    def _marked(self, pid: int) -> bool:
        try:
            with open(f"{self._root}/{pid}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            return False  # another user's, or a zombie's (empty anyway)
        return self._needle in b"\0" + environ

    def _holds_channel(self, pid: int) -> bool:
        if self._channel is None:
            return False
        fds = f"{self._root}/{pid}/fd"
        try:
            names = os.listdir(fds)
        except OSError:
            return False
        for name in names:
            try:
                target = os.stat(f"{fds}/{name}")
            except OSError:
                continue
            if (target.st_dev, target.st_ino) == self._channel:
                return True
        return False


def _reap(pid: int) -> None:
    """`waitpid(pid)` without blocking; gone already is fine."""
    with suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


# -- the subreaper, and its sweeper ---------------------------------------------------

_lock = threading.Lock()
_enabled = False
_stop = threading.Event()
"""Never set: the sweeper's clock (a thread may wait on it, not sleep)."""


def subreaper_enabled() -> bool:
    """Whether `enable_subreaper` has made this process a child subreaper."""
    return _enabled


def enable_subreaper(prctl: Callable[..., int] | None = None) -> bool:
    """Make this process a child subreaper and start the sweeper. Idempotent.

    Args:
        prctl: The `prctl` function to call (tests); default: libc's.

    Returns:
        Whether this process is a child subreaper (False on other systems, or if
        the kernel refused).
    """
    global _enabled
    with _lock:
        if _enabled:
            return True
        if not sys.platform.startswith("linux"):
            return False
        if prctl is None:
            try:
                prctl = ctypes.CDLL(None, use_errno=True).prctl
            except (OSError, AttributeError):
                return False
        if prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            return False
        _enabled = True
        threading.Thread(
            target=_sweep_forever, name="acp-tui-orphan-reaper", daemon=True
        ).start()
        return True


def _sweep_forever() -> None:
    """The sweeper thread: reap zombie orphans, forever (a daemon thread)."""
    zombies: dict[tuple[int, int], int] = {}
    while not _stop.wait(SWEEP_INTERVAL):
        with suppress(Exception):  # never let the sweeper die
            zombies = sweep(zombies)


def sweep(
    zombies: Mapping[tuple[int, int], int], *, proc: Path = PROC
) -> dict[tuple[int, int], int]:
    """One look for zombie orphans: reap those that have waited `ORPHAN_GRACE`.

    Args:
        zombies: What the previous look returned.
        proc: Where `/proc` is.

    Returns:
        The zombie children left to wait: (pid, start time) -> sweeps seen.
    """
    own = os.getpid()
    due = max(1, round(ORPHAN_GRACE / SWEEP_INTERVAL))
    seen: dict[tuple[int, int], int] = {}
    for pid in _children(own, proc):
        info = _read_stat(pid, proc)
        if info is None or not info.zombie or info.ppid != own or is_live_spawn(pid):
            continue
        key = (pid, info.start)
        count = zombies.get(key, 0) + 1
        if count > due:
            _reap(pid)
        else:
            seen[key] = count
    return seen


def _children(pid: int, proc: Path) -> list[int]:
    """The children of `pid`: from each thread's `children` file, or a scan."""
    tasks = proc / str(pid) / "task"
    children: list[int] = []
    try:
        for task in os.listdir(tasks):
            with open(tasks / task / "children", "rb") as handle:
                children.extend(int(child) for child in handle.read().split())
    except OSError:  # no CONFIG_PROC_CHILDREN (or a thread just exited): scan
        processes = read_processes(proc) or {}
        return [info.pid for info in processes.values() if info.ppid == pid]
    return children
