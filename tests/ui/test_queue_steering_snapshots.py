"""SVG snapshots of "send now" (steering): the queue's hint, and the answer under
the steered prompt (look only; behaviour is in test_queue_steering.py).

The status bar's spinner is held on one frame and its clock stopped, so the
running turn gives the same picture on every run.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.pilot import Pilot

from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.widgets.prompt_queue import PromptQueue
from tests.ui.helpers import screen_settled, wait_for
from tests.ui.test_app_snapshots import SIZE, _home, app_for, connected
from tests.ui.test_prompt_queue_snapshots import _still_spinner

__all__ = ["_home", "_still_spinner"]  # fixtures

pytestmark = [pytest.mark.snapshot, pytest.mark.subprocess]

SnapCompare = Callable[..., bool]


@pytest.fixture(autouse=True)
def _steering(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_AGENT_STEERING", "1")


async def _queued(pilot: Pilot[None]) -> AcpTuiApp:
    app = await connected(pilot)
    await pilot.press(*"hang", "enter")
    await wait_for(pilot, lambda: app.runner.in_turn)
    await pilot.press(*"and mind the tests", "enter")
    queue = app.active_pane.query_one("#prompt-queue", PromptQueue)
    await wait_for(pilot, lambda: queue.display and queue.steering)
    return app


def test_the_queue_says_a_prompt_can_be_sent_now(snap_compare: SnapCompare) -> None:
    """A turn runs ("hang"; "⠋ running 0s" and "1 queued" in the status bar).
    Above the prompt, the rule's title ends "· alt+↑↓ moves · s sends now", and
    the queue lists "and mind the tests", highlighted (up in the empty prompt
    selected it; the list has the focus)."""

    async def selected(pilot: Pilot[None]) -> None:
        app = await _queued(pilot)
        await pilot.press("up")
        queue = app.active_pane.query_one("#prompt-queue", PromptQueue)
        await wait_for(pilot, lambda: queue.has_focus)
        await screen_settled(pilot)

    assert snap_compare(app_for("v2-full"), terminal_size=SIZE, run_before=selected)


def test_the_answer_sits_under_the_steered_prompt(snap_compare: SnapCompare) -> None:
    """The turn is over. The conversation shows the user's "hang", then the
    steered prompt "and mind the tests" as the user's message (the same bar and
    background), with a dim italic line "↳ sent now: injected into the running
    turn" under its text in the same card, then the agent's "heard: and mind the
    tests". No queue above the prompt."""

    async def steered(pilot: Pilot[None]) -> None:
        app = await _queued(pilot)
        await pilot.press("up", "s")
        await wait_for(pilot, lambda: not app.runner.in_turn)
        from acp_tui.ui.widgets.queue_steering import SteerNote

        await wait_for(pilot, lambda: bool(app.active_pane.query(SteerNote)))
        await wait_for(pilot, lambda: app.store is not None and app.store.state.is_idle)
        await screen_settled(pilot)

    assert snap_compare(app_for("v2-full"), terminal_size=SIZE, run_before=steered)
