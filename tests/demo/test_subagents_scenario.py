"""The demo's `/subagents` scenario on the wire (v1 and v2).

v2 takes child sessions as baseline: three `subagent_update`s announce children
that stream their own updates under their own session ids, round by round; one
ends failed. A v1 client that did not declare the `subagents` capability gets
the work described in the parent's answer instead, and no child session.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_tui.demo.scenarios import COMMANDS
from tests.demo.recorder import recording
from tests.demo.schema_check import validate_messages


def updates(messages: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (m["params"]["sessionId"], m["params"]["update"])
        for m in messages
        if m.get("method") == "session/update"
    ]


async def test_v2_subagents_are_child_sessions(project: Path) -> None:
    async with recording(2, in_process=True) as rec:
        session = await rec.new_session(project)
        assert await rec.prompt(session, "/subagents") == "end_turn"
    sent = updates(rec.messages)
    announced = [u for s, u in sent if u["sessionUpdate"] == "subagent_update"]
    children = list(dict.fromkeys(u["sessionId"] for u in announced))
    assert len(children) == 3
    assert {s for s, _ in sent} == {session, *children}
    finals = {u["sessionId"]: u["state"] for u in announced if "state" in u}
    assert [finals[c]["stopReason"] for c in children] == [
        "end_turn",
        "end_turn",
        "error",
    ]
    assert finals[children[2]]["error"]["message"].startswith("the linter crashed")
    # Each child's own stream: running, its work, then idle.
    for child in children:
        own = [u["sessionUpdate"] for s, u in sent if s == child]
        assert own[0] == "state_update"
        assert own[-1] == "state_update"
        assert "agent_message_chunk" in own
        assert "tool_call_update" in own
    # alpha.3's open `SessionUpdate` takes the draft's subagent_update too.
    report = validate_messages(2, rec.messages, rec.requested)
    assert not report.failures, report.failures[:5]


async def test_v1_without_the_capability_gets_no_child_sessions(project: Path) -> None:
    async with recording(1, in_process=True) as rec:
        session = await rec.new_session(project)
        assert await rec.prompt(session, "/subagents") == "end_turn"
    sent = updates(rec.messages)
    assert {s for s, _ in sent} == {session}
    assert all(u["sessionUpdate"] != "subagent_update" for _, u in sent)
    text = "".join(
        u["content"].get("text", "")
        for _, u in sent
        if u["sessionUpdate"] == "agent_message_chunk"
    )
    assert "did not declare the `subagents` capability" in text
    report = validate_messages(1, rec.messages, rec.requested)
    assert not report.failures, report.failures[:5]


def test_subagents_is_listed() -> None:
    assert "subagents" in [command.name for command in COMMANDS]
