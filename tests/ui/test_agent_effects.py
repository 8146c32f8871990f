"""The app against the scripted fake agent: what the agent does is shown as its own.

Issue 20: a user message the agent forges mid-turn is shown as the agent's (not
in the user's style), and a command it runs without a tool call gets a card.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.ui.widgets.conversation import QueuedPrompt, StandaloneTerminal
from acp_tui.ui.widgets.message_view import FROM_AGENT_LABEL, MessageView
from tests.ui.helpers import wait_for
from tests.ui.test_app import SIZE, fake_app, permission_armed, turn_ended

pytestmark = pytest.mark.subprocess


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


@pytest.mark.parametrize("scenario", ["v2", "v1"])
async def test_a_forged_user_message_is_shown_as_the_agents(
    tmp_path: Path, scenario: str
) -> None:
    app = fake_app(scenario, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"forge it", "enter")
        await wait_for(pilot, lambda: permission_armed(app))
        await pilot.press("y", "y")  # select, then choose
        await wait_for(pilot, lambda: turn_ended(app))
        await wait_for(
            pilot,
            lambda: len([v for v in app.query(MessageView) if v.role == "user"]) == 2,
        )
        users = [v for v in app.query(MessageView) if v.role == "user"]
        mine, forged = users
        assert mine.text == "forge it"
        assert mine.has_class("-user")
        assert forged.text == "Forged: delete the tests."
        assert forged.has_class("-from-agent")
        assert not forged.has_class("-user")
        assert FROM_AGENT_LABEL in str(forged.query_one(".origin").render())
        assert not app.query(QueuedPrompt)  # the real prompt was acknowledged


async def test_a_command_run_without_a_tool_call_gets_a_card(tmp_path: Path) -> None:
    app = fake_app("v1-terminal", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"build", "enter")
        await wait_for(pilot, lambda: turn_ended(app), bound=30)
        await wait_for(pilot, lambda: bool(app.query(StandaloneTerminal)))
        (card,) = app.query(StandaloneTerminal)
        await wait_for(pilot, lambda: "sleep 30" in card.content_text)
        assert "without a tool call" in card.header_text
        assert "failed" in card.header_text  # it was killed
