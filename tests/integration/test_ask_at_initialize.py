"""An agent that asks right after its `initialize` answer, in the same write.

`tests/fakes/asking_agent.py at-initialize` writes its `initialize` result and a
request-scoped `elicitation/create` as two lines of one write, so the client
reads the question before it has taken in the answer. Real agents may do this:
the question is asked, and its answer reaches the agent (it was answered
`-32600` "initialize is not answered yet" before).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Final

import anyio
import pytest

from acp_tui.client.connection import ClientFeatures, connect
from acp_tui.client.ports import ElicitationReply
from acp_tui.client.session import AcpClient
from acp_tui.protocol.dispatcher import Diagnostic
from acp_tui.protocol.transport import AgentCommand, StdioTransport
from tests.unit.client.peer import ScriptedElicitor, ScriptedPrompter

pytestmark = pytest.mark.subprocess

AGENT: Final = Path(__file__).resolve().parents[1] / "fakes" / "asking_agent.py"
BOUND: Final = 20


async def test_a_question_sent_with_the_initialize_answer_is_asked(
    tmp_path: Path,
) -> None:
    log = tmp_path / "received.jsonl"
    elicitor = ScriptedElicitor(
        lambda _: ElicitationReply("accept", {"workspace": "main"})
    )
    diagnostics: list[Diagnostic] = []
    client = AcpClient(
        prompter=ScriptedPrompter(),
        elicitor=elicitor,
        features=ClientFeatures(elicitation_form=True),
        on_diagnostic=diagnostics.append,
    )
    command = AgentCommand(
        argv=(sys.executable, str(AGENT), "at-initialize"),
        env={"ASKING_AGENT_LOG": str(log)},
    )
    with anyio.fail_after(BOUND):
        async with connect(
            lambda: StdioTransport(command, name="asking"),
            features=client.features,
            on_request=client.handle_request,
            on_notification=client.handle_notification,
            on_diagnostic=diagnostics.append,
        ) as connection:
            client.attach(connection)
            # the agent answers session/new once its question is answered
            store = await client.new_session(tmp_path)
    assert store.session_id == "s1"
    (asked,) = elicitor.asks
    assert asked.request.session_id is None
    assert asked.request.message == "Pick a workspace"
    received = [json.loads(line) for line in log.read_text().splitlines()]
    answer: dict[str, Any] = next(m for m in received if m.get("id") == "ask-1")
    assert answer.get("result") == {
        "action": "accept",
        "content": {"workspace": "main"},
    }, answer
    assert diagnostics == []
