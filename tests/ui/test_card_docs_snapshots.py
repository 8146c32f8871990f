"""SVG snapshots of issue 25's card looks: the tool name tag, "cancelling…", and a
markdown plan (inline and in the plan panel).

The cards are the conversation's own (`conversation_cards.make_card`), shown in
`CardsApp`'s frame (`test_cards.py`). Update the baselines with
`uv run pytest tests/ui/test_card_docs_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

import pytest
from textual.containers import VerticalScroll

from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.ui.widgets.conversation_cards import make_card
from acp_tui.ui.widgets.plan_panel import PlanPanel
from tests.ui.test_card_snapshots import SIZE, SnapCompare
from tests.ui.test_cards import CardsApp

pytestmark = pytest.mark.snapshot

DESIGN = "## Greeting API\n\n1. Validate the *name*\n2. Format the greeting\n"


class ConversationCards(CardsApp):
    """`CardsApp` with the conversation's cards (plan documents included)."""

    async def sync(self) -> None:
        box = self.query_one("#cards", VerticalScroll)
        for key in self.store.timeline():
            widget = make_card(self.store, key)
            if widget is not None:
                await box.mount(widget)
        self.query_one(PlanPanel).update_plans(self.store.plans())


def store() -> SessionStore:
    store = SessionStore("snap")
    store.apply_many(
        [
            ops.PatchToolCall(
                "t1",
                title="Run the test suite",
                kind="execute",
                status="in_progress",
                name="run_tests",
            ),
            ops.PatchToolCall(
                "t2",
                title="Read notes.txt",
                kind="read",
                status="completed",
                name="read_file",
            ),
            ops.MarkCancelling("tool_call", "t1"),
            ops.ReplacePlan(
                "design",
                "markdown",
                [],
                {"type": "markdown", "planId": "design", "content": DESIGN},
            ),
        ]
    )
    return store


def test_name_tags_cancelling_and_a_markdown_plan(snap_compare: SnapCompare) -> None:
    """Two tool cards, each title followed by its tool's name in dim text
    (`run_tests`, `read_file`); the first, running, says `cancelling…` in italics
    where its status was; the second `✓ completed`. Below, a bordered plan card
    headed `Plan (markdown)` draws the markdown: a bold heading `Greeting API`
    and a numbered list whose `name` is italic. The plan panel on the right lists
    it as `Plan · design (markdown)`, drawn the same way.
    """
    assert snap_compare(ConversationCards(store(), panel=True), terminal_size=SIZE)
