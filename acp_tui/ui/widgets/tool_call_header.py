"""A tool card's header line, and asking to cancel one tool call or terminal.

The header reads: the kind's icon, the title (the tool's `name` if there is no
title), the tool's `name` as a dim tag (when it says something the title does
not: claude-agent-acp's "Write hello.py" by tool `Write` gets none), and the
status, or "cancelling…" while a request to cancel the call alone waits for the
agent's final status (`SessionStore.cancelling`).

`CancelOneRequested` is what a card posts when the user presses its cancel key:
the pane decides whether the agent offers it (`ClientRunner.can_cancel_one`),
since only the client layer may read the agent's capabilities.

Agent text is data: plain `Content` through `printable`, never markup.
"""

from __future__ import annotations

from typing import Final

from textual.content import Content
from textual.message import Message

from acp_tui.client.cancel_one import CancelKind
from acp_tui.safe_text import printable
from acp_tui.store.model import ToolCall

__all__ = [
    "CANCELLING",
    "KIND_ICONS",
    "MAX_NAME_CHARS",
    "STATUS_ICONS",
    "STATUS_TOKENS",
    "CancelOneRequested",
    "header_content",
]

KIND_ICONS: Final = {
    "read": "▤",
    "edit": "✎",
    "delete": "⌫",
    "move": "⇢",
    "search": "⌕",
    "execute": "❯",
    "think": "∴",
    "fetch": "⇣",
    "switch_mode": "⇄",
}
"""One-cell icons per tool kind (others get `•`)."""

STATUS_ICONS: Final = {
    "pending": "○",
    "in_progress": "◐",
    "completed": "✓",
    "failed": "✗",
    "cancelled": "⊘",
}
"""One-cell icons per tool-call status (unknown statuses get `?`)."""

STATUS_TOKENS: Final = {
    "pending": "tool-pending",
    "in_progress": "tool-running",
    "completed": "tool-completed",
    "failed": "tool-failed",
    "cancelled": "tool-cancelled",
}
"""The theme token that colours each status (unknown statuses: `tool-pending`)."""

CANCELLING: Final = "cancelling…"
"""Shown instead of the status while a cancel request waits for the final one."""

MAX_NAME_CHARS: Final = 60
"""A tool name longer than this is cut (with `…`) in the tag."""


def _name_tag(tool_call: ToolCall) -> str | None:
    name = tool_call.name
    title = tool_call.title or ""
    if not name or title.split(" ", 1)[0].casefold() == name.casefold():
        return None  # none, or what the title already begins with
    if len(name) > MAX_NAME_CHARS:
        name = name[: MAX_NAME_CHARS - 1] + "…"
    return printable(name)


def header_content(tool_call: ToolCall, *, cancelling: bool = False) -> Content:
    """The header: icon, title, the tool's name (dim), the status or cancelling."""
    status = tool_call.status
    token = STATUS_TOKENS.get(status, "tool-pending")
    title = tool_call.title or tool_call.name or tool_call.tool_call_id
    parts: list[str | tuple[str, str]] = [
        (KIND_ICONS.get(tool_call.kind, "•"), f"${token}"),
        " ",
        (printable(title), "bold"),
    ]
    tag = _name_tag(tool_call) if tool_call.title else None
    if tag is not None:
        parts += [" ", (tag, "dim")]
    if cancelling:
        parts += ["  ", (CANCELLING, "$tool-cancelled italic")]
    else:
        label = printable(status).replace("_", " ")
        parts += ["  ", (f"{STATUS_ICONS.get(status, '?')} {label}", f"${token}")]
    return Content.assemble(*parts)


class CancelOneRequested(Message):
    """The user asked to cancel one tool call (terminal) alone, from its card.

    Args:
        kind: `"tool_call"` or `"terminal"`.
        entity_id: Its id.
        terminals: The terminals the card shows: if the agent does not offer to
            cancel the tool call, the first of them it offers to cancel is (an
            agent may offer only a background command's terminal).
    """

    def __init__(
        self, kind: CancelKind, entity_id: str, terminals: tuple[str, ...] = ()
    ) -> None:
        super().__init__()
        self.kind: CancelKind = kind
        self.entity_id = entity_id
        self.terminals = terminals
