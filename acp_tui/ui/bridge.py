"""Bridges between the client layer and Textual.

* `StoreBridge` turns the store's synchronous, per-op change callbacks into one
  `SessionUpdated` message per refresh, so streaming chunks never touch the widget
  tree one by one.
* `ModalPermissionPrompter` answers the client's permission requests with a modal
  `PermissionScreen`, shown through a `DialogHost` (the session's tab, which
  holds the dialog back while another tab is on screen).
* `tune_garbage_collector` keeps the cyclic garbage collector's pauses short
  while a session streams (the first `StoreBridge` calls it), and
  `collect_when_idle` frees what that held back once the session is quiet.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Sequence
from typing import Final, Protocol, TypeVar

from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.timer import Timer

from acp_tui.client.ports import PermissionRequest
from acp_tui.display_paths import AS_SENT, PathDisplay
from acp_tui.store.changes import Change
from acp_tui.store.model import ToolCall
from acp_tui.store.store import SessionStore
from acp_tui.ui.messages import SessionUpdated
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.strip_cycles import break_strip_cycles

__all__ = [
    "DialogHost",
    "ModalPermissionPrompter",
    "StoreBridge",
    "collect_when_idle",
    "restore_garbage_collector",
    "tune_garbage_collector",
]

T = TypeVar("T")

FULL_COLLECTION_THRESHOLD: Final = 1
"""Python's third collection threshold (its default: 10): a full collection comes
after every `FULL_COLLECTION_THRESHOLD + 1` young (generation 1) collections.

With what survives a full collection frozen (see `tune_garbage_collector`) a full
collection walks only what survived since the previous one, so more frequent
ones are shorter for the same total: in bench/ui.py's paced turn, about 25,000
objects and 7-10 ms each at 4 (the largest single cost in its slowest frames),
about 12,000 and 2-4.5 ms at 1, the total unchanged (about 120 ms over 5 s). At
10, 25-60 ms each; 100-250 ms at 50 without the freezing."""


BATCH_INTERVAL: Final = 1 / 60
"""The least time between two batches: changes that come sooner wait for the rest
of it. Handing a batch over after every screen refresh gave the app about 200
batches a second in a flood (a terminal's output in 4 KB chunks), and handling
each costs about a millisecond whatever its size: bench/terminal.py went from
12-17 to 20-24 MB/s with this."""

IDLE_COLLECT_DELAY: Final = 2.0
"""Seconds without store changes before objects tenured while streaming are
handed back to the collector (`collect_when_idle`)."""

IDLE_COLLECT_GROWTH: Final = 20_000
"""Objects tenured since the last idle collection that make one worthwhile."""

TENURED_LIMIT: Final = 100_000
"""Objects tenured since the last idle collection that force one even while the
session streams, so memory stays bounded when it never idles.

That collection walks every object, the frozen start-up heap (about 100,000)
included, so its pause grows with the limit: bench/exhaustion.py's million
chunks reached 400,000 (mostly Textual strips with their caches, half of them
dead: strips that cache themselves are cycles) every 15 s or so, and each such
collection took 0.5-0.9 s of CPU without a frame. At 100,000 they come about
four times as often and take 0.25-0.35 s: most of that is walking what is alive,
so 50,000 made them twice as frequent for nearly the same pause."""


class _Collector:
    """The garbage collector policy of the process (see `tune_garbage_collector`)."""

    def __init__(self) -> None:
        self.tuned = False
        self.baseline = 0
        """`gc.get_freeze_count()` after the last idle collection."""
        self.tenured = 0
        """Objects frozen since the last idle collection, an upper bound: counted
        as they are frozen, while some die later (refcounting frees frozen objects
        too). `gc.get_freeze_count()` is exact but walks the whole frozen list,
        tens of milliseconds with a big heap: it is only asked when this bound
        passes `TENURED_LIMIT`, and then replaces it."""
        self.over_limit = False
        """More than `TENURED_LIMIT` objects were tenured: collect soon."""
        self.collecting = False
        """`collect` runs: the callback leaves the full collection it makes alone
        (it would list every object of the heap, the frozen start-up heap
        included, doubling the pause)."""
        self._threshold: tuple[int, int, int] | None = None

    def tune(self) -> None:
        if self.tuned:
            return
        self.tuned = True
        break_strip_cycles()
        gc.freeze()
        self.baseline = gc.get_freeze_count()
        self.tenured = 0
        gc.callbacks.append(self._after_collection)
        self._threshold = gc.get_threshold()
        young, middle, _ = self._threshold
        gc.set_threshold(young, middle, FULL_COLLECTION_THRESHOLD)

    def restore(self) -> None:
        if not self.tuned:
            return
        self.tuned = False
        self.over_limit = False
        gc.callbacks.remove(self._after_collection)
        if self._threshold is not None:
            gc.set_threshold(*self._threshold)
        gc.unfreeze()
        gc.collect()

    def _after_collection(self, phase: str, info: dict[str, int]) -> None:
        if self.collecting:
            return  # `collect` freezes what survives and counts afresh itself
        if phase == "stop" and info.get("generation") == 2:
            # Everything still tracked just survived a full collection: it is
            # alive. Tenure it, so the next full collection walks only what was
            # allocated since (its garbage and its survivors). Those survivors
            # are all in generation 2 now (the older ones are frozen), so
            # counting them costs about what the collection just walked.
            self.tenured += len(gc.get_objects(generation=2))
            gc.freeze()
            if self.tenured > TENURED_LIMIT:
                self.tenured = gc.get_freeze_count() - self.baseline
                self.over_limit = self.tenured > TENURED_LIMIT

    def collect(self) -> None:
        self.collecting = True
        try:
            gc.unfreeze()
            gc.collect()
        finally:
            self.collecting = False
        gc.freeze()
        self.baseline = gc.get_freeze_count()
        self.tenured = 0
        self.over_limit = False


_collector = _Collector()


def tune_garbage_collector() -> None:
    """Keep the cyclic garbage collector's pauses short while streaming; once.

    A full (generation 2) collection walks every tracked object, and frees the
    cyclic garbage (widgets that were unmounted, with their styles, caches and
    strips). With Textual, pydantic's schema models and the client loaded the
    heap is large, and streaming makes tens of thousands of such objects a
    second when entries arrive quickly: bench/ui.py measured full collections of
    100-250 ms, the longest gaps between frames. So:

    * `gc.freeze()` leaves everything alive now (the start-up heap) out of later
      collections.
    * After every full collection what survived it (all of it alive) is frozen
      too, so a full collection walks only what was allocated since the previous
      one, and full collections come more often (`FULL_COLLECTION_THRESHOLD`),
      each with less to walk and free: measured about 10 ms each instead of
      75-250 ms.
    * Objects frozen while alive that die later (a widget unmounted after the
      collection that froze it) are only freed by `collect_when_idle`: once the
      session has been quiet for a while and enough was frozen, everything is
      handed back to the collector and collected in one go, when a pause shows
      no stalled frame. A session that never idles gets that collection once
      `TENURED_LIMIT` objects were frozen (at bench/ui.py's stress pace, ten
      times a fast model's, about every 8 s).

    * Textual's strips no longer hold themselves (`strip_cycles`): every line
      the compositor drew was cyclic garbage, most of what those forced
      collections had to free.

    Only the first call per process acts.
    """
    _collector.tune()


def restore_garbage_collector() -> None:
    """Undo `tune_garbage_collector` (tests; a process that embeds the app)."""
    _collector.restore()


def collect_when_idle() -> bool:
    """Collect what was frozen while streaming, if that is worth a pause now.

    Call it when nothing has changed for a while (`StoreBridge` does, after
    `IDLE_COLLECT_DELAY` seconds without store changes).

    Returns:
        Whether a collection ran (at least `IDLE_COLLECT_GROWTH` objects were
        frozen since the last one).
    """
    if not _collector.tuned or _collector.tenured < IDLE_COLLECT_GROWTH:
        return False
    _collector.collect()
    return True


class StoreBridge:
    """Coalesces a store's changes into one `SessionUpdated` per refresh.

    When the process has tuned the garbage collector (`tune_garbage_collector`,
    which the app does for a real run, once its session is open), the bridge
    calls `collect_when_idle` after the store has not changed for
    `IDLE_COLLECT_DELAY` seconds. The policy is process-wide, so it is opt-in:
    tests and embedders keep Python's default collector.

    Args:
        store: The store to follow.
        target: Receives the `SessionUpdated` messages.
    """

    def __init__(self, store: SessionStore, target: MessagePump) -> None:
        self.store = store
        self.target = target
        self._pending: list[Change] = []
        self._scheduled = False
        self._last_change = 0.0
        self._idle_timer: Timer | None = None
        self._unsubscribe: Callable[[], None] | None = store.subscribe(self._on_changes)

    def close(self) -> None:
        """Stop following the store."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._idle_timer is not None:
            self._idle_timer.stop()
            self._idle_timer = None

    def quiet_for(self) -> float:
        """Seconds since the last batch of changes was handed to the target."""
        return time.monotonic() - self._last_change

    def _on_changes(self, changes: Sequence[Change]) -> None:
        self._pending.extend(changes)
        if not self._scheduled:
            wait = self._last_change + BATCH_INTERVAL - time.monotonic()
            if wait > 0:
                self.target.set_timer(wait, self._flush, name="store-batch")
                self._scheduled = True
            else:
                self._scheduled = self.target.call_after_refresh(self._flush)

    def _flush(self) -> None:
        self._scheduled = False
        if not self._pending:
            return
        changes, self._pending = self._pending, []
        self.target.post_message(SessionUpdated(self.store, changes))
        if _collector.over_limit:
            _collector.collect()
        self._last_change = time.monotonic()
        if self._idle_timer is None:
            self._idle_timer = self.target.set_timer(
                IDLE_COLLECT_DELAY, self._check_idle, name="idle-collect"
            )

    def _check_idle(self) -> None:
        quiet = time.monotonic() - self._last_change
        if quiet < IDLE_COLLECT_DELAY:
            self._idle_timer = self.target.set_timer(
                IDLE_COLLECT_DELAY - quiet, self._check_idle, name="idle-collect"
            )
            return
        self._idle_timer = None
        collect_when_idle()


class DialogHost(Protocol):
    """Shows the modal dialogs of one session (see `SessionPane.ask_user`)."""

    async def ask_user(self, screen: Screen[T]) -> T | None:
        """Show `screen` once its session is on screen; its result.

        Cancelling the call closes the dialog (or never shows it).
        """
        ...


class ModalPermissionPrompter:
    """A `PermissionPrompter` that asks the user with a modal dialog.

    Args:
        host: Shows the dialog (when its session is on screen).
        tool_call: Looks up the store's copy of a tool call by id, so the dialog
            can show the diff of the tool call it asks about.
        paths: How the session shows paths now (relative to its directory).
    """

    def __init__(
        self,
        host: DialogHost,
        tool_call: Callable[[str], ToolCall | None] | None = None,
        paths: Callable[[], PathDisplay] | None = None,
    ) -> None:
        self.host = host
        self.tool_call = tool_call
        self.paths = paths

    async def ask(self, request: PermissionRequest) -> str | None:
        """Show the dialog and return the chosen option id (None: cancelled).

        Withdrawn by the agent (this call cancelled): the dialog closes.
        """
        subject = None
        if self.tool_call is not None and request.tool_call_id is not None:
            subject = self.tool_call(request.tool_call_id)
        paths = self.paths() if self.paths is not None else AS_SENT
        return await self.host.ask_user(PermissionScreen(request, subject, paths))
