"""The whole of a long message, in a pager: what the conversation's window leaves out.

The conversation draws a long message as a window (its start, a notice, its end:
see `acp_tui.ui.widgets.markdown_view`). This screen shows all the text the store
keeps of it, and where the store cut a message too long to keep, a line saying
how many characters are missing there. `s` saves that text to a file (in the data
directory's `exports/`) and says where; Esc or `q` closes.

The text is plain (agent text made printable, never markup, and not markdown:
drawing megabytes of markdown is what the window avoids). `TextPager` draws only
the rows on screen: per width it splits the text into lines once (`str.split`)
and counts the rows each wraps to, so a row is found by bisection and drawn
from a slice of its line. Opening a message of 16 Mi characters costs one pass
over it; scrolling costs what is on screen.
"""

from __future__ import annotations

import bisect
import itertools
import time
from pathlib import Path
from typing import ClassVar, Final

from rich.segment import Segment
from rich.style import Style
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.geometry import Size
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Static

from acp_tui.safe_text import printable
from acp_tui.storage import paths
from acp_tui.store.model import Message
from acp_tui.ui.saved_files import save_text
from acp_tui.ui.widgets.footer import Footer

__all__ = ["EXPORTS_DIR", "MessagePager", "TextPager", "message_pager_text"]

EXPORTS_DIR: Final = "exports"
"""Where `s` saves, under `paths.data_dir()`."""


def message_pager_text(message: Message) -> str:
    """All the text the store keeps of `message`, the cut (if any) marked."""
    if not message.capped:
        return message.text
    notice = message.cut_notice()
    if notice:
        notice = f"\n\n{notice}\n\n"
    return message.head_text + notice + (message.tail or "")


class TextPager(ScrollView, can_focus=True):
    """Plain text, wrapped to the width, drawn row by row (Line API).

    Args:
        text: The text (made printable row by row as it is drawn).
    """

    DEFAULT_CSS = """
    TextPager {
        height: 1fr;
        padding: 0 1;
    }
    """

    def __init__(self, text: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = text
        self._lines = text.split("\n")
        self._width = -1
        self._row_starts: list[int] = [0]
        """The first row of each line, then the row count, at `_width`."""

    def _layout(self, width: int) -> None:
        width = max(width, 1)
        if width == self._width:
            return
        self._width = width
        rows = (max(1, -(-len(line) // width)) for line in self._lines)
        self._row_starts = list(itertools.accumulate(rows, initial=0))
        self.virtual_size = Size(width, self._row_starts[-1])

    def on_resize(self) -> None:
        """Wrap again at the new width."""
        self._layout(self.scrollable_content_region.width)

    def on_mount(self) -> None:
        """Wrap at the width the pager got."""
        self._layout(self.scrollable_content_region.width)

    @property
    def row_count(self) -> int:
        """How many rows the text wraps to at the current width."""
        return self._row_starts[-1]

    def row_text(self, row: int) -> str:
        """The text of one row (as drawn: printable)."""
        index = bisect.bisect_right(self._row_starts, row) - 1
        if not 0 <= index < len(self._lines):
            return ""
        start = (row - self._row_starts[index]) * self._width
        return printable(self._lines[index][start : start + self._width])

    def render_line(self, y: int) -> Strip:
        """One row of the text, at the scroll offset."""
        width = self.scrollable_content_region.width
        self._layout(width)
        row = self.scroll_offset.y + y
        style = self.rich_style
        if row >= self.row_count:
            return Strip.blank(width, style)
        segment = Segment(self.row_text(row), Style())
        return Strip([segment]).crop_extend(0, width, style).apply_style(style)


class MessagePager(Screen[None]):
    """One message, whole (what the store keeps of it).

    Args:
        message: The message snapshot to show.
    """

    DEFAULT_CSS = """
    MessagePager {
        & > #pager-title {
            height: auto;
            background: $panel;
            color: $text-primary;
            text-style: bold;
            padding: 0 1;
        }
        & > #pager-summary { height: auto; color: $text-muted; padding: 0 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close"),
        Binding("s", "save", "Save to a file"),
        Binding("home,g", "top", "Top", show=False),
        Binding("end,G", "bottom", "End", show=False),
    ]

    def __init__(self, message: Message) -> None:
        super().__init__()
        self.message = message
        self.text = message_pager_text(message)
        self.saved_to: Path | None = None

    def summary(self) -> str:
        """What the pager shows of the message, in figures."""
        message = self.message
        size = message.text_size
        if not message.capped or not (message.cut_chars or message.cut_blocks):
            return f"{size:,} characters"
        kept = size - message.cut_chars
        text = (
            f"{size:,} characters, of which the app keeps {kept:,} (the start and "
            f"the end): {message.cut_chars:,} were cut"
        )
        if message.cut_blocks:
            text += f", and {message.cut_blocks:,} non-text blocks"
        return text

    def compose(self) -> ComposeResult:
        """Build the title, the figures, the text and the footer."""
        role = {"agent": "Agent", "user": "Your", "thought": "Thought"}.get(
            self.message.role, "A"
        )
        yield Static(Content(f"{role} message, whole"), id="pager-title")
        yield Static(Content(self.summary()), id="pager-summary")
        yield TextPager(self.text, id="pager-text")
        yield Footer()

    def on_mount(self) -> None:
        """Scroll with the keys at once."""
        self.query_one(TextPager).focus()

    def action_close(self) -> None:
        """Back to the conversation."""
        self.dismiss(None)

    def action_top(self) -> None:
        """The start of the text."""
        self.query_one(TextPager).scroll_home(animate=False)

    def action_bottom(self) -> None:
        """The end of the text."""
        self.query_one(TextPager).scroll_end(animate=False)

    def action_save(self) -> None:
        """Save the text to a new file in the data directory and say where."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        name = "".join(
            ch if ch.isalnum() or ch in "-_" else "_"
            for ch in self.message.message_id[:40]
        )
        path = paths.data_dir() / EXPORTS_DIR / f"message-{name}-{stamp}.txt"
        if save_text(self, path, self.text, saved="Message saved", failed="Not saved"):
            self.saved_to = path
