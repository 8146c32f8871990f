"""Pilot tests of forks, titles and archiving, against the fake agent.

`v1-sessions` / `v2-sessions` advertise `session/fork`, `set_title`, `archive`
and `status` (and read claude-agent-acp's fork point); `v2-full` advertises none.
Every tab runs its own fake agent process; the agents record what they are sent
(`FAKE_AGENT_RECORD`, one file for all), so the tests check the wire too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Tab

from acp_tui.ui.agent_runner import SessionRequest
from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.screens.rename import RenameScreen
from acp_tui.ui.screens.session_picker import SessionPickerScreen
from acp_tui.ui.widgets.message_view import MessageView
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.ui.helpers import wait_for
from tests.ui.test_app import SIZE, _home
from tests.ui.test_app_flows import app_for, record, sent
from tests.ui.test_elicitation_wiring import demo_app
from tests.ui.test_markup_injection import palette_text

pytestmark = pytest.mark.subprocess

# Fixtures: a private ACP_TUI_HOME per test (autouse), and what the agents were sent.
__all__ = ["_home", "record"]

BOTH = pytest.mark.parametrize("version", ["v1", "v2"])


def card(app: AcpTuiApp, message_id: str) -> MessageView:
    pane = app.active_pane
    return next(
        v for v in pane.query(MessageView) if v.message.message_id == message_id
    )


def kinds(timeline: Any) -> list[str]:
    return [kind for kind, _ in timeline]


async def prompt(pilot: Pilot[None], app: AcpTuiApp, text: str) -> None:
    """Send `text` from the tab on screen and wait for its turn to end."""
    store = app.store
    assert store is not None
    ended = store.state.turns_ended
    app.active_pane.query_one(PromptInput).focus()
    await pilot.press(*text)
    await pilot.press("enter")
    await wait_for(
        pilot, lambda: store.state.turns_ended > ended and store.state.is_idle
    )


@BOTH
async def test_f_on_a_message_forks_there_into_a_new_tab(
    tmp_path: Path, record: Path, version: str
) -> None:
    request = SessionRequest("resume", "s-alpha")
    app = app_for(f"{version}-sessions", tmp_path, request)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: app.store is not None and bool(app.query(MessageView))
        )
        await wait_for(
            pilot,
            lambda: any(v.message.message_id == "h-a1" for v in app.query(MessageView)),
        )
        first = app.active_pane
        source = first.store
        assert source is not None
        history = source.timeline()
        # A turn that leaves a later user message (v2 echoes it; v1 shows it).
        later = "turn-error" if version == "v2" else "agent-switch"
        await prompt(pilot, app, later)
        assert len(source.timeline()) > len(history)
        card(app, "h-a1").focus()
        await pilot.press("f")
        await wait_for(pilot, lambda: len(app.panes) == 2)
        fork = app.panes[1]
        await wait_for(pilot, lambda: fork.store is not None)
        assert app.active_pane is fork
        store = fork.store
        assert store is not None
        (params,) = sent(record, "session/fork")
        assert params["sessionId"] == "s-alpha"
        assert params["_meta"]["jetbrains"]["air"]["fork"]["messageId"] == "h-a1"
        # The history up to that message, not the later prompt.
        assert kinds(store.timeline()) == kinds(history)
        texts = [m.text for m in store.messages()]
        assert texts == [m.text for m in source.messages()][: len(texts)]
        await wait_for(
            pilot,
            lambda: "h-a1" in [v.message.message_id for v in fork.query(MessageView)],
        )
        await wait_for(
            pilot, lambda: any("(fork)" in tab.label.plain for tab in app.query(Tab))
        )
        # Both live on: a turn in each.
        await prompt(pilot, app, later)
        assert len(store.timeline()) > len(history)
        await pilot.press("alt+1")
        await wait_for(pilot, lambda: app.active_pane is first)
        before = source.state.turns_ended
        await prompt(pilot, app, later)
        assert source.state.turns_ended == before + 1
        prompts = sent(record, "session/prompt")
        assert [p["sessionId"] for p in prompts] == ["s-alpha", "fork-1", "s-alpha"]


async def test_the_palette_forks_the_whole_session(
    tmp_path: Path, record: Path
) -> None:
    app = app_for("v2-sessions", tmp_path, SessionRequest("resume", "s-beta"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: app.store is not None and bool(app.query(MessageView))
        )
        source = app.store
        assert source is not None
        # A letter other than f typed on a message card (a click focuses it)
        # goes to the prompt.
        view = card(app, "h-a1")
        await wait_for(pilot, view.allow_focus)  # once the agent's forks are known
        view.focus()
        await wait_for(pilot, lambda: app.focused is view)
        await pilot.press("g")
        prompt_input = app.active_pane.query_one(PromptInput)
        await wait_for(pilot, lambda: prompt_input.text == "g")
        assert sent(record, "session/fork") == []
        prompt_input.text = ""
        await pilot.press("ctrl+p")
        await pilot.press(*"Fork session")
        await wait_for(
            pilot, lambda: any("Fork session" in t for t in palette_text(app))
        )
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.panes) == 2)
        fork = app.panes[1]
        await wait_for(pilot, lambda: fork.store is not None)
        (params,) = sent(record, "session/fork")
        assert "_meta" not in params
        store = fork.store
        assert store is not None
        assert kinds(store.timeline()) == kinds(source.timeline())


async def test_an_agent_that_forks_whole_sessions_only(
    tmp_path: Path, record: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_AGENT_NAME", "another-agent")
    app = app_for("v2-sessions", tmp_path, SessionRequest("resume", "s-alpha"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot,
            lambda: any(v.message.message_id == "h-a1" for v in app.query(MessageView)),
        )
        await prompt(pilot, app, "turn-error")  # a later user message "u1"
        await wait_for(
            pilot,
            lambda: any(v.message.message_id == "u1" for v in app.query(MessageView)),
        )
        card(app, "h-a1").focus()
        await pilot.press("f")
        await wait_for(
            pilot,
            lambda: any(
                "forks whole sessions only" in n.message for n in app._notifications
            ),
        )
        assert len(app.panes) == 1
        assert sent(record, "session/fork") == []
        # On the last message: the whole session, without a fork point.
        card(app, "u1").focus()
        await pilot.press("f")
        await wait_for(pilot, lambda: len(app.panes) == 2)
        await wait_for(pilot, lambda: app.panes[1].store is not None)
        (params,) = sent(record, "session/fork")
        assert "_meta" not in params


async def test_no_fork_where_the_agent_does_not_advertise_it(
    tmp_path: Path, record: Path
) -> None:
    app = app_for("v2-full", tmp_path, SessionRequest("resume", "s-alpha"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot,
            lambda: any(v.message.message_id == "h-a1" for v in app.query(MessageView)),
        )
        view = card(app, "h-a1")
        assert not view.allow_focus()  # short messages take no focus here
        view.focus()
        await pilot.press("f")
        await pilot.pause(0.3)
        assert len(app.panes) == 1
        assert sent(record, "session/fork") == []
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Fork session" not in titles
        assert "Rename session" not in titles


@BOTH
async def test_rename_and_archive_in_the_picker(
    tmp_path: Path, record: Path, version: str
) -> None:
    app = app_for(f"{version}-sessions", tmp_path, SessionRequest("pick"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
        picker = app.screen
        assert isinstance(picker, SessionPickerScreen)
        await wait_for(pilot, lambda: len(picker.visible_sessions) == 3)
        # The archived "s-delta" is hidden until ctrl+l.
        assert "s-delta" not in [s.session_id for s in picker.visible_sessions]
        await pilot.press("down")  # from s-alpha to s-beta
        highlighted = picker.highlighted_session()
        assert highlighted is not None
        assert highlighted.session_id == "s-beta"
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, RenameScreen))
        field = app.screen.query_one(Input)
        field.value = ""
        await pilot.press(*" Login fixes ")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is picker)
        await wait_for(
            pilot,
            lambda: any(s.title == "Login fixes" for s in picker.visible_sessions),
        )
        assert sent(record, "session/set_title") == [
            {"sessionId": "s-beta", "title": "Login fixes"}
        ]
        # Archive it: it leaves the list.
        await pilot.press("ctrl+o")
        await wait_for(
            pilot,
            lambda: "s-beta" not in [s.session_id for s in picker.visible_sessions],
        )
        assert sent(record, "session/archive") == [{"sessionId": "s-beta"}]
        # ctrl+l lists the archived ones too, marked; ctrl+o on one unarchives it.
        await pilot.press("ctrl+l")
        await wait_for(
            pilot,
            lambda: (
                {"s-beta", "s-delta"} <= {s.session_id for s in picker.visible_sessions}
            ),
        )
        assert sent(record, "session/list")[-1]["archived"] == "include"
        archived = [s.session_id for s in picker.visible_sessions if s.archived]
        assert archived == ["s-beta", "s-delta"]
        while (picker.highlighted_session() or highlighted).session_id != "s-delta":
            await pilot.press("down")
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: sent(record, "session/unarchive") != [])
        assert sent(record, "session/unarchive") == [{"sessionId": "s-delta"}]
        await pilot.press("ctrl+l")
        await wait_for(
            pilot,
            lambda: (
                "s-delta" in [s.session_id for s in picker.visible_sessions]
                and "s-beta" not in [s.session_id for s in picker.visible_sessions]
            ),
        )


async def test_rename_from_the_palette_updates_the_tab_label(
    tmp_path: Path, record: Path
) -> None:
    app = app_for("v2-sessions", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: len(app.panes) == 2)
        await wait_for(pilot, lambda: app.panes[1].store is not None)
        await pilot.press("ctrl+p")
        await pilot.press(*"Rename session")
        await wait_for(
            pilot, lambda: any("Rename session" in t for t in palette_text(app))
        )
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RenameScreen))
        await pilot.press(*"Spike")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Spike" in app.query(Tab)[1].label.plain)
        store = app.store
        assert store is not None
        assert store.session_info.title == "Spike"
        assert sent(record, "session/set_title") == [
            {"sessionId": store.session_id, "title": "Spike"}
        ]


async def test_the_picker_marks_open_sessions(tmp_path: Path, record: Path) -> None:
    app = app_for("v2-sessions", tmp_path, SessionRequest("resume", "s-gamma"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
        picker = app.screen
        assert isinstance(picker, SessionPickerScreen)
        await wait_for(pilot, lambda: "s-gamma" in picker.statuses)
        assert picker.statuses["s-gamma"].status == "open"
        assert picker.statuses["s-alpha"].status == "saved"
        row = picker._row(next(s for s in picker.sessions if s.session_id == "s-gamma"))
        assert "● open" in row.plain


@BOTH
async def test_a_new_user_forks_with_the_demo_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    """The demo agent forks at a message: the new tab holds the history up to it
    (the first turn), under the source's title, and takes prompts."""
    monkeypatch.setenv("ACP_TUI_DEMO_DELAY", "0")
    app = demo_app(tmp_path, version)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await prompt(pilot, app, "/title First")
        source = app.store
        assert source is not None
        first_turn = source.timeline()
        await prompt(pilot, app, "/title Second")
        answer = next(
            v
            for v in app.query(MessageView)
            if v.role == "agent" and "First" in v.message.text
        )
        answer.focus()
        await pilot.press("f")
        await wait_for(pilot, lambda: len(app.panes) == 2)
        fork = app.panes[1]
        await wait_for(pilot, lambda: fork.store is not None)
        store = fork.store
        assert store is not None
        assert kinds(store.timeline()) == kinds(first_turn)
        texts = [m.text for m in store.messages()]
        assert "Second" not in " ".join(texts)
        await wait_for(
            pilot, lambda: any("(fork)" in tab.label.plain for tab in app.query(Tab))
        )
        await prompt(pilot, app, "/title Forked")
        assert store.session_info.title == "Forked"
