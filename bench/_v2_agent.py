"""The stdio loop of the benches' fake ACP v2 agents (no acp_tui imports).

`serve` answers `initialize` (v2, as `name`) and `session/new` (session `s1`),
hands each `session/prompt` to `on_prompt` with its request id (it writes the
turn and the response itself), and answers any other request -32601.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, BinaryIO


def send(out: BinaryIO, message: dict[str, Any]) -> None:
    """Write one JSON-RPC message as a line."""
    out.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")


def serve(name: str, on_prompt: Callable[[object], None], out: BinaryIO) -> None:
    """Answer requests from stdin until it closes (see the module docstring)."""
    for raw in sys.stdin.buffer:
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(message, dict) or "id" not in message:
            continue
        method, rid = message.get("method"), message["id"]
        if method == "initialize":
            result: dict[str, Any] = {
                "protocolVersion": 2,
                "info": {"name": name, "version": "1.0.0"},
                "capabilities": {},
                "authMethods": [],
            }
            send(out, {"jsonrpc": "2.0", "id": rid, "result": result})
        elif method == "session/new":
            send(out, {"jsonrpc": "2.0", "id": rid, "result": {"sessionId": "s1"}})
        elif method == "session/prompt":
            on_prompt(rid)
        elif method is not None:
            error = {"code": -32601, "message": "Method not found"}
            send(out, {"jsonrpc": "2.0", "id": rid, "error": error})
        out.flush()
