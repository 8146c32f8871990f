"""A search jump far back in a long conversation, then paging back to the end.

The app against the fake agent; the long history is applied to its store (as a
resumed session replays one); the user presses ctrl+f, Enter, Esc, PageDown.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.store import ops
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.message_view import MessageView
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.ui.helpers import wait_for
from tests.ui.test_app import SIZE, _home, fake_app
from tests.ui.test_conversation import text, user_turns
from tests.ui.test_search import bar, pane

pytestmark = pytest.mark.subprocess

__all__ = ["_home"]

TURNS = 200
BOUND = 120
"""Most cards mounted while paging down: the window keeps `2 * KEEP_SCREENS + 1`
screens, about 90 of these short turns (the old code mounted all 200)."""


def on_screen(conversation: Conversation, text: str) -> bool:
    top, bottom = conversation.region.y, conversation.region.bottom
    return any(
        card.message.text == text and top <= card.region.y < bottom
        for card in conversation.query(MessageView)
        if card.region.height
    )


async def test_a_search_jump_far_back_then_paging_down_follows_again(
    tmp_path: Path,
) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        store = app.store
        assert store is not None
        # A long history (as a resumed session replays one), one early match.
        early = ops.UpsertMessage("early", "agent", content=[text("xyzzy early")])
        store.apply_many([early, *user_turns(TURNS)])
        conversation = app.query_one(Conversation)
        last = ("message", f"u{TURNS - 1}")
        await wait_for(pilot, lambda: last in conversation.entries)
        await wait_for(pilot, lambda: ("message", "early") not in conversation.entries)
        prompt = app.active_pane.query_one(PromptInput)
        prompt.focus()
        await wait_for(pilot, lambda: app.focused is prompt)
        await pilot.press("ctrl+f")
        await wait_for(pilot, lambda: pane(app).search_open)
        await pilot.press(*"xyzzy")
        await wait_for(pilot, lambda: bar(app).count_text == "1 found")
        await pilot.press("enter")
        await wait_for(pilot, lambda: on_screen(conversation, "xyzzy early"))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not pane(app).search_open)
        assert not conversation.following
        # PageDown from the prompt, all the way: the later entries are mounted
        # on the way, a bounded number at a time, and the end follows again.
        most = len(conversation.entries)
        for _ in range(500):
            if conversation.following:
                break
            await pilot.press("pagedown")
            most = max(most, len(conversation.entries))
        await wait_for(pilot, lambda: conversation.following)
        await wait_for(
            pilot, lambda: on_screen(conversation, f"question number {TURNS - 1}")
        )
        assert most <= BOUND
        assert not conversation.detached
