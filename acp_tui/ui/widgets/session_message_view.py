"""A message between sessions (`store.reports.SessionMessage`), with its source.

A message this session sent reads `to session <id>`; one it received reads
`from session <id>` (`render.reports.source_line`). Its text streams in as
chunks arrive. Agent text passes through `printable` and is never markup.
"""

from __future__ import annotations

from typing import Final

from rich.text import Text
from textual.widgets import Static

from acp_tui.render.reports import source_line
from acp_tui.safe_text import printable
from acp_tui.store.reports import SessionMessage

__all__ = ["SessionMessageView"]

MAX_CHARS: Final = 50_000
"""The text shown is cut to this many characters."""


class SessionMessageView(Static):
    """A message sent to or received from another session."""

    DEFAULT_CSS = """
    SessionMessageView {
        height: auto;
        padding: 0 1;
        margin: 0 0 1 0;
        border-left: double $accent;
    }
    """

    def __init__(self, message: SessionMessage, own_session_id: str) -> None:
        super().__init__()
        self.own_session_id = own_session_id
        self.message = message
        self.update(self._text(message))

    def _text(self, message: SessionMessage) -> Text:
        text = Text()
        text.append(source_line(message, self.own_session_id), style="bold")
        body = message.text
        if body:
            text.append("\n")
            text.append(printable(body[:MAX_CHARS], keep="\n\t"))
        return text

    def update_session_message(self, message: SessionMessage) -> None:
        """Show a newer snapshot (participants or text changed)."""
        if message is self.message:
            return
        self.message = message
        self.update(self._text(message))
