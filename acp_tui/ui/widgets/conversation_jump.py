"""Jumping to any entry of the conversation, however far from the end it is.

`Jumping` is a part of `Conversation` (a plain mixin at run time, like
`Following`). The conversation mounts a window of its timeline that normally
reaches the end (`conversation` explains why). `jump_to(key)` shows any entry:

* an entry mounted, or a few entries above the window: scrolled into view (the
  few above are mounted first, as scrolling up would);
* any other: the window is moved there. Every mounted card is unmounted and a
  few entries around the target are mounted (`JUMP_BEFORE`, `JUMP_AFTER`), so a
  jump costs the same on a session of ten or ten thousand entries. Unless that
  window reaches the end, the view is *detached*: new entries get no widget,
  `LaterEntries` below the window says how many follow (scrolling down mounts
  the next ones as they come near, `Windowing`; clicking it mounts a batch),
  and going to the end (End, ctrl+end, the "new output below" marker) mounts
  the newest entries and follows again. Scrolling up far from the tail
  detaches the window the same way (`Windowing` unmounts what is far below).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from textual.widget import Widget

from acp_tui.ui.widgets.conversation_follow import EarlierEntries, Following, Key

if TYPE_CHECKING:
    from acp_tui.store.store import SessionStore

__all__ = ["Jumping", "LaterEntries"]


class LaterEntries(EarlierEntries):
    """The hint below a detached window; clicking it mounts the next entries."""

    HINT: ClassVar[str] = "▼ {count} later {noun}: scroll down or click · End to follow"

    def __init__(self) -> None:
        super().__init__(id="later-entries")

    async def load(self, conversation: Following) -> None:
        """Mount the next batch."""
        if isinstance(conversation, Jumping):
            await conversation.load_later()


class Jumping(Following):
    """Jumps to any entry, detaching the window from the end (see the module)."""

    JUMP_BEFORE: ClassVar[int] = 2
    """Entries mounted before a jump's target."""
    JUMP_AFTER: ClassVar[int] = 4
    """Entries mounted after a jump's target."""
    NEAR: ClassVar[int] = 16
    """A target this many entries above the window is reached by mounting them."""

    if TYPE_CHECKING:  # what the conversation sets up
        _end: int | None
        _earlier: EarlierEntries
        _later: LaterEntries
        _timeline_revision: int
        LOAD_BATCH: ClassVar[int]

        @property
        def store(self) -> SessionStore | None:
            """The store shown."""

        def _build(self, store: SessionStore, keys: Sequence[Key]) -> list[Widget]: ...
        async def _unmount_timeline(self) -> None: ...
        async def _sync_timeline(self, store: SessionStore) -> set[Key]: ...
        def _request_balance(self) -> None: ...

    @property
    def detached(self) -> bool:
        """Whether the mounted window stops before the end (after a jump)."""
        return self._end is not None

    async def jump_to(self, key: Key, fraction: float = 0.0) -> Widget | None:
        """Mount the entry `key` if needed and scroll its card into view.

        Args:
            key: The timeline entry.
            fraction: Where in the card to look (0: its top; 0.5: its middle),
                for a card taller than the view.

        Returns:
            Its card (None: not in the timeline, or it has no card).
        """
        async with self._window:
            store = self.store
            if store is None or key not in self._keys:
                return None
            if key not in self.entries:
                index = self._keys.index(key)
                if self._first - self.NEAR <= index < self._first:
                    while key not in self.entries and index < self._first:
                        await self._load_earlier(None)
                else:
                    await self._move_window(store, index)
            widget = self.entries.get(key)
        if widget is None or not widget.is_attached:
            return None
        self.release_anchor()
        self.show_card(widget, fraction)
        return widget

    async def reveal(self, key: Key) -> bool:
        """Scroll an entry into view; one after a detached window moves it there.

        A permission request about a tool call that arrived while the user was
        reading far above (its card not mounted) shows that card behind it.
        """
        if self._end is not None and key in self._keys[self._end :]:
            return await self.jump_to(key) is not None
        return await super().reveal(key)

    def show_card(self, widget: Widget, fraction: float = 0.0) -> None:
        """Scroll a mounted card into view after the next layout.

        A card taller than the view is scrolled to the line `fraction` of the
        way down it, a third of the view from the top.
        """
        self.call_after_refresh(self._scroll_to_card, widget, fraction)

    def _scroll_to_card(self, widget: Widget, fraction: float) -> None:
        if not widget.is_attached:
            return
        region = widget.virtual_region_with_margin
        view = self.scrollable_content_region.height
        if region.height <= view or fraction <= 0:
            self.scroll_to_widget(widget, animate=False, immediate=True, top=True)
            return
        line = region.y + round(fraction * region.height)
        self.scroll_to(y=max(region.y, line - view // 3), animate=False, immediate=True)

    async def _move_window(self, store: SessionStore, index: int) -> None:
        """Mount the entries around `index` alone (detached unless at the end)."""
        await self._unmount_timeline()
        first = max(0, index - self.JUMP_BEFORE)
        end = min(len(self._keys), index + 1 + self.JUMP_AFTER)
        self._first = first
        self._end = end if end < len(self._keys) else None
        # Nothing to follow while the end is not mounted; at the end, following
        # resumes when the user scrolls there.
        self.anchor(self._end is None)
        widgets = self._build(store, self._keys[first:end])
        if widgets:
            await self.mount_all(widgets, after=self._earlier)
        self._earlier.show_count(first)
        self._later.show_count(len(self._keys) - end if self._end else 0)
        self._request_balance()  # fill the screen around it (`Windowing`)

    async def _leave_window(self) -> None:
        """Unmount the window and follow: the caller rebuilds it at the end."""
        await self._unmount_timeline()
        self._keys = []
        self._first = 0
        self._end = None
        self._later.show_count(0)
        self.anchor()

    async def load_later(self, count: int | None = None) -> None:
        """Mount the `count` (default `LOAD_BATCH`) entries after a detached window."""
        async with self._window:
            store = self.store
            end = self._end
            if store is None or end is None:
                return
            last = None
            for key in reversed(self._keys[self._first : end]):
                widget = self.entries.get(key)
                if widget is not None and widget.is_attached:
                    last = widget
                    break
            stop = min(len(self._keys), end + (count or self.LOAD_BATCH))
            widgets = self._build(store, self._keys[end:stop])
            if widgets:
                await self.mount_all(widgets, after=last or self._earlier)
            self._end = stop if stop < len(self._keys) else None
            self._later.show_count(len(self._keys) - stop)
        if self._end is None:  # the end is mounted: following may resume
            self._reach_end()

    def _reach_end(self) -> None:
        """The window reaches the end again: scrolling to the bottom follows.

        The view stays where it is (anchoring scrolls to the end; the scroll
        back releases the anchor until the user reaches the bottom), and so
        does the "new output below" marker (following for that instant would
        hide it).
        """
        y = self.scroll_y
        marker = self._below.display
        self.anchor(True)
        self.scroll_to(y=y, animate=False, immediate=True)
        if not self.following:
            self._below.display = marker

    def jump_to_end(self) -> None:
        """Go to the end and follow; a detached window is moved there first."""
        if self._end is not None:
            self.call_later(self._return_to_end)
            return
        super().jump_to_end()

    async def _return_to_end(self) -> None:
        async with self._window:
            store = self.store
            if self._end is not None and store is not None:
                await self._leave_window()
                self._timeline_revision = -1
                await self._sync_timeline(store)
        self.jump_to_end()

    def _follow_if_at_end(self) -> None:
        """Paging down a detached window: `Windowing` mounts the next entries."""
        if self._end is None:
            super()._follow_if_at_end()
