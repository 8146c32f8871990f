"""The status bar: who we talk to, the session, and what the agent is doing.

Agent name and version, protocol version, session title, state with a spinner
and the turn's elapsed time, the last stop reason, the context meter and cost, the
last turn's tokens (`widgets.context_meter`), the current mode and model, and the
signed-in account. Everything shown comes from the store or the connection and is
agent data, so the line is built as `Content` from plain strings and theme
styles, never markup.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from textual.content import Content
from textual.timer import Timer
from textual.widgets import Static

from acp_tui.client.options import current_name
from acp_tui.safe_text import printable
from acp_tui.store.auth_status import AuthStatus
from acp_tui.store.model import Usage
from acp_tui.store.store import SessionStore
from acp_tui.ui.widgets.context_meter import (
    Part,
    account_part,
    meter_part,
    turn_usage_part,
)

if TYPE_CHECKING:
    from acp_tui.client.connection import AgentIdentity

__all__ = ["WAITING_FOR_YOU", "StatusBar", "format_elapsed", "format_usage"]

SPINNER: Final = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TICK: Final = 0.08
"""Seconds between spinner frames while the agent works: 12.5 a second, the
usual pace of this braille spinner. Its frame is also the screen's heartbeat
while output floods in and the views are fed on purpose less often (a terminal
card every `FLOOD_INTERVAL`): at 0.1 s, spinner frames alone left gaps of
100-106 ms between frames (bench/terminal.py), with the event loop free every
2 ms to take a key."""
SEPARATOR: Final = " │ "
WAITING_FOR_YOU: Final = "waiting for you"
"""The state shown while a permission dialog is up (or the agent reports
`requires_action`): what the user should do, not the protocol's word."""


def format_elapsed(seconds: float) -> str:
    """`7s`, `2m05s`, `1h02m`."""
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"


def format_usage(usage: Usage | None) -> str | None:
    """The context meter and cost as plain text (`widgets.context_meter`)."""
    part = meter_part(usage)
    return part[0] if part is not None else None


KEPT: Final = 3
"""Left parts always shown (cut if need be): the agent, the protocol, the state."""

MIN_CUT_PART: Final = 12
"""Cells a part cut short must keep (`model: Def…` says little; it is left out)."""


def _fitted(parts: Sequence[str | Part], room: int, keep: int) -> Content:
    """The left parts that fit in `room` cells, whole.

    The first `keep` (the agent, the protocol and the state) are shown however
    short they must be cut; a later one only if it fits, or if `MIN_CUT_PART`
    cells of it still show, cut short.
    """
    shown = _joined(parts[:keep])
    if shown.cell_length > room:
        return shown.truncate(room, ellipsis=True)
    for part in parts[keep:]:
        whole = _joined([part])
        left = room - shown.cell_length - len(SEPARATOR)
        if whole.cell_length <= left:
            shown = Content.assemble(shown, SEPARATOR, whole)
            continue
        if left >= MIN_CUT_PART:
            shown = Content.assemble(
                shown, SEPARATOR, whole.truncate(left, ellipsis=True)
            )
        break
    return shown


def _joined(parts: Sequence[str | Part]) -> Content:
    pieces: list[str | Part] = []
    for piece in parts:
        if pieces:
            pieces.append(SEPARATOR)
        pieces.append(printable(piece) if isinstance(piece, str) else piece)
    return Content.assemble(*pieces)


class StatusBar(Static):
    """One line of session status, refreshed by the app and by its own spinner."""

    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        background: $panel;
        color: $text;
        padding: 0 1;
        &.-busy { color: $text-accent; }
        &.-action { color: $text-warning; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.agent: AgentIdentity | None = None
        self.protocol_version: int | None = None
        self.store: SessionStore | None = None
        self.phase = "starting"
        """Shown instead of the session state while there is no session."""
        self.queued = 0
        self.cancelling = False
        self.waiting_for_user = False
        """A permission dialog is up (shown as `WAITING_FOR_YOU`)."""
        self.auth_status: AuthStatus | None = None
        """The agent's authentication status (unstable `auth/status`), if known."""
        self._busy_since: float | None = None
        self._frame = 0
        self._timer: Timer | None = None
        self._shown: tuple[str, tuple[object, ...]] | None = None

    def on_mount(self) -> None:
        """Render the initial status."""
        self.refresh_status()

    def _state_text(self, store: SessionStore) -> str:
        state = store.state
        if self.waiting_for_user or state.state == "requires_action":
            return WAITING_FOR_YOU
        if state.is_idle:
            if self.cancelling:
                return "cancelling…"
            reason = state.last_stop_reason
            return f"idle ({reason})" if reason else "idle"
        spinner = SPINNER[self._frame % len(SPINNER)]
        elapsed = ""
        if self._busy_since is not None:
            elapsed = " " + format_elapsed(time.monotonic() - self._busy_since)
        label = "cancelling…" if self.cancelling else state.state
        return f"{spinner} {label}{elapsed}"

    def status_text(self) -> str:
        """The status line as plain text."""
        return self.status_content().plain

    def status_content(self) -> Content:
        """The whole status line, left part then right part, unaligned."""
        right = [part for part in self._right_parts() if part is not None]
        return _joined([*self._left_parts(), *right])

    def _right_parts(self) -> tuple[Part | None, Part | None, Part | None]:
        """The meter, the last turn's tokens and the signed-in account."""
        account = account_part(self.auth_status)
        store = self.store
        if store is None:
            return None, None, account
        return meter_part(store.usage), turn_usage_part(store.turn_usage), account

    def status_line(self, width: int) -> Content:
        """The line as shown in `width` cells.

        The right part (what the agent reports about itself) flush right. When
        space is short, the last turn's tokens go first, then the account, so
        that the agent and its state still show; the left part is then cut
        short with `…`.
        """
        left_parts = self._left_parts()
        meter, turn, account = self._right_parts()
        if width <= 0 or (meter, turn, account) == (None, None, None):
            return self.status_content()
        left = _joined(left_parts)
        essential = _joined(left_parts[:KEPT]).cell_length + 1
        for shown in ((meter, turn, account), (meter, account), (meter,)):
            right = _joined([part for part in shown if part is not None])
            if width - right.cell_length - len(SEPARATOR) >= essential:
                break
        if not right.plain:
            return left.truncate(width, ellipsis=True)
        gap = width - left.cell_length - right.cell_length
        if gap >= len(SEPARATOR):
            return Content.assemble(left, " " * gap, right)
        room = width - right.cell_length - len(SEPARATOR)
        if room <= 1:
            return right.truncate(width, ellipsis=True)
        fitted = _fitted(left_parts, room, KEPT)
        gap = width - fitted.cell_length - right.cell_length  # flush right still
        return Content.assemble(fitted, " " * max(gap, len(SEPARATOR)), right)

    def _left_parts(self) -> list[str | Part]:
        parts: list[str | Part] = []
        if self.agent is not None:
            name = self.agent.display_name
            parts.append(f"{name} {self.agent.version}" if self.agent.version else name)
        if self.protocol_version is not None:
            parts.append(f"ACP v{self.protocol_version}")
        store = self.store
        if store is None:
            parts.append(self.phase)
        elif self.phase != "connected":
            # Disconnected (the agent stopped, a saved transcript...): the
            # store's last state (say `running`) is not happening any more.
            parts.append(self.phase)
        else:
            parts.append(self._state_text(store))
        if store is not None:
            for category in ("mode", "model"):
                current = current_name(store.settings, category)
                if current:
                    parts.append(f"{category}: {current}")
            title = store.session_info.title
            if title:
                parts.append(title if len(title) <= 40 else title[:39] + "…")
        if self.queued:
            parts.append(f"{self.queued} queued")
        return parts

    @property
    def busy(self) -> bool:
        """Whether the agent is working (the spinner runs)."""
        store = self.store
        return store is not None and store.state.is_busy and self.phase == "connected"

    def refresh_status(self) -> None:
        """Re-render from the current values; runs the spinner while busy."""
        busy = self.busy or self.cancelling
        if busy and self._busy_since is None:
            self._busy_since = time.monotonic()
        elif not busy:
            self._busy_since = None
        if busy and self._timer is None:
            self._timer = self.set_interval(TICK, self._tick)
        elif not busy and self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.set_class(busy and not self.waiting_for_user, "-busy")
        self.set_class(self.waiting_for_user, "-action")
        content = self.status_line(self.content_size.width)
        shown = (content.plain, tuple(content.spans))
        if shown != self._shown:
            self._shown = shown
            # One line as wide as the screen, whatever it says: a layout (the
            # whole screen reflowed) would find that nothing moved.
            self.update(content, layout=False)

    def on_resize(self) -> None:
        """Align the right part again."""
        self.refresh_status()

    def _tick(self) -> None:
        self._frame += 1
        self.refresh_status()
