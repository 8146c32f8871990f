"""Child processes in tests: whether a pid is still there, and a spawn cancelled
just as it begins."""

from __future__ import annotations

import os
import select
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.abc import Process


def pid_exists(pid: int) -> bool:
    """Whether `pid` exists at all: running, or a zombie nobody reaped."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def running(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting for its reaper counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - a reused pid of another user
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return not Path("/proc").is_dir()
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def ends_within(pid: int, seconds: float = 10.0) -> bool:
    """Whether `pid` ends within `seconds` (it need not be our child).

    A process killed by a signal sent to its group is gone only once the kernel
    has scheduled it to exit: on a loaded machine, a moment after `killpg`
    returns. The wait is on the process itself (a pidfd turns readable when it
    exits) and bounded: a process that never ends fails the test.
    """
    try:
        handle = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        readable, _, _ = select.select([handle], [], [], seconds)
    finally:
        os.close(handle)
    return bool(readable) or not running(pid)


async def spawned_while_cancelled(
    monkeypatch: pytest.MonkeyPatch, start: Callable[[], Awaitable[object]]
) -> Process:
    """Await `start()` in a scope cancelled just as it calls `anyio.open_process`
    (as if its caller was cancelled as the spawn began); the process it spawned.

    Fails the test unless `start()` was cancelled and spawned exactly one process.
    The caller bounds the wait (`anyio.fail_after`).
    """
    real_open_process = anyio.open_process
    spawned: list[Process] = []
    with anyio.CancelScope() as scope:

        async def open_cancelled(*args: Any, **kwargs: Any) -> Process:
            scope.cancel()
            process = await real_open_process(*args, **kwargs)
            spawned.append(process)
            return process

        monkeypatch.setattr(anyio, "open_process", open_cancelled)
        await start()
        pytest.fail("the start was not cancelled")
    assert scope.cancelled_caught
    assert len(spawned) == 1
    return spawned[0]
