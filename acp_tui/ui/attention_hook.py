"""The app's attention signals: focus tracking and the events that trigger them.

A session pane posts an `AttentionEvent` (it bubbles to the app) when a turn
starts, ends or fails, and when the agent asks the user (a permission or an
elicitation). `AppAttention`, a part of `acp_tui.ui.app.AcpTuiApp`, follows the
terminal's focus reports (Textual's `AppFocus` / `AppBlur`) and writes what
`acp_tui.ui.attention.AttentionSignals` formats straight to the terminal
(`textual_private.write_to_terminal`):

* a desktop notification (and the bell, if asked) when a turn ends or the agent
  asks while the window is not focused; never before a focus report came;
* OSC 9;4 progress while any tab runs a turn, cleared when none does and when
  the app closes.

At run time the part is a plain class (like `AppTabs`), listed before `App`;
its handlers are found by name. The type checker sees an `App`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Final, Literal

from textual import events
from textual.app import App
from textual.message import Message
from textual.widget import Widget

from acp_tui.ui.attention import AttentionSignals
from acp_tui.ui.textual_private import write_to_terminal

if TYPE_CHECKING:
    from acp_tui.config import AttentionSettings
    from acp_tui.ui.session_pane import SessionPane

    _App = App[None]
else:
    _App = object

__all__ = ["AppAttention", "AttentionEvent", "AttentionKind", "signals_for"]

AttentionKind = Literal["started", "ended", "failed", "permission", "question"]
"""What happened in a pane: a turn started, ended or failed; the agent asks."""

TITLE: Final = "acp-tui"

WHAT: Final[dict[AttentionKind, str]] = {
    "ended": "the turn ended",
    "failed": "the turn failed",
    "permission": "needs your permission",
    "question": "asks you a question",
}
"""A notification's text after the tab's name, by kind."""


class AttentionEvent(Message):
    """Something in a pane the user may want to know about (bubbles to the app)."""

    def __init__(self, pane: Widget, kind: AttentionKind) -> None:
        super().__init__()
        self.pane = pane
        self.kind = kind


def signals_for(settings: AttentionSettings | None) -> AttentionSignals:
    """The signals `settings` ask for (None: the defaults), in this environment."""
    if settings is None:
        return AttentionSignals(env=dict(os.environ))
    return AttentionSignals(
        notify=settings.notify,
        bell=settings.bell,
        show_progress=settings.progress,
        env=dict(os.environ),
    )


class AppAttention(_App):
    """The attention signals of `AcpTuiApp` (see the module docstring)."""

    if TYPE_CHECKING:  # what the app provides
        _panes: list[SessionPane]

    attention: AttentionSignals
    """Set by the app (`signals_for` its settings)."""
    _running_panes: set[int]
    """The panes running a turn (their `id()`)."""

    def on_app_focus(self, _event: events.AppFocus) -> None:
        """The terminal window got the focus (it reports focus)."""
        self.attention.focus(True)

    def on_app_blur(self, _event: events.AppBlur) -> None:
        """The terminal window lost the focus."""
        self.attention.focus(False)

    def on_attention_event(self, message: AttentionEvent) -> None:
        """A turn started, ended or failed, or the agent asks: signal it."""
        message.stop()
        kind = message.kind
        running = self._running_panes
        key = id(message.pane)
        was_running = key in running
        if kind == "started":
            running.add(key)
        elif kind in ("ended", "failed"):
            running.discard(key)
        running &= {id(pane) for pane in self._panes}  # closed tabs run nothing
        out = self.attention.running(bool(running))
        what = WHAT.get(kind)
        if kind == "failed" and not was_running:
            what = None  # an agent that stopped between turns: no turn failed
        number = next(
            (n for n, pane in enumerate(self._panes, 1) if pane is message.pane), None
        )
        if what is not None and number is not None:
            pane = self._panes[number - 1]
            shown = number if len(self._panes) > 1 else None
            out += self.attention.alert(TITLE, f"{pane.label.name(shown)}: {what}")
        write_to_terminal(self, out)

    def stop_signals(self) -> None:
        """The app closes: clear the progress it shows."""
        write_to_terminal(self, self.attention.running(False))
