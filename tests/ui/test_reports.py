"""Pilot: notices, the compaction divider and session messages in the conversation.

Against the fake agent's "reports" turn (v1: sent because the client opted in;
v2: always). Notices are styled by severity, the compaction's summary is folded
under its divider until opened, and a message from another session names it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Collapsible, Static
from textual.widgets.collapsible import CollapsibleTitle

from acp_tui.ui.widgets.compaction_view import CompactionView
from acp_tui.ui.widgets.notice_view import NoticeView
from acp_tui.ui.widgets.session_message_view import SessionMessageView
from tests.ui.helpers import wait_for
from tests.ui.test_app import fake_app, turn_ended

pytestmark = pytest.mark.subprocess

SIZE = (100, 40)


@pytest.fixture(autouse=True)
def _acp_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


def shown(widget: Static) -> str:
    return str(widget.render())


@pytest.mark.parametrize("scenario", ["v1", "v2"])
async def test_notices_are_styled_by_severity(tmp_path: Path, scenario: str) -> None:
    app = fake_app(scenario, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"reports broken", "enter")
        await wait_for(pilot, lambda: turn_ended(app))
        await wait_for(pilot, lambda: len(app.query(NoticeView)) == 3)
        info, error, warning = app.query(NoticeView)
        assert info.has_class("-info")
        assert error.has_class("-error")
        assert warning.has_class("-warning")
        assert "info: Using the fast model" in shown(info)
        assert "MCP server unavailable\nContinuing without it." in shown(warning)
        colours = {view.styles.border_left[1] for view in (info, error, warning)}
        assert len(colours) == 3  # each severity its own colour
        (divider,) = app.query(CompactionView)
        assert divider.has_class("-failed")
        label = shown(divider.query_one(".divider", Static))
        assert label == "context compaction failed: summary too long"


@pytest.mark.parametrize("scenario", ["v1", "v2"])
async def test_the_compaction_summary_folds_under_its_divider(
    tmp_path: Path, scenario: str
) -> None:
    app = fake_app(scenario, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"reports", "enter")
        await wait_for(pilot, lambda: turn_ended(app))
        await wait_for(pilot, lambda: bool(app.query(CompactionView)))
        view = app.query_one(CompactionView)
        await wait_for(pilot, lambda: view.compaction.status == "completed")
        assert shown(view.query_one(".divider", Static)) == "context compacted"
        collapsible = view.query_one(Collapsible)
        assert collapsible.title == "summary (50 characters)"
        summary = view.query_one(".summary", Static)
        assert view.collapsed
        assert summary.region.height == 0  # folded away
        await pilot.click(view.query_one(CollapsibleTitle))
        await wait_for(pilot, lambda: not view.collapsed)
        await wait_for(pilot, lambda: summary.region.height >= 2)
        assert "## Retained context\nThe user is fixing the parser." in shown(summary)
        await pilot.click(view.query_one(CollapsibleTitle))
        await wait_for(pilot, lambda: view.collapsed)


async def test_a_message_from_another_session_names_it(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"reports", "enter")
        await wait_for(pilot, lambda: turn_ended(app))
        await wait_for(pilot, lambda: bool(app.query(SessionMessageView)))
        view = app.query_one(SessionMessageView)
        await wait_for(pilot, lambda: "failing tests." in shown(view))
        assert shown(view) == "↘ from session s-helper\nFound 3 failing tests."
