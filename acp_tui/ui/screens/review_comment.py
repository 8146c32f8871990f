"""Ask for a review comment on a hunk (or a file) of the turn's changes.

`CommentScreen` dismisses with the comment typed (stripped; Enter), or None
(Esc, or nothing typed). The heading names the place (`src/x.py:10-14`) and
quotes the hunk's first changed lines, as printable text, never markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from acp_tui.safe_text import printable

__all__ = ["CommentScreen"]

QUOTED_LINES = 6
"""Quoted lines shown above the field at most."""


class CommentScreen(ModalScreen[str | None]):
    """Ask for one comment.

    Args:
        place: Where it is about (`path:line`), already printable.
        quoted: The diff lines it is about, each with its `+`, `-` or space.
    """

    DEFAULT_CSS = """
    CommentScreen {
        align: center middle;
        & > #comment-box {
            width: 80%;
            max-width: 100;
            height: auto;
            border: thick $primary;
            background: $surface;
            padding: 1 2;
        }
        & #comment-quote { color: $text-muted; margin-bottom: 1; }
        & #comment-hint { color: $text-muted; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, place: str, quoted: Sequence[str]) -> None:
        super().__init__()
        self.place = place
        self.quoted = tuple(quoted)

    def compose(self) -> ComposeResult:
        """Heading, quoted lines, the field, the keys."""
        shown = [printable(line) for line in self.quoted[:QUOTED_LINES]]
        if len(self.quoted) > QUOTED_LINES:
            shown.append(f"… {len(self.quoted) - QUOTED_LINES} more lines")
        with Vertical(id="comment-box"):
            yield Static(Content(f"Comment on {self.place}"), id="comment-heading")
            yield Static(Content("\n".join(shown)), id="comment-quote")
            yield Input(placeholder="What should the agent do here?", id="comment")
            yield Static(
                Content("enter adds it to the review · esc cancels"),
                id="comment-hint",
            )

    def on_mount(self) -> None:
        """Type at once."""
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        self.dismiss(text or None)

    def action_cancel(self) -> None:
        """No comment."""
        self.dismiss(None)
