"""Where a tab's agent stands is state, not status text, and the queue above the
prompt does no work on a streaming batch (issue 22, review of the pane split).

* `SessionPane.standing` (`acp_tui.ui.pane_agent.Standing`) says whether the
  agent stopped and whether a restart may help; the tab's activity and the
  queue's note read it.
* The queue above the prompt is shown again only when what it shows changes:
  the batches of a turn leave it alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from acp_tui.client.session import UnsupportedOperation
from acp_tui.protocol.transport import AgentCommand
from acp_tui.ui.agent_runner import SessionRequest
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.messages import SessionUpdated
from acp_tui.ui.pane_agent import Standing
from acp_tui.ui.session_pane import SessionPane
from acp_tui.ui.widgets.prompt_queue import PromptQueue
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.ui.helpers import wait_for
from tests.ui.test_app import SIZE, _home, fake_app
from tests.ui.test_data_safety import save_transcript

__all__ = ["_home"]  # the autouse fixture: a private ACP_TUI_HOME per test

pytestmark = pytest.mark.subprocess


async def unlisted() -> list[Any]:
    """The agent's `session/list`, where it has none."""
    raise UnsupportedOperation("this agent does not list its sessions")


def queue(app: AcpTuiApp) -> PromptQueue:
    return app.active_pane.query_one("#prompt-queue", PromptQueue)


def queue_title(app: AcpTuiApp) -> str:
    return str(queue(app).border_title or "")


async def test_an_agent_that_cannot_start_stands_stopped_and_promises_no_restart(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "no-such-agent"
    app = make_app(AgentCommand(argv=(str(missing),)), "missing", cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.active_pane
        await wait_for(pilot, lambda: pane.standing is Standing.STOPPED)
        assert pane.activity == "stopped"
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: queue(app).display)
        assert "1 queued · not sent: the agent is not running" in queue_title(app)
        assert "ctrl+r" not in queue_title(app)


async def test_a_crashed_agent_stands_stopped_and_its_queue_waits_for_ctrl_r(
    tmp_path: Path,
) -> None:
    app = fake_app("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.active_pane
        await wait_for(pilot, lambda: pane.standing is Standing.CONNECTED)
        await pilot.press(*"please crash", "enter")
        await wait_for(pilot, lambda: pane.standing is Standing.STOPPED_RESTARTABLE)
        await wait_for(pilot, lambda: not app.runner.running)
        assert pane.activity == "stopped"
        await pilot.press(*"after agent-switch", "enter")
        await wait_for(pilot, lambda: queue(app).display)
        assert "1 queued · sent once the agent is restarted (ctrl+r)" in (
            queue_title(app)
        )
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: pane.standing is Standing.CONNECTED)
        await wait_for(pilot, lambda: not queue(app).display)
        assert pane.activity in ("running", "idle")


async def test_a_saved_transcript_shown_read_only_stands_as_a_transcript(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save_transcript(tmp_path, "old-s", "What was that bug?", "A saved answer.")
    app = fake_app("v1", tmp_path)  # no session/load or resume: opened read-only
    app.first_request = SessionRequest("pick")
    monkeypatch.setattr(app.runner, "list_sessions", unlisted)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: getattr(app.screen, "loaded", False))
        await pilot.press("enter")  # on the saved session
        pane = app.active_pane
        await wait_for(pilot, lambda: pane.standing is Standing.TRANSCRIPT)
        assert pane.activity == "transcript"
        status = app.query_one(StatusBar).status_text()
        assert "saved transcript (read only)" in status


async def test_the_batches_of_a_turn_leave_the_queue_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shows: list[tuple[tuple[tuple[int, str], ...], str]] = []
    show = PromptQueue.show

    def counted_show(
        self: PromptQueue,
        entries: Sequence[tuple[int, str]],
        *,
        note: str = "",
        steering: bool = False,
    ) -> None:
        shows.append((tuple(entries), note))
        show(self, entries, note=note, steering=steering)

    batches: list[int] = []
    # Patched where it is defined: Textual calls the handler of every class on
    # the way up that defines one.
    owner = next(c for c in SessionPane.__mro__ if "on_session_updated" in vars(c))
    updated = owner.on_session_updated  # type: ignore[attr-defined]

    def counted_batch(self: SessionPane, message: SessionUpdated) -> None:
        batches.append(len(message.changes))
        updated(self, message)

    monkeypatch.setattr(PromptQueue, "show", counted_show)
    monkeypatch.setattr(owner, "on_session_updated", counted_batch)
    app = fake_app("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        store = app.store
        assert store is not None
        # A turn runs with nothing queued: its batches show nothing there.
        before = len(batches)
        await pilot.press(*"hang", "enter")
        await wait_for(pilot, lambda: app.runner.in_turn)
        await wait_for(pilot, lambda: len(batches) > before)
        assert shows == []
        # A prompt queued behind it: shown once, then gone once it is taken; the
        # batches of the rest of that turn and of the next one show nothing.
        await pilot.press(*"next agent-switch", "enter")
        await wait_for(pilot, lambda: queue(app).display)
        ((entries, note),) = shows
        assert [text for _, text in entries] == ["next agent-switch"]
        assert note == ""
        queued_at = len(batches)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not queue(app).display)
        await wait_for(pilot, lambda: store.state.turns_ended == 2)
        await wait_for(pilot, lambda: not app.runner.in_turn and store.state.is_idle)
        assert len(batches) > queued_at  # the turns went on in batches
        assert shows[1:] == [((), "")]
