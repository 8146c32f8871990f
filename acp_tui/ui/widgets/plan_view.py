"""A plan: its entries with status marks."""

from __future__ import annotations

from typing import Final

from rich.text import Text
from textual.widgets import Static

from acp_tui.protocol.framing import printable
from acp_tui.store.model import Plan

__all__ = ["PlanView", "plan_text"]

MARKS: Final = {"pending": "○", "in_progress": "◐", "completed": "●"}


def plan_text(plan: Plan) -> str:
    """The plan as plain text, one entry per line."""
    if plan.plan_type != "items":
        return f"Plan ({printable(plan.plan_type)})"
    lines = ["Plan"]
    for entry in plan.entries:
        mark = MARKS.get(str(entry.get("status")), "?")
        lines.append(f"{mark} {printable(str(entry.get('content', '')))}")
    return "\n".join(lines)


class PlanView(Static):
    """Renders a `Plan` (replaced as a whole on every update)."""

    DEFAULT_CSS = """
    PlanView {
        height: auto;
        border: round $secondary;
        padding: 0 1;
        margin: 0 0 1 0;
    }
    """

    def __init__(self, plan: Plan) -> None:
        super().__init__(Text(plan_text(plan)))
        self.plan = plan

    def update_plan(self, plan: Plan) -> None:
        """Show a newer snapshot."""
        self.plan = plan
        self.update(Text(plan_text(plan)))
