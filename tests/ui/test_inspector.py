"""Pilot tests of the protocol inspector (f5) against the scripted fake agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from acp_tui.client.traffic import TrafficEntry
from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.widgets.inspector import InspectorPanel
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.ui.helpers import wait_for
from tests.ui.test_app import (
    SIZE,
    _home,
    fake_app,
    permission_armed,
    turn_ended,
)

pytestmark = pytest.mark.subprocess

__all__ = ["_home"]  # the autouse fixture: a private ACP_TUI_HOME per test


def panel(app: AcpTuiApp) -> InspectorPanel:
    return app.query_one(InspectorPanel)


def shown(app: AcpTuiApp) -> list[TrafficEntry]:
    inspector = panel(app)
    entries = (inspector.traffic.get(index) for index in inspector.shown_indexes)
    return [entry for entry in entries if entry is not None]


def shown_methods(app: AcpTuiApp) -> set[tuple[str, str | None]]:
    return {(entry.direction, entry.method) for entry in shown(app)}


def detail_text(app: AcpTuiApp) -> str:
    return str(panel(app).query_one("#inspector-detail", Static).content)


async def quick_turn(pilot: Pilot[None], app: AcpTuiApp) -> None:
    """A v2 turn that ends at once ("turn-error": no permission, no tools)."""
    await wait_for(pilot, lambda: app.store is not None)
    app.query_one(PromptInput).focus()
    await pilot.press(*"turn-error", "enter")
    await wait_for(pilot, lambda: turn_ended(app))


async def show_inspector(pilot: Pilot[None], app: AcpTuiApp) -> None:
    await pilot.press("f5")
    await wait_for(pilot, lambda: panel(app).display)
    total = app.runner.traffic.total
    await wait_for(pilot, lambda: panel(app).shown_indexes[-1:] == [total - 1])


async def click_direction(pilot: Pilot[None], app: AcpTuiApp, expected: str) -> None:
    button = panel(app).query_one("#inspector-direction", Button)
    # A button ignores clicks while its "pressed" effect shows.
    await wait_for(pilot, lambda: not button.has_class("-active"))
    await pilot.click("#inspector-direction")
    await wait_for(pilot, lambda: panel(app).direction == expected)


async def test_f5_toggles_the_panel_and_it_lists_the_traffic(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        assert not app.query(InspectorPanel)  # mounted when first opened
        await quick_turn(pilot, app)
        await show_inspector(pilot, app)
        assert panel(app).table.has_focus
        methods = shown_methods(app)
        for method in ("initialize", "session/new", "session/prompt"):
            assert ("out", method) in methods
            assert ("in", method) in methods  # the response names its request
        assert ("in", "session/update") in methods
        table = panel(app).table
        assert table.row_count == len(shown(app))
        # Latency is shown on a request (and its response) once answered.
        prompt = next(
            e
            for e in shown(app)
            if e.method == "session/prompt" and e.kind == "request"
        )
        assert prompt.latency is not None
        cell = table.get_cell(str(prompt.index), "latency")
        assert str(cell).endswith(("ms", " s"))
        # The table follows new entries: the cursor is on the last row.
        assert table.cursor_row == table.row_count - 1
        await pilot.press("f5")
        assert not panel(app).display
        assert app.query_one(PromptInput).has_focus


async def test_method_and_direction_filters(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await quick_turn(pilot, app)
        await show_inspector(pilot, app)
        everything = len(shown(app))
        panel(app).query_one(Input).focus()
        await pilot.press(*"SESSION/N")
        await wait_for(pilot, lambda: panel(app).method_filter == "SESSION/N")
        assert shown_methods(app) == {("out", "session/new"), ("in", "session/new")}
        assert panel(app).table.row_count == 2
        # The detail follows the filter: it shows the last row left.
        assert panel(app).selected is shown(app)[-1]
        await click_direction(pilot, app, "in")
        assert shown_methods(app) == {("in", "session/new")}
        await click_direction(pilot, app, "out")
        assert shown_methods(app) == {("out", "session/new")}
        await click_direction(pilot, app, "both")
        panel(app).query_one(Input).focus()
        await pilot.press(*["backspace"] * len("SESSION/N"))
        await wait_for(pilot, lambda: panel(app).method_filter == "")
        assert len(shown(app)) == everything
        panel(app).set_direction("out")
        assert shown(app)
        assert all(e.direction == "out" for e in shown(app))
        assert len(shown(app)) < everything


async def test_selected_row_shows_its_json_and_copies_it(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await quick_turn(pilot, app)
        await show_inspector(pilot, app)
        inspector = panel(app)
        rows = shown(app)
        first = rows[0]
        assert first.method == "initialize"
        assert first.direction == "out"
        inspector.table.move_cursor(row=0)
        await wait_for(pilot, lambda: inspector.selected is first)
        text = detail_text(app)
        assert json.loads(text) == first.data
        assert text.startswith("{\n  ")
        await pilot.press("c")
        assert json.loads(app.clipboard) == first.data
        await pilot.press("down")
        await wait_for(pilot, lambda: inspector.selected is rows[1])
        await pilot.press("ctrl+c")
        assert json.loads(app.clipboard) == rows[1].data


async def test_an_invalid_message_from_the_agent_is_flagged(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"malformed", "enter")
        await wait_for(pilot, lambda: permission_armed(app))
        await pilot.press("y", "y")  # select, then choose
        await wait_for(pilot, lambda: turn_ended(app))
        await show_inspector(pilot, app)
        inspector = panel(app)

        def malformed(entry: TrafficEntry) -> bool:
            update = (entry.data or {}).get("params", {}).get("update", {})
            return bool(update.get("toolCallId") == 5)

        bad = next(entry for entry in shown(app) if malformed(entry))
        assert not bad.valid
        assert "tool_call_update" in (bad.problem or "")
        initialize = next(e for e in shown(app) if e.method == "initialize")
        assert initialize.valid
        table = inspector.table
        assert str(table.get_cell(str(bad.index), "method")).startswith("⚠")
        assert not str(table.get_cell(str(initialize.index), "method")).startswith("⚠")
        inspector.table.move_cursor(row=inspector.shown_indexes.index(bad.index))
        await wait_for(pilot, lambda: inspector.selected is bad)
        problem = inspector.query_one("#inspector-problem", Static)
        assert problem.display
        assert "not valid" in str(problem.content)
