"""Transcript lines held until the event loop turns: one write per file per turn.

A resumed session replays its history as fast as the agent writes it: 100,000
updates, applied in about 15,000 store batches (every tool call, plan or
terminal update is a batch of its own), each journaled with a write of its own
(bench/long_session.py). `hold` keeps the lines a batch journals and writes
them, with what later batches add, once the event loop turns
(`loop.call_soon`): the client's read loop lets the loop turn every couple of
milliseconds while a flood is read (`protocol.dispatcher.READ_SLICE`), and
whenever it waits for the agent.

Invariants:

* **Order.** Lines are written in the order they were held, across every file
  of the process (a queue of one: a transcript reopened for the same session
  writes its header after the old store's held lines, never before).
* **Bounded delay.** Held lines are written at the loop's next turn, or at once
  past `HELD_LINES`, by `flush_held` (called by `TranscriptWriter.close`, and
  before any line written without a running loop), and at interpreter exit. So
  an app crash that unwinds (an exception, a signal Python handles) loses
  nothing; a process killed outright (SIGKILL, a segfault) may lose the lines of
  the batches applied since the loop last turned (a couple of milliseconds of
  the agent's messages).
* **No loop, no holding.** Without a running asyncio loop (a script, a worker
  thread, the tests that drive a store directly) lines are written at once.

This module imports the standard library and `acp_tui.storage.spool` only.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import threading
import weakref
from collections.abc import Callable
from typing import Final

from acp_tui.storage.spool import Line

__all__ = ["HELD_LINES", "flush_held", "hold"]

log = logging.getLogger(__name__)

HELD_LINES: Final = 4096
"""Lines held at most: past that, they are written at once."""

Writer = Callable[[list[Line]], None]
"""Writes lines now (each without its newline): a transcript's own writing."""


class _Held:
    """The process's held lines: runs of lines, each with its writer."""

    def __init__(self) -> None:
        self.runs: list[tuple[Writer, list[Line]]] = []
        self.lines = 0
        self.scheduled = False
        self.thread: int | None = None
        """The thread whose loop the flush is scheduled on."""


_held = _Held()


def hold(write: Writer, lines: list[Line]) -> None:
    """Write `lines` with `write` once the event loop turns (see the docstring).

    A run of the same writer's lines is written with one call.
    """
    held = _held
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    if loop is None or (held.thread is not None and held.thread != _thread()):
        flush_held()
        write(lines)
        return
    runs = held.runs
    if runs and runs[-1][0] == write:
        runs[-1][1].extend(lines)
    else:
        runs.append((write, list(lines)))
    held.lines += len(lines)
    if held.lines >= HELD_LINES:
        flush_held()
        return
    if not held.scheduled:
        held.scheduled = True
        held.thread = _thread()
        loop.call_soon(flush_held)


def flush_held() -> None:
    """Write every held line now, in order."""
    held = _held
    held.scheduled = False
    held.thread = None
    while held.runs:
        runs = held.runs
        held.runs = []
        held.lines = 0
        for write, lines in runs:
            try:
                write(lines)
            except Exception:  # a writer reports its own I/O errors: a bug
                log.exception("held transcript lines not written")


# At exit, the held lines are written before the transcripts' files are closed:
# those close in `weakref.finalize`'s exit hook (`TranscriptWriter._open`), and
# exit hooks run last registered first, so that hook is registered (by a
# finalizer of its own) before this one.
weakref.finalize(_held, int)
atexit.register(flush_held)


def _thread() -> int:
    return threading.get_ident()
