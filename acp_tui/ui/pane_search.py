"""A pane's conversation search: ctrl+f, the search bar, and jumping to matches.

`PaneSearch` is a part of `SessionPane` (see `acp_tui.ui.pane_part`). ctrl+f
(a priority key of the pane: from the prompt, from a focused card, anywhere in
the tab) opens the `SearchBar` above the prompt; the conversation stays in view.

* The search reads the store, not the widgets (`acp_tui.render.search`): the
  conversation mounts only a window of its entries. Typing is debounced
  (`DEBOUNCE`), and the scan runs in steps of `STEP_BUDGET` seconds, one per
  `STEP_INTERVAL`, so a session of thousands of entries never holds a frame.
* Enter (Down, F3, ctrl+g) goes to the next match, Up (shift+Enter, shift+F3)
  to the previous one, wrapping round: the conversation jumps there
  (`Conversation.jump_to`, which moves its window on a long session), expands
  the card's collapsed parts (a tool call's body, a thought) and marks every
  occurrence of the query in the card (`search_highlight`).
* While the agent streams, the changed entries are scanned again at most every
  `LIVE_INTERVAL` seconds (and only where a message grew), so the count follows.
* Esc closes the bar, clears the marks and gives the focus back to the prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Collapsible

from acp_tui.render.search import ConversationSearch, SearchMatch
from acp_tui.store.changes import Change
from acp_tui.ui.pane_part import PanePart
from acp_tui.ui.textual_private import set_timer_once
from acp_tui.ui.widgets import search_highlight
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.search_bar import SearchBar

__all__ = ["PaneSearch"]


class PaneSearch(PanePart):
    """The pane's search bar and its matches (see the module docstring)."""

    DEBOUNCE: ClassVar[float] = 0.12
    """Seconds after the last key typed before the search starts."""
    STEP_BUDGET: ClassVar[float] = 0.008
    """Seconds of scanning per step."""
    STEP_INTERVAL: ClassVar[float] = 0.01
    """Seconds between two steps (frames go on between them)."""
    LIVE_INTERVAL: ClassVar[float] = 0.25
    """The shortest time between two scans of what the agent streamed."""

    _search: ConversationSearch | None = None
    _search_bar: SearchBar | None = None
    _search_current: SearchMatch | None = None
    _search_card: Widget | None = None
    _search_timer: Timer | None = None
    _search_debounce: Timer | None = None

    # ------------------------------------------------------------ the bar

    @property
    def search_bar(self) -> SearchBar | None:
        """The search bar, once opened."""
        return self._search_bar

    @property
    def search_open(self) -> bool:
        """Whether the search bar shows."""
        bar = self._search_bar
        return bar is not None and bool(bar.display)

    async def action_search(self) -> None:
        """ctrl+f: open the search bar (or focus it again)."""
        bar = self._search_bar
        if bar is None:
            bar = self._search_bar = SearchBar(id="search-bar")
            await self.mount(bar, before=self.query_one(PromptInput))
        bar.display = True
        bar.focus_query()
        if bar.query_text:
            self._start_search(bar.query_text, bar.case_sensitive)

    def on_search_bar_closed(self, message: SearchBar.Closed) -> None:
        """Esc: close the bar, clear the marks, the prompt gets the focus."""
        message.stop()
        bar = self._search_bar
        if bar is not None:
            bar.display = False
        self._stop_timers()
        self._unmark()
        self._search_current = None
        if self._live:
            self.query_one(PromptInput).focus()

    def on_search_bar_changed(self, message: SearchBar.Changed) -> None:
        """The query changed: search again once typing pauses."""
        message.stop()
        if self._search_debounce is not None:
            self._search_debounce.stop()
        query, case = message.query, message.case_sensitive
        self._search_debounce = set_timer_once(
            self,
            self.DEBOUNCE,
            lambda: self._start_search(query, case),
            name="search-debounce",
        )

    async def on_search_bar_step(self, message: SearchBar.Step) -> None:
        """Enter, Down, F3, ctrl+g (1) or Up, shift+Enter, shift+F3 (-1)."""
        message.stop()
        bar = self._search_bar
        if bar is None:
            return
        search = self._search
        if self._search_debounce is not None or search is None:
            # Enter right after typing: search now rather than after the pause.
            self._start_search(bar.query_text, bar.case_sensitive)
            search = self._search
        if search is None:
            return
        index = search.nearest(self._search_current, message.direction)
        if index is None:
            self._show_count()
            return
        match = search.matches[index]
        self._search_current = match
        self._show_count()
        await self._go_to(match)

    # ------------------------------------------------------------ the scan

    def _start_search(self, query: str, case_sensitive: bool) -> None:
        if self._search_debounce is not None:
            self._search_debounce.stop()
            self._search_debounce = None
        store = self.store
        if store is None:
            return
        search = self._search
        if search is None or search.store is not store:
            search = self._search = ConversationSearch(store)
        if search.query != query or search.case_sensitive != case_sensitive:
            search.set_query(query, case_sensitive=case_sensitive)
            self._search_current = None
            self._unmark()
        if self._search_timer is not None:  # one chain of steps at a time
            self._search_timer.stop()
        self._scan_step()

    def _scan_step(self) -> None:
        """One bounded step of the scan; the next one follows after a pause."""
        self._search_timer = None
        search = self._search
        if search is None or not self.search_open:
            return
        done = search.step(self.STEP_BUDGET)
        self._show_count()
        if not done:
            self._search_timer = set_timer_once(
                self, self.STEP_INTERVAL, self._scan_step, name="search-step"
            )

    def search_changes(self, changes: Sequence[Change]) -> None:
        """A batch of store changes: scan the changed entries again (rate-limited)."""
        search = self._search
        if search is None or not search.query or not self.search_open:
            return
        if search.store is not self.store:  # another session: search it afresh
            self._start_search(search.query, search.case_sensitive)
            return
        search.changed(
            (change.kind, change.id) for change in changes if change.id is not None
        )
        if self._search_timer is None and search.pending:
            self._search_timer = set_timer_once(
                self, self.LIVE_INTERVAL, self._scan_step, name="search-live"
            )

    def _stop_timers(self) -> None:
        for timer in (self._search_timer, self._search_debounce):
            if timer is not None:
                timer.stop()
        self._search_timer = self._search_debounce = None

    def _show_count(self) -> None:
        bar = self._search_bar
        search = self._search
        if bar is None:
            return
        if search is None or search.query != bar.query_text:
            waiting = self._search_debounce is not None and self.store is not None
            bar.show_count(None, 0, scanning=waiting)
            return
        matches = search.matches
        current = self._search_current
        index = search.index_of(current) if current is not None else None
        bar.show_count(index, len(matches), scanning=search.pending)

    # ------------------------------------------------------------ the jump

    async def _go_to(self, match: SearchMatch) -> None:
        """Show the match's card: mounted, expanded, scrolled to, marked."""
        search = self._search
        fraction = search.fraction(match) if search is not None else 0.0
        card = await self._conversation.jump_to(match.key, fraction)
        if card is None or search is None:
            return
        expanded = False
        for node in card.walk_children(Collapsible, with_self=True):
            if node.collapsed:
                node.collapsed = False
                expanded = True
        if expanded:  # taller now: scroll again once laid out
            self._conversation.show_card(card, fraction)
        if card is not self._search_card:
            self._unmark()
        self._search_card = card
        search_highlight.highlight(
            card, search.query, case_sensitive=search.case_sensitive
        )

    def _unmark(self) -> None:
        card = self._search_card
        self._search_card = None
        if card is not None:
            search_highlight.clear(card)
