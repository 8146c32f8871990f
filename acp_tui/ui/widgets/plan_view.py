"""A plan (keyed by `planId`): its entries with status icons and priorities.

A plan is replaced as a whole on every update, so the view re-renders it whole,
but only when the snapshot changed. Entry text is agent data: plain `Content`,
made printable, never markup.

Bounded, whatever the agent sends (bench/exhaustion.py floods 10,000 plans):

* at most `MAX_ENTRIES` entries are drawn, then a line counts the others, and an
  entry's or a title's text is cut at `MAX_TEXT_CHARS` (with `…`);
* a view draws at most `BURST` updates at once, then one per `REDRAW_INTERVAL`:
  a plan updated hundreds of times a second shows its newest state a fifth of a
  second late at most, instead of laying the screen out on every frame;
* an update that keeps the lines' lengths (statuses changing, as plans progress)
  repaints without a layout.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Final

from textual.content import Content
from textual.timer import Timer
from textual.widgets import Static

from acp_tui.safe_text import printable
from acp_tui.store.model import Plan
from acp_tui.store.values import JSONObject
from acp_tui.ui.textual_private import set_timer_once
from acp_tui.ui.widgets.terminal_view import static_plain

__all__ = [
    "MARKS",
    "MAX_ENTRIES",
    "MAX_TEXT_CHARS",
    "STATUS_TOKENS",
    "PlanView",
    "plan_content",
    "plan_text",
]

MARKS: Final = {"pending": "○", "in_progress": "◐", "completed": "●"}
"""The icon per entry status (unknown statuses get `?`)."""

STATUS_TOKENS: Final = {
    "pending": "tool-pending",
    "in_progress": "tool-running",
    "completed": "tool-completed",
}
"""The theme token that colours each entry status."""

MAX_RAW_CHARS: Final = 400
"""A plan of an unknown type is shown as one line of JSON cut to this length."""

MAX_ENTRIES: Final = 100
"""Entries drawn per plan; a line counts the rest."""

MAX_TEXT_CHARS: Final = 500
"""An entry's (or a title's) text is cut to this many characters."""

BURST: Final = 4
"""Updates a view draws at once before it spaces them out."""

REDRAW_INTERVAL: Final = 0.2
"""Seconds between two draws of a view updated faster than `BURST` at once."""


def _one_line(text: object) -> str:
    text = str(text)
    if len(text) > MAX_TEXT_CHARS:
        text = text[: MAX_TEXT_CHARS - 1] + "…"
    return printable(text)


def _title(raw: JSONObject) -> str | None:
    title = raw.get("title")
    return _one_line(title) if isinstance(title, str) and title else None


def _raw_line(raw: JSONObject) -> str:
    def plain(value: object) -> object:
        if isinstance(value, Mapping):
            return {str(k): plain(v) for k, v in value.items()}
        if isinstance(value, Sequence) and not isinstance(value, str):
            return [plain(v) for v in value]
        return value

    text = printable(json.dumps(plain(raw), ensure_ascii=False))
    return text if len(text) <= MAX_RAW_CHARS else text[: MAX_RAW_CHARS - 1] + "…"


def plan_text(plan: Plan) -> str:
    """The plan as plain text: a heading line, then one line per entry."""
    return plan_content(plan).plain


def plan_content(plan: Plan, *, show_id: bool = False) -> Content:
    """The plan as styled `Content` (status icons coloured by theme tokens).

    Args:
        plan: The plan snapshot.
        show_id: Name an untitled plan by its `planId` (where several plans are
            listed together).

    Returns:
        A heading (`Plan`, the title and type when present, progress), then one
        line per entry: status icon, text, and a subtle `high`/`low` priority.
    """
    heading: list[str | tuple[str, str]] = [("Plan", "bold")]
    plan_entries, raw = plan.unpacked()
    title = _title(raw) or (_one_line(plan.plan_id) if show_id else None)
    if title:
        heading += [" · ", (title, "bold")]
    if plan.plan_type != "items":
        heading.append((f" ({_one_line(plan.plan_type)})", "italic"))
        return Content.assemble(*heading, "\n", (_raw_line(raw), "dim"))
    entries = [e for e in plan_entries if isinstance(e, Mapping)]
    done = sum(1 for e in entries if e.get("status") == "completed")
    if entries:
        heading.append((f"  {done}/{len(entries)}", "dim"))
    parts = heading
    for entry in entries[:MAX_ENTRIES]:
        status = str(entry.get("status"))
        token = STATUS_TOKENS.get(status, "tool-pending")
        parts += ["\n", (MARKS.get(status, "?"), f"${token}"), " "]
        text = _one_line(entry.get("content", ""))
        parts.append((text, "dim") if status == "completed" else text)
        priority = entry.get("priority")
        if priority in ("high", "low"):
            parts.append((f" · {priority}", "dim italic"))
    if not entries:
        parts += ["\n", ("(no entries)", "dim")]
    elif len(entries) > MAX_ENTRIES:
        more = len(entries) - MAX_ENTRIES
        parts += ["\n", (f"… {more:,} more entries", "dim italic")]
    return Content.assemble(*parts)


class PlanView(Static):
    """Renders a `Plan`; `update_plan` re-renders only if the snapshot changed.

    Args:
        plan: The plan snapshot to show first.
        show_id: Name an untitled plan by its `planId`.
        classes: CSS classes.
    """

    DEFAULT_CSS = """
    PlanView {
        height: auto;
        border: round $secondary;
        padding: 0 1;
        margin: 0 0 1 0;
    }
    """

    def __init__(
        self, plan: Plan, *, show_id: bool = False, classes: str | None = None
    ) -> None:
        content = plan_content(plan, show_id=show_id)
        super().__init__(content, classes=classes)
        self.plan = plan
        """The newest snapshot given (drawn, or about to be)."""
        self.show_id = show_id
        """Whether an untitled plan is named by its id."""
        self._widths = _line_widths(content)
        self._drawn = plan
        self._tokens = float(BURST)
        self._refilled = time.monotonic()
        self._timer: Timer | None = None
        self.draws = 0
        """How many times an update was drawn (tests and benchmarks)."""

    @property
    def plan_id(self) -> str:
        """The id of the plan shown."""
        return self.plan.plan_id

    @property
    def text(self) -> str:
        """What is shown, as plain text."""
        return static_plain(self)

    def update_plan(self, plan: Plan) -> None:
        """Show a newer snapshot (nothing happens if it is the one shown).

        Drawn now, or, while updates come faster than `BURST` at once, within
        `REDRAW_INTERVAL` (the newest one then).
        """
        if plan is self.plan:
            return
        self.plan = plan
        if self._timer is not None:
            return  # a draw is due: it takes the newest snapshot
        now = time.monotonic()
        refill = (now - self._refilled) / REDRAW_INTERVAL
        self._tokens = min(float(BURST), self._tokens + refill)
        self._refilled = now
        if self._tokens >= 1 or not self.is_mounted:
            self._tokens -= 1
            self._draw()
        else:
            wait = (1 - self._tokens) * REDRAW_INTERVAL
            self._timer = set_timer_once(
                self, wait, self._draw_later, name="plan-redraw"
            )

    def _draw_later(self) -> None:
        self._timer = None
        self._tokens = 0.0
        self._refilled = time.monotonic()
        self._draw()

    def _draw(self) -> None:
        plan = self.plan
        if plan is self._drawn:
            return
        self._drawn = plan
        content = plan_content(plan, show_id=self.show_id)
        widths = _line_widths(content)
        self.update(content, layout=widths != self._widths)
        self._widths = widths
        self.draws += 1


def _line_widths(content: Content) -> list[int]:
    """The length of each line: the same, the same height at any width."""
    return [len(line) for line in content.plain.split("\n")]
