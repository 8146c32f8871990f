"""A notice the agent sent (`store.reports.AgentNotice`): one severity-styled line.

`info`, `warning` and `error` each get their colour and mark (`SEVERITY_MARKS`);
any other severity (open on the wire, `_`-prefixed for vendors) is shown plainly
with its name. A notice is advisory: it changes nothing else in the session.
Agent text passes through `printable` and is never markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from acp_tui.render.reports import SEVERITY_MARKS, cut, notice_heading
from acp_tui.store.reports import AgentNotice

__all__ = ["NoticeView", "notice_text"]


def notice_text(notice: AgentNotice) -> Text:
    """The notice as plain text: mark, severity, title; the description below."""
    text = Text()
    text.append(notice_heading(notice), style="bold")
    if notice.description:
        text.append("\n")
        text.append(cut(notice.description), style="dim")
    return text


class NoticeView(Static):
    """One notice, styled by its severity (`-info`, `-warning`, `-error`, `-other`)."""

    DEFAULT_CSS = """
    NoticeView {
        height: auto;
        padding: 0 1;
        margin: 0 0 1 0;
        border-left: thick $secondary;
        color: $text-muted;
        &.-info { border-left: thick $primary; color: $text-primary; }
        &.-warning { border-left: thick $warning; color: $text-warning; }
        &.-error { border-left: thick $error; color: $text-error; }
    }
    """

    def __init__(self, notice: AgentNotice) -> None:
        known = notice.severity in SEVERITY_MARKS
        super().__init__(
            notice_text(notice),
            classes=f"-{notice.severity}" if known else "-other",
        )
        self.notice = notice

    def update_notice(self, notice: AgentNotice) -> None:
        """Notices never change; kept for the card protocol."""
        self.notice = notice
