"""Holds the read loops back while the UI makes a frame of what they read.

A flooding agent keeps the read loop busy: it reads in slices of
`dispatcher.READ_SLICE` and lets the rest of the event loop run between them
(`yield_to_busy_loop`). Making a frame is a chain of steps (a batch of changes
handed to the widgets, their text parsed, the layout, the paint), each waiting
for a turn of the loop or a timer; with a slice of reading between every two
steps, a frame came 25-40 ms after the one before (bench/ui.py: the median gap
between frames of a flooded turn), where one every 16.7 ms was the aim.

So the UI holds the gate when it hands a batch to its widgets (`hold`) and opens
it once the frame showing the batch is painted (`release`); a read loop at the
end of a slice waits for the gate (`wait`). The wait is bounded twice, so the UI
can slow reading but never stop it: never longer than the reader has read since
its last wait (under a held gate reading keeps at least about half the time,
whatever a frame costs), and never longer than `MAX_HOLD`. An agent that is not
flooding never waits: its lines come slower than the reader takes them, and the
loop waits for them rather than ending slices.

One gate serves the process (`READ_GATE`): the event loop and the screen are
shared by every connection in it. Nothing holds it without a UI (`acp-tui print`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Final

import anyio
from anyio.lowlevel import RunVar

__all__ = ["MAX_HOLD", "READ_GATE", "ReadGate"]

MAX_HOLD: Final = 0.05
"""Seconds a read loop waits at most for a held gate."""


@dataclass
class _State:
    """A gate's state in one event loop."""

    opened: anyio.Event | None = None
    """Set when the gate opens (None: open)."""
    read_since: float = field(default_factory=lambda: time.monotonic())
    """When the last wait ended: the reader has read since then."""


class ReadGate:
    """Held while the UI makes a frame; read loops wait for it between slices.

    Its state belongs to the running event loop (an `anyio.lowlevel.RunVar`): an
    event is bound to the loop it was made in, and a process may run several
    loops one after another (tests do).
    """

    def __init__(self, max_hold: float = MAX_HOLD) -> None:
        self.max_hold = max_hold
        self._state: RunVar[_State] = RunVar("read_gate")

    def _current(self) -> _State:
        try:
            return self._state.get()
        except LookupError:
            state = _State()
            self._state.set(state)
            return state

    @property
    def held(self) -> bool:
        """Whether the gate is held (a frame is being made) in this event loop."""
        return self._current().opened is not None

    def hold(self) -> None:
        """Hold the gate (again): a batch went to the widgets, a frame will come.

        Called from the event loop's thread.
        """
        state = self._current()
        if state.opened is None:
            state.opened = anyio.Event()

    def release(self) -> None:
        """Open the gate: the frame is painted (or no longer expected)."""
        state = self._current()
        opened, state.opened = state.opened, None
        if opened is not None:
            opened.set()

    async def wait(self) -> None:
        """Wait while the gate is held, at most as long as the reader read."""
        state = self._current()
        opened = state.opened
        if opened is not None:
            read = time.monotonic() - state.read_since
            with anyio.move_on_after(min(read, self.max_hold)):
                await opened.wait()
        state.read_since = time.monotonic()


READ_GATE: Final = ReadGate()
"""The process's gate (see the module)."""
