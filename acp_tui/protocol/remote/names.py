"""Names the remote transport's two ends share (stdlib only).

The client (`http`) and the bridge (`acp_tui.bridge`) both read them: the
Streamable HTTP headers (HTTP header names match in any case) and the session
a message is about.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

__all__ = ["CONNECTION_HEADER", "SESSION_HEADER", "session_id_of"]

CONNECTION_HEADER: Final = "Acp-Connection-Id"
"""The header naming the connection (set by the server's `initialize` answer)."""

SESSION_HEADER: Final = "Acp-Session-Id"
"""The header naming the session a request is about."""


def session_id_of(container: object) -> str | None:
    """The `sessionId` of a message's params or result, if it is a string."""
    if isinstance(container, Mapping):
        value = container.get("sessionId")
        if isinstance(value, str):
            return value
    return None
