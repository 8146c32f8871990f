"""The first screen leaves when a turn starts, however its prompt was sent.

Not only a prompt typed and submitted: one put straight on the runner's queue
(as `bench/ui.py` and scripts do) starts a turn too, and the welcome must not
stay over the conversation while that turn runs. The turn is the fake agent's
"hang", which runs until cancelled, so the test sees it running.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from acp_tui.protocol.transport import AgentCommand
from acp_tui.ui.app import make_app
from acp_tui.ui.widgets.start_view import StartView
from tests.ui.helpers import wait_for
from tests.ui.test_following import fake_app

pytestmark = pytest.mark.subprocess


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


@pytest.mark.parametrize("scenario", ["v1", "v2"])
async def test_a_prompt_put_on_the_runners_queue_ends_the_welcome(
    tmp_path: Path, scenario: str
) -> None:
    app = fake_app(tmp_path, scenario)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        start = app.active_pane.query_one(StartView)
        await wait_for(pilot, lambda: start.welcoming is not None)
        assert start.display
        store = app.store
        assert store is not None
        app.runner.prompts.put_nowait((1, "hang"))  # no prompt typed or submitted
        await wait_for(pilot, lambda: app.runner.in_turn and store.state.is_busy)
        await wait_for(pilot, lambda: not start.display)
        assert start.welcoming is None
        await pilot.press("escape")  # cancels the turn
        await wait_for(pilot, lambda: store.state.turns_ended == 1)
        assert not start.display
        await app.runner.stop()


async def test_a_turn_that_starts_and_ends_within_one_batch_ends_the_welcome(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo with no delay plays a whole turn before the app sees it busy."""
    monkeypatch.setenv("ACP_TUI_DEMO_DELAY", "0")
    command = AgentCommand(argv=(sys.executable, "-m", "acp_tui.demo"))
    app = make_app(command, "demo", cwd=tmp_path, init_timeout=20.0)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        start = app.active_pane.query_one(StartView)
        await wait_for(pilot, lambda: start.welcoming is not None)
        store = app.store
        assert store is not None
        app.runner.prompts.put_nowait((1, "/markdown"))
        await wait_for(pilot, lambda: store.state.turns_ended == 1)
        await wait_for(pilot, lambda: not start.display)
        assert start.welcoming is None
