"""The status bar: who we talk to, the session, and what the agent is doing.

Agent name and version, protocol version, session title, state with a spinner
and the turn's elapsed time, the last stop reason, context usage and cost, and
the current mode and model. Everything shown comes from the store or the
connection and is agent data, so the line is built as plain `Text`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Final

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from acp_tui.client.options import current_name
from acp_tui.safe_text import printable
from acp_tui.store.model import Usage
from acp_tui.store.store import SessionStore

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


def _tokens(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    if count >= 1000:
        return f"{count / 1000:.0f}k" if count >= 10_000 else f"{count / 1000:.1f}k"
    return str(count)


def format_usage(usage: Usage | None) -> str | None:
    """Context use (`ctx 12k/200k 6%`) and cost (`$0.42`), when known."""
    if usage is None:
        return None
    parts: list[str] = []
    if usage.used is not None and usage.size:
        percent = 100 * usage.used / usage.size
        parts.append(f"ctx {_tokens(usage.used)}/{_tokens(usage.size)} {percent:.0f}%")
    elif usage.used is not None:
        parts.append(f"ctx {_tokens(usage.used)}")
    cost = usage.cost or {}
    amount = cost.get("amount")
    if isinstance(amount, int | float) and not isinstance(amount, bool):
        currency = cost.get("currency")
        prefix = "$" if currency in (None, "USD") else f"{currency} "
        parts.append(f"{prefix}{amount:.2f}")
    return " ".join(parts) or None


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
        self._busy_since: float | None = None
        self._frame = 0
        self._timer: Timer | None = None
        self._shown: str | None = None

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
        parts: list[str] = []
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
            usage = format_usage(store.usage)
            if usage:
                parts.append(usage)
            title = store.session_info.title
            if title:
                parts.append(title if len(title) <= 40 else title[:39] + "…")
        if self.queued:
            parts.append(f"{self.queued} queued")
        return printable(SEPARATOR.join(parts))

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
        text = self.status_text()
        if text != self._shown:
            self._shown = text
            # One line as wide as the screen, whatever it says: a layout (the
            # whole screen reflowed) would find that nothing moved.
            self.update(Text(text), layout=False)

    def _tick(self) -> None:
        self._frame += 1
        self.refresh_status()
