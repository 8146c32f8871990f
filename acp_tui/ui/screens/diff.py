"""A diff full screen: the whole diff of one `diff` content item. Esc closes it.

The card shows a diff in a bounded box; this screen gives it the terminal:
title bar with the files and +/- counts, the line-virtualised `DiffView`
(`s` side by side / unified, Enter or a click opens folded context, `e` opens
all), and a footer with the keys.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Static

from acp_tui.protocol.framing import printable
from acp_tui.store.values import JSONObject
from acp_tui.ui.widgets.diff_view import DiffView, diff_document

__all__ = ["DiffScreen"]


class DiffScreen(Screen[None]):
    """One diff item, full screen.

    Args:
        item: The `diff` content item (v1 or v2).
    """

    DEFAULT_CSS = """
    DiffScreen {
        background: $surface;
        & > #diff-title {
            dock: top;
            height: 1;
            background: $panel;
            color: $foreground;
            text-style: bold;
            padding: 0 1;
        }
        & > #diff-view { height: 1fr; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("q", "close", "Close", show=False),
    ]

    def __init__(self, item: JSONObject) -> None:
        super().__init__()
        self.item = item
        self.document = diff_document(item)

    def compose(self) -> ComposeResult:
        """Title, diff, footer."""
        yield Static(Content(self._title()), id="diff-title")
        yield DiffView(self.document, id="diff-view")
        yield Footer()

    def on_mount(self) -> None:
        """Keys go to the diff."""
        self.query_one(DiffView).focus()

    def _title(self) -> str:
        document = self.document
        files = document.files
        count = len(document.changes) or len(files)  # `changes` is the authority
        noun = "file" if count == 1 else "files"
        label = files[0].path if count == 1 and files else f"{count} {noun}"
        patch = document.patch
        counts = (
            f"  +{patch.added} -{patch.removed}"
            if patch is not None and (patch.added or patch.removed)
            else ""
        )
        return printable(f"diff · {label}{counts}")

    def action_close(self) -> None:
        """Back to the conversation."""
        self.dismiss(None)
