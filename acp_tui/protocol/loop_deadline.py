"""When the event loop is next wanted on time: a frame due to be painted.

A flooding agent's lines are all buffered, so the read loop reads in slices
(`dispatcher.READ_SLICE`, 2 ms) and a task woken from a sleep runs only between
two of them: the screen's tick that paints a frame came 1-6 ms late (two loop
turns, each behind a slice), and the frames of a flooded turn 18-23 ms apart
instead of a period, 16.7 ms (bench/ui.py). The screen's frame timer
(`ui.textual_private.FrameTimer`) sets the time its tick is due before it sleeps
and clears it once it woke; the read loop ends a slice when that time has come
and gives the loop its turns until the timer woke (`dispatcher.yield_to_busy_loop`).

The time is `time.monotonic()` (Textual's clock on Linux and macOS). One value
for the process: the app has one event loop and paints one screen at a time. A
deadline left behind (the timer clears it however its sleep ends, but a task
abandoned in its sleep would not) is ignored once it is more than `STALE` old, so
it can never keep the reader from reading.
"""

from __future__ import annotations

import math
from typing import Final

__all__ = ["STALE", "clear", "is_due", "set_due"]

STALE: Final = 0.05
"""Seconds after which a deadline that was never cleared no longer counts."""

_due: float = math.inf


def set_due(when: float) -> None:
    """A tick is due at `when` (monotonic seconds)."""
    global _due
    _due = when


def clear(when: float) -> None:
    """The tick due at `when` ran, or will not: forget it (not another one)."""
    global _due
    if _due == when:
        _due = math.inf


def is_due(now: float) -> bool:
    """Whether a tick is due at `now` (and its deadline is not stale)."""
    return 0.0 <= now - _due < STALE
