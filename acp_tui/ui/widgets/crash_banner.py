"""The banner shown when the agent's connection is gone, with a restart button.

The conversation stays above it. The button (and ctrl+r) restarts the agent
and resumes the session. Once the agent is back the banner leaves: a one-line
`RestartNote` takes its place, so the conversation keeps the record without a
red "Agent stopped" that no longer holds.

The restart is offered only when it can help (`can_restart`, from
`acp_tui.client.runner.restart_may_help`): for a program that could not be
started, or that is not an ACP agent, a restart would fail the same way, so the
banner says what to do instead and has no button.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Static

from acp_tui.safe_text import printable

__all__ = ["NO_RESTART_HINT", "CrashBanner", "RestartNote"]

NO_RESTART_HINT = (
    "A restart would fail the same way: check the agent's command and set-up "
    "(acp-tui agents lists the known agents), then start acp-tui again."
)
"""What the banner says instead of offering a restart that cannot help."""


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
        & > #crash-hint { margin-top: 1; }
        & > Horizontal { height: auto; margin-top: 1; }
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

    def __init__(
        self, text: str, stderr_tail: Sequence[str] = (), *, can_restart: bool = True
    ) -> None:
        super().__init__()
        self.text = text
        self.stderr_tail = tuple(stderr_tail)
        self.can_restart = can_restart
        """A restart may help: the button is offered (else a hint instead)."""

    def compose(self) -> ComposeResult:
        """Build the child widgets."""
        yield Static(Text(printable(f"Agent stopped: {self.text}")), id="crash-text")
        if self.stderr_tail:
            lines = [printable(f"| {line}") for line in self.stderr_tail]
            yield Static(Text("\n".join(lines)), id="crash-stderr")
        if self.can_restart:
            with Horizontal():
                yield Button("Restart agent (ctrl+r)", id="restart", variant="primary")
        else:
            yield Static(Text(NO_RESTART_HINT), id="crash-hint")

    @on(Button.Pressed, "#restart")
    def _restart(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.RestartPressed(self))

    async def restarted(self) -> None:
        """The agent is back: leave, with a one-line note in this place."""
        parent = self.parent
        if isinstance(parent, Widget) and self.is_attached:
            await parent.mount(RestartNote(self.text), after=self)
        await self.remove()


class RestartNote(Static):
    """Where a `CrashBanner` was: the agent stopped, and is back (muted)."""

    DEFAULT_CSS = """
    RestartNote {
        height: auto;
        color: $text-muted;
        padding: 0 1;
        margin: 0 0 1 0;
    }
    """

    def __init__(self, reason: str) -> None:
        note = f"↻ Agent restarted (it had stopped: {reason})"
        super().__init__(Text(printable(note)))
        self.reason = reason
        """Why it had stopped (the banner's text)."""
