"""The conversation: the session's timeline, one widget per entry, newest mounted.

Widgets are keyed by `(kind, id)` (`entries`). A `SessionUpdated` batch mounts the
new timeline entries and hands each changed entity's newest snapshot to its widget
once. Banners (agent errors) and queued prompts, and whatever else the app mounts
here, stay after the timeline's entries.

Why only the newest entries are mounted. Textual arranges every mounted widget
whenever the layout changes, and a streaming message changes its height on nearly
every frame, so a frame costs time in proportion to the widgets mounted, not to
those visible (measured: with 100 turns mounted a frame cost ten times what it
cost with 5), and mounting costs a few milliseconds per widget (a tool call or a
markdown message is ten or more). The conversation therefore mounts a *window* at
the end of the timeline (bench/ui.py measures the effect):

* While the view follows the tail, the oldest entries are unmounted as new ones
  arrive, keeping at least `MIN_ENTRIES` entries and `SCREENS` screens of content
  (trimming waits for `TRIM_SLACK` extra entries, so it happens in batches).
* When one batch brings more new entries than fill `FILL_SCREENS` screens (by a
  cheap estimate), the older ones get no widget at all: a replay of thousands of
  updates, or a very fast agent, builds only what can be seen. Only the newest
  `NEW_PER_BATCH` are mounted at once; earlier ones follow, `FILL_BATCH` per
  frame, while the screen is not full (mounting costs a few milliseconds per
  widget, and each frame should stay well under 100 ms).
* New entries are mounted at most every `MOUNT_INTERVAL` seconds (the batches in
  between only update mounted widgets), so a flood of entries is mounted about
  every other frame rather than on every one.
* Once the user scrolls away from the tail the window is two-sided and bounded
  (`Windowing`, in `acp_tui.ui.widgets.conversation_window`): a few entries
  per frame are mounted as the view nears either side of it, entries far above
  or below the view are unmounted, and the view never moves by itself. Clicking
  the hint above the oldest entry mounts the `LOAD_BATCH` entries before it.

The store keeps everything, so an unmounted entry is rebuilt from its newest
snapshot when it is mounted again.

**Every command the agent runs is shown.** A terminal that no tool call refers to
(a v1 `terminal/create` not embedded in a tool call, a v2 `terminal_update`
without one) is a timeline entry of its own: a `StandaloneTerminal` card, titled
as run without a tool call, with the command, its output and its exit, at the
place the terminal appeared. When a tool call then shows it, it moves into that
card: the store's timeline drops the entry, and the conversation removes its
widget in place (entries that only disappear rebuild nothing).

**The cards** (the widget for each kind of entry, and how a batch's changes
reach them) are in `acp_tui.ui.widgets.conversation_cards`.

**Following** (the "new output below" marker, paging from the prompt, focus and
keys typed on a card) is the `Following` part, in
`acp_tui.ui.widgets.conversation_follow`.

**Jumping** to any entry (a search match), however far from the end, moves the
mounted window there: the `Jumping` part, in
`acp_tui.ui.widgets.conversation_jump`.

The entries that are not store entities' cards (`Banner`, `QueuedPrompt`) and
`StandaloneTerminal` live in `acp_tui.ui.widgets.conversation_entries`; they are
re-exported here.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.layout import DockArrangeResult
from textual.timer import Timer
from textual.widget import Widget

from acp_tui.store.changes import Change
from acp_tui.store.store import SessionStore
from acp_tui.ui.textual_private import set_timer_once
from acp_tui.ui.widget_cycles import remove_released
from acp_tui.ui.widgets._paint import PlainBackground
from acp_tui.ui.widgets.conversation_cards import SHOWN_KINDS, make_card, update_cards
from acp_tui.ui.widgets.conversation_entries import (
    STANDALONE_TERMINAL_TITLE,
    Banner,
    QueuedPrompt,
    StandaloneTerminal,
)
from acp_tui.ui.widgets.conversation_follow import (
    EarlierEntries,
    Following,
    Key,
    NewOutputBelow,
)
from acp_tui.ui.widgets.conversation_jump import Jumping, LaterEntries
from acp_tui.ui.widgets.conversation_window import Windowing
from acp_tui.ui.widgets.markdown_styles import MarkdownStyles

__all__ = [
    "STANDALONE_TERMINAL_TITLE",
    "Banner",
    "Conversation",
    "EarlierEntries",
    "NewOutputBelow",
    "QueuedPrompt",
    "StandaloneTerminal",
]


def _estimated_height(store: SessionStore, key: Key, width: int) -> float:
    """A rough height in lines of an entry's widget (never built for this)."""
    kind, entity_id = key
    if kind == "message":
        message = store.message(entity_id)
        if message is None:
            return 0.0
        text = message.text[-8192:]
        return 2 + text.count("\n") + len(text) / width
    if kind == "plan":
        plan = store.plan(entity_id)
        return 3.0 + (plan.entry_count if plan is not None else 0)
    return 4.0


class Conversation(Windowing, Jumping, Following, PlainBackground, VerticalScroll):
    """Shows a session's timeline; follows the tail unless scrolled up.

    Args:
        id: The widget id.
    """

    DEFAULT_CSS = """
    Conversation {
        height: 1fr;
        padding: 0 1;
        /* Focus inside the conversation is visible: the focused card's edge. */
        & MessageView:focus, & MarkdownView:focus, & DiffView:focus,
        & TerminalLines:focus {
            background-tint: $primary 12%;
            outline-left: thick $primary;  /* seen in 256 colours too */
        }
        & CollapsibleTitle:focus { text-style: bold reverse; }
        &:focus { background-tint: $foreground 4%; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("end", "jump_to_end", "Follow", show=False),
    ]

    MIN_ENTRIES: ClassVar[int] = 6
    """Entries kept mounted at least (also how many a full store starts with)."""
    SCREENS: ClassVar[float] = 1.5
    """Screens of content kept mounted at least while following the tail. Every
    frame of a stream re-lays out every mounted widget: 1.5 screens rather than 2
    made a paced turn's worst frame gap 90 ms instead of 114 (bench/ui.py, five
    runs each); scrolling up mounts more as the top comes near."""
    TRIM_SLACK: ClassVar[int] = 8
    """Extra entries tolerated before trimming (trims happen in batches)."""
    LOAD_BATCH: ClassVar[int] = 8
    """Entries mounted above when the user reaches the top."""
    MOUNT_INTERVAL: ClassVar[float] = 1 / 30
    """The shortest time between two mounts of new entries (seconds). At 0.1 s a
    flooding agent's new entries showed ten times a second, the screen having
    nothing new between, and a turn's end came up to 0.1 s after the last mount
    (bench/ui.py, with frames on time: a flooded turn's largest gap 70 ms in two
    runs of three; at 1/30 s 34-46 ms in six)."""
    FILL_SCREENS: ClassVar[float] = 1.5
    """Screens of new entries (estimated) mounted from one batch while following;
    the batch's older entries get no widget."""
    NEW_PER_BATCH: ClassVar[int] = 2
    """When a batch's new entries fill the screen by themselves, how many of the
    newest are mounted at once; earlier ones follow `FILL_BATCH` per frame while
    the screen is not full (each frame stays short)."""
    FILL_BATCH: ClassVar[int] = 1
    """Entries mounted per frame while the screen is not full."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: dict[Key, Widget] = {}
        """The mounted timeline widgets by `(kind, id)`."""
        self._store: SessionStore | None = None
        self._keys: list[Key] = []
        """The shown timeline entries, in order (mounted or not)."""
        self._first = 0
        """Index in `_keys` of the oldest mounted entry (the rest are mounted)."""
        self._timeline_revision = -1
        self._earlier = EarlierEntries()
        self._last_mount = 0.0
        self._sync_timer: Timer | None = None
        self._window = asyncio.Lock()
        """Held while the mounted window changes: batches from the app, the
        deferred mount timer and loading earlier entries run as separate tasks."""
        self._below = NewOutputBelow()
        self._end: int | None = None
        """Index in `_keys` after the last mounted entry when the window stops
        before the end (after a jump: `Jumping`); None: it reaches the end."""
        self._later = LaterEntries()
        self._follow_after_focus = False
        """Focus came in while the view followed: follow again when it leaves."""
        self._balancing = False
        """A balance step of the window is due (`Windowing`)."""
        self._arranged: DockArrangeResult | None = None
        """The last arrangement of the cards (`Windowing.arrange`)."""

    # ------------------------------------------------------------ state

    @property
    def store(self) -> SessionStore | None:
        """The store shown (the one last passed to `apply_changes`)."""
        return self._store

    @property
    def earlier_count(self) -> int:
        """How many of the store's timeline entries are not mounted (older)."""
        return self._first

    def on_mount(self) -> None:
        """Follow the tail while content streams in."""
        self.anchor()

    def compose(self) -> ComposeResult:
        """The hint about earlier entries comes first, always."""
        yield self._earlier
        yield MarkdownStyles()  # hidden: the styles every message's markdown shares
        yield self._later  # after the timeline's cards (a jump's window: `Jumping`)
        yield self._below

    # ------------------------------------------------------------ widgets

    def _build(self, store: SessionStore, keys: Sequence[Key]) -> list[Widget]:
        widgets: list[Widget] = []
        for key in keys:
            widget = make_card(store, key)
            if widget is not None:
                self.entries[key] = widget
                widgets.append(widget)
        return widgets

    async def _mount_at_end(self, widgets: list[Widget]) -> None:
        """Mount after the last timeline widget (before banners and the like)."""
        if not widgets:
            return
        previous = None
        for key in reversed(self._keys[self._first :]):
            widget = self.entries.get(key)
            if widget is not None and widget.is_attached:
                previous = widget
                break
        if previous is not None:
            await self.mount_all(widgets, after=previous)
        else:
            await self.mount_all(widgets, after=self._earlier)

    # ------------------------------------------------------------ updates

    async def apply_changes(
        self, store: SessionStore, changes: Sequence[Change]
    ) -> None:
        """Bring the widgets up to date with one batch of changes.

        A store other than the one shown replaces it (as `reset` would), and is
        rendered from its current state: `apply_changes(store, ())` shows a store
        that already holds a session.

        Args:
            store: The store the changes were made to.
            changes: The changes since the last batch, in order.
        """
        async with self._window:
            if store is not self._store:
                if self._store is not None:
                    await self._reset()
                self._store = store
            mounted = await self._sync_timeline(store)
            await update_cards(store, changes, self.entries, mounted)
            await self._trim()
        if changes:
            self._output_arrived()

    async def _sync_timeline(self, store: SessionStore) -> set[Key]:
        """Mount widgets for new timeline entries; return their keys."""
        if store.timeline_revision == self._timeline_revision:
            return set()
        wait = self._last_mount + self.MOUNT_INTERVAL - time.perf_counter()
        if wait > 0 and self.entries:
            # Entries arrive in a flood (a replay, a fast agent): mount them
            # about every other frame, not on every batch.
            if self._sync_timer is None:
                self._sync_timer = set_timer_once(
                    self, wait, self._deferred_sync, name="deferred-sync"
                )
            return set()
        if self._sync_timer is not None:  # this sync does the deferred one's work
            self._sync_timer.stop()
            self._sync_timer = None
        self._timeline_revision = store.timeline_revision
        keys: list[Key] = [key for key in store.timeline() if key[0] in SHOWN_KINDS]
        if self.entries and (self._end is not None or not self.following):
            if await self._sync_away(keys):
                return set()  # away from the tail: new entries are counted
            await self._leave_window()  # not an append: rebuild at the end
        known = len(self._keys)
        if keys[:known] != self._keys:
            kept = await self._drop_removed(keys)
            if kept is not None:  # entries only left (and maybe came at the end)
                known = kept
            else:  # not an append: rebuild from scratch
                await self._unmount_timeline()
                known = 0
                self._first = 0
        self._keys = keys
        new = keys[known:]
        if not new:
            return set()
        if self.following:
            needed = self._needed(store, new)
            if needed < len(new):  # these alone fill the screen: mount a few now
                needed = min(needed, self.NEW_PER_BATCH)
            first = len(keys) - needed
            if first > known:
                # The newest entries fill the screen by themselves: the others
                # would scroll past at once, so they get no widget (yet).
                await self._unmount_timeline()
                self._first = first
                new = keys[first:]
        widgets = self._build(store, new)
        self._last_mount = time.perf_counter()
        await self._mount_at_end(widgets)
        self._earlier.show_count(self._first)
        if self._first:
            self.call_after_refresh(self._request_fill)
        return set(new)

    async def _drop_removed(self, keys: Sequence[Key]) -> int | None:
        """Remove the widgets of entries the timeline dropped, if that is all.

        Returns:
            How many of the known entries remain (the new keys start with them),
            or None if the timeline changed otherwise (a rebuild is needed).
        """
        present = set(keys)
        kept = [key for key in self._keys if key in present]
        if list(keys[: len(kept)]) != kept:
            return None
        gone = [
            (index, key) for index, key in enumerate(self._keys) if key not in present
        ]
        widgets = [self.entries.pop(key) for _, key in gone if key in self.entries]
        self._first -= sum(1 for index, _ in gone if index < self._first)
        if self._end is not None:
            self._end -= sum(1 for index, _ in gone if index < self._end)
        self._keys = kept
        if widgets:
            await remove_released(self, widgets)
        self._earlier.show_count(self._first)
        return len(kept)

    def _needed(self, store: SessionStore, new: Sequence[Key]) -> int:
        """How many of the newest entries fill `FILL_SCREENS` screens (estimated).

        The estimate is cheap and rough (text length over the width, a few lines
        per card); a short guess is corrected after the layout (`_fill_screens`).
        """
        want = self.FILL_SCREENS * max(self.size.height, 24)
        width = max(self.size.width - 6, 20)
        total = 0.0
        for count, key in enumerate(reversed(new), start=1):
            total += _estimated_height(store, key, width)
            if total >= want and count >= 2:
                return count
        return len(new)

    async def _deferred_sync(self) -> None:
        self._sync_timer = None
        async with self._window:
            store = self._store
            if store is not None:
                await self._sync_timeline(store)
                await self._trim()
        if self._first:  # a fill skipped while this sync was pending
            self.call_after_refresh(self._request_fill)

    # ------------------------------------------------------------ the window

    def _height(self, widget: Widget) -> int:
        return widget.virtual_region_with_margin.height

    def _mounted_widgets(self) -> list[tuple[Key, Widget]]:
        entries = self.entries
        return [
            (k, entries[k]) for k in self._keys[self._first : self._end] if k in entries
        ]

    async def _trim(self) -> None:
        """Unmount the oldest entries beyond the window (only while following)."""
        count = len(self._keys) - self._first
        if not self.following or count <= self.MIN_ENTRIES + self.TRIM_SLACK:
            return
        mounted = self._mounted_widgets()
        keep_height = self.SCREENS * max(self.size.height, 1)
        remaining = sum(self._height(widget) for _, widget in mounted)
        first = self._first
        doomed: list[Widget] = []
        for index in range(self._first, len(self._keys) - self.MIN_ENTRIES):
            widget = self.entries.get(self._keys[index])
            height = self._height(widget) if widget is not None else 0
            if remaining - height < keep_height:
                break
            remaining -= height
            if widget is not None:
                doomed.append(widget)
                del self.entries[self._keys[index]]
            first = index + 1
        if first == self._first:
            return
        self._first = first
        await remove_released(self, doomed)
        self._earlier.show_count(first)

    async def _unmount_timeline(self) -> None:
        widgets = list(self.entries.values())
        self.entries.clear()
        if widgets:
            await remove_released(self, widgets)

    def _request_fill(self) -> None:
        """After a layout: fill the screen, from this widget's own message loop.

        The screen awaits its after-refresh callbacks one by one, in its own
        loop: a callback that awaits mounts there holds every frame until the
        mounts are done (bench/ui.py measured 150-220 ms without a frame in a
        flood). Posted to this widget instead, the mounts go on between frames.
        """
        if self.is_attached:
            self.call_later(self._fill_screens)

    async def _fill_screens(self) -> None:
        """Mount earlier entries while the screen is not full."""
        if not self._first:
            return
        if self._sync_timer is not None:
            # Newer entries wait to be mounted (a flood): they may well fill the
            # screen by themselves and unmount what would be mounted here. The
            # deferred sync asks for a fill again.
            return
        if not all(widget.is_mounted for widget in self.entries.values()):
            # Still composing: the height known now is not theirs yet.
            self.call_after_refresh(self._request_fill)
            return
        if self.virtual_size.height <= self.size.height:
            async with self._window:
                await self._load_earlier(self.FILL_BATCH)
            self.call_after_refresh(self._request_fill)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """Back at the end: the marker goes (`Windowing` mounts what is near)."""
        super().watch_scroll_y(old_value, new_value)
        if self._below.display and self.following:
            self._below.display = False  # back at the end: following again

    async def load_earlier(self, count: int | None = None) -> None:
        """Mount the `count` (default `LOAD_BATCH`) entries before the oldest one.

        The view keeps showing what it showed (`Windowing.arrange`).

        Args:
            count: How many entries to mount (fewer if there are fewer).
        """
        async with self._window:
            await self._load_earlier(count)

    async def _load_earlier(self, count: int | None) -> None:
        store = self._store
        if store is None or not self._first:
            return
        start = max(0, self._first - (count or self.LOAD_BATCH))
        widgets = self._build(store, self._keys[start : self._first])
        self._first = start
        if widgets:
            await self.mount_all(widgets, after=self._earlier)
        self._earlier.show_count(start)
        self._request_balance()

    async def reset(self) -> None:
        """Remove every timeline entry: a new store follows (another session).

        Banners, queued prompts and whatever else the app mounted here stay.
        """
        async with self._window:
            await self._reset()

    async def _reset(self) -> None:
        if self._sync_timer is not None:
            self._sync_timer.stop()
            self._sync_timer = None
        self._store = None
        self._keys = []
        self._first = 0
        self._end = None
        self._later.show_count(0)
        self._timeline_revision = -1
        self._earlier.show_count(0)
        self._below.display = False
        await self._unmount_timeline()
        self.anchor()

    # ------------------------------------------------------------ extras

    async def add_banner(self, text: str, details: Sequence[str] = ()) -> Banner:
        """Append an error banner."""
        banner = Banner(text, details)
        await self.mount(banner)
        self._output_arrived()
        return banner

    async def add_queued(
        self, prompt_id: int, text: str, *, sending: bool = False
    ) -> None:
        """Show a queued (or sending) prompt at the end."""
        await self.mount(QueuedPrompt(prompt_id, text, sending=sending))

    def pending_prompts(self) -> list[QueuedPrompt]:
        """The prompts shown as queued, sending or not delivered."""
        return list(self.query_children(QueuedPrompt))

    async def remove_queued(self, prompt_id: int | None = None) -> None:
        """Remove a pending prompt (all sending ones when `prompt_id` is None)."""
        gone = [
            widget
            for widget in self.query_children(QueuedPrompt)
            if widget.prompt_id == prompt_id
            or (prompt_id is None and widget.state == "sending")
        ]
        await remove_released(self, gone)
