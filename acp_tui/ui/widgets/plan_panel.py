"""The plan side panel: every plan of the session by `planId`, newest last.

The app docks it on the right and toggles its `display`. `update_plans` takes the
store's plans (`SessionStore.plans()`, in order of first appearance) and keeps
one `PlanView` per plan, updating only the plans that changed.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from acp_tui.store.model import Plan
from acp_tui.ui.widgets.plan_view import PlanView

__all__ = ["PlanPanel"]


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
        & > PlanView {
            border: none;
            border-top: hkey $secondary;
            padding: 0;
            margin: 0 0 1 0;
        }
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._views: dict[str, PlanView] = {}
        self._order: list[str] = []
        self._empty = Static(Content("No plan yet"), id="plan-empty")
        self._composed = False

    def compose(self) -> ComposeResult:
        """Build the title, the empty state and the plans given so far."""
        self._composed = True
        yield Static(Content("Plans"), id="plan-panel-title")
        yield self._empty
        yield from (self._views[plan_id] for plan_id in self._order)

    @property
    def plan_ids(self) -> list[str]:
        """The ids of the plans shown, in order."""
        return list(self._order)

    def plan_view(self, plan_id: str) -> PlanView | None:
        """The view of one plan, if shown."""
        return self._views.get(plan_id)

    def update_plans(self, plans: Sequence[Plan]) -> None:
        """Show these plans, in this order (the newest last).

        Views of plans that are still there are updated in place (only if their
        snapshot changed); new plans are appended; plans that are gone are removed.

        Args:
            plans: Every plan to show, such as `SessionStore.plans()`. If an id
                appears twice, its first plan is shown.
        """
        latest: dict[str, Plan] = {}
        for plan in plans:
            latest.setdefault(plan.plan_id, plan)
        ids = list(latest)
        if ids[: len(self._order)] != self._order:
            # Not an extension of what is shown: rebuild (rare; plans only grow).
            for view in self._views.values():
                if view.is_attached:
                    view.remove()
            self._views.clear()
            self._order.clear()
        for plan_id, plan in latest.items():
            shown = self._views.get(plan_id)
            if shown is not None:
                shown.update_plan(plan)
                continue
            view = PlanView(plan, show_id=True)
            self._views[plan_id] = view
            self._order.append(plan_id)
            if self._composed:
                self.mount(view)
        self._empty.display = not self._views
