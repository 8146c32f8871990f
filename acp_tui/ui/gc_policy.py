"""The app's garbage-collector policy: short pauses while a session streams.

A full (generation 2) collection walks every tracked object. With Textual,
pydantic's schema models and the client loaded the heap is large, and a stream
makes tens of thousands of short-lived objects a second, so Python's default
policy paused the app for 100-250 ms without a frame (bench/ui.py).
`tune_garbage_collector` (called once a session is open) freezes what is alive
and keeps full collections small: they walk what survived young collections
since the last one (its probation), and what survives them is frozen;
`collect_if_over_limit` (after each batch of store changes) runs one once
`PROBATION_LIMIT` objects wait. `collect_when_idle` (called by
`StoreBridge` once the session is quiet) hands back what was frozen and collects
it in one go; `restore_garbage_collector` undoes it all (tests, embedding).

Invariants:
* The policy is process-wide and applied at most once; `restore` undoes exactly
  what `tune` did (thresholds, callback, frozen objects).
* Memory stays bounded when a session never idles, and when the user never
  stops: past `TENURED_LIMIT` frozen objects, or a quarter of the heap the last
  collection left (`tenured_limit`), a collection runs anyway, at the next
  batch of store changes (`collect_if_over_limit`); with no batch and no pause
  in the user's input, at the periodic check past `ACTIVE_LIMIT_FACTOR` times
  that (`collect_if_quiet`), which walks the frozen heap to count it only once
  the allocator's memory grew enough to hold that many more objects.
* Nothing is frozen before it survived a full collection of generation 2 (its
  probation), and no such collection walks the frozen heap: only `collect`
  (idle, or past `TENURED_LIMIT`) does.
* Textual's strips no longer hold themselves and make their caches on first
  use (`strip_cycles`), installed with the policy: they were most of the
  garbage it had to free, and of what a stream leaves alive.
* Neither do the compositor's arrangements (`compositor_cycles`) nor the
  virtual nodes of component classes (`widget_cycles`), installed with it too;
  and the conversation breaks the cycles of the cards it removes
  (`widget_cycles.remove_released`). Paging through a long session left about
  3,200 objects a page for the collector, cards included, frozen with them;
  now about 70 a page, none of them a card, which reference counting frees
  when it is removed, frozen or not. So what survives a full collection is
  frozen whether a session streams or not (`QUIET_FULL_COLLECTION_THRESHOLD`).
* What the collector frees is only handed back to the system by the C
  allocator: glibc keeps the freed pages of its heap for reuse. `trim_heap`
  gives them back; an idle collection does so after it ran, and the app once
  its start-up work is painted (`ui/app.py`, `START_TRIM_DELAY`).
"""

from __future__ import annotations

import ctypes
import functools
import gc
import sys
import time
from collections.abc import Callable
from typing import Final

from acp_tui.ui.compositor_cycles import break_arrangement_cycles
from acp_tui.ui.strip_cycles import break_strip_cycles, make_strip_caches_lazy
from acp_tui.ui.widget_cycles import break_component_style_cycles

__all__ = [
    "ACTIVE_LIMIT_FACTOR",
    "FULL_COLLECTION_THRESHOLD",
    "HEAP_SHARE",
    "IDLE_COLLECT_GROWTH",
    "PROBATION_LIMIT",
    "QUIET_FULL_COLLECTION_THRESHOLD",
    "RECOUNT_INTERVAL",
    "STREAMING_WINDOW",
    "TENURED_LIMIT",
    "collect_deferred",
    "collect_if_over_limit",
    "collect_if_quiet",
    "collect_when_idle",
    "defer_quiet_collections",
    "deferred_collection_due",
    "note_activity",
    "restore_garbage_collector",
    "tenured_limit",
    "trim_heap",
    "tune_garbage_collector",
]

FULL_COLLECTION_THRESHOLD: Final = 8
"""Python's third collection threshold (its default: 10): a full collection comes
by itself after every `FULL_COLLECTION_THRESHOLD + 1` young (generation 1)
collections; while a session streams, `collect_if_over_limit` runs one sooner,
once `PROBATION_LIMIT` objects wait in generation 2.

A full collection walks generation 2, what survived the young collections since
the previous one (what survives it is frozen, see `tune_garbage_collector`).
That is a probation: an object frozen is walked again only by a collection of
the whole heap (`collect`), so what dies soon after it was made (a message's
markdown blocks as they are redrawn, the strips of lines drawn once) should die
in generation 2. At 1 (a full collection every other young one: 2-4.5 ms each,
about 12,000 objects) the probation was short: of the 206,000 objects a forced
collection of bench/ui.py's paced turn walked, 39,000 were dead, and 100,000
frozen objects brought that collection on while the turn streamed, a pause of
110 ms (the largest gap between its frames). At 8, the probation of that turn
is about what `PROBATION_LIMIT` makes it (9 young collections, 40,000-45,000
objects), and a full collection still comes when no batch asks for one (a user
scrolling a long session)."""

PROBATION_LIMIT: Final = 40_000
"""Objects in generation 2 (survivors of young collections, not yet frozen) past
which `collect_if_over_limit` runs a full collection of them: about 20 ms, as
it walks these, not the frozen heap."""

QUIET_FULL_COLLECTION_THRESHOLD: Final = 1
"""`FULL_COLLECTION_THRESHOLD` when no batch of store changes came for
`STREAMING_WINDOW` seconds (a user paging through a long session): a full
collection after every second young one, as soon as Python's own rule allows it
(what was promoted since the last one is at least a quarter of what that one
left). What survives it is frozen, as while streaming, so each walks what
survived the young collections since the last one: 6 ms (median) paging
through bench/long_session.py's resumed session.

Paging used to leave thousands of objects a page in cycles (the cards dropped,
their styles, the compositor's maps), so what survived these collections while
nothing streamed was kept unfrozen (up to 60,000 objects): frozen, the cards on
screen became garbage only a collection of the whole heap frees. Since the
conversation breaks the cycles of the cards it removes (`widget_cycles`), a
dropped card is freed by reference counting, frozen or not, and paging leaves
about 70 objects a page for the collector, none of them a card. Kept, those
60,000 objects were walked again by every full collection: 30-40 ms each
(median), up to 100 ms and more, the largest gaps scrolling the whole session;
frozen, the collections take 6 ms, and what paging freezes that dies later is
about 9,000 objects in 40 s of paging (what the collection of the whole heap
then freed). Scrolling the whole session top to bottom
(bench/long_session.py --scroll-budget 400, back to back on an idle machine):
largest gap 169 -> 82 ms, median 25 -> 24 ms, RSS after it 174 -> 193 MB."""

STREAMING_WINDOW: Final = 1.0
"""Seconds after a batch of store changes (`collect_if_over_limit`) during which
the session counts as streaming (`PROBATION_LIMIT`)."""

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

HEAP_SHARE: Final = 4
"""The limit grows with the heap: past `TENURED_LIMIT`, a forced collection waits
for a quarter (1 / `HEAP_SHARE`) of the objects frozen by the last one.

A forced collection walks the whole heap, so with a fixed limit its cost per
tenured object grew with the session: at the end of a resumed session of 100,000
updates (bench/long_session.py) each one walked the whole resumed session, as
often as a fresh session's walked its small heap. Proportional to the heap, the
cost per object tenured stays about the same in both, and what is frozen but
dead stays bounded by a share of what is alive (CPython 3.12's own rule for
full collections is the same quarter)."""

ACTIVE_LIMIT_FACTOR: Final = 4
"""While the user acts without pause and no store batch comes (paging through a
long session), the whole heap is collected only past this many times the
tenured limit (`collect_if_quiet`): memory stays bounded, and the pause (0.2-0.5 s
in such a session) comes a quarter as often."""

RECHECK_GROWTH: Final = TENURED_LIMIT // 4
"""Objects tenured after an exact count that found the bound overshot before it is
counted again (see `_Collector.check_at`)."""

RECOUNT_INTERVAL: Final = 10.0
"""While nothing streams, the least seconds between two exact counts of the
frozen objects (`collect_if_quiet`; each walks the whole frozen list, 20-35 ms
at the end of a resumed long session).

Every full collection freezes what survives it, mostly cards on screen that
reference counting frees a few pages later, so the running bound (`tenured`)
grows by about 15,000 objects a second of paging while the frozen heap barely
does. Asked whenever that bound passed `RECHECK_GROWTH` more, the exact count
came every couple of seconds, a pause of its own in a frame."""


_allocated_blocks: Callable[[], int] = sys.getallocatedblocks
"""Memory blocks the interpreter's allocator holds (0 where it cannot say): a
sub-millisecond read, against the 20-60 ms walk of `gc.get_freeze_count`."""


def tenured_limit(frozen: int) -> int:
    """Objects tenured that force a collection, after one left `frozen` frozen."""
    return max(TENURED_LIMIT, frozen // HEAP_SHARE)


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
        self.limit = TENURED_LIMIT
        """`tenured_limit` of the heap frozen by the last idle or forced collection."""
        self.check_at = TENURED_LIMIT
        """`tenured` past which the exact count is asked again. When it says the
        bound overshot (frozen objects died), asking again at the next full
        collection would walk the frozen list after nearly every one once a
        long session's live heap stays near the limit (27 ms each, 28 times in
        8 s of scrolling one: bench/long_session.py's profile); so only after
        another `RECHECK_GROWTH` objects were tenured."""
        self.over_limit = False
        """More than `TENURED_LIMIT` objects were tenured: collect soon."""
        self.on_probation = 0
        """Objects in generation 2, counted after each young (generation 1)
        collection (`gc.get_objects(generation=2)`: it walks only that)."""
        self.last_batch = -STREAMING_WINDOW
        """`time.monotonic()` of the last `collect_if_over_limit`."""
        self.counted_at = -RECOUNT_INTERVAL
        """`time.monotonic()` of the last exact count (`recount`)."""
        self.counted = 0
        """`tenured` as the last exact count (or collection of the heap) left it."""
        self.counted_blocks = 0
        """`_allocated_blocks()` then (0: unknown)."""
        self.deferring = False
        """The app runs the full collections due while nothing streams, once a
        frame is painted (`collect_deferred`); Python only past
        `FULL_COLLECTION_THRESHOLD` young ones."""
        self.young = 0
        """Young (generation 1) collections since the last full one while
        nothing streamed."""
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
        make_strip_caches_lazy()
        break_arrangement_cycles()
        break_component_style_cycles()
        gc.freeze()
        self.baseline = gc.get_freeze_count()
        self.tenured = 0
        self.limit = self.check_at = TENURED_LIMIT
        self._counted_now()
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
        if phase == "stop" and info.get("generation") == 1:
            if not self.streaming():
                self.young += 1
                self._full_collection_due(False)  # (not counted: see the limit)
                return
            self.on_probation = len(gc.get_objects(generation=2))
            if self.on_probation > PROBATION_LIMIT:
                self._full_collection_due(True)
        elif phase == "stop" and info.get("generation") == 2:
            self.on_probation = 0
            self.young = 0
            self._full_collection_due(False)
            # Everything still tracked just survived a full collection: it is
            # alive. Tenure it, so the next full collection walks only what was
            # allocated since (its garbage and its survivors). Those survivors
            # are all in generation 2 now (the older ones are frozen), so
            # counting them costs about what the collection just walked.
            self.tenured += len(gc.get_objects(generation=2))
            gc.freeze()
            # Once over the limit, a collection is due anyway: counting again
            # would walk the frozen list after every full collection until it
            # runs. While nothing streams (a user paging through a long session)
            # `collect_if_quiet` counts, at most every `RECOUNT_INTERVAL`: what
            # is frozen then is mostly the cards on screen, which die a few
            # pages later, so the bound overshoots by far.
            if (
                self.tenured > self.check_at
                and not self.over_limit
                and (self.streaming())
            ):
                self.recount()

    def recount(self) -> None:
        """Count what was frozen since the last idle collection exactly.

        A walk of the whole frozen list (`gc.get_freeze_count`).
        """
        self.counted_at = time.monotonic()
        self.tenured = gc.get_freeze_count() - self.baseline
        self.over_limit = self.tenured > self.limit
        self.check_at = max(self.limit, self.tenured + RECHECK_GROWTH)
        self._counted_now()

    def _counted_now(self) -> None:
        self.counted = self.tenured
        self.counted_blocks = _allocated_blocks()

    def may_have_passed(self, bound: int) -> bool:
        """Whether the frozen heap may have grown past `bound` since it was counted.

        What is frozen since the last exact count (or collection of the heap)
        was allocated since, nearly all of it, and is still alive: the memory
        blocks the allocator holds grew by at least that much, less what died
        (`_allocated_blocks`). Paging a long session the running bound
        (`tenured`) passes `ACTIVE_LIMIT_FACTOR` times the limit every few
        seconds (each full collection freezes the cards on screen, which die a
        few pages later) while the frozen heap grows by a few hundred objects a
        second: counted every `RECOUNT_INTERVAL` seconds regardless, each count
        was 50-60 ms of a frame (bench/scroll_trace.py --stream --budget 300,
        49 of the 50 gaps with the most CPU). Unknown (no block count): True.
        """
        blocks = _allocated_blocks()
        if not blocks or not self.counted_blocks:
            return True
        return self.counted + blocks - self.counted_blocks > bound

    def streaming(self) -> bool:
        """Whether a batch of store changes came within `STREAMING_WINDOW`."""
        return time.monotonic() - self.last_batch < STREAMING_WINDOW

    def _full_collection_due(self, due: bool) -> None:
        """Whether Python's next collection after a young one is a full one.

        Not due: after `FULL_COLLECTION_THRESHOLD` young ones again while a
        session streams, after `QUIET_FULL_COLLECTION_THRESHOLD` ones while
        nothing does. No batch of store changes asks `collect_if_over_limit`
        while a user scrolls a long session, and the cards mounted and dropped
        meanwhile fill generation 2: this keeps its full collections short.
        """
        if self._threshold is not None:
            young, middle, _ = self._threshold
            if due:
                full = 0
            elif self.streaming() or self.deferring:
                full = FULL_COLLECTION_THRESHOLD
            else:
                full = QUIET_FULL_COLLECTION_THRESHOLD
            gc.set_threshold(young, middle, full)

    def deferred_due(self) -> bool:
        """Whether the app should run a full collection now (`collect_deferred`)."""
        return (
            self.tuned
            and self.deferring
            and self.young > QUIET_FULL_COLLECTION_THRESHOLD
            and not self.streaming()
        )

    def collect_probation(self) -> None:
        """Collect what is not frozen (`_after_collection` freezes what survives)."""
        gc.collect(2)

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
        self.limit = self.check_at = tenured_limit(self.baseline)
        self.over_limit = False
        self.on_probation = 0
        self._counted_now()
        self._full_collection_due(False)


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
      too, so a full collection walks only what survived young collections
      since the previous one. While a session streams, `collect_if_over_limit`
      runs one once `PROBATION_LIMIT` objects wait in generation 2 (about
      15-30 ms each, bench/ui.py's paced turn); Python's own comes after
      `FULL_COLLECTION_THRESHOLD` young ones otherwise. Waiting in generation
      2 is a probation: what dies in a cycle in the meantime is freed there,
      not frozen until the next collection of the whole heap.
    * Objects frozen while alive that die later (a widget unmounted after the
      collection that froze it) are only freed by `collect_when_idle`: once the
      session has been quiet for a while and enough was frozen, everything is
      handed back to the collector and collected in one go, when a pause shows
      no stalled frame. A session that never idles gets that collection once
      `TENURED_LIMIT` objects were frozen (bench/ui.py's paced turn of 5,000
      chunks, ten times a fast model's pace, no longer reaches it: its 110-150
      ms were the largest gap between its frames).

    * Textual's strips no longer hold themselves (`strip_cycles`): every line
      the compositor drew was cyclic garbage, most of what those forced
      collections had to free; and they make their seven caches on first use,
      so a strip a widget keeps is 4 objects for the collector, not 11.

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
    trim_heap()  # what it freed, back to the system while nothing waits
    return True


def trim_heap() -> bool:
    """Give the C allocator's free memory back to the system, where it can.

    Python hands what it frees outside its own small-object arenas (long
    strings and lists, big dicts, buffers) to the C allocator, and glibc keeps
    those pages for reuse: an app left idle after its start-up, or after a
    collection that freed a long session's cards, still holds them.
    `malloc_trim(0)` returns the free pages of the heap (about 0.5 MB of the
    idle app's RSS after start-up, bench/idle_cli.py). It takes about 1 ms for
    each 10 MB it gives back (4.6 ms for 50 MB freed between live blocks), so
    it runs only where nothing waits. Elsewhere (no glibc) nothing happens.

    Returns:
        Whether the allocator was asked.
    """
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """The C library's `malloc_trim` (glibc), or None where it has none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # musl, or no C library to load
        return None
    function.argtypes = [ctypes.c_size_t]
    function.restype = ctypes.c_int
    trim: Callable[[int], int] = function
    return trim


def collect_if_over_limit() -> bool:
    """Collect what `TENURED_LIMIT` or `PROBATION_LIMIT` says is due now.

    Past `TENURED_LIMIT` objects frozen since the last time, the whole heap;
    else, past `PROBATION_LIMIT` objects in generation 2, that generation.

    Busy or not: `StoreBridge` asks after each batch it hands over.

    Returns:
        Whether a collection of the whole heap ran.
    """
    _collector.last_batch = time.monotonic()
    if _collector.over_limit:
        _collector.collect()
        return True
    if _collector.tuned and _collector.on_probation > PROBATION_LIMIT:
        _collector.collect_probation()
    return False


def defer_quiet_collections(defer: bool = True) -> None:
    """The app runs the full collections due while nothing streams itself.

    Python starts a collection when an allocation passes its threshold, so the
    full ones a user paging a long session brings on (every other young one,
    `QUIET_FULL_COLLECTION_THRESHOLD`) started in the frames that allocate most:
    those that mount and lay out cards, the longest already (10-40 ms of CPU
    added to a gap of 40-60 ms, bench/scroll_trace.py). Deferred, Python's own
    comes only after `FULL_COLLECTION_THRESHOLD` young ones, and the app asks
    `deferred_collection_due` now and then and runs `collect_deferred` once a
    frame is painted and the screen has nothing to update. The app defers only
    while the user acts (its check would otherwise wake it 20 times a second
    while it idles): with `defer` False, Python runs them again after
    `QUIET_FULL_COLLECTION_THRESHOLD` young ones, from the next young one on.
    """
    _collector.deferring = defer


def deferred_collection_due() -> bool:
    """Whether a full collection is due that `collect_deferred` would run."""
    return _collector.deferred_due()


def collect_deferred() -> bool:
    """Run the full collection due (`defer_quiet_collections`), if it still is.

    Returns:
        Whether it ran (a collection of what is not frozen: its survivors are
        frozen after, as for Python's own).
    """
    if not _collector.deferred_due():
        return False
    _collector.collect_probation()
    return True


_last_activity = time.monotonic()


def note_activity() -> None:
    """Note that something happened which a collection's pause would hold up.

    The user's input, or a batch of store changes handed to the screen.
    """
    global _last_activity
    _last_activity = time.monotonic()


def collect_if_quiet(quiet_for: float) -> bool:
    """`collect_when_idle` once nothing was noted for `quiet_for` seconds.

    `StoreBridge` collects after its store has been quiet for a while; this is
    for what happens without store changes: a user scrolling a long session
    back and forth mounts and drops cards, some of which become frozen garbage
    until a collection hands them back (the app asks every second or so).

    Past `ACTIVE_LIMIT_FACTOR` times the limit (`TENURED_LIMIT`, or the heap
    share) of objects frozen since the last collection of the whole heap, it
    collects at once, quiet or not: without store batches nothing else would,
    and a user paging through a long session without a pause of `quiet_for`
    seconds would pile up frozen garbage without bound. Not at the limit
    itself: in a long session paged without pause a collection of the whole
    heap takes 0.1-0.5 s, and the live heap alone grows past the limit (Textual's
    caches filling up: about 90,000 objects in 40 s of paging). The running
    bound (`tenured`) overshoots by far while the user pages (each full
    collection freezes the cards on screen, freed by reference counting a few
    pages later), so past it the frozen objects are counted exactly, at most
    every `RECOUNT_INTERVAL` seconds and only once the memory allocated since
    the last count could hold that many more (`_Collector.may_have_passed`),
    and that count decides.

    Returns:
        Whether a collection ran.
    """
    collector = _collector
    bound = ACTIVE_LIMIT_FACTOR * collector.limit
    if (
        collector.tuned
        and collector.tenured > bound
        and time.monotonic() - collector.counted_at >= RECOUNT_INTERVAL
        and collector.may_have_passed(bound)
    ):
        collector.recount()
        if collector.tenured > bound:
            collector.collect()
            return True
    if time.monotonic() - _last_activity < quiet_for:
        return False
    return collect_when_idle()
