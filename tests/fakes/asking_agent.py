"""A tiny v2 fake agent (raw JSON lines on stdio) that asks before any session.

Run as `python tests/fakes/asking_agent.py [at-initialize]`. It imports nothing
from acp_tui. On `session/new`, before the session exists, it sends a
request-scoped `elicitation/create` (a form, no `sessionId`) and waits for its
answer; then it sends `elicitation/complete` for an id it never used, and answers
"s1"; other requests get `{}`.

`at-initialize`: it asks right after its `initialize` answer instead, in the same
write (one line after the other; its `requestId` is the `initialize`
request's), as a real agent may; `session/new` is answered
"s1" once the question is answered (with a result or an error).
`ASKING_AGENT_LOG=FILE` appends every line it reads to FILE.
"""

from __future__ import annotations

import json
import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (agent.py)
if TYPE_CHECKING:
    from typing import Any

OUT = sys.stdout.buffer
ASK_ID = "ask-1"


def write(*messages: Any) -> None:
    """Write the messages in one write, one line each."""
    OUT.write(b"".join(json.dumps(message).encode() + b"\n" for message in messages))
    OUT.flush()


def ask(request_id: Any) -> dict[str, Any]:
    """The request-scoped form (`requestId`: the client's request it is about)."""
    params: dict[str, Any] = {
        "mode": "form",
        "message": "Pick a workspace",
        "requestId": request_id,
        "requestedSchema": {
            "type": "object",
            "properties": {"workspace": {"type": "string", "title": "Workspace"}},
            "required": ["workspace"],
        },
    }
    return {
        "jsonrpc": "2.0",
        "id": ASK_ID,
        "method": "elicitation/create",
        "params": params,
    }


def main() -> None:
    at_initialize = sys.argv[1:] == ["at-initialize"]
    new_id: Any = None
    asked = False
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if os.environ.get("ASKING_AGENT_LOG"):
            with open(os.environ["ASKING_AGENT_LOG"], "a") as log:
                log.write(line.decode())
        method, rid = message.get("method"), message.get("id")
        if method == "initialize":
            answer = {
                "jsonrpc": "2.0",
                "id": rid,
                "result": {
                    "protocolVersion": 2,
                    "info": {"name": "asking-agent", "version": "1"},
                    "capabilities": {},
                    "authMethods": [],
                },
            }
            if at_initialize:
                write(answer, ask(rid))
            else:
                write(answer)
        elif method == "session/new" and at_initialize:
            new_id = rid
            if asked:
                write({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": "s1"}})
        elif method == "session/new":
            new_id = rid
            write(ask(rid))
        elif rid == ASK_ID and method is None and at_initialize:
            asked = True  # the answer is in the log
            if new_id is not None:
                write({"jsonrpc": "2.0", "id": new_id, "result": {"sessionId": "s1"}})
        elif rid == ASK_ID and method is None:
            # the answer is in the client's record
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
