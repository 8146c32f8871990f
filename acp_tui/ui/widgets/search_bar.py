"""The search bar: a query line docked above the prompt, the conversation still in view.

ctrl+f opens it (the pane: `acp_tui.ui.pane_search`). Typing posts `Changed`
(the pane debounces it and searches the store); Enter, F3, ctrl+g or Down post
`Step(1)` (the next match), shift+Enter, shift+F3 or Up `Step(-1)`; alt+c toggles
case-sensitive matching; Esc posts `Closed`. The bar shows where the current
match stands ("3 / 17"), "no matches", or how many were found so far while the
scan goes on. The query is agent-independent text typed by the user; the count
and the labels are plain `Text`, never markup.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Static

__all__ = ["SearchBar"]


class SearchBar(Horizontal):
    """The search query, its count and the case toggle (see the module)."""

    DEFAULT_CSS = """
    SearchBar {
        height: 1;
        width: 1fr;
        background: $boost;
        & > .search-label { width: auto; padding: 0 1; color: $text-muted; }
        & > Input {
            width: 1fr;
            height: 1;
            border: none;
            padding: 0;
            background: $surface;
            &:focus { border: none; background-tint: $primary 10%; }
        }
        & > .search-count { width: auto; min-width: 12; padding: 0 1; }
        & > .search-count.-none { color: $text-warning; }
        & > .search-case { width: auto; padding: 0 1; color: $text-muted; }
        & > .search-case.-on { color: $text; text-style: bold; }
        & > .search-keys { width: auto; padding: 0 1; color: $text-muted; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f3,ctrl+g,down", "step(1)", "Next match", show=False),
        Binding("shift+enter,shift+f3,up", "step(-1)", "Previous match", show=False),
        # Priority: before the query line takes the letter as text.
        Binding("alt+c", "toggle_case", "Match case", show=False, priority=True),
        Binding("escape", "close", "Close search", show=False),
    ]

    KEYS: ClassVar[str] = "enter/↓ next · ↑ prev · alt+c case · esc close"
    KEYS_WIDTH: ClassVar[int] = 100
    """Narrower than this, the keys are left out (the query keeps its room)."""

    class Changed(Message):
        """The query or its case changed."""

        def __init__(self, query: str, case_sensitive: bool) -> None:
            super().__init__()
            self.query = query
            self.case_sensitive = case_sensitive

    class Step(Message):
        """Go to the next (1) or previous (-1) match."""

        def __init__(self, direction: int) -> None:
            super().__init__()
            self.direction = direction

    class Closed(Message):
        """The user closed the bar."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.case_sensitive = False
        self._input = Input(placeholder="search the conversation", id="search-input")
        self._count = Static("", classes="search-count")
        self._case = Static(Text("Aa"), classes="search-case")
        self._keys = Static(Text(self.KEYS), classes="search-keys")

    def compose(self) -> ComposeResult:
        """The label, the query, the count, the case toggle and the keys."""
        yield Static(Text("Find:"), classes="search-label")
        yield self._input
        yield self._count
        yield self._case
        yield self._keys

    def on_resize(self) -> None:
        """Leave the keys out where they would squeeze the query."""
        self._keys.display = self.size.width >= self.KEYS_WIDTH

    @property
    def query_text(self) -> str:
        """The query typed."""
        return self._input.value

    @property
    def count_text(self) -> str:
        """What the count shows."""
        return str(self._count.visual)

    def focus_query(self) -> None:
        """Put the focus on the query, its text selected (typing replaces it)."""
        self._input.focus()
        self._input.select_all()

    def show_count(
        self, current: int | None, total: int, *, scanning: bool = False
    ) -> None:
        """Show `current / total` (1-based), `total` found, or "no matches"."""
        more = "…" if scanning else ""
        if not self.query_text:
            text = ""
        elif total == 0:
            text = "searching…" if scanning else "no matches"
        elif current is None:
            text = f"{total}{more} found"
        else:
            text = f"{current + 1} / {total}{more}"
        self._count.update(Text(text))
        self._count.set_class(
            bool(self.query_text) and total == 0 and not scanning, "-none"
        )

    def on_input_changed(self, event: Input.Changed) -> None:
        """The query changed: search again (the pane debounces)."""
        event.stop()
        self.post_message(self.Changed(event.value, self.case_sensitive))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter: the next match."""
        event.stop()
        self.post_message(self.Step(1))

    def action_step(self, direction: int) -> None:
        """Go to the next or previous match."""
        self.post_message(self.Step(direction))

    def action_toggle_case(self) -> None:
        """Toggle case-sensitive matching."""
        self.case_sensitive = not self.case_sensitive
        self._case.set_class(self.case_sensitive, "-on")
        self.post_message(self.Changed(self.query_text, self.case_sensitive))

    def action_close(self) -> None:
        """Esc: close the bar."""
        self.post_message(self.Closed())
