"""The plan side panel: the session's plans by `planId`, newest last.

The app docks it on the right and toggles its `display` (F4). `update_plans`
takes the store's plans (`SessionStore.plans()`, in order of first appearance)
and keeps one `PlanView` per plan shown (a `PlanDocumentView` for a markdown or
file plan), updating only the plans that changed; a plan the agent removed
(`plan_removed`) is no longer among the store's plans, so its view goes.

At most `MAX_SHOWN` plans are shown, the newest (by first appearance); a line
above them counts the earlier ones (the conversation shows every plan where it
came). An agent that sends 10,000 plans made one view each here, and F4 then
laid them all out at once: 32 s without a frame (bench/exhaustion.py). The work
per update is bounded too: only the newest `MAX_SHOWN` plans are looked at, and
while the panel is hidden only the newest list is kept: its views catch up when
it is shown (or asked about).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, cast

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.dom import DOMNode
from textual.widgets import Static

from acp_tui.client.plan_documents import plan_document
from acp_tui.store.model import Plan
from acp_tui.ui.widgets.plan_document_view import PlanDocumentView, plan_card
from acp_tui.ui.widgets.plan_view import PlanView

__all__ = ["MAX_SHOWN", "PlanPanel"]

MAX_SHOWN: Final = 12
"""The most plans the panel shows (the newest)."""

_DISPLAY: Final = cast(property, DOMNode.display)
"""Textual's `display` property, which the panel's extends."""


class PlanPanel(VerticalScroll):
    """A scrollable side panel with one `PlanView` per plan.

    Args:
        id: The widget id.
        classes: CSS classes.
    """

    DEFAULT_CSS = """
    PlanPanel {
        dock: right;
        width: 36;
        height: 1fr;
        background: $panel;
        border-left: vkey $secondary;
        padding: 0 1;
        & > #plan-panel-title { text-style: bold; color: $text-primary; }
        & > #plan-empty { color: $text-muted; text-style: italic; }
        & > #plan-earlier { color: $text-muted; text-style: italic; }
        & > PlanView, & > PlanDocumentView {
            border: none;
            border-top: hkey $secondary;
            padding: 0;
            margin: 0 0 1 0;
        }
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._views: dict[str, PlanView | PlanDocumentView] = {}
        self._order: list[str] = []
        self._empty = Static(Content("No plan yet"), id="plan-empty")
        self._earlier = Static(Content(""), id="plan-earlier")
        self._earlier.display = False
        self.earlier_count = 0
        """How many plans (the oldest) are not shown."""
        self._composed = False
        self._pending: Sequence[Plan] | None = None
        """The newest plans given while hidden (the views catch up when shown)."""

    def compose(self) -> ComposeResult:
        """Build the title, the empty state and the plans given so far."""
        self._composed = True
        yield Static(Content("Plans"), id="plan-panel-title")
        yield self._empty
        yield self._earlier
        yield from (self._views[plan_id] for plan_id in self._order)

    @property
    def plan_ids(self) -> list[str]:
        """The ids of the plans shown, in order."""
        self._catch_up()
        return list(self._order)

    def plan_view(self, plan_id: str) -> PlanView | PlanDocumentView | None:
        """The view of one plan, if shown."""
        self._catch_up()
        return self._views.get(plan_id)

    @property
    def display(self) -> bool:
        """Whether the panel is displayed.

        Setting it true brings the views up to date at once: F4 shows the newest
        plans, not what the panel held when it was hidden.
        """
        return bool(_DISPLAY.__get__(self))

    @display.setter
    def display(self, value: bool | str) -> None:
        _DISPLAY.__set__(self, value)
        if self._pending is not None and self.display:
            self._catch_up()

    def _catch_up(self) -> None:
        plans, self._pending = self._pending, None
        if plans is not None:
            self.update_plans(plans)

    def update_plans(self, plans: Sequence[Plan]) -> None:
        """Show these plans, in this order (the newest last).

        Views of plans that are still there are updated in place (only if their
        snapshot changed); new plans are appended; plans that are gone are removed.

        Args:
            plans: Every plan, such as `SessionStore.plans()`: the last
                `MAX_SHOWN` are shown. If an id appears twice among them, its
                first plan is shown.
        """
        self._show_earlier(max(0, len(plans) - MAX_SHOWN))
        if self._composed and not self.display:
            self._pending = plans
            return
        self._pending = None
        latest: dict[str, Plan] = {}
        for plan in plans[-MAX_SHOWN:]:
            latest.setdefault(plan.plan_id, plan)
        ids = list(latest)
        gone = [plan_id for plan_id in self._order if plan_id not in latest]
        if gone:  # older plans made way for newer ones
            self._forget(gone)
        if ids[: len(self._order)] != self._order:
            # Not an extension of what is shown: rebuild (rare; plans only grow).
            self._forget(list(self._order))
        for plan_id, plan in latest.items():
            shown = self._views.get(plan_id)
            if isinstance(shown, PlanView) and plan_document(plan) is not None:
                self._forget([plan_id])  # now a document: another view, at the end
                shown = None
            if shown is not None:
                shown.update_plan(plan)
                continue
            view = plan_card(plan, show_id=True)
            self._views[plan_id] = view
            self._order.append(plan_id)
            if self._composed:
                self.mount(view)
        self._empty.display = not self._views

    def _forget(self, plan_ids: Sequence[str]) -> None:
        for plan_id in plan_ids:
            view = self._views.pop(plan_id)
            if view.is_attached:
                view.remove()
        doomed = set(plan_ids)
        self._order = [plan_id for plan_id in self._order if plan_id not in doomed]

    def _show_earlier(self, count: int) -> None:
        if count == self.earlier_count:
            return
        self.earlier_count = count
        self._earlier.display = count > 0
        noun = "plan" if count == 1 else "plans"
        self._earlier.update(
            Content(f"{count:,} earlier {noun} not shown here (see the conversation)")
        )
