"""Subagents as lanes: the fake agent's "subagents" turns in the app (v1 and v2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.text import Text
from textual.app import App

from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.screens.subagent import SubagentScreen
from acp_tui.ui.widgets.message_view import MessageView
from acp_tui.ui.widgets.subagent_lane import LaneHeader, SubagentLane
from acp_tui.ui.widgets.tool_call_view import ToolCallView
from tests.fakes import hostile_agent as hostile
from tests.ui.helpers import wait_for
from tests.ui.test_app import SIZE, fake_app, turn_ended
from tests.ui.test_markup_injection import assert_inert
from tests.ui.test_subagent_lane_snapshots import LanesApp, lanes_store

pytestmark = pytest.mark.subprocess


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


def lanes(app: AcpTuiApp) -> dict[str, SubagentLane]:
    return {lane.subagent_id: lane for lane in app.query(SubagentLane)}


def header(lane: SubagentLane) -> str:
    return lane.header_text().plain


@pytest.mark.parametrize("scenario", ["v2", "v1"])
async def test_lanes_show_status_and_expand(tmp_path: Path, scenario: str) -> None:
    app = fake_app(scenario, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"subagents", "enter")
        await wait_for(pilot, lambda: turn_ended(app))
        await wait_for(pilot, lambda: len(lanes(app)) == 2)
        explore, tests = lanes(app)["c-explore"], lanes(app)["c-tests"]
        await wait_for(pilot, lambda: "done" in header(explore))
        assert "Explore the code" in header(explore)
        assert "1 tool call" in header(explore)
        assert "failed" in header(tests)
        assert "tests crashed" in header(tests)
        assert explore.has_class("-done")
        assert tests.has_class("-failed")
        # Collapsed: none of its own cards are mounted.
        assert not explore.cards
        explore.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(explore.query(ToolCallView)))
        texts = [v.text for v in explore.query(MessageView)]
        assert texts == ["Looking at the parser."]
        assert "▾" in header(explore)
        await pilot.press("enter")
        await wait_for(pilot, lambda: not explore.query(ToolCallView))


async def test_full_screen_shows_the_subagents_own_work(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"subagents", "enter")
        await wait_for(pilot, lambda: turn_ended(app) and len(lanes(app)) == 2)
        lane = lanes(app)["c-tests"]
        lane.focus()
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, SubagentScreen))
        screen = app.screen
        assert isinstance(screen, SubagentScreen)
        await wait_for(pilot, lambda: bool(screen.query(ToolCallView)))
        assert [v.text for v in screen.query(MessageView)] == ["Running the tests."]
        assert "tests crashed" in screen.title_text().plain
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, SubagentScreen))


@pytest.mark.parametrize("scenario", ["v2", "v1"])
async def test_parent_cancel_cancels_the_subagents(
    tmp_path: Path, scenario: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "received.jsonl"
    monkeypatch.setenv("FAKE_AGENT_RECORD", str(record))
    app = fake_app(scenario, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"subagents wait", "enter")
        await wait_for(pilot, lambda: len(lanes(app)) == 2)
        assert app.store is not None
        app_session = app.store.session_id
        assert all("running" in header(lane) for lane in lanes(app).values())
        await pilot.press("escape")
        await wait_for(pilot, lambda: turn_ended(app))
        await wait_for(
            pilot,
            lambda: all("cancelled" in header(lane) for lane in lanes(app).values()),
        )
    cancelled = [
        message["params"]["sessionId"]
        for message in map(json.loads, record.read_text().splitlines())
        if message.get("method") == "session/cancel"
    ]
    assert set(cancelled) == {"c-a", "c-b", app_session}


async def test_clicks_toggle_a_lane_and_open_it_full_screen() -> None:
    app = LanesApp(lanes_store())
    async with app.run_test(size=(90, 34)) as pilot:
        await pilot.pause()
        lane = next(
            lane for lane in app.query(SubagentLane) if lane.subagent_id == "c2"
        )
        header = lane.query_one(LaneHeader)
        await pilot.click(header, offset=(5, 0))
        await wait_for(pilot, lambda: lane.expanded)
        await pilot.click(header, offset=(5, 0))
        await wait_for(pilot, lambda: not lane.expanded)
        start, _ = lane.full_screen_at
        await pilot.click(header, offset=(start + 2, 1))
        await wait_for(pilot, lambda: isinstance(app.screen, SubagentScreen))


def assert_inert_lines(text: Text, app: App[None]) -> None:
    for line in text.split("\n"):
        line.end = ""
        assert_inert(line.render(app.console))


async def test_hostile_subagent_names_stay_text() -> None:
    """A subagent's title, description and error are agent text: markup stays
    literal, escapes and control characters are made visible, nothing links."""
    store = SessionStore("p")
    store.apply(
        ops.PatchSubagent(
            "c1",
            title=f"Title {hostile.CLICK} {hostile.OSC8}",
            description=f"Role {hostile.BOLD} {hostile.ANSI}",
            status="failed",
            error=f"Error {hostile.JS_LINK}{hostile.C1}",
            at_ms=0,
        )
    )
    app = LanesApp(store)
    async with app.run_test(size=(120, 20)) as pilot:
        await pilot.pause()
        lane = app.query_one(SubagentLane)
        header = lane.header_text()
        assert hostile.CLICK in header.plain
        assert hostile.BOLD in header.plain
        assert hostile.JS_LINK in header.plain
        assert_inert_lines(header, app)
        lane.action_open_full()
        await wait_for(pilot, lambda: isinstance(app.screen, SubagentScreen))
        screen = app.screen
        assert isinstance(screen, SubagentScreen)
        assert_inert_lines(screen.title_text(), app)


async def test_the_status_line_keeps_its_height_right_and_lays_out_only_to_change_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Redrawing a status line whose lines still fit (20 lanes streaming redraw
    theirs often) asks for no layout; one that wraps, or fits again, does: its
    height is always its text's."""
    store = SessionStore("p")
    store.apply(ops.PatchSubagent("c1", title="Short", status="running", at_ms=0))
    app = LanesApp(store)
    layouts: list[bool] = []
    real = LaneHeader.refresh

    def spied(
        self: LaneHeader, *args: object, layout: bool = False, **kw: object
    ) -> object:
        layouts.append(layout)
        return real(self, *args, layout=layout, **kw)  # type: ignore[arg-type]

    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        lane = app.query_one(SubagentLane)
        header = lane.query_one(LaneHeader)
        assert header.size.height == 2
        lane.refresh_header()  # (the width is known now)
        await pilot.pause()
        monkeypatch.setattr(LaneHeader, "refresh", spied)
        lane.refresh_header()
        await pilot.pause()
        assert layouts
        assert True not in layouts
        assert header.size.height == 2
        store.apply(ops.PatchSubagent("c1", title="Long " * 30))
        del layouts[:]
        lane.refresh_header()
        await pilot.pause()
        assert True in layouts
        assert header.size.height > 3
        store.apply(ops.PatchSubagent("c1", title="Short again"))
        del layouts[:]
        lane.refresh_header()
        await pilot.pause()
        assert True in layouts
        assert header.size.height == 2
        assert "Short again" in str(header.render())
