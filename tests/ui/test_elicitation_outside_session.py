"""An elicitation outside any session, and a completion for an unknown id.

`tests/fakes/asking_agent.py` asks a request-scoped form right after
`initialize` (before any session exists), then sends `elicitation/complete` for
an id it never used:

* the form is asked in the tab and its answer reaches the agent;
* no session store records it, so the conversation says it happened (a
  banner: who asked, what, how it was answered), nothing silently lost;
* the unknown completion is ignored: no crash, nothing recorded, and the
  session opens.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Final

import pytest
from textual.widgets import Static

from acp_tui.client.ports import ElicitationReply
from acp_tui.protocol.transport import AgentCommand
from acp_tui.ui.app import make_app
from acp_tui.ui.widgets.conversation import Conversation
from tests.ui.helpers import wait_for
from tests.ui.test_elicitation_wiring import SIZE, stub, the_store

AGENT: Final = Path(__file__).parent.parent / "fakes" / "asking_agent.py"

pytestmark = pytest.mark.subprocess


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


async def test_a_question_before_any_session_is_asked_answered_and_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dialogs = stub(monkeypatch, ElicitationReply("accept", {"workspace": "main"}))
    command = AgentCommand(argv=(sys.executable, str(AGENT)))
    app = make_app(command, "asking", cwd=tmp_path, init_timeout=20.0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: bool(dialogs.asked), bound=20)
        (request,) = dialogs.asked
        assert request.session_id is None
        assert request.agent == "asking-agent"
        assert request.message == "Pick a workspace"
        await wait_for(pilot, lambda: app.store is not None, bound=20)
        store = the_store(app)
        assert store.elicitations() == ()  # no session store records it

        def banner() -> str:
            conversation = app.active_pane.query_one(Conversation)
            texts = [str(s.render()) for s in conversation.query(Static)]
            return next((t for t in texts if "before the session" in t), "")

        await wait_for(pilot, lambda: bool(banner()))
        assert "asking-agent asked before the session" in banner()
        assert "Pick a workspace" in banner()
        assert "(answered)" in banner()
        # the agent's elicitation/complete for an unknown id (sent before its
        # session/new answer, so already read) changed nothing
        assert store.elicitations() == ()
        assert app.is_running
        assert store.session_id == "s1"
