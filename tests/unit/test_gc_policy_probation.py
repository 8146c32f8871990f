"""What survives young collections waits in generation 2 before it is frozen.

Frozen objects are walked again only by a collection of the whole heap (the
frozen start-up heap included: about 110 ms in bench/ui.py's paced turn, its
largest gap between frames). So the policy freezes only what survived a full
collection of generation 2, run by `collect_if_over_limit` once
`PROBATION_LIMIT` objects wait there: what dies in a cycle soon after it was
made (redrawn blocks, lines drawn once) is freed by that collection, which
walks generation 2 only, and never brings on a collection of the whole heap.
"""

from __future__ import annotations

import gc
import math
import weakref
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from acp_tui.ui import gc_policy


class Cycle:
    """An object in a reference cycle: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def tuned_gc() -> Iterator[None]:
    gc_policy.tune_garbage_collector()
    try:
        yield
    finally:
        gc_policy.restore_garbage_collector()


@pytest.mark.usefixtures("tuned_gc")
def test_a_cycle_that_dies_after_young_collections_is_freed_while_streaming(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cycle = Cycle()
    ref = weakref.ref(cycle)
    frozen = gc.get_freeze_count()
    gc_policy.collect_if_over_limit()  # a batch of store changes: streaming
    # Objects kept alive while a session streams: young collections run and
    # move what survives them (the cycle too) to generation 2.
    kept = [[] for _ in range(30_000)]  # type: ignore[var-annotated]
    del cycle
    monkeypatch.setattr(gc_policy, "PROBATION_LIMIT", 0, raising=False)
    assert not gc_policy.collect_if_over_limit()  # not a collection of the heap
    assert ref() is None  # freed, not frozen until the session idles
    # What survived is frozen: the next collection of generation 2 does not
    # walk it again.
    assert gc.get_freeze_count() - frozen >= len(kept)
    assert len(gc.get_objects(generation=2)) < 1_000


class FakeGc:
    """`gc` as the policy sees it; records what it is asked to do."""

    def __init__(self, in_generation_2: int) -> None:
        self.in_generation_2 = in_generation_2
        self.calls: list[str] = []
        self.listed: list[int | None] = []
        """The generations listed (each a walk of it)."""
        self.counted = 0

    def get_objects(self, generation: int | None = None) -> list[Any]:
        self.listed.append(generation)
        return [None] * self.in_generation_2

    def collect(self, generation: int = 2) -> int:
        self.calls.append(f"collect({generation})")
        return 0

    def unfreeze(self) -> None:
        self.calls.append("unfreeze")

    def freeze(self) -> None:
        self.calls.append("freeze")

    def get_freeze_count(self) -> int:
        self.counted += 1  # a walk of the frozen list
        return 0

    def set_threshold(self, *thresholds: int) -> None:
        self.thresholds = thresholds


def tuned_collector(
    monkeypatch: pytest.MonkeyPatch, fake: FakeGc
) -> gc_policy._Collector:
    """The process's collector, tuned, over `fake` as `gc`."""
    names = "get_objects collect unfreeze freeze get_freeze_count set_threshold"
    monkeypatch.setattr(
        gc_policy,
        "gc",
        SimpleNamespace(**{name: getattr(fake, name) for name in names.split()}),
    )
    collector = gc_policy._Collector()
    collector.tuned = True
    monkeypatch.setattr(gc_policy, "_collector", collector)
    return collector


def test_a_full_generation_2_is_collected_without_walking_the_frozen_heap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = FakeGc(in_generation_2=gc_policy.PROBATION_LIMIT + 1)
    collector = tuned_collector(monkeypatch, fake)
    collector.last_batch = math.inf  # a session streaming
    collector._after_collection("stop", {"generation": 1})  # a young collection
    assert collector.on_probation == gc_policy.PROBATION_LIMIT + 1
    assert not gc_policy.collect_if_over_limit()
    assert fake.calls == ["collect(2)"]  # the frozen heap stays frozen
    collector._after_collection("stop", {"generation": 2})
    assert collector.on_probation == 0
    assert fake.calls[-1] == "freeze"  # what survived it
    fake.calls.clear()
    assert not gc_policy.collect_if_over_limit()
    assert fake.calls == []


def test_below_the_limit_nothing_is_collected(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeGc(in_generation_2=gc_policy.PROBATION_LIMIT)
    collector = tuned_collector(monkeypatch, fake)
    collector.last_batch = math.inf  # a session streaming
    collector._after_collection("stop", {"generation": 1})
    assert not gc_policy.collect_if_over_limit()
    assert fake.calls == []


def test_while_streaming_the_full_collection_is_due_at_the_probation_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While a session streams, Python's next collection after a young one is
    made a full one, of generation 2 only, once `PROBATION_LIMIT` objects wait
    there (counted after each young collection: generation 2 is small, what
    survived the last full one was frozen)."""
    fake = FakeGc(in_generation_2=gc_policy.PROBATION_LIMIT + 1)
    collector = tuned_collector(monkeypatch, fake)
    collector._threshold = (700, 10, 10)
    collector.last_batch = math.inf  # streaming, however long the test takes
    collector._after_collection("stop", {"generation": 1})
    assert fake.thresholds == (700, 10, 0)  # a full collection next
    collector._after_collection("stop", {"generation": 2})
    assert fake.thresholds == (700, 10, gc_policy.FULL_COLLECTION_THRESHOLD)


def test_with_no_batch_full_collections_come_sooner_and_nothing_is_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A user scrolling a long session: what is kept unfrozen is large, and
    counting it after each young collection walked it (4.2 ms a count). Python's
    own rule runs the full collections, after `QUIET_FULL_COLLECTION_THRESHOLD`
    young ones."""
    fake = FakeGc(in_generation_2=gc_policy.PROBATION_LIMIT + 1)
    collector = tuned_collector(monkeypatch, fake)
    collector._threshold = (700, 10, 10)
    collector.last_batch = -math.inf  # no batch for a long while
    collector._after_collection("stop", {"generation": 1})
    assert fake.listed == []
    assert fake.thresholds == (
        700,
        10,
        gc_policy.QUIET_FULL_COLLECTION_THRESHOLD,
    )
    assert gc_policy.QUIET_FULL_COLLECTION_THRESHOLD < (
        gc_policy.FULL_COLLECTION_THRESHOLD
    )


# --- While nothing streams, what survives a full collection is frozen too.
#
# A user paging through a long session mounts cards and drops them a few pages
# later. When those were cycles, frozen after the collection that found them
# alive, they became garbage only a collection of the whole heap frees, so
# what survived was kept in generation 2 (up to 60,000 objects), walked again by
# every full collection: 30-40 ms each, up to 100 ms and more, the largest gaps
# scrolling bench/long_session.py's resumed session. The conversation now breaks
# the cycles of the cards it removes (`widget_cycles`): a dropped card is freed
# by reference counting, frozen or not, and each full collection walks only
# what survived the young ones since the last (6 ms, median).


class Card:
    """A card on screen: no cycle (`widget_cycles` breaks them on removal)."""

    def __init__(self) -> None:
        self.parts = [{"line": n} for n in range(10)]


@pytest.mark.usefixtures("tuned_gc")
def test_while_nothing_streams_what_survives_a_full_collection_is_frozen() -> None:
    gc_policy._collector.last_batch = -math.inf  # no batch for a while
    card = Card()
    ref = weakref.ref(card)
    frozen = gc.get_freeze_count()
    gc.collect(2)  # Python's own, while paging
    assert gc.get_freeze_count() > frozen  # the card among what was frozen
    assert len(gc.get_objects(generation=2)) == 0  # not walked again
    del card  # paged out of view and dropped
    assert ref() is None  # reference counting frees it, frozen or not


@pytest.mark.usefixtures("tuned_gc")
def test_while_streaming_what_survives_is_frozen() -> None:
    gc_policy.collect_if_over_limit()  # a batch of store changes, just now
    gc_policy._collector.last_batch = math.inf  # however long this takes
    card = Cycle()
    ref = weakref.ref(card)
    gc.collect(2)
    del card
    gc.collect(2)
    assert ref() is not None  # frozen: only a collection of the heap frees it
    gc_policy._collector.collect()
    assert ref() is None


def test_a_quiet_collection_freezes_without_counting_the_frozen_heap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Nothing streams: what survives is frozen, and the running bound grows
    with it (mostly cards on screen, alive a few pages more), but the frozen
    list is not walked to count it exactly: `collect_if_quiet` does that, now
    and then (`RECOUNT_INTERVAL`)."""
    fake = FakeGc(in_generation_2=30_000)
    collector = tuned_collector(monkeypatch, fake)
    collector._threshold = (700, 10, 10)
    collector.last_batch = -math.inf  # no batch for a long while
    for _ in range(20):  # far past `TENURED_LIMIT` and `check_at`
        collector._after_collection("stop", {"generation": 2})
    assert fake.calls == ["freeze"] * 20
    assert collector.tenured == 20 * 30_000
    assert fake.counted == 0
    assert not collector.over_limit
    # The next full collection: Python's own rule, soon.
    assert fake.thresholds == (700, 10, gc_policy.QUIET_FULL_COLLECTION_THRESHOLD)
    # Streaming again, the bound past `check_at` is counted at once.
    collector.last_batch = math.inf
    collector._after_collection("stop", {"generation": 2})
    assert fake.counted == 1


def paging_collector(
    monkeypatch: pytest.MonkeyPatch, fake: FakeGc
) -> gc_policy._Collector:
    """A tuned collector, nothing streaming for a long while (a user paging)."""
    collector = tuned_collector(monkeypatch, fake)
    collector._threshold = (700, 10, 10)
    collector.last_batch = -math.inf
    return collector


def test_deferred_a_full_collection_due_waits_for_the_app(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Nothing streams: the full collection due after every other young one is
    the app's to run after a frame (`collect_deferred`), not Python's inside
    the frame whose allocations brought it on; Python's own comes only after
    `FULL_COLLECTION_THRESHOLD` young ones (if the app never gets to it)."""
    fake = FakeGc(in_generation_2=1_000)
    collector = paging_collector(monkeypatch, fake)
    gc_policy.defer_quiet_collections()
    for _ in range(gc_policy.QUIET_FULL_COLLECTION_THRESHOLD):
        collector._after_collection("stop", {"generation": 1})
        assert not gc_policy.deferred_collection_due()
        assert not gc_policy.collect_deferred()
    collector._after_collection("stop", {"generation": 1})
    assert fake.thresholds == (700, 10, gc_policy.FULL_COLLECTION_THRESHOLD)
    assert gc_policy.deferred_collection_due()
    assert fake.calls == []
    assert gc_policy.collect_deferred()
    assert fake.calls == ["collect(2)"]  # what is not frozen
    collector._after_collection("stop", {"generation": 2})  # that collection
    assert fake.calls[-1] == "freeze"  # its survivors, as Python's own
    assert not gc_policy.deferred_collection_due()
    assert not gc_policy.collect_deferred()


def test_deferred_nothing_is_due_while_a_session_streams(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Streaming keeps its own rule (`PROBATION_LIMIT`, `collect_if_over_limit`)."""
    fake = FakeGc(in_generation_2=1_000)
    collector = paging_collector(monkeypatch, fake)
    gc_policy.defer_quiet_collections()
    for _ in range(gc_policy.QUIET_FULL_COLLECTION_THRESHOLD + 1):
        collector._after_collection("stop", {"generation": 1})
    collector.last_batch = math.inf  # a batch of store changes came
    assert not gc_policy.deferred_collection_due()
    assert not gc_policy.collect_deferred()
    assert "collect(2)" not in fake.calls


def test_not_deferred_python_runs_the_quiet_full_collections(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = FakeGc(in_generation_2=1_000)
    collector = paging_collector(monkeypatch, fake)
    for _ in range(gc_policy.QUIET_FULL_COLLECTION_THRESHOLD + 1):
        collector._after_collection("stop", {"generation": 1})
    assert fake.thresholds == (700, 10, gc_policy.QUIET_FULL_COLLECTION_THRESHOLD)
    assert not gc_policy.deferred_collection_due()
