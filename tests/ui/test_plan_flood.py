"""Plans stay bounded in the UI whatever the agent sends (bench/exhaustion.py).

The plan panel shows the newest `MAX_SHOWN` plans and counts the others, keeps
only the newest list while hidden; a plan view draws at most `MAX_ENTRIES`
entries of at most `MAX_TEXT_CHARS` characters, and spaces out the redraws of a
plan updated in a flood (`BURST`, then one per `REDRAW_INTERVAL`).
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.ui.widgets import plan_view
from acp_tui.ui.widgets.plan_panel import MAX_SHOWN, PlanPanel
from acp_tui.ui.widgets.plan_view import (
    BURST,
    MAX_ENTRIES,
    MAX_TEXT_CHARS,
    PlanView,
)
from tests.ui.helpers import wait_for
from tests.ui.test_cards import SIZE, CardsApp, apply, plan_op


def plans(count: int, *, first: int = 0) -> list[ops.Op]:
    return [
        plan_op(f"p{n}", (f"step of plan {n}", "pending", "medium"))
        for n in range(first, first + count)
    ]


async def test_the_panel_shows_the_newest_plans_and_counts_the_others() -> None:
    store = SessionStore("s")
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await apply(pilot, app, *plans(MAX_SHOWN + 18))
        panel = app.query_one(PlanPanel)
        shown = [f"p{n}" for n in range(18, MAX_SHOWN + 18)]
        assert panel.plan_ids == shown
        assert [v.plan_id for v in panel.query(PlanView)] == shown
        earlier = panel.query_one("#plan-earlier", Static)
        assert earlier.display
        assert str(earlier.content) == (
            "18 earlier plans not shown here (see the conversation)"
        )
        await apply(pilot, app, *plans(2, first=MAX_SHOWN + 18))
        assert panel.plan_ids == [f"p{n}" for n in range(20, MAX_SHOWN + 20)]
        assert len(panel.query(PlanView)) == MAX_SHOWN
        assert panel.earlier_count == 20


async def test_a_hidden_panel_catches_up_when_shown() -> None:
    store = SessionStore("s")
    app = CardsApp(store, panel=False)
    async with app.run_test(size=SIZE) as pilot:
        panel = app.query_one(PlanPanel)
        for first in range(0, 200, 20):
            await apply(pilot, app, *plans(20, first=first))
        assert not panel.query(PlanView)  # nothing built while hidden
        assert panel.earlier_count == 200 - MAX_SHOWN
        panel.display = True
        await wait_for(pilot, lambda: len(panel.query(PlanView)) == MAX_SHOWN)
        assert panel.plan_ids == [f"p{n}" for n in range(200 - MAX_SHOWN, 200)]


async def test_a_plan_view_draws_a_bounded_number_of_bounded_entries() -> None:
    store = SessionStore("s")
    entries = [(f"entry {n} " + "e" * 2_000, "pending", "low") for n in range(150)]
    store.apply(plan_op("big", *entries))
    app = CardsApp(store, panel=False)
    async with app.run_test(size=SIZE):
        lines = app.plan_view("big").text.split("\n")
        assert len(lines) == 1 + MAX_ENTRIES + 1
        assert lines[-1] == f"… {150 - MAX_ENTRIES} more entries"
        assert lines[1].startswith("○ entry 0 eee")
        assert len(lines[1]) <= len("○ ") + MAX_TEXT_CHARS + len(" · low")
        assert "…" in lines[1]


async def redraws(pilot: Pilot[None], app: CardsApp, count: int) -> PlanView:
    for n in range(count):
        await apply(pilot, app, plan_op("main", (f"step {n}", "pending", "medium")))
    return app.plan_view("main")


async def test_a_plan_updated_in_a_flood_is_redrawn_a_few_times_then_shows_the_last(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Long enough that a loaded machine (a frame can take a second while the
    # suite runs) does not spend a whole interval on the thirty updates.
    monkeypatch.setattr(plan_view, "REDRAW_INTERVAL", 3.0)
    store = SessionStore("s")
    store.apply(plan_op("main", ("first", "pending", "medium")))
    app = CardsApp(store, panel=False)
    async with app.run_test(size=SIZE) as pilot:
        view = await redraws(pilot, app, 30)
        # Thirty updates within a few frames: the burst, then at most one a
        # REDRAW_INTERVAL (the run took far less than 3 s per extra draw).
        assert BURST <= view.draws <= BURST + 2
        await wait_for(pilot, lambda: "step 29" in view.text)
        assert view.plan is store.plan("main")


async def test_an_update_that_keeps_the_lines_lengths_skips_the_layout() -> None:
    store = SessionStore("s")
    store.apply(plan_op("main", ("Write tests", "pending", "medium")))
    app = CardsApp(store, panel=False)
    async with app.run_test(size=SIZE) as pilot:
        view = app.plan_view("main")
        layouts: list[bool] = []
        update = view.update

        def spy(content: object = "", *, layout: bool = True) -> None:
            layouts.append(layout)
            update(content, layout=layout)  # type: ignore[arg-type]

        view.update = spy  # type: ignore[method-assign]
        done = plan_op("main", ("Write tests", "completed", "medium"))
        await apply(pilot, app, done)
        longer = plan_op("main", ("Write more tests", "pending", "high"))
        await apply(pilot, app, longer)
        assert layouts == [False, True]
        assert view.text.endswith("○ Write more tests · high")
