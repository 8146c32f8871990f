"""How the session picker names and finds a session: its row's words.

Pure functions of a `SessionSummary` (no widgets): the label, the directory as
people read it, the relative time and local date shown, and whether a filter
text matches what the row shows ("untitled" and dates included).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from acp_tui.safe_text import printable

if TYPE_CHECKING:
    from acp_tui.client.session import SessionSummary

__all__ = [
    "display_path",
    "local_date",
    "relative_time",
    "row_matches",
    "session_label",
]


def display_path(path: str, home: Path) -> str:
    """A directory as printable text, with the home directory shown as `~`."""
    shown = printable(path)
    if not os.path.isabs(path):
        return shown
    pure = Path(os.path.normpath(path))
    if pure == home:
        return "~"
    if pure.is_relative_to(home):
        return printable(f"~/{pure.relative_to(home)}")
    return shown


def _in_zone_of(now: datetime, stamp: str) -> datetime:
    """An ISO 8601 time (UTC if it names no zone) in `now`'s zone (UTC if none).

    Raises:
        ValueError: `stamp` is not ISO 8601.
        OverflowError: The time is out of range in that zone.
    """
    when = datetime.fromisoformat(stamp)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(now.tzinfo if now.tzinfo is not None else UTC)


def relative_time(stamp: str | None, now: datetime) -> str:
    """An ISO 8601 time as a human-friendly age relative to `now`.

    "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", then the date.
    A time without a zone is taken as UTC; an unparsable one is returned as is
    (made printable); a missing one is the empty string.

    Args:
        stamp: The agent's `updatedAt` value.
        now: The current time (injected, so tests can fix it).
    """
    if not stamp:
        return ""
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    try:
        when = _in_zone_of(now, stamp)
        seconds = (now - when).total_seconds()
        days = (now.date() - when.date()).days
    except (ValueError, OverflowError):
        return printable(stamp)
    if seconds < -60:  # in the future: the agent's clock differs; say when
        return when.strftime("%Y-%m-%d %H:%M")
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if days == 0 or seconds < 6 * 3600:
        return f"{int(seconds // 3600)} h ago"
    if days == 1:
        return "yesterday"
    if days < 7:
        return f"{days} days ago"
    return when.date().isoformat()


def session_label(summary: SessionSummary) -> str:
    """The session's title as plain printable text, or `(untitled)`.

    Args:
        summary: A `session/list` entry.
    """
    title = printable(summary.title or "").strip()
    return title or "(untitled)"


def row_matches(
    summary: SessionSummary, needle: str, shown: Sequence[str] = ()
) -> bool:
    """Whether the filter `needle` (casefolded) finds `summary`.

    It looks at the title as shown (`(untitled)` for a session without one),
    the directory, the id, the `updatedAt` stamp, and `shown`: the other texts
    the row shows (its relative time and its local date), so what the user
    reads is what they can type.
    """
    if not needle:
        return True
    haystack = (
        session_label(summary),
        summary.cwd,
        summary.session_id,
        summary.updated_at or "",
        *shown,
    )
    return any(needle in field.casefold() for field in haystack)


def local_date(stamp: str | None, now: datetime) -> str:
    """An ISO 8601 time as a date and time in `now`'s zone ("" if unreadable).

    `2026-12-02 14:05`: what the filter finds a session by besides its relative
    time (a time without a zone is taken as UTC, as in `relative_time`).
    """
    if not stamp:
        return ""
    try:
        return _in_zone_of(now, stamp).strftime("%Y-%m-%d %H:%M")
    except (ValueError, OverflowError):
        return ""
