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
        "agentCapabilities": {"loadSession": False},
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


def main() -> None:
    for raw in sys.stdin.buffer:
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        record(message)
        if not isinstance(message, dict) or "id" not in message:
            continue
        method = message.get("method")
        if method is None:
            continue  # a response to something we sent
        if method == "initialize":
            reply = initialize(message)
        elif SCENARIO == "hang":
            reply = None
        elif method == "session/new":
            reply = {
                "jsonrpc": "2.0",
                "id": message["id"],
                "result": {"sessionId": "s1"},
            }
        else:
            error = {"code": -32601, "message": "Method not found"}
            reply = {"jsonrpc": "2.0", "id": message["id"], "error": error}
        if reply is not None:
            write(reply)


if __name__ == "__main__":
    main()
