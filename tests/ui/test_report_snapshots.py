"""SVG snapshots of the report cards (notices, a compaction, a session message).

The cards are built with `make_card` from a store driven by ops, in the dark
theme. After a deliberate change of look, regenerate these two with
`--snapshot-update` and check each picture against its docstring.
"""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Collapsible

from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.ui.themes import register_themes, theme_variable_defaults
from acp_tui.ui.widgets.conversation_cards import make_card
from tests.ui.test_card_snapshots import SnapCompare

pytestmark = pytest.mark.snapshot

SIZE = (80, 24)


class ReportsApp(App[None]):
    AUTO_FOCUS = None

    def __init__(self, store: SessionStore) -> None:
        super().__init__()
        self.store = store
        self.theme_errors = register_themes(self, dirs=[])
        self.theme = "acp-dark"

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            for key in self.store.timeline():
                card = make_card(self.store, key)
                assert card is not None
                yield card


def text(value: str) -> dict[str, str]:
    return {"type": "text", "text": value}


def reports_store() -> SessionStore:
    store = SessionStore("own")
    store.apply_many(
        [
            ops.AddNotice("info", "Using the fast model"),
            ops.AddNotice(
                "warning", "MCP server unavailable", "Continuing without it."
            ),
            ops.AddNotice("error", "Could not refresh the usage quota"),
            ops.PatchCompaction(
                "c1",
                "completed",
                summary=[text("## Retained context\n\n- The user fixes the parser.")],
            ),
            ops.PatchSessionMessage(
                "sm1",
                sender_session_id="sess-helper",
                content=[text("Found 3 failing tests.")],
            ),
        ]
    )
    return store


def test_notices_compaction_and_session_message(snap_compare: SnapCompare) -> None:
    """Three notices, each with a thick left border and text in its severity's
    colour: `ℹ info: Using the fast model` (blue), `⚠ warning: MCP server
    unavailable` (yellow) with `Continuing without it.` dimmed below, `✖ error:
    Could not refresh the usage quota` (red). Then a dashed rule over a centred,
    bold `context compacted`, and a folded `▶ summary (49 characters)`. Last, a
    double left border around `↘ from session sess-helper` (bold) and `Found 3
    failing tests.`.
    """
    assert snap_compare(ReportsApp(reports_store()), terminal_size=SIZE)


def test_the_compaction_summary_opened(snap_compare: SnapCompare) -> None:
    """The same, with the summary opened (`▼ summary (49 characters)`): under it,
    dimmed and indented, `## Retained context`, a blank line and `- The user fixes
    the parser.` as plain text.
    """

    async def open_summary(pilot: Pilot[None]) -> None:
        pilot.app.query_one(Collapsible).collapsed = False
        await pilot.pause()

    app = ReportsApp(reports_store())
    assert snap_compare(app, terminal_size=SIZE, run_before=open_summary)
