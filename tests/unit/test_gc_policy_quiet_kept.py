"""While nothing streams, what survives a full collection stays on probation.

A user paging through a long session mounts cards and drops them a few pages
later. Frozen after the collection that found them alive, they became garbage
only a collection of the whole heap frees (0.6-1.4 s in bench/long_session.py's
resumed session, every 10 s of paging). Left in generation 2 (up to
`QUIET_KEPT_LIMIT` objects), they are freed by the next short collection.
"""

from __future__ import annotations

import gc
import math
import weakref
from collections.abc import Iterator

import pytest

from acp_tui.ui import gc_policy
from tests.unit.test_gc_policy_probation import Cycle, FakeGc, tuned_collector


@pytest.fixture
def tuned_gc() -> Iterator[None]:
    gc_policy.tune_garbage_collector()
    try:
        yield
    finally:
        gc_policy.restore_garbage_collector()


@pytest.mark.usefixtures("tuned_gc")
def test_a_card_alive_at_a_quiet_collection_is_freed_after_it_is_dropped() -> None:
    gc_policy._collector.last_batch = -math.inf  # no batch for a while
    card = Cycle()  # a card on screen: alive at the next full collection
    ref = weakref.ref(card)
    gc.collect(2)  # the policy's own, while paging
    del card  # paged out of view and dropped
    gc.collect(2)  # the next short collection: generation 2, not the heap
    assert ref() is None


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


def test_past_the_kept_limit_a_quiet_collection_freezes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = FakeGc(in_generation_2=gc_policy.QUIET_KEPT_LIMIT)
    collector = tuned_collector(monkeypatch, fake)
    collector._threshold = (700, 10, 10)
    collector.last_batch = -math.inf  # no batch for a long while
    collector._after_collection("stop", {"generation": 2})
    assert "freeze" not in fake.calls
    assert collector.kept == gc_policy.QUIET_KEPT_LIMIT
    # The next full collection: Python's own rule, soon.
    assert fake.thresholds == (700, 10, gc_policy.QUIET_FULL_COLLECTION_THRESHOLD)
    # Caches filling up: past the limit, what survives is frozen.
    fake.in_generation_2 += 1
    collector._after_collection("stop", {"generation": 2})
    assert fake.calls[-1] == "freeze"
    assert collector.kept == 0
