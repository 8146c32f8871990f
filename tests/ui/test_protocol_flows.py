"""Pilot tests of protocol rules the app must follow, against the scripted fake agent.

Sessions the user leaves are closed (`session/close`) where the agent supports it,
and a prompt the agent refuses is shown for what it is (not delivered).
The fake agent records what it is sent (`FAKE_AGENT_RECORD`), so the tests assert
the wire traffic as well as the screen.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.ui.widgets.conversation import Banner, QueuedPrompt
from tests.ui.helpers import wait_for
from tests.ui.test_app import SIZE
from tests.ui.test_app_flows import BOTH, _home, app_for, record, sent
from tests.ui.test_tabs import open_second_tab

pytestmark = pytest.mark.subprocess

# The fixtures: a private ACP_TUI_HOME per test, and where the fake agent records
# what it is sent.
__all__ = ["_home", "record"]


@BOTH
async def test_a_new_session_closes_the_session_left(
    tmp_path: Path, record: Path, version: str
) -> None:
    """Ctrl+n opens s2; s1, left, is closed (v2 baseline; v1-full has `close`)."""
    app = app_for(f"{version}-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        first = app.store
        assert first is not None
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: bool(sent(record, "session/close")))
        assert app.store is not None
        assert app.store.session_id == "s2"
        assert sent(record, "session/close") == [{"sessionId": "s1"}]
        assert app.runner.client is not None
        with pytest.raises(KeyError):
            app.runner.client.store("s1")  # no longer followed


async def test_switching_to_the_same_session_does_not_close_it(
    tmp_path: Path, record: Path
) -> None:
    app = app_for("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        runner = app.runner
        assert runner.store is not None
        request = runner.restart_request()
        await runner.switch_session(request)
        await wait_for(pilot, lambda: len(sent(record, "session/resume")) == 1)
        assert sent(record, "session/close") == []


async def test_closing_a_tab_closes_its_session(tmp_path: Path, record: Path) -> None:
    app = app_for("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await open_second_tab(pilot, app)
        assert sent(record, "session/close") == []
        await pilot.press("alt+w")
        await wait_for(pilot, lambda: len(app.panes) == 1)
        # The closed tab's agent was told before it was stopped; the other's
        # session stays open.
        assert sent(record, "session/close") == [{"sessionId": "s1"}]
        assert app.runner.client is not None
        assert app.runner.client.store("s1") is app.store


async def test_a_v2_prompt_answered_with_an_error_is_not_left_sending(
    tmp_path: Path,
) -> None:
    """The agent refused the prompt: it is kept, marked as not delivered, and the
    error is shown; nothing claims it is still being sent."""
    app = app_for("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"please fail", "enter")
        await wait_for(pilot, lambda: bool(app.query(Banner)))
        assert "the prompt failed" in app.query_one(Banner).text
        assert "model overloaded" in app.query_one(Banner).text
        await wait_for(pilot, lambda: not app.runner.in_turn)
        rows = [(p.state, p.text) for p in app.query(QueuedPrompt)]
        assert rows == [("lost", "please fail")]
        await pilot.press(*"agent-switch", "enter")  # the session goes on
        await wait_for(
            pilot, lambda: app.store is not None and app.store.state.turns_ended == 1
        )
        await wait_for(
            pilot,
            lambda: (
                [(p.state, p.text) for p in app.query(QueuedPrompt)]
                == [("lost", "please fail")]
            ),
        )
