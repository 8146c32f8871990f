"""The fake agent's subagent turns (`agent.py v1|v2`, prompt "subagents").

Plain JSON in the subagents RFD's shapes (TS SDK 2.4's unstable schemas); imports
nothing from acp_tui. The parent announces each child with a `subagent_update`
on the parent session, then sends the child's own updates under the child's
session id:

  "subagents"        children "c-explore" (a message, a read tool call, and on
                     v2 a terminal "ct" that prints "ok"; ends `end_turn`) and
                     "c-tests" (a message and a failed tool call; ends `error`
                     with the message "tests crashed"); the parent says "Both
                     subagents reported." and ends `end_turn`
  "subagents background"  child "c-bg" says "Still going." and the turn ends
                     while it still runs
  "subagents wait"   children "c-a" and "c-b" (both cancellable) start and run
                     until the parent's `session/cancel`; the agent then waits
                     for a `session/cancel` of each child, reports each idle
                     `cancelled` and ends the turn `cancelled`

v1 sends all this only if the client declared the `subagents` capability;
otherwise it says "(no subagents: not declared)" and ends the turn.
"""

from __future__ import annotations

import base64
from collections.abc import Callable

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (agent.py)
if TYPE_CHECKING:
    from typing import Any

    Up = Callable[[dict[str, Any]], None]


def _text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def _said(version: int) -> dict[str, Any]:
    chunk: dict[str, Any] = {"content": _text("Still going.")}
    if version == 2:
        chunk["messageId"] = "bg1"
    return chunk


def _announce(up: Up, child: str, title: str, description: str) -> None:
    up(
        {
            "sessionUpdate": "subagent_update",
            "sessionId": child,
            "title": title,
            "description": description,
            "capabilities": {"cancel": {}},
            "state": {"state": "running"},
        }
    )


def _child_work_v2(update: Callable[[str, dict[str, Any]], None], child: str) -> None:
    def up(payload: dict[str, Any]) -> None:
        update(child, payload)

    up({"sessionUpdate": "state_update", "state": "running"})
    if child == "c-explore":
        up(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "m1",
                "content": _text("Looking at the parser."),
            }
        )
        up(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "r1",
                "title": "Read parser.py",
                "kind": "read",
                "status": "completed",
                "content": [{"type": "terminal", "terminalId": "ct"}],
            }
        )
        up({"sessionUpdate": "terminal_update", "terminalId": "ct", "command": "cat"})
        data = base64.b64encode(b"ok\r\n").decode()
        up({"sessionUpdate": "terminal_output_chunk", "terminalId": "ct", "data": data})
        up(
            {
                "sessionUpdate": "terminal_update",
                "terminalId": "ct",
                "exitStatus": {"exitCode": 0},
            }
        )
        up({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
    else:
        up(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "m1",
                "content": _text("Running the tests."),
            }
        )
        up(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "x1",
                "title": "pytest",
                "kind": "execute",
                "status": "failed",
            }
        )


def _child_work_v1(update: Callable[[str, dict[str, Any]], None], child: str) -> None:
    def up(payload: dict[str, Any]) -> None:
        update(child, payload)

    said = "Looking at the parser." if child == "c-explore" else "Running the tests."
    up({"sessionUpdate": "agent_message_chunk", "content": _text(said)})
    title, kind, status = (
        ("Read parser.py", "read", "completed")
        if child == "c-explore"
        else ("pytest", "execute", "failed")
    )
    up(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "r1" if child == "c-explore" else "x1",
            "title": title,
            "kind": kind,
            "status": status,
        }
    )


def subagents_turn(
    agent: Any, sid: str, said: str, version: int, declared: bool
) -> str:
    """Play the turn; return its stop reason."""

    def up(payload: dict[str, Any]) -> None:
        agent.update(sid, payload)

    if version == 1 and not declared:
        up(
            {
                "sessionUpdate": "agent_message_chunk",
                "content": _text("(no subagents: not declared)"),
            }
        )
        return "end_turn"
    if "background" in said:  # the turn ends while the child still works
        _announce(up, "c-bg", "Background job", "Keeps working")
        agent.update("c-bg", {"sessionUpdate": "agent_message_chunk", **_said(version)})
        return "end_turn"
    if "wait" in said:
        for child in ("c-a", "c-b"):
            _announce(up, child, f"Worker {child[-1].upper()}", "Waits for a cancel")
        while not {sid, "c-a", "c-b"} <= agent.cancelled:
            message = agent.read()
            if message is None:
                return "cancelled"
            if message.get("method") == "session/cancel":
                agent.cancelled.add(message["params"]["sessionId"])
        for child in ("c-a", "c-b"):
            up(
                {
                    "sessionUpdate": "subagent_update",
                    "sessionId": child,
                    "state": {"state": "idle", "stopReason": "cancelled"},
                }
            )
        return "cancelled"
    _announce(up, "c-explore", "Explore the code", "Finds where tokens are parsed")
    _announce(up, "c-tests", "Run the tests", "Runs the test suite")
    work = _child_work_v2 if version == 2 else _child_work_v1
    work(agent.update, "c-explore")
    work(agent.update, "c-tests")
    up(
        {
            "sessionUpdate": "subagent_update",
            "sessionId": "c-explore",
            "state": {"state": "idle", "stopReason": "end_turn"},
        }
    )
    up(
        {
            "sessionUpdate": "subagent_update",
            "sessionId": "c-tests",
            "state": {
                "state": "idle",
                "stopReason": "error",
                "error": {"code": -32603, "message": "tests crashed"},
            },
        }
    )
    chunk: dict[str, Any] = {
        "sessionUpdate": "agent_message_chunk",
        "content": _text("Both subagents reported."),
    }
    if version == 2:
        chunk["messageId"] = "a-sub"
    up(chunk)
    return "end_turn"
