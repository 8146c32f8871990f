"""A terminal full screen: the emulated output at the screen's size. Esc closes it.

The screen keeps its own emulator feed, at the screen's width and with a larger
budget (it shows more), and polls the store for new output a few times a
frame-interval (`POLL_INTERVAL`): it needs no wiring from the app, and a quiet
terminal costs one revision comparison per poll. Scrolling works as in the card:
the view follows the tail until the user scrolls up. The title's directory reads
as in the card (relative to the session's directory); its tooltip and `p` give
the full path (`p` also copies it).
"""

from __future__ import annotations

from time import monotonic
from typing import ClassVar, Final

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from acp_tui.render.terminal import TerminalFeed, exit_label, terminal_title_parts
from acp_tui.safe_text import printable
from acp_tui.store.store import SessionStore
from acp_tui.ui.widgets.frames import ScreenTitle
from acp_tui.ui.widgets.path_lines import (
    PathLine,
    copy_full_paths,
    session_paths,
)
from acp_tui.ui.widgets.terminal_view import (
    FLOOD_INTERVAL,
    TerminalLines,
    skipped_note,
)

__all__ = ["FULL_SCREEN_BUDGET", "POLL_INTERVAL", "TerminalScreen"]

POLL_INTERVAL: Final = 1 / 30
"""Seconds between two looks at the store for new output."""

FULL_SCREEN_BUDGET: Final = 96 * 1024
"""The most bytes one update of the full-screen feed emulates."""


class TerminalScreen(Screen[None]):
    """One terminal, full screen: title bar, scrollable output, exit status.

    Args:
        store: The session store holding the terminal.
        terminal_id: The terminal to show.
    """

    DEFAULT_CSS = """
    TerminalScreen {
        background: $surface;
        & > #terminal-lines { height: 1fr; }
        & > #terminal-footer {
            dock: bottom;
            height: 1;
            background: $panel;
            color: $text-muted;
            padding: 0 1;
            &.-ok { color: $success; }
            &.-failed { color: $error; }
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close"),
        Binding("home", "scroll_home", "Top", show=False),
        Binding("end", "scroll_end", "Bottom", show=False),
        Binding("p", "show_paths", "Full path"),
    ]

    def __init__(self, store: SessionStore, terminal_id: str) -> None:
        super().__init__()
        self.store = store
        self.terminal_id = terminal_id
        self.feed = TerminalFeed(budget=FULL_SCREEN_BUDGET)
        self.paths = session_paths(store)
        """How paths are shown (relative to the session's directory)."""
        self._title = ScreenTitle(id="terminal-title")
        self._lines = TerminalLines(self.feed, show_note=False, id="terminal-lines")
        self._footer = Static(id="terminal-footer")
        self._last_feed = -FLOOD_INTERVAL

    def compose(self) -> ComposeResult:
        """Title bar, output, footer."""
        yield self._title
        yield self._lines
        yield self._footer

    def on_mount(self) -> None:
        """Show the output so far, then keep polling for more."""
        self._lines.focus()
        self.refresh_terminal()
        self.set_interval(POLL_INTERVAL, self.refresh_terminal)

    @property
    def lines(self) -> TerminalLines:
        """The output view."""
        return self._lines

    def refresh_terminal(self) -> None:
        """Feed what the terminal printed since the last look and redraw.

        While output floods in (the last feed emulated only the tail), feeds are
        spaced by `FLOOD_INTERVAL`, as in the card.
        """
        now = monotonic()
        if self.feed.behind and now - self._last_feed < FLOOD_INTERVAL:
            return
        self._last_feed = now
        terminal = self.store.terminal(self.terminal_id)
        self._lines.fit_width()
        title = PathLine(*terminal_title_parts(terminal, self.terminal_id))
        self._title.show_lines([title], self.paths)
        if terminal is not None and self.feed.update(terminal):
            self._lines.sync()
        label = exit_label(terminal)
        parts = []
        if self.feed.skipped:
            parts.append(skipped_note(self.feed.skipped))
        if label is not None:
            parts.append(printable(label[0]))
        parts.append("esc closes")
        self._footer.set_class(label is not None and label[1], "-ok")
        self._footer.set_class(label is not None and not label[1], "-failed")
        self._footer.update(Content(" · ".join(parts)))

    @property
    def text(self) -> str:
        """The output as plain text (tests)."""
        return self.feed.plain_text()

    def action_show_paths(self) -> None:
        """Show the terminal's full directory, and copy it (`p`)."""
        copy_full_paths(
            self,
            "\n".join(self._title.full_paths),
            none="the agent did not say where it runs",
            title="Full path (copied)",
        )

    def action_close(self) -> None:
        """Close the full-screen view."""
        self.dismiss(None)

    def action_scroll_home(self) -> None:
        """Scroll to the oldest line kept."""
        self._lines.scroll_home(animate=False)

    def action_scroll_end(self) -> None:
        """Scroll to the newest line (and follow it again)."""
        self._lines.scroll_end(animate=False)
