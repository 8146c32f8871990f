"""The garbage-collector policy forces a collection after a share of the heap.

A forced collection walks every object; after a long session was resumed the heap
is large, and with a fixed `TENURED_LIMIT` each forced collection while streaming
walked all of it as often as in a fresh session. The limit is now the larger of
`TENURED_LIMIT` and a quarter of what the last collection left frozen.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import pytest

from acp_tui.ui import gc_policy


class FakeGc:
    """`gc` as the collector sees it: a frozen heap of a set size."""

    def __init__(self, frozen: int, survivors: int) -> None:
        self.frozen = frozen
        self.survivors = survivors

    def get_objects(self, generation: int | None = None) -> list[Any]:
        return [None] * self.survivors

    def get_freeze_count(self) -> int:
        return self.frozen

    def noop(self) -> None:
        pass


def collector_after_collect(
    monkeypatch: pytest.MonkeyPatch, frozen: int
) -> tuple[gc_policy._Collector, FakeGc]:
    fake = FakeGc(frozen, survivors=10_000)
    monkeypatch.setattr(gc_policy, "gc", SimpleNamespace(
        get_objects=fake.get_objects,
        get_freeze_count=fake.get_freeze_count,
        freeze=fake.noop,
        unfreeze=fake.noop,
        collect=fake.noop,
    ))  # fmt: skip
    collector = gc_policy._Collector()
    collector.collect()  # what a forced or idle collection leaves
    collector.last_batch = math.inf  # a session streaming: survivors are frozen
    return collector, fake


def tenure(collector: gc_policy._Collector, fake: FakeGc, objects: int) -> None:
    """Full collections that freeze `objects` survivors in all, all alive."""
    for _ in range(objects // fake.survivors):
        fake.frozen += fake.survivors
        collector._after_collection("stop", {"generation": 2})


def test_a_large_heap_is_not_walked_every_tenured_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    heap = 1_200_000  # a resumed session of 100,000 updates
    collector, fake = collector_after_collect(monkeypatch, heap)
    assert collector.limit == heap // gc_policy.HEAP_SHARE
    tenure(collector, fake, 2 * gc_policy.TENURED_LIMIT)
    assert not collector.over_limit
    tenure(collector, fake, heap // gc_policy.HEAP_SHARE)
    assert collector.over_limit


def test_a_small_heap_keeps_the_fixed_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    collector, fake = collector_after_collect(monkeypatch, 150_000)
    assert collector.limit == gc_policy.TENURED_LIMIT
    tenure(collector, fake, gc_policy.TENURED_LIMIT + 2 * fake.survivors)
    assert collector.over_limit


def test_the_limit_follows_the_last_collection() -> None:
    assert gc_policy.tenured_limit(0) == gc_policy.TENURED_LIMIT
    assert gc_policy.tenured_limit(4_000_000) == 1_000_000
