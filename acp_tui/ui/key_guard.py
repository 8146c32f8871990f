"""The first-key guard of a dialog that may open while the user is typing.

A dialog an agent opens (a permission, an elicitation) can appear under keys
typed for the prompt. `KeyGuard` keeps such keys from answering it: the dialog is
*held* for `KEY_GUARD` seconds after it is shown, and then until the keyboard has
been quiet for `KEY_IDLE` seconds; a key dropped while held restarts the wait.
Every such dialog uses these times, so they all feel the same.

The dialog tells the guard when it is shown (`shown`, from `on_screen_resume`:
again after another screen covered it), when it is covered (`covered`) and
when it dropped a key (`held_key`); the guard calls `on_armed(bool)` when the
dialog becomes held or armed, from a timer it keeps on the dialog.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Final

from textual import events
from textual.timer import Timer
from textual.widget import Widget

from acp_tui.ui.textual_private import set_timer_once

__all__ = ["HELD_HINT", "KEY_GUARD", "KEY_IDLE", "Guarded", "KeyGuard"]

KEY_GUARD: Final = 0.5
"""Seconds after the dialog is shown during which no key acts (the `y` of
"hey" arrived 0.08 s after the permission dialog in issue 20)."""

KEY_IDLE: Final = 1.0
"""Seconds the keyboard must then be quiet: a key typed while the dialog is held
restarts this. Pauses between words are often longer than 0.2 s, so a short
quiet time would arm the dialog in the middle of a sentence."""

HELD_HINT: Final = (
    "Keys are held for a moment, so typing meant for the prompt cannot answer."
)
"""What a held dialog says."""


class KeyGuard:
    """Whether a dialog's keys may act yet (see the module docstring).

    Args:
        owner: The dialog (its timers run the arming).
        on_armed: Called with `True` when the dialog arms, `False` when it is
            held again.
        clock: Seconds, monotonic (tests pass their own).
    """

    def __init__(
        self,
        owner: Widget,
        on_armed: Callable[[bool], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.owner = owner
        self.on_armed = on_armed
        self.clock = clock
        """The time in seconds."""
        self.armed = False
        """Whether keys act (False: they are dropped)."""
        self._since = math.inf
        """When the dialog was last shown (infinity: not yet)."""
        self._quiet_from = -math.inf
        """When the last key was dropped."""
        self._timer: Timer | None = None

    def shown(self) -> None:
        """The dialog is shown (again): hold its keys from now."""
        self._since = self.clock()
        self._quiet_from = -math.inf
        self._set(False)
        self._wait()

    def covered(self) -> None:
        """Another screen covers the dialog: stop waiting."""
        self._stop_timer()

    def held_key(self) -> None:
        """A key was dropped while held: the quiet time starts again."""
        self._quiet_from = self.clock()
        self._wait()

    def check(self) -> bool:
        """Arm if the wait is over; whether keys act."""
        if not self.armed and self.clock() >= self._due():
            self._set(True)
        return self.armed

    def drops(self, event: events.Key) -> bool:
        """Whether the dialog must leave `event` alone (Esc, or any key while held).

        While held, keys with ctrl or alt (app shortcuts) pass on; any other
        key is stopped here and restarts the quiet time. Esc always passes on:
        it cancels the dialog through its binding.
        """
        if event.key == "escape":
            return True
        if self.check():
            return False
        if not event.key.startswith(("ctrl+", "alt+")):
            event.stop()
            event.prevent_default()
            self.held_key()
        return True

    def _due(self) -> float:
        return max(self._since + KEY_GUARD, self._quiet_from + KEY_IDLE)

    def _wait(self) -> None:
        self._stop_timer()
        delay = max(self._due() - self.clock(), 0.0) + 0.01
        self._timer = set_timer_once(self.owner, delay, self._tick, name="key-guard")

    def _tick(self) -> None:
        self._timer = None
        if not self.check():
            self._wait()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _set(self, armed: bool) -> None:
        self.armed = armed
        if armed:
            self._stop_timer()
        self.on_armed(armed)


class Guarded:
    """The screen events that keep a dialog's `guard` told.

    A plain mixin, listed before the screen class so that it does not hide the
    CSS base chain (see `acp_tui.ui.textual_private`).
    """

    guard: KeyGuard

    def on_screen_resume(self) -> None:
        """Shown (again): hold keys and clicks until the guard has passed."""
        self.guard.shown()

    def on_screen_suspend(self) -> None:
        """Another screen is over the dialog."""
        self.guard.covered()
