"""The start panel: which agent is starting, how, and what it writes to stderr.

Shown while the agent initialises (and while it is being restarted), so a slow
`npx` download or a missing login is visible rather than a blank screen. It
polls the transport's stderr ring buffer; the lines are agent data, escaped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Final

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import Static

from acp_tui.safe_text import printable

__all__ = ["StartView"]

POLL: Final = 0.25
"""Seconds between stderr polls."""
TAIL: Final = 8
"""How many stderr lines are shown."""


PROGRESS_FROM: Final = 100
"""Messages exchanged since the start from which the title counts them (a
resumed session's replay; a plain start exchanges a handful)."""


def _now() -> float:
    """The clock for the elapsed time (replaced by snapshot tests)."""
    return time.monotonic()


class StartView(Vertical):
    """Agent name, command line, elapsed time and the stderr tail.

    While a resumed session replays a long history, the title counts the
    messages exchanged since the start, so a slow open visibly progresses.

    Args:
        stderr: Returns the agent's latest stderr lines.
        messages: Returns how many messages were exchanged so far (ever).
    """

    DEFAULT_CSS = """
    StartView {
        height: auto;
        max-height: 14;
        border: round $border;
        padding: 0 1;
        margin: 0 1;
        & > #start-title { text-style: bold; }
        & > #start-command { color: $text-muted; }
        & > #start-stderr { color: $text-warning; }
    }
    """

    def __init__(
        self,
        stderr: Callable[[], Sequence[str]],
        *,
        messages: Callable[[], int] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self._stderr = stderr
        self._messages = messages
        self._messages_before = 0
        self._title = "Starting…"
        self._command = ""
        self._since = _now()
        self._timer: Timer | None = None
        self._shown: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        """Build the child widgets."""
        yield Static(id="start-title")
        yield Static(id="start-command")
        yield Static(id="start-stderr")

    def on_mount(self) -> None:
        """Render and start polling."""
        self._render_title()
        self._timer = self.set_interval(POLL, self._poll)

    def starting(self, name: str, command: str, phase: str = "Starting") -> None:
        """Show (again) for an agent being started."""
        self._title = f"{phase} {name}…"
        self._command = command
        self._since = _now()
        self._messages_before = self._messages() if self._messages else 0
        self._shown = ()
        self.display = True
        self._render_title()
        self.query_one("#start-stderr", Static).update("")
        if self._timer is not None:
            self._timer.resume()

    def finished(self) -> None:
        """The session is open: hide and stop polling."""
        self.display = False
        if self._timer is not None:
            self._timer.pause()

    def _render_title(self) -> None:
        elapsed = int(_now() - self._since)
        suffix = f" ({elapsed}s)" if elapsed else ""
        exchanged = self._messages() - self._messages_before if self._messages else 0
        if exchanged >= PROGRESS_FROM:
            suffix = f" {exchanged:,} messages{suffix}"
        self.query_one("#start-title", Static).update(
            Text(printable(self._title + suffix))
        )
        self.query_one("#start-command", Static).update(
            Text(printable(f"$ {self._command}") if self._command else "")
        )

    def _poll(self) -> None:
        if not self.display:
            return
        self._render_title()
        lines = tuple(self._stderr()[-TAIL:])
        if lines != self._shown:
            self._shown = lines
            text = "\n".join(printable(line) for line in lines)
            self.query_one("#start-stderr", Static).update(Text(text))

    @property
    def stderr_text(self) -> str:
        """The stderr lines shown (for tests)."""
        return "\n".join(self._shown)
