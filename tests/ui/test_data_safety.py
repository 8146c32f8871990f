"""Pilot tests of data safety: transcripts saved as they grow, saved sessions in
the picker when the agent cannot list them, and prompt drafts over a restart."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList

from acp_tui.client.session import UnsupportedOperation
from acp_tui.storage.drafts import Draft, DraftStore
from acp_tui.storage.transcripts import (
    journaled_store,
    read_transcript,
    transcript_file,
)
from acp_tui.store import SetState, UpsertMessage
from acp_tui.ui.agent_runner import SessionRequest
from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.screens.session_picker import SessionPickerScreen
from acp_tui.ui.widgets.crash_banner import CrashBanner
from acp_tui.ui.widgets.message_view import MessageView
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.ui.helpers import wait_for
from tests.ui.test_app import SIZE, fake_app, permission_armed, turn_ended
from tests.ui.test_app_flows import app_for
from tests.ui.test_screens import static_text

pytestmark = pytest.mark.subprocess


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


def saved_json(app: AcpTuiApp) -> dict[str, Any]:
    """The live store rebuilt from its transcript, as JSON."""
    store = app.store
    assert store is not None
    loaded = read_transcript(  # filed under the name the fake agent reports
        transcript_file("fake-agent", store.session_id), session_id=store.session_id
    )
    assert loaded is not None
    assert loaded.skipped == 0
    return loaded.store.to_json()


@pytest.mark.parametrize("scenario", ["v2", "v1"])
async def test_a_streamed_session_leaves_an_equal_transcript(
    tmp_path: Path, scenario: str
) -> None:
    app = fake_app(scenario, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: permission_armed(app))
        await pilot.press("y", "y")  # select, then choose
        await wait_for(pilot, lambda: turn_ended(app))
        assert app.store is not None
        live = app.store.to_json()
        assert live["toolCalls"]
        assert saved_json(app) == live


async def test_an_agent_crash_mid_turn_keeps_what_was_streamed(
    tmp_path: Path,
) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: permission_armed(app))
        await pilot.press("y", "y")  # select, then choose
        await wait_for(pilot, lambda: turn_ended(app))
        await pilot.press(*"hang", "enter")
        store = app.store
        assert store is not None
        await wait_for(
            pilot,
            lambda: store.state.is_busy and "hang" in store.messages()[0].text,
        )
        transport = app.runner.launcher.transport
        assert transport is not None
        os.kill(transport.pid, signal.SIGKILL)  # the agent dies mid-turn
        await wait_for(pilot, lambda: bool(app.query(CrashBanner)))
        status = app.query_one(StatusBar)
        await wait_for(pilot, lambda: status.phase.startswith("agent stopped"))
        saved = saved_json(app)
        assert saved == store.to_json()
        assert saved["state"] == "running"  # cut off mid-turn
        texts = [m["content"] for m in saved["messages"]]
        assert any("world" in str(content) for content in texts)


def save_transcript(cwd: Path, session_id: str, question: str, answer: str) -> None:
    store = journaled_store(  # as the app files it: by the agent's reported name
        "fake-agent", session_id, cwd=cwd, how="new", protocol_version=1, command="fake"
    )
    store.apply_many(
        [
            UpsertMessage("u1", "user", content=[{"type": "text", "text": question}]),
            SetState("running"),
            UpsertMessage("a1", "agent", content=[{"type": "text", "text": answer}]),
            SetState("idle", "end_turn"),
        ]
    )


def shown_text(app: AcpTuiApp) -> str:
    return " ".join(v.text for v in app.query(MessageView))


async def test_the_picker_shows_saved_sessions_when_the_agent_cannot_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save_transcript(tmp_path, "old-s", "What was that bug?", "A saved answer.")
    # A v1 agent without session/load or resume: a saved session opens read-only.
    app = fake_app("v1", tmp_path)
    app.first_request = SessionRequest("pick")

    async def cannot_list() -> list[Any]:
        raise UnsupportedOperation("this agent does not list its sessions")

    monkeypatch.setattr(app.runner, "list_sessions", cannot_list)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
        picker = app.screen
        assert isinstance(picker, SessionPickerScreen)
        await wait_for(pilot, lambda: picker.loaded)
        assert [s.session_id for s in picker.visible_sessions] == ["old-s"]
        assert picker.visible_sessions[0].title == "What was that bug?"
        assert list(picker.saved_only) == ["old-s"]
        note = static_text(picker, "#session-status")
        assert "did not list its sessions" in note
        assert "saved on this computer" in note
        await pilot.press("enter")

        await wait_for(pilot, lambda: "A saved answer." in shown_text(app))
        assert "What was that bug?" in shown_text(app)
        prompt = app.query_one(PromptInput)
        assert prompt.read_only_reason is not None
        assert app.store is None  # no session is open with the agent
        await pilot.press(*"more", "enter")
        await pilot.pause()
        assert prompt.text == "more"  # refused, and kept
        assert app.runner.prompts.empty()

        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: app.store is not None)
        await wait_for(pilot, lambda: prompt.read_only_reason is None)
        await wait_for(pilot, lambda: "A saved answer." not in shown_text(app))


async def test_saved_sessions_are_merged_and_resumed_when_the_agent_can(
    tmp_path: Path, record: Path
) -> None:
    save_transcript(tmp_path, "old-s", "What was that bug?", "A saved answer.")
    app = app_for("v2", tmp_path, SessionRequest("pick"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
        picker = app.screen
        assert isinstance(picker, SessionPickerScreen)
        await wait_for(pilot, lambda: picker.loaded)
        listed = [s.session_id for s in picker.visible_sessions]
        assert listed == ["old1", "old2", "old-s"]  # the agent's, then saved only
        assert list(picker.saved_only) == ["old-s"]
        rows = picker.query_one("#session-list", OptionList)
        labels = [str(rows.get_option_at_index(n).prompt) for n in range(1, 4)]
        assert ["saved locally" in label for label in labels] == [False, False, True]
        assert static_text(picker, "#session-status") == ""
        await pilot.press(*"bug", "enter")
        # The agent supports resume, so it is asked; this one does not know the
        # session, so a new one is started instead.
        await wait_for(pilot, lambda: app.store is not None)
        assert app.store is not None
        assert app.store.session_id == "s1"
        resumed = [m for m in sent(record) if m.get("method") == "session/resume"]
        assert [m["params"]["sessionId"] for m in resumed] == ["old-s"]


def sent(record: Path) -> list[dict[str, Any]]:
    import json

    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text().splitlines()]


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "record.jsonl"
    monkeypatch.setenv("FAKE_AGENT_RECORD", str(path))
    return path


async def test_a_draft_and_queued_prompts_survive_a_restart(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"hang", "enter")
        await wait_for(pilot, lambda: app.runner.in_turn)
        await pilot.press(*"queued one", "enter")
        await pilot.press(*"unsent draft")
        await wait_for(pilot, lambda: app.query_one(PromptInput).text != "")
        app.exit()
    assert DraftStore.for_project(tmp_path).draft == Draft(
        "unsent draft", ("queued one",)
    )

    again = fake_app("v2", tmp_path)
    async with again.run_test(size=SIZE) as pilot:
        prompt = again.query_one(PromptInput)
        await wait_for(pilot, lambda: prompt.text == "queued one\n\nunsent draft")
        await wait_for(pilot, lambda: again.store is not None)
        await pilot.press("enter")
        await wait_for(pilot, lambda: again.runner.in_turn)
        assert DraftStore.for_project(tmp_path).draft == Draft()  # sent: cleared
        assert prompt.text == ""
