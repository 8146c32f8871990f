"""A v2 agent whose turn is only plain updates, the shapes of `bench/print.py`'s.

Text chunks, a running and an idle `state_update`, a tool call whose display
terminal streams base64 output (`tool_call_update`, `terminal_update`,
`terminal_output_chunk`). Every one of them is a shape `client.v2_chunks` /
`client.v2_plain` translate without the wire models. No acp_tui imports.
Usage: `python tests/fakes/plain_stream_agent.py [CHUNKS]`.
"""

from __future__ import annotations

import base64
import json
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (agent.py)
if TYPE_CHECKING:
    from typing import Any


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")


def update(payload: dict[str, Any]) -> None:
    params = {"sessionId": "s1", "update": payload}
    send({"jsonrpc": "2.0", "method": "session/update", "params": params})


def turn(chunks: int) -> None:
    update({"sessionUpdate": "state_update", "state": "running"})
    for n in range(chunks):
        text = {"type": "text", "text": f"word{n} "}
        chunk = {"sessionUpdate": "agent_message_chunk", "messageId": "m1"}
        update({**chunk, "content": text})
    tool = {"sessionUpdate": "tool_call_update", "toolCallId": "build"}
    terminal = {"sessionUpdate": "terminal_update", "terminalId": "term-1"}
    block = {"type": "terminal", "terminalId": "term-1"}
    update({**tool, "title": "make", "kind": "execute", "content": [block]})
    update({**terminal, "command": "make", "cwd": "/work/project"})
    data = base64.b64encode(b"\x1b[32mok\x1b[0m build\r\n").decode()
    update(
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "term-1", "data": data}
    )
    update({**terminal, "exitStatus": {"exitCode": 0}})
    update({**tool, "status": "completed"})
    update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})


def main() -> None:
    chunks = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    for raw in sys.stdin:
        message = json.loads(raw)
        method, rid = message.get("method"), message.get("id")
        if rid is None:
            continue
        if method == "initialize":
            info = {"name": "plain-stream", "version": "1.0.0"}
            result = {"protocolVersion": 2, "info": info, "capabilities": {}}
            send({"jsonrpc": "2.0", "id": rid, "result": {**result, "authMethods": []}})
        elif method == "session/new":
            send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": "s1"}})
        elif method == "session/prompt":
            send({"jsonrpc": "2.0", "id": rid, "result": {}})
            turn(chunks)
        else:
            error = {"code": -32601, "message": "Method not found"}
            send({"jsonrpc": "2.0", "id": rid, "error": error})
        sys.stdout.flush()


if __name__ == "__main__":
    main()
