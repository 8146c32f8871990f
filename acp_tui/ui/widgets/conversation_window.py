"""The mounted window of the conversation while the user scrolls through it.

`Windowing` is a part of `Conversation` (a plain mixin at run time, like
`Following` and `Jumping`). While the view follows the tail the window is the
newest entries (`conversation` explains why, and trims it). Once the user
scrolls away from the tail, the window becomes two-sided and bounded:

* **Kept ready around the view.** After every scroll (and after every change of
  the window) a *balance step* runs between frames: if less than
  `AHEAD_SCREENS` screens of mounted content are above the view and earlier
  entries exist, a few are mounted above; likewise below, mounting later
  entries ("load later", the mirror of loading earlier). Each step mounts
  entries one at a time, at most `STEP_ENTRIES` and for about `STEP_SECONDS`
  (a card costs a few milliseconds to mount, a tool call with a diff more), so
  no single frame does much: the mounted set never has to be laid out all at
  once. A card costs more in the frame after its step than in the step itself
  (its first layout: markdown wrapped, box models; styles; its first paint if
  it is in view), which the step's clock does not see: so one card a step.
* **Bounded.** The entries entirely farther than `KEEP_SCREENS` screens from
  the view are unmounted, above and below (at most `STEP_UNMOUNT` per step;
  never the card holding the focus, nor those between it and the view).
  Unmounting below stops the window before the end of the timeline: it is
  then *detached* (as after a jump, `Jumping`): new entries are counted by
  `LaterEntries`, not mounted far below the view.
* **The view stays put.** Whatever changes above the view (entries mounted or
  unmounted there, a card growing), the first card visible stays where it was
  on screen: `arrange` moves the scroll offset by however far that card moved,
  in the same layout pass, so no frame shows the content jump (the way a
  browser anchors scrolling).
* **Back to the tail.** When the window reaches the end of the timeline again
  it is attached: scrolling to the bottom follows the tail again.

The store keeps everything: search, copy and export read it, and an entry
unmounted here is rebuilt from its newest snapshot when it is mounted again.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.widget import Widget

from acp_tui.ui.widget_cycles import remove_released
from acp_tui.ui.widgets.conversation_follow import Key
from acp_tui.ui.widgets.conversation_jump import Jumping

if TYPE_CHECKING:
    from acp_tui.store.store import SessionStore

__all__ = ["Windowing"]


def _placed(result: DockArrangeResult) -> dict[Widget, int]:
    """Where each widget of an arrangement starts (its top, in content lines)."""
    return {
        placement.widget: placement.region.y
        for placement in result.placements
        if not placement.fixed
    }


class Windowing(Jumping):
    """Keeps a bounded window mounted around a scrolled view (see the module)."""

    AHEAD_SCREENS: ClassVar[float] = 2.0
    """Screens of content kept mounted above and below the view (when there are
    entries to mount)."""
    KEEP_SCREENS: ClassVar[float] = 4.0
    """Entries entirely farther than this many screens from the view are
    unmounted (while not following)."""
    STEP_ENTRIES: ClassVar[int] = 1
    """The most entries one balance step mounts. Paging the resumed session of
    100,000 updates (bench/scroll_trace.py --phases, 40 s each way, back to
    back): gaps between frames over 50 ms of the app's CPU 57 with 3, 12 with
    1. The whole session (bench/long_session.py --scroll-budget 400, idle
    machine) still pages through: top in 275 s and end in 286 s, against 212 s
    and 229 s with 3."""
    STEP_SECONDS: ClassVar[float] = 0.015
    """A balance step mounts no further entry once it has taken this long."""
    STEP_UNMOUNT: ClassVar[int] = 24
    """The most entries one balance step unmounts."""

    if TYPE_CHECKING:  # what the conversation sets up
        _balancing: bool
        _arranged: DockArrangeResult | None

        def _mounted_widgets(self) -> list[tuple[Key, Widget]]: ...
        async def _drop_removed(self, keys: Sequence[Key]) -> int | None: ...

    # ------------------------------------------------------------ the view stays

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        """Arrange the cards, keeping the first card visible where it was.

        While the view does not follow the tail, a change above the view (cards
        mounted or unmounted there, a card growing) would move what is on
        screen: the scroll offset moves with the first visible card instead,
        before the compositor places anything with it.
        """
        result = super().arrange(size, optimal)
        previous = self._arranged
        if optimal or result is previous:
            return result
        self._arranged = result
        if previous is None or self.following:
            return result
        entries = set(self.entries.values())
        before = previous.placements
        top = round(self.scroll_y)
        anchor: Widget | None = None
        anchor_y = 0
        for placement in before:
            region = placement.region
            if (
                placement.widget in entries
                and region.bottom > top
                and region.height
                and (anchor is None or region.y < anchor_y)
            ):
                anchor, anchor_y = placement.widget, region.y
        if anchor is None:
            return result
        now = _placed(result).get(anchor)
        if now is None or now == anchor_y:
            return result
        limit = max(0, result.total_region.bottom - size.height)
        y = min(max(0, top + now - anchor_y), limit)
        self.set_reactive(Widget.scroll_y, float(y))
        self.set_reactive(Widget.scroll_target_y, float(y))
        if self.show_vertical_scrollbar:
            # Not here: the scrollbar's refresh asks where it is on screen, and
            # in the middle of the compositor's arrangement (which calls this)
            # that arranges the whole screen once more first: 2-6 ms a frame
            # that mounts a card above the view. After it, as a scroll would.
            self.call_later(self._move_scrollbar)
        return result

    def _move_scrollbar(self) -> None:
        if self.is_attached and self.show_vertical_scrollbar:
            self.vertical_scrollbar.position = self.scroll_y

    # ------------------------------------------------------------ balancing

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """Keep the window around the view as the user scrolls."""
        super().watch_scroll_y(old_value, new_value)
        self._request_balance()

    def _request_balance(self) -> None:
        """Run a balance step after the next frame (once however often asked)."""
        if self._balancing or self.following or not self.is_attached:
            return
        self._balancing = True
        self.call_after_refresh(self._post_balance)

    def _post_balance(self) -> None:
        # Posted to this widget's own loop, so the mounts go on between frames
        # (as `Conversation._request_fill` explains).
        if self.is_attached:
            self.call_later(self._balance)
        else:
            self._balancing = False

    async def _balance(self) -> None:
        self._balancing = False
        if self.following or self.store is None:
            return
        async with self._window:
            again = await self._balance_step()
        if again:
            self._request_balance()

    async def _balance_step(self) -> bool:
        """Mount or unmount a few entries; True if more may be needed."""
        store = self.store
        mounted = self._mounted_widgets()
        if store is None or not mounted:
            return False
        if not all(widget.is_mounted for _, widget in mounted):
            return True  # still composing: their heights are not known yet
        screen = max(self.scrollable_content_region.height, 1)
        top = self.scroll_y
        bottom = top + screen
        above = top - mounted[0][1].virtual_region_with_margin.y
        below = mounted[-1][1].virtual_region_with_margin.bottom - bottom
        ahead = self.AHEAD_SCREENS * screen
        earlier = self._first > 0 and above < ahead
        later = self._end is not None and below < ahead
        again = await self._unmount_far(mounted, top, bottom, screen)
        if earlier and (not later or above <= below):
            await self._mount_earlier(store)
            return True
        if later:
            await self._mount_later(store)
            return True
        return again

    async def _mount_earlier(self, store: SessionStore) -> None:
        """Mount a few entries above the oldest mounted one (the view stays)."""
        started = time.perf_counter()
        count = 0
        while self._first and count < self.STEP_ENTRIES:
            self._first -= 1
            widgets = self._build(store, self._keys[self._first : self._first + 1])
            if widgets:
                await self.mount_all(widgets, after=self._earlier)
                count += 1
            self._earlier.show_count(self._first)
            if time.perf_counter() - started >= self.STEP_SECONDS:
                break

    async def _mount_later(self, store: SessionStore) -> None:
        """Mount a few entries after the newest mounted one."""
        started = time.perf_counter()
        count = 0
        while self._end is not None and count < self.STEP_ENTRIES:
            end = self._end
            widgets = self._build(store, self._keys[end : end + 1])
            if widgets:
                await self.mount_all(widgets, after=self._last_card() or self._earlier)
                count += 1
            self._end = end + 1 if end + 1 < len(self._keys) else None
            self._later.show_count(len(self._keys) - self._end if self._end else 0)
            if time.perf_counter() - started >= self.STEP_SECONDS:
                break
        if self._end is None:
            self._reach_end()

    def _last_card(self) -> Widget | None:
        for key in reversed(self._keys[self._first : self._end]):
            widget = self.entries.get(key)
            if widget is not None and widget.is_attached:
                return widget
        return None

    def _stop_before(self, end: int) -> None:
        """The window stops before the end: entries from `end` on are counted."""
        if self._end is None:
            self.anchor(False)
        self._end = end
        self._later.show_count(len(self._keys) - end)

    async def _unmount_far(
        self,
        mounted: Sequence[tuple[Key, Widget]],
        top: float,
        bottom: float,
        screen: int,
    ) -> bool:
        """Unmount the entries far from the view; True if more may be far."""
        keep = self.KEEP_SCREENS * screen
        focused = self.screen.focused
        held = set(focused.ancestors_with_self) if focused is not None else set()
        doomed: list[Widget] = []
        first = self._first
        for key, widget in mounted[:-1]:
            if len(doomed) >= self.STEP_UNMOUNT or widget in held:
                break
            if widget.virtual_region_with_margin.bottom >= top - keep:
                break
            doomed.append(widget)
            del self.entries[key]
            first = self._keys.index(key, first) + 1
        end: int | None = None
        for key, widget in reversed(mounted[len(doomed) + 1 :]):
            if len(doomed) >= self.STEP_UNMOUNT or widget in held:
                break
            if widget.virtual_region_with_margin.y <= bottom + keep:
                break
            doomed.append(widget)
            del self.entries[key]
            end = self._keys.index(key, first)
        if not doomed:
            return False
        self._first = first
        self._earlier.show_count(first)
        if end is not None:
            self._stop_before(end)
        await remove_released(self, doomed)
        return True

    # ------------------------------------------------------------ the timeline

    async def _sync_away(self, keys: Sequence[Key]) -> bool:
        """The timeline changed while the view is away from the tail.

        Returns:
            True if handled: appended entries are counted as later ones (the
            balance mounts them if the view is near), removed ones leave the
            window in place. False: rebuild at the end (the caller does).
        """
        known = len(self._keys)
        if list(keys[:known]) != self._keys:
            kept = await self._drop_removed(keys)
            if kept is None:
                return False
            known = kept
        if self._end is None:
            if len(keys) == known:
                return True
            self._keys = list(keys)
            self._stop_before(known)
        else:
            self._keys = list(keys)
            if self._end >= len(keys):
                self._end = None
                self._later.show_count(0)
                self._reach_end()
            else:
                self._later.show_count(len(keys) - self._end)
        self._request_balance()
        return True
