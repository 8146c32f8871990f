"""A diff full screen: the whole diff of one `diff` content item. Esc closes it.

The card shows a diff in a bounded box; this screen gives it the terminal:
title bar with the files and +/- counts, the line-virtualised `DiffView`
(`s` side by side / unified, Enter or a click opens folded context, `e` opens
all), and a footer with the keys. Paths read as the card shows them (relative
to the session's directory); the title's tooltip and `p` give the full paths
(`p` also copies them).
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen

from acp_tui.display_paths import AS_SENT, PathDisplay
from acp_tui.store.values import JSONObject
from acp_tui.ui.widgets.diff_view import DiffView, diff_document, diff_paths
from acp_tui.ui.widgets.footer import Footer
from acp_tui.ui.widgets.frames import ScreenTitle
from acp_tui.ui.widgets.path_lines import (
    PathLine,
    copy_full_paths,
    full_paths_text,
)

__all__ = ["DiffScreen"]


class DiffScreen(Screen[None]):
    """One diff item, full screen.

    Args:
        item: The `diff` content item (v1 or v2).
        paths: How its paths are shown (the card passes its session's).
    """

    DEFAULT_CSS = """
    DiffScreen {
        background: $surface;
        & > #diff-view { height: 1fr; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("q", "close", "Close", show=False),
        Binding("p", "show_paths", "Full paths"),
    ]

    def __init__(self, item: JSONObject, paths: PathDisplay = AS_SENT) -> None:
        super().__init__()
        self.item = item
        self.paths = paths
        self.document = diff_document(item, paths)

    def compose(self) -> ComposeResult:
        """Title, diff, footer."""
        title = ScreenTitle(id="diff-title")
        title.show_lines([self._title()], self.paths)
        yield title
        yield DiffView(self.document, id="diff-view")
        yield Footer()

    def on_mount(self) -> None:
        """Keys go to the diff."""
        self.query_one(DiffView).focus()

    def _title(self) -> PathLine:
        document = self.document
        files = document.files
        count = len(document.changes) or len(files)  # `changes` is the authority
        noun = "file" if count == 1 else "files"
        patch = document.patch
        counts = (
            f"  +{patch.added} -{patch.removed}"
            if patch is not None and (patch.added or patch.removed)
            else ""
        )
        if count == 1 and files:
            return PathLine("diff · ", files[0].path, counts)
        return PathLine(f"diff · {count} {noun}{counts}")

    def action_show_paths(self) -> None:
        """Show the full paths the diff names, and copy them (`p`)."""
        copy_full_paths(
            self,
            full_paths_text(self.paths, diff_paths(self.item)),
            none="this diff names no path",
        )

    def action_close(self) -> None:
        """Back to the conversation."""
        self.dismiss(None)
