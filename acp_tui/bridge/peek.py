"""What the bridge reads of a message: only what routing needs.

The message itself is relayed unchanged; this only looks at its kind, its id,
its method, `params.sessionId` and `result.sessionId`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Final, Literal

import anyio.to_thread

from acp_tui.protocol.remote.names import session_id_of

__all__ = ["THREAD_PEEK_BYTES", "Peek", "id_key", "one_line", "peek", "peek_soon"]

THREAD_PEEK_BYTES: Final = 1024 * 1024
"""Messages at least this long are parsed in a worker thread (a 64 MiB message
takes a few hundred milliseconds; the event loop keeps serving the others)."""

Kind = Literal["request", "notification", "response", "batch", "invalid"]


@dataclass(frozen=True, slots=True)
class Peek:
    """The routing facts of one JSON-RPC message."""

    kind: Kind
    id: object = None
    """The raw id (requests and responses)."""
    method: str | None = None
    session_id: str | None = None
    """`params.sessionId` of a request or notification."""
    result_session_id: str | None = None
    """`result.sessionId` of a response (session/new, load, resume, fork)."""

    @property
    def key(self) -> str | None:
        """The id as a dictionary key, or None without a usable id."""
        return id_key(self.id)


def id_key(value: object) -> str | None:
    """A JSON-RPC id (string or integer) as a key; None for anything else."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    return json.dumps(value)


def peek(line: bytes | bytearray) -> Peek:
    """Parse `line` and keep its routing facts (never raises)."""
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return Peek("invalid")
    if isinstance(message, list):
        return Peek("batch")
    if not isinstance(message, dict):
        return Peek("invalid")
    method = message.get("method")
    if isinstance(method, str):
        params = message.get("params")
        if "id" in message:
            return Peek("request", message["id"], method, session_id_of(params))
        return Peek("notification", None, method, session_id_of(params))
    if "id" in message and ("result" in message or "error" in message):
        return Peek(
            "response",
            message["id"],
            result_session_id=session_id_of(message.get("result")),
        )
    return Peek("invalid")


async def peek_soon(line: bytes | bytearray) -> Peek:
    """`peek`, in a worker thread for a long line."""
    if len(line) >= THREAD_PEEK_BYTES:
        return await anyio.to_thread.run_sync(peek, line)
    return peek(line)


def one_line(data: bytes | bytearray) -> bytes:
    r"""A JSON text as one line: raw CR and LF become spaces.

    In valid JSON they can only be whitespace between tokens (inside strings
    they are escaped), so the message means the same.
    """
    data = bytes(data)
    if b"\n" in data or b"\r" in data:
        data = data.replace(b"\r", b" ").replace(b"\n", b" ")
    return data
