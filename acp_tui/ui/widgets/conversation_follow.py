"""How the conversation follows its output, and where focus and keys go in it.

`Following` is a part of `Conversation` (a plain mixin at run time, listed before
the widget classes so it does not hide the CSS base chain; see
`acp_tui.ui.textual_private`):

* The view follows the tail unless the user scrolled up; then new output shows
  the `NewOutputBelow` marker, and End, ctrl+end or a click on it go back to the
  end and follow again.
* PageUp/PageDown and ctrl+home/ctrl+end arrive from the prompt (`page`,
  `to_top`, `jump_to_end`); paging down to the end follows again.
* Focus that comes into the conversation while it follows (Tab onto a card)
  remembers that: when focus leaves it again the view goes back to following.
* `reveal` scrolls an entry into view (loading earlier entries to reach it), and
  `EarlierEntries`, the hint above the oldest mounted entry, loads earlier ones.
* A printable key that a focused card does not use is posted as `TypedAhead`:
  the pane types it into the prompt.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, ClassVar, TypeAlias

from rich.text import Text
from textual import events
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from acp_tui.ui.textual_private import is_following

__all__ = ["EarlierEntries", "Following", "NewOutputBelow"]

Key: TypeAlias = tuple[str, str]
"""A timeline entry: `(kind, id)`."""

if TYPE_CHECKING:
    _Scroll = VerticalScroll
else:
    _Scroll = object


class EarlierEntries(Static):
    """The hint above the oldest mounted entry; clicking it mounts earlier ones."""

    DEFAULT_CSS = """
    EarlierEntries {
        height: auto;
        width: 1fr;
        color: $text-muted;
        text-align: center;
        margin: 0 0 1 0;
        &:hover { color: $text; }
    }
    """

    HINT: ClassVar[str] = "▲ {count} earlier {noun}: scroll up or click to show"

    def __init__(self, *, id: str = "earlier-entries") -> None:
        super().__init__("", id=id)
        self.count = 0
        """How many earlier entries are not mounted."""
        self.display = False

    def show_count(self, count: int) -> None:
        """Say how many earlier entries are not mounted (hidden at 0)."""
        if count == self.count:
            return
        self.count = count
        self.display = count > 0
        noun = "entry" if count == 1 else "entries"
        self.update(Text(self.HINT.format(count=count, noun=noun)))

    async def on_click(self, event: events.Click) -> None:
        """Mount the previous batch."""
        event.stop()
        parent = self.parent
        if isinstance(parent, Following):
            await self.load(parent)

    async def load(self, conversation: Following) -> None:
        """Mount the entries this hint stands for (a batch)."""
        await conversation.load_earlier()


class NewOutputBelow(Static):
    """The marker at the bottom while new output arrives below the view.

    Clicking it (or End, ctrl+end from the prompt) goes to the end and follows.
    """

    DEFAULT_CSS = """
    NewOutputBelow {
        dock: bottom;
        height: 1;
        width: 1fr;
        text-align: center;
        color: $text;
        background: $primary 40%;
        &:hover { background: $primary 70%; }
    }
    """

    TEXT: ClassVar[str] = "▼ new output below · ctrl+end or click to follow"

    def __init__(self) -> None:
        super().__init__(Text(self.TEXT), id="new-output-below")
        self.display = False

    async def on_click(self, event: events.Click) -> None:
        """Go to the end and follow again."""
        event.stop()
        parent = self.parent
        if isinstance(parent, Following):
            parent.jump_to_end()


class Following(_Scroll):
    """The conversation's following, marker, paging and focus (see the module)."""

    if TYPE_CHECKING:  # what the conversation sets up
        entries: dict[Key, Widget]
        _below: NewOutputBelow
        _follow_after_focus: bool
        _keys: list[Key]
        _first: int
        _window: asyncio.Lock

        async def load_earlier(self, count: int | None = None) -> None:
            """Mount `count` earlier entries (a batch when None)."""

        async def _load_earlier(self, count: int | None) -> None: ...

    class TypedAhead(Message):
        """A printable key typed while a card had focus: it belongs to the prompt."""

        def __init__(self, character: str) -> None:
            super().__init__()
            self.character = character

    @property
    def following(self) -> bool:
        """Whether the view sticks to the end (the user has not scrolled up)."""
        return is_following(self)

    @property
    def new_output_below(self) -> bool:
        """Whether the "new output below" marker shows."""
        return bool(self._below.display)

    def jump_to_end(self) -> None:
        """Go to the end and follow the tail again (the marker goes)."""
        self._below.display = False
        self.scroll_end(animate=False, immediate=True)
        self.anchor()

    def action_jump_to_end(self) -> None:
        """End: go to the end and follow."""
        self.jump_to_end()

    def page(self, direction: int) -> None:
        """Scroll a page up (-1) or down (1), as PageUp/PageDown do."""
        if direction < 0:
            self.scroll_page_up(animate=False)
        else:
            self.scroll_page_down(animate=False)
            # After the scroll, which Textual makes after the next refresh and
            # which releases the anchor then: checked now, a page down at the
            # very end followed, and the scroll that came after released it
            # again with nothing left to move, so no scroll ever restored it
            # (bench/long_session.py: 23-42 s of PageDown at the end, no frame).
            self.call_after_refresh(self._follow_if_at_end)

    def to_top(self) -> None:
        """Go to the oldest mounted entry (scrolling on mounts earlier ones)."""
        self.scroll_home(animate=False)

    def _follow_if_at_end(self) -> None:
        if self.scroll_target_y >= self.max_scroll_y:
            self.jump_to_end()

    def _output_arrived(self) -> None:
        """New output: say so when the view does not follow."""
        if not self.following and not self._below.display:
            self._below.display = True

    def _focus_came(self) -> None:
        """Remember whether the view followed when focus came into it."""
        if not self._follow_after_focus and self.following:
            self._follow_after_focus = True

    def _focus_went(self) -> None:
        """Focus left a widget here: follow again if the view did when it came."""
        self.call_after_refresh(self._focus_left)

    def on_focus(self, event: events.Focus) -> None:
        """The conversation itself has the focus (Tab from the prompt)."""
        self._focus_came()

    def on_blur(self, event: events.Blur) -> None:
        """The conversation itself lost the focus."""
        self._focus_went()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """A card (or a part of one) has the focus."""
        self._focus_came()

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        """A card (or a part of one) lost the focus."""
        self._focus_went()

    def _focus_left(self) -> None:
        focused = self.screen.focused if self.is_attached else None
        if focused is not None and self in focused.ancestors_with_self:
            return  # focus moved within the conversation
        if self._follow_after_focus:
            self._follow_after_focus = False
            self.jump_to_end()

    def on_key(self, event: events.Key) -> None:
        """A printable key a focused card does not use goes to the prompt."""
        character = event.character
        if (
            not event.is_printable
            or character is None
            or event.key in self.app.active_bindings
        ):
            return
        event.stop()
        event.prevent_default()
        self.post_message(self.TypedAhead(character))

    async def reveal(self, key: Key) -> bool:
        """Scroll an entry into view (mounting earlier entries to reach it).

        Used when a dialog asks about a tool call: its card shows behind it.

        Returns:
            Whether the entry has a widget now (False: not in the timeline).
        """
        async with self._window:
            while key not in self.entries and key in self._keys[: self._first]:
                await self._load_earlier(None)
        widget = self.entries.get(key)
        if widget is None or not widget.is_attached:
            return False

        def scroll() -> None:
            if widget.is_attached:
                self.scroll_to_widget(widget, animate=False, immediate=True)

        self.call_after_refresh(scroll)
        return True
