"""A tiny v2 fake agent (raw JSON lines on stdio) that asks before any session.

Run as `python tests/fakes/asking_agent.py`. It imports nothing from acp_tui.
On `session/new`, before the session exists, it sends a request-scoped
`elicitation/create` (a form, no `sessionId`) and waits for its answer; then it
sends `elicitation/complete` for an id it never used, and answers "s1";
other requests get `{}`.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

OUT = sys.stdout.buffer
ASK_ID = "ask-1"


def write(message: Any) -> None:
    OUT.write(json.dumps(message).encode() + b"\n")
    OUT.flush()


def main() -> None:
    new_id: Any = None
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if os.environ.get("ASKING_AGENT_LOG"):
            with open(os.environ["ASKING_AGENT_LOG"], "a") as log:
                log.write(line.decode())
        method, rid = message.get("method"), message.get("id")
        if method == "initialize":
            write(
                {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "result": {
                        "protocolVersion": 2,
                        "info": {"name": "asking-agent", "version": "1"},
                        "capabilities": {},
                        "authMethods": [],
                    },
                }
            )
        elif method == "session/new":
            new_id = rid
            write(
                {
                    "jsonrpc": "2.0",
                    "id": ASK_ID,
                    "method": "elicitation/create",
                    "params": {
                        "mode": "form",
                        "message": "Pick a workspace",
                        "requestId": rid,
                        "requestedSchema": {
                            "type": "object",
                            "properties": {
                                "workspace": {"type": "string", "title": "Workspace"}
                            },
                            "required": ["workspace"],
                        },
                    },
                }
            )
        elif rid == ASK_ID and method is None:
            pass  # the answer is in the client's record
            write(
                {
                    "jsonrpc": "2.0",
                    "method": "elicitation/complete",
                    "params": {"elicitationId": "never-asked"},
                }
            )
            write({"jsonrpc": "2.0", "id": new_id, "result": {"sessionId": "s1"}})
        elif rid is not None and method is not None:
            write({"jsonrpc": "2.0", "id": rid, "result": {}})


if __name__ == "__main__":
    main()
