"""Queued prompts (issue 23, item 7): shown in a list above the prompt, taken
back to be edited (Up in the empty prompt then Enter, or a click) or removed
(Delete), and a prompt typed while the agent is stopped waits there and goes out
after the restart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.widgets.conversation import QueuedPrompt
from acp_tui.ui.widgets.crash_banner import CrashBanner
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.ui.helpers import wait_for
from tests.ui.test_app import SIZE
from tests.ui.test_app_flows import _home, app_for, record, sent

__all__ = ["_home", "record"]  # fixtures

pytestmark = pytest.mark.subprocess


def queue(app: AcpTuiApp) -> Any:
    """The tab's `PromptQueue` (imported here: the widget is new)."""
    from acp_tui.ui.widgets.prompt_queue import PromptQueue

    return app.active_pane.query_one("#prompt-queue", PromptQueue)


def queued(app: AcpTuiApp) -> list[str]:
    """What the queue above the prompt shows, oldest first ([] when hidden)."""
    shown = queue(app)
    return [text for _, text in shown.entries] if shown.display else []


def waiting(app: AcpTuiApp) -> list[str]:
    """The texts in the runner's queue, in the order it will send them."""
    return [text for _, text in app.runner.prompts._queue]  # type: ignore[attr-defined]


def prompt(app: AcpTuiApp) -> PromptInput:
    return app.active_pane.query_one(PromptInput)


def prompts_sent(record: Path) -> list[str]:
    return [p["prompt"][0]["text"] for p in sent(record, "session/prompt")]


async def hanging_turn(pilot: Pilot[None], app: AcpTuiApp) -> None:
    """A turn that runs until cancelled; then two prompts queued behind it."""
    await wait_for(pilot, lambda: app.store is not None)
    await pilot.press(*"hang", "enter")
    await wait_for(pilot, lambda: app.runner.in_turn)
    # Prompts that end their turn at once (no permission asked).
    await pilot.press(*"second agent-switch", "enter")
    await pilot.press(*"third agent-switch", "enter")
    await wait_for(pilot, lambda: len(queued(app)) == 2)


async def test_queued_prompts_are_listed_above_the_prompt(
    tmp_path: Path, record: Path
) -> None:
    app = app_for("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await hanging_turn(pilot, app)
        assert queued(app) == ["second agent-switch", "third agent-switch"]
        shown = queue(app)
        assert shown.region.bottom <= prompt(app).region.y  # just above it
        assert "2 queued" in str(shown.border_title)
        # Not also in the conversation while they wait.
        assert not [p for p in app.query(QueuedPrompt) if p.state == "queued"]
        await pilot.press("escape")  # cancel: the queue goes out in order
        await wait_for(pilot, lambda: len(prompts_sent(record)) == 3)
        assert prompts_sent(record) == [
            "hang",
            "second agent-switch",
            "third agent-switch",
        ]
        await wait_for(pilot, lambda: queued(app) == [])
        assert not queue(app).display


async def test_up_in_the_empty_prompt_brings_a_queued_prompt_back_to_edit(
    tmp_path: Path, record: Path
) -> None:
    app = app_for("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await hanging_turn(pilot, app)
        await pilot.press("up")  # the newest queued prompt is selected
        assert queue(app).has_focus
        assert queue(app).highlighted_id is not None
        await pilot.press("enter")  # back into the prompt
        await wait_for(pilot, lambda: prompt(app).has_focus)
        assert prompt(app).text == "third agent-switch"
        assert queued(app) == ["second agent-switch"]
        assert waiting(app) == ["second agent-switch"]
        await pilot.press(*" edited", "enter")
        await wait_for(pilot, lambda: len(queued(app)) == 2)
        assert queued(app) == ["second agent-switch", "third agent-switch edited"]
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(prompts_sent(record)) == 3)
        assert prompts_sent(record) == [
            "hang",
            "second agent-switch",
            "third agent-switch edited",
        ]


async def test_editing_keeps_what_was_typed_in_the_prompt(tmp_path: Path) -> None:
    app = app_for("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await hanging_turn(pilot, app)
        await pilot.press("up", "up", "escape")  # into the list and out
        await wait_for(pilot, lambda: prompt(app).has_focus)
        await pilot.press(*"draft")
        await pilot.click("#prompt-queue", offset=(3, 1))  # the oldest: "second"
        await wait_for(
            pilot, lambda: prompt(app).text == "second agent-switch\n\ndraft"
        )
        assert queued(app) == ["third agent-switch"]


async def test_delete_removes_the_selected_queued_prompt(
    tmp_path: Path, record: Path
) -> None:
    app = app_for("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await hanging_turn(pilot, app)
        await pilot.press("up", "up")  # "third", then "second"
        await pilot.press("delete")
        await wait_for(pilot, lambda: queued(app) == ["third agent-switch"])
        assert waiting(app) == ["third agent-switch"]
        assert prompt(app).text == ""
        await pilot.press("escape")  # back to the prompt
        await wait_for(pilot, lambda: prompt(app).has_focus)
        await pilot.press("escape")  # cancel the turn
        await wait_for(pilot, lambda: len(prompts_sent(record)) == 2)
        assert prompts_sent(record) == ["hang", "third agent-switch"]


async def test_up_without_queued_prompts_still_recalls_the_history(
    tmp_path: Path,
) -> None:
    app = app_for("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await hanging_turn(pilot, app)
        await pilot.press("up", "delete")
        await wait_for(pilot, lambda: len(queued(app)) == 1)
        await pilot.press("up", "delete")
        await wait_for(pilot, lambda: queued(app) == [])
        await wait_for(pilot, lambda: prompt(app).has_focus)
        await pilot.press("up")
        assert prompt(app).text == "third agent-switch"  # the newest history entry


async def test_a_prompt_typed_while_the_agent_is_stopped_waits_for_the_restart(
    tmp_path: Path, record: Path
) -> None:
    app = app_for("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"please crash", "enter")
        await wait_for(pilot, lambda: bool(app.query(CrashBanner)))
        await wait_for(pilot, lambda: not app.runner.running)
        await pilot.press(*"after the restart agent-switch", "enter")
        await wait_for(pilot, lambda: queued(app) == ["after the restart agent-switch"])
        assert "restart" in str(queue(app).border_title)
        assert prompts_sent(record) == ["please crash"]
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: len(prompts_sent(record)) == 2)
        assert prompts_sent(record) == [
            "please crash",
            "after the restart agent-switch",
        ]
        await wait_for(pilot, lambda: queued(app) == [])
