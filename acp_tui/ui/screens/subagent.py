"""A subagent full screen: its own conversation, live. Esc closes it.

The screen shows the subagent's own store (messages, tool calls, terminals,
nested subagents) in a `Conversation` of its own, under a live status line
(`render.subagents.status_line`). It follows the subagent's store directly:
changes are collected as they come and handed to the conversation
`FLUSH_INTERVAL` apart, so a fast subagent costs one batch per interval. It
hosts its cards' own full screens (`FullScreenOpener`), like the pane.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Static

from acp_tui.render.subagents import status_line, tool_call_count
from acp_tui.safe_text import printable
from acp_tui.store.changes import Change
from acp_tui.store.store import SessionStore
from acp_tui.ui.screens.openers import FullScreenOpener
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.subagent_lane import now_ms, subagent_title

__all__ = ["FLUSH_INTERVAL", "SubagentScreen"]

FLUSH_INTERVAL: Final = 1 / 20
"""Seconds between two batches of the subagent's changes."""


class SubagentScreen(FullScreenOpener, Screen[None]):
    """One subagent, full screen.

    Args:
        store: The parent session's store.
        subagent_id: The subagent to show.
    """

    DEFAULT_CSS = """
    SubagentScreen {
        background: $surface;
        & > #subagent-title {
            dock: top;
            height: auto;
            background: $panel;
            padding: 0 1;
        }
        & > #subagent-footer {
            dock: bottom;
            height: 1;
            background: $panel;
            color: $text-muted;
            padding: 0 1;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close"),
    ]

    def __init__(self, store: SessionStore, subagent_id: str) -> None:
        super().__init__()
        self.store = store
        self.subagent_id = subagent_id
        self.conversation = Conversation(id="subagent-conversation")
        self._title = Static(id="subagent-title")
        self._pending: list[Change] = []
        self._unsubscribe = (
            None
            if self.own_store is None
            else (self.own_store.subscribe(self._pending.extend))
        )

    @property
    def own_store(self) -> SessionStore | None:
        """The subagent's own store."""
        return self.store.subagent_store(self.subagent_id)

    def compose(self) -> ComposeResult:
        """Status line, conversation, footer."""
        yield self._title
        yield self.conversation
        yield Static("esc closes", id="subagent-footer")

    async def on_mount(self) -> None:
        """Show the subagent so far, then follow it."""
        self.refresh_title()
        own = self.own_store
        if own is not None:
            self._pending.clear()
            await self.conversation.apply_changes(own, ())
        self.set_interval(FLUSH_INTERVAL, self._flush)
        self.set_interval(1.0, self.refresh_title)
        self.conversation.focus()

    def on_unmount(self) -> None:
        """Stop following the store."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    async def _flush(self) -> None:
        own = self.own_store
        if not self._pending or own is None:
            return
        batch: Sequence[Change] = tuple(self._pending)
        self._pending.clear()
        await self.conversation.apply_changes(own, batch)
        self.refresh_title()

    def title_text(self) -> Text:
        """The status line (agent text stays plain)."""
        subagent = self.store.subagent(self.subagent_id)
        if subagent is None:
            return Text(f"subagent {printable(self.subagent_id)}")
        text = subagent_title(subagent)
        line = status_line(subagent, now_ms(), tool_call_count(self.own_store))
        text.append("\n" + printable(line))
        return text

    def refresh_title(self) -> None:
        """Redraw the status line."""
        self._title.update(self.title_text())

    def action_close(self) -> None:
        """Close the screen."""
        self.dismiss()
