"""The start panel: which agent is starting, how, and what it writes to stderr.

Shown while the agent initialises (and while it is being restarted), so a slow
`npx` download or a missing login is visible rather than a blank screen. It
polls the transport's stderr ring buffer; the lines are agent data, escaped.

Once the session is open, and until the first prompt is sent, it is the first
screen (`welcome`): the agent (name, version, protocol version), the directory,
the session (new or resumed) and what to try: `/help` for the built-in demo (with
how to pick a real agent, which the CLI used to print to stderr), or a real
agent's slash commands as it advertises them (`set_commands`). All of it is agent
data or paths: plain `Text`, never markup.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Final

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import Static

from acp_tui.safe_text import printable

__all__ = ["DEMO_HINT", "StartView", "Welcome"]

POLL: Final = 0.25
"""Seconds between stderr polls."""
TAIL: Final = 8
"""How many stderr lines are shown."""


PROGRESS_FROM: Final = 100
"""Messages exchanged since the start from which the title counts them (a
resumed session's replay; a plain start exchanges a handful)."""


TRY_COMMANDS: Final = 6
"""How many of a real agent's slash commands the "try" line names."""

DEMO_HINT: Final = (
    "This is the built-in demo agent. For a real one: acp-tui --agent claude-code "
    "(acp-tui agents lists them)."
)


@dataclass(frozen=True, slots=True)
class Welcome:
    """What the first screen says about the session just opened."""

    agent: str
    """The agent's display name."""
    version: str | None
    protocol_version: int
    directory: str
    """The session's directory, as people read it."""
    session_id: str
    resumed: bool
    title: str | None = None
    demo: bool = False
    """The built-in demo agent (try `/help`; how to pick a real agent)."""
    commands: tuple[str, ...] = ()
    """The agent's slash command names (without `/`)."""

    def lines(self) -> list[tuple[str, str]]:
        """The (label, text) rows under the title."""
        if self.resumed:
            session = "resumed"
            if self.title:
                session += f": {self.title}"
        else:
            session = "new"
        rows = [
            ("Directory", self.directory),
            ("Session", f"{session} ({self.session_id})"),
        ]
        if self.demo:
            rows.append(("Try", "/help: what the demo can show (type / for commands)"))
        elif self.commands:
            names = " ".join("/" + name for name in self.commands[:TRY_COMMANDS])
            more = " …" if len(self.commands) > TRY_COMMANDS else ""
            rows.append(("Try", f"{names}{more} (type / for all, @ for files)"))
        else:
            rows.append(("Try", "type a message; / for commands, @ for files"))
        return rows


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
        & > #start-demo { color: $text-muted; margin-top: 1; }
        &.-welcome { border: round $primary; }
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
        self.welcoming: Welcome | None = None
        """What the first screen shows (None: not showing it)."""

    def compose(self) -> ComposeResult:
        """Build the child widgets."""
        yield Static(id="start-title")
        yield Static(id="start-command")
        yield Static(id="start-stderr")
        yield Static(id="start-welcome")
        yield Static(id="start-demo")

    def on_mount(self) -> None:
        """Render and start polling."""
        self._show_welcome_parts(False)
        self._render_title()
        self._timer = self.set_interval(POLL, self._poll)

    def starting(self, name: str, command: str, phase: str = "Starting") -> None:
        """Show (again) for an agent being started."""
        self._title = f"{phase} {name}…"
        self._command = command
        self._since = _now()
        self._messages_before = self._messages() if self._messages else 0
        self._shown = ()
        self.welcoming = None
        self.display = True
        self._show_welcome_parts(False)
        self._render_title()
        self.query_one("#start-stderr", Static).update("")
        if self._timer is not None:
            self._timer.resume()

    def finished(self) -> None:
        """The session is open, or the first prompt sent: hide and stop polling."""
        self.display = False
        self.welcoming = None
        if self._timer is not None:
            self._timer.pause()

    def welcome(self, welcome: Welcome) -> None:
        """The session is open: show the first screen until the first prompt."""
        if self._timer is not None:
            self._timer.pause()
        self.welcoming = welcome
        self.display = True
        self._show_welcome_parts(True)
        self._render_welcome()

    def set_commands(self, commands: Sequence[str]) -> None:
        """The agent's slash commands changed: the "try" line names them."""
        if self.welcoming is not None:
            self.welcoming = replace(self.welcoming, commands=tuple(commands))
            self._render_welcome()

    def _show_welcome_parts(self, welcome: bool) -> None:
        self.set_class(welcome, "-welcome")
        self.query_one("#start-command").display = not welcome
        self.query_one("#start-stderr").display = not welcome
        self.query_one("#start-welcome").display = welcome
        self.query_one("#start-demo").display = welcome and bool(
            self.welcoming and self.welcoming.demo
        )

    def _render_welcome(self) -> None:
        welcome = self.welcoming
        if welcome is None:
            return
        title = welcome.agent
        if welcome.version:
            title += f" {welcome.version}"
        title += f" · ACP v{welcome.protocol_version}"
        self.query_one("#start-title", Static).update(Text(printable(title)))
        rows = welcome.lines()
        width = max(len(label) for label, _ in rows) + 2
        body = Text()
        for index, (label, value) in enumerate(rows):
            if index:
                body.append("\n")
            body.append(label.ljust(width), style="bold")
            body.append(printable(value))
        self.query_one("#start-welcome", Static).update(body)
        self.query_one("#start-demo", Static).update(Text(DEMO_HINT))

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
        if not self.display or self.welcoming is not None:
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
