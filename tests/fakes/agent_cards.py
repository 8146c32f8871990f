"""Turns of the fake agent (`agent.py`) about cards: cancel one, plans, tool names.

Imported by `agent.py` (it imports nothing from acp_tui either). Prompt words
choose the turn, in the `v1`/`v2` scenarios and the `*-full` / `*-auth` ones:

  "cancel-one"  (v2) tool call "long1" (`name` "run_tests", execute, running,
                `capabilities.cancel`), tool call "quick1" (`name` "read_file",
                completed, no capabilities), terminal "term1" (`tail -f
                build.log`, `capabilities.cancel`) and tool call "bg1" (completed,
                no capabilities) showing terminal "term2" (`sleep 60`,
                `capabilities.cancel`: like a background command); then it
                waits. `tool_call/cancel` of "long1" is answered {} and
                followed by its `cancelled` status; of anything else, -32602.
                `terminal/cancel` of "term1" or "term2" is answered {} and
                followed by its exit (signal SIGTERM); the wait goes on.
                Once "long1" is cancelled the turn goes on: the message "Carrying
                on without the tests." and `end_turn`. A `session/cancel` instead
                ends the turn `cancelled`.
  "plan-docs"   (v1 and v2) an items plan "p-gone", a markdown plan "md1", a file plan
                "f1" (`file://<cwd>/PLAN.md`), the message "Plans sent.", then
                `plan_removed` of "p-gone"; `end_turn`.
  "named"       (v1 and v2) three execute tool calls running `make` in the
                session's directory, each asked with allow once / always /
                reject: "n1" and "n3" named "bash", "n2" named "sandboxed_bash".
                The message says what each got: "n1=ID n2=ID n3=ID" (the option
                id chosen; the agent always asks, and the client answers a
                request it remembers by itself).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (agent.py)
if TYPE_CHECKING:
    from typing import Any

    Up = Callable[[dict[str, Any]], None]


OPTIONS = [
    {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
    {"optionId": "always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
]


def _write(message: Any) -> None:
    sys.stdout.buffer.write(json.dumps(message).encode() + b"\n")
    sys.stdout.buffer.flush()


def _text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def play_v2(agent: Any, sid: str, up: Up, said: str) -> bool:
    """Play a cards turn if the prompt asks for one (True: played, turn over)."""
    if "cancel-one" in said:
        _cancel_one(agent, sid, up)
        return True
    if "plan-docs" in said:
        _plan_docs(agent, up)
        up({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
        return True
    if "named" in said:
        _named(agent, sid, up, version=2)
        up({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
        return True
    return False


def play_v1(agent: Any, rid: Any, sid: str, up: Up, said: str) -> bool:
    """The v1 cards turns ("named", "plan-docs"; v1 cancels nothing alone)."""
    if "plan-docs" in said:  # v1 plan operations (the client's `plan` capability)
        _plan_docs(agent, up)
        _write({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
        return True
    if "named" in said:
        _named(agent, sid, up, version=1)
        _write({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
        return True
    return False


def _cancel_one(agent: Any, sid: str, up: Up) -> None:
    up(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "long1",
            "name": "run_tests",
            "title": "Run the test suite",
            "kind": "execute",
            "status": "in_progress",
            "rawInput": {"command": "pytest"},
            "capabilities": {"cancel": {}},
        }
    )
    up(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "quick1",
            "name": "read_file",
            "title": "Read notes.txt",
            "kind": "read",
            "status": "completed",
        }
    )
    up(
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "term1",
            "command": "tail -f build.log",
            "cwd": agent.cwd,
            "capabilities": {"cancel": {}},
        }
    )
    up(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "bg1",
            "name": "bash",
            "title": "Wait in the background",
            "kind": "execute",
            "status": "completed",
            "content": [{"type": "terminal", "terminalId": "term2"}],
        }
    )
    up(
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "term2",
            "command": "sleep 60",
            "cwd": agent.cwd,
            "capabilities": {"cancel": {}},
        }
    )
    up(
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "a-wait",
            "content": _text("Running the tests."),
        }
    )
    while True:
        message = agent.read()
        if message is None:
            return
        method = message.get("method")
        params = message.get("params") or {}
        rid = message.get("id")
        if method == "session/cancel":
            agent.cancelled.add(params.get("sessionId"))
            up(
                {
                    "sessionUpdate": "state_update",
                    "state": "idle",
                    "stopReason": "cancelled",
                }
            )
            return
        if method == "terminal/cancel":
            terminal_id = params.get("terminalId")
            if terminal_id not in ("term1", "term2"):
                _refuse(rid)
                continue
            _write({"jsonrpc": "2.0", "id": rid, "result": {}})
            up(
                {
                    "sessionUpdate": "terminal_update",
                    "terminalId": terminal_id,
                    "exitStatus": {"signal": "SIGTERM"},
                    "capabilities": None,
                }
            )
            continue
        if method != "tool_call/cancel":
            continue
        if params.get("toolCallId") != "long1":
            _refuse(rid)
            continue
        _write({"jsonrpc": "2.0", "id": rid, "result": {}})
        up(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "long1",
                "status": "cancelled",
                "capabilities": None,
            }
        )
        break
    up(
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "a-after",
            "content": _text("Carrying on without the tests."),
        }
    )
    up({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})


def _refuse(rid: Any) -> None:
    error = {"code": -32602, "message": "Invalid params", "data": "not cancellable"}
    _write({"jsonrpc": "2.0", "id": rid, "error": error})


def _plan_docs(agent: Any, up: Up) -> None:
    gone = {
        "type": "items",
        "planId": "p-gone",
        "entries": [
            {"content": "Temporary step", "priority": "low", "status": "pending"}
        ],
    }
    up({"sessionUpdate": "plan_update", "plan": gone})
    markdown = {
        "type": "markdown",
        "planId": "md1",
        "content": "## Steps\n\n- Refactor the **parser**\n- Add `tests`\n",
    }
    up({"sessionUpdate": "plan_update", "plan": markdown})
    uri = "file://" + agent.cwd.rstrip("/") + "/PLAN.md"
    up(
        {
            "sessionUpdate": "plan_update",
            "plan": {"type": "file", "planId": "f1", "uri": uri},
        }
    )
    up(
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "a-plans",  # v1 takes it too (optional there)
            "content": _text("Plans sent."),
        }
    )
    up({"sessionUpdate": "plan_removed", "planId": "p-gone"})


def _named(agent: Any, sid: str, up: Up, *, version: int) -> None:
    got: list[str] = []
    for call_id, name in (("n1", "bash"), ("n2", "sandboxed_bash"), ("n3", "bash")):
        call: dict[str, Any] = {
            "toolCallId": call_id,
            "name": name,
            "title": "Run make",
            "kind": "execute",
            "status": "pending",
            "rawInput": {"command": "make", "cwd": agent.cwd},
        }
        if version == 1:
            up({"sessionUpdate": "tool_call", **call})
            params: dict[str, Any] = {
                "sessionId": sid,
                "toolCall": {"toolCallId": call_id},
                "options": OPTIONS,
            }
        else:
            up({"sessionUpdate": "tool_call_update", **call})
            params = {
                "sessionId": sid,
                "title": "Run make?",
                "subject": {"type": "tool_call", "toolCall": {"toolCallId": call_id}},
                "options": OPTIONS,
            }
        answer = agent.call("session/request_permission", params)
        outcome = (answer.get("result") or {}).get("outcome") or {}
        chosen = outcome.get("optionId") or outcome.get("outcome") or "?"
        got.append(f"{call_id}={chosen}")
        status = "completed" if chosen in ("yes", "always") else "failed"
        update = "tool_call_update"
        up({"sessionUpdate": update, "toolCallId": call_id, "status": status})
    chunk: dict[str, Any] = {
        "sessionUpdate": "agent_message_chunk",
        "content": _text(" ".join(got)),
    }
    if version == 2:
        chunk["messageId"] = "a-named"
    up(chunk)
