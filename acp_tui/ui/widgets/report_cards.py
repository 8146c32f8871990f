"""The cards of what the agent reports about itself, for `conversation_cards`.

Notices (`NoticeView`), compactions (`CompactionView`) and messages between
sessions (`SessionMessageView`) are timeline entries of the kinds
`store.reports.REPORT_KINDS`; `make_report_card` builds one from the store's
newest snapshot and `update_report_card` hands a mounted one its newer snapshot.
"""

from __future__ import annotations

from textual.widget import Widget

from acp_tui.store.reports import REPORT_KINDS
from acp_tui.store.store import SessionStore
from acp_tui.ui.widgets.compaction_view import CompactionView
from acp_tui.ui.widgets.notice_view import NoticeView
from acp_tui.ui.widgets.session_message_view import SessionMessageView

__all__ = ["REPORT_KINDS", "make_report_card", "update_report_card"]


def make_report_card(store: SessionStore, kind: str, entity_id: str) -> Widget | None:
    """The card for a report entry (None: not a report kind, or unknown)."""
    reports = store.reports
    if kind == "agent_notice":
        notice = reports.notice(entity_id)
        return NoticeView(notice) if notice is not None else None
    if kind == "compaction":
        compaction = reports.compaction(entity_id)
        return CompactionView(compaction) if compaction is not None else None
    if kind == "session_message":
        message = reports.session_message(entity_id)
        if message is None:
            return None
        return SessionMessageView(message, store.session_id)
    return None


def update_report_card(widget: Widget, store: SessionStore, entity_id: str) -> bool:
    """Hand a report card its newest snapshot; False if `widget` is another card."""
    reports = store.reports
    if isinstance(widget, CompactionView):
        compaction = reports.compaction(entity_id)
        if compaction is not None:
            widget.update_compaction(compaction)
        return True
    if isinstance(widget, SessionMessageView):
        message = reports.session_message(entity_id)
        if message is not None:
            widget.update_session_message(message)
        return True
    return isinstance(widget, NoticeView)  # notices never change
