"""Jumping to an entry far from the end: the window moves there, bounded.

Driven by a `SessionStore` and store ops, as `test_conversation.py` is.
"""

from __future__ import annotations

from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.conversation_jump import LaterEntries
from acp_tui.ui.widgets.message_view import MessageView
from tests.ui.helpers import wait_for
from tests.ui.test_conversation import SIZE, ConversationApp, show, text, user_turns


def on_screen(conversation: Conversation, widget: MessageView) -> bool:
    region = widget.region
    return (
        widget.is_attached
        and region.height > 0
        and conversation.region.y <= region.y < conversation.region.bottom
    )


async def test_a_jump_far_back_mounts_a_few_entries_there() -> None:
    app, store = ConversationApp(), SessionStore("s")
    async with app.run_test(size=SIZE) as pilot:
        conversation = app.conversation
        await show(app, store, *user_turns(500))
        await wait_for(pilot, lambda: ("message", "u499") in conversation.entries)
        card = await conversation.jump_to(("message", "u10"))
        assert isinstance(card, MessageView)
        assert card.message.message_id == "u10"
        # Only a few entries around the target, not the 490 between it and the end.
        assert len(conversation.entries) <= 1 + Conversation.JUMP_BEFORE + (
            Conversation.JUMP_AFTER
        )
        assert conversation.detached
        assert not conversation.following
        await wait_for(pilot, lambda: on_screen(conversation, card))
        later = conversation.query_one(LaterEntries)
        assert later.display
        # Every entry is mounted, counted above or counted below (the window
        # may have grown around the view since).
        await wait_for(  # the window may still be mounting around the view
            pilot,
            lambda: (
                later.count
                == 500 - conversation.earlier_count - len(conversation.entries)
            ),
        )
        # New entries while detached are counted, not mounted.
        await show(app, store, *user_turns(502)[500:])
        await pilot.pause()
        assert ("message", "u501") not in conversation.entries
        await wait_for(  # the window may still be mounting around the view
            pilot,
            lambda: (
                later.count
                == 502 - conversation.earlier_count - len(conversation.entries)
            ),
        )
        # Going to the end mounts the newest entries and follows again.
        conversation.jump_to_end()
        await wait_for(pilot, lambda: ("message", "u501") in conversation.entries)
        await wait_for(pilot, lambda: conversation.following)
        assert not conversation.detached
        assert ("message", "u10") not in conversation.entries
        assert not later.display


async def test_scrolling_down_a_detached_window_mounts_later_entries() -> None:
    app, store = ConversationApp(), SessionStore("s")
    async with app.run_test(size=SIZE) as pilot:
        conversation = app.conversation
        await show(app, store, *user_turns(100))
        await wait_for(pilot, lambda: ("message", "u99") in conversation.entries)
        await conversation.jump_to(("message", "u20"))
        assert ("message", "u30") not in conversation.entries
        later = conversation.query_one(LaterEntries)
        before = later.count
        await conversation.load_later()
        assert later.count == before - Conversation.LOAD_BATCH
        assert ("message", "u30") in conversation.entries
        # In order and contiguous (earlier ones may have been mounted above to
        # fill the screen).
        order = [int(w.message.message_id[1:]) for w in conversation.query(MessageView)]
        assert order == list(range(order[0], order[0] + len(order)))
        assert order[0] <= 18


async def test_a_jump_to_a_mounted_entry_keeps_the_window() -> None:
    app, store = ConversationApp(), SessionStore("s")
    async with app.run_test(size=SIZE) as pilot:
        conversation = app.conversation
        await show(app, store, *user_turns(30))
        await wait_for(pilot, lambda: ("message", "u29") in conversation.entries)
        mounted = set(conversation.entries)
        key = sorted(mounted, key=lambda k: int(k[1][1:]))[0]
        card = await conversation.jump_to(key)
        assert card is conversation.entries[key]
        assert set(conversation.entries) >= mounted
        assert not conversation.detached


async def test_a_jump_into_a_tall_card_shows_the_part_asked_for() -> None:
    app, store = ConversationApp(), SessionStore("s")
    async with app.run_test(size=SIZE) as pilot:
        conversation = app.conversation
        lines = "\n".join(f"line {n}" for n in range(200))
        tall = ops.UpsertMessage("tall", "user", content=[text(lines)])
        await show(app, store, *user_turns(3), tall, *user_turns(40)[3:])
        await wait_for(pilot, lambda: ("message", "u39") in conversation.entries)
        card = await conversation.jump_to(("message", "tall"), 0.9)
        assert card is not None
        await wait_for(pilot, lambda: card.virtual_region.height > 150)
        top = card.virtual_region.y
        # Near line 180 of 200: far below the card's top, and that line in view.
        await wait_for(pilot, lambda: conversation.scroll_y > top + 150)
        assert conversation.scroll_y < top + 0.9 * card.virtual_region.height
