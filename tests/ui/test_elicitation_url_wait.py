"""After the user agrees to open a URL, the tab waits for `elicitation/complete`.

Against the demo agent's `/login` (the consent dialog stood in for by a stub
that accepts): the wait shows ("Waiting for sign-in at 127.0.0.1…"), and

* opening the page makes the agent complete it: the wait closes by itself and
  the record says `completed`;
* Esc stops waiting: the conversation says so, and the completion the agent
  sends later is ignored (the record stays accepted, not completed).
"""

from __future__ import annotations

import urllib.request
from pathlib import Path

import anyio
import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.screen import ModalScreen
from textual.widgets import Static

from acp_tui.client.ports import ElicitationReply
from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.screens.elicitation_url import UrlWaitScreen
from acp_tui.ui.widgets.conversation import Conversation
from tests.ui.helpers import wait_for
from tests.ui.test_elicitation_wiring import SIZE, Dialogs, demo_app, stub, the_store

pytestmark = pytest.mark.subprocess


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ACP_TUI_DEMO_DELAY", "0")


def waiting(app: AcpTuiApp) -> UrlWaitScreen | None:
    screen = app.screen
    return screen if isinstance(screen, UrlWaitScreen) else None


async def visit(url: str) -> None:
    def get() -> None:
        with urllib.request.urlopen(url, timeout=10) as response:
            response.read()

    await anyio.to_thread.run_sync(get)


async def login_until_waiting(
    pilot: Pilot[None], app: AcpTuiApp, dialogs: Dialogs
) -> str:
    await wait_for(pilot, lambda: app.store is not None, bound=20)
    await pilot.press(*"/login", "enter")
    await wait_for(pilot, lambda: waiting(app) is not None, bound=20)
    (request,) = dialogs.asked
    assert request.url is not None
    return request.url


@pytest.mark.parametrize("version", ["v1", "v2"])
async def test_the_wait_shows_and_closes_when_the_agent_completes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    dialogs = stub(monkeypatch, ElicitationReply("accept"))
    app = demo_app(tmp_path, version)
    async with app.run_test(size=SIZE) as pilot:
        url = await login_until_waiting(pilot, app, dialogs)
        screen = waiting(app)
        assert screen is not None
        title = screen.query_one("#url-wait-title", Static).content
        assert str(title) == "Waiting for sign-in at 127.0.0.1…"
        assert "Esc cancels" in str(screen.query_one("#url-wait-hint", Static).content)
        store = the_store(app)
        (elicitation,) = store.elicitations()
        assert elicitation.action == "accept"
        assert not elicitation.completed
        await visit(url)
        await wait_for(pilot, lambda: store.state.turns_ended == 1, bound=20)
        await wait_for(pilot, lambda: waiting(app) is None)
        assert store.elicitations()[0].completed
        assert "Signed in" in store.messages()[-1].text


async def test_escape_stops_waiting_and_a_later_completion_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dialogs = stub(monkeypatch, ElicitationReply("accept"))
    app = demo_app(tmp_path, "v2")
    async with app.run_test(size=SIZE) as pilot:
        url = await login_until_waiting(pilot, app, dialogs)
        await pilot.press("escape")
        await wait_for(pilot, lambda: waiting(app) is None)
        conversation = app.active_pane.query_one(Conversation)

        def banner() -> bool:
            return any(
                "Stopped waiting for the sign-in at 127.0.0.1" in str(s.content)
                for s in conversation.query(Static)
            )

        await wait_for(pilot, banner)
        store = the_store(app)
        assert store.state.turns_ended == 0  # the turn goes on
        await visit(url)  # the agent now sends elicitation/complete
        await wait_for(pilot, lambda: store.state.turns_ended == 1, bound=20)
        assert "Signed in" in store.messages()[-1].text
        (elicitation,) = store.elicitations()
        assert elicitation.action == "accept"
        assert not elicitation.completed  # ignored: no longer followed
        assert waiting(app) is None


async def test_a_wait_that_ends_under_another_dialog_leaves_that_dialog() -> None:
    """The wait ends while a dialog covers it: that dialog stays until answered.

    `dismiss` closes the topmost screen, so the wait closes only once it is
    shown again.
    """
    over = anyio.Event()
    closed: list[bool | None] = []
    app: App[None] = App()
    async with app.run_test() as pilot:
        wait = UrlWaitScreen("Agent", "https://example.com/login", over)
        app.push_screen(wait, closed.append)
        await wait_for(pilot, lambda: app.screen is wait)
        cover = ModalScreen[None]()
        app.push_screen(cover)
        await wait_for(pilot, lambda: app.screen is cover)
        over.set()
        await wait_for(
            pilot,
            lambda: all(w.is_finished for w in app.workers if w.node is wait),
        )
        await pilot.pause()
        assert app.screen is cover
        assert closed == []
        app.pop_screen()
        await wait_for(pilot, lambda: closed == [True])
        assert wait not in app.screen_stack
