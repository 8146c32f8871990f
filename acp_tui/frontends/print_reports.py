"""`acp-tui print --format text`: the lines for what the agent reports about itself.

A mixin of `print_turn.Transcript` (the `_on_<kind>` handlers of the timeline
kinds in `store.reports.REPORT_KINDS`):

* a notice: `[notice] ⚠ warning: title`, its description on the next line;
* a compaction: `[compacting context…]` when it starts, a line per status after
  that, and the summary (as far as the agent retained one) once it finishes;
* a message between sessions: `[↘ from session ID]` (or `[↗ to session ID]`),
  then its text as it streams.

Everything from the agent passes through `printable` (`Transcript._write`).
"""

from __future__ import annotations

from acp_tui.render.reports import compaction_label, notice_heading, source_line
from acp_tui.store.changes import Change
from acp_tui.store.store import SessionStore

__all__ = ["ReportLines"]


class ReportLines:
    """The `Transcript` handlers for notices, compactions and session messages."""

    store: SessionStore
    _current: str | None

    def __init__(self) -> None:
        self._compaction_lines: dict[str, tuple[str, str | None]] = {}
        """Each compaction's label and summary as last printed."""
        self._session_printed: dict[str, tuple[str, int]] = {}
        """Each session message's source line and characters printed."""

    def _line(self, text: str) -> None:  # pragma: no cover - `Transcript`'s
        raise NotImplementedError

    def _section(self, key: str, header: str) -> None:  # pragma: no cover
        raise NotImplementedError

    def _write(self, text: str) -> None:  # pragma: no cover
        raise NotImplementedError

    def _on_agent_notice(self, change: Change) -> None:
        assert change.id is not None
        notice = self.store.reports.notice(change.id)
        if notice is None:
            return
        lines = f"[notice] {notice_heading(notice)}"
        if notice.description:
            lines += f"\n  {notice.description}"
        self._line(lines)

    def _on_compaction(self, change: Change) -> None:
        """A line when the status changes; the summary once it is finished."""
        assert change.id is not None
        compaction = self.store.reports.compaction(change.id)
        if compaction is None:
            return
        label = compaction_label(compaction)
        summary = compaction.summary_text if compaction.finished else None
        before = self._compaction_lines.get(change.id)
        if before == (label, summary):
            return
        self._compaction_lines[change.id] = (label, summary)
        if before is not None and before[0] == label and not summary:
            return  # a chunk while it runs: the summary comes when it is done
        text = f"[{label}]"
        if summary:
            text += "\n" + summary.rstrip("\n")
        self._line(text)

    def _on_session_message(self, change: Change) -> None:
        """Its source as a header, then its text as it streams."""
        assert change.id is not None
        message = self.store.reports.session_message(change.id)
        if message is None:
            return
        source = source_line(message, self.store.session_id)
        before, printed = self._session_printed.get(change.id, ("", 0))
        key = f"session_message:{change.id}"
        if source != before:
            self._current = None  # a new header, even mid-message
        self._section(key, source)
        text = message.text
        if len(text) < printed or change.action == "replaced":
            self._write("\n(message replaced)\n" if printed else "")
            printed = 0
        self._write(text[printed:])
        self._session_printed[change.id] = (source, len(text))
