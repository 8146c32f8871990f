"""The app's side of elicitation: the tab asks, the conversation records it.

The dialog itself (`ui.screens.elicitation`, tested on its own) is mostly stood
in for by a stub screen: `pane_dialogs.elicitation_screen` is the one place the
app builds it, so the tests replace that function. Against the demo agent
(`/ask`, v1 and v2):

* an answer reaches the agent, and the record (in the tool call's card) says
  what was answered;
* a cancelled turn closes the open dialog and answers `cancel`;
* closing a tab whose question waits answers `cancel`;
* in a hidden tab the question waits, the tab is marked, and it is asked once
  the tab is shown.

With the real dialog: it names the agent, a URL is declined with `d` twice,
and Esc in a form cancels the question (the turn goes on).

Without an agent: the conversation's record of an elicitation with no tool
call, before and after its answer, and a URL shown as text.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Final

import pytest
from textual.app import ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Static

from acp_tui.client.ports import ElicitationReply, ElicitationRequest
from acp_tui.protocol.transport import AgentCommand
from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.ui import pane_dialogs
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.key_guard import KEY_GUARD
from acp_tui.ui.screens.elicitation import ElicitationScreen
from acp_tui.ui.session_pane import SessionPane
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.elicitation_view import ElicitationView
from acp_tui.ui.widgets.tool_call_view import ToolCallView
from tests.ui.helpers import wait_for
from tests.ui.test_conversation import ConversationApp, show
from tests.ui.test_tabs import hidden_second_tab, tab_labels

SIZE: Final = (100, 30)


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ACP_TUI_DEMO_DELAY", "0")


class StubDialog(ModalScreen[Any]):
    """Stands in for the elicitation dialog: answers at once, or stays open."""

    def __init__(
        self, request: ElicitationRequest, answer: ElicitationReply | None
    ) -> None:
        super().__init__()
        self.request = request
        self.answer = answer
        self.shown = False

    def compose(self) -> ComposeResult:
        yield Static(self.request.message)

    def on_mount(self) -> None:
        self.shown = True
        if self.answer is not None:
            self.dismiss(self.answer)


class Dialogs:
    """Replaces `pane_dialogs.elicitation_screen`; keeps what it was asked."""

    def __init__(self, answer: ElicitationReply | None) -> None:
        self.answer = answer
        self.asked: list[ElicitationRequest] = []
        self.screens: list[StubDialog] = []

    def __call__(self, request: ElicitationRequest) -> StubDialog:
        self.asked.append(request)
        screen = StubDialog(request, self.answer)
        self.screens.append(screen)
        return screen


def stub(monkeypatch: pytest.MonkeyPatch, answer: ElicitationReply | None) -> Dialogs:
    dialogs = Dialogs(answer)
    monkeypatch.setattr(pane_dialogs, "elicitation_screen", dialogs)
    return dialogs


def demo_app(tmp_path: Path, version: str) -> AcpTuiApp:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    command = AgentCommand(argv=(sys.executable, "-m", "acp_tui.demo"))
    return make_app(
        command,
        "demo",
        cwd=project,
        choice="1" if version == "v1" else "2",
        init_timeout=20.0,
    )


def the_store(pane: SessionPane | AcpTuiApp) -> SessionStore:
    store = pane.store
    assert store is not None
    return store


def conversation(app: AcpTuiApp) -> Conversation:
    return app.active_pane.query_one(Conversation)


def answered(store: SessionStore) -> bool:
    elicitations = store.elicitations()
    return bool(elicitations) and not elicitations[0].pending


VERSIONS: Final = ["v1", "v2"]


@pytest.mark.subprocess
@pytest.mark.parametrize("version", VERSIONS)
async def test_an_answer_reaches_the_agent_and_is_recorded_in_its_card(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    answer = {"name": "ui", "language": "rust", "licence": "apache-2.0"}
    dialogs = stub(monkeypatch, ElicitationReply("accept", answer))
    app = demo_app(tmp_path, version)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None, bound=20)
        await pilot.press(*"/ask", "enter")
        store = the_store(app)
        await wait_for(pilot, lambda: store.state.turns_ended == 1, bound=20)
        (request,) = dialogs.asked
        assert request.agent == "acp-tui demo agent"
        assert request.mode == "form"
        assert request.tool_call_id == "call-1"
        (elicitation,) = store.elicitations()
        assert elicitation.content == answer
        assert "**Language**: rust" in store.messages()[-1].text

        def recorded() -> str:
            card = conversation(app).entries.get(("tool_call", "call-1"))
            if not isinstance(card, ToolCallView) or not card.elicitation_views:
                return ""
            return card.elicitation_views[0].text

        # the fields' titles, and the choice's title, not its value sent
        shown = "answered — Project name: ui; Language: rust; Licence: Apache 2.0"
        await wait_for(pilot, lambda: shown in recorded())
        assert "What should the new project look like?" in recorded()
        # attached to its card: no entry of its own
        assert ("elicitation", elicitation.elicitation_id) not in (
            conversation(app).entries
        )


@pytest.mark.subprocess
@pytest.mark.parametrize("version", VERSIONS)
async def test_cancelling_the_turn_closes_the_dialog_and_answers_cancel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    dialogs = stub(monkeypatch, None)
    app = demo_app(tmp_path, version)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None, bound=20)
        await pilot.press(*"/ask", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, StubDialog), bound=20)
        app.action_cancel_turn()
        store = the_store(app)
        await wait_for(pilot, lambda: store.state.turns_ended == 1, bound=20)
        assert store.state.last_stop_reason == "cancelled"
        (elicitation,) = store.elicitations()
        assert elicitation.action == "cancel"
        await wait_for(pilot, lambda: not isinstance(app.screen, StubDialog))
        assert not dialogs.screens[0].is_active


@pytest.mark.subprocess
async def test_closing_the_tab_answers_its_open_elicitation_cancel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tab whose dialog is on screen cannot be closed (the dialog is answered
    first); a hidden tab whose question waits can."""
    dialogs = stub(monkeypatch, None)
    app = demo_app(tmp_path, "v2")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None, bound=20)
        _, second = await hidden_second_tab(pilot, app)
        store = the_store(second)
        second.runner.prompts.put_nowait((1, "/ask"))
        await wait_for(pilot, lambda: bool(second._shown_waiters), bound=20)
        await app.close_tab(second)
        await wait_for(pilot, lambda: answered(store))
        assert store.elicitations()[0].action == "cancel"
        assert list(app.panes) == [app.active_pane]
        assert not any(screen.shown for screen in dialogs.screens)


@pytest.mark.subprocess
async def test_a_question_in_a_hidden_tab_waits_for_that_tab(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dialogs = stub(monkeypatch, ElicitationReply("decline"))
    app = demo_app(tmp_path, "v2")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None, bound=20)
        first, second = await hidden_second_tab(pilot, app)
        second.runner.prompts.put_nowait((1, "/ask"))
        await wait_for(pilot, lambda: second.activity == "waiting", bound=20)
        await wait_for(pilot, lambda: "needs you" in tab_labels(app)[1])
        await wait_for(pilot, lambda: bool(second._shown_waiters))
        assert not any(screen.shown for screen in dialogs.screens)
        assert app.active_pane is first
        await pilot.press("alt+2")
        store = the_store(second)
        await wait_for(pilot, lambda: answered(store), bound=20)
        assert store.elicitations()[0].action == "decline"
        await wait_for(pilot, lambda: "needs you" not in tab_labels(app)[1])


# --- the record in the conversation, without an agent ---------------------------


async def test_a_question_about_no_tool_call_is_an_entry_of_its_own() -> None:
    app = ConversationApp()
    store = SessionStore("s")
    async with app.run_test(size=(80, 24)) as pilot:
        await show(app, store, ops.AddElicitation("7", "form", "Which [b]one[/b]?", {}))
        await pilot.pause()
        view = app.conversation.entries[("elicitation", "7")]
        assert isinstance(view, ElicitationView)
        assert view.text == "Question  Which [b]one[/b]?\n… waiting for an answer"
        assert view.has_class("-pending")
        await show(app, store, ops.ResolveElicitation("7", {"action": "decline"}))
        await pilot.pause()
        assert view.text.endswith("✗ declined")
        assert view.has_class("-declined")


async def test_a_url_question_shows_its_url_as_text_and_its_completion() -> None:
    app = ConversationApp()
    store = SessionStore("s")
    url = "https://agent.example.com/connect?elicitationId=e1"
    async with app.run_test(size=(80, 24)) as pilot:
        await show(
            app,
            store,
            ops.AddElicitation("8", "url", "Authorize", url=url, url_id="e1"),
            ops.ResolveElicitation("8", {"action": "accept"}),
            ops.CompleteElicitation("8"),
        )
        await pilot.pause()
        view = app.conversation.entries[("elicitation", "8")]
        assert isinstance(view, ElicitationView)
        assert view.text == f"Question  Authorize\n{url}\n✓ accepted, completed"


# --- the real dialog ------------------------------------------------------------


def real_dialog(app: AcpTuiApp) -> ElicitationScreen | None:
    screen = app.screen
    return screen if isinstance(screen, ElicitationScreen) else None


@pytest.mark.subprocess
@pytest.mark.parametrize("version", VERSIONS)
async def test_the_dialog_names_the_agent_and_declines_a_url(
    tmp_path: Path, version: str
) -> None:
    app = demo_app(tmp_path, version)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None, bound=20)
        await pilot.press(*"/login", "enter")
        await wait_for(pilot, lambda: real_dialog(app) is not None, bound=20)
        dialog = real_dialog(app)
        assert dialog is not None
        assert dialog.ask.agent == "acp-tui demo agent"
        assert dialog.ask.mode == "url"
        assert dialog.ask.url is not None
        assert dialog.ask.url.startswith("http://127.0.0.1:")
        await wait_for(pilot, lambda: dialog.guard.armed, KEY_GUARD + 5)
        await pilot.press("d", "d")
        store = the_store(app)
        await wait_for(pilot, lambda: store.state.turns_ended == 1, bound=20)
        (elicitation,) = store.elicitations()
        assert elicitation.action == "decline"
        assert "still signed out" in store.messages()[-1].text


@pytest.mark.subprocess
async def test_escape_in_the_form_cancels_the_question_not_the_turn(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path, "v2")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None, bound=20)
        await pilot.press(*"/ask", "enter")
        await wait_for(pilot, lambda: real_dialog(app) is not None, bound=20)
        await pilot.press("escape")
        store = the_store(app)
        await wait_for(pilot, lambda: store.state.turns_ended == 1, bound=20)
        assert store.state.last_stop_reason == "end_turn"
        (elicitation,) = store.elicitations()
        assert elicitation.action == "cancel"
        assert "You dismissed the form" in store.messages()[-1].text
