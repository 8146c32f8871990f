"""A context compaction (`store.reports.Compaction`): a divider and its summary.

The divider says where the agent compacted its context and how it went
(`compacting context…`, `context compacted`, failed with its error, cancelled,
or an unknown status by name). The summary the agent retained streams into a
collapsible below it, collapsed by default (Enter or a click on its title
toggles it). Agent text passes through `printable` and is never markup; the
summary shown is cut at `MAX_SUMMARY_CHARS`.
"""

from __future__ import annotations

from typing import Final

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Collapsible, Static

from acp_tui.render.reports import compaction_label, summary_title
from acp_tui.safe_text import printable
from acp_tui.store.reports import Compaction

__all__ = ["CompactionView"]

MAX_SUMMARY_CHARS: Final = 50_000
"""The summary shown is cut to this many characters (a line says how many more)."""


def _summary(compaction: Compaction) -> Text:
    text = compaction.summary_text
    body = printable(text[:MAX_SUMMARY_CHARS], keep="\n\t")
    if len(text) > MAX_SUMMARY_CHARS:
        body += f"\n[⋯ {len(text) - MAX_SUMMARY_CHARS:,} more characters ⋯]"
    return Text(body)


def _style(compaction: Compaction) -> str:
    """The view's class for the status: `-failed`, `-running`, or none."""
    if compaction.status == "failed":
        return "-failed"
    return "" if compaction.finished else "-running"


class CompactionView(Vertical):
    """A "context compacted" divider with the streamed summary, collapsible."""

    DEFAULT_CSS = """
    CompactionView {
        height: auto;
        margin: 0 0 1 0;
        & > .divider {
            width: 100%;
            content-align: center middle;
            color: $text-muted;
            text-style: bold;
            border-top: dashed $secondary;
        }
        &.-failed > .divider { color: $text-error; border-top: dashed $error; }
        &.-running > .divider { color: $text-warning; }
        & Collapsible { margin: 0; padding: 0; border: none; }
        & .summary { color: $text-muted; padding: 0 1; }
    }
    """

    def __init__(self, compaction: Compaction) -> None:
        super().__init__(classes=_style(compaction))
        self.compaction = compaction

    def compose(self) -> ComposeResult:
        """The divider, then the collapsed summary."""
        yield Static(Text(compaction_label(self.compaction)), classes="divider")
        with Collapsible(title=summary_title(self.compaction), collapsed=True):
            yield Static(_summary(self.compaction), classes="summary")

    @property
    def collapsed(self) -> bool:
        """Whether the summary is folded away."""
        return self.query_one(Collapsible).collapsed

    def update_compaction(self, compaction: Compaction) -> None:
        """Show a newer snapshot: its status, error and summary."""
        if compaction is self.compaction:
            return
        self.compaction = compaction
        style = _style(compaction)
        self.set_class(style == "-failed", "-failed")
        self.set_class(style == "-running", "-running")
        if not self.is_mounted:
            return
        self.query_one(".divider", Static).update(Text(compaction_label(compaction)))
        collapsible = self.query_one(Collapsible)
        collapsible.title = summary_title(compaction)
        self.query_one(".summary", Static).update(_summary(compaction))
