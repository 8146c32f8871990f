"""The session as one JSON document: what `acp-tui print --format json` prints.

Keys: `protocolVersion`, `agent{name,title,version}`, `sessionId`, `state`,
`stopReason`, `timeline`, `messages`, `toolCalls`, `plans`, `terminals` (with
`output` as base64 of the retained bytes and `text` from the terminal emulator),
`configOptions`, `commands`, `usage`, `info`, `permissions`, `unknownUpdates`.
Objects copied from the wire keep exactly their wire keys; a v1 session has the
same document shape as a v2 one.
"""

from __future__ import annotations

from typing import Any

from acp_tui.store.model import Terminal
from acp_tui.store.store import SessionStore
from acp_tui.terminal.emulator import TerminalEmulator

__all__ = ["session_document", "terminal_text"]


def terminal_text(terminal: Terminal) -> str:
    """The emulator's scrollback plus screen as plain text (trailing blanks cut)."""
    emulator = TerminalEmulator()
    emulator.feed(terminal.output)
    return emulator.text()


def session_document(
    *,
    protocol_version: int | None,
    agent: dict[str, Any] | None,
    store: SessionStore | None,
) -> dict[str, Any]:
    """The JSON document for a session (or for a run that failed before one)."""
    document: dict[str, Any] = {"protocolVersion": protocol_version, "agent": agent}
    if store is None:
        document.update(
            {
                "sessionId": None,
                "state": None,
                "stopReason": None,
                "timeline": [],
                "messages": [],
                "toolCalls": [],
                "plans": [],
                "terminals": [],
                "configOptions": [],
                "commands": [],
                "usage": None,
                "info": None,
                "permissions": [],
                "unknownUpdates": [],
            }
        )
        return document
    document.update(store.to_json(terminal_text))
    return document
