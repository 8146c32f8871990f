"""The demo's card scenarios over the wire: `/cancel-tool` and `/plan-docs`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from acp_tui.protocol.jsonrpc import RpcError
from tests.demo.recorder import JSON, recording
from tests.demo.test_behaviour import validate


def cancel_offered(message: JSON) -> bool:
    if message.get("method") != "session/update":
        return False
    update: dict[str, Any] = message["params"]["update"]
    return update.get("name") == "check_links" and "capabilities" in update


async def test_cancel_tool_stops_one_tool_call_and_the_turn_goes_on(
    project: Path,
) -> None:
    async with recording(2, in_process=True) as rec:
        session = await rec.new_session(project)
        start = len(rec.messages)
        wait = await rec.start_prompt(session, "/cancel-tool")
        offered = await rec.until(cancel_offered, start)
        call_id = offered["params"]["update"]["toolCallId"]
        params = {"sessionId": session, "toolCallId": call_id}
        assert await rec.request("tool_call/cancel", params) == {}
        assert await wait() == "end_turn"
        turn = rec.updates(session, start)
        final = [
            u
            for u in turn
            if u.get("toolCallId") == call_id and u.get("status") == "cancelled"
        ]
        assert final
        assert final[0]["capabilities"] is None
        said = "".join(
            u["content"]["text"]
            for u in turn
            if u["sessionUpdate"] == "agent_message_chunk"
        )
        assert "You stopped the link check after" in said
        assert "went on to this report" in said
        # Final now: a second request is refused.
        with pytest.raises(RpcError) as refused:
            await rec.request("tool_call/cancel", params)
        assert refused.value.code == -32602
    validate(rec)


async def test_a_tool_call_not_offered_cannot_be_cancelled(project: Path) -> None:
    async with recording(2, in_process=True) as rec:
        session = await rec.new_session(project)
        with pytest.raises(RpcError) as refused:
            await rec.request(
                "tool_call/cancel", {"sessionId": session, "toolCallId": "call-1"}
            )
        assert refused.value.code == -32602


@pytest.mark.parametrize("version", [1, 2])
async def test_plan_docs_sends_a_markdown_plan_and_removes_the_checklist(
    project: Path, version: int
) -> None:
    async with recording(version, in_process=True) as rec:
        session = await rec.new_session(project)
        start = len(rec.messages)
        assert await rec.prompt(session, "/plan-docs") == "end_turn"
        turn = rec.updates(session, start)
        kinds = [u["sessionUpdate"] for u in turn]
        if version == 2:
            plans = [u["plan"] for u in turn if u["sessionUpdate"] == "plan_update"]
            markdown = [p for p in plans if p["type"] == "markdown"]
            assert markdown
            assert markdown[0]["planId"] == "plan-2"
            assert "## Greeting API" in markdown[0]["content"]
            assert {"sessionUpdate": "plan_removed", "planId": "plan-1"} in turn
        else:  # v1: one plan, emptied of the checklist's entries
            assert "plan_removed" not in kinds
            last = [u for u in turn if u["sessionUpdate"] == "plan"][-1]
            assert last["entries"] == []
    validate(rec)
