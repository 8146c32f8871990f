"""A scripted fake ACP agent that speaks raw JSON lines on stdio.

Run as `python tests/fakes/agent.py SCENARIO`. It imports nothing from acp_tui, so
a bug in the client's wire layer cannot hide behind a shared model. Every message it
receives is appended, one JSON object per line, to the file named by
`FAKE_AGENT_RECORD` (when set), so tests can assert what the agent was sent.

Scenarios:
  v2              a real v2 agent (answers 2 with info and capabilities)
  v1              a v1-only agent (answers 1 to any offer)
  lying-v2        echoes the offered version with a v1-shaped body (no `info`), like the
                  Python SDK's echo_agent
  error-on-v2     answers -32602 to a v2 initialize, and 1 to a v1 one
  unsupported     answers protocolVersion 7
  exit-on-init    prints to stderr and exits with code 3 when initialize arrives
  hang            reads everything and never answers
  evil            a v2 agent whose name and stderr carry terminal escape sequences
  garbage         a v2 agent that first writes garbage, invalid UTF-8, an invalid
                  object, an unknown-id response and a 64 MiB notification

With `v1` and `v2`, `session/prompt` plays a full scripted turn (messages, a
thought, a plan, a tool call with a permission request, a terminal, usage, a vendor
update) and ends with `end_turn`. The v1 turn also writes and reads a file through
the client's `fs/*` methods. Prompt text chooses variants:
  "hang"     accept the prompt and wait for session/cancel, then end `cancelled`
  "fail"     answer session/prompt with an error
  "malformed" send a known update with a malformed payload first
  "stubborn" accept the prompt and never end the turn, even after session/cancel
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

SCENARIO = sys.argv[1] if len(sys.argv) > 1 else "v2"
RECORD = os.environ.get("FAKE_AGENT_RECORD")
OUT = sys.stdout.buffer


def write(message: Any) -> None:
    OUT.write(json.dumps(message).encode() + b"\n")
    OUT.flush()


def write_raw(data: bytes) -> None:
    OUT.write(data)
    OUT.flush()


def record(message: Any) -> None:
    if RECORD:
        with open(RECORD, "a", encoding="utf-8") as file:
            file.write(json.dumps(message) + "\n")


def v2_result() -> dict[str, Any]:
    return {
        "protocolVersion": 2,
        "info": {"name": "fake-agent", "title": "Fake Agent", "version": "1.0.0"},
        "capabilities": {"session": {}},
        "authMethods": [],
    }


def v1_result() -> dict[str, Any]:
    return {
        "protocolVersion": 1,
        "agentCapabilities": {
            "loadSession": False,
            "sessionCapabilities": {"list": {}},
        },
        "agentInfo": {"name": "fake-agent", "version": "1.0.0"},
        "authMethods": [],
    }


def initialize(request: dict[str, Any]) -> dict[str, Any] | None:
    """Return the reply to initialize, or None to send nothing."""
    params = request.get("params") or {}
    offered = params.get("protocolVersion")
    rid = request["id"]
    if SCENARIO == "exit-on-init":
        sys.stderr.write("fake-agent: cannot start: missing credentials\n")
        sys.stderr.flush()
        sys.exit(3)
    if SCENARIO == "hang":
        return None
    if SCENARIO == "v1":
        return {"jsonrpc": "2.0", "id": rid, "result": v1_result()}
    if SCENARIO == "lying-v2":
        body = v1_result()
        body["protocolVersion"] = offered
        return {"jsonrpc": "2.0", "id": rid, "result": body}
    if SCENARIO == "error-on-v2":
        if offered == 2:
            error = {
                "code": -32602,
                "message": "Invalid params",
                "data": "info missing",
            }
            return {"jsonrpc": "2.0", "id": rid, "error": error}
        return {"jsonrpc": "2.0", "id": rid, "result": v1_result()}
    if SCENARIO == "evil":
        sys.stderr.write("\x1b]0;pwned\x07\x1b[2J evil stderr\n")
        sys.stderr.flush()
        body = v2_result()
        body["info"]["title"] = "Evil\x1b]0;pwned\x07\x1b[31m Agent"
        return {"jsonrpc": "2.0", "id": rid, "result": body}
    if SCENARIO == "unsupported":
        return {"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 7}}
    if SCENARIO == "garbage":
        write_raw(b"this is not json\n")
        write_raw(b'{"jsonrpc": "2.0", "method": "x", "params": "\xff"}\n')
        write_raw(b'{"no": "jsonrpc"}\n')
        write({"jsonrpc": "2.0", "id": 424242, "result": {}})
        big = "QUFB" * (16 * 1024 * 1024)  # 64 MiB of base64
        write({"jsonrpc": "2.0", "method": "_fake/big", "params": {"data": big}})
    if offered == 1:
        return {"jsonrpc": "2.0", "id": rid, "result": v1_result()}
    return {"jsonrpc": "2.0", "id": rid, "result": v2_result()}


class Agent:
    """Reads the client's messages; can wait for the answer to its own requests."""

    def __init__(self) -> None:
        self.next_id = 1000
        self.lines = iter(sys.stdin.buffer)
        self.cwd = "/"
        self.cancelled: set[str] = set()

    def read(self) -> Any:
        for raw in self.lines:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            record(message)
            return message
        return None

    def call(self, method: str, params: Any) -> Any:
        """Send a request to the client and wait for its response."""
        self.next_id += 1
        rid = self.next_id
        write({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            message = self.read()
            if message is None:
                sys.exit(0)
            if message.get("id") == rid and "method" not in message:
                return message
            if message.get("method") == "session/cancel":
                self.cancelled.add(message["params"]["sessionId"])

    def update(self, session_id: str, update: dict[str, Any]) -> None:
        params = {"sessionId": session_id, "update": update}
        write({"jsonrpc": "2.0", "method": "session/update", "params": params})


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def b64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode()


def turn_v2(agent: Agent, rid: Any, sid: str, prompt: list[Any]) -> None:
    said = " ".join(b.get("text", "") for b in prompt if isinstance(b, dict))
    if "fail" in said:
        error = {
            "code": -32603,
            "message": "Internal error",
            "data": "model overloaded",
        }
        write({"jsonrpc": "2.0", "id": rid, "error": error})
        return
    if "stubborn" in said:
        write({"jsonrpc": "2.0", "id": rid, "result": {}})
        while agent.read() is not None:
            pass
        return
    write({"jsonrpc": "2.0", "id": rid, "result": {}})

    def up(update: dict[str, Any]) -> None:
        agent.update(sid, update)

    up({"sessionUpdate": "user_message", "messageId": "u1", "content": prompt})
    up({"sessionUpdate": "state_update", "state": "running"})
    if "malformed" in said:
        up({"sessionUpdate": "tool_call_update", "toolCallId": 5})
    if "hang" in said:
        while sid not in agent.cancelled:
            message = agent.read()
            if message is None:
                return
            if message.get("method") == "session/cancel":
                agent.cancelled.add(message["params"]["sessionId"])
        up(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "a0",
                "content": text("stopped"),
            }
        )
        up(
            {
                "sessionUpdate": "state_update",
                "state": "idle",
                "stopReason": "cancelled",
            }
        )
        return
    up(
        {
            "sessionUpdate": "agent_thought_chunk",
            "messageId": "t1",
            "content": text("Thinking about it."),
        }
    )
    plan: dict[str, Any] = {
        "type": "items",
        "planId": "p1",
        "entries": [
            {"content": "Look around", "priority": "high", "status": "in_progress"},
            {"content": "Answer", "priority": "medium", "status": "pending"},
        ],
    }
    up({"sessionUpdate": "plan_update", "plan": plan})
    up(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c1",
            "title": "Run ls",
            "kind": "execute",
            "status": "pending",
            "rawInput": {"command": "ls"},
        }
    )
    answer = agent.call(
        "session/request_permission",
        {
            "sessionId": sid,
            "title": "Run ls?",
            "description": "Lists the directory",
            "subject": {
                "type": "tool_call",
                "toolCall": {"toolCallId": "c1", "status": "pending"},
            },
            "options": [
                {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                {"optionId": "no", "name": "Reject", "kind": "reject_once"},
            ],
        },
    )
    allowed = answer.get("result", {}).get("outcome", {}).get("optionId") == "yes"
    up(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c1",
            "status": "in_progress",
            "content": [{"type": "terminal", "terminalId": "t1"}],
        }
    )
    up(
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "t1",
            "command": "ls",
            "cwd": "/tmp",
        }
    )
    up(
        {
            "sessionUpdate": "terminal_output_chunk",
            "terminalId": "t1",
            "data": b64(b"\x1b[32mfile.txt\x1b[0m\r\n"),
        }
    )
    up(
        {
            "sessionUpdate": "terminal_output_chunk",
            "terminalId": "t1",
            "data": b64(b"done\r\n"),
        }
    )
    up(
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "t1",
            "exitStatus": {"exitCode": 0},
        }
    )
    up(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c1",
            "status": "completed" if allowed else "failed",
            "rawOutput": {"ok": allowed},
        }
    )
    up(
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "c1",
            "content": {"type": "content", "content": text("listed")},
        }
    )
    plan["entries"][0]["status"] = "completed"
    plan["entries"][1]["status"] = "completed"
    up({"sessionUpdate": "plan_update", "plan": plan})
    up(
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "a1",
            "content": text("Hello "),
        }
    )
    up(
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "a1",
            "content": text("\x1b]0;pwned\x07world"),
        }
    )
    up(
        {
            "sessionUpdate": "usage_update",
            "used": 1200,
            "size": 200000,
            "cost": {"amount": 0.01, "currency": "USD"},
        }
    )
    up({"sessionUpdate": "session_info_update", "title": "Greeting"})
    up({"sessionUpdate": "_vendor_sparkle", "level": 3})
    up({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})


def turn_v1(agent: Agent, rid: Any, sid: str, prompt: list[Any]) -> None:
    said = " ".join(b.get("text", "") for b in prompt if isinstance(b, dict))

    def up(update: dict[str, Any]) -> None:
        agent.update(sid, update)

    if "fail" in said:
        error = {
            "code": -32603,
            "message": "Internal error",
            "data": "model overloaded",
        }
        write({"jsonrpc": "2.0", "id": rid, "error": error})
        return
    if "hang" in said:
        while sid not in agent.cancelled:
            message = agent.read()
            if message is None:
                return
            if message.get("method") == "session/cancel":
                agent.cancelled.add(message["params"]["sessionId"])
        write({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "cancelled"}})
        return
    up({"sessionUpdate": "agent_thought_chunk", "content": text("Hmm.")})
    up({"sessionUpdate": "agent_message_chunk", "content": text("Let me ")})
    up({"sessionUpdate": "agent_message_chunk", "content": text("check.")})
    up(
        {
            "sessionUpdate": "plan",
            "entries": [
                {"content": "Write a note", "priority": "high", "status": "in_progress"}
            ],
        }
    )
    note = agent.cwd.rstrip("/") + "/note.txt"
    up(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "w1",
            "title": "Write note.txt",
            "kind": "edit",
            "status": "pending",
            "locations": [{"path": note}],
        }
    )
    answer = agent.call(
        "session/request_permission",
        {
            "sessionId": sid,
            "toolCall": {"toolCallId": "w1", "title": "Write note.txt?"},
            "options": [
                {"optionId": "ok", "name": "Allow once", "kind": "allow_once"},
                {"optionId": "never", "name": "Reject", "kind": "reject_once"},
            ],
        },
    )
    outcome = answer.get("result", {}).get("outcome", {})
    written = ""
    if outcome.get("optionId") == "ok":
        agent.call(
            "fs/write_text_file",
            {"sessionId": sid, "path": note, "content": "written by agent\n"},
        )
        read = agent.call("fs/read_text_file", {"sessionId": sid, "path": note})
        written = read.get("result", {}).get("content", "")
    escape = agent.call("fs/read_text_file", {"sessionId": sid, "path": "/etc/passwd"})
    refused = "error" in escape
    up(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "w1",
            "status": "completed",
            "content": [
                {"type": "diff", "path": note, "oldText": None, "newText": written}
            ],
        }
    )
    up({"sessionUpdate": "current_mode_update", "currentModeId": "code"})
    up(
        {
            "sessionUpdate": "agent_message_chunk",
            "content": text(
                f" read back: {written.strip()}; outside refused: {refused}"
            ),
        }
    )
    write({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})


def main() -> None:
    agent = Agent()
    version = 2
    while True:
        message = agent.read()
        if message is None:
            return
        if not isinstance(message, dict):
            continue
        method = message.get("method")
        if method == "session/cancel":
            agent.cancelled.add(str((message.get("params") or {}).get("sessionId")))
            continue
        if "id" not in message or method is None:
            continue  # another notification, or a response to something we sent
        rid = message["id"]
        params = message.get("params") or {}
        reply: dict[str, Any] | None
        if method == "initialize":
            reply = initialize(message)
            if reply is not None and "result" in reply:
                version = reply["result"].get("protocolVersion", 2)
        elif SCENARIO == "hang":
            reply = None
        elif method == "session/new":
            agent.cwd = params.get("cwd", "/")
            result: dict[str, Any] = {"sessionId": "s1"}
            if version == 1 and SCENARIO == "v1":
                result["modes"] = {
                    "currentModeId": "ask",
                    "availableModes": [
                        {"id": "ask", "name": "Ask"},
                        {"id": "code", "name": "Code"},
                    ],
                }
            if version == 2 and SCENARIO == "v2":
                commands = [{"name": "help", "description": "Help"}]
                agent.update(
                    "s1",
                    {
                        "sessionUpdate": "available_commands_update",
                        "availableCommands": commands,
                    },
                )
                result["configOptions"] = [
                    {
                        "configId": "model",
                        "name": "Model",
                        "category": "model",
                        "type": "select",
                        "currentValue": "m1",
                        "options": [{"value": "m1", "name": "Model One"}],
                    }
                ]
            reply = {"jsonrpc": "2.0", "id": rid, "result": result}
        elif method == "session/prompt" and SCENARIO in ("v1", "v2"):
            turn = turn_v1 if version == 1 else turn_v2
            turn(agent, rid, params["sessionId"], params["prompt"])
            continue
        elif method == "session/list":
            page: dict[str, Any]
            if params.get("cursor") is None:
                first = {"sessionId": "old1", "cwd": "/tmp", "title": "First"}
                page = {"sessions": [first], "nextCursor": "c2"}
            else:
                second = {
                    "sessionId": "old2",
                    "cwd": "/tmp",
                    "updatedAt": "2026-11-29T10:00:00Z",
                }
                page = {"sessions": [second]}
            reply = {"jsonrpc": "2.0", "id": rid, "result": page}
        else:
            error = {"code": -32601, "message": "Method not found"}
            reply = {"jsonrpc": "2.0", "id": rid, "error": error}
        if reply is not None:
            write(reply)


if __name__ == "__main__":
    main()
