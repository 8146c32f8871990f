"""The banner shown when the agent's connection is gone, with a restart button.

The conversation stays above it. The button (and ctrl+r) restarts the agent
and resumes the session; the banner then turns into a plain record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Static

from acp_tui.safe_text import printable

__all__ = ["CrashBanner"]


class CrashBanner(Vertical):
    """Why the agent stopped, its stderr tail, and a restart button."""

    DEFAULT_CSS = """
    CrashBanner {
        height: auto;
        border: heavy $error;
        padding: 0 1;
        margin: 0 0 1 0;
        & > #crash-text { color: $text-error; text-style: bold; }
        & > #crash-stderr { color: $text-muted; }
        & > Horizontal { height: auto; margin-top: 1; }
        &.-restarted > Horizontal { display: none; }
    }
    """

    @dataclass
    class RestartPressed(Message):
        """The user asked to restart the agent."""

        banner: CrashBanner

        @property
        def control(self) -> CrashBanner:
            """The banner whose button was pressed."""
            return self.banner

    def __init__(self, text: str, stderr_tail: Sequence[str] = ()) -> None:
        super().__init__()
        self.text = text
        self.stderr_tail = tuple(stderr_tail)

    def compose(self) -> ComposeResult:
        """Build the child widgets."""
        yield Static(Text(printable(f"Agent stopped: {self.text}")), id="crash-text")
        if self.stderr_tail:
            lines = [printable(f"| {line}") for line in self.stderr_tail]
            yield Static(Text("\n".join(lines)), id="crash-stderr")
        with Horizontal():
            yield Button("Restart agent (ctrl+r)", id="restart", variant="primary")

    @on(Button.Pressed, "#restart")
    def _restart(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.RestartPressed(self))

    def restarted(self) -> None:
        """The agent was restarted: keep the record, drop the button."""
        self.add_class("-restarted")
