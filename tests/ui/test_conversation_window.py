"""Scrolling a long conversation: a bounded window of cards around the view.

Driven by a `SessionStore` and store ops, as `test_conversation.py` is; pages are
turned as PageUp/PageDown from the prompt turn them (`Conversation.page`).
"""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.message_view import MessageView
from tests.ui.helpers import screen_settled, wait_for
from tests.ui.test_conversation import SIZE, ConversationApp, show, text, user_turns

ENTRIES = 300
BOUND = 100
"""Most cards mounted at once while paging through `ENTRIES` short turns: the
window keeps `2 * KEEP_SCREENS + 1` screens of 24 lines, about 90 cards of two
or three lines (the old code mounted every card it had paged past)."""


class WindowApp(ConversationApp):
    def __init__(self) -> None:
        super().__init__()
        self.store = SessionStore("s")


def visible(conversation: Conversation) -> list[str]:
    """The ids of the messages on screen, top to bottom."""
    top, bottom = conversation.region.y, conversation.region.bottom
    return [
        card.message.message_id
        for card in conversation.query(MessageView)
        if card.region.height and top <= card.region.y < bottom
    ]


async def long_history(pilot: Pilot[None], app: WindowApp) -> Conversation:
    conversation = app.conversation
    await show(app, app.store, *user_turns(ENTRIES))
    last = ("message", f"u{ENTRIES - 1}")
    await wait_for(pilot, lambda: last in conversation.entries)
    await wait_for(pilot, lambda: conversation.max_scroll_y > 0)
    return conversation


async def page_until(
    pilot: Pilot[None], conversation: Conversation, direction: int, done: object
) -> int:
    """Turn pages until `done()`; return the most cards mounted meanwhile."""
    assert callable(done)
    most = len(conversation.entries)
    for _ in range(2000):
        if done():
            return most
        conversation.page(direction)
        await pilot.pause()
        most = max(most, len(conversation.entries))
    raise AssertionError("paging did not get there")


def at_top(conversation: Conversation) -> bool:
    return conversation.earlier_count == 0 and conversation.scroll_y == 0


async def paged_to_the_top(pilot: Pilot[None], app: WindowApp) -> Conversation:
    """The long history, paged up to its first entry: the window is detached."""
    conversation = await long_history(pilot, app)
    await page_until(pilot, conversation, -1, lambda: at_top(conversation))
    await wait_for(pilot, lambda: conversation.detached)
    return conversation


async def test_paging_to_the_top_keeps_a_bounded_window_and_shows_the_first() -> None:
    app = WindowApp()
    async with app.run_test(size=SIZE) as pilot:
        conversation = await long_history(pilot, app)
        most = await page_until(pilot, conversation, -1, lambda: at_top(conversation))
        await wait_for(pilot, lambda: visible(conversation)[:1] == ["u0"])
        assert most <= BOUND
        # The newest entries went on the way up: the window stops before the end.
        assert ("message", f"u{ENTRIES - 1}") not in conversation.entries
        assert conversation.detached
        assert not conversation.following
        # The mounted cards are a contiguous run from the first entry.
        order = [card.message.message_id for card in conversation.query(MessageView)]
        assert order == [f"u{n}" for n in range(len(order))]


async def test_paging_back_down_reaches_the_tail_and_follows_again() -> None:
    app = WindowApp()
    async with app.run_test(size=SIZE) as pilot:
        conversation = await long_history(pilot, app)
        await page_until(pilot, conversation, -1, lambda: at_top(conversation))
        most = await page_until(pilot, conversation, 1, lambda: conversation.following)
        assert most <= BOUND
        assert not conversation.detached
        await wait_for(pilot, lambda: visible(conversation)[-1:] == [f"u{ENTRIES - 1}"])
        assert ("message", "u0") not in conversation.entries
        # Following: new output shows at once, with no marker.
        await show(app, app.store, *user_turns(ENTRIES + 1)[ENTRIES:])
        await wait_for(pilot, lambda: visible(conversation)[-1:] == [f"u{ENTRIES}"])
        assert not conversation.new_output_below


async def test_page_down_at_the_end_keeps_following() -> None:
    """PageDown with nothing below: the view still follows, and new output shows.

    Textual scrolls a page after the next refresh and releases the anchor then;
    the check for the end ran before it, so the view stopped following at the
    very end and no later PageDown (nothing left to scroll) brought it back.
    """
    app = WindowApp()
    async with app.run_test(size=SIZE) as pilot:
        conversation = await long_history(pilot, app)
        await wait_for(pilot, lambda: conversation.following)
        for _ in range(3):
            conversation.page(1)
            await pilot.pause()
            await screen_settled(pilot)
            assert conversation.following
        await show(app, app.store, *user_turns(ENTRIES + 1)[ENTRIES:])
        await wait_for(pilot, lambda: visible(conversation)[-1:] == [f"u{ENTRIES}"])
        assert not conversation.new_output_below


async def test_entries_mounted_above_do_not_move_the_view_in_any_frame() -> None:
    app = WindowApp()
    async with app.run_test(size=SIZE) as pilot:
        conversation = await long_history(pilot, app)
        conversation.page(-1)
        await wait_for(pilot, lambda: not conversation.following)
        await screen_settled(pilot)
        card = conversation.entries[("message", visible(conversation)[0])]
        where = card.region.y
        seen: list[int] = []
        app.screen.screen_layout_refresh_signal.subscribe(
            app, lambda _: seen.append(card.region.y)
        )
        before = conversation.earlier_count
        await conversation.load_earlier()
        await wait_for(pilot, lambda: len(seen) >= 1)
        await screen_settled(pilot)
        assert conversation.earlier_count < before
        # Every frame laid out since showed the card where it was.
        assert set(seen) == {where}


async def test_entries_mounted_above_arrange_the_screen_once_per_layout() -> None:
    """Keeping the view in place moves the scrollbar after the arrangement.

    Moved in it, the scrollbar's refresh asked the compositor where it is, and
    with the map being remade that arranged the whole screen once more inside
    the arrangement (a frame's cost, each frame that mounts cards above).
    """
    app = WindowApp()
    async with app.run_test(size=SIZE) as pilot:
        conversation = await long_history(pilot, app)
        conversation.page(-1)
        await wait_for(pilot, lambda: not conversation.following)
        await screen_settled(pilot)
        compositor = app.screen._compositor
        original = compositor._arrange_root
        depth = 0
        deepest = 0

        def arrange_root(*args: Any, **kwargs: Any) -> Any:
            nonlocal depth, deepest
            depth += 1
            deepest = max(deepest, depth)
            try:
                return original(*args, **kwargs)
            finally:
                depth -= 1

        compositor._arrange_root = arrange_root  # type: ignore[method-assign]
        before = conversation.earlier_count
        y = conversation.scroll_y
        await conversation.load_earlier()
        await screen_settled(pilot)
        assert conversation.earlier_count < before
        assert conversation.scroll_y > y  # the view stayed: the offset moved
        assert deepest == 1
        assert conversation.vertical_scrollbar.position == conversation.scroll_y


async def test_a_jump_far_back_then_paging_down_to_the_end_stays_bounded() -> None:
    app = WindowApp()
    async with app.run_test(size=SIZE) as pilot:
        conversation = await long_history(pilot, app)
        card = await conversation.jump_to(("message", "u5"))
        assert card is not None
        await wait_for(pilot, lambda: "u5" in visible(conversation))
        most = await page_until(pilot, conversation, 1, lambda: conversation.following)
        assert most <= BOUND
        await wait_for(pilot, lambda: visible(conversation)[-1:] == [f"u{ENTRIES - 1}"])
        # And back again: a second jump there works in the new window.
        card = await conversation.jump_to(("message", "u5"))
        assert card is not None
        await wait_for(pilot, lambda: "u5" in visible(conversation))


async def test_a_removed_entry_while_scrolled_up_leaves_the_view_in_place() -> None:
    app = WindowApp()
    async with app.run_test(size=SIZE) as pilot:
        store = app.store
        conversation = await paged_to_the_top(pilot, app)
        shown = visible(conversation)
        # A terminal of its own appears at the end, then moves into a tool call.
        late = ops.UpsertMessage("late", "agent", content=[text("late")])
        await show(app, store, ops.PatchTerminal("t1", command="make"), late)
        assert ("terminal", "t1") in store.timeline()
        terminal = {"type": "terminal", "terminalId": "t1"}
        await show(app, store, ops.PatchToolCall("c1", title="B", content=[terminal]))
        await wait_for(pilot, lambda: ("terminal", "t1") not in store.timeline())
        await pilot.pause()
        # Still where the user was, still away from the end (the old code
        # rebuilt the window at the end and followed).
        assert conversation.detached
        assert visible(conversation) == shown
        assert not conversation.following


async def test_a_tool_call_below_a_detached_window_is_revealed() -> None:
    app = WindowApp()
    async with app.run_test(size=SIZE) as pilot:
        conversation = await paged_to_the_top(pilot, app)
        edit = ops.PatchToolCall("c1", title="Edit", status="pending")
        await show(app, app.store, edit)
        assert ("tool_call", "c1") not in conversation.entries
        # A permission dialog about it shows its card behind it.
        assert await conversation.reveal(("tool_call", "c1"))
        card = conversation.entries[("tool_call", "c1")]
        await wait_for(
            pilot,
            lambda: conversation.region.y <= card.region.y < conversation.region.bottom,
        )


async def test_the_focused_card_stays_mounted_however_far_the_view_goes() -> None:
    app = WindowApp()
    async with app.run_test(size=SIZE) as pilot:
        conversation = await long_history(pilot, app)
        long = ops.UpsertMessage("long", "user", content=[text("word " * 20_000)])
        await show(app, app.store, long)
        await wait_for(pilot, lambda: ("message", "long") in conversation.entries)
        card = conversation.entries[("message", "long")]
        await wait_for(pilot, lambda: card.focusable)  # a long message: focusable
        conversation.page(-1)
        await wait_for(pilot, lambda: not conversation.following)
        card.focus()
        await wait_for(pilot, lambda: card.has_focus)
        await page_until(pilot, conversation, -1, lambda: at_top(conversation))
        await wait_for(pilot, lambda: visible(conversation)[:1] == ["u0"])
        # Unmounting it would move the focus, and the view with it.
        assert card.is_attached
        assert card.has_focus
        assert not conversation.following
        assert visible(conversation)[:1] == ["u0"]
