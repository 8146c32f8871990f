"""Send now and reordering in the queue of prompts (issue 25, item 2).

Where the agent advertises steering (the fake agent with FAKE_AGENT_STEERING=1,
in both versions), `s` on a queued prompt sends it into the running turn: the
agent's answer is shown under the steered prompt, which the conversation shows
as the user's message where it was sent, and nothing is sent as a new
`session/prompt`. Without steering the queue is today's, plus alt+up/alt+down
to reorder it (the runner's order and the drafts follow).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.storage.drafts import DraftStore
from acp_tui.store.store import SessionStore
from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.ui.helpers import wait_for
from tests.ui.test_app import SIZE
from tests.ui.test_app_flows import _home, app_for, record, sent
from tests.ui.test_prompt_queue import (
    hanging_turn,
    prompt,
    prompts_sent,
    queue,
    queued,
    waiting,
)

__all__ = ["_home", "record"]  # fixtures

pytestmark = pytest.mark.subprocess

BOTH = pytest.mark.parametrize("version", ["v1", "v2"])


@pytest.fixture
def steering(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_AGENT_STEERING", "1")


def texts(store: SessionStore | None) -> list[tuple[str, str]]:
    assert store is not None
    return [(m.role, m.text) for m in store.messages() if m.text]


def notes(app: AcpTuiApp) -> list[str]:
    from acp_tui.ui.widgets.queue_steering import SteerNote

    return [note.words for note in app.active_pane.query(SteerNote)]


@BOTH
async def test_send_now_injects_a_queued_prompt_into_the_running_turn(
    tmp_path: Path, record: Path, steering: None, version: str
) -> None:
    from acp_tui.ui.widgets.queue_steering import SteerNote

    app = app_for(f"{version}-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await hanging_turn(pilot, app)
        assert "s sends now" in str(queue(app).border_title)
        await pilot.press("up")  # "third agent-switch"
        await pilot.press("s")
        await wait_for(pilot, lambda: bool(sent(record, "_session/steering")))
        steered = sent(record, "_session/steering")
        assert [s["prompt"][0]["text"] for s in steered] == ["third agent-switch"]
        await wait_for(
            pilot, lambda: ("agent", "heard: third agent-switch") in texts(app.store)
        )
        shown = texts(app.store)
        steered_at = shown.index(("user", "third agent-switch"))
        assert shown[steered_at + 1] == ("agent", "heard: third agent-switch")
        await wait_for(
            pilot, lambda: notes(app) == ["sent now: injected into the running turn"]
        )
        # The note sits in the steered prompt's card, under its text.
        conversation = app.active_pane._conversation
        [note] = app.active_pane.query(SteerNote)
        card = conversation.entries[("message", _steered_key(app))]
        assert note.parent is card
        assert list(card.children)[-1] is note
        # The turn ended: the rest of the queue goes out as ordinary prompts.
        await wait_for(pilot, lambda: len(prompts_sent(record)) == 2)
        assert prompts_sent(record) == ["hang", "second agent-switch"]
        assert DraftStore.for_project(tmp_path).draft.queued == ()


def _steered_key(app: AcpTuiApp) -> str:
    store = app.store
    assert store is not None
    [message] = [m for m in store.messages() if m.text == "third agent-switch"]
    return message.key


async def test_without_steering_send_now_leaves_the_queue_alone(
    tmp_path: Path, record: Path
) -> None:
    app = app_for("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await hanging_turn(pilot, app)
        assert "s sends now" not in str(queue(app).border_title)
        await pilot.press("up", "s")
        await wait_for(pilot, lambda: bool(app._notifications))
        [said] = [n.message for n in app._notifications]
        assert said.startswith("this agent takes no prompt during a turn")
        assert queued(app) == ["second agent-switch", "third agent-switch"]
        assert sent(record, "_session/steering") == []
        assert queue(app).has_focus
        await pilot.press("escape", "escape")  # back to the prompt; cancel


async def test_alt_up_and_down_reorder_the_queue_and_the_drafts(
    tmp_path: Path, record: Path
) -> None:
    app = app_for("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await hanging_turn(pilot, app)
        await pilot.press(*"fourth agent-switch", "enter")
        await wait_for(pilot, lambda: len(queued(app)) == 3)
        await pilot.press("up")  # "fourth agent-switch"
        await pilot.press("alt+up")
        await wait_for(pilot, lambda: queued(app)[1] == "fourth agent-switch")
        order = ["second agent-switch", "fourth agent-switch", "third agent-switch"]
        assert queued(app) == order
        assert waiting(app) == order
        assert DraftStore.for_project(tmp_path).draft.queued == tuple(order)
        assert queue(app).highlighted_id == queue(app).entries[1][0]  # follows it
        await pilot.press("ctrl+up")  # to the head; once more does nothing
        await pilot.press("alt+up")
        await wait_for(pilot, lambda: queued(app)[0] == "fourth agent-switch")
        await pilot.press("alt+down")
        await wait_for(pilot, lambda: queued(app)[1] == "fourth agent-switch")
        await pilot.press("ctrl+down")
        await wait_for(pilot, lambda: queued(app)[2] == "fourth agent-switch")
        order = ["second agent-switch", "third agent-switch", "fourth agent-switch"]
        assert waiting(app) == order
        assert DraftStore.for_project(tmp_path).draft.queued == tuple(order)
        # Up in the empty prompt, then Enter: the newest comes back to edit.
        await pilot.press("escape")
        await wait_for(pilot, lambda: prompt(app).has_focus)
        await pilot.press("up", "enter")
        await wait_for(pilot, lambda: prompt(app).text == "fourth agent-switch")
        assert waiting(app) == order[:2]
        await pilot.press("ctrl+c")  # cancel the turn: the others go out in order
        await wait_for(pilot, lambda: len(prompts_sent(record)) == 3)
        assert prompts_sent(record) == ["hang", *order[:2]]


async def test_prompt_required_puts_the_prompt_at_the_head_of_the_queue(
    tmp_path: Path, record: Path, steering: None
) -> None:
    app = app_for("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"hang lapsed", "enter")
        await wait_for(pilot, lambda: app.runner.in_turn)
        await pilot.press(*"second agent-switch", "enter")
        await pilot.press(*"third agent-switch", "enter")
        await wait_for(pilot, lambda: len(queued(app)) == 2)
        await pilot.press("up", "s")  # "third": the agent says its turn is over
        await wait_for(pilot, lambda: bool(app._notifications))
        [said] = [n.message for n in app._notifications]
        assert said == "sent now: sent as the next prompt (no turn was running)"
        order = ["third agent-switch", "second agent-switch"]
        await wait_for(pilot, lambda: queued(app) == order)
        assert waiting(app) == order
        assert DraftStore.for_project(tmp_path).draft.queued == tuple(order)
        assert notes(app) == []
        await pilot.press("escape", "escape")  # back to the prompt; cancel
        await wait_for(pilot, lambda: len(prompts_sent(record)) == 3)
        assert prompts_sent(record) == ["hang lapsed", *order]


async def test_an_edited_queued_prompt_goes_back_to_its_place(
    tmp_path: Path, record: Path
) -> None:
    app = app_for("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await hanging_turn(pilot, app)
        await pilot.press("up", "up", "enter")  # the oldest, "second", to edit
        await wait_for(pilot, lambda: prompt(app).text == "second agent-switch")
        assert queued(app) == ["third agent-switch"]
        await pilot.press(*" edited", "enter")
        order = ["second agent-switch edited", "third agent-switch"]
        await wait_for(pilot, lambda: queued(app) == order)
        assert waiting(app) == order
        assert DraftStore.for_project(tmp_path).draft.queued == tuple(order)
        await pilot.press(*"fourth agent-switch", "enter")  # a new one: last
        await wait_for(pilot, lambda: len(queued(app)) == 3)
        assert queued(app)[2] == "fourth agent-switch"
        await pilot.press("escape")  # cancel: they go out in the queue's order
        await wait_for(pilot, lambda: len(prompts_sent(record)) == 4)
        assert prompts_sent(record) == ["hang", *order, "fourth agent-switch"]


def palette_titles(app: AcpTuiApp) -> list[str]:
    return [command.title for command in app.get_system_commands(app.screen)]


async def test_the_palette_sends_the_oldest_queued_prompt_now(
    tmp_path: Path, record: Path, steering: None
) -> None:
    app = app_for("v1-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        assert "Send queued prompt now" not in palette_titles(app)  # none queued
        await hanging_turn(pilot, app)
        [command] = [
            c
            for c in app.get_system_commands(app.screen)
            if c.title == "Send queued prompt now"
        ]
        command.callback()  # nothing selected: the oldest
        await wait_for(pilot, lambda: bool(sent(record, "_session/steering")))
        [steered] = sent(record, "_session/steering")
        assert steered["prompt"][0]["text"] == "second agent-switch"
        await wait_for(
            pilot, lambda: notes(app) == ["sent now: injected into the running turn"]
        )


async def test_no_palette_entry_without_steering(tmp_path: Path) -> None:
    app = app_for("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await hanging_turn(pilot, app)
        assert "Send queued prompt now" not in palette_titles(app)
        await pilot.press("escape")


@BOTH
async def test_the_demos_slow_turn_takes_a_prompt_sent_now(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    from tests.ui.test_elicitation_wiring import demo_app

    monkeypatch.setenv("ACP_TUI_DEMO_DELAY", "0")
    # The turn's steps last 3x their usual least time (9 s in all): on a loaded
    # machine the prompt was still being queued when a 3 s turn ended.
    monkeypatch.setenv("ACP_TUI_DEMO_FLOOR", "3")
    app = demo_app(tmp_path, version)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None, bound=30)
        await pilot.press(*"/slow", "enter")
        await wait_for(pilot, lambda: app.runner.in_turn)
        # Set, not typed: Pilot pauses after each key (on a loaded machine,
        # typing it took most of the turn).
        app.active_pane.query_one(PromptInput).text = "mind the tests"
        await pilot.press("enter")
        await wait_for(pilot, lambda: queue(app).steering)
        await pilot.press("up", "s")
        await wait_for(
            pilot, lambda: notes(app) == ["sent now: injected into the running turn"]
        )
        await wait_for(pilot, lambda: not app.runner.in_turn, bound=30)
        shown = texts(app.store)
        steered = shown.index(("user", "mind the tests"))
        heard = [
            i
            for i, (_, text) in enumerate(shown)
            if "You sent “mind the tests”" in text
        ]
        assert heard
        assert heard[0] > steered
        assert queued(app) == []
