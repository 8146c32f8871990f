"""The report cards driven by store ops (no agent): streaming updates reach a
mounted card through `conversation_cards.update_cards`, and agent text in
notices, compactions and session messages is shown as sent, never as markup or
terminal control.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from acp_tui.safe_text import printable
from acp_tui.store import ops
from acp_tui.store.changes import Change
from acp_tui.store.store import SessionStore
from acp_tui.ui.widgets.compaction_view import CompactionView
from acp_tui.ui.widgets.conversation_cards import SHOWN_KINDS, make_card, update_cards
from acp_tui.ui.widgets.notice_view import NoticeView
from acp_tui.ui.widgets.session_message_view import SessionMessageView
from tests.ui.helpers import wait_for

HOSTILE = "[bold red]boom[/] \x1b[31mred\x1b]8;;https://x\x07link"
SHOWN = printable(HOSTILE)
"""`HOSTILE` as shown: markup kept as text, controls escaped."""


class ReportsApp(App[None]):
    AUTO_FOCUS = None

    def __init__(self, store: SessionStore) -> None:
        super().__init__()
        self.store = store
        self.cards: dict[tuple[str, str], Widget] = {}

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            for key in self.store.timeline():
                assert key[0] in SHOWN_KINDS
                card = make_card(self.store, key)
                assert card is not None
                self.cards[key] = card
                yield card


def text(value: str) -> dict[str, str]:
    return {"type": "text", "text": value}


def shown(widget: Static) -> str:
    return str(widget.render())


async def test_hostile_text_is_shown_as_sent() -> None:
    assert "\x1b" not in SHOWN
    assert "[bold red]" in SHOWN
    store = SessionStore("own")
    store.apply_many(
        [
            ops.AddNotice(HOSTILE, HOSTILE, HOSTILE),
            ops.PatchCompaction("c1", HOSTILE, summary=[text(HOSTILE)], error=HOSTILE),
            ops.PatchSessionMessage(
                "m1", sender_session_id=HOSTILE, content=[text(HOSTILE)]
            ),
        ]
    )
    app = ReportsApp(store)
    async with app.run_test(size=(120, 30)) as pilot:
        notice = app.query_one(NoticeView)
        assert notice.has_class("-other")  # an unknown severity, shown plainly
        assert shown(notice) == f"• {SHOWN}: {SHOWN}\n{SHOWN}"
        compaction = app.query_one(CompactionView)
        divider = shown(compaction.query_one(".divider", Static))
        assert divider == f"context compaction ({SHOWN}): {SHOWN}"
        compaction.query_one(Collapsible).collapsed = False
        await pilot.pause()
        assert shown(compaction.query_one(".summary", Static)) == SHOWN
        message = app.query_one(SessionMessageView)
        assert shown(message) == f"↘ from session {SHOWN}\n{SHOWN}"


async def test_a_streaming_compaction_and_message_update_their_cards() -> None:
    store = SessionStore("own")
    store.apply_many(
        [
            ops.PatchCompaction("c1", "in_progress"),
            ops.PatchSessionMessage(
                "m1", sender_session_id="own", recipient_session_id="peer"
            ),
        ]
    )
    app = ReportsApp(store)
    async with app.run_test(size=(120, 30)) as pilot:
        compaction = app.query_one(CompactionView)
        assert compaction.has_class("-running")
        assert shown(compaction.query_one(".divider", Static)) == "compacting context…"
        assert compaction.query_one(Collapsible).title == "no summary"
        changes: list[Change] = []
        for op in (
            ops.AppendCompactionSummary("c1", text("kept ")),
            ops.AppendCompactionSummary("c1", text("this")),
            ops.PatchCompaction("c1", "completed"),
            ops.AppendSessionMessageChunk("m1", text("hello peer")),
        ):
            changes.extend(store.apply(op))
        await update_cards(store, changes, app.cards, set())
        await pilot.pause()
        assert not compaction.has_class("-running")
        assert shown(compaction.query_one(".divider", Static)) == "context compacted"
        assert compaction.query_one(Collapsible).title == "summary (9 characters)"
        assert shown(compaction.query_one(".summary", Static)) == "kept this"
        message = app.query_one(SessionMessageView)
        await wait_for(pilot, lambda: "hello peer" in shown(message))
        assert shown(message) == "↗ to session peer\nhello peer"
