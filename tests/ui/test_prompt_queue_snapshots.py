"""SVG snapshot of the queued prompts above the prompt while a turn runs (look only).

Behaviour is in test_prompt_queue.py. The status bar's spinner is held on one
frame and its clock stopped, so the running turn gives the same picture on every
run.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

import pytest
from textual.pilot import Pilot

from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.widgets import status_bar
from acp_tui.ui.widgets.prompt_queue import PromptQueue
from tests.ui.helpers import screen_settled, wait_for
from tests.ui.test_app_snapshots import SIZE, _home, app_for, connected

__all__ = ["_home"]  # the fixture: a fixed start-view clock, a private home

pytestmark = [pytest.mark.snapshot, pytest.mark.subprocess]

SnapCompare = Callable[..., bool]


@pytest.fixture(autouse=True)
def _still_spinner(monkeypatch: pytest.MonkeyPatch) -> None:
    """One spinner frame, and a turn that has run for 0s, whenever it is drawn."""
    monkeypatch.setattr(status_bar, "SPINNER", "⠋")
    monkeypatch.setattr(status_bar, "time", SimpleNamespace(monotonic=lambda: 0.0))


def test_two_prompts_queued_behind_a_running_turn(snap_compare: SnapCompare) -> None:
    """A turn runs ("hang" is the last message; the status bar says "⠋ running
    0s" and "2 queued"). Just above the prompt, under a rule titled "2 queued ·
    ↑ in the empty prompt selects · enter edits · del removes · alt+↑↓ moves"
    (no "s sends now": this agent does not steer), the queue lists
    "second: check the tests" then "third: and the docs", one line each, oldest
    first; the prompt below is empty and has the focus."""

    async def queued(pilot: Pilot[None]) -> None:
        app = await connected(pilot)
        assert isinstance(app, AcpTuiApp)
        await pilot.press(*"hang", "enter")
        await wait_for(pilot, lambda: app.runner.in_turn)
        await pilot.press(*"second: check the tests", "enter")
        await pilot.press(*"third: and the docs", "enter")
        queue = app.active_pane.query_one("#prompt-queue", PromptQueue)
        await wait_for(pilot, lambda: queue.display and len(queue.entries) == 2)
        await screen_settled(pilot)

    assert snap_compare(app_for("v2-full"), terminal_size=SIZE, run_before=queued)
