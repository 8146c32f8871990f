"""The session picker's filter and keys (issue 23, item 8): Down after
filtering stays among the matches, untitled sessions are found by "untitled"
and by their date, and the delete question replaces what the status line said
before."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from textual.widgets import OptionList, Static

from acp_tui.client.session import SessionSummary
from acp_tui.protocol.transport import AgentCommand
from acp_tui.ui.app import make_app
from acp_tui.ui.screens.session_picker import (
    ConfirmDeleteScreen,
    SessionPick,
    SessionPickerScreen,
)
from tests.ui.helpers import wait_for
from tests.ui.test_screens import (
    SIZE,
    FakeSessions,
    loaded,
    picker,
    picker_app,
    prompts,
    static_text,
)

APP_SIZE = (100, 30)


async def test_down_after_filtering_moves_through_the_matches_only() -> None:
    app = picker_app(FakeSessions())
    async with app.run_test(size=SIZE) as pilot:
        option_list = await loaded(pilot, app)
        await pilot.press(*"ada")  # two matches: the parser and the untitled one
        await pilot.pause()
        assert option_list.highlighted == 1
        await pilot.press("down")
        assert option_list.highlighted == 2
        await pilot.press("down")  # the last match: stays there
        assert option_list.highlighted == 2
        assert picker(app).highlighted_session() is not None
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [SessionPick("resume", "sess-two", "/home/ada/other")]


async def test_down_on_a_single_match_does_not_reach_the_new_row() -> None:
    app = picker_app(FakeSessions())
    async with app.run_test(size=SIZE) as pilot:
        option_list = await loaded(pilot, app)
        await pilot.press(*"refactor", "down", "down")
        assert option_list.highlighted == 1
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [SessionPick("resume", "sess-3", "/srv/Service")]


async def test_up_from_the_first_match_still_reaches_the_new_row() -> None:
    app = picker_app(FakeSessions())
    async with app.run_test(size=SIZE) as pilot:
        option_list = await loaded(pilot, app)
        await pilot.press(*"refactor", "up", "up")
        assert option_list.highlighted == 0
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [SessionPick("new")]


@pytest.mark.parametrize(
    "typed",
    [
        "untitled",  # as the row shows it
        "UNTITLED",
        "yesterday",  # the relative time the row shows
        "2026-03-09",  # the date
        "2026-03-09 09:00",  # and time (UTC here: the test clock's zone)
    ],
)
async def test_an_untitled_session_is_found_by_untitled_and_by_date(
    typed: str,
) -> None:
    app = picker_app(FakeSessions())
    async with app.run_test(size=SIZE) as pilot:
        option_list = await loaded(pilot, app)
        await pilot.press(*typed)
        await pilot.pause()
        rows = prompts(option_list)
        assert [row.split("\n")[0] for row in rows[1:]] == ["(untitled)  ● current"]


async def test_a_month_finds_every_session_of_that_month() -> None:
    sessions = [
        SessionSummary("a", "/p", None, "2026-12-01T10:00:00Z", {}),
        SessionSummary("b", "/p", "Kept", "2026-11-30T10:00:00Z", {}),
        SessionSummary("c", "/p", None, "2026-12-31T22:00:00Z", {}),
    ]
    app = picker_app(FakeSessions(sessions), current=None)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        await pilot.press(*"2026-12")
        await pilot.pause()
        assert [s.session_id for s in picker(app).visible_sessions] == ["a", "c"]


async def test_the_delete_question_replaces_a_stale_error() -> None:
    fake = FakeSessions()
    app = picker_app(fake)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        await pilot.press("down", "ctrl+d")  # the current session: refused
        await pilot.pause()
        assert "current session" in static_text(picker(app), "#session-status")
        await pilot.press("down", "ctrl+d")  # another session: asked
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDeleteScreen))
        status = picker(app).query_one("#session-status", Static)
        assert static_text(picker(app), "#session-status") == (
            "Delete “Refactor store”?"
        )
        assert not status.has_class("-error")
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is app.pushed)
        assert static_text(picker(app), "#session-status") == (
            "“Refactor store” was not deleted."
        )
        assert fake.deleted == []


async def test_a_cancelled_delete_does_not_leave_the_last_deletion_shown() -> None:
    fake = FakeSessions()
    app = picker_app(fake)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDeleteScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: fake.deleted == ["sess-one"])
        await wait_for(
            pilot,
            lambda: (
                static_text(picker(app), "#session-status")
                == "Deleted “Fix the parser”."
            ),
        )
        await pilot.press("down", "ctrl+d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDeleteScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.pushed)
        assert "Deleted" not in static_text(picker(app), "#session-status")
        assert fake.deleted == ["sess-one"]


@pytest.mark.subprocess
async def test_the_demo_lists_no_session_left_without_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two new sessions left before any prompt (ctrl+n, ctrl+n) are not in the
    picker: only the session that has a message is."""
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ACP_TUI_DEMO_DELAY", "0")
    project = tmp_path / "project"
    project.mkdir()
    command = AgentCommand(argv=(sys.executable, "-m", "acp_tui.demo"))
    app = make_app(command, "demo", cwd=project, init_timeout=20.0)
    async with app.run_test(size=APP_SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        spoken = app.store
        assert spoken is not None
        await pilot.press(*"/title Spoken", "enter")
        await wait_for(pilot, lambda: spoken.session_info.title == "Spoken")
        opened = {spoken.session_id}
        for _ in range(2):
            await pilot.press("ctrl+n")
            await wait_for(
                pilot,
                lambda: app.store is not None and app.store.session_id not in opened,
            )
            assert app.store is not None
            opened.add(app.store.session_id)
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
        screen = app.screen
        assert isinstance(screen, SessionPickerScreen)
        await wait_for(pilot, lambda: screen.loaded)
        assert [s.session_id for s in screen.sessions] == [spoken.session_id]
        assert "(untitled)" not in "".join(
            prompts(screen.query_one("#session-list", OptionList))
        )
