"""The Markdown of what the agent reported about itself, for `export.markdown`.

A notice is a quoted line with its mark and severity (`> **⚠ warning:** title`),
a compaction a divider line with the summary quoted under it, and a message
between sessions its source with its text quoted. The export makes everything
inert afterwards (`export.neutralise_markdown`); these only lay the lines out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from acp_tui.render.reports import compaction_label, notice_heading, source_line
from acp_tui.safe_text import printable
from acp_tui.store.store import SessionStore

__all__ = ["REPORT_MARKDOWN"]


def _quoted(text: str) -> list[str]:
    return [f"> {line}".rstrip() for line in text.rstrip("\n").split("\n")]


def _notice(store: SessionStore, entity_id: str) -> list[str]:
    notice = store.reports.notice(entity_id)
    if notice is None:
        return []
    lines = [f"> **{printable(notice_heading(notice))}**"]
    if notice.description:
        lines += [">", *_quoted(printable(notice.description, keep="\n"))]
    return lines


def _headed(heading: str, body: str) -> list[str]:
    """A bold heading, then `body` quoted (if any)."""
    lines = [f"**{printable(heading)}**"]
    if body:
        lines += ["", *_quoted(printable(body, keep="\n\t"))]
    return lines


def _compaction(store: SessionStore, entity_id: str) -> list[str]:
    compaction = store.reports.compaction(entity_id)
    if compaction is None:
        return []
    return _headed(f"— {compaction_label(compaction)} —", compaction.summary_text)


def _session_message(store: SessionStore, entity_id: str) -> list[str]:
    message = store.reports.session_message(entity_id)
    if message is None:
        return []
    return _headed(source_line(message, store.session_id), message.text)


REPORT_MARKDOWN: Final[dict[str, Callable[[SessionStore, str], list[str]]]] = {
    "agent_notice": _notice,
    "compaction": _compaction,
    "session_message": _session_message,
}
"""The Markdown lines of each report kind's timeline entry."""
