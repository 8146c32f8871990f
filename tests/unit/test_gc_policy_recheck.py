"""The garbage-collector policy counts the frozen objects exactly only now and then.

`gc.get_freeze_count()` walks the whole frozen list (tens of milliseconds once a
long session is loaded); when the running bound says the limit passed but the
exact count says not (frozen objects died), the next count waits until another
`RECHECK_GROWTH` objects were tenured.
"""

from __future__ import annotations

import math
import time
from types import SimpleNamespace
from typing import Any

import pytest

from acp_tui.ui import gc_policy


class FakeGc:
    """What `_Collector._after_collection` asks of `gc`: fixed survivor counts.

    And the allocator's block count (`gc_policy._allocated_blocks`): the
    survivors of each collection listed were allocated since the last one, so
    it grows by as many, unless `grows` is off (what was frozen died meanwhile).
    """

    def __init__(self, survivors: int, frozen: int) -> None:
        self.survivors = survivors
        self.frozen = frozen
        self.counted = 0
        self.blocks = 1_000_000
        self.grows = True

    def get_objects(self, generation: int | None = None) -> list[Any]:
        if self.grows:
            self.blocks += self.survivors
        return [None] * self.survivors

    def allocated_blocks(self) -> int:
        return self.blocks

    def freeze(self) -> None:
        pass

    def get_freeze_count(self) -> int:
        self.counted += 1
        return self.frozen


def patched_gc(monkeypatch: pytest.MonkeyPatch) -> FakeGc:
    """`gc` for the policy: 1,000 survivors a collection, 90% of the limit frozen."""
    fake = FakeGc(survivors=1_000, frozen=int(gc_policy.TENURED_LIMIT * 0.9))
    monkeypatch.setattr(gc_policy, "gc", SimpleNamespace(**{
        name: getattr(fake, name)
        for name in ("get_objects", "freeze", "get_freeze_count")
    }))  # fmt: skip
    monkeypatch.setattr(gc_policy, "_allocated_blocks", fake.allocated_blocks)
    return fake


def streaming_collector() -> gc_policy._Collector:
    """A collector that saw a batch of store changes just now (and so freezes
    what survives each full collection)."""
    collector = gc_policy._Collector()
    collector.last_batch = math.inf  # however long the test takes
    return collector


def over_the_limit(monkeypatch: pytest.MonkeyPatch) -> tuple[FakeGc, Any]:
    """A collector whose exact count just said the limit passed (2x frozen) at
    the end of a stream; no store batch since (a user paging)."""
    fake = patched_gc(monkeypatch)
    fake.frozen = gc_policy.TENURED_LIMIT * 2
    collector = streaming_collector()
    collector.tuned = True
    collector.tenured = gc_policy.TENURED_LIMIT
    collector._after_collection("stop", {"generation": 2})
    collector.last_batch = -math.inf
    return fake, collector


def test_exact_count_is_not_asked_after_every_collection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A live heap that stays just under the limit: each full collection tenures
    # 1,000 survivors (the running bound), but most die, so the exact count
    # stays at 90% of the limit.
    fake = patched_gc(monkeypatch)
    collector = streaming_collector()
    collector.tenured = gc_policy.TENURED_LIMIT  # the bound has just reached it
    collections = 100
    for _ in range(collections):
        collector._after_collection("stop", {"generation": 2})
    assert not collector.over_limit
    # Asked once when the bound passed the limit, then once per
    # RECHECK_GROWTH tenured (1,000 a collection): 100,000 // 4 // 1,000 = 25.
    assert fake.counted <= 1 + collections * 1_000 // gc_policy.RECHECK_GROWTH


def test_over_the_limit_is_still_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = patched_gc(monkeypatch)
    collector = streaming_collector()
    collector.tenured = gc_policy.TENURED_LIMIT
    collector._after_collection("stop", {"generation": 2})
    assert not collector.over_limit
    fake.frozen = gc_policy.TENURED_LIMIT * 2  # the survivors stay alive now
    for _ in range(gc_policy.RECHECK_GROWTH // 1_000 + 1):
        collector._after_collection("stop", {"generation": 2})
    assert collector.over_limit


def test_once_over_the_limit_the_frozen_list_is_not_walked_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A user scrolling a long session without new output: no store batch asks
    # for the forced collection, and every full collection tenures more. The
    # exact count (a walk of the whole frozen list) is not asked again.
    fake, collector = over_the_limit(monkeypatch)
    assert collector.over_limit
    asked = fake.counted
    for _ in range(200):
        collector._after_collection("stop", {"generation": 2})
    assert collector.over_limit
    assert fake.counted == asked


def test_collect_if_quiet_waits_for_no_activity(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    collected: list[bool] = []

    def idle_collect() -> bool:
        collected.append(True)
        return True

    monkeypatch.setattr(gc_policy, "collect_when_idle", idle_collect)
    gc_policy.note_activity()
    now[0] += 1.9
    assert not gc_policy.collect_if_quiet(2.0)
    gc_policy.note_activity()  # a key, a scroll, a batch of store changes
    now[0] += 1.9
    assert not gc_policy.collect_if_quiet(2.0)
    assert collected == []
    now[0] += 0.2
    assert gc_policy.collect_if_quiet(2.0)
    assert collected == [True]


def test_the_bridge_does_not_collect_while_the_user_acts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The store has been quiet for a while (a resume ended), but the user pages
    # through it: the collection's pause waits until input is quiet too.
    from acp_tui.store.store import SessionStore
    from acp_tui.ui import bridge as bridge_module

    class Target:
        def set_timer(self, *args: object, **kwargs: object) -> None:
            return None

    collected: list[bool] = []

    def idle_collect() -> bool:
        collected.append(True)
        return True

    monkeypatch.setattr(gc_policy, "collect_when_idle", idle_collect)
    store_bridge = bridge_module.StoreBridge(SessionStore("s"), Target())  # type: ignore[arg-type]
    store_bridge._last_change = time.monotonic() - 10  # the store: quiet
    gc_policy.note_activity()  # a key, just now
    store_bridge._check_idle()
    assert collected == []
    monkeypatch.setattr(gc_policy, "_last_activity", time.monotonic() - 10)
    store_bridge._check_idle()
    assert collected == [True]
    store_bridge.close()


def test_past_the_limit_collect_if_quiet_collects_while_the_user_acts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A user paging through a long session without pausing: no store batch
    # asks for the forced collection, and the quiet one waited for a pause
    # that never came (3.4 GB after 11,439 pages: bench/long_session.py).
    now = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    fake, collector = over_the_limit(monkeypatch)
    assert collector.over_limit
    collected: list[bool] = []
    monkeypatch.setattr(collector, "collect", lambda: collected.append(True))
    monkeypatch.setattr(gc_policy, "_collector", collector)
    gc_policy.note_activity()  # a key this instant
    assert not gc_policy.collect_if_quiet(2.0)  # just past the limit: not yet
    bound = gc_policy.ACTIVE_LIMIT_FACTOR * collector.limit
    fake.frozen = bound + 1  # the frozen heap grew past the bound
    for _ in range(bound // fake.survivors + 1):  # more tenured
        collector._after_collection("stop", {"generation": 2})
    now[0] += gc_policy.RECOUNT_INTERVAL
    gc_policy.note_activity()
    assert gc_policy.collect_if_quiet(2.0)
    assert collected == [True]


def test_while_the_user_acts_the_exact_count_decides_and_waits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Paging freezes the cards on screen after every full collection, and
    reference counting frees them a few pages later: the running bound passes
    `ACTIVE_LIMIT_FACTOR` times the limit long before the frozen heap does
    (the live heap grows too: Textual's caches filling up). The exact count
    decides, and it is asked at most every `RECOUNT_INTERVAL` seconds."""
    now = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    fake, collector = over_the_limit(monkeypatch)  # 2x the limit frozen
    collected: list[bool] = []
    monkeypatch.setattr(collector, "collect", lambda: collected.append(True))
    monkeypatch.setattr(gc_policy, "_collector", collector)
    bound = gc_policy.ACTIVE_LIMIT_FACTOR * collector.limit
    fake.survivors = 20_000  # the cards on screen, frozen at each collection
    for _ in range(bound // fake.survivors + 1):
        collector._after_collection("stop", {"generation": 2})
    assert collector.tenured > bound
    now[0] += gc_policy.RECOUNT_INTERVAL
    asked = fake.counted
    gc_policy.note_activity()  # a key this instant
    assert not gc_policy.collect_if_quiet(2.0)
    assert fake.counted == asked + 1
    assert collector.tenured == fake.frozen  # the exact count
    for _ in range(bound // fake.survivors + 1):  # the bound overshoots again
        collector._after_collection("stop", {"generation": 2})
    now[0] += gc_policy.RECOUNT_INTERVAL / 2
    gc_policy.note_activity()
    assert not gc_policy.collect_if_quiet(2.0)
    assert fake.counted == asked + 1  # not counted again so soon
    assert collected == []


def test_under_the_limit_collect_if_quiet_still_waits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    collector = gc_policy._Collector()
    collected: list[bool] = []
    monkeypatch.setattr(collector, "collect", lambda: collected.append(True))
    monkeypatch.setattr(gc_policy, "_collector", collector)
    gc_policy.note_activity()
    assert not gc_policy.collect_if_quiet(2.0)
    assert collected == []


def paged_past_the_bound(
    monkeypatch: pytest.MonkeyPatch, grows: bool
) -> tuple[FakeGc, gc_policy._Collector, list[bool]]:
    """A user paging without pause: every full collection freezes the cards on
    screen (20,000 survivors), the running bound passes `ACTIVE_LIMIT_FACTOR`
    times the limit, and `RECOUNT_INTERVAL` passed since the last exact count;
    memory grew with what was frozen (`grows`), or the cards died meanwhile."""
    now = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    fake, collector = over_the_limit(monkeypatch)  # 2x the limit frozen, counted
    collected: list[bool] = []
    monkeypatch.setattr(collector, "collect", lambda: collected.append(True))
    monkeypatch.setattr(gc_policy, "_collector", collector)
    bound = gc_policy.ACTIVE_LIMIT_FACTOR * collector.limit
    fake.survivors = 20_000
    fake.grows = grows
    for _ in range(bound // fake.survivors + 1):
        collector._after_collection("stop", {"generation": 2})
    assert collector.tenured > bound
    now[0] += gc_policy.RECOUNT_INTERVAL
    gc_policy.note_activity()  # a key this instant
    return fake, collector, collected


def test_the_frozen_list_is_not_walked_while_memory_did_not_grow(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The cards frozen by each collection died a few pages later (reference
    counting): the allocator holds no more blocks than at the last exact count,
    so the frozen heap cannot have passed the bound. Walking the frozen list to
    count it (50-60 ms at the end of a paged long session, inside a frame) is
    skipped, and nothing is collected."""
    fake, _collector, collected = paged_past_the_bound(monkeypatch, grows=False)
    asked = fake.counted
    for _ in range(5):
        assert not gc_policy.collect_if_quiet(2.0)
    assert fake.counted == asked
    assert collected == []


def test_the_frozen_list_is_counted_once_memory_could_hold_the_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake, collector, collected = paged_past_the_bound(monkeypatch, grows=False)
    bound = gc_policy.ACTIVE_LIMIT_FACTOR * collector.limit
    asked = fake.counted
    fake.blocks += bound - collector.counted  # could hold the bound, just not
    assert not gc_policy.collect_if_quiet(2.0)
    assert fake.counted == asked
    fake.blocks += 1
    fake.frozen = bound + 1  # and the frozen heap did pass it
    assert gc_policy.collect_if_quiet(2.0)
    assert fake.counted == asked + 1
    assert collected == [True]


def test_without_a_block_count_the_frozen_list_is_counted_as_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An allocator that cannot say (`PYTHONMALLOC=malloc`: 0 blocks)."""
    fake, _collector, collected = paged_past_the_bound(monkeypatch, grows=False)
    monkeypatch.setattr(gc_policy, "_allocated_blocks", lambda: 0)
    asked = fake.counted
    assert not gc_policy.collect_if_quiet(2.0)
    assert fake.counted == asked + 1
    assert collected == []  # the count: 2x the limit, under the bound
