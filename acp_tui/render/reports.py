"""How the agent's reports about itself read, for the app and for `print`.

Plain strings (agent text already passed through `printable`), shared by
`ui.widgets.notice_view` / `compaction_view` / `session_message_view` and
`frontends.print_reports`, so a notice, a compaction and a message between
sessions say the same on screen and in a transcript.
"""

from __future__ import annotations

from typing import Final

from acp_tui.safe_text import printable
from acp_tui.store.reports import AgentNotice, Compaction, SessionMessage

__all__ = [
    "SEVERITY_MARKS",
    "compaction_label",
    "cut",
    "notice_heading",
    "source_line",
    "summary_title",
]

SEVERITY_MARKS: Final = {"info": "ℹ", "warning": "⚠", "error": "✖"}
"""The mark of each known notice severity (any other: `•`)."""

MAX_LINE_CHARS: Final = 2_000
"""A notice's title or description is cut to this many characters (with `…`)."""

_LABELS: Final = {
    "in_progress": "compacting context…",
    "completed": "context compacted",
    "cancelled": "context compaction cancelled",
    "failed": "context compaction failed",
}


def cut(text: str, limit: int = MAX_LINE_CHARS) -> str:
    """`text` made printable, cut to `limit` characters (with `…`)."""
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return printable(text, keep="\n")


def notice_heading(notice: AgentNotice) -> str:
    """`<mark> <severity>: <title>` (one line)."""
    mark = SEVERITY_MARKS.get(notice.severity, "•")
    title = cut(notice.title).replace("\n", " ")
    return f"{mark} {cut(notice.severity, 80)}: {title}"


def compaction_label(compaction: Compaction) -> str:
    """What a compaction's divider says for its status (and error)."""
    label = _LABELS.get(compaction.status)
    if label is None:
        label = f"context compaction ({cut(compaction.status, 80)})"
    if compaction.error:
        label += f": {cut(compaction.error, 500)}"
    return label


def summary_title(compaction: Compaction) -> str:
    """The summary's title: its size, or that there is none (yet)."""
    size = len(compaction.summary_text)
    return f"summary ({size:,} characters)" if size else "no summary"


def source_line(message: SessionMessage, own_session_id: str) -> str:
    """Who sent a session message, or whom it went to, seen from `own_session_id`."""
    sender = message.sender_session_id
    recipient = message.recipient_session_id
    if sender is not None and sender == own_session_id and recipient is not None:
        return f"↗ to session {cut(recipient, 200)}"
    if sender is not None:
        return f"↘ from session {cut(sender, 200)}"
    if recipient is not None and recipient != own_session_id:
        return f"↗ to session {cut(recipient, 200)}"
    return "↘ from another session"
