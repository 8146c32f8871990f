"""Quitting asks first with unsent drafts or a turn running, in any tab; ctrl+q
twice quits without asking (issue 23, item 7)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Static

from acp_tui.ui.app import AcpTuiApp
from tests.ui.helpers import wait_for
from tests.ui.test_app import SIZE, _home, fake_app
from tests.ui.test_tabs import open_second_tab

__all__ = ["_home"]  # the autouse fixture: a private ACP_TUI_HOME per test

pytestmark = pytest.mark.subprocess


def asking(app: AcpTuiApp) -> bool:
    """The quit question is on screen (looked up by name: the screen is new)."""
    return type(app.screen).__name__ == "ConfirmQuitScreen"


def reasons(app: AcpTuiApp) -> str:
    screen: Screen[object] = app.screen
    return str(screen.query_one("#quit-reasons", Static).render())


def quitting(app: AcpTuiApp) -> bool:
    return app._exiting or app._exit


async def ready(pilot: Pilot[None], app: AcpTuiApp) -> None:
    await wait_for(pilot, lambda: app.store is not None)


async def test_a_draft_in_the_prompt_asks_before_quitting(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press(*"half a thought", "ctrl+q")
        await wait_for(pilot, lambda: asking(app))
        assert "a draft in the prompt" in reasons(app)
        assert "kept for next time" in reasons(app)  # the first tab's draft
        await pilot.press("n")  # stay
        await wait_for(pilot, lambda: not asking(app))
        assert not quitting(app)
        assert app.active_pane.query_one("#prompt").text == "half a thought"  # type: ignore[attr-defined]
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: asking(app))
        await pilot.press("y")
        await wait_for(pilot, lambda: quitting(app))


async def test_ctrl_q_twice_quits_without_asking(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press(*"draft", "ctrl+q")
        await wait_for(pilot, lambda: asking(app))
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: quitting(app))


async def test_a_running_turn_asks_before_quitting(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press(*"hang", "enter")
        await wait_for(pilot, lambda: app.runner.in_turn)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: asking(app))
        assert "a turn is running" in reasons(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not asking(app))
        assert not quitting(app)
        assert app.runner.in_turn


async def test_queued_prompts_in_a_hidden_tab_ask_and_name_that_tab(
    tmp_path: Path,
) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        second = await open_second_tab(pilot, app)
        await pilot.press(*"hang", "enter")
        await wait_for(pilot, lambda: second.runner.in_turn)
        await pilot.press(*"later", "enter")
        await pilot.press("alt+1")
        await wait_for(pilot, lambda: app.active_pane is not second)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: asking(app))
        text = reasons(app)
        assert "2 Fake Agent: a turn is running, 1 queued prompt" in text
        assert "1 Fake Agent" not in text  # nothing unsent there


async def test_nothing_unsent_quits_at_once(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: quitting(app))
        assert not asking(app)
