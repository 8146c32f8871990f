"""A subagent's lane in its parent's conversation: a status line, its own work.

`SubagentLane` is the card of a `subagent` timeline entry. Its header is a live
status line: a mark, the subagent's title (its description after it), its
status (running / waiting for you / done / failed / cancelled) and elapsed time,
and how many tool calls it made. Collapsed (the default) it shows only that;
expanded (enter, space or a click on the header) it mounts the subagent's own
cards (messages, tool calls, terminals, nested subagents) from the subagent's
store, and keeps them up to date. `f` (or a click on "full screen") posts
`SubagentLane.OpenFull`, which the pane turns into the subagent's full screen
(`ui.screens.openers`).

Many lanes stream at once (say 20 parallel subagents): a collapsed lane does no
work per update but mark its header dirty; the header is redrawn at most every
`HEADER_INTERVAL` seconds, and once a second while the subagent runs (its
elapsed time). Agent text is shown as rich `Text`, never as markup.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, Final

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from acp_tui.render.subagents import STATUS_MARKS, status_line, tool_call_count
from acp_tui.safe_text import printable
from acp_tui.store.changes import Change
from acp_tui.store.store import SessionStore
from acp_tui.store.subagents import Subagent
from acp_tui.ui.textual_private import set_timer_once

if TYPE_CHECKING:
    from acp_tui.ui.widgets.conversation_follow import Key

__all__ = ["HEADER_INTERVAL", "LaneHeader", "SubagentLane", "now_ms", "subagent_title"]

HEADER_INTERVAL: Final = 0.25
"""The shortest time between two redraws of a lane's status line (seconds)."""

_STATUS_STYLES: Final = {
    "running": "bold $accent",
    "waiting": "bold $warning",
    "done": "bold $success",
    "failed": "bold $error",
    "cancelled": "bold $warning",
}


def subagent_title(subagent: Subagent) -> Text:
    """Its status mark, its title in bold, its description dim (plain text)."""
    text = Text(f"{STATUS_MARKS.get(subagent.status, '·')} ")
    text.append(printable(subagent.title or subagent.subagent_id), style="bold")
    if subagent.description and subagent.description != subagent.title:
        text.append(" — " + printable(subagent.description), style="dim")
    return text


def now_ms() -> int:
    """The wall clock in milliseconds (the store's subagent times)."""
    return int(time.time() * 1000)


class LaneHeader(Static):
    """The lane's status line; a click toggles the lane or opens it full screen."""

    DEFAULT_CSS = """
    LaneHeader { height: auto; }
    """


class SubagentLane(Widget):
    """One subagent of the session, as a collapsible lane.

    Args:
        store: The parent session's store.
        subagent_id: The subagent (its child session's id).
    """

    DEFAULT_CSS = """
    SubagentLane {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1;
        border-left: thick $accent 60%;
        &.-failed { border-left: thick $error; }
        &.-done { border-left: thick $success 60%; }
        &.-cancelled { border-left: thick $warning 60%; }
        &:focus { background-tint: $primary 12%; }
        & > #lane-body { height: auto; display: none; padding: 0 0 0 1; }
        &.-expanded > #lane-body { display: block; }
    }
    """

    can_focus = True

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "toggle_lane", "Expand"),
        Binding("f", "open_full", "Full screen"),
    ]

    class OpenFull(Message):
        """Asks the host to show a subagent full screen."""

        def __init__(self, store: SessionStore, subagent_id: str) -> None:
            super().__init__()
            self.store = store
            """The parent session's store."""
            self.subagent_id = subagent_id

    def __init__(self, store: SessionStore, subagent_id: str) -> None:
        super().__init__()
        self.store = store
        self.subagent_id = subagent_id
        self.expanded = False
        self.cards: dict[Key, Widget] = {}
        """The subagent's own cards, while expanded."""
        self._keys: list[Key] = []
        self._header = LaneHeader()
        self._body = Vertical(id="lane-body")
        self._dirty_at: float | None = None
        self._header_timer: Timer | None = None
        self._ticker: Timer | None = None
        self._last_header = 0.0
        self._fit_width: int | None = None
        """The width the status line's text last fitted unwrapped (None: not)."""
        self.full_screen_at = (0, 0)
        """Where "f: full screen" is on the status line's second row."""

    @property
    def own_store(self) -> SessionStore | None:
        """The subagent's own store."""
        return self.store.subagent_store(self.subagent_id)

    def compose(self) -> ComposeResult:
        """The status line, then the (hidden) body."""
        yield self._header
        yield self._body

    def on_mount(self) -> None:
        """Draw the status line; tick its elapsed time while it runs."""
        self.refresh_header()
        self._ticker = self.set_interval(1.0, self._tick)

    # ------------------------------------------------------------ header

    def header_text(self) -> Text:
        """The status line as rich text (agent text stays plain)."""
        subagent = self.store.subagent(self.subagent_id)
        if subagent is None:
            return Text("subagent")
        arrow = "▾" if self.expanded else "▸"
        text = Text(f"{arrow} ").append_text(subagent_title(subagent))
        text.append("\n  ")
        line = status_line(subagent, now_ms(), tool_call_count(self.own_store))
        text.append(printable(line))
        start = 2 + len(printable(line)) + 3
        self.full_screen_at = (start, start + len("f: full screen"))
        text.append("   f: full screen", style="dim")
        return text

    def refresh_header(self) -> None:
        """Redraw the status line now."""
        self._dirty_at = None
        self._last_header = time.monotonic()
        subagent = self.store.subagent(self.subagent_id)
        status = subagent.status if subagent is not None else "unknown"
        for name in ("failed", "done", "cancelled"):
            self.set_class(status == name, f"-{name}")
        text = self.header_text()
        # Its height is its lines' count while each fits the width: the same
        # as before, no layout then (20 lanes streaming redraw theirs often).
        width = self._header.content_size.width
        fits = width > 0 and all(
            cell_len(line) <= width for line in text.plain.split("\n")
        )
        self._header.update(text, layout=not (fits and self._fit_width == width))
        self._fit_width = width if fits else None
        if subagent is not None and not subagent.running and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    def _tick(self) -> None:
        self.refresh_header()

    def _header_later(self) -> None:
        """Redraw the status line soon (at most every `HEADER_INTERVAL`)."""
        if self._header_timer is not None:
            return
        wait = self._last_header + HEADER_INTERVAL - time.monotonic()
        if wait <= 0:
            self.refresh_header()
            return

        def fire() -> None:
            self._header_timer = None
            self.refresh_header()

        self._header_timer = set_timer_once(self, wait, fire, name="lane-header")

    # ------------------------------------------------------------ changes

    async def apply_batch(self, changes: Sequence[Change]) -> None:
        """One batch's changes of this subagent (with what its own store changed)."""
        subagent = self.store.subagent(self.subagent_id)
        if any(change.action != "appended" for change in changes):
            self.refresh_header()  # its status or title: at once
            if subagent is not None and subagent.running and self._ticker is None:
                self._ticker = self.set_interval(1.0, self._tick)
        else:
            self._header_later()
        if self.expanded:
            inner = [c for change in changes for c in change.inner]
            if inner:
                await self._sync(inner)

    async def _sync(self, inner: Sequence[Change]) -> None:
        from acp_tui.ui.widgets.conversation_cards import (
            SHOWN_KINDS,
            make_card,
            update_cards,
        )

        own = self.own_store
        if own is None:
            return
        keys: list[Key] = [k for k in own.timeline() if k[0] in SHOWN_KINDS]
        built: set[Key] = set()
        if keys[: len(self._keys)] != self._keys:  # not an append: rebuild
            await self._body.remove_children()
            self.cards.clear()
            self._keys = []
        new: list[Widget] = []
        for key in keys[len(self._keys) :]:
            card = make_card(own, key)
            if card is not None:
                self.cards[key] = card
                new.append(card)
                built.add(key)
        self._keys = keys
        if new:
            await self._body.mount_all(new)
        if inner:
            await update_cards(own, inner, self.cards, built)

    # ------------------------------------------------------------ actions

    async def action_toggle_lane(self) -> None:
        """Expand (mount its own cards) or collapse (drop them)."""
        self.expanded = not self.expanded
        self.set_class(self.expanded, "-expanded")
        if self.expanded:
            await self._sync(())
        else:
            await self._body.remove_children()
            self.cards.clear()
            self._keys = []
        self.refresh_header()

    def action_open_full(self) -> None:
        """Ask the host for this subagent's full screen."""
        self.post_message(self.OpenFull(self.store, self.subagent_id))

    async def on_click(self, event: events.Click) -> None:
        """A click on the status line: "full screen" opens it, elsewhere toggles."""
        if event.widget is not self._header:
            return
        event.stop()
        start, end = self.full_screen_at
        if event.y == 1 and start <= event.x < end:
            self.action_open_full()
        else:
            await self.action_toggle_lane()
