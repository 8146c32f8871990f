"""A flood of plans costs the garbage collector one object per plan.

bench/exhaustion.py floods 10,000 v2 plans of 20 entries: the store keeps them all
(the conversation and the transcript show every plan). Each plan used to hold a
tuple, a dict and a list besides itself, all tracked by the cyclic collector, and
walked by every collection of the whole heap (`acp_tui.ui.gc_policy`). A `Plan`
keeps its wire objects packed instead: these tests pin that, and that what it
hands out is what it was given.
"""

from __future__ import annotations

import copy
import gc
import pickle
from collections.abc import Iterator
from dataclasses import FrozenInstanceError
from types import MappingProxyType
from typing import Any, cast

import pytest

from acp_tui.store import JSONObject, Plan, ReplacePlan, SessionStore

PLANS = 2_000
ENTRIES = 20


def tracked_objects() -> int:
    """Objects the garbage collector tracks (frozen ones too), garbage collected."""
    gc.collect()
    return len(gc.get_objects()) + gc.get_freeze_count()


def flood_plan(index: int, plan_id: str) -> ReplacePlan:
    """Plan update `index` as the v2 translator makes it (as fault_agent.py's)."""
    entries = [
        {
            "content": f"Step {step} of plan update {index}: run the tests",
            "priority": ("high", "medium", "low")[step % 3],
            "status": "completed" if step < index % ENTRIES else "pending",
        }
        for step in range(ENTRIES)
    ]
    raw: JSONObject = {"type": "items", "planId": plan_id, "entries": entries}
    return ReplacePlan(plan_id, "items", entries, raw)


def flood(count: int, ids: int | None = None) -> Iterator[ReplacePlan]:
    for index in range(count):
        yield flood_plan(index, f"plan-{index if ids is None else index % ids}")


def test_each_plan_of_a_flood_is_one_object_for_the_collector() -> None:
    store = SessionStore("s")
    before = tracked_objects()
    for op in flood(PLANS):
        store.apply(op)
    grown = tracked_objects() - before
    assert len(store.plans()) == PLANS
    # The plan itself (a tuple, a dict and a list more each before: 4 per plan).
    assert grown < 1.25 * PLANS


def test_one_plan_updated_thousands_of_times_keeps_one_snapshot() -> None:
    store = SessionStore("s")
    store.apply(flood_plan(0, "plan-0"))
    before = tracked_objects()
    for op in flood(PLANS, ids=1):
        store.apply(op)
    assert [plan.plan_id for plan in store.plans()] == ["plan-0"]
    assert tracked_objects() - before < 50  # no superseded plan is kept


def test_a_plan_hands_out_what_it_was_given() -> None:
    entry: dict[str, Any] = {
        "content": "a \ud800 lone surrogate, é",
        "status": "in_progress",
        "priority": None,
        "_meta": {"n": [1, 2.5, True, None, -0.0, 10**30], "t": (1, "x")},
    }
    raw: dict[str, Any] = {
        "title": "T",
        "planId": "p",
        "type": "items",
        "entries": [entry],
        "_meta": {},
    }
    plan = Plan("p", "items", (entry,), raw, 7)
    assert plan.entries == (entry,)
    assert plan.raw == raw
    assert list(plan.raw) == list(raw)  # key order kept
    assert plan.entries[0]["_meta"]["t"] == (1, "x")  # a tuple stays a tuple
    assert (plan.plan_id, plan.plan_type, plan.revision) == ("p", "items", 7)
    assert plan == Plan("p", "items", (entry,), raw)  # the revision is not compared
    assert plan != Plan("p", "items", (), raw)
    assert plan != Plan("q", "items", (entry,), raw)


def test_a_plan_is_a_snapshot_of_what_it_was_given() -> None:
    entry: dict[str, Any] = {"content": "a", "status": "pending"}
    raw: dict[str, Any] = {"type": "items", "planId": "p", "entries": [entry]}
    plan = Plan("p", "items", [entry], raw)
    entry["status"] = "completed"
    raw["title"] = "later"
    cast(dict[str, Any], plan.entries[0])["content"] = "changed by a reader"
    assert plan.entries == ({"content": "a", "status": "pending"},)
    assert "title" not in plan.raw
    with pytest.raises(FrozenInstanceError):
        plan.plan_id = "q"  # type: ignore[misc]


def test_values_that_cannot_be_packed_are_kept_as_given() -> None:
    entry = MappingProxyType({"content": "a", "status": "pending"})
    raw: JSONObject = {"type": "items", "planId": "p", "entries": (entry,)}
    plan = Plan("p", "items", (entry,), raw)
    assert plan.entries[0] is entry
    assert plan.raw is raw
    assert plan == Plan("p", "items", (entry,), raw)


def test_a_plan_copies_and_pickles_equal() -> None:
    plan = Plan("p", "markdown", (), {"type": "markdown", "planId": "p"}, 3)
    for other in (
        copy.copy(plan),
        copy.deepcopy(plan),
        pickle.loads(pickle.dumps(plan)),
    ):
        assert other == plan
        assert other.revision == 3
    assert "plan_type='markdown'" in repr(plan)
